"""A file that documents several prompts, each opened by a chat template's sequence-start token, holds one
prompt per token: the second "<|begin_of_text|>" starts another prompt, so a slot both use ({question}) is
not one prompt asking twice. The twin: one sequence whose turns ask once is still one prompt."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text
from promptlint.readers.segment import consecutive_prompts

CONFIG = build({"today": "2026-12-02"}, "test")
OPENINGS = {
    "llama 3": ("<|begin_of_text|><|start_header_id|>system<|end_header_id|> ", "<|eot_id|><|start_header_id|>user<|end_header_id|>\n",
                " <|eot_id|><|start_header_id|>assistant<|end_header_id|>"),
    "chatml": ("<|im_start|>system\n", "<|im_end|>\n<|im_start|>user\n", "<|im_end|>\n<|im_start|>assistant\n"),
}
GRADER = "You grade whether a document is relevant to a question. Answer yes or no.{user}Document: {{document}}\nQuestion: {{question}}{end}"
ANSWER = "You answer questions from the retrieved context. Say when you do not know.{user}Question: {{question}}\nContext: {{context}}{end}"
SEPARATORS = ["\n\n---\n\n2. For generating the answer\n\n---\n\n", "\n\n", "\n\n## The answer prompt\n\n"]


@pytest.mark.parametrize("opening", sorted(OPENINGS))
@pytest.mark.parametrize("separator", SEPARATORS)
def test_each_sequence_start_opens_a_prompt(opening, separator):
    system, user, end = OPENINGS[opening]
    first, second = system + GRADER.format(user=user, end=end), system + ANSWER.format(user=user, end=end)
    text = "1. For grading the documents\n\n---\n\n" + first + separator + second + "\n"
    pieces = consecutive_prompts(text)
    assert len(pieces) == 2 and text[pieces[1][0] :].lstrip().startswith(system.strip()[:12])
    assert "PL101" not in {f.code for f in lint_text(text, path="prompts.md", config=CONFIG)}
    # The twin: one sequence that asks twice is still one prompt, and the repeat is reported.
    twice = system + ANSWER.format(user=user, end="\nAgain, the question: {question}" + end) + "\n"
    assert consecutive_prompts(twice) == []
    assert "PL101" in {f.code for f in lint_text(twice, path="prompt.txt", config=CONFIG)}
