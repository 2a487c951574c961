from langchain.prompts import PromptTemplate

QA_PROMPT = PromptTemplate.from_template("""Answer from the context and cite it as [n].

{context}

Question: {question}
""")


def format_docs(docs):
    parts = []
    for i, doc in enumerate(docs, 1):
        parts.append(f"[{i}] {doc.metadata['title']} (score: {doc.metadata['score']:.2f})\n{doc.page_content}")
    return "\n\n".join(parts)
