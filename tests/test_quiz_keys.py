"""Every numeric quiz key of lessons 1, 2, 3, 5 and 6, recomputed with ``metrics``.

A quiz states its answer as a number typed once in ``quiz.toml``; here each is computed again
from the question's own data, with the same conventions the lesson teaches (RR@k, AP ÷ R, linear
gain and the judged ideal, a relevance threshold where the question sets one). The numbers that
the choice items quote about the lesson's examples are checked too. A numeric item added to one
of these banks without an entry here fails the first test.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal

import pytest

import metrics
from lessons.diagnose import logic as diagnose
from metrics.support import supported_share
from teaching import scenarios
from text.i18n import load_content, load_quiz

BANKS = ("two_stages", "recall_precision", "mrr", "ndcg", "diagnose")


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def _seed():
    mrr = scenarios.MRR
    golden = {q: dict.fromkeys(g, 1) for q, g in zip(mrr.questions, mrr.golden, strict=True)}
    runs = {n: {q: list(r) for q, r in zip(mrr.questions, run, strict=True)}
            for n, run in mrr.runs.items()}
    return golden, runs


def _seed_vector_map() -> float:
    golden, runs = _seed()
    return float(metrics.evaluate(runs["vector"], golden, ["AP@3"])["AP@3"].mean())


def _handbook_mrr() -> float:
    """Lesson 6's handbook diagnosis: its assistant's rankings against the answer key."""
    sc = diagnose.scenario(load_content("diagnose", "en"))
    return float(metrics.evaluate(sc.run, sc.qrels, ["RR@3"])["RR@3"].mean())


NUMERIC: dict[str, Callable[[], float]] = {
    # lesson 1
    "ts-faithfulness-share": lambda: supported_share([True, True, True, False]),
    "ts-recall-two-golden": lambda: metrics.recall(["d13", "d5", "d9"], {"d12", "d13"}, 3),
    # lesson 2
    "rp-seed-precision-at-4": lambda: metrics.precision(
        list(scenarios.RECALL_PRECISION.ranking), set(scenarios.RECALL_PRECISION.relevant), 4),
    "rp-precision-short-list": lambda: metrics.precision(["d3", "d8", "d5"], {"d3", "d5"}, 5),
    "rp-rr-first-hit": lambda: metrics.reciprocal_rank(["d5", "d1", "d8", "d3", "d2"],
                                                       {"d3", "d8"}, 5),
    "rp-r-precision": lambda: metrics.r_precision(["d3", "d9", "d8", "d1", "d6"],
                                                  {"d3", "d5", "d8"}),
    # lesson 3
    "mrr-three-questions": lambda: _mean([
        metrics.reciprocal_rank(["a"], {"a"}), metrics.reciprocal_rank(["x", "a"], {"a"}),
        metrics.reciprocal_rank(["x", "y"], {"a"})]),
    "mrr-ap-with-a-miss": lambda: metrics.average_precision(["d3", "d7", "d1", "d5"],
                                                            {"d5", "d7", "d9"}),
    "mrr-seed-map-vector": _seed_vector_map,
    # lesson 5
    "ndcg-discount-rank-3": lambda: metrics.discount(3),
    "ndcg-small-ranking": lambda: metrics.ndcg(["a", "b", "c"], {"a": 2, "b": 0, "c": 3}, 3),
    "ndcg-seed-trec-eval": lambda: metrics.ndcg(list(scenarios.NDCG_JUDGED.ranking),
                                                dict(scenarios.NDCG_JUDGED.qrels), 5),
    "ndcg-binary": lambda: metrics.ndcg(["a", "b", "c"], {"a": 0, "b": 1, "c": 1}, 3),
    "ndcg-threshold": lambda: metrics.precision(
        ["a", "b", "c", "d", "e"], {"a": 3, "b": 1, "c": 2, "d": 0, "e": 1}, 5, rel=2),
    # lesson 6
    "dg-mean-recall": lambda: _mean([1, 0.5, 0, 1]),
    "dg-handbook-mrr": _handbook_mrr,
}


def _items(bank: str):
    return load_quiz(bank, "en")


def test_every_numeric_item_is_recomputed():
    numeric = {item["id"] for bank in BANKS for item in _items(bank) if item["kind"] == "numeric"}
    assert numeric == set(NUMERIC)


@pytest.mark.parametrize("item_id", sorted(NUMERIC))
def test_the_key_is_what_metrics_computes(item_id: str):
    item = next(i for bank in BANKS for i in _items(bank) if i["id"] == item_id)
    assert NUMERIC[item_id]() == pytest.approx(item["answer"], abs=item["tolerance"])


@pytest.mark.parametrize("item_id", sorted(NUMERIC))
def test_a_key_rounded_to_two_decimals_either_way_is_accepted(item_id: str):
    """A key rounded to two decimals is right, either way at a midpoint: 0.625 typed as 0.62
    or 0.63 (each exactly 0.005 away, a boundary floats could lose)."""
    from ui.quiz import numeric_right

    item = next(i for bank in BANKS for i in _items(bank) if i["id"] == item_id)
    key = Decimal(repr(item["answer"]))
    for mode in (ROUND_HALF_UP, ROUND_HALF_EVEN):      # 0.625 → 0.63 or 0.62
        assert numeric_right(float(key.quantize(Decimal("0.01"), rounding=mode)), item), mode
    assert not numeric_right(item["answer"] + 2 * item.get("tolerance", 0.005), item)


def _option(item_id: str, fragment: str) -> dict:
    item = next(i for bank in BANKS for i in _items(bank) if i["id"] == item_id)
    return next(o for o in item["options"] if fragment in o["text"])


def test_the_numbers_the_choice_items_quote():
    # mrr-not-inverse-mean-rank: first hits at ranks 1 and 4
    rr = [metrics.reciprocal_rank(["a"], {"a"}), metrics.reciprocal_rank(["x", "y", "z", "a"],
                                                                        {"a"})]
    assert _option("mrr-not-inverse-mean-rank", "0.625")["correct"] and _mean(rr) == 0.625
    # mrr-p-value-meaning, mrr-copies-not-evidence: the seed's paired t-test on RR@3
    golden, runs = _seed()
    cmp = metrics.compare(runs["vector"], runs["hybrid"], golden, "RR@3")
    assert round(cmp.p_ttest, 2) == 0.43 and round(cmp.mean_delta, 2) == 0.23
    copies = {f"{q}_{n}": g for n in range(10) for q, g in golden.items()}
    copied = {name: {f"{q}_{n}": r for n in range(10) for q, r in run.items()}
              for name, run in runs.items()}
    many = metrics.compare(copied["vector"], copied["hybrid"], copies, "RR@3")
    assert round(many.p_ttest, 3) == 0.004 and round(many.mean_delta, 2) == 0.23
    # ndcg-exponential-gain: [1, 3, 0], linear about 0.80, exponential about 0.71
    grades = {"a": 1, "b": 3, "c": 0}
    assert round(metrics.ndcg(["a", "b", "c"], grades, 3), 2) == 0.80
    assert round(metrics.ndcg(["a", "b", "c"], grades, 3, gain="exponential"), 2) == 0.71
    # ndcg-perfect-but-missing: [3, 1, 0] with a missed grade-2 chunk gives 0.76
    assert round(metrics.ndcg(["a", "b", "c"], {"a": 3, "b": 1, "c": 0, "m": 2}, 3), 2) == 0.76
    # dg-pooled-vs-mean: per question (1 + 0.25) / 2 = 0.625, pooled 2 / 5 = 0.4
    q1 = metrics.recall(["g", "x", "y"], {"g"}, 3)
    q2 = metrics.recall(["a", "x", "y"], {"a", "b", "c", "d"}, 3)
    assert _mean([q1, q2]) == 0.625
    # rp-f1-harmonic: precision 0.2, recall 1.0
    assert round(metrics.f1(["a", "x", "y", "z", "w"], {"a"}, 5), 2) == 0.33
    # rp-hitrate-vs-recall: 4 relevant, one in the top 5
    top5 = ["a", "x", "y", "z", "w"]
    assert (metrics.hit_rate(top5, {"a", "b", "c", "d"}, 5),
            metrics.recall(top5, {"a", "b", "c", "d"}, 5)) == (1.0, 0.25)
