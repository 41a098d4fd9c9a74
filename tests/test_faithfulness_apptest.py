"""Lesson 4 under AppTest: seed numbers, verdicts, every control, bad links, escaping."""

from __future__ import annotations

import time

import pytest
from streamlit.testing.v1 import AppTest

from lessons.shared.bidi import strip_bidi_controls
from lessons.shared.i18n import load_content
from tests.apptest_helpers import alert_text as alerts
from tests.apptest_helpers import open_lesson

PAGE = "lessons/faithfulness/page.py"


def run(params: dict[str, str] | None = None) -> AppTest:
    return open_lesson(PAGE, params)


def text(at: AppTest) -> str:
    return strip_bidi_controls("\n".join(str(m.value) for m in at.markdown))


def answer_area(at: AppTest):
    return next(a for a in at.text_area if a.key.startswith("fa-ans."))


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_opens_on_the_seed_example(lang):
    at = run({"lang": lang})
    page = text(at)
    content = load_content("faithfulness", lang)
    for key in ("core_idea", "worked_example", "try_it", "myths", "exercise", "cards", "quiz",
                "faithful_correct"):
        assert content[key]["heading"] in page
    # worked example: the crude check's 86 / 86 / 0 on the Arabic example
    assert "**86 %**" in page and "**0 %**" in page and "**0.67**" in page
    verdicts = content["try_it"]["verdicts"]
    if lang == "ar":                        # the try-it opens on the Arabic example
        assert page.count('class="mz-crude-pct">86 %') == 2
        assert 'class="mz-crude-pct">0 %' in page
    assert page.count(f"· {verdicts['supported']} ·") == 2
    assert page.count(f"· {verdicts['unsupported']} ·") == 1
    assert not at.error and not at.warning


def test_english_shows_both_examples():
    at = run({"lang": "en", "ex": "en"})
    page = text(at)
    assert "crashes: division by zero" in page          # the crude check reads no Latin
    at.radio[0].set_value("ar").run()
    page = text(at)
    assert page.count('class="mz-crude-pct">86 %') == 2
    assert at.query_params["ex"] == "ar"


def test_editing_an_answer_sentence_changes_its_verdict():
    at = run({"lang": "en", "ex": "en"})
    verdicts = load_content("faithfulness", "en")["try_it"]["verdicts"]
    answer_area(at).input("Nothing here matches at all. You can carry over ten days to the "
                          "next year.").run()
    page = text(at)
    assert f"1</span> · {verdicts['unsupported']}" in page
    assert f"2</span> · {verdicts['supported']}" in page


@pytest.mark.parametrize(("edit", "crude", "careful"), [
    ("diacritics", 'class="mz-crude-pct">0 %', "1</span> · مدعومة"),
    ("digits", 'class="mz-crude-pct">80 %', "1</span> · تحتاج مراجعة يدوية"),
    ("negate", 'class="mz-crude-pct">75 %', "2</span> · تحتاج مراجعة يدوية"),
    ("other_lang", "يتعطل: قسمة على صفر", "2</span> · غير مدعومة"),
])
def test_try_this_edits_make_the_two_checks_disagree(edit, crude, careful):
    at = run()
    at.button(key=f"fa-edit-{edit}").click().run()
    page = text(at)
    assert crude in page and careful in page
    assert at.query_params["e"] == edit


def test_threshold_slider_flips_verdicts_and_goes_in_the_url():
    at = run({"lang": "en", "ex": "en"})
    at.slider[0].set_value(1.0).run()
    page = text(at)
    assert page.count("· Supported ·") == 0
    assert at.query_params["t"] == "1"
    at.slider[0].set_value(0.0).run()
    assert text(at).count("· Supported ·") == 3 and at.query_params["t"] == "0"


@pytest.mark.parametrize("params", [
    {"t": "abc"}, {"t": "7"}, {"t": "nan"}, {"ex": "xx"}, {"e": "<script>"},
    {"t": "0." + "9" * 5000}, {"e": "%00"},
])
def test_bad_params_fall_back_with_a_message(params):
    at = run(params)
    assert at.warning and not at.exception
    assert "86 %" in text(at)


def test_typed_html_is_escaped():
    at = run({"lang": "en", "ex": "en"})
    answer_area(at).input("You get <img src=x onerror=alert(1)> days.").run()
    page = text(at)
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page.replace(
        '<mark class="mz-miss">', "").replace('<mark class="mz-hit">', "").replace("</mark>", "")


def test_a_long_paste_answers_within_a_second():
    at = run({"lang": "en", "ex": "en"})
    long = ("You get 21 working days of annual leave a year. " * 500)[:20_000]
    start = time.perf_counter()
    answer_area(at).input(long).run()
    assert time.perf_counter() - start < 1.0
    captions = strip_bidi_controls(" ".join(str(x.value) for x in at.caption))
    assert not at.exception and "Only the first 40 sentences" in captions


def test_exercise_checks_a_verdict():
    at = run({"lang": "en", "q": "1"})
    pick = next(r for r in at.radio if r.key.startswith("fa-ex-"))
    pick.set_value("supported").run()
    at.button(key="fa-ex-check").click().run()
    assert "number that no source contains" in alerts(at)
    at.button(key="fa-ex-new").click().run()
    assert not at.exception
