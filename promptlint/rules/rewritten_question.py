"""The question slot is filled from a rewritten question.

## What it does
Flags a template whose question slot is a rewritten, condensed, standalone,
expanded or generated form of the user's question (`{{ standalone_question }}`,
`{hyde_query}`) when the original question is not sent at all. A bare `{search_query}`
is not: it holds what the user typed into a search box as often as a generated query; nor is a message or an
input called new (`${newMessage}`): the one that has just arrived, where `{new_question}` is a rewrite. (Sent beside the
original, the rewrite is a repeated question: PL101.) In Python code, a slot named for
the question counts too when the module fills it with a rewrite where it calls the
template: `QA_PROMPT.format(question=standalone_question)`, `chain.invoke({"question":
condensed_question})`, `build_prompt(docs, rewritten_query)`, or a local a function named for rewriting the question
fills (`query = rephrase_query_with_history(q, history)`: words after the question's, "with history", say with what;
a slot `{my_query}` is a question as `{the_query}` is); so does a slot of the prompt handed to
a framework chain that makes a follow-up standalone and answers with that rewrite
(`ConversationalRetrievalChain.from_llm(..., combine_docs_chain_kwargs={"prompt": QA_PROMPT})`
unless `rephrase_question=False`; the same chain built from its parts, `combine_docs_chain=load_qa_chain(llm,
prompt=QA_PROMPT)`, and the first API's `qa_prompt=QA_PROMPT`, `ChatVectorDBChain`; LlamaIndex's `as_chat_engine(chat_mode="condense_question",
text_qa_template=...)`; in TypeScript or JavaScript, LangChain.js's `ConversationalRetrievalQAChain.fromLLM(model,
retriever, {qaTemplate: QA_PROMPT})`, `new ChatVectorDBQAChain({combineDocumentsChain: loadQAChain(model, {prompt:
QA_PROMPT}), ...})`, whose options objects give the keywords: `condensing-chains` in
`rules/segment.yaml`), and a slot of the prompt a graph's
step answers with from a state another step wrote a rewrite into (`transform_query` returns
`{"question": better_question}`; `generate` fills the prompt with `state["question"]` and returns
`{"generation": ...}`: `answer-keys`; or a state written as a class's fields, `state.question = ...` and `state.answer =
reply.content`, the answer followed back through the locals it is made from; a grader filled from the same state answers nothing; a step whose name says it
rewrites the question, `def rewrite_query(state)`, writes a rewrite under the question's key whatever call made it,
and the answering step's own f-string, `f"Question:\n{q}"` after `q = state["question"]`, is filled with it too). The rewrite
is followed through the module's locals, in any branch or loop (`chosen = best_variant`), into the
parameters of a function it calls with it (`self._respond(chosen, docs)`), out of a function typed to return
one (`-> RewrittenQuery`) or a chain built to write one, and into the text field of one (`rewritten.query`);
a template may be held by the object (`self.rag_prompt`, `self.QA_PROMPT`). The fix is then the code's,
and none is offered, whatever the slot is called. In Python, a template whose text the file does not hold (imported
under a name that says prompt, `from .prompts import QA_PROMPT`, or from a module of them imported whole, `import
prompts` then `prompts.qa_prompt | llm`; a chain imported and run on a dict of slots,
`rag_chain.invoke({"context": docs, "question": q})`; or pulled, `hub.pull("rlm/rag-prompt")`; or made by a function
imported under a name that says prompt, in TypeScript and JavaScript too, `buildPrompt(context, question)` from
`./helpers`, each argument filling the slot its own name says) is reported at the
call that fills its question with a rewrite, when the call gives it something to answer from besides the
conversation (the context, a scratchpad of findings): a prompt given only the question and the history plans or
rewrites, and a rewrite is what it should be given. A chain run on one value through a mapping of its slots
(`{"context": retriever | format_docs, "question": RunnablePassthrough()} | prompt`, then
`rag_chain.invoke(standalone_question)`; in TypeScript, a hub prompt run through `new RunnableMap({ steps: {...} })`)
fills the slot the mapping passes the value through to with that value.

## Why is this bad?
Rewrites exist for retrieval: they make a better search query. The answer must
address what the user asked, and a rewrite can drop a constraint or change the
intent. The assembled prompt should end with the original question; it is the
decision most easily lost in a refactor.

## Example
```
Sources: {{ context }}
Question: {{ standalone_question }}
```

## Use instead
```
Sources: {{ context }}
Question: {{ question }}
```

## Fix safety
Unsafe: the slot is renamed to the original question's variable (option
`original-question`, default `question`), which must then be passed in the render
context. A rewrite read under a key (`{state["rewritten_query"]}`) is reported without a fix: which key holds
the user's question is the code's to say.

## Options
- `original-question` (default `question`, or the first name the config's
  `templates: {question: [...]}` gives): the variable that holds the user's question.
"""

from __future__ import annotations

import re

from ..model.findings import Applicability, Edit, Fix
from ..model.prompt import Prompt, Span
from ._context import RuleContext

CODE = "PL304"
NAME = "rewritten-question"
SUMMARY = "The question slot is filled from a rewritten question, not the original"
FIX = "unsafe"
EFFECT = "the answer can miss what the rewrite dropped (not measured)"
OPTIONS = {"original-question": "question"}

_NAME = re.compile(r"[A-Za-z_][\w]*(?:\.[\w]+)*")


def check(prompt: Prompt, ctx: RuleContext):
    if prompt.questions:
        return
    original = ctx.options["original-question"]
    for slot in prompt.rewritten_questions:
        name = _NAME.search(prompt.text, slot.start, slot.end)
        fix = None
        # A slot the code that fills it binds to a rewrite, or one already named for the question: the fix is in that code.
        # So it is for a rewrite read under a key (`{state["rewritten_query"]}`): which key holds the question is the code's.
        keyed = prompt.text.startswith("[", name.end()) if name else False
        if name and not keyed and name[0] != original and name[0] not in prompt.rewrites_bound_by_code:
            fix = Fix(Applicability.UNSAFE, (Edit(Span(name.start(), name.end()), original),), f"Use the original question ({original})")
        yield ctx.finding(
            prompt,
            slot,
            "The question is filled from a rewritten form of it; send the user's original question",
            fix=fix,
            tokens_text="",
        )
