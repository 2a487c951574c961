"""YAML prompt files: a mapping with `template` (LangChain, Semantic Kernel), chat messages (a
GitHub Models `.prompt.yml`, a promptfoo list), or prompt strings under keys of no known shape."""

from __future__ import annotations

import json
import re

import yaml

from ..model.prompt import Syntax
from .document import Document, DocumentKind, Input, Prompt, syntax_error
from .sourcemap import Anchored, SourceMap, Verbatim, YamlBlock


def read_yaml(file: Input) -> Document:
    """The file's prompts; other YAML (a config, data) holds none."""
    from .jinja import parses

    raw = file.raw
    try:
        node = yaml.compose(raw)
    except yaml.YAMLError as exc:
        if _GO_ACTION.search(raw):
            # A Helm chart or another Go-templated manifest: YAML only once rendered, and no prompt.
            return file.document(DocumentKind.YAML)
        mark = getattr(exc, "problem_mark", None)
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        error = syntax_error(file.display, f"invalid YAML: {getattr(exc, 'problem', None) or exc}", line, column)
        return file.document(DocumentKind.YAML, errors=[error])
    fields = _yaml_fields(node)
    if isinstance(fields.get("interactions"), yaml.SequenceNode):
        return file.document(DocumentKind.YAML, _recorded_requests(file, fields["interactions"]))
    messages = fields.get("messages", node)
    if isinstance(messages, yaml.SequenceNode):
        # Each message's content is a prompt of its own, placed as a template string is.
        contents = [_yaml_fields(m).get("content") for m in messages.value if "role" in _yaml_fields(m)]
        return file.document(DocumentKind.YAML, [Prompt((c.value,), _yaml_source(raw, c)) for c in contents if _yaml_string(c)])
    template = fields.get("template")
    if not _yaml_string(template):
        return file.document(DocumentKind.YAML, _yaml_prompts(file, node))
    style = fields.get("template_format")
    text = template.value
    syntax = Syntax.JINJA if style is not None and style.value == "jinja2" and parses(text) else Syntax.TEXT
    return file.document(DocumentKind.YAML, [Prompt((text,), _yaml_source(raw, template), syntax=syntax)])


# A Go template action, which Jinja never writes: a field of the data (`{{ .Values.image }}`,
# `{{- $name := .Release.Name }}`), or a call of a named template (`{{ include "chart.name" . }}`).
_GO_ACTION = re.compile(r'\{\{-?\s*(?:\$\w*\s*:?=\s*)?(?:\.[A-Za-z]|(?:if|with|range|toYaml|include|template|define)\s+(?:\.|\$|"|not\s+\.|and\s+\.|or\s+\.))')


def _recorded_requests(file: Input, interactions: yaml.SequenceNode) -> list[Prompt]:
    """The prompts of the requests an HTTP recording holds (a VCR cassette: `interactions`, each with a
    `request` whose `body` is the JSON the app sent, as a string or under `string`, or whose `parsed_body` is
    that JSON written as YAML), each read as a JSON request body and placed at its body. A body that is no JSON, or holds no prompt, is passed over."""
    from .jsonfile import embedded_request

    prompts = []
    for interaction in interactions.value:
        request = _yaml_fields(_yaml_fields(interaction).get("request"))
        body = _yaml_fields(request.get("body")).get("string", request.get("body"))
        if isinstance(request.get("parsed_body"), yaml.MappingNode):
            # The body as the recorder decoded it, written as YAML: the same JSON, only placed at its start.
            body = request["parsed_body"]
            sent_json = json.dumps(yaml.SafeLoader("").construct_document(body), default=str)
        elif _yaml_string(body) and body.value.lstrip().startswith("{"):
            sent_json = body.value
        else:
            continue
        prompts += embedded_request(file, sent_json, Anchored(body.start_mark.line + 1, body.start_mark.column + 1))
    return prompts


def _yaml_prompts(file: Input, root: yaml.Node | None) -> list[Prompt]:
    """A YAML prompt file of no known shape: each string under a key that reads as a prompt
    (see segment.is_prompt_text), in file order."""
    from .jinja import parses
    from .segment import is_prompt_text, sent_with_sources, words

    vocab = words(lexicon=file.lexicon)
    found, pending = [], [root]
    while pending:
        node = pending.pop()
        if isinstance(node, yaml.SequenceNode):
            pending.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and _yaml_string(value) and (is_prompt_text(value.value, vocab, str(key.value)) or sent_with_sources(value.value, file.lexicon)):
                    found.append(value)
                pending.append(value)
    prompts = []
    for node in sorted(found, key=lambda n: n.start_mark.index):
        syntax = Syntax.JINJA if "{%" in node.value and parses(node.value) else Syntax.TEXT
        prompts.append(Prompt((node.value,), _yaml_source(file.raw, node), syntax=syntax))
    return prompts


def _yaml_fields(node: yaml.Node | None) -> dict[str, yaml.Node]:
    """A mapping's values by key; only plain keys count (complex ones, `? [a, b]`, are skipped)."""
    mapping = node.value if isinstance(node, yaml.MappingNode) else []
    return {k.value: v for k, v in mapping if isinstance(k, yaml.ScalarNode)}


def _yaml_string(node: yaml.Node | None) -> bool:
    return isinstance(node, yaml.ScalarNode) and isinstance(node.value, str) and node.tag.endswith(":str")


def _yaml_source(raw: str, node: yaml.ScalarNode) -> SourceMap:
    """Where a YAML string's text stands in the file: exactly for a one-line value written
    as it reads (plain, or quoted with no escape), line by line under a `|` block, else
    at the value's start (a folded or multi-line value, a quoted one with escapes: its
    findings point there and are not fixed)."""
    start, end = node.start_mark.index, node.end_mark.index
    if node.style is None and raw[start:end] == node.value:
        return Verbatim(start, end, reread=True)
    if node.style in ("'", '"') and raw[start + 1 : end - 1] == node.value and "\n" not in node.value:
        return Verbatim(start + 1, end - 1, reread=True)
    if node.style == "|":
        first = node.start_mark.line + 1  # the block starts on the line after `|`
        lines = raw.split("\n")
        indent = next((len(ln) - len(ln.lstrip(" ")) for ln in lines[first:] if ln.strip()), 0)
        return YamlBlock(tuple((first + 1 + k, indent) for k in range(node.value.count("\n") + 1)))
    return Anchored(node.start_mark.line + 1, node.start_mark.column + 1)
