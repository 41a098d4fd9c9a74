"""Lesson 1's plain functions, without a browser: the cases, their numbers, the rule, the
exercise, the diagram; and ``metrics.support.supported_share``."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from lessons.two_stages import logic
from metrics.support import supported_share
from teaching import mistakes
from text import bidi
from text.i18n import LANGS, load_content


def content(lang: str) -> dict:
    return load_content("two_stages", lang)


# --- metrics.support ----------------------------------------------------------------------------


def test_supported_share_is_the_seeds_faithfulness():
    assert supported_share([True, True, False]) == pytest.approx(2 / 3)   # the leave example
    assert supported_share([True, None, False, True]) == pytest.approx(2 / 3)  # no claim: skipped
    assert supported_share([1, 0]) == 0.5
    assert supported_share([None, None]) is None
    assert supported_share([]) is None
    with pytest.raises(TypeError):
        supported_share(["yes"])
    with pytest.raises(TypeError):
        supported_share([2])


# --- the cases ----------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_every_case_is_labelled_with_the_verdict_its_data_gives(lang):
    cases = logic.cases(content(lang))
    assert 5 <= len(cases) <= 8
    for case in cases:
        assert logic.verdict_of(logic.case_numbers(case)) == case.verdict, case.id
    assert {c.verdict for c in cases} == set(logic.VERDICTS)   # every verdict is practised


def test_the_two_languages_have_the_same_case_data():
    def data(lang):
        return [(c.id, c.verdict, c.golden, c.ranking, [s.support for s in c.sentences])
                for c in logic.cases(content(lang))]
    assert data("ar") == data("en")


def test_case_numbers_come_from_the_metrics():
    by_id = {c.id: logic.case_numbers(c) for c in logic.cases(content("en"))}
    leave = by_id["leave"]                               # the seed's annual-leave example
    assert (leave.recall, leave.rr, round(leave.faithfulness, 2)) == (1.0, 1.0, 0.67)
    assert (leave.supported, leave.sentences, leave.unsupported) == (2, 3, (3,))
    car = by_id["car"]
    assert (car.recall, car.missing, car.faithfulness) == (0.5, ("d12",), 0.5)
    remote = by_id["remote"]                  # faithful to a stale chunk, the only one retrieved
    assert (remote.recall, remote.rr, remote.faithfulness, remote.uses_golden) == (
        0.0, 0.0, 1.0, 0.0)
    meals = by_id["meals"]                               # a sentence with no claim is not scored
    assert (meals.recall, meals.sentences, meals.faithfulness) == (0.0, 1, 1.0)
    lucky = by_id["lucky"]
    assert (lucky.recall, lucky.faithfulness) == (0.0, 0.0)


def test_the_rule_checks_retrieval_before_generation():
    # retrieval missed one golden document AND the answer invents: retrieval comes first
    n = logic.numbers(["d1", "d2"], ["d1", "d9"], ["d1", ""])
    assert logic.verdict_of(n) == "retrieval"
    assert logic.verdict_of(logic.numbers(["d1", "d2"], ["d1"], ["d2", ""])) == "ignored"
    assert logic.verdict_of(logic.numbers(["d1", "d2"], ["d1"], ["d1", ""])) == "invented"
    assert logic.verdict_of(logic.numbers(["d1", "d2"], ["d1"], ["d1", "d2"])) == "nothing"
    # a support id that was not retrieved does not count as support
    assert logic.numbers(["d1"], ["d1"], ["d7"]).faithfulness == 0.0


def test_worked_example_values():
    assert logic.worked_values() == pytest.approx(
        {"recall": 1.0, "rr": 1.0, "faithfulness": 2 / 3, "missed_recall": 0.0,
         "missed_faithfulness": 0.0})


def test_picks_in_the_url():
    picks = logic.UNANSWERED * 8
    picks = logic.with_pick(picks, 0, "invented")
    picks = logic.with_pick(picks, 2, "ignored")      # case 3 (remote) is retrieval's failure
    assert picks == "v_g_____"
    assert logic.parse_picks(picks, 8) == picks
    assert (logic.pick_of(picks, 0), logic.pick_of(picks, 1)) == ("invented", None)
    for bad in ("v_g____", "x_______", "v_g_____x", "<script>"):
        with pytest.raises(ValueError):
            logic.parse_picks(bad, 8)
    cases = logic.cases(content("en"))
    assert logic.score(picks, cases) == logic.Score(right=1, answered=2, total=8)


# --- the exercise -------------------------------------------------------------------------------


def test_exercises_are_reproducible_and_cover_every_verdict():
    seen = set()
    for seed in range(300):
        ex = logic.stage_exercise(seed)
        assert ex == logic.stage_exercise(seed)
        assert 3 <= len(ex.ranking) <= 5 and 2 <= len(ex.supports) <= 4
        assert logic.verdict_of(ex.numbers) == ex.verdict
        assert logic.stage_feedback(ex.verdict, ex) == "stage_correct"
        seen.add(ex.verdict)
    assert seen == set(logic.VERDICTS)


def test_a_nothing_failed_case_uses_every_golden_chunk():
    """Both golden chunks retrieved and one left unused is no 'nothing failed' (round 41)."""
    nothing = [ex for ex in map(logic.stage_exercise, range(600)) if ex.verdict == "nothing"]
    assert len(nothing) > 100 and any(len(ex.golden) == 2 for ex in nothing)
    for ex in nothing:
        assert set(ex.golden) <= set(ex.supports), ex


def test_exercise_feedback_names_the_mistake():
    ex = logic.StageExercise(1, ("d2", "d9", "d4", "d7"), ("d4",), ("d4", "d2", "", "d4"))
    n = ex.numbers
    assert (n.supported, n.sentences, n.faithfulness) == (3, 4, 0.75)
    assert ex.check_faithfulness(0.75) == "correct"
    assert ex.check_faithfulness(0.5) == "faith_golden_only"  # only d4-backed sentences counted
    assert ex.check_faithfulness(0.25) == "faith_unsupported_share"
    assert ex.check_faithfulness(3.0) == "faith_count_not_share"
    assert ex.check_faithfulness(75) == "percent_not_fraction"
    assert ex.check_faithfulness(0.9) == "wrong_unknown"
    assert ex.check_faithfulness(4 / 3) == "out_of_range"    # upside down: sentences ÷ supported
    assert ex.check_faithfulness(-0.75) == "out_of_range"
    assert ex.verdict == "invented"
    assert logic.stage_feedback("nothing", ex) == "stage_missed_invention"
    assert logic.stage_feedback("retrieval", ex) == "stage_blamed_retrieval"
    assert logic.stage_feedback("ignored", ex) == "stage_not_ignored"
    missed = logic.StageExercise(2, ("d2", "d9", "d7"), ("d4",), ("d2", ""))
    assert logic.stage_feedback("invented", missed) == "stage_missed_retrieval"


@pytest.mark.parametrize("lang", LANGS)
def test_every_feedback_key_has_a_text(lang):
    feedback = content(lang)["exercise"]["feedback"]
    keys = {"stage_correct", "stage_missed_retrieval", "stage_blamed_retrieval",
            "stage_missed_ignored", "stage_not_ignored", "stage_missed_invention",
            "stage_not_invented", "correct", "not_a_number", "wrong_unknown", "solution"}
    assert keys <= set(feedback)
    # the wrong formulas' feedback is the mistake catalogue's
    wrong = {"percent_not_fraction", *logic.faithfulness_mistakes(logic.stage_exercise(1).numbers)}
    assert all(mistakes.text(key, "feedback", lang) for key in wrong)


# --- the diagram --------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_diagram_is_valid_svg_with_real_text_from_the_content_file(lang):
    words = content(lang)["diagram"]
    svg = logic.diagram_svg(words, lang)
    root = ET.fromstring(svg)                           # well-formed XML
    assert root.get("direction") == ("rtl" if lang == "ar" else "ltr")
    texts = " ".join("".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text"))
    plain = bidi.strip_bidi_controls(texts)
    for key in ("retrieval_title", "generation_title", "rule", "question", "answer"):
        assert bidi.strip_bidi_controls(words[key]) in plain
    assert "{{" not in svg and "\n" not in svg           # filled, one line (Markdown-safe)
    assert not re.search(r"(href|src)\s*=", svg)         # nothing external
    assert "Mizan Arabic" in svg                         # the self-hosted face


def test_diagram_escapes_its_text():
    words = {k: "x" for k in content("en")["diagram"]}
    words["question"] = "<script>alert(1)</script>"
    svg = logic.diagram_svg(words, "en")
    assert "<script>" not in svg and "&lt;script&gt;" in svg
