"""Issue 16 in a real Chromium, both languages: every lesson opens on its interactive (the first
control inside the first screen at 390x844 and 1280x800), the metrics strip stays in view while
a row is dragged and shows the change, a row drags by a long press anywhere on it, every button
and link of these pages is a 44 x 44 px target, metric names are in the page's language, the
presenter view keeps formulas at 28 px and lesson 5 on one screen, and an exercise fits a phone
screen and answers a first mistake with a hint, not the solution."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Page, expect

from teaching import exercises as E
from teaching import mistakes
from tests.browser.interact import centre, drop_point, item, press_point

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}
VIEWPORTS = {"phone": PHONE, "laptop": LAPTOP}
LESSONS = {  # path -> what is there once the page has run
    "/two-stages": ".st-key-ts-case",
    "/recall-precision": ".rk-item",
    "/mrr": ".rk-item",
    "/ndcg": ".rk-item",
    "/diagnose": ".st-key-dg-step-1",
}
RANKED = ("/recall-precision", "/mrr", "/ndcg")
ARABIC = re.compile("[\u0600-\u06ff]")
HEADER = "[data-testid=stHeader]"

# Every control of the try-it section, in page order (shadow roots of the ranking editor too).
FIRST_CONTROL_JS = """
() => {
  const section = document.querySelector('.st-key-mz-sec-try_it');
  const sel = 'button, input, [role=slider], [role=radio], [role=checkbox], select, textarea, ' +
              'a[href], .rk-item';
  const out = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.matches(sel)) out.push(el);
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(section);
  const el = out.find((e) => { const r = e.getBoundingClientRect(); return r.width && r.height; });
  const r = el.getBoundingClientRect();
  return {tag: el.tagName, cls: String(el.className), top: r.top, bottom: r.bottom};
}
"""

# Buttons and links in the main area, shadow roots included, that are on screen for a user.
TARGETS_JS = """
() => {
  const out = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) walk(el.shadowRoot);
      // A select box is one target: the box itself, not the unfocusable arrow inside it.
      const select = el.matches('.react-aria-ComboBox > div');
      if (!select && !el.matches('button, a[href], [role=button]')) continue;
      if (!select && el.closest('.react-aria-ComboBox')) continue;
      const r = el.getBoundingClientRect();
      const cs = getComputedStyle(el);
      if (!r.width || !r.height || cs.visibility === 'hidden' || cs.display === 'none') continue;
      if (el.closest('[data-testid=stElementToolbar], .mz-sr, [aria-hidden=true]')) continue;
      let hidden = false;
      for (let p = el; p; p = p.parentElement || (p.getRootNode && p.getRootNode().host)) {
        if (getComputedStyle(p).opacity === '0') { hidden = true; break; }
      }
      if (hidden) continue;
      // WCAG 2.5.8 exempts a link inside a sentence; a link that is a block of its own is not.
      if (el.tagName === 'A' && el.closest('p, li') && !el.closest('.mz-toc')) continue;
      out.push({text: (el.innerText || el.getAttribute('aria-label') || '').trim().slice(0, 40),
                w: Math.round(r.width * 10) / 10, h: Math.round(r.height * 10) / 10});
    }
  };
  walk(document.querySelector('[data-testid=stMain]'));
  return out;
}
"""


@pytest.fixture(scope="module")
def app_url(streamlit_server) -> str:
    return streamlit_server("app.py", **{"runner.postScriptGC": False})


def open_page(browser, url: str, path: str, query: str, viewport: dict, *,
              touch: bool = False, ready: str | None = None):
    context = browser.new_context(viewport=viewport, has_touch=touch, is_mobile=touch)
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(f"{url}{path}?{query}")
    expect(page.locator(ready or LESSONS.get(path, ".mz-title")).first).to_be_visible(
        timeout=60_000)
    expect(page.locator(".mz-title")).to_be_visible(timeout=30_000)
    page.wait_for_function("!document.querySelector('[data-testid=stSkeleton]')")
    return context, page


def box(page: Page, selector: str) -> dict:
    b = page.locator(selector).first.bounding_box()
    assert b is not None, selector
    return b


def plain(text: str) -> str:
    return re.sub("[\u2066-\u2069]", "", text)


def wait_text(locator, needle: str, timeout_s: float = 30) -> None:
    """Wait until ``locator``'s text, without bidi isolates, contains ``needle``."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if needle in plain(locator.inner_text(timeout=2_000)):
                return
        except Exception:               # not there yet
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"{needle!r} not in {locator}")
        time.sleep(0.2)


SETTLED_JS = """
async () => {   // ten frames in a row without the page moving: a fling is over
  const el = document.querySelector('[data-testid=stMain]');
  let last = -1, same = 0;
  while (same < 10) {
    await new Promise((r) => requestAnimationFrame(r));
    if (el.scrollTop === last) same++; else { same = 0; last = el.scrollTop; }
  }
}
"""


def inside(b: dict, page: Page, *, top: float = 0) -> bool:
    vh = page.viewport_size["height"]
    return b["y"] >= top - 1 and b["y"] + b["height"] <= vh + 1


# --- every lesson opens on its interactive -------------------------------------------------------


# One load per page, language and size for everything these checks read (each page load costs
# seconds on a loaded CI machine; the checks below only read the page).
@pytest.mark.parametrize("size", VIEWPORTS)
@pytest.mark.parametrize("lang", ["ar", "en"])
@pytest.mark.parametrize("path", [*LESSONS, "/", "/practice"])
def test_the_first_screen_44px_targets_and_metric_cards(browser, app_url, path, lang, size):
    ready = {"/": "[data-testid=stMain] [data-testid=stPageLink-NavLink]",
             "/practice": ".st-key-px-box"}.get(path)
    context, page = open_page(browser, app_url, path, f"lang={lang}", VIEWPORTS[size],
                              touch=size == "phone", ready=ready)
    try:
        vh = VIEWPORTS[size]["height"]
        if path in LESSONS:
            # a lesson opens on its interactive: the first control is on the first screen
            first = page.evaluate(FIRST_CONTROL_JS)
            assert first["top"] >= 0 and first["bottom"] <= vh, (path, first)
            if path in RANKED:      # the ranking and its numbers: the live part, at once
                assert inside(box(page, ".mz-strip"), page)
                assert box(page, ".rk-item")["y"] < vh - 40
                # the metric cards name each measure in the page's language; on a phone
                # every document id keeps its line and every symbol its card
                metric_names_in_the_page_language(page, lang)
                if size == "phone":
                    ids_keep_their_line_and_symbols_their_card(page)
            # the explanation follows, reachable by the section chips
            chips = page.locator(".mz-toc a")
            assert chips.count() >= 5
            expect(chips.first).to_have_attribute("href", "#mz-try-it")
        elif path == "/" and size == "phone":
            # home: the first phone screen holds lesson links
            links = page.locator("[data-testid=stMain] [data-testid=stPageLink-NavLink]")
            on_screen = [i for i in range(links.count())
                         if inside(links.nth(i).bounding_box(), page)]
            assert len(on_screen) >= 2, "the first phone screen holds lesson links"
        # a page link in the text wraps: none is cut off (Streamlit keeps labels on one line)
        clipped = page.evaluate("""() => [...document.querySelectorAll('[data-testid=stMain]'
            + ' [data-testid=stPageLink-NavLink] [data-testid=stMarkdownContainer]')]
            .filter((e) => e.scrollWidth > e.clientWidth + 1)
            .map((e) => e.innerText.slice(0, 60))""")
        assert clipped == [], clipped
        # every button and link is a 44 px target (WCAG 2.5.5 AAA, our rule)
        targets = page.evaluate(TARGETS_JS)
        assert len(targets) > 5
        small = [t for t in targets if t["w"] < 44 or t["h"] < 44]
        assert not small, small
    finally:
        context.close()


# --- the metrics strip ---------------------------------------------------------------------------


@pytest.mark.parametrize("size", VIEWPORTS)
@pytest.mark.parametrize(("path", "lang", "src", "dst", "key"), [
    ("/recall-precision", "ar", "d1", "d7", "rr"),
    ("/recall-precision", "en", "d4", "d7", "rr"),
    ("/ndcg", "ar", "d5", "d3", "ndcg"),
    ("/mrr", "en", "d7", "d5", "q5.rr"),      # hybrid's q5: its relevant d7 to the top
])
def test_the_strip_stays_in_view_while_dragging_and_shows_the_change(
        browser, app_url, path, lang, src, dst, key, size):
    query = f"lang={lang}" + ("&q=q5" if path == "/mrr" else "")
    context, page = open_page(browser, app_url, path, query, VIEWPORTS[size])
    try:
        strip = page.locator(".mz-strip")
        cells = strip.locator(f'.mz-metric[data-key="{key}"]')
        cell = cells.last                       # lesson 3: hybrid's row, the second
        before = cell.locator(".mz-metric-value").inner_text()
        header = box(page, HEADER)
        rows = page.locator(".rk-item") if path != "/mrr" else page.locator(
            ".st-key-mrr-col-hybrid .rk-item")
        source = rows.filter(has=page.locator(f'.rk-id:text-is("{src}")')).first
        # the row in the middle of the screen: the page is scrolled down, the strip stuck on top
        x0, y0 = press_point(page, source.locator(".rk-handle"))
        target = rows.filter(has=page.locator(f'.rk-id:text-is("{dst}")')).first
        page.mouse.move(x0, y0)
        page.mouse.down()
        page.mouse.move(x0, y0 - 3)
        _, y1 = centre(target)
        page.mouse.move(x0, y1 - 6, steps=8)
        # mid-drag: the numbers are on screen, clear of Streamlit's header
        assert inside(strip.bounding_box(), page, top=header["y"] + header["height"])
        page.mouse.up()
        expect(cell.locator(".mz-metric-value")).not_to_have_text(before)
        after = cell.locator(".mz-metric-value").inner_text()
        expect(cell).to_have_class(re.compile("mz-changed"))
        change = cell.locator(".mz-metric-change").inner_text()
        assert re.sub("[\u2066-\u2069]", "", change).strip() == f"{before} → {after}"
        assert inside(strip.bounding_box(), page, top=header["y"] + header["height"])
    finally:
        context.close()


def test_an_unchanged_number_is_not_marked_and_reduced_motion_does_not_animate(browser,
                                                                               app_url):
    context = browser.new_context(viewport=LAPTOP, reduced_motion="reduce")
    page = context.new_page()
    try:
        page.goto(f"{app_url}/recall-precision?lang=en")
        expect(page.locator(".rk-item")).to_have_count(5, timeout=60_000)
        item(page, "d2").focus()
        page.keyboard.press("Alt+ArrowDown")       # d2 from rank 2 to 3: RR 0.50 -> 0.33
        rr = page.locator('.mz-strip .mz-metric[data-key="rr"]')
        expect(rr.locator(".mz-metric-value")).to_have_text("0.33")
        expect(rr).to_have_class(re.compile("mz-changed"))
        assert rr.evaluate("e => getComputedStyle(e).animationName") == "none"
        assert rr.evaluate("e => getComputedStyle(e).outlineStyle") == "solid"
        recall = page.locator('.mz-strip .mz-metric[data-key="recall"]')
        expect(recall).not_to_have_class(re.compile("mz-changed"))   # still 0.50
        assert recall.locator(".mz-metric-change").inner_text().strip() == ""
    finally:
        context.close()


def metric_names_in_the_page_language(page: Page, lang: str) -> None:
    names = page.locator(".mz-strip .mz-metric-name").all_inner_texts()
    symbols = page.locator(".mz-strip .mz-metric-symbol").all_inner_texts()
    assert names and len(names) == len(symbols)
    for name, symbol in zip(names, symbols, strict=True):
        assert bool(ARABIC.search(name)) == (lang == "ar"), name
        assert not ARABIC.search(symbol) and re.match(r"[A-Za-z]", symbol), symbol
    if lang == "ar":       # every metric card of the page, not only the strip's
        for label in page.locator(".mz-metric-label").all_inner_texts():
            assert ARABIC.search(label), label


# Every document id of the ranking editors on one line; every symbol of the strip inside its card.
FIT_JS = """
() => {
  const ids = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) walk(el.shadowRoot);
      if (!el.matches('.rk-id')) continue;
      ids.push({text: el.textContent, h: el.getBoundingClientRect().height});
    }
  };
  walk(document);
  const out = [...document.querySelectorAll('.mz-strip .mz-metric-symbol')].map((e) => {
    const cell = e.closest('.mz-metric, .mz-strip-name, .mz-strip-head > *') || e.parentElement;
    const r = e.getBoundingClientRect(), c = cell.getBoundingClientRect();
    return {text: e.textContent, inside: r.left >= c.left - 1 && r.right <= c.right + 1};
  });
  return {ids, symbols: out};
}
"""


def ids_keep_their_line_and_symbols_their_card(page: Page) -> None:
    fit = page.evaluate(FIT_JS)
    line = min(i["h"] for i in fit["ids"])
    assert fit["ids"] and all(i["h"] < 1.5 * line for i in fit["ids"]), fit["ids"]
    assert fit["symbols"] and all(s["inside"] for s in fit["symbols"]), fit["symbols"]


# --- touch ---------------------------------------------------------------------------------------


def touch(page: Page, points: list[tuple[float, float]], *, hold_ms: int = 0) -> None:
    """touchStart at the first point, wait ``hold_ms``, move through the rest, touchEnd."""
    cdp = page.context.new_cdp_session(page)
    try:
        x, y = points[0]
        cdp.send("Input.dispatchTouchEvent",
                 {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
        if hold_ms:
            time.sleep(hold_ms / 1000)   # a finger held still: no event to wait for
            # a loaded renderer runs the long-press timer late: move only once the drag began
            page.wait_for_selector(".rk-item.rk-drag", timeout=15_000)
        for x, y in points[1:]:
            cdp.send("Input.dispatchTouchEvent",
                     {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    finally:
        cdp.detach()


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_a_long_press_on_the_row_drags_it_and_a_swipe_scrolls(browser, app_url, lang):
    context, page = open_page(browser, app_url, "/recall-precision", f"lang={lang}", PHONE,
                              touch=True)
    try:
        order = ".rk-item .rk-id"
        # a quick swipe on a row's body scrolls the page and leaves the order alone
        body = item(page, "d9").locator(".rk-main")
        body.scroll_into_view_if_needed()
        scroller = "document.querySelector('[data-testid=stMain]').scrollTop"
        before = page.evaluate(scroller)
        x, y = centre(body)
        touch(page, [(x, y)] + [(x, y - 30 * i) for i in range(1, 6)])
        page.wait_for_function(f"{scroller} > {before}")
        page.evaluate(SETTLED_JS)
        expect(page.locator(order)).to_have_text(["d7", "d2", "d9", "d4", "d1"])
        # a press held still, then a move: the row follows the finger (no handle needed)
        x0, y0 = press_point(page, item(page, "d4").locator(".rk-main"))
        _, y1 = drop_point(page, "d4", "d7")
        steps = [(x0, y0 + (y1 - y0) * i / 10) for i in range(11)]
        touch(page, steps, hold_ms=500)
        expect(page.locator(order)).to_have_text(["d4", "d7", "d2", "d9", "d1"])
        expect(page.locator('.mz-strip .mz-metric[data-key="rr"] .mz-metric-value')) \
            .to_have_text("1.00")
        # the handle is there to see on a touch screen
        grip = item(page, "d4").locator(".rk-grip")
        assert grip.evaluate("e => parseFloat(getComputedStyle(e).opacity)") >= 0.7
        assert grip.bounding_box()["height"] >= 20
    finally:
        context.close()


# --- 44 px targets -------------------------------------------------------------------------------


# --- presenter view ------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["ar", "en"])
@pytest.mark.parametrize("path", RANKED)
def test_presenter_view_formulas_chips_and_top_buttons(browser, app_url, path, lang):
    context, page = open_page(browser, app_url, path, f"lang={lang}&present=1", LAPTOP)
    try:
        sizes = page.locator(".mz-formula code, .mz-metric-formula, .katex") \
            .evaluate_all("els => els.map(e => parseFloat(getComputedStyle(e).fontSize))")
        assert sizes and min(sizes) >= 28, sizes
        assert page.locator(".mz-toc a").count() >= 5            # section chips, presenting too
        chart_text = page.locator("[data-testid=stVegaLiteChart] svg text")
        expect(chart_text.first).to_be_attached()
        drawn = chart_text.evaluate_all(
            "els => els.filter(e => e.textContent.trim())"
            "          .map(e => [parseFloat(getComputedStyle(e).fontSize), e.textContent])")
        assert min(size for size, _ in drawn) >= 20, drawn          # labels, titles, legends
        assert not [text for _, text in drawn if "…" in text], "legends whole"
        for button in page.locator(".st-key-mz-presenter-bar button").all():
            b = button.bounding_box()
            assert b["y"] >= 0
            hit = page.evaluate("([x, y]) => document.elementFromPoint(x, y).closest('button')"
                                "?.innerText", [b["x"] + b["width"] / 2, b["y"] + b["height"] / 2])
            assert hit and hit.strip() == button.inner_text().strip(), "nothing covers it"
    finally:
        context.close()


@pytest.mark.parametrize("present", ["0", "1"])
def test_the_chart_toolbar_leaves_an_arabic_title_uncovered(browser, app_url, present):
    context, page = open_page(browser, app_url, "/ndcg", f"lang=ar&present={present}", LAPTOP)
    try:
        chart = page.locator("[data-testid=stElementContainer]"
                             ":has([data-testid=stVegaLiteChart])").first
        chart.scroll_into_view_if_needed()
        page.mouse.wheel(0, -200)
        chart.hover()
        toolbar = chart.locator("[data-testid=stElementToolbar]")
        title = chart.locator("xpath=preceding-sibling::*[1]//p").first   # "ما تُبقيه كل مرتبة"
        expect(title).to_have_text(ARABIC)
        page.wait_for_timeout(300)  # the hover's toolbar, if any, has appeared
        if not toolbar.is_visible():
            return  # charts have no toolbar at all (base.css): nothing can cover the title
        t, h = toolbar.bounding_box(), title.evaluate(
            "e => { const r = document.createRange(); r.selectNodeContents(e);"
            "       const b = r.getBoundingClientRect();"
            "       return {x: b.x, y: b.y, width: b.width, height: b.height}; }")
        apart = (t["x"] + t["width"] <= h["x"] or h["x"] + h["width"] <= t["x"]
                 or t["y"] + t["height"] <= h["y"] or h["y"] + h["height"] <= t["y"])
        assert apart, (t, h)
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_presenter_lesson_5_list_switches_and_numbers_fit_one_screen(browser, app_url, lang):
    context, page = open_page(browser, app_url, "/ndcg", f"lang={lang}&present=1", LAPTOP)
    try:
        page.evaluate("document.querySelector('#mz-try-it').scrollIntoView()")
        page.wait_for_timeout(300)
        assert inside(box(page, ".mz-strip"), page)
        rows = page.locator(".rk-item")
        for i in range(rows.count()):
            assert inside(rows.nth(i).bounding_box(), page), f"row {i + 1}"
        for radio in page.locator("[data-testid=stRadio]").all()[:2]:   # gain, ideal
            assert inside(radio.bounding_box(), page)
    finally:
        context.close()


def test_the_ideal_switch_says_what_it_changes_and_offers_a_judged_document(browser, app_url):
    context, page = open_page(browser, app_url, "/ndcg", "lang=en", LAPTOP)
    try:
        note = page.locator(".st-key-nd-ideal-same")
        expect(note).to_contain_text("The two choices agree for now")
        nd = page.locator('.mz-strip .mz-metric[data-key="ndcg"] .mz-metric-value')
        expect(nd).to_have_text("0.9724")
        note.get_by_role("button", name=re.compile("Add the missed exact answer")).click()
        expect(note).to_have_count(0)
        page.get_by_text("all judged documents", exact=True).click()
        expect(nd).to_have_text("0.8047")
        expect(page.locator('.mz-strip .mz-metric[data-key="ndcg"] .mz-metric-change')) \
            .to_contain_text("0.9724 → 0.8047")
    finally:
        context.close()


# --- the exercise panel --------------------------------------------------------------------------


def exercise_seed() -> int:
    return next(s for s in range(300) if "precision_divided_by_R" in
                E.mistake_values(E.generate("precision", s)))


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_an_exercise_fits_a_phone_screen_and_answers_in_two_steps(browser, app_url, lang):
    seed = exercise_seed()
    ex = E.generate("precision", seed, lang=lang)
    context, page = open_page(browser, app_url, "/recall-precision",
                              f"lang={lang}&exm=precision&ex={seed}", PHONE, touch=True)
    try:
        base = f"recall_precision-ex-compute-precision-{seed}"
        panel = page.locator(f'[class*="st-key-mz-ex-{base}"]')
        panel.locator("table").scroll_into_view_if_needed()
        page.evaluate("document.querySelector('#mz-exercise').scrollIntoView()")
        page.wait_for_timeout(300)
        top = box(page, "#mz-exercise")["y"]
        form = panel.locator("[data-testid=stForm]")
        bottom = form.bounding_box()["y"] + form.bounding_box()["height"]
        header = box(page, HEADER)
        assert bottom - top <= PHONE["height"] - header["height"], \
            "heading, measure, table, question and answer box on one phone screen"

        wrong = next(iter(E.mistake_values(ex)["precision_divided_by_R"]))
        slip = mistakes.text("precision_divided_by_R", "misconception", lang)
        full = E.feedback(ex, E.check(ex, f"{wrong:.4f}"), lang)
        box_ = form.locator("input")
        box_.fill(f"{wrong:.4f}")
        box_.press("Enter")
        alert = panel.locator("[data-testid=stAlert]").first
        wait_text(alert, plain(slip)[:30])
        assert plain(full)[:30] not in plain(alert.inner_text())
        box_.fill(f"{wrong:.4f}")
        box_.press("Enter")
        wait_text(alert, plain(full)[:30])
        steps = E.texts(lang)["labels"]["steps"]
        expect(panel.get_by_text(steps)).to_be_visible()
    finally:
        context.close()
