"""Chart accessibility (ui/charts.py, issue #18): colours that pass WCAG contrast, a second cue
besides hue, a description in the page's language, no English from Vega, and large text in the
presenter view (issue #16)."""

from __future__ import annotations

import pytest

from tests.browser.a11y import contrast
from text import i18n
from ui import charts

WHITE = (255, 255, 255)


def rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))  # type: ignore[return-value]


@pytest.fixture
def lang(monkeypatch):
    """Set the run's language as the shell does (through the session reader)."""
    def use(code: str) -> None:
        monkeypatch.setattr(i18n, "_session",
                            lambda key, default: code if key == i18n.LANG_STATE else default)
    return use


@pytest.fixture
def presenting():
    charts.use_presenting(lambda: True)
    yield
    charts.use_presenting(None)


def bars_by_outcome() -> dict:
    rows = [{"q": "q1", "diff": 0.5, "outcome": "better"},
            {"q": "q2", "diff": -0.5, "outcome": "worse"},
            {"q": "q3", "diff": 0.0, "outcome": "tie"}]
    return charts.spec(
        200,
        data={"values": rows},
        mark="bar",
        encoding={
            "x": {"field": "q", "type": "nominal", "title": "question"},
            "y": {"field": "diff", "type": "quantitative", "title": "RR difference"},
            "color": {"field": "outcome", "type": "nominal", "title": "outcome",
                      "scale": charts.scale({"better": charts.PALETTE["good"],
                                             "worse": charts.PALETTE["bad"],
                                             "tie": charts.PALETTE["neutral"]})},
        },
    )


def test_every_mark_colour_passes_3_to_1_and_text_4_5_to_1_on_white():
    for role, colour in charts.PALETTE.items():
        if role in charts.BACKDROPS:
            continue
        need = 4.5 if role in ("text", "label") else 3.0
        assert contrast(rgb(colour), WHITE) >= need, (role, colour)


def test_bars_coloured_by_category_also_differ_by_outline_dash():
    chart = bars_by_outcome()
    dash = chart["encoding"]["strokeDash"]
    assert dash["field"] == "outcome" and dash["title"] == "outcome"  # one shared legend
    assert dash["scale"]["domain"] == ["better", "worse", "tie"]
    ranges = dash["scale"]["range"]
    assert len({tuple(r) for r in ranges}) == 3  # three different patterns
    assert chart["config"]["bar"]["stroke"] == charts.PALETTE["outline"]


def test_hairline_bars_keep_no_outline():
    chart = charts.spec(100, data={"values": [{"a": 1, "b": 2}]},
                        mark={"type": "bar", "size": 2},
                        encoding={"x": {"field": "a"}, "y": {"field": "b"}})
    assert chart["mark"]["strokeWidth"] == 0


def test_vega_says_nothing_in_english_and_offers_no_menu():
    chart = bars_by_outcome()
    config = chart["config"]
    assert config["aria"] is False and config["mark"]["aria"] is False
    assert config["axis"]["aria"] is False and config["legend"]["aria"] is False
    assert chart["usermeta"] == {"embedOptions": {"actions": False}}


def test_the_description_names_every_value_in_the_page_language(lang):
    lang("en")
    text = bars_by_outcome()["description"]
    assert text == ("Chart. RR difference by question: q1: 0.5 (better); q2: -0.5 (worse); "
                    "q3: 0.0 (tie).")
    lang("ar")
    text = bars_by_outcome()["description"]
    assert text.startswith("رسم بياني. RR difference بحسب question: ")
    assert "q1: 0.5 (better)؛ q2: -0.5 (worse)؛ q3: 0.0 (tie)." in text


def test_a_long_chart_is_described_up_to_a_limit(lang):
    lang("en")
    rows = [{"k": i, "v": i / 100} for i in range(charts.MAX_DESCRIBED + 5)]
    chart = charts.spec(100, data={"values": rows}, mark="line",
                        encoding={"x": {"field": "k"}, "y": {"field": "v"}})
    assert chart["description"].endswith(", and 5 more.")
    assert f"{charts.MAX_DESCRIBED - 1}: " in chart["description"]


def test_presenter_view_text_is_20_px_and_legends_whole(presenting):
    chart = charts.spec(
        200,
        layer=[{"data": {"values": [{"x": 1, "y": 2, "t": "k = 5"}]}, "mark": "text",
                "encoding": {"x": {"field": "x", "axis": {"labelFontSize": 11}},
                             "y": {"field": "y"}, "text": {"field": "t"}}}],
    )
    config = chart["config"]
    assert config["axis"]["labelFontSize"] >= charts.PRESENTER_PX
    assert config["legend"]["labelFontSize"] >= charts.PRESENTER_PX
    assert config["legend"]["labelLimit"] == 0
    layer = chart["layer"][0]
    assert layer["mark"]["fontSize"] >= charts.PRESENTER_PX
    assert layer["encoding"]["x"]["axis"]["labelFontSize"] >= charts.PRESENTER_PX
    assert charts.legend()["columns"] == 1 and charts.legend()["labelLimit"] == 0


def test_outside_the_presenter_view_text_stays_readable_size():
    config = bars_by_outcome()["config"]
    assert 12 <= config["axis"]["labelFontSize"] < charts.PRESENTER_PX
    assert charts.legend()["columns"] == 2
