"""Accessibility in Chromium (issue #18): axe-core on every page in Arabic and English at a
laptop's and a phone's width, Chromium's accessibility tree (document language, direction,
title, no English-only names on Arabic pages), and lesson 2 driven by the keyboard alone.

One test per page and language (four axe runs at most per test: two widths, the page loaded
once per width), so ``pytest -n 2`` spreads the 22 of them over both workers. The audit
itself is ``tests/browser/a11y.py`` (also a command that prints every violation).
"""

from __future__ import annotations

import io
import re

import pytest
from PIL import Image
from playwright.sync_api import expect

from runtime import catalog
from runtime.shell import document_title
from tests.browser import a11y

pytestmark = pytest.mark.browser

ENTRIES = {"": catalog.HOME, **{entry.url_path: entry for entry in catalog.available()}}


@pytest.fixture(scope="module")
def app_url(streamlit_server) -> str:
    return streamlit_server("app.py", **{"runner.postScriptGC": False})


def summary(violations: list[dict]) -> str:
    return "\n".join(
        f"{v['impact']} {v['id']} ({v['help']}): "
        + "; ".join(f"{n['target']} {n['summary'][:160]}" for n in v["nodes"][:4])
        for v in violations
    )


@pytest.mark.parametrize("lang", a11y.LANGS)
@pytest.mark.parametrize("path", a11y.PAGES, ids=lambda p: p or "home")
def test_page_has_no_serious_violations_and_speaks_its_language(page, app_url, path, lang):
    for width in a11y.WIDTHS:
        found = a11y.audit(page, app_url, path, lang, width, load=width == a11y.WIDTHS[0])
        serious = [v for v in found if v["impact"] in a11y.SERIOUS]
        assert not serious, f"/{path} {lang} {width}px:\n{summary(serious)}"
        if width != a11y.WIDTHS[0]:
            continue
        # the document (not only our containers) is in the page's language and direction,
        # and the tab says which page this is, in that language
        assert a11y.document_language(page) == {
            "lang": lang, "dir": "rtl" if lang == "ar" else "ltr",
            "title": document_title(ENTRIES[path], lang)}
        if lang == "ar":
            # every expander open: no control, landmark or image is named in English alone
            assert a11y.english_names(page) == [], f"/{path}"


# --- lesson 2 by keyboard alone, in Arabic ---------------------------------------------------

LESSON = "/recall-precision?lang=ar"
ACTIVE_JS = """() => { let e = document.activeElement;
  while (e && e.shadowRoot && e.shadowRoot.activeElement) e = e.shadowRoot.activeElement;
  if (!e) return null;
  const range = e.matches('input[type=range]');  // Streamlit's slider: a native range input
  return {cls: String(e.className || ''), role: range ? 'slider' : e.getAttribute('role') || '',
          id: (e.closest && e.closest('.rk-item')) ? e.closest('.rk-item').dataset.id : '',
          pressed: e.getAttribute('aria-pressed'),
          now: range ? e.value : e.getAttribute('aria-valuenow')}; }"""


def formula(page, label: str):
    return page.locator("[data-testid=stMainBlockContainer] code", has_text=f"{label} =")


def tab_to(page, wanted, limit: int = 250) -> dict:
    """Press Tab until ``wanted(active)`` holds (:data:`ACTIVE_JS`); each stop's focus
    indicator must pass :func:`a11y.focus_problem`."""
    seen = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        info = page.evaluate(a11y.FOCUS_JS)
        if info is None:  # past the document's last stop the focus leaves the page once
            continue
        active = page.evaluate(ACTIVE_JS)
        seen.append(active)
        assert a11y.focus_problem(info) is None, f"{active}: {a11y.focus_problem(info)}"
        if wanted(active):
            return active
    raise AssertionError(f"the keyboard never reached it; its last stops: {seen[-12:]}")


def test_lesson_two_by_keyboard_alone_in_arabic(page, app_url):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(app_url + LESSON)
    expect(page.locator(".rk-item")).to_have_count(5, timeout=30_000)
    a11y.settle(page, "ar")

    # every Tab stop of the page shows a ring of 3:1 or more, on screen and uncovered
    stops = a11y.tab_walk(page)
    assert len(stops) > 10
    assert [s for s in stops if s["problem"]] == []

    # reach the editor from the top of the page; move d2 up: the first relevant is now first
    page.evaluate("document.activeElement && document.activeElement.blur()")
    tab_to(page, lambda a: "rk-item" in a["cls"])
    page.keyboard.press("ArrowDown")  # plain arrows move between rows: d7 -> d2
    assert page.evaluate(ACTIVE_JS)["id"] == "d2"
    page.keyboard.press("Alt+ArrowUp")
    expect(formula(page, "RR@3")).to_have_text("RR@3 = 1 / 1 = 1.00")
    # Python has applied the move (the URL follows) before the next key
    expect(page).to_have_url(re.compile(r"r=d2\.1-d7\.0-d9\.0-d4\.1-d1\.0"))

    # its relevance toggle, by Tab and Space: d9 (now third) becomes relevant
    toggle = tab_to(page, lambda a: "rk-toggle" in a["cls"] and a["id"] == "d9")
    assert toggle["pressed"] == "false"
    page.keyboard.press("Space")
    expect(formula(page, "recall@3")).to_have_text("recall@3 = 2 / 3 = 0.67")
    expect(page).to_have_url(re.compile(r"r=d2\.1-d7\.0-d9\.1-d4\.1-d1\.0"))

    # the k slider: five steps with the key held (auto-repeat), none lost, focus kept. In
    # Arabic the slider runs right to left (larger k to the left), so ArrowLeft raises k.
    slider = tab_to(page, lambda a: a["role"] == "slider")
    start = int(slider["now"])
    # named once by its label (Streamlit's markup named it twice over)
    thumb = page.locator("[data-testid=stSlider] input[type=range]")
    label = page.locator("[data-testid=stSlider] [data-testid=stWidgetLabel]").inner_text()
    expect(thumb).to_have_accessible_name(label.strip())
    for _ in range(5):
        page.keyboard.down("ArrowLeft")
        page.wait_for_timeout(35)  # a typical key-repeat interval
    page.keyboard.up("ArrowLeft")
    expect(thumb).to_have_value(str(start + 5))
    expect(formula(page, f"recall@{start + 5}")).to_be_visible()
    page.wait_for_timeout(1000)  # the reruns of the steps have all come back
    active = page.evaluate(ACTIVE_JS)
    assert active["role"] == "slider" and active["now"] == str(start + 5)
    assert a11y.focus_problem(page.evaluate(a11y.FOCUS_JS)) is None


# --- the shell on a phone and the slider in Arabic (issue #16's shell items) -----------------

BOX_JS = """(sel) => { const e = document.querySelector(sel); if (!e) return null;
  const r = e.getBoundingClientRect(); return {x: r.left, y: r.top, w: r.width, h: r.height}; }"""
SIDEBAR = "[data-testid=stSidebar]"


def sidebar_shown(page) -> bool:
    box = page.evaluate(BOX_JS, SIDEBAR)
    return bool(box) and box["x"] < 390 - 1 and box["x"] + box["w"] > 1


@pytest.mark.parametrize("lang", a11y.LANGS)
def test_phone_sidebar_opens_from_its_side_closes_after_a_choice_and_targets_are_44px(
        browser, app_url, lang):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                  has_touch=True)
    page = context.new_page()
    try:
        page.goto(f"{app_url}/?lang={lang}")
        a11y.settle(page, lang)
        assert not sidebar_shown(page)  # a phone opens on the page, not the menu
        opener = page.locator("[data-testid=stExpandSidebarButton]")
        box = opener.bounding_box()
        assert box["width"] >= 44 and box["height"] >= 44
        opener.click()
        page.wait_for_function(
            "(sel) => { const r = document.querySelector(sel).getBoundingClientRect();"
            " return r.left >= -1 && r.right <= innerWidth + 1; }", arg=SIDEBAR)
        page.wait_for_timeout(400)  # the slide-in transition
        sidebar = page.evaluate(BOX_JS, SIDEBAR)
        # Arabic: it hangs on the right edge (the start side); English: the left
        if lang == "ar":
            assert abs(sidebar["x"] + sidebar["w"] - 390) <= 1
        else:
            assert abs(sidebar["x"]) <= 1
        links = page.locator("[data-testid=stSidebar] [data-testid=stPageLink-NavLink]")
        sizes = links.evaluate_all(
            "els => els.map(e => [e.getBoundingClientRect().width,"
            " e.getBoundingClientRect().height])")
        assert sizes and all(w >= 44 and h >= 44 for w, h in sizes), sizes
        links.nth(2).click()  # a lesson: the page changes and the sidebar gets out of the way
        page.wait_for_url(re.compile(rf"/{catalog.available()[1].url_path}\b"))
        page.wait_for_function("(sel) => document.querySelector(sel)"
                               ".getBoundingClientRect().right <= 1 || document.querySelector(sel)"
                               ".getBoundingClientRect().left >= innerWidth - 1", arg=SIDEBAR)
        assert not sidebar_shown(page)
    finally:
        context.close()


def test_arabic_slider_fills_from_the_right_edge_to_the_thumb(page, app_url):
    """What the learner sees (pixels): the theme colour between the thumb and the right edge
    (the minimum), the grey rail on the thumb's left (issue #16)."""
    page.goto(app_url + LESSON)
    a11y.settle(page, "ar")
    slider = page.locator("[data-testid=stSlider]")
    slider.scroll_into_view_if_needed()
    geometry = slider.evaluate("""(slider) => {
      const thumb = slider.querySelector('input[type=range]').parentElement
        .getBoundingClientRect();
      const rail = [...slider.querySelectorAll('div')].find(d => {
        const r = d.getBoundingClientRect();
        return r.height > 0 && r.height <= 8 && r.width > 100;
      }).getBoundingClientRect();
      return {thumb: thumb.left + thumb.width / 2, half: thumb.width / 2,
              y: rail.top + rail.height / 2, left: rail.left, right: rail.right};
    }""")
    shot = Image.open(io.BytesIO(page.screenshot())).convert("RGB")
    scale = shot.width / page.viewport_size["width"]

    def colour(x: float) -> tuple[int, int, int]:
        return shot.getpixel((round(x * scale), round(geometry["y"] * scale)))

    gap = geometry["half"] + 6
    theme = (31, 111, 92)
    right_of_thumb = colour(min(geometry["thumb"] + gap, geometry["right"] - 2))
    left_of_thumb = colour(geometry["thumb"] - gap)
    assert geometry["thumb"] > (geometry["left"] + geometry["right"]) / 2  # k = 3 of 20: right
    assert max(abs(a - b) for a, b in zip(right_of_thumb, theme, strict=True)) <= 12
    assert max(abs(a - b) for a, b in zip(left_of_thumb, theme, strict=True)) > 60
