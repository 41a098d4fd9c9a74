"""Lesson 4's logic: example texts, the seed numbers, highlighting and escaping, speed."""

from __future__ import annotations

import re
import time

import pytest

from lessons.faithfulness import logic
from lessons.shared.i18n import load_content
from metrics import faithfulness


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
    assert set(ex["edits"]) == set(logic.EDITS) - {"none"}
    for edit in logic.EDITS:
        source, answer = logic.example_texts(ex, edit)
        report = logic.run(source, answer, 0.6).report
        assert report.sentences[-1].verdict == "unsupported"      # the invented cash-out
    digits = logic.run(*logic.example_texts(ex, "digits"), 0.6).report.sentences[0]
    assert digits.verdict in ("check", "unsupported")


def test_crude_and_careful_disagree_on_the_arabic_edits():
    ex = example("ar")
    crude = {e: logic.run(*logic.example_texts(ex, e), 0.6).crude for e in logic.EDITS}
    assert crude["diacritics"][0].verdict == "unsupported"        # vowelled words split
    assert crude["digits"][0].verdict == "supported"              # blind to 30 vs 21
    assert crude["negate"][1].verdict == "supported"              # blind to the negation
    assert crude["other_lang"][1].support is None                 # English: division by zero


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


def test_a_20000_character_paste_is_checked_quickly():
    text = ("لك إجازة سنوية مدتها واحد وعشرون يوما. " * 600)[:20_000]
    start = time.perf_counter()
    result = logic.run(example("ar")["source"] * 10, text, 0.6)
    html = "".join(logic.highlighted_html(s) for s in result.report.sentences[:logic.MAX_SHOWN])
    assert time.perf_counter() - start < 1.0 and html


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
