"""Lesson 4 in a real Chromium: editing an answer sentence changes its verdict; highlighted
words line up with the words in right-to-left text; typed markup stays text; the answer and its
first verdict are on the first screen (phone and laptop) and the score line stays in view."""

from __future__ import annotations

import contextlib
import re

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from text.i18n import load_content

PATH = "/faithfulness"
CLAIM = ".st-key-fa-verdicts .mz-claim"     # the interactive's sentences (not the core idea's)
STRIP = ".st-key-fa-strip"
IDLE = "!document.querySelector('[data-testid=stStatusWidget] svg')"   # no script running


@pytest.fixture(scope="module")
def app_url(streamlit_server) -> str:
    return streamlit_server("app.py", **{"runner.postScriptGC": False})


def open_lesson(page: Page, url: str, query: str) -> Page:
    page.goto(f"{url}{PATH}?{query}")
    expect(page.locator(CLAIM)).to_have_count(3, timeout=30_000)
    # under load the first run may still be going (its cards are redrawn): wait for its end
    page.wait_for_function(IDLE, timeout=60_000)
    expect(page.locator(CLAIM)).to_have_count(3)
    return page


def answer_box(page: Page):
    return page.locator(".st-key-fa-answer textarea")


def type_answer(page: Page, text: str) -> None:
    box = answer_box(page)
    box.fill(text)
    box.press("Control+Enter")          # Streamlit applies a text area on Ctrl+Enter or blur


def test_editing_a_sentence_changes_its_verdict(page, app_url):
    open_lesson(page, app_url, "lang=en&ex=en")
    first = page.locator(CLAIM).first.locator(".mz-verdict")
    expect(first).to_contain_text("Supported")
    type_answer(page, "Nothing here matches at all. You can carry over ten days to the next year.")
    expect(page.locator(CLAIM)).to_have_count(2)
    expect(first).to_contain_text("Not supported")
    expect(page.locator(CLAIM).nth(1).locator(".mz-verdict")).to_contain_text("Supported")
    # the card whose verdict changed is marked; the one that says what it said is not
    expect(page.locator(CLAIM).first).to_have_class(re.compile(r"\bmz-fa-changed\b"))
    expect(page.locator(CLAIM).nth(1)).not_to_have_class(re.compile(r"\bmz-fa-changed\b"))


def test_highlighted_words_align_in_rtl(page, app_url):
    open_lesson(page, app_url, "lang=ar")
    sentence = page.locator(f"{CLAIM} .mz-sentence").first
    expect(sentence).to_have_attribute("dir", "auto")
    assert sentence.evaluate("e => getComputedStyle(e).direction") == "rtl"
    marks = sentence.locator("mark")
    texts = marks.all_inner_texts()
    assert texts == ["إجازة", "سنوية", "مدتها", "واحد وعشرون", "يوما"]   # لك: a stop-word
    # each highlighted box sits right of the next one: the words read right to left
    xs = [m.bounding_box()["x"] for m in marks.all()]
    assert xs == sorted(xs, reverse=True)
    # the sentence's text equals the original sentence, mark by mark
    assert sentence.inner_text().strip() == "لك إجازة سنوية مدتها واحد وعشرون يوما."


def test_typed_markup_is_text(page, app_url):
    open_lesson(page, app_url, "lang=en&ex=en")
    fired = []
    page.on("dialog", lambda d: (fired.append(d.message), d.dismiss()))
    type_answer(page, "You get <img src=x onerror=alert(1)> days.")
    expect(page.locator(f"{CLAIM} .mz-sentence").first).to_contain_text(
        "<img src=x onerror=alert(1)>")
    assert page.locator(".mz-sentence img").count() == 0 and not fired


def test_english_example_has_its_own_edits(page, app_url):
    """The English example offers edits that make sense in English; "One Arabic word" makes the
    crude check judge a whole English sentence by that word (0 %) while the careful checker
    still finds it supported."""
    open_lesson(page, app_url, "lang=en&ex=en")
    edits = page.locator("[class*='st-key-fa-edit-'] button")
    expect(edits).to_have_text(["As written", "Plural form", "Wrong number", "Negate a sentence",
                                "One Arabic word", "Paraphrase", "Two claims in one sentence"])
    page.locator(".st-key-fa-edit-arabic_word button").click()
    expect(page.locator(".mz-crude-pct").first).to_have_text("0 %")
    expect(page.locator(CLAIM).first.locator(".mz-verdict")).to_contain_text("Supported")
    expect(page.locator("[data-testid=stAlert]").first).to_contain_text("إجازة")
    assert "e=arabic_word" in page.url


# True once the element's box lies between ``top`` and ``bottom`` of the viewport.
IN_VIEW = """([selector, top, bottom]) => {
    const r = document.querySelector(selector).getBoundingClientRect();
    return r.top >= top && r.bottom <= bottom; }"""


def _box(page: Page, selector: str) -> dict:
    return page.locator(selector).first.bounding_box()


@pytest.mark.parametrize("lang", ["ar", "en"])
@pytest.mark.parametrize(("width", "height"), [(390, 844), (1280, 800)])
def test_the_first_screen_holds_the_answer_and_its_verdicts(browser, app_url, lang, width,
                                                           height):
    """Issue 16: on a phone and on a laptop the first screen holds the core idea (the summary
    above), the score line, the answer box and the first sentence's verdict."""
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        page.goto(f"{app_url}{PATH}?lang={lang}")
        expect(page.locator(CLAIM)).to_have_count(3, timeout=30_000)
        summary = load_content("faithfulness", lang)["summary"].split("**")[1]
        core_idea = page.locator("[data-testid=stMarkdown] .mz-prose p", has_text=summary)
        shown = [core_idea.first, page.locator(STRIP), page.locator(".st-key-fa-answer textarea"),
                 page.locator(f"{CLAIM} .mz-verdict").first]
        if width >= 1280:                  # a laptop also shows the first sentence, highlighted
            shown.append(page.locator(f"{CLAIM} .mz-sentence").first)
        for locator in shown:
            box = locator.bounding_box()
            assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height, (
                locator, box)
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_presenter_view_shows_the_answer_and_its_first_verdict_on_the_first_screen(
        browser, app_url, lang):
    """Issue 16, the projector (1280 x 800, large type): the score line, the answer box and
    the first sentence's verdict are on the first screen (answer and verdicts side by side)."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        page.goto(f"{app_url}{PATH}?lang={lang}&present=1")
        expect(page.locator(CLAIM)).to_have_count(3, timeout=30_000)
        for selector in (STRIP, f"{CLAIM} .mz-verdict"):
            box = _box(page, selector)
            assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 800, (
                selector, box)
        # the answer box: its text (three lines of the example at the projector's size) is in
        # view, if not the box's empty bottom
        box = _box(page, ".st-key-fa-answer textarea")
        assert box is not None and box["y"] >= 0 and box["y"] + 100 <= 800, box
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_the_score_line_stays_in_view_while_editing(browser, app_url, lang):
    """Scrolled down to the last verdict, the controls or the threshold, the score line stays
    inside the viewport, under Streamlit's header; after an edit it shows the change."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        page.goto(f"{app_url}{PATH}?lang={lang}&ex=en")
        expect(page.locator(CLAIM)).to_have_count(3, timeout=30_000)
        for target in (f"{CLAIM} >> nth=2", ".st-key-fa-crude table", ".st-key-fa-edits",
                       "[data-testid=stSlider]"):
            page.locator(target).scroll_into_view_if_needed()
            # the browser may take a few frames under load to lay the sticky line out again
            with contextlib.suppress(PlaywrightTimeout):    # the assertion says where it is
                page.wait_for_function(IN_VIEW, arg=[STRIP, 40, 844], timeout=5_000)
            box = _box(page, STRIP)
            assert box["y"] >= 40 and box["y"] + box["height"] <= 844, (target, box)
        type_answer(page, "You get 30 working days of annual leave a year.")
        expect(page.locator(STRIP)).to_contain_text("0.67 → 0.00")
        box = _box(page, STRIP)
        assert box["y"] >= 0 and box["y"] + box["height"] <= 844
    finally:
        context.close()


def test_a_compound_sentence_shows_its_claims(page, app_url):
    open_lesson(page, app_url, "lang=ar&e=compound")
    first = page.locator(CLAIM).first
    expect(first.locator("li.mz-part")).to_have_count(2)
    expect(first.locator("li.mz-part-decides .mz-part-head")).to_contain_text("1.2")
    expect(first.locator("li.mz-part-decides .mz-decides")).to_be_visible()
