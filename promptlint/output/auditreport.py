"""Show an audit: its figures as data, and that data as a terminal table or a self-contained HTML page.

``as_data`` is the report; the JSON output is it verbatim, and the table and the
page only lay it out, so the three always agree. The page has its styles and its
chart (an SVG) inline and loads nothing, so it can be mailed or archived as a
single file and opened anywhere, without JavaScript.
"""

from __future__ import annotations

import html
import json
from dataclasses import asdict

from ..audit.run import Tally
from ..engine import registry

MESSAGE_WIDTH = 100  # characters of a finding's message shown in the table


def as_data(tally: Tally, paths: list[str]) -> dict:
    """The audit's figures: shares are of the prompts audited; rules costliest first."""
    rules = []
    ranked = sorted(tally.rules.items(), key=lambda item: (-item[1].tokens, -item[1].affected, item[0]))
    for code, rule in ranked:
        known = registry.get(code)
        rules.append(
            {
                "code": code,
                "name": known.name,
                "summary": known.summary,
                "affected": rule.affected,
                "share": rule.affected / tally.prompts,
                "findings": rule.findings,
                "tokens": rule.tokens,
                "tokens_per_affected": rule.tokens / rule.affected,
                "worst": [asdict(example) for example in tally.worst(code, paths)],
            }
        )
    return {
        "logs": paths,
        "records": tally.records,
        "skipped": tally.skipped,
        "prompts": tally.prompts,
        "affected": tally.affected,
        "share": tally.affected / tally.prompts if tally.prompts else 0.0,
        "tokens": sum(rule["tokens"] for rule in rules),
        "prompt_tokens": tally.tokens,
        "rules": rules,
    }


def as_json(data: dict) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def problems(tally: Tally, names: list[str], field_path: str | None) -> list[str]:
    """What the report alone would hide, a line a problem: the damage in each log, its corrupt lines, records without a prompt."""
    found = []
    for file, log in sorted(tally.logs.items()):
        name = names[file]
        for damage, (_, lost) in sorted(log.damage.items(), key=lambda item: item[1]):
            found.append(f"{name}: {damage}: {_count(lost, 'row')} lost" if lost else f"{name}: {damage}")
        if log.first_corrupt:
            first = tally.file_line(file, *log.first_corrupt)
            found.append(f"{name}: {_count(log.corrupt, 'line')} not JSON text, the first at line {first:,}: each is reported as a broken record (PL900)")
        if log.records and not log.prompts:
            where = f"at --field {field_path}" if field_path else "in them"
            hint = f"--field {' or --field '.join(sorted(log.fields))} holds one" if log.fields else "pass --field with the path to the prompt in each record"
            found.append(f"{name}: 0 prompts in {_count(log.records, 'record')}: no chat request or prompt {where}; {hint}")
    return found


def _headline(data: dict) -> list[str]:
    return [
        f"{_count(data['prompts'], 'prompt')} in {_count(data['records'], 'record')} of {_count(len(data['logs']), 'log')}"
        f" ({_count(data['skipped'], 'record')} without a prompt skipped).",
        f"{_count(data['affected'], 'prompt')} ({data['share']:.1%}) with findings, which flag {_count(data['tokens'], 'token')}"
        f" of the {_count(data['prompt_tokens'], 'prompt token')} audited ({_share(data['tokens'], data['prompt_tokens'])}).",
    ]


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.1%}" if whole else "none"


def _short(message: str) -> str:
    return message if len(message) <= MESSAGE_WIDTH else message[: MESSAGE_WIDTH - 1] + "\u2026"


def as_table(data: dict) -> str:
    lines = _headline(data)
    if not data["rules"]:
        return "\n".join(lines) + "\n"
    header = ("Code", "Rule", "Prompts", "Share", "Tokens", "Per prompt")
    rows = [(r["code"], r["name"], f"{r['affected']:,}", f"{r['share']:.1%}", f"{r['tokens']:,}", f"{r['tokens_per_affected']:,.1f}") for r in data["rules"]]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    # Names left-aligned, figures right-aligned.
    lines.append("")
    for row in [header, *rows]:
        lines.append("  ".join(cell.ljust(w) if i < 2 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))).rstrip())
    if any(rule["worst"] for rule in data["rules"]):
        lines += ["", "Worst examples (the most tokens first):"]
    for rule in data["rules"]:
        if not rule["worst"]:
            continue
        lines += ["", f"{rule['code']} {rule['name']}"]
        where = [f"{e['path']}:{e['line']}" for e in rule["worst"]]
        width = max(map(len, where))
        for place, example in zip(where, rule["worst"]):
            lines.append(f"  {place.ljust(width)}  {example['tokens']:>6,} tokens  {_short(example['message'])}")
    return "\n".join(lines) + "\n"


STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; color: #1d2430; margin: 2rem auto; max-width: 72rem; padding: 0 1rem; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; }
h2 { font-size: 1.2rem; margin-top: 2rem; }
h3 { font-size: 1rem; margin: 1.2rem 0 .3rem; }
p.lead { color: #4a5568; }
table { border-collapse: collapse; width: 100%; }
th, td { padding: .35rem .6rem; border-bottom: 1px solid #e2e8f0; text-align: left; vertical-align: top; }
th { background: #f7fafc; font-weight: 600; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
code { font-family: ui-monospace, monospace; font-size: .92em; }
svg text { font: 13px system-ui, sans-serif; fill: #1d2430; }
svg rect.bar { fill: #c53030; }
svg rect.track { fill: #edf2f7; }
""".strip()

CHART_LABEL, CHART_BAR, CHART_ROW = 260, 420, 26  # pixels: label column, longest bar, row height


def _chart(rules: list[dict]) -> str:
    """A horizontal bar a rule: the tokens its findings flag, in proportion to the costliest."""
    most = max((r["tokens"] for r in rules), default=0) or 1
    width, height = CHART_LABEL + CHART_BAR + 90, CHART_ROW * len(rules) + 8
    rows = []
    for n, rule in enumerate(rules):
        y = 4 + n * CHART_ROW
        bar = round(CHART_BAR * rule["tokens"] / most)
        label = html.escape(f"{rule['code']} {rule['name']}")
        rows.append(
            f'<text x="0" y="{y + 17}">{label}</text>'
            f'<rect class="track" x="{CHART_LABEL}" y="{y + 4}" width="{CHART_BAR}" height="16"/>'
            f'<rect class="bar" x="{CHART_LABEL}" y="{y + 4}" width="{bar}" height="16"/>'
            f'<text x="{CHART_LABEL + CHART_BAR + 8}" y="{y + 17}">{rule["tokens"]:,}</text>'
        )
    title = "Tokens flagged per rule"
    return f'<svg role="img" aria-label="{title}" width="{width}" height="{height}" viewBox="0 0 {width} {height}"><title>{title}</title>{"".join(rows)}</svg>'


def _totals(data: dict) -> str:
    """The flagged tokens beside the prompt tokens they are part of."""
    return (
        f'<p class="totals"><strong>{data["tokens"]:,}</strong> tokens flagged of <strong>{data["prompt_tokens"]:,}</strong>'
        f" prompt tokens audited ({_share(data['tokens'], data['prompt_tokens'])}).</p>"
    )


def _rule_link(code: str) -> str:
    """The rule's code, linked to its page on the documentation site (a link only: the page loads nothing)."""
    return f'<a href="{html.escape(registry.get(code).help_uri)}"><code>{html.escape(code)}</code></a>'


def as_html(data: dict) -> str:
    e = html.escape
    rule_rows = "".join(
        f"<tr><td>{_rule_link(r['code'])}</td><td>{e(r['name'])}<br><small>{e(r['summary'])}</small></td>"
        f'<td class="n">{r["affected"]:,}</td><td class="n">{r["share"]:.1%}</td><td class="n">{r["findings"]:,}</td>'
        f'<td class="n">{r["tokens"]:,}</td><td class="n">{r["tokens_per_affected"]:,.1f}</td></tr>'
        for r in data["rules"]
    )
    examples = []
    for rule in data["rules"]:
        if not rule["worst"]:
            continue
        rows = "".join(
            f'<tr><td><code>{e(x["path"])}:{x["line"]}</code></td><td class="n">{x["tokens"]:,}</td><td>{e(x["message"])}</td></tr>' for x in rule["worst"]
        )
        examples.append(
            f"<h3>{_rule_link(rule['code'])} {e(rule['name'])}</h3>"
            f'<table><tr><th>Record</th><th class="n">Tokens</th><th>Finding</th></tr>{rows}</table>'
        )
    logs = ", ".join(f"<code>{e(path)}</code>" for path in data["logs"])
    headline = "<br>".join(e(line) for line in _headline(data))
    chart = _chart(data["rules"]) if data["rules"] else "<p>No findings.</p>"
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>promptlint audit</title><style>{STYLE}</style></head><body>"
        f'<h1>promptlint audit</h1><p class="lead">{logs}</p><p>{headline}</p>'
        f"<h2>Tokens flagged per rule</h2>{_totals(data)}{chart}"
        "<h2>Rules</h2><table><tr><th>Code</th><th>Rule</th><th class=\"n\">Prompts</th><th class=\"n\">Share</th>"
        f'<th class="n">Findings</th><th class="n">Tokens</th><th class="n">Per prompt</th></tr>{rule_rows}</table>'
        f"<h2>Worst examples</h2>{''.join(examples) or '<p>None.</p>'}"
        "</body></html>\n"
    )


RENDERERS = {"table": as_table, "json": as_json, "html": as_html}
