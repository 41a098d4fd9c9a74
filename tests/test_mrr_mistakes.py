"""Lesson 3's entries in the mistake catalogue (AP on one ranking, MRR over several questions):
each diagnosed mistake is exactly its wrong formula's value, and never the right one."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import metrics
from teaching import mistakes

AP_KEYS = ("ap_divided_by_retrieved_relevant", "ap_precision_at_every_rank", "ap_not_divided",
           "ap_divided_by_k", "ap_first_hit_only")
MRR_KEYS = ("mrr_inverse_mean_rank", "mrr_skip_misses", "mrr_of_last_hits", "mrr_mean_rank",
            "mrr_sum_not_mean")


def test_the_new_entries_are_there_and_the_old_ones_unchanged():
    assert tuple(mistakes.MISTAKES["ap"]) == AP_KEYS
    assert tuple(mistakes.MEAN_MISTAKES["mrr"]) == MRR_KEYS
    assert mistakes.MEASURES["ap"] is metrics.average_precision
    assert tuple(mistakes.MISTAKES["rr"]) == ("rr_of_last_hit", "rr_not_inverted", "off_by_one_k")
    assert tuple(mistakes.MEASURES)[:5] == ("precision", "recall", "hit_rate", "f1", "rr")


# One ranking, relevant at ranks 2 and 4, plus d9 relevant but never retrieved: R = 3.
# AP = (1/2 + 2/4) / 3 = 1/3.
MISSED = (["d1", "d2", "d3", "d4"], {"d2", "d4", "d9"}, 4)


@pytest.mark.parametrize("key, case, wrong", [
    ("ap_divided_by_retrieved_relevant", MISSED, (1 / 2 + 2 / 4) / 2),
    # relevant at ranks 1 and 3: AP = (1 + 2/3) / 2; every rank: (1 + 1/2 + 2/3 + 2/4) / 4
    ("ap_precision_at_every_rank", (["d1", "d2", "d3", "d4"], {"d1", "d3"}, 4),
     (1 + 1 / 2 + 2 / 3 + 2 / 4) / 4),
    ("ap_not_divided", MISSED, 1 / 2 + 2 / 4),
    ("ap_divided_by_k", (["d1", "d2", "d3", "d4", "d5"], {"d2", "d4"}, 5), (1 / 2 + 2 / 4) / 5),
    # relevant at ranks 2 and 3: AP = (1/2 + 2/3) / 2, RR = 1/2
    ("ap_first_hit_only", (["d1", "d2", "d3", "d4"], {"d2", "d3"}, 4), 1 / 2),
])
def test_each_ap_mistake_is_its_wrong_formula(key, case, wrong):
    ranking, relevant, k = case
    right = metrics.average_precision(ranking, relevant, k)
    value = mistakes.MISTAKES["ap"][key](ranking, relevant, k)
    assert value == pytest.approx(wrong)
    assert abs(value - right) > 0.01
    assert mistakes.diagnose("ap", ranking, relevant, k, round(wrong, 3)) == key
    assert mistakes.diagnose("ap", ranking, relevant, k, round(right, 2)) == "correct"


def questions(*cases):
    return [(ranking.split(), set(relevant.split())) for ranking, relevant in cases]


# First hits at ranks 1 and 3, and a question with no hit: MRR = (1 + 1/3 + 0) / 3 = 4/9.
WITH_MISS = questions(("d1 d2 d3", "d1"), ("d4 d5 d6", "d6"), ("d7 d8", "d9"))
# First hits at ranks 1 and 4, the first question has a second hit at rank 3.
TWO = questions(("d1 d2 d3", "d1 d3"), ("d4 d5 d6 d7", "d7"))


@pytest.mark.parametrize("key, qs, wrong", [
    ("mrr_inverse_mean_rank", WITH_MISS, 1 / 2),             # 1 / mean(1, 3)
    ("mrr_skip_misses", WITH_MISS, (1 + 1 / 3) / 2),
    ("mrr_of_last_hits", TWO, (1 / 3 + 1 / 4) / 2),
    ("mrr_mean_rank", TWO, 2.5),
    ("mrr_sum_not_mean", TWO, 1 + 1 / 4),
])
def test_each_mrr_mistake_is_its_wrong_formula(key, qs, wrong):
    right = mistakes.MEAN_MEASURES["mrr"](qs)
    run = {f"q{i}": r for i, (r, _) in enumerate(qs)}
    qrels = {f"q{i}": dict.fromkeys(g, 1) for i, (_, g) in enumerate(qs)}
    assert right == pytest.approx(metrics.evaluate(run, qrels, ["RR"])["RR"].mean())
    value = mistakes.MEAN_MISTAKES["mrr"][key](qs)
    assert value == pytest.approx(wrong)
    assert abs(value - right) > 0.01
    assert mistakes.diagnose_mean("mrr", qs, round(wrong, 3)) == key
    assert mistakes.diagnose_mean("mrr", qs, round(right, 2)) == "correct"


def test_mrr_special_answers():
    right = mistakes.MEAN_MEASURES["mrr"](WITH_MISS)
    assert mistakes.diagnose_mean("mrr", WITH_MISS, 100 * right) == "percent_not_fraction"
    assert mistakes.diagnose_mean("mrr", WITH_MISS, 0.91) == "wrong_unknown"
    # one question, first hit on top: every wrong formula gives 1 too, so none can teach here
    assert mistakes.distinct_mean_mistakes("mrr", questions(("d1 d2", "d1"))) == []
    with pytest.raises(ValueError):
        mistakes.MEAN_MEASURES["mrr"]([])


docs = st.lists(st.sampled_from([f"d{i}" for i in range(1, 9)]), min_size=1, max_size=6,
                unique=True)


@settings(max_examples=300, deadline=None)
@given(ranking=docs, relevant=st.sets(st.sampled_from([f"d{i}" for i in range(1, 11)]),
                                      min_size=1, max_size=4), k=st.integers(1, 7))
def test_ap_diagnosis_matches_its_formula_on_any_case(ranking, relevant, k):
    right = metrics.average_precision(ranking, relevant, k)
    assert mistakes.MEASURES["ap"](ranking, relevant, k) == right
    for key in mistakes.distinct_mistakes("ap", ranking, relevant, k):
        for value in mistakes._values(mistakes.MISTAKES["ap"][key](ranking, relevant, k)):
            if abs(value - right) <= 0.005:
                continue
            diagnosed = mistakes.diagnose("ap", ranking, relevant, k, value)
            if diagnosed == "percent_not_fraction":           # checked first, on purpose
                assert abs(value - 100 * right) <= 0.5 + 1e-9
                continue
            assert diagnosed in mistakes.MISTAKES["ap"]       # an earlier one may match first
            first = mistakes.MISTAKES["ap"][diagnosed](ranking, relevant, k)
            assert any(abs(v - value) <= 0.005 for v in mistakes._values(first))
            assert abs(value - right) > 0.005


@settings(max_examples=300, deadline=None)
@given(qs=st.lists(st.tuples(docs, st.sets(st.sampled_from([f"d{i}" for i in range(1, 11)]),
                                           min_size=1, max_size=3)), min_size=1, max_size=5))
def test_mrr_diagnosis_matches_its_formula_on_any_case(qs):
    qs = [(list(r), set(g)) for r, g in qs]
    right = mistakes.MEAN_MEASURES["mrr"](qs)
    run = {f"q{i}": r for i, (r, _) in enumerate(qs)}
    qrels = {f"q{i}": dict.fromkeys(g, 1) for i, (_, g) in enumerate(qs)}
    assert right == pytest.approx(metrics.evaluate(run, qrels, ["RR"])["RR"].mean())
    for key in mistakes.distinct_mean_mistakes("mrr", qs):
        for value in mistakes._values(mistakes.MEAN_MISTAKES["mrr"][key](qs)):
            if abs(value - right) <= 0.005:
                continue
            diagnosed = mistakes.diagnose_mean("mrr", qs, value)
            if diagnosed == "percent_not_fraction":           # checked first, on purpose
                assert abs(value - 100 * right) <= 0.5 + 1e-9
                continue
            assert diagnosed in mistakes.MEAN_MISTAKES["mrr"]
            first = mistakes.MEAN_MISTAKES["mrr"][diagnosed](qs)
            assert any(abs(v - value) <= 0.005 for v in mistakes._values(first))
