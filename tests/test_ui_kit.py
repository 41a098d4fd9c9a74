"""The UI kit's single sources: one table helper with one escaping rule, one chart module with
the schema and the palette, one set of ranking-list helpers — and no page writing its own."""

from __future__ import annotations

import re

import pytest

from tests.apptest_helpers import ROOT
from text import bidi
from text.i18n import Markup
from ui import charts, tables
from ui.ranking_editor import add_problem, reordered

PAGES = [p for folder in ("lessons", "ui", "runtime") for p in (ROOT / folder).rglob("*.py")]


def test_a_cell_never_breaks_its_table_nor_injects_markdown():
    out = tables.table(["Rank", "Document"], [
        [1, tables.code("d|7`x")],                       # an id a user typed
        [2, "a|b *bold* [link](javascript:x) <img src=x>"],
        [Markup("**3**"), "line\nbreak"],
    ])
    lines = out.split("\n")
    assert lines[:2] == ["| Rank | Document |", "|---|---|"]
    assert lines[2] == "| 1 | `d\\|7x` |"
    assert all(line.count("|") - line.count("\\|") == 3 for line in lines[2:])
    assert "*bold*" not in out and "](" not in out and "<img" not in out
    assert lines[4] == "| **3** | line break |"
    assert tables.table(["a"], [[1]], align=["right"]).split("\n")[1] == "|---:|"
    assert tables.code("") == "—" and tables.bold(0.5) == "**0.5**"


def test_no_page_builds_a_markdown_table_by_hand():
    rule = re.compile(r"""["']\|?-{3}:?\|""")
    found = [f"{p.relative_to(ROOT)}" for p in PAGES if p.name != "tables.py"
             and rule.search(p.read_text("utf-8"))]
    assert found == []


def test_the_palette_and_schema_live_in_one_place():
    colour = re.compile(r"""["']#[0-9a-fA-F]{6}["']""")
    found = [f"{p.relative_to(ROOT)}" for p in PAGES if p.name != "charts.py"
             and (colour.search(p.read_text("utf-8")) or "vega-lite/v5" in p.read_text("utf-8"))]
    assert found == []
    assert all(re.fullmatch(r"#[0-9a-f]{6}", c) for c in charts.PALETTE.values())


def test_chart_helpers():
    spec = charts.inline(charts.spec(200, data={"values": [{"a": 1}]}, encoding={"x": {}},
                                     layer=[{"mark": "bar"}]))
    assert spec["$schema"] == charts.SCHEMA and spec["height"] == 200
    assert spec["layer"] == [{"data": {"values": [{"a": 1}]}, "encoding": {"x": {}},
                              "layer": [{"mark": "bar"}]}]
    assert charts.scale({"x": "#111111"}) == {"domain": ["x"], "range": ["#111111"]}
    assert charts.text("") == ""
    arabic = charts.text("RR")                      # no session: Arabic, the default language
    assert arabic.startswith(bidi.RLI) and arabic.endswith(bidi.PDI) and "RR" in arabic


def test_ranking_list_helpers():
    items = (("a", 0), ("b", 2), ("c", 1), ("d", 2))
    assert reordered(items, "ideal") == (("b", 2), ("d", 2), ("c", 1), ("a", 0))
    assert sorted(reordered(items, "shuffle")) == sorted(items)
    kwargs = {"max_chars": 5, "taken": {"d1"}, "full": False}
    assert add_problem("", **kwargs) == "err_empty"
    assert add_problem("toolong", **kwargs) == "err_too_long"
    assert add_problem("d1", **kwargs) == "err_duplicate"
    assert add_problem("d2", **kwargs, in_ranking={"d2"}) == "err_in_ranking"
    assert add_problem("d3", max_chars=5, taken=(), full=True) == "err_too_many"
    assert add_problem("d3", **kwargs) is None


@pytest.mark.parametrize("folder", ["recall_precision", "mrr", "ndcg"])
def test_a_link_opens_its_lesson_with_the_fields_it_reads(folder):
    """What a link writes, the lesson's own fields read back — the lab's links cannot drift."""
    import importlib

    link = importlib.import_module(f"lessons.{folder}.link")
    params = link.link(link.Scenario())
    assert set(params) <= set(link.FIELDS) and set(link.KEYS.values()) == set(link.FIELDS)
    for key, raw in params.items():
        value = link.FIELDS[key].parse(raw)
        assert link.FIELDS[key].serialize(value) == raw


def test_a_presented_chart_has_large_text_and_whole_legends():
    from lessons.ndcg import logic as ndcg
    from text.i18n import load_content
    from ui import layout

    words = load_content("ndcg", "en")["try_it"]["chart"]
    spec = ndcg.gain_chart(ndcg.Scenario(), words)
    shown = layout.presented_chart(spec)
    assert spec == ndcg.gain_chart(ndcg.Scenario(), words), "the page's own spec is untouched"

    def parts(node, found):
        if isinstance(node, dict):
            found.append(node)
            for value in node.values():
                parts(value, found)
        elif isinstance(node, list):
            for value in node:
                parts(value, found)
        return found

    before, after = parts(spec, []), parts(shown, [])
    assert any(p.get("type") == "text" and p.get("fontSize", 99) < 20 for p in before)
    assert all(p["fontSize"] >= 20 for p in after if p.get("type") == "text" and "fontSize" in p)
    assert any("legend" in p for p in before)
    assert all(p["legend"]["labelLimit"] == 0 for p in after if isinstance(p.get("legend"), dict))
    config = shown["config"]
    assert config["view"] == spec["config"]["view"]                   # kept
    assert config["axis"]["labelFontSize"] >= 20 and config["legend"]["labelFontSize"] >= 20
    assert config["text"]["fontSize"] >= 20 and config["legend"]["labelLimit"] == 0
