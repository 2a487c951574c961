"""What a module fills its templates' slots with, read at the calls that fill them, never run.

A template is a string constant given a name (`QA_PROMPT = '''...'''`) or a string a function
returns (`def build_prompt(context, question): return f"..."`). The module fills its slots where
it calls them: `QA_PROMPT.format(question=standalone_question)`, `chain.invoke({"question": q})`
on a prompt made from it, or `build_prompt(docs, rewritten_question)`, whose arguments bind the
parameters the f-string prints. A slot that holds the question, filled with a value whose name
says it is the question rewritten (`standalone_question`, `enhanced["condensed_query"]`), or with a
local a function named for rewriting the question fills (`standalone = rewrite_question(q, history)`,
`q2 = condense_question(q, h) if h else q`), is bound to the rewritten question: the template alone
cannot say so.
"""

from __future__ import annotations

import ast

from ..meaning.lexicon import Lexicon
from .expressions import string_value
from .pyassembly import own_nodes
from .pybuild import called_name
from .pyflow import Rewrites, called_names
from .segment import slot_kind, words

# Calls on a prompt that fill its slots by keyword, or with a dict of them.
FILLING = frozenset({"format", "format_messages", "format_prompt", "invoke", "ainvoke", "stream", "astream", "partial"})


# The line a template held elsewhere stands on (no string of the module starts there): what is made of it is followed
# as for any other template, and its fills are read at their calls.
ELSEWHERE = 0
# The parameters of a function imported that makes a prompt: unknown, each named by what the call passes it.
BY_ARGUMENT = ["*"]

Bindings = dict[int, tuple[tuple[str, str], ...]]
Fill = tuple[ast.Call, tuple[str, ...], tuple[tuple[str, str], ...]]


def read_fills(module: ast.Module, lexicon: Lexicon) -> tuple[Bindings, list[Fill]]:
    """What the module fills its templates' question slots with, read once: the bindings of the templates it holds
    (for the first line of each string a template is made of, the question slots a call of the module fills with a
    rewritten question, each as (slot, "rewritten")), and the calls that fill a template whose text it does not hold (imported, `from .prompts
    import QA_PROMPT`, or pulled, `hub.pull("rlm/rag-prompt")`), directly or through a chain made of it, with the
    question rewritten: each call, the slots it fills, and the question slots bound to the rewrite. The call is all the
    file shows of that prompt, and what it fills the question with is the code's to say."""
    vocab = words(lexicon=lexicon)
    owners = _owners(module, _opaque_templates(module, lexicon)) | {name: (BY_ARGUMENT, {ELSEWHERE}) for name in _opaque_makers(module, lexicon)}
    mapped = _chain_mappings(module)
    rewrites = Rewrites(module, vocab, frozenset(lexicon.words("segment", "rewrite-verbs")))
    bound_once = _bound_once(ast.walk(module))
    bound: dict[str, set[str]] = {}
    elsewhere: dict[int, tuple[ast.Call, tuple[str, ...], set[str]]] = {}
    for call in (n for n in ast.walk(module) if isinstance(n, ast.Call)):
        owner, filled = _filled(call, owners, mapped)
        slots = {slot for slot, value in filled if slot_kind(slot, vocab) == "question" and rewrites.holds(value)}
        if slots:
            bound.setdefault(owner, set()).update(slots)
        if owner in owners and owners[owner][1] == {ELSEWHERE}:
            elsewhere[id(call)] = (call, tuple(dict.fromkeys(slot for slot, _ in filled)), slots)
        for owner, slot in _answered_with_a_rewrite(call, owners, vocab, bound_once):
            bound.setdefault(owner, set()).add(slot)
    answers = frozenset(lexicon.words("segment", "answer-keys"))
    state_keys = _keys_rewritten(module, vocab, rewrites)
    for call, owner, slot in _answered_from_state(module, (owners, mapped), vocab, state_keys, answers):
        bound.setdefault(owner, set()).add(slot)
        if id(call) in elsewhere:
            elsewhere[id(call)][2].add(slot)
    found = {line: tuple((slot, "rewritten") for slot in sorted(bound[owner])) for owner, (_, lines) in owners.items() if owner in bound for line in lines}
    for line, slot in _printed_rewrites(module, rewrites, state_keys, answers):
        found[line] = tuple(sorted({*found.get(line, ()), (slot, "rewritten")}))
    found.pop(ELSEWHERE, None)
    return found, _answered_elsewhere(elsewhere.values(), vocab)


def written_fills(module: ast.Module, module_text: dict[str, ast.expr], lexicon: Lexicon) -> dict[int, dict[str, ast.expr]]:
    """By the line each template's string starts on, the slots the module fills with a text it writes whole, each with
    that text: a literal, or a name bound once to one in the function that fills it (else ``module_text``'s, see
    pyassembly.module_texts): `prompt.partial(format_instructions=RULES)`, `{"rules": rules}` in a chain's run. Only a
    slot every fill gives the same text: one filled with anything else as well holds what the run gives it. Not a slot
    whose name says it holds the request's data (`{user_input}`, `{context}`): a literal there is a demo's value."""
    if not _fills_with_text(module):
        return {}  # most modules fill their templates with what a run gives, never with a text they write
    owners, mapped, vocab = _owners(module, set()), _chain_mappings(module), words(lexicon=lexicon)
    texts: dict[tuple[str, str], set[ast.expr | None]] = {}
    for scope in (n for n in ast.walk(module) if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef))):
        local = module_text | {name: value for name, value in _bound_once(own_nodes(scope)).items() if _literal_text(value)}
        for call in (n for n in own_nodes(scope) if isinstance(n, ast.Call)):
            owner, filled = _filled(call, owners, mapped)
            for slot, value in filled if owner and not owners[owner][0] else ():
                texts.setdefault((owner, slot), set()).add(value if _literal_text(value) else local.get(getattr(value, "id", None)))
    found: dict[int, dict[str, ast.expr]] = {}
    for (owner, slot), written in texts.items():
        if len(written) == 1 and None not in written and slot_kind(slot, vocab) is None:
            for line in owners[owner][1]:
                found.setdefault(line, {})[slot] = next(iter(written))
    return found


def _fills_with_text(module: ast.Module) -> bool:
    """Whether a call of the module fills a prompt's slots (`.partial(...)`, `.format(...)`, `.invoke({...})`) with a
    literal or a name bound to one: a cheap test, before the templates are followed."""
    nodes = list(ast.walk(module))
    texts = {n.targets[0].id for n in nodes if _named_assignment(n) and _literal_text(n.value)}
    for call in (n for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in FILLING):
        values = [k.value for k in call.keywords] + [v for arg in call.args if isinstance(arg, ast.Dict) for v in arg.values]
        if any(_literal_text(v) or isinstance(v, ast.Name) and v.id in texts for v in values):
            return True
    return False


def _literal_text(value: ast.AST) -> bool:
    return isinstance(value, ast.JoinedStr) or string_value(value) is not None


def _answered_elsewhere(fills, vocab) -> list[Fill]:
    """The fills of templates held elsewhere whose question is the rewrite, in a call that gives the prompt something to
    answer from besides the conversation (the context, a scratchpad of findings): a prompt given only the question and
    the history plans or rewrites, and a rewrite is what it should be given."""
    return [
        (call, filled, tuple((slot, "rewritten") for slot in sorted(slots)))
        for call, filled, slots in fills
        if slots and any(slot_kind(slot, vocab) not in ("question", "rewritten", "history") for slot in filled)
    ]


# Calls that load a prompt's text from elsewhere: LangChain's hub (in JavaScript, `pull` imported from it) and loader.
_LOADERS = frozenset({("hub", "pull"), ("load_prompt",), ("pull",)})


def _opaque_templates(module: ast.Module, lexicon: Lexicon) -> set[str]:
    """The names of templates whose text the module does not hold: imported under a name that says prompt (a module
    of them too, `import prompts`) or run on a dict of slots (a chain made of a prompt elsewhere), or assigned what a
    prompt loader returns."""
    imported = _imported(module)
    # A module of prompts imported whole (`import prompts`, then `prompts.prompt_telekom | model`): its templates.
    modules = {alias.asname or alias.name.split(".")[0] for node in ast.walk(module) if isinstance(node, ast.Import) for alias in node.names}
    names = {name for name in imported | modules if lexicon.mentions(name, "prompt")} | (_run_on_slots(module) & imported)
    if names:
        names -= _makers(module)
    return names | {node.targets[0].id for node in ast.walk(module) if _named_assignment(node) and _loaded(node.value)}


def _opaque_makers(module: ast.Module, lexicon: Lexicon) -> set[str]:
    """The functions imported under a name that says they make a prompt, and called (`build_prompt(context, question)`
    from `.helpers`): a prompt whose text the module does not hold, filled with what each call passes. Not a class
    (`PromptTemplate(...)`), which takes a template's text, not its values."""
    imported = _imported(module)
    called = {call.func.id for call in ast.walk(module) if isinstance(call, ast.Call) and isinstance(call.func, ast.Name)}
    return {name for name in imported & called if name[:1].islower() and lexicon.mentions(name, "prompt")}


def _imported(module: ast.Module) -> set[str]:
    """The names the module imports from others (`from .prompts import QA_PROMPT`, `build_prompt as make`)."""
    return {alias.asname or alias.name for node in ast.walk(module) if isinstance(node, ast.ImportFrom) for alias in node.names}


def _run_on_slots(module: ast.Module) -> set[str]:
    """The names a fill is called on with a dict of slots: `rag_chain.invoke({"context": docs, "question": q})`."""
    return {call.func.value.id for call in ast.walk(module) if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and call.func.attr in FILLING and isinstance(call.func.value, ast.Name) and call.args and isinstance(call.args[0], ast.Dict)}


def _makers(module: ast.Module) -> set[str]:
    """The names called, or called on for anything but a fill: a class or a function that makes a prompt
    (`ChatPromptTemplate.from_template(...)`, `build_prompt(...)`), not a template."""
    found = set()
    for call in (n for n in ast.walk(module) if isinstance(n, ast.Call)):
        if isinstance(call.func, ast.Name):
            found.add(call.func.id)
        elif isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) and call.func.attr not in FILLING:
            found.add(call.func.value.id)
    return found


def _loaded(value: ast.AST) -> bool:
    """Whether a value is a prompt a loader brings from elsewhere (`hub.pull("rlm/rag-prompt")`): its argument names it."""
    named = isinstance(value, ast.Call) and value.args and isinstance(value.args[0], ast.Constant) and isinstance(value.args[0].value, str)
    return bool(named) and tuple(called_names(value)) in _LOADERS


def _printed_rewrites(module: ast.Module, rewrites: Rewrites, state_keys: set[str], answers: frozenset[str]) -> list[tuple[int, str]]:
    """The names an f-string of a function prints that hold the question rewritten (`user_query =
    state.get("resolved_query") or state.get("user_query")`, then `f"USER QUERY:\\n{user_query}"`; a parameter a call
    passes a rewrite; in a function that returns the answer, a name read from a state key a step wrote a rewrite into,
    `q = state['question']`), each with every line of the function: a text it assembles of them
    (`HumanMessage(content="\\n".join(parts))`) starts where it is sent."""
    found = []
    for function in (f for f in ast.walk(module) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))):
        from_state = {n.targets[0].id for n in ast.walk(function) if _named_assignment(n) and _reads_keys(n.value, state_keys)} if state_keys and _answer_values(function, answers) else set()
        printed = {v.value.id for text in ast.walk(function) if isinstance(text, ast.JoinedStr)
                   for v in text.values if isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Name) and (v.value.id in from_state or rewrites.holds(v.value))}
        found += [(line, name) for name in sorted(printed) for line in range(function.lineno, (function.end_lineno or function.lineno) + 1)]
    return found


def _answer_values(function: ast.AST, answers: frozenset[str]) -> list[ast.AST]:
    """What a function returns under an answer key of the dict it returns (`{"generation": ...}`), or writes into the
    answer field of the state it is handed (`state.answer = response.content`): a graph's step that answers."""
    returned = [v for r in ast.walk(function) if isinstance(r, ast.Return) and isinstance(r.value, ast.Dict)
                for k, v in zip(r.value.keys, r.value.values) if isinstance(k, ast.Constant) and k.value in answers]
    written = [n.value for n in ast.walk(function) if isinstance(n, ast.Assign) and len(n.targets) == 1
               and isinstance(n.targets[0], ast.Attribute) and _state_key(n.targets[0]) and n.targets[0].attr in answers]
    return returned + written


def _answered_from_state(module: ast.Module, templates: tuple[dict, dict], vocab, keys: set[str], answers: frozenset[str]) -> list[tuple[ast.Call, str, str]]:
    """The question slots an answer is generated with from a state a step wrote a rewrite into (a LangGraph
    graph: `transform_query` returns `{"question": better_question}`; `generate` reads `state["question"]` and
    returns `{"generation": rag_chain.invoke({"question": question, ...})}`). Only a fill whose result the
    function returns as the answer (`answer-keys`) counts: a grader filled from the same state judges, it answers nothing.
    ``templates``: the owners and the chains' mappings (see _filled)."""
    if not keys:
        return []
    found = []
    for function in (f for f in ast.walk(module) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))):
        read = {n.targets[0].id for n in ast.walk(function) if _named_assignment(n) and _reads_keys(n.value, keys)}
        answering = _answering_calls(function, answers)
        for call in answering:
            owner, filled = _filled(call, *templates)
            for slot, value in filled:
                reads = _reads_keys(value, keys) or isinstance(value, ast.Name) and value.id in read
                if reads and slot_kind(slot, vocab) == "question":
                    found.append((call, owner, slot))
    return found


def _keys_rewritten(module: ast.Module, vocab, rewrites: Rewrites) -> set[str]:
    """The question keys of a state that a function writes a rewrite into: `return {"question": better_question}`,
    `state["question"] = rewritten`, `state.question = rewritten_msg.content` (see _state_key)."""
    keys = set()
    for node in ast.walk(module):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Dict):
            pairs = [(k.value, v) for k, v in zip(node.value.keys, node.value.values) if isinstance(k, ast.Constant) and isinstance(k.value, str)]
            rewriter = rewrites.rewriter_writes(node)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and (key := _state_key(node.targets[0])) is not None:
            pairs, rewriter = [(key, node.value)], rewrites.rewriter_writes(node)
        else:
            continue
        keys |= {key for key, value in pairs if slot_kind(key.rpartition(".")[2], vocab) == "question" and (rewriter or rewrites.holds(value))}
    return keys


def _state_key(node: ast.AST) -> str | None:
    """The key of `x["key"]`; of a field of an object a function is handed (`state.question`, a state written as a
    class's fields), the object's name and the field's, "state.question", so that only that object's field is read
    as it (`request.question` in a handler is the request's)."""
    if isinstance(node, ast.Subscript):
        return string_value(node.slice)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id not in ("self", "cls"):
        return f"{node.value.id}.{node.attr}"
    return None


def _reads_keys(value: ast.AST, keys: set[str]) -> bool:
    """Whether a value is read from one of the keys, however it is then taken apart (`state["question"][-1].content`)."""
    while isinstance(value, (ast.Attribute, ast.Subscript)):
        if _state_key(value) in keys and isinstance(value.value, ast.Name):
            return True
        value = value.value
    return False


def _answering_calls(function: ast.AST, answers: frozenset[str]) -> list[ast.Call]:
    """The calls whose result a function returns as the answer (see _answer_values: `{"generation": generation}`,
    `{"answer": chain.invoke(...)}`), directly or through locals: a field of one (`answer = response.answer`, after
    `response = chain.invoke(...)`), a method called on one (`response.content.strip()`), and the locals a call is
    handed (`llm.invoke(prompt_text)`, after `prompt_text = prompt.format(...)`)."""
    bound: dict[str, list[ast.AST]] = {}
    for node in ast.walk(function):
        if _named_assignment(node):
            bound.setdefault(node.targets[0].id, []).append(node.value)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            bound.setdefault(node.target.id, []).append(node.value)  # `response: RAGResponse = chain.invoke(...)`
    pending, seen, calls = list(_answer_values(function, answers)), set(), []
    while pending:
        value = pending.pop()
        if isinstance(value, ast.Await):
            pending.append(value.value)
        elif isinstance(value, (ast.Attribute, ast.Subscript)):
            pending.append(value.value)
        elif isinstance(value, ast.Name) and value.id not in seen:
            seen.add(value.id)
            pending += bound.get(value.id, [])
        elif isinstance(value, ast.Call):
            calls.append(value)
            pending += [a for a in value.args if isinstance(a, ast.Name)]
            if isinstance(value.func, ast.Attribute):
                pending.append(value.func.value)
    return calls


def _answered_with_a_rewrite(call: ast.Call, owners: dict[str, tuple[list[str], set[int]]], vocab, bound: dict[str, ast.AST]) -> list[tuple[str, str]]:
    """The template a framework chain answers with, and its slot the chain fills with the question it rewrote
    from the conversation: `ConversationalRetrievalChain.from_llm(..., combine_docs_chain_kwargs={"prompt": QA})`
    fills QA's {question} with a standalone rewrite of the follow-up (see `condensing-chains`)."""
    called = called_names(call)
    # A JavaScript call's options object (`fromLLM(model, retriever, {qaTemplate: QA})`) gives its keywords.
    options = [(k.value, v) for arg in call.args if isinstance(arg, ast.Dict) for k, v in zip(arg.keys, arg.values) if isinstance(k, ast.Constant)]
    keywords = {**dict(options), **{k.arg: k.value for k in call.keywords if k.arg}}
    found = []
    for chain in vocab.condensing_chains:
        if chain["call"] not in called or not _keyword_says(keywords, chain.get("when"), True) or _keyword_says(keywords, chain.get("unless"), False):
            continue
        keyword, _, key = chain["prompt"].partition(".")
        prompt = _item(_resolved(keywords.get(keyword), bound), key) if key else keywords.get(keyword)
        if _reference(prompt) in owners:
            found.append((_reference(prompt), chain["slot"]))
    return found


def _keyword_says(keywords: dict[str, ast.AST], condition: str | None, default: bool) -> bool:
    """Whether a call gives a keyword the value a condition (`chat_mode=condense_question`) names, as a literal or
    as a member of an enumeration (`ChatMode.CONDENSE_QUESTION`); ``default`` when there is no condition."""
    if condition is None:
        return default
    keyword, _, wanted = condition.partition("=")
    value = keywords.get(keyword)
    if isinstance(value, ast.Constant):
        return str(value.value).lower() == wanted.lower()
    return isinstance(value, ast.Attribute) and value.attr.lower() == wanted.lower()


def _item(mapping: ast.AST | None, key: str) -> ast.AST | None:
    """A key's value in a dict written out in the call (`{"prompt": QA}`, `dict(prompt=QA)`), or the keyword a chain
    that combines the documents was made with (`load_qa_chain(llm, prompt=QA)`, `loadQAChain(model, {prompt: QA})`)."""
    if isinstance(mapping, ast.Dict):
        return next((v for k, v in zip(mapping.keys, mapping.values) if isinstance(k, ast.Constant) and k.value == key), None)
    if isinstance(mapping, ast.Call):
        given = next((k.value for k in mapping.keywords if k.arg == key), None)
        return given or next((v for arg in mapping.args if isinstance(arg, ast.Dict) and (v := _item(arg, key)) is not None), None)
    return None


def _resolved(value: ast.AST | None, bound: dict[str, ast.AST]) -> ast.AST | None:
    """A name as what the module binds it to once (`doc_chain = load_qa_chain(...)`); any other value as it is."""
    return bound.get(value.id, value) if isinstance(value, ast.Name) else value


def _bound_once(nodes) -> dict[str, ast.AST]:
    """The names ``nodes`` (a module's, any of its functions', or one scope's own) assign exactly once, to what."""
    values: dict[str, list[ast.AST]] = {}
    for node in nodes:
        if _named_assignment(node):
            values.setdefault(node.targets[0].id, []).append(node.value)
    return {name: assigned[0] for name, assigned in values.items() if len(assigned) == 1}


def _owners(module: ast.Module, elsewhere: set[str]) -> dict[str, tuple[list[str], set[int]]]:
    """Each template's name (a constant's, or the function's that returns it) with the parameters that
    fill it (a function's) and the lines its strings start on; a template held ``elsewhere`` on ELSEWHERE's."""
    owners: dict[str, tuple[list[str], set[int]]] = {name: ([], {ELSEWHERE}) for name in elsewhere}
    for node in ast.walk(module):
        if _held(node) and not _loaded(node.value):
            owners[_reference(node.targets[0])] = ([], _string_lines(node.value))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            returned = {line for r in ast.walk(node) if isinstance(r, ast.Return) and r.value is not None for line in _string_lines(r.value)}
            owners[node.name] = ([a.arg for a in node.args.posonlyargs + node.args.args if a.arg not in ("self", "cls")], returned)
    return _made_of(module, {name: owner for name, owner in owners.items() if owner[1]})


def _made_of(module: ast.Module, owners: dict[str, tuple[list[str], set[int]]]) -> dict[str, tuple[list[str], set[int]]]:
    """The owners with what is made of them: filled as the template is. `chain = QA_PROMPT | llm`, `QA = PromptTemplate(
    template=qa_template, ...)`, `messages = [HumanMessagePromptTemplate.from_template(user_template)]`, then
    `ChatPromptTemplate.from_messages(messages)`; in whatever order the module writes them."""
    made = [(_reference(node.targets[0]), {_reference(n) for n in ast.walk(node.value)} - {None, _reference(node.targets[0])})
            for node in ast.walk(module) if _held(node)]
    changed = True
    while changed:
        changed = False
        for name, used in made:
            lines = set().union(*(owners[u][1] for u in used if u in owners))
            if lines - owners.get(name, ([], set()))[1]:
                params, own = owners.get(name, ([], set()))
                owners[name] = (params, own | lines)
                changed = True
    return owners


def _held(node: ast.AST) -> bool:
    """An assignment of a value to one name, or to one attribute of the object itself (`self.qa_prompt = ...`)."""
    return isinstance(node, ast.Assign) and len(node.targets) == 1 and _reference(node.targets[0]) is not None


def _reference(node: ast.AST | None) -> str | None:
    """The name a template is held by: a variable's, or an attribute's of the object itself or its class
    (`self.qa_prompt`, `cls.QA_PROMPT`); None for any other value."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
        return node.attr
    return None


def _named_assignment(node: ast.AST) -> bool:
    return isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)


def _string_lines(node: ast.AST) -> set[int]:
    # (A module lowered from JavaScript places a template literal, not the pieces inside it.) A dict's keys are names,
    # not text: `{"context": retriever, "question": RunnablePassthrough()} | prompt` holds no template of its own.
    keys = {id(k) for d in ast.walk(node) if isinstance(d, ast.Dict) for k in d.keys if k is not None}
    return {n.lineno for n in ast.walk(node) if (isinstance(n, ast.JoinedStr) or isinstance(n, ast.Constant) and isinstance(n.value, str)) and hasattr(n, "lineno") and id(n) not in keys}


def _filled(call: ast.Call, owners: dict[str, tuple[list[str], set[int]]], mapped: dict[str, list[tuple[str, ast.AST]]]) -> tuple[str, list[tuple[str, ast.AST]]]:
    """The template a call fills and (slot, value) for each slot it fills; ("", []) for any other call. A chain made
    from a mapping of slots (``mapped``, see _chain_mappings) run on one value fills the mapping's slots, each
    passthrough with that value."""
    callee = called_name(call)
    if callee in owners and owners[callee][0]:
        return callee, _arguments(call, owners[callee][0])
    target = call.func.value if isinstance(call.func, ast.Attribute) else None
    owner = _reference(target)
    if callee not in FILLING or owner not in owners:
        return "", []
    if owner in mapped and call.args and not isinstance(call.args[0], ast.Dict):
        return owner, [(slot, call.args[0] if _passes_through(value) else value) for slot, value in mapped[owner]]
    filled = [(k.arg, k.value) for k in call.keywords if k.arg]
    for arg in call.args:
        if isinstance(arg, ast.Dict):
            filled += [(k.value, v) for k, v in zip(arg.keys, arg.values) if isinstance(k, ast.Constant) and isinstance(k.value, str)]
    return owner, filled


def _arguments(call: ast.Call, params: list[str]) -> list[tuple[str, ast.AST]]:
    """(slot, value) for each argument of a call of a function that makes a prompt: `build_prompt(context,
    rewritten_question)` binds the function's parameters; a function imported (BY_ARGUMENT), each argument the slot
    its own name says."""
    keywords = [(k.arg, k.value) for k in call.keywords if k.arg]
    if params is BY_ARGUMENT:
        return [(name, arg) for arg in call.args if (name := _reference(arg))] + keywords
    return [*zip(params, call.args), *keywords]


# What makes a chain's mapping of slots (`RunnableParallel(context=..., question=RunnablePassthrough())`), and what hands
# a slot the value the chain is run on.
_MAPPINGS = frozenset({"RunnableParallel", "RunnableMap"})
PASSTHROUGH = "RunnablePassthrough"


def _chain_mappings(module: ast.Module) -> dict[str, list[tuple[str, ast.AST]]]:
    """The chains the module makes from a mapping of slots one of which passes the chain's input through, by name, with
    each slot and what fills it: `rag_chain = {"context": retriever | format_docs, "question": RunnablePassthrough()}
    | prompt | llm`, LangChain's way of running a prompt on one value (`rag_chain.invoke(question)`)."""
    found = {}
    for node in (n for n in ast.walk(module) if _held(n)):
        slots = _mapped_slots(node.value)
        if any(_passes_through(value) for _, value in slots):
            found[_reference(node.targets[0])] = slots
    return found


def _mapped_slots(value: ast.AST | None) -> list[tuple[str, ast.AST]]:
    """The slots of the mapping a chain starts with (a dict, or a RunnableParallel of keywords or of a dict, its
    `steps`), with what fills each; [] when it starts with none."""
    value = _chain_start(value)
    if isinstance(value, ast.Dict):
        return [(k.value, v) for k, v in zip(value.keys, value.values) if isinstance(k, ast.Constant) and isinstance(k.value, str)]
    if not (isinstance(value, ast.Call) and called_name(value) in _MAPPINGS):
        return []
    inner = [_steps(a) for a in (*value.args, *(k.value for k in value.keywords if k.arg == "steps")) if isinstance(a, ast.Dict)]
    return [(k.arg, k.value) for k in value.keywords if k.arg and k.arg != "steps"] + [slot for d in inner for slot in _mapped_slots(d)]


def _chain_start(value: ast.AST | None) -> ast.AST | None:
    """What a chain starts with: the first of `a | b | c`, the mapping `RunnableMap({...}).assign(answer=...)` adds to."""
    while isinstance(value, ast.BinOp) and isinstance(value.op, ast.BitOr):
        value = value.left
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and called_name(value) == "assign":
        value = value.func.value
    return value


def _steps(mapping: ast.Dict) -> ast.AST:
    """A mapping's slots: JavaScript's `new RunnableMap({ steps: {...} })` holds them under `steps`."""
    return next((v for k, v in zip(mapping.keys, mapping.values) if isinstance(k, ast.Constant) and k.value == "steps"), mapping)


def _passes_through(value: ast.AST) -> bool:
    return isinstance(value, ast.Call) and called_name(value) == PASSTHROUGH and not value.args and not value.keywords
