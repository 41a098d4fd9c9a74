"""The app shell under Streamlit's AppTest: languages, navigation, bad URLs, presenter view.

``MIZAN_EXTRA_PAGES`` adds ``tests/apps/shell_fixture_page.py`` as the page ``/fixture``
so these tests do not depend on which lessons exist yet.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from runtime import catalog
from tests.apptest_helpers import open_lesson
from text import bidi
from text.i18n import load_content, t

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = "tests/apps/shell_fixture_page.py"
TIMEOUT = 30


@pytest.fixture(autouse=True)
def _fixture_page(monkeypatch):
    monkeypatch.setenv("MIZAN_EXTRA_PAGES", f"fixture={FIXTURE}")
    monkeypatch.chdir(ROOT)


def run_app(params: dict[str, str] | None = None, page: str | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    for key, value in (params or {}).items():
        at.query_params[key] = value
    at.run()
    if page:  # AppTest switches pages only after a first run; URL params are kept
        at.switch_page(page)
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def all_markdown(at: AppTest) -> str:
    return "\n".join(str(m.value) for m in at.markdown)


def warnings(at: AppTest) -> list[str]:
    return [str(w.value) for w in at.warning]


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_home_in_both_languages(lang):
    at = run_app({"lang": lang} if lang == "en" else None)
    text = all_markdown(at)
    home = load_content("home", lang)
    assert home["intro"]["heading"] in text
    direction = "rtl" if lang == "ar" else "ltr"
    assert f'dir="{direction}" lang="{lang}"' in text
    assert warnings(at) == []
    assert not at.error
    # the sidebar carries the language switch, the presenter button and the share box
    assert at.sidebar.segmented_control[0].value == lang
    assert any(b.label == t("present.enter", lang=lang) for b in at.sidebar.button)


def test_home_lists_available_lessons_in_catalog_order():
    at = run_app()
    links = [bidi.strip_bidi_controls(link.proto.label) for link in at.get("page_link")]
    lessons = [e for e in catalog.available() if e.kind == "lesson"]
    for n, (entry, link) in enumerate(zip(lessons, links, strict=False), start=1):
        content = load_content(entry.folder, "ar")  # each card opens with its link
        assert link == f"الدرس {n} · {content.get('nav_title') or content['title']}"
    assert len(links) >= len(lessons)


def test_arabic_prose_isolates_formulas():
    at = run_app(page=FIXTURE)
    text = all_markdown(at)
    assert "\u2066recall@3 = 1 / 2 = 0.5\u2069" in text
    assert "\u20661/log2(3) ≈ 0.63\u2069" in text
    assert "bidi-override" not in "".join(
        p.read_text() for p in (ROOT / "assets/css").glob("*.css")
    )


def test_language_switch_keeps_page_and_state():
    at = run_app({"k": "4"}, page=FIXTURE)
    assert at.slider[0].value == 4
    at.sidebar.segmented_control[0].set_value("en").run()
    assert not at.exception
    assert at.query_params.get("lang") == ["en"] or at.session_state["lang"] == "en"
    text = all_markdown(at)
    assert "Test page: recall@k" in text  # still the fixture page, now in English
    assert 'dir="ltr" lang="en"' in text
    assert at.slider[0].value == 4  # the page's own state survived


def test_digits_option_uses_arabic_indic_digits_in_prose():
    at = run_app({"digits": "arab"}, page=FIXTURE)
    text = all_markdown(at)
    assert "المرتبة \u2066٢\u2069" in text  # a number standing alone
    assert "\u2066RR = 1/2 = 0.5\u2069" in text  # a formula keeps Western digits
    at_en = run_app({"digits": "arab", "lang": "en"}, page=FIXTURE)
    assert "٢" not in all_markdown(at_en)  # Arabic-Indic only applies to Arabic


@pytest.mark.parametrize(
    "params",
    [
        {"lang": "xx"},
        {"present": "yes"},
        {"digits": "<img src=x onerror=alert(1)>"},
        {"lang": "<script>alert(1)</script>", "present": "1'; DROP"},
    ],
)
def test_bad_global_params_fall_back_with_a_message(params):
    at = run_app(params)
    assert warnings(at), "a translated message explains the fallback"
    assert all("<" not in w for w in warnings(at))
    assert 'lang="ar"' in all_markdown(at)  # default language
    assert at.sidebar.segmented_control[0].value == "ar"


@pytest.mark.parametrize(
    "params",
    [{"k": "999"}, {"k": "<img src=x onerror=alert(1)>"}, {"r": "d1.0-d1.1"}, {"r": "x" * 9000}],
)
def test_bad_page_params_fall_back_with_a_message(params):
    at = run_app(params, page=FIXTURE)
    assert any(
        t("url.bad_value", lang="ar", name=name) in w for name in params for w in warnings(at)
    )
    assert at.slider[0].value == 3  # default k


def test_typed_text_in_url_is_escaped():
    at = run_app({"q": "<img src=x onerror=alert(1)> [x](javascript:alert(1))"}, page=FIXTURE)
    text = all_markdown(at)
    assert "<img" not in text and "&lt;img" in text
    assert "\\[x\\]\\(javascript\\:alert\\(1\\)\\)" in text


def test_presenter_view_hides_sidebar_and_answers():
    at = run_app({"present": "1"}, page=FIXTURE)
    assert len(at.sidebar.button) == 0 and len(at.sidebar.segmented_control) == 0
    assert any(b.label == t("present.exit", lang="ar") for b in at.button)
    toggle = at.toggle(key="mz-reveal-fixture")
    assert toggle.value is False
    assert "precision@3" not in all_markdown(at)
    toggle.set_value(True).run()
    assert "precision@3" in all_markdown(at)
    # leaving presenter view brings the sidebar back
    next(b for b in at.button if b.label == t("present.exit", lang="ar")).click().run()
    assert len(at.sidebar.segmented_control) >= 1


def test_presenter_view_can_be_entered_from_the_sidebar():
    at = run_app(page=FIXTURE)
    next(b for b in at.sidebar.button if b.label == t("present.enter", lang="ar")).click().run()
    assert not at.exception
    assert len(at.sidebar.segmented_control) == 0
    assert at.session_state["present"] == "1"


def test_page_errors_are_friendly():
    at = run_app({"boom": "1"}, page=FIXTURE)
    assert [str(e.value) for e in at.error] == [t("error.unexpected", lang="ar")]


def test_css_has_no_angle_brackets_or_bidi_override():
    """Streamlit's HTML sanitizer drops a whole <style> whose text contains '<'."""
    for css in (ROOT / "assets" / "css").glob("*.css"):
        text = css.read_text()
        assert "<" not in text, css.name
        assert "bidi-override" not in text, css.name


def test_static_folder_serves_the_font():
    static = ROOT / "static"
    assert static.resolve() == (ROOT / "assets").resolve()
    assert (static / "fonts" / "NotoNaskhArabic-Regular.woff2").stat().st_size > 10_000
    assert (ROOT / "assets" / "fonts" / "OFL.txt").exists()


def test_presenter_switch_on_a_page_opened_at_its_ranking():
    """Both scroll-once helpers in one run (the presenter view switched on lesson 2 opened
    by an "explain" link, ``at=ranking``): each in its own hidden container, no duplicate key."""
    at = open_lesson("lessons/recall_precision/page.py", {"lang": "en", "at": "ranking"})
    at.button(key="_mz_present_on").click().run()
    at.run()
    assert not at.exception and not at.error, [str(e.value) for e in [*at.exception, *at.error]]
