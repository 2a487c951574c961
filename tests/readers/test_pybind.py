"""A question slot the module fills with the question rewritten, at the call that fills it, is the
rewritten question (PL304), however the template names the slot. Generated over the ways a module
fills a template and the names a rewrite goes by, each with its clean twin that passes the original."""

from __future__ import annotations

import re

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text

CONFIG = build({"today": "2026-12-02"}, "test")

TEMPLATE = '"""Answer the question from the context.\n\nContext:\n{context}\n\nQuestion: {question}\nAnswer:"""'
FILLED = {
    "format by keyword": f"QA_PROMPT = {TEMPLATE}\n\n\ndef answer(llm, docs, VALUE_ROOT):\n    return llm.invoke(QA_PROMPT.format(context=docs, question=VALUE))\n",
    "invoke with a dict": f"QA_PROMPT = PromptTemplate.from_template({TEMPLATE})\n\n\ndef answer(llm, docs, VALUE_ROOT):\n    return llm.invoke(QA_PROMPT.invoke({{\"context\": docs, \"question\": VALUE}}))\n",
    "piped chain": f"QA_PROMPT = PromptTemplate.from_template({TEMPLATE})\nchain = QA_PROMPT | llm | parser\n\n\ndef answer(docs, VALUE_ROOT):\n    return chain.invoke({{\"context\": docs, \"question\": VALUE}})\n",
    "function by position": f"def build_prompt(context, question):\n    return f{TEMPLATE}\n\n\ndef answer(llm, docs, VALUE_ROOT):\n    return llm.invoke(build_prompt(docs, VALUE))\n",
    "function by keyword": f"def build_prompt(context, question):\n    return f{TEMPLATE}\n\n\ndef answer(llm, docs, VALUE_ROOT):\n    return llm.invoke(build_prompt(context=docs, question=VALUE))\n",
    # LangChain's way of running a prompt on one value: a mapping of its slots, one passing the value through.
    "chain run through a mapping": f"QA_PROMPT = PromptTemplate.from_template({TEMPLATE})\nchain = {{\"context\": retriever | format_docs, \"question\": RunnablePassthrough()}} | QA_PROMPT | llm\n\n\n"
                                   "def answer(docs, VALUE_ROOT):\n    return chain.invoke(VALUE)\n",
    "chain run through a RunnableParallel": f"QA_PROMPT = PromptTemplate.from_template({TEMPLATE})\nchain = RunnableParallel(context=retriever, question=RunnablePassthrough()) | QA_PROMPT | llm\n\n\n"
                                            "def answer(docs, VALUE_ROOT):\n    return chain.invoke(VALUE)\n",
}
REWRITTEN = ["standalone_question", "rewritten_query", "condensed_question", "enhanced['standalone_query']", "state.rephrased_question",
             "state.get('resolved_query') or question"]
# The value tried first is what fills the slot: a rewrite tried second stands in only when the question is missing.
ORIGINAL = ["question", "user_question", "query", "state.original_question", "state.question or state.get('standalone_question')"]


def _module(form: str, value: str) -> str:
    root = value.split("[")[0].split(".")[0]
    return FILLED[form].replace("VALUE_ROOT", root).replace("VALUE", value)


def _found(text: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_text(text, path="qa.py", config=CONFIG)]


@pytest.mark.parametrize("form", FILLED)
@pytest.mark.parametrize("value", REWRITTEN)
def test_a_question_slot_filled_with_a_rewrite_is_the_rewritten_question(form, value):
    text = _module(form, value)
    line = next(n for n, row in enumerate(text.split("\n"), 1) if "Question: {question}" in row)
    assert _found(text) == [(line, "PL304")]
    # The slot is named for the question already: the fix belongs to the call, and none is written.
    assert fix_text(text, path="qa.py", config=CONFIG) == text


@pytest.mark.parametrize("form", FILLED)
@pytest.mark.parametrize("value", ORIGINAL)
def test_a_question_slot_filled_with_the_question_is_clean(form, value):
    assert _found(_module(form, value)) == []


# A local that a function named for rewriting the question fills, whatever the local is called (blind33a daxrsa:
# `standalone = rewrite_question(question, history)`, then the prompt is filled with `standalone`).
REWRITING = ["rewrite_question(q, history)", "condense_query(q, history) if history else q", "await rephrase_question(q)",
             "self.make_standalone_question(q, history)"]


def _filled_in_answer(text: str, statement: str) -> str:
    """The module with ``statement`` run in `answer`, before the call that fills the template."""
    head, _, tail = text.rpartition("    return")
    return f"{head}    {statement}\n    return{tail}"


@pytest.mark.parametrize("form", FILLED)
@pytest.mark.parametrize("call", REWRITING)
def test_a_local_a_rewriting_function_fills_is_the_rewritten_question(form, call):
    text = _filled_in_answer(_module(form, "asked").replace("def answer(", "async def answer(q, history, "), f"asked = {call}")
    line = next(n for n, row in enumerate(text.split("\n"), 1) if "Question: {question}" in row)
    assert _found(text) == [(line, "PL304")]
    # The twins: a function that only reads the question (`normalise_question`), or one named for a rewrite
    # of something else (`rewrite_summary`), fills the slot with the question as asked.
    for other in ("normalise_question(q)", "rewrite_summary(q)"):
        assert _found(text.replace(call, other)) == []


# A framework chain that makes a follow-up standalone from the conversation, and answers with the rewrite, fills
# the question slot of the prompt it is handed (blind52c PatrickCmd: `ConversationalRetrievalChain.from_llm(...,
# combine_docs_chain_kwargs={"prompt": qa_prompt})`); the prompt may be made of the template in several steps.
MADE = {
    "PromptTemplate": "QA_PROMPT = PromptTemplate(template=qa_template, input_variables=['context', 'SLOT'])\n",
    "from_template": "QA_PROMPT = PromptTemplate.from_template(qa_template)\n",
    "from messages": "messages = [HumanMessagePromptTemplate.from_template(qa_template)]\nQA_PROMPT = ChatPromptTemplate.from_messages(messages)\n",
}
# Each chain: the slot it fills with its rewrite, the call, and its twin that sends the original question.
CONDENSING = {
    "ConversationalRetrievalChain": ("question", "chain = ConversationalRetrievalChain.from_llm(llm, retriever, memory=memory, combine_docs_chain_kwargs={'prompt': QA_PROMPT})", "rephrase_question=False"),
    "dict() of the prompt": ("question", "chain = ConversationalRetrievalChain(retriever=r, combine_docs_chain_kwargs=dict(prompt=QA_PROMPT))", "rephrase_question=False"),
    "built from its parts": ("question", "doc_chain = load_qa_chain(llm, chain_type='stuff', prompt=QA_PROMPT)\nchain = ConversationalRetrievalChain(retriever=r, question_generator=question_generator, combine_docs_chain=doc_chain)", "rephrase_question=False"),
    "qa_prompt of the first API": ("question", "chain = ConversationalRetrievalChain.from_llm(llm, retriever, qa_prompt=QA_PROMPT)", "rephrase_question=False"),
    "ChatVectorDBChain": ("question", "chain = ChatVectorDBChain.from_llm(llm, vectorstore, qa_prompt=QA_PROMPT)", "qa_prompt=None"),
    "condense_question chat engine": ("query_str", "engine = index.as_chat_engine(chat_mode='condense_question', text_qa_template=QA_PROMPT)", "chat_mode='context'"),
    "ChatMode member": ("query_str", "engine = index.as_chat_engine(chat_mode=ChatMode.CONDENSE_QUESTION, text_qa_template=QA_PROMPT)", "chat_mode=ChatMode.CONTEXT"),
}


def _chained(made: str, chain: str, original: bool) -> str:
    slot, call, twin = CONDENSING[chain]
    if original:
        keyword = twin.partition("=")[0]
        call = re.sub(rf"{keyword}=[^,)]+", twin, call) if f"{keyword}=" in call else call[:-1] + f", {twin})"
    template = f'qa_template = """Answer from the context.\n\nContext: {{context}}\n\nQuestion: {{{slot}}}\nAnswer:"""\n'
    return template + MADE[made].replace("SLOT", slot) + call + "\n"


@pytest.mark.parametrize("made", MADE)
@pytest.mark.parametrize("chain", CONDENSING)
def test_a_chain_that_answers_with_its_standalone_rewrite_fills_the_question_slot(made, chain):
    assert _found(_chained(made, chain, original=False)) == [(5, "PL304")]
    # The twin: told to send the original question (or in another mode), the chain fills the slot with it.
    assert _found(_chained(made, chain, original=True)) == []


def test_a_prompt_handed_to_a_chain_that_keeps_the_question_is_clean():
    text = _chained("PromptTemplate", "ConversationalRetrievalChain", original=False)
    assert _found(text.replace("ConversationalRetrievalChain.from_llm(llm, retriever, memory=memory, combine_docs_chain_kwargs", "RetrievalQA.from_chain_type(llm, retriever=retriever, chain_type_kwargs")) == []


# The object a method is called on may be what names the rewrite (the LangGraph tutorials' `question_rewriter =
# rewrite_prompt | llm | StrOutputParser()`, then `better = question_rewriter.invoke({"question": q})`).
def test_a_local_a_rewriter_object_fills_is_the_rewritten_question():
    text = _filled_in_answer(_module("format by keyword", "asked").replace("def answer(", "def answer(q, "), "asked = question_rewriter.invoke({'question': q})")
    line = next(n for n, row in enumerate(text.split("\n"), 1) if "Question: {question}" in row)
    assert _found(text) == [(line, "PL304")]
    assert _found(text.replace("question_rewriter", "answer_grader")) == []


# A graph whose step writes a rewrite of the question into the state, then generates the answer from that state
# (the LangGraph retrieval tutorials: `transform_query` returns `{"question": better_question}`, `generate` fills
# the answer prompt with `state["question"]`; blind52d teddylee777). Only the call that makes the answer counts.
GRAPH = '''RAG_PROMPT = PromptTemplate.from_template("""Answer from the context.

Context: {context}

Question: {question}
Answer:""")
rag_chain = RAG_PROMPT | llm | StrOutputParser()
GRADE_PROMPT = PromptTemplate.from_template("""Grade the document for the user question.

Document: {document}

User question: {question}
Reply yes or no.""")
grader = GRADE_PROMPT | llm


def generate(state):
    READ
    ANSWER


def grade(state):
    question = state["question"]
    score = grader.invoke({"question": question, "document": state["documents"][0]})
    return {"relevant": score}


def transform_query(state):
    question = state["question"]
    WRITE
'''
WRITES = {"returned, named": 'better_question = question_rewriter.invoke({"question": question})\n    return {"question": better_question}',
          "returned, rewriter's local": 'q2 = question_rewriter.invoke({"question": question})\n    return {"documents": [], "question": q2}',
          "set in the state": 'state["question"] = rewrite_question(question)\n    return state'}
READS = {"local": ('question = state["question"]', "question"), "read in place": ("", 'state["question"]'),
         "last of a list": ('question = state["question"][-1].content', "question")}
ANSWERS = {"generation local": 'generation = rag_chain.invoke({"context": state["documents"], "question": QUESTION})\n    return {"generation": generation}',
           "answer in place": 'return {"answer": rag_chain.invoke({"context": state["documents"], "question": QUESTION})}',
           "awaited": 'response = await rag_chain.ainvoke({"context": state["documents"], "question": QUESTION})\n    return {"response": response}'}


def _graph(write: str, read: str, answer: str) -> str:
    statement, value = READS[read]
    code = GRAPH.replace("WRITE", WRITES[write]).replace("READ", statement or "pass").replace("ANSWER", ANSWERS[answer].replace("QUESTION", value))
    return code.replace("def generate(", "async def generate(") if answer == "awaited" else code


@pytest.mark.parametrize("answer", ANSWERS)
@pytest.mark.parametrize("read", READS)
@pytest.mark.parametrize("write", WRITES)
def test_an_answer_generated_from_a_state_holding_the_rewrite_is_filled_with_it(write, read, answer):
    text = _graph(write, read, answer)
    # The answer prompt's question, not the grader's (it judges, it answers nothing), nor the rewriter's own.
    assert _found(text) == [(5, "PL304")]
    # The twin: a step that writes the question back as it was asked.
    assert _found(text.replace(WRITES[write], 'return {"question": question.strip()}')) == []


# The same graph with its state written as a class's fields (`state.question = ...`, `state.answer = ...`), the answer
# reached through locals: the text of a reply (`reply.content.strip()`), a field of a typed result, a prompt formatted
# into a local and handed to the model (blind88 01Varshan).
FIELD_GRAPH = '''ANSWER_PROMPT = PromptTemplate.from_template("""Answer from the notes.

Notes: {notes}

Question: {question}
Answer:""")


def rephrase_question_node(state: FlowState) -> FlowState:
    reply = llm.invoke(REWORD_PROMPT.format(question=state.question))
    state.question = reply.content.strip()
    return state


def answer_node(state: FlowState) -> FlowState:
    STEP
    return state
'''
FIELD_ANSWERS = {
    "formatted, then sent": "text = ANSWER_PROMPT.format(notes=state.notes, question=state.question)\n    reply = llm.invoke(text)\n    state.answer = reply.content.strip()",
    "a typed result's field": "chain = ANSWER_PROMPT | llm\n    result: Reply = chain.invoke({\"notes\": state.notes, \"question\": state.question})\n    state.answer = result.text",
}


@pytest.mark.parametrize("answer", FIELD_ANSWERS)
def test_an_answer_written_to_a_state_field_holding_the_rewrite_is_filled_with_it(answer):
    text = FIELD_GRAPH.replace("STEP", FIELD_ANSWERS[answer])
    assert _found(text) == [(5, "PL304")]
    # The twins: the step keeps the question as it was asked; another object's field of the same name.
    assert _found(text.replace("state.question = reply.content.strip()", "state.notes = reply.content.strip()")) == []
    assert _found(text.replace("question=state.question)\n    reply", "question=request.question)\n    reply").replace('"question": state.question', '"question": request.question')) == []


# LangChain.js: `ConversationalRetrievalQAChain.fromLLM(model, retriever, {qaTemplate: QA_PROMPT, ...})` answers with
# the standalone rewrite too; its options object gives the keywords (blind57b mayooear's chatbot, forked widely).
JS_MADE = {"const": "const QA_PROMPT = `TEMPLATE`;\n", "PromptTemplate": "const QA_PROMPT = PromptTemplate.fromTemplate(`TEMPLATE`);\n"}
JS_CHAINS = {
    "qaTemplate": "const chain = ConversationalRetrievalQAChain.fromLLM(model, store.asRetriever(), {\n  qaTemplate: QA_PROMPT,\n  returnSourceDocuments: true,\n});\n",
    "qaChainOptions": "const chain = ConversationalRetrievalQAChain.fromLLM(model, store.asRetriever(), {\n  qaChainOptions: { type: 'stuff', prompt: QA_PROMPT },\n});\n",
    "built from its parts": ("const docChain = loadQAChain(model, { prompt: QA_PROMPT });\nconst chain = new ConversationalRetrievalQAChain({\n"
                             "  retriever: store.asRetriever(),\n  combineDocumentsChain: docChain,\n  questionGeneratorChain: questionGenerator,\n});\n"),
    "ChatVectorDBQAChain built from its parts": ("const docChain = loadQAChain(model, { prompt: QA_PROMPT });\nconst chain = new ChatVectorDBQAChain({\n"
                                                 "  vectorstore,\n  combineDocumentsChain: docChain,\n  questionGeneratorChain: questionGenerator,\n});\n"),
    "ChatVectorDBQAChain qaTemplate": "const chain = ChatVectorDBQAChain.fromLLM(model, vectorstore, { qaTemplate: QA_PROMPT });\n",
}


@pytest.mark.parametrize("made", sorted(JS_MADE))
@pytest.mark.parametrize("chain", sorted(JS_CHAINS))
@pytest.mark.parametrize("suffix", [".ts", ".js"])
def test_a_javascript_chain_answers_with_its_standalone_rewrite(made, chain, suffix):
    template = "Answer from the context.\n\nContext: {context}\n\nQuestion: {question}\nHelpful answer:"
    text = "import { ConversationalRetrievalQAChain } from 'langchain/chains';\n\n" + JS_MADE[made].replace("TEMPLATE", template) + "\n" + JS_CHAINS[chain]
    line = next(n for n, row in enumerate(text.split("\n"), 1) if "Question: {question}" in row)
    assert [(f.line, f.code) for f in lint_text(text, path="chain" + suffix, config=CONFIG)] == [(line, "PL304")]
    # The twin: a chain that answers the question as asked fills the slot with it.
    twin = text.replace("ConversationalRetrievalQAChain", "RetrievalQAChain").replace("ChatVectorDBQAChain", "VectorDBQAChain")
    assert [f.code for f in lint_text(twin, path="chain" + suffix, config=CONFIG)] == []


# An f-string that prints a local its function fills with the question rewritten (blind60a DruidX:
# `user_query = state.get("resolved_query") or state.get("user_query")`, then `f"USER QUERY:\n{user_query}"`).
@pytest.mark.parametrize("value", ["state.get('resolved_query') or state.get('question')", "state['standalone_question']", "await condense_question(q, history)"])
@pytest.mark.parametrize("name", ["question", "q", "user_query"])
def test_an_f_string_printing_a_local_filled_with_a_rewrite_prints_the_rewritten_question(value, name):
    text = (f"async def answer(state, docs, q, history):\n    {name} = {value}\n    context = '\\n\\n'.join(d.page_content for d in docs)\n"
            f"    prompt = f\"Answer only from the context.\\n\\nContext:\\n{{context}}\\n\\nQuestion: {{{name}}}\\nAnswer:\"\n    return await llm.ainvoke(prompt)\n")
    assert _found(text) == [(4, "PL304")]
    # The twin: the local holds the question as asked.
    assert _found(text.replace(value, "state.get('question') or q")) == []


# A step named for rewriting the question writes whatever it made into the state's question, here by a call no name
# reads as a rewrite; the answering step prints the state's question in an f-string (blind75 DMontgomery40).
FSTRING_GRAPH = '''def rewrite_query(state):
    q = state["question"]
    newq, _ = generate_text(user_input=f"Rewrite this for code search, one line.\\n\\n{q}")
    return {"question": newq.strip()}


def generate_node(state):
    q = state["question"]
    context = "\\n\\n".join(d.text for d in state["documents"][:5])
    user = f"Question:\\n{q}\\n\\nContext:\\n{context}\\n\\nAnswer:"
    content, _ = generate_text(user_input=user)
    return {"generation": content}
'''


def test_a_step_named_for_rewriting_writes_the_rewrite_an_fstring_answers_with():
    assert _found(FSTRING_GRAPH) == [(10, "PL304")]
    # The twins: a step named otherwise writes its text back; a step that answers nothing prints the state's question.
    assert _found(FSTRING_GRAPH.replace("def rewrite_query(", "def route_query(")) == []
    assert _found(FSTRING_GRAPH.replace('return {"generation": content}', 'return {"route": content}')) == []


# A template whose text is in another module, or pulled from a hub, filled here with the question rewritten: the call
# is all the file shows of that prompt (blind75 Mithun-Aggarwal, blind69 zooomg). An answer is made from something
# besides the conversation: a prompt given only the question and the history plans or rewrites.
ELSEWHERE = {
    "imported": ("from .prompts import QA_PROMPT\n\n\ndef answer(q, history, docs):\n    standalone = condense_question(q, history)\n"
                 "    text = QA_PROMPT.format(context=docs, question=QUESTION)\n    return llm.invoke(text)\n", 6),
    "pulled from a hub": ('from langchain import hub\n\nprompt = hub.pull("rlm/rag-prompt")\nrag_chain = prompt | llm\n\n\n'
                          "def answer(q, history, docs):\n    standalone = condense_question(q, history)\n"
                          '    return rag_chain.invoke({"context": docs, "question": QUESTION})\n', 9),
    # blind74 matzapata (in TypeScript, below): the pulled prompt gets the question through a mapping that passes on the
    # value the chain is run on.
    "pulled, run through a mapping": ('from langchain import hub\n\nprompt = hub.pull("rlm/rag-prompt")\n'
                                      'rag_chain = {"context": retriever | format_docs, "question": RunnablePassthrough()} | prompt | llm\n\n\n'
                                      "def answer(q, history, docs):\n    standalone = condense_question(q, history)\n"
                                      "    return rag_chain.invoke(QUESTION)\n", 9),
    "an imported chain in a graph": ("from chains import rag_chain, question_rewriter\n\n\ndef generate(state):\n    question = state[\"question\"]\n"
                                     '    generation = rag_chain.invoke({"context": state["documents"], "question": question})\n    return {"generation": generation}\n\n\n'
                                     "def transform_query(state):\n    better = question_rewriter.invoke({\"question\": state[\"question\"]})\n"
                                     '    return {"question": better if QUESTION else better}\n', 6),
}


@pytest.mark.parametrize("form", ELSEWHERE)
def test_a_template_elsewhere_filled_with_the_rewrite_is_reported_at_the_call(form):
    text, line = ELSEWHERE[form]
    assert _found(text.replace("QUESTION", "standalone")) == [(line, "PL304")]
    # The twins: the question as asked; a prompt given nothing but the conversation (it plans, it answers nothing).
    if form != "an imported chain in a graph":
        assert _found(text.replace("QUESTION", "q")) == []
        planned = text.replace("context=docs", "chat_history=history").replace('"context": docs', '"chat_history": history')
        planned = planned.replace('"context": retriever | format_docs', '"chat_history": history')
        assert _found(planned.replace("QUESTION", "standalone")) == []


def test_a_prompt_class_imported_is_no_template_elsewhere():
    """`ChatPromptTemplate` is imported to make a prompt, which the module holds: the template is read, not the call."""
    text = ('from langchain_core.prompts import ChatPromptTemplate\n\nQA = ChatPromptTemplate.from_template("Context: {context}\\n\\nQuestion: {question}")\n\n\n'
            'def answer(q, history, docs):\n    standalone = condense_question(q, history)\n    chain = QA | llm\n    return chain.invoke({"context": docs, "question": standalone})\n')
    assert _found(text) == [(3, "PL304")]


@pytest.mark.parametrize("rewriter", ["rephrase_query_with_history", "condense_question_using_history", "rewrite_query_from_chat"])
def test_a_rewriter_named_with_what_it_rewrites_with(rewriter):
    """`rephrase_query_with_history(q, history)` rewrites the query (blind69 rashadphz), and `my_query` is a question as
    `the_query` is. The twins: a function that makes the query's context; the query as asked."""
    text = ("from backend.prompts import CHAT_PROMPT\n\n\ndef chat(q, history, results):\n    query = REWRITER(q, history)\n"
            "    prompt = CHAT_PROMPT.format(my_context=format_context(results), my_query=query)\n    return llm.complete(prompt)\n")
    assert _found(text.replace("REWRITER", rewriter)) == [(6, "PL304")]
    assert _found(text.replace("REWRITER", "expand_query_context")) == []
    assert _found(text.replace("REWRITER(q, history)", "q")) == []


# blind74 matzapata: LangChain.js pulls the answer prompt from the hub and runs it through a RunnableMap whose `question`
# passes on the value the chain is invoked with, the question contextualized from the chat history.
MAPPED_TS = """import { pull } from "langchain/hub";

export async function answer(question: string, history: Message[], k: number) {
  const standalone = await condenseQuestion(question, history);
  const prompt = await pull<ChatPromptTemplate>("rlm/rag-prompt");
  const fromDocs = RunnableSequence.from([prompt, model, new StringOutputParser()]);
  const chain = new RunnableMap({ steps: { context: retriever, question: new RunnablePassthrough() } }).assign({ answer: fromDocs });
  return await chain.invoke(QUESTION);
}
"""


def test_a_pulled_prompt_run_through_a_mapping_in_typescript_is_reported_at_the_call():
    assert [(f.line, f.code) for f in lint_text(MAPPED_TS.replace("QUESTION", "standalone"), path="rag.ts", config=CONFIG)] == [(8, "PL304")]
    assert lint_text(MAPPED_TS.replace("QUESTION", "question"), path="rag.ts", config=CONFIG) == []


# A rewrite read under a key of the state (blind79 AkashSathe508: `Question:\n{state["rewritten_query"]}` in a LangGraph
# node's f-string, an expected PL304 missed): the key says what the slot holds, as an attribute's name does.
KEYED = ['{state["rewritten_query"]}', "{state['rewritten_query']}", "{state.rewritten_query}"]


@pytest.mark.parametrize("slot", KEYED)
def test_a_rewrite_read_under_a_key_is_the_rewritten_question(slot):
    text = ('def answer_node(state):\n    prompt = f"""\nAnswer ONLY using the context.\n\nContext:\n{state["context"]}\n\n'
            f'Question:\n{slot}\n"""\n    return llm.invoke(prompt)\n')
    [finding] = lint_text(text, path="qa.py", config=CONFIG)
    assert (finding.line, finding.code) == (9, "PL304")
    # Which key holds the user's question is the code's to say: no fix renames a keyed slot.
    assert (finding.fix is None) == ("[" in slot)
    # The twin: the question as asked, under its own key, and the context under its key, are what they say.
    assert _found(text.replace("rewritten_query", "question")) == []


# A module of prompts imported whole (blind79 Ahitk: `import prompts as prompts`, then `prompts.main_prompt | model`
# filled with the state's question after a step wrote its rewrite there).
GRAPH_WITH_A_PROMPTS_MODULE = ("import MODULE\n\n\ndef generate(state):\n    question = state[\"question\"]\n    chain = MODULE.qa_prompt | llm\n"
                               '    generation = chain.invoke({"context": state["documents"], "question": question})\n    return {"generation": generation}\n\n\n'
                               "def transform_query(state):\n    better = question_rewriter.invoke({\"question\": state[\"question\"]})\n"
                               '    return {"question": REWRITE}\n')


def test_a_template_of_a_module_of_prompts_filled_with_the_rewrite_is_reported_at_the_call():
    text = GRAPH_WITH_A_PROMPTS_MODULE.replace("MODULE", "prompts")
    assert _found(text.replace("REWRITE", "better")) == [(7, "PL304")]
    # The twins: the step writes the question back as asked; a module whose name says nothing of prompts.
    assert _found(text.replace("REWRITE", 'state["question"]')) == []
    assert _found(GRAPH_WITH_A_PROMPTS_MODULE.replace("MODULE", "helpers").replace("REWRITE", "better")) == []
