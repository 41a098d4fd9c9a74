"""Lesson 5 in a real Chromium: dragging a chunk and editing a grade change nDCG, the formulas
and the charts; the pitfall switch; the step table checks typed cells; Arabic is right-to-left
with formulas intact."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from lessons.ndcg import logic
from tests.browser.interact import item, mouse_drag

PATH = "/ndcg"
CARD = ".mz-metric"


@pytest.fixture(scope="module")
def app_url(streamlit_server) -> str:
    return streamlit_server("app.py", **{"runner.postScriptGC": False})


def open_lesson(page: Page, url: str, query: str = "lang=en") -> Page:
    page.goto(f"{url}{PATH}?{query}")
    expect(page.locator(".rk-item")).to_have_count(5, timeout=30_000)
    expect(page.locator(CARD).first).to_be_visible()
    return page


def card(page: Page, n: int):
    """The value of metric card n: 0 DCG@k, 1 IDCG@k, 2 nDCG@k."""
    return page.locator(CARD).nth(n).locator(".mz-metric-value")


def formula(page: Page, label: str):
    return page.locator("[data-testid=stMainBlockContainer] code",
                        has_text=re.compile(f"^{re.escape(label)} ="))


def chart_texts(page: Page, n: int) -> list[str]:
    """The text marks drawn in chart n (0 discount, 1 gain, 2 DCG vs IDCG, 3 nDCG by k)."""
    chart = page.locator("[data-testid=stVegaLiteChart]").nth(n)
    chart.scroll_into_view_if_needed()
    return chart.locator("text").all_text_contents()


def test_opens_on_the_seed_numbers_then_keys_and_k(page, app_url):
    open_lesson(page, app_url)
    expect(card(page, 0)).to_have_text("6.1487")
    expect(card(page, 1)).to_have_text("6.3235")
    expect(card(page, 2)).to_have_text("0.9724")
    expect(formula(page, "nDCG@5")).to_have_text("nDCG@5 = 6.1487 / 6.3235 = 0.9724")
    expect(page.locator(".rk-item .rk-id")).to_have_text(["d3", "d8", "d1", "d6", "d5"])
    expect(page.locator("[data-testid=stVegaLiteChart]")).to_have_count(4)
    # the keyboard moves a chunk too, and the k slider cuts every formula
    item(page, "d1").focus()
    page.keyboard.press("Alt+ArrowUp")
    expect(card(page, 2)).to_have_text("0.9931")
    page.get_by_role("slider").focus()
    page.keyboard.press("ArrowLeft")
    expect(formula(page, "nDCG@4")).to_be_visible()
    expect(page).to_have_url(re.compile(r"k=4"))


def test_drag_and_grade_edit_change_ndcg_and_the_charts(page, app_url):
    open_lesson(page, app_url)
    expect(page.locator("[data-testid=stVegaLiteChart]").nth(3).locator("text",
                                                                          has_text="0.87"))\
        .to_have_count(1)
    before = chart_texts(page, 3)
    mouse_drag(page, "d1", "d8")                 # the second exact answer before the partial one
    expect(card(page, 2)).to_have_text("0.9931")
    expect(formula(page, "DCG@5")).to_contain_text("3/log2(2) + 3/log2(3) + 2/log2(4)")
    expect(page).to_have_url(re.compile(r"r=d3\.3-d1\.3-d8\.2-d6\.0-d5\.1"))
    # the nDCG-by-k chart now reads 1.00 at k = 2 (it read 0.87)
    nd = page.locator("[data-testid=stVegaLiteChart]").nth(3)
    expect(nd.locator("text", has_text="0.87")).to_have_count(0)
    assert chart_texts(page, 3) != before
    # edit a grade in place: the irrelevant d6 becomes an exact answer
    gain_before = chart_texts(page, 1)
    item(page, "d6").locator('[data-grade="3"]').click()
    expect(card(page, 0)).to_have_text("7.5717")
    expect(card(page, 2)).to_have_text("0.9909")
    expect(page).to_have_url(re.compile(r"d6\.3"))
    gain = page.locator("[data-testid=stVegaLiteChart]").nth(1)
    expect(gain.locator("text", has_text="d6 (3)")).to_have_count(1)
    assert chart_texts(page, 1) != gain_before


def test_the_perfect_score_falls_when_the_missed_answer_counts(page, app_url):
    open_lesson(page, app_url)
    page.get_by_role("button", name="Best order first").click()
    expect(card(page, 2)).to_have_text("1.0000")
    page.get_by_role("button", name=re.compile("Add the missed exact answer")).click()
    expect(page.get_by_text("grade 3, not retrieved")).to_be_visible()
    expect(card(page, 2)).to_have_text("1.0000")
    page.get_by_text("all judged documents", exact=True).click()
    expect(card(page, 2)).to_have_text("0.8276")
    expect(page).to_have_url(re.compile(r"i=jud"))


def cell_box(page: Page, column: str, row: int) -> tuple[float, float]:
    """Centre of a step-table cell. The grid is a canvas: its columns have the page's pixel
    widths (``logic.STEP_WIDTHS``), stretched in proportion to the grid's width, and rows
    Streamlit's 35 px under a 35 px header."""
    box = page.locator("[data-testid=stDataFrame]").first.bounding_box()
    widths = [logic.STEP_WIDTHS[c] for c in logic.STEP_TABLE]
    i = logic.STEP_TABLE.index(column)
    centre = (sum(widths[:i]) + widths[i] / 2) / sum(widths)
    return box["x"] + box["width"] * centre, box["y"] + 35 * (row + 1) + 17


def type_cell(page: Page, column: str, row: int, value: str) -> None:
    """Open a cell's editor (double-click), type, commit with Enter, as a learner does."""
    x, y = cell_box(page, column, row)
    page.mouse.dblclick(x, y)
    box = page.locator("textarea.gdg-input")
    expect(box).to_be_visible()
    box.fill(value)
    box.press("Enter")
    expect(box).to_have_count(0)


def test_step_table_checks_a_typed_cell(page, app_url):
    open_lesson(page, app_url)
    page.get_by_role("button", name=re.compile("and fill it in")).click()
    grid = page.locator("[data-testid=stDataFrame]").first
    expect(grid).to_be_visible(timeout=20_000)       # a fragment's rerun, on a busy machine
    grid.scroll_into_view_if_needed()
    type_cell(page, "ndcg", 1, "4.26")                   # rank 2: DCG@2, not divided
    alert = page.locator("[data-testid=stAlertContentError]", has_text="is DCG@2 itself")
    expect(alert).to_be_visible()
    type_cell(page, "ndcg", 1, "0.87")
    expect(alert).to_have_count(0)
    expect(page.locator("[data-testid=stAlertContentError]")).to_have_count(0)


def test_arabic_is_rtl_and_formulas_read_left_to_right(page, app_url):
    open_lesson(page, app_url, "lang=ar")
    prose = page.locator("[data-testid=stMainBlockContainer] .mz-prose[lang=ar]").first
    expect(prose).to_have_attribute("dir", "rtl")
    boxes = formula(page, "nDCG@5").evaluate("""e => {
        const r = document.createRange(), t = e.firstChild, xs = [];
        for (const needle of ['nDCG', '6.1487', '6.3235', '0.9724']) {
            const i = t.textContent.indexOf(needle);
            r.setStart(t, i); r.setEnd(t, i + 1); xs.push(r.getBoundingClientRect().x);
        }
        return xs; }""")
    assert boxes == sorted(boxes)
    chart = page.locator("[data-testid=stVegaLiteChart]").first
    assert chart.evaluate("e => getComputedStyle(e).direction") == "ltr"
    cards = page.locator(CARD)
    assert cards.nth(0).bounding_box()["x"] > cards.nth(1).bounding_box()["x"]   # DCG on the right
    expect(card(page, 2)).to_have_text("0.9724")
