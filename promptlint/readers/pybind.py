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

from ..meaning.lexicon import Lexicon, split
from .pybuild import called_name
from .segment import slot_kind, words

# Calls on a prompt that fill its slots by keyword, or with a dict of them.
_FILLING = frozenset({"format", "format_messages", "format_prompt", "invoke", "ainvoke", "partial"})


def rewritten_bindings(module: ast.Module, lexicon: Lexicon) -> dict[int, tuple[tuple[str, str], ...]]:
    """For the first line of each string a template is made of: the question slots a call of the
    module fills with a rewritten question, each as (slot, "rewritten")."""
    vocab = words(lexicon=lexicon)
    owners = _owners(module)
    verbs = frozenset(lexicon.words("segment", "rewrite-verbs"))
    rewriting = _rewriting_calls(module, vocab, verbs)
    bound_once = _bound_once(module)
    bound: dict[str, set[str]] = {}
    for call in (n for n in ast.walk(module) if isinstance(n, ast.Call)):
        owner, filled = _filled(call, owners)
        for slot, value in filled:
            if _is_rewrite(value, vocab, rewriting) and slot_kind(slot, vocab) == "question":
                bound.setdefault(owner, set()).add(slot)
        for owner, slot in _answered_with_a_rewrite(call, owners, vocab, bound_once):
            bound.setdefault(owner, set()).add(slot)
    for owner, slot in _answered_from_state(module, owners, vocab, (rewriting, verbs), frozenset(lexicon.words("segment", "answer-keys"))):
        bound.setdefault(owner, set()).add(slot)
    found = {line: tuple((slot, "rewritten") for slot in sorted(bound[owner])) for owner, (_, lines) in owners.items() if owner in bound for line in lines}
    for line, slot in _printed_rewrites(module, vocab, rewriting, verbs):
        found[line] = tuple(sorted({*found.get(line, ()), (slot, "rewritten")}))
    return found


def _printed_rewrites(module: ast.Module, vocab, rewriting: set[str], verbs: frozenset[str]) -> list[tuple[int, str]]:
    """The locals a function fills with the question rewritten (`user_query = state.get("resolved_query") or
    state.get("user_query")`) and its f-strings print (`f"USER QUERY:\\n{user_query}"`), each with every line of the
    function: a text it assembles of them (`HumanMessage(content="\\n".join(parts))`) starts where it is sent."""
    found = []
    for function in (f for f in ast.walk(module) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))):
        filled = [n for n in ast.walk(function) if _named_assignment(n)]
        locals_ = {n.targets[0].id for n in filled if n.targets[0].id in rewriting or _is_rewrite(n.value, vocab, set(), verbs)}
        if not locals_:
            continue  # most functions fill no local with a rewrite: their f-strings are not read
        printed = {v.value.id for text in ast.walk(function) if isinstance(text, ast.JoinedStr)
                   for v in text.values if isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Name)}
        found += [(line, name) for name in sorted(printed & locals_) for line in range(function.lineno, (function.end_lineno or function.lineno) + 1)]
    return found


def _is_rewrite(value: ast.AST, vocab, rewriting: set[str], verbs: frozenset[str] = frozenset()) -> bool:
    """A value named for the question rewritten (`standalone_question`, `enhanced["condensed_query"]`), a
    local a rewriting call fills, or (given the ``verbs`` that name one) such a call itself. Of values tried in turn
    (`state.get("standalone_question") or question`), the one tried first: the others stand in when it is missing."""
    value = _preferred(value)
    name = _name(value)
    called = bool(verbs) and _rewriting_call(value, vocab, verbs)
    return called or bool(name and slot_kind(name, vocab) == "rewritten") or isinstance(value, ast.Name) and value.id in rewriting


def _answered_from_state(module: ast.Module, owners: dict, vocab, rewriting: tuple[set[str], frozenset[str]], answers: frozenset[str]) -> list[tuple[str, str]]:
    """The question slots an answer is generated with from a state a step wrote a rewrite into (a LangGraph
    graph: `transform_query` returns `{"question": better_question}`; `generate` reads `state["question"]` and
    returns `{"generation": rag_chain.invoke({"question": question, ...})}`). Only a fill whose result the
    function returns as the answer (`answer-keys`) counts: a grader filled from the same state judges, it answers nothing."""
    keys = _keys_rewritten(module, vocab, rewriting)
    if not keys:
        return []
    found = []
    for function in (f for f in ast.walk(module) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))):
        read = {n.targets[0].id for n in ast.walk(function) if _named_assignment(n) and _reads_keys(n.value, keys)}
        answering = _answering_calls(function, answers)
        for call in answering:
            owner, filled = _filled(call, owners)
            for slot, value in filled:
                reads = _reads_keys(value, keys) or isinstance(value, ast.Name) and value.id in read
                if reads and slot_kind(slot, vocab) == "question":
                    found.append((owner, slot))
    return found


def _keys_rewritten(module: ast.Module, vocab, rewriting: tuple[set[str], frozenset[str]]) -> set[str]:
    """The question keys of a state that a function writes a rewrite into: `return {"question": better_question}`,
    `state["question"] = rewritten`."""
    keys = set()
    for node in ast.walk(module):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Dict):
            pairs = [(k.value, v) for k, v in zip(node.value.keys, node.value.values) if isinstance(k, ast.Constant) and isinstance(k.value, str)]
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and (key := _key(node.targets[0])) is not None:
            pairs = [(key, node.value)]
        else:
            continue
        keys |= {key for key, value in pairs if slot_kind(key, vocab) == "question" and _is_rewrite(value, vocab, *rewriting)}
    return keys


def _key(node: ast.AST) -> str | None:
    """The key of `x["key"]`."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return node.slice.value
    return None


def _reads_keys(value: ast.AST, keys: set[str]) -> bool:
    """Whether a value is read from one of the keys, however it is then taken apart (`state["question"][-1].content`)."""
    while isinstance(value, (ast.Attribute, ast.Subscript)):
        if isinstance(value, ast.Subscript) and _key(value) in keys and isinstance(value.value, ast.Name):
            return True
        value = value.value
    return False


def _answering_calls(function: ast.AST, answers: frozenset[str]) -> list[ast.Call]:
    """The calls whose result a function returns as the answer: under an answer key of the dict it returns
    (`{"generation": generation}`, `{"answer": chain.invoke(...)}`), directly or through a local."""
    returned = [v for r in ast.walk(function) if isinstance(r, ast.Return) and isinstance(r.value, ast.Dict)
                for k, v in zip(r.value.keys, r.value.values) if isinstance(k, ast.Constant) and k.value in answers]
    names = {v.id for v in returned if isinstance(v, ast.Name)}
    values = [v for v in returned if not isinstance(v, ast.Name)]
    values += [n.value for n in ast.walk(function) if _named_assignment(n) and n.targets[0].id in names]
    values = [v.value if isinstance(v, ast.Await) else v for v in values]
    return [v for v in values if isinstance(v, ast.Call)]


def _rewriting_calls(module: ast.Module, vocab, verbs: frozenset[str]) -> set[str]:
    """The locals a call of a function named for rewriting the question fills, alone or in either branch of a
    choice: `standalone = rewrite_question(q, history)`, `q2 = await condense_query(q, h) if h else q`."""
    filled = set()
    for node in ast.walk(module):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        branches = [node.value.body, node.value.orelse] if isinstance(node.value, ast.IfExp) else [node.value]
        if any(_rewriting_call(b, vocab, verbs) for b in branches):
            filled.add(node.targets[0].id)
    return filled


def _rewriting_call(value: ast.AST, vocab, verbs: frozenset[str]) -> bool:
    """A call, awaited or not, of a function or an object named for rewriting the question."""
    call = value.value if isinstance(value, ast.Await) else value
    return isinstance(call, ast.Call) and _names_a_rewrite(call, vocab, verbs)


def _names_a_rewrite(call: ast.Call, vocab, verbs: frozenset[str]) -> bool:
    """Whether the function, or the object whose method is called, is named for rewriting the question:
    `condense_question(q, h)`, `question_rewriter.invoke({"question": q})`."""
    named = [w for name in _called(call) for w in split(name)]
    return any(w in verbs for w in named) and any(slot_kind(w, vocab) == "question" for w in named)


def _called(call: ast.Call) -> list[str]:
    """The names a call is known by: the function's, and the object's whose method it is (`question_rewriter.invoke`)."""
    method = call.func.value.id if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) else None
    return [method, called_name(call)] if method else [called_name(call)]


def _answered_with_a_rewrite(call: ast.Call, owners: dict[str, tuple[list[str], set[int]]], vocab, bound: dict[str, ast.AST]) -> list[tuple[str, str]]:
    """The template a framework chain answers with, and its slot the chain fills with the question it rewrote
    from the conversation: `ConversationalRetrievalChain.from_llm(..., combine_docs_chain_kwargs={"prompt": QA})`
    fills QA's {question} with a standalone rewrite of the follow-up (see `condensing-chains`)."""
    called = _called(call)
    # A JavaScript call's options object (`fromLLM(model, retriever, {qaTemplate: QA})`) gives its keywords.
    options = [(k.value, v) for arg in call.args if isinstance(arg, ast.Dict) for k, v in zip(arg.keys, arg.values) if isinstance(k, ast.Constant)]
    keywords = {**dict(options), **{k.arg: k.value for k in call.keywords if k.arg}}
    found = []
    for chain in vocab.condensing_chains:
        if chain["call"] not in called or not _keyword_says(keywords, chain.get("when"), True) or _keyword_says(keywords, chain.get("unless"), False):
            continue
        keyword, _, key = chain["prompt"].partition(".")
        prompt = _item(_resolved(keywords.get(keyword), bound), key) if key else keywords.get(keyword)
        if isinstance(prompt, ast.Name) and prompt.id in owners:
            found.append((prompt.id, chain["slot"]))
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


def _bound_once(module: ast.Module) -> dict[str, ast.AST]:
    """The names the module (any of its functions) assigns exactly once, to what."""
    values: dict[str, list[ast.AST]] = {}
    for node in ast.walk(module):
        if _named_assignment(node):
            values.setdefault(node.targets[0].id, []).append(node.value)
    return {name: assigned[0] for name, assigned in values.items() if len(assigned) == 1}


def _owners(module: ast.Module) -> dict[str, tuple[list[str], set[int]]]:
    """Each template's name (a constant's, or the function's that returns it) with the parameters that
    fill it (a function's) and the lines its strings start on."""
    owners: dict[str, tuple[list[str], set[int]]] = {}
    for node in ast.walk(module):
        if _named_assignment(node):
            owners[node.targets[0].id] = ([], _string_lines(node.value))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            returned = {line for r in ast.walk(node) if isinstance(r, ast.Return) and r.value is not None for line in _string_lines(r.value)}
            owners[node.name] = ([a.arg for a in node.args.posonlyargs + node.args.args if a.arg not in ("self", "cls")], returned)
    return _made_of(module, {name: owner for name, owner in owners.items() if owner[1]})


def _made_of(module: ast.Module, owners: dict[str, tuple[list[str], set[int]]]) -> dict[str, tuple[list[str], set[int]]]:
    """The owners with what is made of them: filled as the template is. `chain = QA_PROMPT | llm`, `QA = PromptTemplate(
    template=qa_template, ...)`, `messages = [HumanMessagePromptTemplate.from_template(user_template)]`, then
    `ChatPromptTemplate.from_messages(messages)`; in whatever order the module writes them."""
    made = [(node.targets[0].id, {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)} - {node.targets[0].id})
            for node in ast.walk(module) if _named_assignment(node)]
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


def _named_assignment(node: ast.AST) -> bool:
    return isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)


def _string_lines(node: ast.AST) -> set[int]:
    # (A module lowered from JavaScript places a template literal, not the pieces inside it.)
    return {n.lineno for n in ast.walk(node) if (isinstance(n, ast.JoinedStr) or isinstance(n, ast.Constant) and isinstance(n.value, str)) and hasattr(n, "lineno")}


def _filled(call: ast.Call, owners: dict[str, tuple[list[str], set[int]]]) -> tuple[str, list[tuple[str, ast.AST]]]:
    """The template a call fills and (slot, value) for each slot it fills; ("", []) for any other call."""
    callee = called_name(call)
    if callee in owners and owners[callee][0]:
        # `build_prompt(context, rewritten_question)`: the arguments bind the function's parameters.
        params = owners[callee][0]
        return callee, [*zip(params, call.args), *((k.arg, k.value) for k in call.keywords if k.arg)]
    target = call.func.value if isinstance(call.func, ast.Attribute) else None
    owner = target.id if isinstance(target, ast.Name) else None
    if callee not in _FILLING or owner not in owners:
        return "", []
    filled = [(k.arg, k.value) for k in call.keywords if k.arg]
    for arg in call.args:
        if isinstance(arg, ast.Dict):
            filled += [(k.value, v) for k, v in zip(arg.keys, arg.values) if isinstance(k, ast.Constant) and isinstance(k.value, str)]
    return owner, filled


def _preferred(value: ast.AST) -> ast.AST:
    """Of values tried in turn (`a or b`), the first; an awaited value as what is awaited."""
    while True:
        if isinstance(value, ast.Await):
            value = value.value
        elif isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
            value = value.values[0]
        else:
            return value


def _name(value: ast.AST) -> str | None:
    """The name a value is known by: a variable's, an attribute's, or a key's (`enhanced["standalone_query"]`,
    `state.get("standalone_query")`)."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "get" and value.args:
        value = ast.Subscript(value=value.func.value, slice=value.args[0])
    if isinstance(value, ast.Name):
        return value.id
    if isinstance(value, ast.Attribute):
        return value.attr
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant) and isinstance(value.slice.value, str):
        return value.slice.value
    return None
