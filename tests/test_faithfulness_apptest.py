"""Lesson 4 under AppTest: the worked numbers, verdicts claim by claim, every control, the
agreement table, the code on screen, bad links, escaping."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from lessons.faithfulness import logic
from metrics import faithfulness
from tests.apptest_helpers import alert_text as alerts
from tests.apptest_helpers import open_lesson
from text import plural
from text.bidi import escape_html, strip_bidi_controls
from text.i18n import fill, load_content, load_quiz
from ui import tables

PAGE = "lessons/faithfulness/page.py"


def run(params: dict[str, str] | None = None) -> AppTest:
    return open_lesson(PAGE, params)


def text(at: AppTest) -> str:
    return strip_bidi_controls("\n".join(str(m.value) for m in at.markdown))


def answer_area(at: AppTest):
    return next(a for a in at.text_area if a.key.startswith("fa-ans."))


def cards(at: AppTest) -> str:
    """The interactive's verdicts: the first block of sentence cards on the page (the core
    idea's split sentence and the exercise come after it)."""
    return strip_bidi_controls(next(str(m.value) for m in at.markdown
                                    if 'class="mz-claim' in str(m.value)))


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_opens_on_the_seed_example(lang):
    at = run({"lang": lang})
    page = text(at)
    content = load_content("faithfulness", lang)
    for key in ("core_idea", "worked_example", "try_it", "myths", "exercise", "cards", "quiz",
                "faithful_correct", "checker"):
        assert content[key]["heading"] in page
    # worked example: the crude check's 86 / 86 / 0 on the Arabic example
    assert "**86 %**" in page and "**0 %**" in page and "**0.67**" in page
    verdicts = content["try_it"]["verdicts"]
    if lang == "ar":                        # the try-it opens on the Arabic example
        assert page.count('class="mz-crude-pct">86 %') == 2
        assert 'class="mz-crude-pct">0 %' in page
    assert cards(at).count(f"· {verdicts['supported']} ·") == 2
    assert cards(at).count(f"· {verdicts['unsupported']} ·") == 1
    assert "<b>0.67</b> = 2 ÷ 3" in page                   # the score line
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
    page = cards(at)
    assert f"1</span> · {verdicts['unsupported']}" in page
    assert f"2</span> · {verdicts['supported']}" in page
    assert "0.67 → " in text(at) and "<b>0.50</b> = 1 ÷ 2" in text(at)   # the change shown
    # the first card's verdict changed: it is marked; the second says what the old second
    # said (supported, 100 %): it is not; nothing is marked on the first drawing
    marked = re.findall(r'class="mz-claim( mz-fa-changed mz-fa-flash-\d)?"', page)
    assert marked == [" mz-fa-changed mz-fa-flash-1", ""]
    assert "mz-fa-changed" not in cards(run({"lang": "en", "ex": "en"}))


@pytest.mark.parametrize(("ex", "edit", "label", "crude", "careful"), [
    ("ar", "diacritics", "أضف التشكيل", 'class="mz-crude-pct">0 %', "1</span> · مدعومة"),
    ("ar", "digits", "عدد خاطئ", 'class="mz-crude-pct">80 %', "1</span> · تحتاج مراجعة يدوية"),
    ("ar", "negate", "انفِ جملة", 'class="mz-crude-pct">75 %', "2</span> · تحتاج مراجعة يدوية"),
    ("ar", "other_lang", "جملة بالإنجليزية", "يتعطل: قسمة على صفر",
     "2</span> · غير مدعومة"),
    ("en", "plural", "صيغة الجمع", "يتعطل: قسمة على صفر", "1</span> · مدعومة"),
    ("en", "arabic_word", "كلمة عربية", 'class="mz-crude-pct">0 %', "1</span> · مدعومة"),
    ("ar", "paraphrase", "إعادة صياغة", 'class="mz-crude-pct">40 %', "2</span> · مدعومة"),
    ("ar", "compound", "ادعاءان في جملة", 'class="mz-crude-pct">64 %',
     "1</span> · غير مدعومة"),
    ("en", "paraphrase", "إعادة صياغة", "يتعطل: قسمة على صفر", "2</span> · مدعومة"),
    ("en", "compound", "ادعاءان في جملة", "يتعطل: قسمة على صفر", "1</span> · غير مدعومة"),
])
def test_try_this_edits_make_the_two_checks_disagree(ex, edit, label, crude, careful):
    at = run({"ex": ex})
    button = at.button(key=f"fa-edit-{edit}")
    assert strip_bidi_controls(button.label) == label
    button.click().run()
    page = text(at)
    assert crude in page and careful in cards(at)
    assert at.query_params["e"] == edit
    # the note quotes the checkers' own numbers (filled from them, never typed)
    note = fill(load_content("faithfulness", "ar")["try_it"]["edit_notes"][ex][edit],
                logic.edit_values(load_content("faithfulness", "ar")["example"]
                                  if ex == "ar" else load_content("faithfulness", "en")["example"],
                                  edit))
    assert "{{" not in note
    assert any(strip_bidi_controls(str(i.value)) == strip_bidi_controls(note) for i in at.info)


def test_each_example_has_its_own_edits():
    at = run({"lang": "en", "ex": "en"})
    keys = {b.key for b in at.button if b.key and b.key.startswith("fa-edit-")}
    assert keys == {"fa-edit-none", *(f"fa-edit-{e}" for e in logic.EDITS["en"])}
    assert not at.info                                  # a note only once an edit is chosen
    at.radio[0].set_value("ar").run()
    keys = {b.key for b in at.button if b.key and b.key.startswith("fa-edit-")}
    assert "fa-edit-diacritics" in keys and "fa-edit-plural" not in keys


def test_a_link_with_the_other_examples_edit_falls_back():
    at = run({"lang": "en", "ex": "en", "e": "diacritics"})
    assert at.warning and not at.exception
    assert at.query_params.get("e", "none") == "none"
    _, answer = logic.example_texts(load_content("faithfulness", "en")["example"], "none")
    assert answer_area(at).value == answer and "Employees" not in cards(at)


def test_threshold_slider_flips_verdicts_and_goes_in_the_url():
    at = run({"lang": "en", "ex": "en"})
    at.slider[0].set_value(1.0).run()
    # at 100 % only a sentence whose every word was found stays supported
    ex = load_content("faithfulness", "en")["example"]
    report = faithfulness.check(ex["answer"].strip(), ex["source"].strip(), 1.0)
    full = sum(s.support == 1.0 and not s.reasons for s in report.sentences)
    assert cards(at).count("· Supported ·") == full < 3
    assert at.query_params["t"] == "1"
    at.slider[0].set_value(0.0).run()
    assert cards(at).count("· Supported ·") == 3 and at.query_params["t"] == "0"


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
    assert page.count('class="mz-crude-pct"') == 40 and cards(at).count('class="mz-claim') == 40


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_a_paste_past_the_cap_says_where_it_is_cut_with_the_number_grouped(lang):
    """Round 63: the note read 'the first 20000 characters'; prose writes 20,000."""
    at = run({"lang": lang, "ex": lang})
    answer_area(at).input("You get 21 working days of annual leave a year. " * 500).run()
    captions = strip_bidi_controls(" ".join(str(x.value) for x in at.caption))
    assert not at.exception and "20,000" in captions and "20000" not in captions


def _check_exercise(at: AppTest, verdict: str) -> AppTest:
    next(r for r in at.radio if r.key and r.key.startswith("fa-ex-")).set_value(verdict).run()
    return at.button(key="fa-ex-check").click().run()


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_exercise_hints_first_and_solves_on_a_second_wrong_answer(lang):
    """Item 2 (25 days: a number no source contains, "check"): a first wrong answer names the
    mistake and keeps the verdict back; a second wrong answer gives the solution."""
    at = run({"lang": lang, "q": "1"})
    c = load_content("faithfulness", lang)
    # (an alert's label escapes a Markdown full stop: compare the texts without it)
    why = strip_bidi_controls(c["try_it"]["warnings"]["number_not_in_source"]).rstrip(".")
    hint = strip_bidi_controls(c["exercise"]["hints"]["supported_for_check"]).rstrip(".")
    _check_exercise(at, "supported")
    assert hint in alerts(at) and why not in alerts(at) and not at.error
    assert 'class="mz-claim' not in "".join(str(m.value) for m in at.markdown[-3:])
    assert at.button(key="fa-ex-show")
    _check_exercise(at, "unsupported")                   # wrong again: the solution
    assert why in alerts(at) and at.error and hint not in alerts(at)
    assert strip_bidi_controls(c["try_it"]["verdicts"]["check"]) in text(at)
    at.button(key="fa-ex-new").click().run()          # another sentence: a fresh start
    assert at.query_params["q"] != "1" and not at.error and not at.warning and not at.exception


def test_exercise_solution_on_request_and_right_first_time():
    at = run({"lang": "en", "q": "1"})
    _check_exercise(at, "unsupported")
    assert at.warning and not at.error
    at.button(key="fa-ex-show").click().run()
    assert "number that no source contains" in alerts(at) and at.error
    at = run({"lang": "en", "q": "1"})
    _check_exercise(at, "check")
    assert any("Right" in str(x.value) for x in at.success) and not at.warning
    assert "number that no source contains" in text(at)     # the card's warning


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_presenter_view_hides_the_exercise_answer_until_revealed(lang):
    at = run({"present": "1", "lang": lang, "q": "1"})   # item 2: a wrong number
    c = load_content("faithfulness", lang)
    assert not [r for r in at.radio if r.key and r.key.startswith("fa-ex-")]   # nothing to check
    assert not [b for b in at.button if b.key == "fa-ex-check"]
    assert not [r for r in at.radio if r.key and r.key.startswith("mz-quiz")]
    reveal = at.toggle(key="mz-reveal-fa-ex-1")
    verdict = c["try_it"]["verdicts"]["check"]
    why = strip_bidi_controls(c["try_it"]["warnings"]["number_not_in_source"])
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
    wrong = next(n for n, o in enumerate(item["options"]) if "no source contains" in o["text"])
    at.radio(key="mz-quiz-fa-pieced-claim-pick").set_value(wrong).run()
    at.button(key="mz-quiz-fa-pieced-claim-check").click().run()
    assert item["options"][wrong]["why"] in text(at) and at.error


# ------------------------------------------------------------------ what the checker saw
@pytest.mark.parametrize(("lang", "ex"), [("ar", "ar"), ("en", "en"), ("ar", "en"), ("en", "ar")])
def test_a_paraphrase_is_supported_and_its_equivalences_are_shown(lang, ex):
    """The paraphrase edit: sentence 2 is supported, and its card says which answer word was
    read as which source word, and why (the word group), in the page's language."""
    at = run({"lang": lang, "ex": ex, "e": "paraphrase"})
    c = load_content("faithfulness", lang)["try_it"]
    page = cards(at)
    second = page[page.index('<span dir="ltr">2</span>'):page.index('<span dir="ltr">3</span>')]
    assert f"· {c['verdicts']['supported']} ·" in second
    assert escape_html(c["labels"]["read_as"]) in second
    answer_word, source_word, group = {"ar": ("ويجوز", "يمكن", "يجوز"),
                                       "en": ("are allowed", "may", "may")}[ex]
    arrow = c["labels"]["arrow"]
    assert (f'<bdi dir="auto">{answer_word}</bdi> {arrow} <bdi dir="auto">{source_word}</bdi>'
            in second)
    rule = escape_html(c["rules"]["group"]).replace(
        "{{detail}}", f'<bdi dir="auto">{group}</bdi>')
    assert rule in second


@pytest.mark.parametrize(("lang", "ex"), [("ar", "ar"), ("en", "en"), ("ar", "en"), ("en", "ar")])
def test_a_compound_sentence_is_split_and_the_failing_claim_named(lang, ex):
    at = run({"lang": lang, "ex": ex, "e": "compound"})
    c = load_content("faithfulness", lang)["try_it"]
    page = cards(at)
    first = page[:page.index('<span dir="ltr">2</span>')]
    assert f"1</span> · {c['verdicts']['unsupported']}" in first
    assert first.count('<li class="mz-part') == 2
    split = escape_html(c["labels"]["split"]).replace("{{claim}}", '<bdi dir="ltr">1.2</bdi>')
    assert split in first
    decides = first[first.index("mz-part-decides"):]
    assert decides.startswith('mz-part-decides"><div class="mz-part-head mz-v-unsupported">'
                              '<span dir="ltr">1.2</span>')
    assert escape_html(c["labels"]["decides"]) in decides
    # the core idea splits the same sentence, in the page's language
    assert text(at).count("mz-part-decides") >= 2


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_every_warning_the_checker_raises_is_shown_with_its_text(lang):
    """Typed sentences that raise the four newer warnings: each is drawn with its text."""
    at = run({"lang": lang, "ex": "en"})
    answer_area(at).input(
        "Leave requests are submitted ten days before the leave starts. "
        "Up to ten days must be carried over to the next year. "
        "Leave requests are approved two weeks before the leave starts. "
        "All days may be carried over to the next year.").run()
    warnings = load_content("faithfulness", lang)["try_it"]["warnings"]
    page = cards(at)
    for key in ("number_not_in_evidence", "modal_differs", "words_from_other_sentence",
                "limit_dropped"):
        assert escape_html(strip_bidi_controls(warnings[key])) in page, key


def _script_table(split: str) -> dict[str, list[str]]:
    """scripts/faithfulness_agreement.py's printed table: kind -> [ar, en, all] cells."""
    import contextlib
    import io
    import re

    import scripts.faithfulness_agreement as script
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        script.main([split])
    cell = re.compile(r"\d+/\d+ = \d\.\d\d \[\d\.\d\d, \d\.\d\d\]")
    return {line.split()[0]: cell.findall(line) for line in out.getvalue().splitlines()[2:]}


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_the_agreement_table_is_the_scripts(lang):
    """The page's agreement table (held-out part) has the numbers the script prints, cell by
    cell; its prose quotes the held-out and development totals."""
    at = run({"lang": lang})
    page = text(at)
    c = load_content("faithfulness", lang)["checker"]
    table = page[page.index(c["kind"]):]
    script = _script_table("heldout")
    for kind, name in [*((k, c["kinds"][k]) for k in logic.KINDS), ("all", c["total"])]:
        ar, en, both = script[kind]            # "8/8 = 1.00 [0.68, 1.00]" each
        row = tables.table(["x"], [[name, ar.split(" = ")[0], en.split(" = ")[0], both]])
        assert row.splitlines()[-1] in table, (kind, row)
    held = both.split(" = ")[0].split("/")
    dev = _script_table("dev")["all"][2].split(" = ")[0].split("/")
    counted = plural.counted(int(held[1]), "جملة" if lang == "ar" else "sentence")  # 120 جملةً
    assert f"**{held[0]} {'من' if lang == 'ar' else 'of'} {counted}**" in page
    assert f"{dev[0]} {'من' if lang == 'ar' else 'of'} {dev[1]}" in page


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_the_code_is_shown_with_comments_in_the_page_language(lang):
    at = run({"lang": lang})
    shown = [b.value.strip() for b in at.code]
    c = load_content("faithfulness", lang)
    assert c["code"]["python"].strip() in shown
    assert strip_bidi_controls(c["core_idea"]["judge"]).strip()[:40] in text(at)
