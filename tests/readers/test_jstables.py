"""A table of short strings (a locale bundle) is text shown to people: a string in it that quotes a
prompt with a context slot is no prompt, while the same string among a module's few prompts is one."""

from __future__ import annotations

import pytest

from promptlint.readers.jssource import TABLE_SIZE, templates_in

PROMPT = "Answer only from the documents below.\\n\\nDocuments:\\n{context}\\n\\nQuestion: {question}"
LABELS = ["Confirm", "Back", "No results found", "Delete this chat?", "Upload a file", "Save changes"]
# Where the quoted prompt stands in the object, and how its value is written.
PLACES = {
    "top level": "  KEY: VALUE,\n",
    "nested": "  chat: {\n    KEY: VALUE,\n    back: 'Back',\n  },\n",
    "deeply nested": "  translation: {\n    chat: {\n      settings: {\n        KEY: VALUE,\n      },\n    },\n  },\n",
}
VALUES = {"single quotes": "'" + PROMPT + "'", "template literal": "`" + PROMPT.replace("\\n", "\n") + "`"}
KEYS = ["systemPlaceholder", "variableTip", "promptHint", "defaultSystem"]
OPENINGS = ["export default {\n", "const en = {\n", "module.exports = {\n", "export const messages = {\n"]


def _bundle(opening: str, place: str, key: str, value: str, labels: int) -> str:
    rows = "".join(f"  label{n}: '{LABELS[n % len(LABELS)]}',\n" for n in range(labels))
    return opening + rows + PLACES[place].replace("KEY", key).replace("VALUE", value) + "};\n"


def test_a_prompt_quoted_in_a_string_table_is_no_prompt_and_its_twin_among_few_strings_is_one():
    reached = 0
    for n, (place, value, key) in enumerate((p, v, k) for p in PLACES for v in VALUES for k in KEYS):
        opening = OPENINGS[n % len(OPENINGS)]
        table = _bundle(opening, place, key, VALUES[value], TABLE_SIZE)
        assert templates_in(table) == [], (place, value, key)
        twin = _bundle(opening, place, key, VALUES[value], 3)
        [found] = templates_in(twin)
        assert "{context}" in found.text and found.text.startswith("Answer only"), (place, value, key)
        reached += 1
    assert reached == len(PLACES) * len(VALUES) * len(KEYS)


@pytest.mark.parametrize("long_values", [True, False])
def test_a_table_of_long_texts_is_a_module_of_prompts(long_values):
    """Forty multi-line templates are prompts, not labels; forty one-line labels are labels."""
    body = "Use the context.\nBe brief.\n" if long_values else "Use the context, be brief. "
    rows = "".join(f"  task{n}: `{body}Context: {{context}} Question: {{question}}`,\n" for n in range(TABLE_SIZE))
    found = templates_in("export const PROMPTS = {\n" + rows + "};\n")
    assert len(found) == (TABLE_SIZE if long_values else 0)
