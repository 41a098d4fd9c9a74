"""The shell in a real browser: `streamlit run app.py` + Debian's headless Chromium.

Checks what AppTest cannot see: computed direction and alignment, the visual order of a
formula inside Arabic text, where the font comes from, every request the page makes,
the language switch through the real URL, the presenter view, and that markup in a URL
parameter runs nothing. Screenshots go to tests/screenshots/out/ (git-ignored).
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from playwright.sync_api import expect

from tests.browser.interact import open_expander

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "tests" / "screenshots" / "out"
MAIN_PROSE = "[data-testid=stMainBlockContainer] .mz-prose"


@pytest.fixture(scope="module")
def app_url(shell_app_url) -> str:
    return shell_app_url


@pytest.fixture
def requests_seen(page):
    """Every URL the page requests, for the no-network check."""
    seen: list[str] = []
    page.on("request", lambda req: seen.append(req.url))
    return seen


def open_page(page, url: str, *, lang: str = "ar") -> None:
    page.goto(url)
    page.wait_for_selector(f'{MAIN_PROSE}[lang="{lang}"]')
    page.wait_for_function(
        "!document.querySelector('[data-testid=stSkeleton], [data-testid=stAppSkeleton]')"
        " && document.fonts.status === 'loaded'"
    )


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def test_arabic_page_is_rtl_right_aligned_with_local_font(page, app_url, requests_seen):
    open_page(page, app_url + "/")
    info = page.evaluate(
        """() => {
          const p = document.querySelector('[data-testid=stMainBlockContainer] .mz-prose p');
          const box = p.closest('.mz-prose');
          const cs = getComputedStyle(p);
          const range = document.createRange();
          range.selectNodeContents(p);
          const rects = [...range.getClientRects()];
          const textRight = Math.max(...rects.map(r => r.right));
          return {
            dir: box.getAttribute('dir'), lang: box.getAttribute('lang'),
            direction: cs.direction, align: cs.textAlign,
            gapRight: box.getBoundingClientRect().right - textRight,
            mainDirection: getComputedStyle(
              document.querySelector('[data-testid=stMain]')).direction,
            fonts: [...document.fonts].filter(f => f.status === 'loaded').map(f => f.family),
          };
        }"""
    )
    assert info["dir"] == "rtl" and info["lang"] == "ar"
    assert info["direction"] == "rtl" and info["align"] in {"start", "right"}
    assert info["gapRight"] < 4, "the first line of Arabic text starts at the right edge"
    assert info["mainDirection"] == "rtl"
    assert "Mizan Arabic" in info["fonts"]
    font_requests = [u for u in requests_seen if u.endswith(".woff2") and "Naskh" in u]
    assert font_requests, "the Arabic font was requested"
    assert all(urlsplit(u).hostname in {"127.0.0.1", "localhost"} for u in font_requests)
    assert all("/app/static/fonts/" in u for u in font_requests)
    shot(page, "home-ar-1280")


def test_no_request_leaves_the_machine(page, app_url, requests_seen):
    for path in ("/", "/?lang=en", "/fixture?present=1", "/fixture"):
        open_page(page, app_url + path, lang="en" if "lang=en" in path else "ar")
    page.locator("[data-testid=stSidebar] [data-testid=stExpander] summary").first.click()
    page.wait_for_selector(".mz-qr svg")
    outside = [
        u
        for u in requests_seen
        if not u.startswith(("data:", "blob:"))
        and urlsplit(u).hostname not in {"127.0.0.1", "localhost"}
    ]
    assert outside == []


def test_formula_inside_arabic_is_not_reversed(page, app_url):
    open_page(page, app_url + "/fixture")

    def order(needle: str) -> list[float]:
        """x positions of the first and last character of ``needle`` as drawn."""
        return page.evaluate(
            """(needle) => {
              const walker = document.createTreeWalker(
                document.querySelector('[data-testid=stMainBlockContainer]'), NodeFilter.SHOW_TEXT);
              let node;
              while ((node = walker.nextNode())) {
                const i = node.data.indexOf(needle);
                if (i < 0) continue;
                const x = (k) => { const r = document.createRange();
                  r.setStart(node, k); r.setEnd(node, k + 1);
                  return r.getBoundingClientRect().left; };
                return [x(i), x(i + needle.length - 1)];
              }
              return null;
            }""",
            needle,
        )

    for formula in ("recall@3 = 1 / 2 = 0.5", "1/log2(3) ≈ 0.63", "{d2, d4}", "RR = 1/2 = 0.5"):
        first, last = order(formula)
        assert first < last, f"{formula!r} is drawn reversed"
    # the metric card's number and formula are LTR islands
    value_dir = page.evaluate(
        "getComputedStyle(document.querySelector('.mz-metric-value bdi')).direction"
    )
    assert value_dir == "ltr"


def test_english_page_is_ltr(page, app_url):
    open_page(page, app_url + "/?lang=en", lang="en")
    info = page.evaluate(
        """() => {
          const p = document.querySelector('[data-testid=stMainBlockContainer] .mz-prose p');
          const box = p.closest('.mz-prose'); const cs = getComputedStyle(p);
          const main = document.querySelector('[data-testid=stMain]');
          return {dir: box.getAttribute('dir'), direction: cs.direction, align: cs.textAlign,
                  main: getComputedStyle(main).direction};
        }"""
    )
    assert info == {"dir": "ltr", "direction": "ltr", "align": info["align"], "main": "ltr"}
    assert info["align"] in {"start", "left"}
    shot(page, "home-en-1280")


def test_language_switch_keeps_page_and_url_state(page, app_url):
    open_page(page, app_url + "/fixture?k=4")
    page.locator(
        "[data-testid=stSidebar] [data-testid=stButtonGroup] button", has_text="English"
    ).click()
    page.wait_for_selector(f'{MAIN_PROSE}[lang="en"]')
    page.wait_for_function("new URLSearchParams(location.search).get('lang') === 'en'")
    url = urlsplit(page.url)
    assert url.path == "/fixture"
    assert parse_qs(url.query).get("k") == ["4"]
    assert page.get_by_text("Test page: recall@k").is_visible()
    assert page.locator("[data-testid=stSliderThumbValue]").first.inner_text() == "4"
    # and back: switching to Arabic keeps the same page
    page.locator(
        "[data-testid=stSidebar] [data-testid=stButtonGroup] button", has_text="العربية"
    ).click()
    page.wait_for_selector(f'{MAIN_PROSE}[lang="ar"]')
    assert urlsplit(page.url).path == "/fixture"


def test_the_presenter_button_stays_inside_the_sidebar_column(page, app_url):
    """A button with a help tooltip sits in the same wrapper as a help icon: the icon's larger
    hit area (base.css) once grew it 14 px past the sidebar's column on every side."""
    open_page(page, app_url + "/fixture")
    button = page.locator("[data-testid=stSidebar]").get_by_role("button", name="وضع العرض")
    left, right, col_left, col_right, height = button.evaluate(
        "b => { const r = b.getBoundingClientRect(), c = b.closest("
        "'[data-testid=stElementContainer]').getBoundingClientRect();"
        " return [r.left, r.right, c.left, c.right, r.height]; }")
    assert col_left - 0.5 <= left and right <= col_right + 0.5, (left, right, col_left, col_right)
    assert height >= 44


def test_presenter_view_hides_sidebar_and_enlarges_type(page, app_url):
    open_page(page, app_url + "/fixture?present=1")
    page.wait_for_selector(".st-key-mz-presenter-bar")
    assert (
        page.locator("[data-testid=stSidebar]").count() == 0
        or not page.locator("[data-testid=stSidebar]").is_visible()
    )
    assert page.evaluate("getComputedStyle(document.documentElement).fontSize") == "22px"
    answer = page.get_by_text("precision@3 = 1/3")
    assert answer.count() == 0  # hidden until revealed
    page.locator("[data-testid=stMain] [data-testid=stCheckbox] label").first.click()
    answer.first.wait_for()
    shot(page, "fixture-present-ar")


def test_markup_in_url_params_runs_nothing(page, app_url):
    payload = "<img src=x onerror=window.__xss=1>"
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    url = f"{app_url}/fixture?q={quote(payload)}&lang={quote(payload)}&k={quote(payload)}"
    page.goto(url)
    page.wait_for_selector(f'{MAIN_PROSE}[lang="ar"]')
    page.get_by_text(payload).first.wait_for()  # shown as text
    page.wait_for_selector("[data-testid=stAlert]")  # and the bad values were reported
    assert page.evaluate("window.__xss") is None
    assert page.locator('img[src="x"]').count() == 0
    assert dialogs == []
    query = parse_qs(urlsplit(page.url).query)
    assert "lang" not in query  # the bad language was removed from the URL


def test_copy_link_copies_the_current_state(browser, app_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=app_url)
    page = context.new_page()
    try:
        open_page(page, app_url + "/fixture?k=2")
        open_expander(page, page.locator("[data-testid=stSidebar] [data-testid=stExpander]").first)
        page.locator(".mz-copy button").first.click()
        expect(page.locator(".mz-copy [role=status]")).not_to_be_empty()  # in a shadow root
        copied = page.evaluate("navigator.clipboard.readText()")
        assert re.fullmatch(re.escape(app_url) + r"/fixture\?k=2", copied)
        assert page.locator(".mz-qr svg").count() >= 1
    finally:
        context.close()


@pytest.mark.parametrize(("lang", "width"), [("ar", 390), ("en", 390)])
def test_phone_width_has_no_horizontal_overflow(browser, app_url, lang, width):
    context = browser.new_context(viewport={"width": width, "height": 844}, is_mobile=True)
    page = context.new_page()
    try:
        open_page(page, f"{app_url}/?lang={lang}", lang=lang)
        overflow = page.evaluate(
            "document.querySelector('[data-testid=stMain]').scrollWidth - window.innerWidth"
        )
        assert overflow <= 1
        shot(page, f"home-{lang}-{width}")
    finally:
        context.close()
