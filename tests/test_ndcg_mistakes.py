"""The graded entries of ``teaching.mistakes`` (added for lesson 5): each diagnosed mistake gives
exactly its wrong formula's value — written out again here, independently, with plain loops —
and never the right one; the right values are trec_eval's (checked against pytrec_eval)."""

from __future__ import annotations

import math

import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

from teaching import mistakes

SEED = (["d3", "d8", "d1", "d6", "d5"], {"d3": 3, "d8": 2, "d1": 3, "d6": 0, "d5": 1})
MISSED = (SEED[0], {**SEED[1], "d2": 3})              # an exact answer never retrieved
DEEP = (["a", "b", "c", "d"], {"a": 1, "b": 0, "c": 2, "d": 0, "x": 3, "y": 2, "z": 1})


# --- the wrong formulas, written out independently ---------------------------------------------


def grades(ranking, qrels):
    return [qrels.get(d, 0) for d in ranking]


def gain(g, kind):
    if g <= 0:
        return 0.0
    return float(g) if kind == "linear" else 2.0**g - 1


def weight(i, kind):
    if kind == "log2(i+1)":
        return 1 / math.log2(i + 1)
    if kind == "log2(i)":
        return 1.0 if i == 1 else 1 / math.log2(i)
    if kind == "log2(i+2)":
        return 1 / math.log2(i + 2)
    if kind == "ln(i+1)":
        return 1 / math.log(i + 1)
    return 1.0                                          # "none"


def dcg(gs, k, g="linear", w="log2(i+1)"):
    total = 0.0
    for i, grade in enumerate(gs, start=1):
        if k is not None and i > k:
            break
        total += gain(grade, g) * weight(i, w)
    return total


def ideal(ranking, qrels, source="judged"):
    pool = list(qrels.values()) if source == "judged" else grades(ranking, qrels)
    return sorted(pool, reverse=True)


def ndcg(top, best):
    return top / best if best > 0 else 0.0


def expected(measure, key, ranking, qrels, k):
    """The value the wrong formula ``key`` gives, by hand."""
    gs, g, w, source, cut = grades(ranking, qrels), "linear", "log2(i+1)", "judged", k
    sort = True
    if key == "exponential_gain":
        g = "exponential"
    elif key.startswith("discount_"):
        w = {"discount_log2_i": "log2(i)", "discount_log2_i_plus_2": "log2(i+2)",
             "discount_ln": "ln(i+1)"}[key]
    elif key == "no_discount":
        w = "none"
    elif key == "ideal_from_retrieved":
        source = "retrieved"
    elif key == "ideal_not_cut":
        cut = None
    elif key == "ideal_not_sorted":
        sort = False
    top = dcg(gs, k, g, w)
    best = dcg(ideal(ranking, qrels, source) if sort else gs, cut, g, w)
    if measure == "dcg":
        return top
    if measure == "idcg":
        return best
    if key == "not_normalised":
        return top
    if key == "ndcg_inverted":
        return best / top if top > 0 else None
    return ndcg(top, best)


RIGHT = {"dcg": lambda r, q, k: dcg(grades(r, q), k),
         "idcg": lambda r, q, k: dcg(ideal(r, q), k),
         "ndcg": lambda r, q, k: ndcg(dcg(grades(r, q), k), dcg(ideal(r, q), k))}
SINGLE = [(m, key) for m in ("dcg", "idcg", "ndcg") for key in mistakes.MISTAKES[m]
          if key != "off_by_one_k"]


def test_the_catalogue_has_the_graded_slips():
    assert set(mistakes.MISTAKES["dcg"]) == {
        "exponential_gain", "discount_log2_i", "discount_log2_i_plus_2", "discount_ln",
        "no_discount", "off_by_one_k"}
    assert set(mistakes.MISTAKES["idcg"]) == set(mistakes.MISTAKES["dcg"]) | {
        "ideal_from_retrieved", "ideal_not_sorted", "ideal_not_cut"}
    assert set(mistakes.MISTAKES["ndcg"]) == set(mistakes.MISTAKES["dcg"]) | {
        "ideal_from_retrieved", "ideal_not_cut", "not_normalised", "ndcg_inverted"}
    # the entries that were there before are untouched
    for measure in ("precision", "recall", "hit_rate", "f1", "rr"):
        assert measure in mistakes.MEASURES and measure in mistakes.MISTAKES


@pytest.mark.parametrize("case", [SEED, MISSED, DEEP], ids=["seed", "missed", "deep"])
@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_right_values_match_the_hand_formula(case, k):
    ranking, qrels = case
    for measure, right in RIGHT.items():
        assert mistakes.MEASURES[measure](ranking, qrels, k) == pytest.approx(
            right(ranking, qrels, k))


@pytest.mark.parametrize("measure, key", SINGLE)
@pytest.mark.parametrize("case", [SEED, MISSED, DEEP], ids=["seed", "missed", "deep"])
@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_each_mistake_is_its_wrong_formula(measure, key, case, k):
    ranking, qrels = case
    wrong = mistakes.MISTAKES[measure][key](ranking, qrels, k)
    by_hand = expected(measure, key, ranking, qrels, k)
    assert (wrong is None) == (by_hand is None)
    if wrong is None:
        return
    assert wrong == pytest.approx(by_hand)
    right = mistakes.MEASURES[measure](ranking, qrels, k)
    if abs(wrong - right) > 0.005:
        diagnosed = mistakes.diagnose(measure, ranking, qrels, k, wrong)
        # the first slip in the catalogue with this value is named (an earlier one may coincide)
        earlier = list(mistakes.MISTAKES[measure])
        assert earlier.index(diagnosed) <= earlier.index(key)
        first = mistakes._values(mistakes.MISTAKES[measure][diagnosed](ranking, qrels, k))
        assert any(abs(v - wrong) <= 0.005 for v in first)
        assert diagnosed in mistakes.distinct_mistakes(measure, ranking, qrels, k)
    else:
        assert key not in mistakes.distinct_mistakes(measure, ranking, qrels, k)


@pytest.mark.parametrize("measure, case, k, answer, key", [
    ("ndcg", MISSED, 5, 0.9724, "ideal_from_retrieved"),     # the seed's code
    ("ndcg", MISSED, 5, 6.1487, "not_normalised"),
    ("ndcg", MISSED, 5, 0.7701, "exponential_gain"),
    ("ndcg", MISSED, 5, 0.7855, "discount_log2_i"),
    ("dcg", SEED, 5, 7.3235, "discount_log2_i"),
    ("dcg", SEED, 5, 4.5410, "discount_log2_i_plus_2"),
    ("ndcg", MISSED, 5, 0.75, "no_discount"),
    ("ndcg", MISSED, 5, 1.2427, "ndcg_inverted"),
    ("ndcg", MISSED, 5, 80.47, "percent_not_fraction"),
    ("ndcg", MISSED, 5, 0.5, "wrong_unknown"),
    ("ndcg", MISSED, 5, 0.8047, "correct"),
    ("idcg", MISSED, 5, 6.3235, "ideal_from_retrieved"),
    ("idcg", MISSED, 5, 6.1487, "ideal_not_sorted"),
    ("idcg", DEEP, 2, 6.0794, "ideal_not_cut"),
    ("dcg", SEED, 5, 12.7796, "exponential_gain"),
    ("dcg", SEED, 5, 8.8707, "discount_ln"),
    ("dcg", SEED, 5, 9.0, "no_discount"),
    ("dcg", SEED, 5, 6.1487, "correct"),
])
def test_named_graded_mistakes(measure, case, k, answer, key):
    ranking, qrels = case
    assert mistakes.diagnose(measure, ranking, qrels, k, answer) == key


def test_log_base_cancels_out_in_ndcg_so_it_is_no_mistake_there():
    ranking, qrels = MISSED
    assert "discount_ln" not in mistakes.distinct_mistakes("ndcg", ranking, qrels, 5)
    assert "discount_ln" in mistakes.distinct_mistakes("dcg", ranking, qrels, 5)


def test_right_ndcg_is_trec_evals():
    ranking, qrels = MISSED
    run = {"q": {d: float(len(ranking) - i) for i, d in enumerate(ranking)}}
    result = pytrec_eval.RelevanceEvaluator({"q": qrels}, {"ndcg_cut.5"}).evaluate(run)
    assert mistakes.MEASURES["ndcg"](ranking, qrels, 5) == pytest.approx(
        result["q"]["ndcg_cut_5"])


@settings(max_examples=200, deadline=None)
@given(grades_=st.lists(st.integers(0, 3), min_size=1, max_size=7),
       extra=st.lists(st.integers(0, 3), max_size=3), k=st.integers(1, 8),
       measure=st.sampled_from(["dcg", "idcg", "ndcg"]))
def test_generated_cases(grades_, extra, k, measure):
    ranking = [f"d{i}" for i in range(len(grades_))]
    qrels = {f"x{i}": g for i, g in enumerate(extra)}
    qrels.update(zip(ranking, grades_, strict=True))
    right = mistakes.MEASURES[measure](ranking, qrels, k)
    assert right == pytest.approx(RIGHT[measure](ranking, qrels, k))
    assert mistakes.diagnose(measure, ranking, qrels, k, right) == "correct"
    for key in mistakes.distinct_mistakes(measure, ranking, qrels, k):
        for value in mistakes._values(mistakes.MISTAKES[measure][key](ranking, qrels, k)):
            if key != "off_by_one_k":
                assert value == pytest.approx(expected(measure, key, ranking, qrels, k))
            if abs(value - right) > 0.005:
                assert mistakes.diagnose(measure, ranking, qrels, k, value) != "correct"
