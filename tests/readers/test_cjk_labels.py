"""Labels written as Chinese and Japanese prompts write them: between lenticular brackets ("【参考片段】", a note in
parentheses after it), with a full-width colon, or with a context word qualified by a word written against it
("相关上下文"). Each stands where an English label would, and says what the block under it holds; each case has
its twin whose label says something else."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text
from promptlint.readers.segment import segment_text

CONFIG = build({"today": "2026-12-07"}, "test")

UNITS = (
    "[2026-03-02] id=note_7 (score=0.71)\n退货需要在收到商品后的三十天之内提出申请，并且商品必须保持原包装完好无损才可以办理。\n\n"
    "[2026-02-11] id=note_9 (score=0.64)\n运费由买家承担，除非商品本身存在质量问题，这种情况下卖家会全额退还运费给买家。\n\n"
    "[2025-12-30] id=note_4 (score=0.58)\n会员用户每个月可以享受两次免费上门取件服务，超出次数以后按照标准价格收费处理。\n"
)


def _codes(text: str, path: str = "prompt.txt") -> list[str]:
    return sorted(f.code for f in lint_text(text, path=path, config=CONFIG))


@pytest.mark.parametrize(
    "label",
    ["【相关检索片段】", "【相关记忆】（本轮检索所得，仅供参考）", "相关上下文：", "检索到的资料："],
)
def test_a_label_that_speaks_of_the_context_stands_over_the_units(label):
    codes = _codes(f"你是客服助手，只根据下面的资料回答。\n\n{label}\n{UNITS}\n用户问题：退货要多久之内申请？")
    assert codes.count("PL102") == 3
    assert codes.count("PL201") >= 1


@pytest.mark.parametrize("label", ["【写作规则】", "【更新日志】（仅供参考）", "常见说明："])
def test_a_label_that_says_something_else_holds_the_prompts_own_text(label):
    codes = _codes(f"你是客服助手，只根据下面的资料回答。\n\n{label}\n{UNITS}\n用户问题：退货要多久之内申请？")
    assert "PL102" not in codes and "PL201" not in codes


def test_a_date_in_the_keys_place_is_the_sources_date():
    text = f"【相关检索片段】\n{UNITS}\n用户问题：退货要多久之内申请？"
    dated = [f for f in lint_text(text, path="prompt.txt", config=CONFIG) if f.code == "PL201"]
    assert (dated[0].line, dated[0].column) == (2, 2)
    # The key's brackets go with the date, and no source is left without its text; no label says the date dates
    # the source (it may be when what the text tells happened), so the fix is unsafe.
    assert [text[e.span.start : e.span.end] for e in dated[0].fix.edits] == ["[2026-03-02] ", "[2026-02-11] ", "[2025-12-30] "]
    assert dated[0].fix.applicability.name == "UNSAFE"


TEMPLATE = (
    "请根据以下信息生成活动策划：\n\n主题：{{ theme }}\n{label}\n{{ summary }}\n"
    "请用 Markdown 格式输出，要求：\n\n1. 必须有清晰的结构和层次\n2. 使用标题和分点来组织内容\n"
    "3. 内容要具体、可以直接执行\n4. 适合在校园里举办的场景\n5. 每个环节都写明负责人和时间安排\n"
)


@pytest.mark.parametrize("label", ["【参考经验（已提炼）】", "【参考经验】"])
def test_a_slot_alone_under_a_bracketed_label_is_the_requests_input(label):
    assert _codes(TEMPLATE.replace("{label}", label), "plan.j2") == ["PL305"]


def test_a_slot_under_no_label_of_its_own_is_not_read_as_input():
    assert _codes(TEMPLATE.replace("{label}\n", ""), "plan.j2") == []


# Sources written with the full-width punctuation of Chinese and Japanese: brackets, parentheses, colons and commas
# part a header's groups and items as their ASCII forms do, and the labels of the fields and the text are read in
# these languages; each prompt's fix removes what the rule reports and leaves the rest as it was written.
ANSWER = "请只根据下面的资料回答用户的问题。\n\n"
TEXTS = ("退货需要在收到商品后的三十天之内提出申请，并且商品必须保持原包装完好无损才可以办理。",
         "运费由买家承担，除非商品本身存在质量问题，这种情况下卖家会全额退还运费给买家。")
WRITTEN = {
    "a group in full-width parentheses": (
        "[{n}] 退货政策{n}（相似度：0.9{n}）\n{text}\n", ["PL102", "PL102"], "[{n}] 退货政策{n}\n{text}\n"),
    "items parted by a full-width comma": (
        "片段{n}（分数 0.9{n}，来源：退货政策{n}.pdf）：{text}\n", ["PL102", "PL102"], "片段{n}（来源：退货政策{n}.pdf）：{text}\n"),
    "labelled lines of the source and its text": (
        "### 文档 {n}\n标题：退货政策{n}\n来源：confluence\n更新时间：2026-0{n}-02\n内容：{text}\n", ["PL202", "PL201", "PL202", "PL201"],
        "### 文档 {n}\n标题：退货政策{n}\n内容：{text}\n"),
    "a Japanese header in lenticular brackets": (
        "【資料{n}】返品ポリシー{n}（関連度：0.9{n}、更新日：2026-0{n}-02）\n{text}\n", ["PL102", "PL201", "PL102", "PL201"], "【資料{n}】返品ポリシー{n}\n{text}\n"),
}


def _sources(written: str) -> str:
    return "\n".join(written.format(n=n, text=text) for n, text in enumerate(TEXTS, 1))


@pytest.mark.parametrize("form", sorted(WRITTEN))
def test_full_width_punctuation_parts_a_sources_fields_and_its_fix_keeps_the_rest(form):
    written, codes, fixed = WRITTEN[form]
    text = f"{ANSWER}{_sources(written)}\n问题：退货要多久之内申请？\n"
    assert [f.code for f in lint_text(text, path="prompt.txt", config=CONFIG)] == codes
    assert fix_text(text, path="prompt.txt", config=CONFIG, unsafe=True) == f"{ANSWER}{_sources(fixed)}\n问题：退货要多久之内申请？\n"
    # The twin without the fields: nothing to report.
    assert lint_text(f"{ANSWER}{_sources(fixed)}\n问题：退货要多久之内申请？\n", path="prompt.txt", config=CONFIG) == []


def test_a_bracketed_title_over_the_next_sources_header_heads_no_source():
    """"【参考资料】以下是检索到的相关规定：" over "### 规定 1 - a.docx:": the bracket titles the block (Chinese writes
    no plural to tell "reference material" from "a reference"); over a text of its own it heads that one source."""
    blocks = "\n".join(f"### 规定 {n} - 规定{n}.docx:\n{text}\n" for n, text in enumerate(TEXTS, 1))
    titled = segment_text(f"【参考资料】以下是检索到的相关规定：\n{blocks}\n问题：退货要多久之内申请？")
    assert [s.title for s in titled.sources] == ["规定 1 - 规定1.docx", "规定 2 - 规定2.docx"]
    assert len(segment_text(f"【参考资料】\n{TEXTS[0]}\n\n问题：退货要多久之内申请？").sources) == 1
