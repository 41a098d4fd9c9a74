"""Lesson 4 in a real Chromium: editing an answer sentence changes its verdict; highlighted
words line up with the words in right-to-left text; typed markup stays text."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

PATH = "/faithfulness"
CLAIM = ".mz-claim"


@pytest.fixture(scope="module")
def app_url(streamlit_server) -> str:
    return streamlit_server("app.py", **{"runner.postScriptGC": False})


def open_lesson(page: Page, url: str, query: str) -> Page:
    page.goto(f"{url}{PATH}?{query}")
    expect(page.locator(CLAIM)).to_have_count(3, timeout=30_000)
    return page


def answer_box(page: Page):
    return page.locator("[data-testid=stTextArea] textarea").nth(1)


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


def test_highlighted_words_align_in_rtl(page, app_url):
    open_lesson(page, app_url, "lang=ar")
    sentence = page.locator(".mz-sentence").first
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
    expect(page.locator(".mz-sentence").first).to_contain_text("<img src=x onerror=alert(1)>")
    assert page.locator(".mz-sentence img").count() == 0 and not fired


def test_english_example_has_its_own_edits(page, app_url):
    """The English example offers edits that make sense in English; "One Arabic word" makes the
    crude check judge a whole English sentence by that word (0 %) while the careful checker
    still finds it supported."""
    open_lesson(page, app_url, "lang=en&ex=en")
    edits = page.locator("[class*='st-key-fa-edit-'] button")
    expect(edits).to_have_text(["Original", "Plural form", "Wrong number", "Negate a sentence",
                                "One Arabic word"])
    page.locator(".st-key-fa-edit-arabic_word button").click()
    expect(page.locator(".mz-crude-pct").first).to_have_text("0 %")
    expect(page.locator(CLAIM).first.locator(".mz-verdict")).to_contain_text("Supported")
    expect(page.locator("[data-testid=stAlert]").first).to_contain_text("إجازة")
    assert "e=arabic_word" in page.url
