"""Lesson 1 in a real Chromium: pick the stage that failed and see the reason and the numbers;
the Arabic diagram reads right to left in the self-hosted face; a phone does not scroll
sideways; a shared link reopens the sorted cases."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

PATH = "/two-stages"
CASE = ".st-key-ts-case"


@pytest.fixture(scope="module")
def app_url(streamlit_server) -> str:
    return streamlit_server("app.py", **{"runner.postScriptGC": False})


def open_lesson(page: Page, url: str, query: str = "lang=en") -> Page:
    page.goto(f"{url}{PATH}?{query}")
    expect(page.locator(CASE)).to_be_visible(timeout=30_000)
    return page


def loose(sentence: str) -> re.Pattern:
    """The sentence, allowing the bidi isolates the page puts around inserted names."""
    after_colon = sentence.split(": ", 1)
    return re.compile(re.escape(after_colon[0] + ": ") + "[\u2066-\u2069]?"
                      + re.escape(after_colon[1][:-1]) + "[\u2066-\u2069]?" + re.escape("."))


def pick(page: Page, verdict: str) -> None:
    """Click a verdict; click again if the page was not yet listening (the first click after
    a load can land before the widget is live)."""
    radio = page.locator(CASE).get_by_role("radio", name=verdict, exact=True)
    for attempt in range(3):
        page.locator(CASE).get_by_text(verdict, exact=True).click()
        try:
            expect(radio).to_be_checked(timeout=4_000)
            return
        except AssertionError:
            if attempt == 2:
                raise


def test_pick_a_stage_and_see_the_reason(page, app_url):
    open_lesson(page, app_url)
    case = page.locator(CASE)
    expect(case).to_contain_text("How many days of annual leave do I get")
    expect(case.locator(".mz-metric")).to_have_count(0)
    pick(page, "Generation invented what no chunk says")
    expect(case.locator("[data-testid=stAlertContentSuccess]")).to_contain_text(
        loose("Right: Generation invented what no chunk says."))
    expect(case).to_contain_text("The third, about cashing out the balance")
    cards = case.locator(".mz-metric")
    expect(cards).to_have_count(3)
    expect(cards.nth(0)).to_contain_text("recall@3")
    expect(cards.nth(2).locator(".mz-metric-value")).to_have_text("0.67")
    expect(page).to_have_url(re.compile(r"p=v_______"))
    expect(page.locator("[data-testid=stMainBlockContainer]")).to_contain_text(
        "Sorted right: 1 of 1 answered")
    # the choice is locked: the first answer counts
    expect(case.locator("input[type=radio]").nth(0)).to_be_disabled()
    # next case, a wrong pick names the right stage
    page.get_by_role("button", name="Next case").click()
    expect(case).to_contain_text("What is the daily meal allowance")
    pick(page, "Nothing failed")
    expect(case.locator("[data-testid=stAlertContentError]")).to_contain_text(
        loose("The answer: Retrieval missed the right document."))
    expect(page).to_have_url(re.compile(r"c=2.*p=vn______|p=vn______.*c=2"))


def test_arabic_sorter_and_diagram_read_right_to_left(page, app_url):
    open_lesson(page, app_url, "lang=ar")
    svg = page.locator("svg[direction=rtl]")
    expect(svg).to_be_visible()
    # real text in the self-hosted Arabic face, not an image of text
    title = svg.locator("text", has_text="الاسترجاع").first
    assert "Mizan Arabic" in title.evaluate("e => getComputedStyle(e).fontFamily")
    assert title.evaluate("e => getComputedStyle(e).direction") == "rtl"
    # "first recall@k, then RR@k": the Latin runs stay intact, in right-to-left order
    pill = svg.locator("text", has_text="recall@k")
    xs = pill.evaluate("""e => {
        const t = e.textContent, at = s => e.getStartPositionOfChar(t.indexOf(s)).x;
        return [at('recall@k'), at('RR@k')]; }""")
    assert xs[0] > xs[1], "recall@k (read first) sits to the right of RR@k"
    page.wait_for_function("document.fonts.check('16px \"Mizan Arabic\"', 'الاسترجاع')")
    case = page.locator(CASE)
    expect(case.locator(".mz-prose[lang=ar]").first).to_have_css("direction", "rtl")
    pick(page, "التوليد اختلق ما لا يقوله أي مقطع")
    expect(case.locator("[data-testid=stAlertContentSuccess]")).to_contain_text("أصبت")
    expect(case.locator(".mz-metric-value").nth(2)).to_have_text("0.67")


def test_phone_width_has_no_sideways_scroll(browser, app_url):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                  has_touch=True, device_scale_factor=2)
    page = context.new_page()
    try:
        open_lesson(page, app_url, "lang=ar&p=v_______")
        expect(page.locator(CASE).locator(".mz-metric")).to_have_count(3)
        box = page.locator("svg[direction=rtl]").bounding_box()
        assert box and box["width"] <= 390
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        context.close()


def test_a_shared_link_reopens_the_sorted_cases(browser, app_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        open_lesson(page, app_url, "lang=en&c=2&p=vr______")
        case = page.locator(CASE)
        expect(case).to_contain_text("What is the daily meal allowance")
        expect(case.locator("[data-testid=stAlertContentSuccess]")).to_contain_text(
            loose("Right: Retrieval missed the right document."))
        expect(page.locator("[data-testid=stMainBlockContainer]")).to_contain_text(
            "Sorted right: 2 of 2 answered")
    finally:
        context.close()
