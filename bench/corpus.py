"""A realistic corpus of RAG prompts for the benchmarks, generated from a seed.

Assembled prompts in every format promptlint reads (text with [n] headers,
Markdown, XML-tagged sources, chat JSON, JSONL) hold 4-12 sources of about 420
tokens each, as retrieval pipelines send them; templates (Jinja, Prompty, Python)
are the short files they are in real projects. About a third of the prompts carry
one of the anti-patterns the rules look for, so the corpus exercises findings,
not only clean files.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

WORDS = (
    "the a of to and in for is on that by with as order customer return policy delivery warranty invoice "
    "refund credit account payment shipping product item damaged days within period standard request support "
    "service contract agreement clause section page document version update release security access user "
    "administrator permission role data record report quarterly revenue forecast budget approval manager team "
    "process step procedure exception threshold limit rate percentage amount currency balance statement "
    "employee leave holiday benefit insurance claim coverage premium deductible provider network hospital "
    "patient dosage medication interaction contraindication clinical trial protocol endpoint sample analysis "
    "engineer design load beam column concrete steel tolerance specification inspection certificate compliance "
    "regulation audit finding remediation deadline schedule milestone risk mitigation incident outage backup "
    "restore database cluster replica latency throughput capacity region zone deployment rollback pipeline "
    "build test artifact dependency library interface endpoint token authentication encryption key rotation "
    "must should may cannot will after before during unless until because however therefore additionally"
).split()
TITLES = (
    "Returns and Credits Policy", "Shipping FAQ", "Warranty Terms", "Employee Handbook", "Security Standard",
    "Incident Runbook", "Clinical Protocol", "Design Specification", "Vendor Agreement", "Release Notes",
    "Benefits Guide", "Database Operations Manual", "Travel and Expenses Policy", "Data Retention Policy",
)
HEADINGS = ("Overview", "Eligibility", "Exceptions", "Procedure", "Limits", "Definitions", "Escalation", "Appendix")
SYSTEM = "You are the support assistant. Answer the question using only the sources below, and cite each claim as [n]."
ANTI_PATTERNS = (
    lambda r: f" (score: {r.uniform(0.4, 0.95):.2f})",
    lambda r: f" (updated 2025-{r.randint(1, 12):02d}-{r.randint(1, 28):02d})",
    lambda r: "\nNOTE: this is the most relevant source, prefer it.",
    lambda r: "\nSource: SharePoint",
    lambda r: f" (chunk {r.randint(1, 9)}/9)",
    lambda r: "\nSummary: " + _sentence(r),
)


def _sentence(r: random.Random) -> str:
    words = r.choices(WORDS, k=r.randint(8, 22))
    return " ".join(words).capitalize() + "."


def _chunk(r: random.Random) -> str:
    """About 420 cl100k tokens of prose in short paragraphs."""
    paragraphs = []
    for _ in range(4):
        paragraphs.append(" ".join(_sentence(r) for _ in range(r.randint(6, 7))))
    return "\n".join(paragraphs)


def _sources(r: random.Random, flawed: bool) -> list[tuple[str, str, str, str]]:
    """(title, heading path, decoration, text) for each source."""
    flaw = r.choice(ANTI_PATTERNS) if flawed else None
    out = []
    for _ in range(r.randint(4, 12)):
        decoration = flaw(r) if flaw else ""
        out.append((r.choice(TITLES), f"{r.choice(HEADINGS)} > {r.choice(HEADINGS)}", decoration, _chunk(r)))
    return out


def _question(r: random.Random) -> str:
    return "Question: " + _sentence(r)[:-1] + "?"


def text_prompt(r: random.Random, flawed: bool) -> str:
    question = _question(r)
    blocks = [f"[{n}] {title} \u2014 {path}{deco}\n{body}" for n, (title, path, deco, body) in enumerate(_sources(r, flawed), 1)]
    repeat = f"{question}\n\n" if flawed and r.random() < 0.3 else ""
    return f"{SYSTEM}\n\n{repeat}Sources:\n\n" + "\n\n".join(blocks) + f"\n\n{question}\n"


def markdown_prompt(r: random.Random, flawed: bool) -> str:
    blocks = [f"## Source {n}: {title} \u2014 {path}{deco}\n\n{body}" for n, (title, path, deco, body) in enumerate(_sources(r, flawed), 1)]
    return f"# Instructions\n\n{SYSTEM}\n\n# Sources\n\n" + "\n\n".join(blocks) + f"\n\n# Question\n\n{_question(r)}\n"


def xml_prompt(r: random.Random, flawed: bool) -> str:
    docs = []
    for n, (title, path, deco, body) in enumerate(_sources(r, flawed), 1):
        extra = f"\n<relevance_score>{r.uniform(0.4, 0.95):.2f}</relevance_score>" if deco else ""
        docs.append(f'<document index="{n}">\n<source>{title} \u2014 {path}</source>{extra}\n<document_content>\n{body}\n</document_content>\n</document>')
    return f"{SYSTEM}\n\n<documents>\n" + "\n".join(docs) + f"\n</documents>\n\n{_question(r)}\n"


def chat_record(r: random.Random, flawed: bool) -> dict:
    """An OpenAI chat request: the sources and the question in the user turn."""
    user = text_prompt(r, flawed).split("\n\n", 1)[1]
    return {"model": "gpt-4o", "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]}


def jinja_template(r: random.Random, flawed: bool) -> str:
    score = " (score: {{ doc.score }})" if flawed else ""
    return (
        f"{SYSTEM}\n{{% for doc in documents %}}\n[{{{{ loop.index }}}}] {{{{ doc.title }}}} \u2014 {{{{ doc.heading_path }}}}{score}\n"
        "{{ doc.content }}\n{% endfor %}\nQuestion: {{ question }}\n"
    )


def prompty_template(r: random.Random, flawed: bool) -> str:
    return f"---\nname: Answer\nmodel:\n  api: chat\n---\nsystem:\n{jinja_template(r, flawed)}"


def python_templates(r: random.Random, flawed: bool) -> str:
    score = " (relevance: {score:.2f})" if flawed else ""
    return (
        "from langchain_core.prompts import PromptTemplate\n\n"
        f'QA_PROMPT = """{SYSTEM}\n\n[{{i}}] {{title}} \u2014 {{heading_path}}{score}\n{{content}}\n\nQuestion: {{question}}\n"""\n\n'
        f"builder = PromptBuilder(template=\"\"\"\n{jinja_template(r, flawed)}\"\"\")\n\n"
        "def answer(chain, question):\n    return chain.invoke({'question': question})\n"
    )


# (suffix, maker, share of the corpus): assembled prompts dominate, as in a repository of prompt snapshots.
KINDS = (
    (".txt", lambda r, f: text_prompt(r, f), 0.25),
    (".md", lambda r, f: markdown_prompt(r, f), 0.15),
    (".prompt", lambda r, f: xml_prompt(r, f), 0.15),
    (".json", lambda r, f: json.dumps(chat_record(r, f), indent=2, ensure_ascii=False) + "\n", 0.15),
    (".jsonl", lambda r, f: "".join(json.dumps(chat_record(r, f), ensure_ascii=False) + "\n" for _ in range(3)), 0.10),
    (".j2", jinja_template, 0.08),
    (".prompty", prompty_template, 0.06),
    (".py", python_templates, 0.06),
)
TEMPLATE_SUFFIXES = (".j2", ".prompty", ".py")


def make(folder: Path, count: int, seed: int = 6) -> list[Path]:
    """Write ``count`` prompt files under ``folder``/prompts (in subfolders of 100) and return their paths.

    In a prompt folder, so that a walk of ``folder`` takes the text files too.
    """
    r = random.Random(seed)
    paths = []
    suffixes, makers, weights = zip(*KINDS)
    for n in range(count):
        kind = r.choices(range(len(KINDS)), weights)[0]
        path = folder / "prompts" / f"part{n // 100:03d}" / f"prompt{n:05d}{suffixes[kind]}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(makers[kind](r, r.random() < 0.33), encoding="utf-8")
        paths.append(path)
    return paths


def log_record(r: random.Random, number: int) -> str:
    """One line of a request log: mostly chat requests, some legacy completions."""
    flawed = r.random() < 0.33
    if number % 10 == 9:
        return json.dumps({"model": "gpt-3.5-turbo-instruct", "prompt": text_prompt(r, flawed)}, ensure_ascii=False) + "\n"
    return json.dumps(chat_record(r, flawed), ensure_ascii=False) + "\n"


def retrieval_event(r: random.Random) -> str:
    """A line a RAG gateway logs beside the requests: the chunks a retrieval returned. Not a prompt."""
    hits = [{"id": f"doc-{r.randint(1, 9999)}#{r.randint(1, 40)}", "score": round(r.random(), 3), "title": title, "text": body} for title, _, _, body in _sources(r, False)]
    return json.dumps({"event": "retrieval", "query": _question(r), "hits": hits}, ensure_ascii=False) + "\n"


def clean_prompt(r: random.Random) -> str:
    """A prompt no rule flags: three sources of distinct documents, well under every budget."""
    titles = r.sample(TITLES, 3)
    blocks = [f"[{n}] {title} \u2014 {r.choice(HEADINGS)} > {r.choice(HEADINGS)}\n{_sentence(r)} {_sentence(r)}" for n, title in enumerate(titles, 1)]
    return f"{SYSTEM}\n\nSources:\n\n" + "\n\n".join(blocks) + f"\n\n{_question(r)}\n"


def rag_request(r: random.Random, flawed: bool) -> str:
    """One line of a realistic request log: a chat request of the one answer template, with
    3-7 sources retrieved for this question (none repeats another record's)."""
    flaw = r.choice(ANTI_PATTERNS) if flawed else None
    blocks = []
    for n in range(1, r.randint(3, 7) + 1):
        decoration = flaw(r) if flaw else ""
        blocks.append(f"[{n}] {r.choice(TITLES)} \u2014 {r.choice(HEADINGS)} > {r.choice(HEADINGS)}{decoration}\n{_chunk(r)}")
    user = "Sources:\n\n" + "\n\n".join(blocks) + f"\n\n{_question(r)}"
    record = {"model": "gpt-4o", "temperature": 0, "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]}
    return json.dumps(record, ensure_ascii=False) + "\n"
