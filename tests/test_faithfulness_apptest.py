"""Lesson 4 under AppTest: seed numbers, verdicts, every control, bad links, escaping."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from metrics import faithfulness
from tests.apptest_helpers import alert_text as alerts
from tests.apptest_helpers import open_lesson
from text.bidi import strip_bidi_controls
from text.i18n import load_content, load_quiz

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


@pytest.mark.parametrize(("ex", "edit", "label", "crude", "careful"), [
    ("ar", "diacritics", "أضف التشكيل", 'class="mz-crude-pct">0 %', "1</span> · مدعومة"),
    ("ar", "digits", "رقم خاطئ", 'class="mz-crude-pct">80 %', "1</span> · تحتاج مراجعة يدوية"),
    ("ar", "negate", "انفِ جملة", 'class="mz-crude-pct">75 %', "2</span> · تحتاج مراجعة يدوية"),
    ("ar", "other_lang", "جملة بالإنجليزية", "يتعطل: قسمة على صفر",
     "2</span> · غير مدعومة"),
    ("en", "plural", "صيغة الجمع", "يتعطل: قسمة على صفر", "1</span> · مدعومة"),
    ("en", "arabic_word", "كلمة عربية", 'class="mz-crude-pct">0 %', "1</span> · مدعومة"),
])
def test_try_this_edits_make_the_two_checks_disagree(ex, edit, label, crude, careful):
    at = run({"ex": ex})
    button = at.button(key=f"fa-edit-{edit}")
    assert strip_bidi_controls(button.label) == label
    button.click().run()
    page = text(at)
    assert crude in page and careful in page
    assert at.query_params["e"] == edit
    note = load_content("faithfulness", "ar")["try_it"]["edit_notes"][ex][edit]
    assert any(strip_bidi_controls(str(i.value)) == note for i in at.info)


def test_each_example_has_its_own_edits():
    at = run({"lang": "en", "ex": "en"})
    keys = {b.key for b in at.button if b.key and b.key.startswith("fa-edit-")}
    assert keys == {"fa-edit-none", "fa-edit-plural", "fa-edit-digits", "fa-edit-negate",
                    "fa-edit-arabic_word"}
    assert not at.info                                  # a note only once an edit is chosen
    at.radio[0].set_value("ar").run()
    keys = {b.key for b in at.button if b.key and b.key.startswith("fa-edit-")}
    assert "fa-edit-diacritics" in keys and "fa-edit-plural" not in keys


def test_a_link_with_the_other_examples_edit_falls_back():
    at = run({"lang": "en", "ex": "en", "e": "diacritics"})
    assert at.warning and not at.exception
    assert at.query_params.get("e", "none") == "none"
    assert "Employees" not in text(at) and "You get 21 working days" in text(at)


def test_threshold_slider_flips_verdicts_and_goes_in_the_url():
    at = run({"lang": "en", "ex": "en"})
    at.slider[0].set_value(1.0).run()
    page = text(at)
    # at 100 % only a sentence whose every word was found stays supported
    ex = load_content("faithfulness", "en")["example"]
    report = faithfulness.check(ex["answer"].strip(), ex["source"].strip(), 1.0)
    full = sum(s.support == 1.0 and not s.reasons for s in report.sentences)
    assert page.count("· Supported ·") == full < 3
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


def test_a_long_paste_is_checked_and_capped():
    """A 20,000-character paste: checked, the first 40 sentences drawn (its time end to end in
    Chromium: bench/bench_live.py --lessons faithfulness)."""
    at = run({"lang": "en", "ex": "en"})
    long = ("You get 21 working days of annual leave a year. " * 500)[:20_000]
    answer_area(at).input(long).run()
    captions = strip_bidi_controls(" ".join(str(x.value) for x in at.caption))
    assert not at.exception and "Only the first 40 sentences" in captions
    page = text(at)                  # both columns draw 40 sentences, not the 400 pasted
    assert page.count('class="mz-crude-pct"') == 40 and page.count('class="mz-claim"') == 40


def test_exercise_checks_a_verdict():
    at = run({"lang": "en", "q": "1"})
    pick = next(r for r in at.radio if r.key.startswith("fa-ex-"))
    pick.set_value("supported").run()
    at.button(key="fa-ex-check").click().run()
    assert "number that no source contains" in alerts(at)
    at.button(key="fa-ex-new").click().run()
    assert not at.exception


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_presenter_view_hides_the_exercise_answer_until_revealed(lang):
    at = run({"present": "1", "lang": lang, "q": "1"})   # item 2: a wrong number
    c = load_content("faithfulness", lang)
    assert not [r for r in at.radio if r.key and r.key.startswith("fa-ex-")]   # nothing to check
    assert not [b for b in at.button if b.key == "fa-ex-check"]
    assert not [r for r in at.radio if r.key and r.key.startswith("mz-quiz")]
    reveal = at.toggle(key="mz-reveal-fa-ex-1")
    verdict = c["try_it"]["verdicts"]["check"]
    why = c["exercise"]["reveal"]["number"]
    assert why not in text(at)
    reveal.set_value(True).run()
    page = text(at)
    assert verdict in page and why in page and 'class="mz-warning"' in page
    at.button(key="fa-ex-new").click().run()          # another sentence: hidden again
    assert at.query_params["q"] != "1" and why not in text(at) and not at.exception
    assert not [tg for tg in at.toggle if tg.key == "mz-reveal-fa-ex-1"]


def test_quiz_has_eight_items_and_answers_them():
    bank = load_quiz("faithfulness", "en")
    assert len(bank) == 8 and {i["kind"] for i in bank} == {"choice", "numeric"}
    assert all(len({o["why"] for o in i["options"]}) == len(i["options"])
               for i in bank if i["kind"] == "choice")          # each option its own reason
    at = run({"lang": "en"})
    at.text_input(key="mz-quiz-fa-score-checked-typed").set_value("0.6")
    next(b for b in at.button if b.form_id == "mz-quiz-fa-score-checked-form").click().run()
    assert "3 ÷ 5 = 0.6" in text(at) and any("Right" in str(s.value) for s in at.success)
    item = next(i for i in bank if i["id"] == "fa-pieced-claim")
    wrong = next(n for n, o in enumerate(item["options"]) if "number changed" in o["text"])
    at.radio(key="mz-quiz-fa-pieced-claim-pick").set_value(wrong).run()
    at.button(key="mz-quiz-fa-pieced-claim-check").click().run()
    assert item["options"][wrong]["why"] in text(at) and at.error
