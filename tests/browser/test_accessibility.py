"""Accessibility in Chromium (issue #18): axe-core on every page in Arabic and English at a
laptop's and a phone's width, Chromium's accessibility tree (document language, direction,
title, no English-only names on Arabic pages), and lesson 2 driven by the keyboard alone.

One test per page and language (four axe runs at most per test: two widths, the page loaded
once per width), so ``pytest -n 2`` spreads the 22 of them over both workers. The audit
itself is ``tests/browser/a11y.py`` (also a command that prints every violation).
"""

from __future__ import annotations

import re

import pytest
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
        found = a11y.audit(page, app_url, path, lang, width)
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
    expect(formula(page, "RR")).to_have_text("RR = 1 / 1 = 1.00")
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
    for _ in range(5):
        page.keyboard.down("ArrowLeft")
        page.wait_for_timeout(35)  # a typical key-repeat interval
    page.keyboard.up("ArrowLeft")
    expect(page.locator("[data-testid=stSlider] input[type=range]")).to_have_value(str(start + 5))
    expect(formula(page, f"recall@{start + 5}")).to_be_visible()
    page.wait_for_timeout(1000)  # the reruns of the steps have all come back
    active = page.evaluate(ACTIVE_JS)
    assert active["role"] == "slider" and active["now"] == str(start + 5)
    assert a11y.focus_problem(page.evaluate(a11y.FOCUS_JS)) is None
