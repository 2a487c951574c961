"""Labels written as Chinese and Japanese prompts write them: between lenticular brackets ("【参考片段】", a note in
parentheses after it), with a full-width colon, or with a context word qualified by a word written against it
("相关上下文"). Each stands where an English label would, and says what the block under it holds; each case has
its twin whose label says something else."""

from __future__ import annotations

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import lint_text

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
