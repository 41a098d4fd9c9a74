"""Lesson 6 in a real Chromium: label the golden set, check it, move on to step 2 and check
it; progress lives in the URL; Arabic reads right to left; a phone does not scroll sideways."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

PATH = "/diagnose"
MAIN = "[data-testid=stMainBlockContainer]"


@pytest.fixture(scope="module")
def app_url(streamlit_server) -> str:
    return streamlit_server("app.py", **{"runner.postScriptGC": False})


def open_lesson(page: Page, url: str, query: str = "lang=en") -> Page:
    page.goto(f"{url}{PATH}?{query}")
    expect(page.locator(".st-key-dg-label-q1")).to_be_visible(timeout=30_000)
    return page


def pill(container, label: str):
    return container.get_by_role("button", name=label, exact=True)


def press(container, label: str) -> None:
    """Select a multi-select pill; click again if the first click landed before the widget
    was live."""
    button = pill(container, label)
    for attempt in range(3):
        button.click()
        try:
            expect(button).to_have_attribute("aria-pressed", "true", timeout=4_000)
            return
        except AssertionError:
            if attempt == 2:
                raise


def test_label_check_and_measure_retrieval(page, app_url):
    open_lesson(page, app_url)
    answers = {"q1": ["d1 · Annual leave"], "q2": ["d3 · Remote work (2024)",
                                                   "d4 · Memo, March 2021"],
               "q3": ["d5 · Expense claims", "d6 · Travel allowances"],
               "q4": ["d8 · Public holidays"], "q5": ["d7 · Laptops and passwords"]}
    for qid, docs in answers.items():
        box = page.locator(f".st-key-dg-label-{qid}")
        for doc in docs:
            press(box, doc)
    expect(page).to_have_url(re.compile(r"l=1-34-56-8-7"))
    page.get_by_role("button", name="Check").first.click()
    step = page.locator(".st-key-dg-step-1")
    expect(step.locator("[data-testid=stAlertContentWarning]")).to_contain_text(
        "match the answer key on 4 of 5 questions")
    expect(step).to_contain_text("is an expired memo about a closure in 2021")
    page.get_by_role("button", name="Next step").click()
    step = page.locator(".st-key-dg-step-2")
    expect(step).to_contain_text("Step 2: measure retrieval")
    expect(page).to_have_url(re.compile(r"st=2"))
    for qid in ("q3", "q4"):
        press(step, qid)
    step.get_by_role("button", name="Check").click()
    expect(step.locator("[data-testid=stAlertContentSuccess]")).to_contain_text(
        "Right: retrieval failed on q3, q4.")
    cards = step.locator(".mz-metric-value")
    expect(cards).to_have_text(["0.70", "0.70"])
    # the learner's own labels (d4 for q2) give other numbers, and the page says so
    expect(step.locator("[data-testid=stAlertContentInfo]")).to_contain_text(
        "With your own labels from step 1")
    expect(page).to_have_url(re.compile(r"ck=12"))


def test_a_link_reopens_the_step_and_arabic_reads_right_to_left(page, app_url):
    page.goto(f"{app_url}{PATH}?lang=ar&st=2&ck=12&l=1-3-56-8-7&f=34")
    step = page.locator(".st-key-dg-step-2")
    expect(step).to_be_visible(timeout=30_000)
    expect(step.locator("[data-testid=stAlertContentSuccess]")).to_contain_text("أصبت")
    expect(step.locator(".mz-prose[lang=ar]").first).to_have_css("direction", "rtl")
    # a ranking stays one left-to-right unit inside the right-to-left table
    code = step.locator("code", has_text="d4 d3★ d8")
    expect(code).to_be_visible()
    expect(code).to_have_css("direction", "ltr")        # once the RTL layer's CSS is in
    # the first column of the Arabic table sits at the right
    table = step.locator("table").first
    expect(table).to_have_css("direction", "rtl")
    cells = table.locator("tr").nth(1).locator("td")
    assert cells.nth(0).bounding_box()["x"] > cells.nth(1).bounding_box()["x"]


def test_phone_width_has_no_sideways_scroll(browser, app_url):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                  has_touch=True, device_scale_factor=2)
    page = context.new_page()
    try:
        page.goto(f"{app_url}{PATH}?lang=ar&st=3&ck=12&l=1-3-56-8-7&f=34")
        expect(page.locator(".st-key-dg-step-3")).to_be_visible(timeout=30_000)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        context.close()
