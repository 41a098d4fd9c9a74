"""Lesson 4's logic: example texts and their "try this" edits, the seed numbers, highlighting
and escaping, the exercise's feedback and reveal. (Speed: bench/bench_live.py.)"""

from __future__ import annotations

import re

import pytest

from lessons.faithfulness import logic
from metrics import faithfulness
from text.i18n import load_content


def example(lang: str) -> dict:
    return load_content("faithfulness", lang)["example"]


def test_arabic_example_reproduces_the_crude_checks_86_86_0():
    source, answer = logic.example_texts(example("ar"), "none")
    result = logic.run(source, answer, 0.6)
    assert [logic.percent(r.support) for r in result.crude] == ["86 %", "86 %", "0 %"]
    assert [r.support for r in result.crude] == [6 / 7, 6 / 7, 0]
    assert [s.verdict for s in result.report.sentences] == ["supported", "supported",
                                                            "unsupported"]
    assert result.report.score == pytest.approx(2 / 3)


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_every_edit_exists_and_the_checker_flags_it(lang):
    ex = example(lang)
    assert [e["id"] for e in ex["edits"]] == list(logic.EDITS[lang])
    c = load_content("faithfulness", lang)["try_it"]          # labels and notes: both examples
    for name, edits in logic.EDITS.items():
        assert set(c["edit_labels"][name]) == set(edits) == set(c["edit_notes"][name])
    for edit in ("none", *logic.EDITS[lang]):
        source, answer = logic.example_texts(ex, edit)
        report = logic.run(source, answer, 0.6).report
        assert report.sentences[-1].verdict == "unsupported"      # the invented cash-out
    digits = logic.run(*logic.example_texts(ex, "digits"), 0.6).report.sentences[0]
    assert digits.verdict in ("check", "unsupported")
    assert "number_not_in_source" in digits.warnings
    with pytest.raises(KeyError):
        logic.example_texts(ex, "no-such-edit")


EDIT_CASES = [(lang, edit) for lang in logic.EXAMPLES for edit in logic.EDITS[lang]]


@pytest.mark.parametrize(("lang", "edit"), EDIT_CASES)
def test_every_edit_makes_the_crude_and_careful_checks_disagree(lang, edit):
    """The sentence an edit changes gets a different verdict from the two checks (a crash of
    the crude check counts as its verdict); the untouched ones keep their verdicts."""
    ex = example(lang)
    changed = logic.changed_sentences(ex, edit)
    assert len(changed) == 1, "an edit changes one sentence"
    result = logic.run(*logic.example_texts(ex, edit), 0.6)
    original = logic.run(*logic.example_texts(ex, "none"), 0.6)
    assert len(result.crude) == len(result.report.sentences)
    for i in changed:
        crude, careful = result.crude[i], result.report.sentences[i]
        crude_verdict = "crash" if crude.support is None else crude.verdict
        assert crude_verdict != careful.verdict, (lang, edit, i)
    for i, sent in enumerate(result.report.sentences):
        if i not in changed:
            assert sent.verdict == original.report.sentences[i].verdict


def _both(ex: dict, edit: str, i: int):
    result = logic.run(*logic.example_texts(ex, edit), 0.6)
    return result.crude[i], result.report.sentences[i]


def test_each_arabic_edit_breaks_the_crude_check_as_its_label_says():
    ar = example("ar")
    crude, careful = _both(ar, "diacritics", 0)         # vowelled words split: 0 % vs found
    assert (crude.support, crude.verdict, careful.verdict) == (0, "unsupported", "supported")
    assert "\u064e" in careful.text                      # it really has a fatha
    crude, careful = _both(ar, "digits", 0)             # blind to 30 vs 21
    assert crude.verdict == "supported" and careful.verdict == "check"
    crude, careful = _both(ar, "negate", 1)             # blind to the negation
    assert crude.verdict == "supported" and "negation_differs" in careful.warnings
    crude, careful = _both(ar, "other_lang", 1)         # English: division by zero
    assert crude.support is None and careful.verdict == "unsupported"
    assert re.fullmatch(r"[A-Za-z0-9 .]+", careful.text)


def test_each_english_edit_does_what_its_label_says():
    en = example("en")
    crude, careful = _both(en, "plural", 0)             # "Employees" is "employee"
    assert crude.support is None and careful.verdict == "supported"
    assert "Employees" in careful.text and "employee " in en["source"]
    crude, careful = _both(en, "digits", 0)
    assert crude.support is None and careful.warnings == ["number_not_in_source"]
    crude, careful = _both(en, "negate", 1)
    assert crude.support is None and "negation_differs" in careful.warnings
    crude, careful = _both(en, "arabic_word", 0)        # judged by its one Arabic word
    assert (crude.support, crude.verdict, careful.verdict) == (0, "unsupported", "supported")
    assert "إجازة" in careful.text
    assert not re.search("[\u064b-\u0652]", "".join(e["answer"] for e in en["edits"]))


def test_highlight_spans_equal_the_words_and_text_is_escaped():
    answer = 'لك إجازة <b>سنوية</b> مدتها "21" يوما & <img src=x onerror=alert(1)>.'
    sent = faithfulness.check(answer, example("ar")["source"]).sentences[0]
    html = logic.highlighted_html(sent)
    assert "<img" not in html and "<b>" not in html
    plain = re.sub(r"</?mark[^>]*>", "", html)
    assert "&lt;img src=x onerror=alert(1)&gt;" in plain and "&amp;" in plain
    assert html.startswith('<div class="mz-sentence" dir="auto">')
    for w in sent.matched:
        assert f'<mark class="mz-hit">{w.text}</mark>' in html


def test_clip_limits_and_strips_controls():
    assert len(logic.clip("x" * 30_000)) == logic.MAX_CHARS
    assert logic.clip("a\u202eb") == "ab" and logic.clip(None) == ""


def test_a_20000_character_paste_is_checked_whole():
    """Every sentence of a 20,000-character paste is judged (its speed: bench/bench_live.py)."""
    text = ("لك إجازة سنوية مدتها واحد وعشرون يوما. " * 600)[:20_000]
    result = logic.run(example("ar")["source"] * 10, text, 0.6)
    html = "".join(logic.highlighted_html(s) for s in result.report.sentences[:logic.MAX_SHOWN])
    assert len(result.report.sentences) > 500 and result.report.score == 1.0
    assert html.count('<div class="mz-sentence"') == logic.MAX_SHOWN


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_exercise_bank_has_every_verdict_and_feedback(lang):
    c = load_content("faithfulness", lang)
    source = c["example"]["source"]
    seen = {logic.exercise_verdict(item, source) for item in c["exercise"]["items"]}
    assert {"supported", "unsupported", "check"} <= seen
    for item in c["exercise"]["items"]:
        sent = faithfulness.check(item["answer"], source).sentences[0]
        for picked in ("supported", "unsupported", "check"):
            assert logic.exercise_feedback(picked, sent.verdict, sent) in c["exercise"]["feedback"]


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_exercise_reveal_explains_every_item(lang):
    c = load_content("faithfulness", lang)
    reasons = set()
    for item in c["exercise"]["items"]:
        sent = faithfulness.check(item["answer"], c["example"]["source"]).sentences[0]
        reason = logic.exercise_reason(sent)
        assert reason in c["exercise"]["reveal"]
        assert (sent.verdict == "check") == (reason in ("number", "negation", "name"))
        reasons.add(reason)
    assert {"supported", "unsupported", "number", "negation"} <= reasons


def test_text_direction_follows_the_first_strong_letter():
    assert logic.text_direction("Every employee, يستحق") == "ltr"
    assert logic.text_direction("21 «يستحق» every") == "rtl"
    assert logic.text_direction("21 — 30.") is None
