"""A rewrite of the question reaches an answer prompt's question slot however the module carries it there:
through locals given it in a branch or a loop, through a parameter of a method the module calls with it,
from a function typed to return a rewrite, as the text field of one (`rewritten.query`), from an object built
to write one; and into a template the object holds (`self.rag_prompt`) filled as a stream. Each case has its
twin that carries the question as asked (blind63 pratap1297, jaka-k, xonme888; blind62d yvann-ba)."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text

CONFIG = build({"today": "2026-12-06", "select": ["PL304"]}, "test")


def _found(text: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_text(text, path="engine.py", config=CONFIG)]


def _line(text: str, marker: str) -> int:
    return next(n for n, row in enumerate(text.split("\n"), 1) if marker in row)


# The best of the question's variants, kept under a condition, handed to the method that writes the prompt.
CHOSEN = '''class Answerer:
    def ask(self, question, docs):
        variants = [(question, 1.0)]
        if self.enabled:
            variants = self.MAKE(question)
        best = None
        for text, score in variants:
            if score > 0.8:
                best = text
        chosen = question
        if best is not None:
            chosen = best.strip()
        return self._respond(PASSED, docs)

    def _respond(self, query, docs):
        context = "\\n\\n".join(d["text"] for d in docs)
        prompt = f"""Answer only from the context.

Context:
{context}

Question: {query}
Answer:"""
        return self.llm.generate(prompt)
'''


@pytest.mark.parametrize("make", ["query_expander.expand", "rewriter.rewrite_question"])
def test_a_variant_chosen_over_the_question_and_passed_on_fills_its_slot(make):
    text = CHOSEN.replace("MAKE", make).replace("PASSED", "chosen")
    assert _found(text) == [(_line(text, "Question: {query}"), "PL304")]
    # The code passes the rewrite: renaming the f-string's field would only break it, and no fix is offered.
    assert all(f.fix is None for f in lint_text(text, path="engine.py", config=CONFIG))
    assert fix_text(text, path="engine.py", config=CONFIG, unsafe=True) == text
    # The twins: the method is handed the question as asked, or the variants are only the question cleaned.
    assert _found(CHOSEN.replace("MAKE", make).replace("PASSED", "question")) == []
    assert _found(CHOSEN.replace("MAKE", "cleaner.normalise_text").replace("PASSED", "chosen")) == []


# An agent that rewrites with a typed structured output and answers, streamed, with a template it holds.
AGENT = '''class RewrittenQuery(BaseModel):
    query: str
    tags: list[str]


class Agent:
    def __init__(self, llm):
        self.llm = llm
        self.rewriter = REWRITE_PROMPT | llm.with_structured_output(RewrittenQuery)
        self.rag_prompt = ChatPromptTemplate.from_messages([
            ("system", "Answer only from the context.\\n\\nContext:\\n{context}"),
            ("human", "{question}"),
        ])

    RESOLVE

    async def run(self, inp, docs):
        rewritten = await self.resolve(inp)
        chain = self.rag_prompt | self.llm
        async for token in chain.astream({"question": VALUE, "context": docs}):
            yield token
'''
RESOLVES = {
    "typed to return it": "async def resolve(self, inp) -> RewrittenQuery:\n        return await some_call(inp)",
    "run by the rewriter": "async def resolve(self, inp):\n        return await self.rewriter.ainvoke({'input': inp})",
    "a local typed as it": "async def resolve(self, inp):\n        result: RewrittenQuery = await some_call(inp)\n        return result",
}


@pytest.mark.parametrize("resolve", RESOLVES)
def test_the_text_of_a_typed_rewrite_fills_the_slot_of_a_held_template(resolve):
    text = AGENT.replace("RESOLVE", RESOLVES[resolve]).replace("VALUE", "rewritten.query")
    # The messages are read as one text, which findings point at by its first literal (the system message).
    assert _found(text) == [(_line(text, '("system", '), "PL304")]
    # The twins: the question as asked, or a field of the rewrite that is not its text.
    assert _found(text.replace("rewritten.query", "inp")) == []
    assert _found(text.replace("rewritten.query", "rewritten.tags")) == []


# A template a class holds as an attribute, handed to a chain that answers with its standalone rewrite.
HELD = '''class Bot:
    qa_template = """Answer from the context.

Context: {context}

Question: {question}
Answer:"""
    QA_PROMPT = PromptTemplate(template=qa_template, input_variables=["context", "question"])

    def chain(self, llm, retriever):
        return ConversationalRetrievalChain.from_llm(llm, retriever, combine_docs_chain_kwargs={"prompt": self.QA_PROMPT})
'''


def test_a_template_held_by_the_class_is_the_one_the_chain_answers_with():
    assert _found(HELD) == [(_line(HELD, "Question: {question}"), "PL304")]
    assert _found(HELD.replace("ConversationalRetrievalChain", "RetrievalQA").replace("combine_docs_chain_kwargs", "chain_type_kwargs")) == []


# What a chat handler reads as the message that has just arrived, then answers with the sources.
ARRIVED = '''def on_message(event, docs):
    question = MAKE(event)
    context = "\\n\\n".join(d["text"] for d in docs)
    prompt = f"""Answer only from the context.

Context:
{context}

Question: {question}
Answer:"""
    return llm.generate(prompt)
'''


@pytest.mark.parametrize(("make", "rewritten"), [("read_new_message", False), ("get_new_user_input", False), ("get_new_question", True), ("make_better_query", True)])
def test_a_message_called_new_is_the_one_that_arrived_and_a_question_called_new_a_rewrite(make, rewritten):
    text = ARRIVED.replace("MAKE", make)
    assert _found(text) == ([(_line(text, "Question: {question}"), "PL304")] if rewritten else [])


# A prompt made by a function another module holds, handed the context and a question that may be the rewrite.
MADE_ELSEWHERE = {
    "engine.py": '''from .helpers import build_prompt


def retrieve(question, history):
    docs = store.similarity_search(question, 8)
    context = "\\n---\\n".join(d.page_content for d in docs)
    prompt = build_prompt(ARGS)
    return llm.invoke(prompt)


def answer(question, history):
    asked = question
    if history:
        result = reformulate_query(question, history)
        asked = result.standalone_question
    return retrieve(PASSED, history)
''',
    "engine.ts": '''import { buildPrompt } from "./helpers";

async function retrieve(question: string, history: string[]) {
  const docs = await store.similaritySearch(question, 8);
  const context = docs.map((d) => d.pageContent).join("\\n---\\n");
  const prompt = buildPrompt(ARGS);
  return await llm.invoke(prompt);
}

export async function answer(question: string, history: string[]) {
  let asked = question;
  if (history.length > 0) {
    const result = await reformulateQuery(question, history);
    asked = result.standaloneQuestion;
  }
  return await retrieve(PASSED, history);
}
''',
}


@pytest.mark.parametrize("path", sorted(MADE_ELSEWHERE))
def test_a_prompt_made_by_a_function_imported_is_filled_with_what_the_call_passes(path):
    """blind85 Portmeo: `buildPrompt(context, question)` from helpers.ts, its `question` the standalone rewrite."""
    text = MADE_ELSEWHERE[path].replace("ARGS", "context, question").replace("PASSED", "asked")
    found = [(f.line, f.code, f.fix) for f in lint_text(text, path=path, config=CONFIG)]
    assert found == [(_line(text, "buildPrompt(" if path.endswith(".ts") else "build_prompt("), "PL304", None)]
    # The twins: the question as asked; or a call that gives the prompt nothing to answer from but the question.
    as_asked = MADE_ELSEWHERE[path].replace("ARGS", "context, question").replace("PASSED", "question")
    assert lint_text(as_asked, path=path, config=CONFIG) == []
    assert [f for f in lint_text(text.replace("context, question)", "question)"), path=path, config=CONFIG) if f.code == "PL304"] == []
