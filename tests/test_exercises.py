"""Generated exercises are solvable, their answers come from metrics, and every diagnosed mistake
is exactly the wrong formula's value (and never the right one)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import metrics
from teaching import measures, mistakes
from teaching.answers import parse_number
from teaching.exercises import check, generate, pick

BINARY_MEASURES = measures.keys("binary")
REFERENCE = {
    "recall": metrics.recall, "precision": metrics.precision, "hit_rate": metrics.hit_rate,
    "f1": metrics.f1, "rr": metrics.reciprocal_rank,
}


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**9), measure=st.sampled_from(BINARY_MEASURES))
def test_every_exercise_is_solvable_and_teaches(seed, measure):
    """Lesson 2's exercises (the binary measures), as the lesson and /practice draw them."""
    ex = pick(BINARY_MEASURES, measure, seed)
    assert ex == pick(BINARY_MEASURES, measure, seed)     # the seed reproduces it
    assert ex == generate(measure, seed)                   # the same exercise as /practice's
    ranking, relevant = list(ex.ranking), set(ex.relevant)
    assert ex.answer == REFERENCE[measure](ranking, relevant, ex.k)
    assert 0 <= ex.answer <= 1
    assert check(ex, repr(ex.answer)).status == "correct"
    assert check(ex, f"{round(ex.answer, 2)}").status == "correct"
    keys = mistakes.distinct_mistakes(measure, ranking, relevant, ex.k)
    assert keys
    for key in keys:
        for value in mistakes._values(mistakes.MISTAKES[measure][key](ranking, relevant, ex.k)):
            if abs(value - ex.answer) > 0.005:
                diagnosed = check(ex, repr(value)).mistake
                # an earlier mistake in the catalogue may produce the same number
                assert diagnosed in mistakes.MISTAKES[measure]
                first = mistakes.MISTAKES[measure][diagnosed](ranking, relevant, ex.k)
                assert any(abs(v - value) <= 0.005 for v in mistakes._values(first))


SHORT = (["d1", "d2", "d3"], {"d2", "d3"}, 5)        # 3 returned, k = 5, R = 2
MISSED = (["d1", "d2", "d3"], {"d2", "d3", "d9"}, 3)  # d9 relevant, never retrieved


@pytest.mark.parametrize("measure, case, answer, key", [
    ("precision", SHORT, 2 / 3, "precision_divided_by_retrieved"),
    ("precision", (["d1", "d2", "d3", "d4"], {"d2", "d3", "d9"}, 4), 2 / 3,
     "precision_divided_by_R"),
    ("recall", MISSED, 1.0, "recall_divided_by_retrieved_relevant"),
    ("recall", (["d1", "d2", "d3", "d4", "d5"], {"d2", "d3", "d9"}, 5), 2 / 5,
     "recall_divided_by_k"),
    ("hit_rate", MISSED, 2.0, "hit_rate_as_count"),
    ("f1", SHORT, (2 / 5 + 1) / 2, "f1_arithmetic_mean"),
    ("rr", MISSED, 1 / 3, "rr_of_last_hit"),
    ("rr", MISSED, 2.0, "rr_not_inverted"),
    ("recall", MISSED, 66.7, "percent_not_fraction"),
    ("recall", MISSED, 0.9, "wrong_unknown"),
])
def test_named_mistakes(measure, case, answer, key):
    ranking, relevant, k = case
    assert mistakes.diagnose(measure, ranking, relevant, k, answer) == key


@pytest.mark.parametrize("text, value", [
    ("0.5", 0.5), (" .5 ", 0.5), ("0,5", 0.5), ("٠٫٥", 0.5), ("۰٫۵", 0.5), ("1/3", 1 / 3),
    ("١/٣", 1 / 3), ("50%", 0.5), ("50٪", 0.5), ("1", 1.0), ("-0.25", -0.25),
    ("", None), ("abc", None), ("1/0", None), ("0.5.5", None), ("<img src=x>", None),
    ("1e309", None), ("nan", None), ("inf", None), ("9" * 50, None),
])
def test_parse_number(text, value):
    parsed = parse_number(text)
    assert parsed == pytest.approx(value) if value is not None else parsed is None
