"""metrics.fusion: RRF, CombSUM and CombMNZ equal to their formulas, worked by hand, and ties
ordered as trec_eval orders them."""

from __future__ import annotations

import io
import math

import numpy as np
import pandas as pd
import pytest

import metrics
from metrics.errors import MetricError
from metrics.fusion import fuse
from metrics.report import trec_run

# Two runs for one query. Run A ranks d1 d2 d3 (scores 3, 2, 1); run B ranks d2 d4 d1
# (scores 9, 5, 1).
A = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
B = {"q1": {"d2": 9.0, "d4": 5.0, "d1": 1.0}}


def scores(frame: pd.DataFrame, query: str = "q1") -> dict[str, float]:
    rows = frame[frame["query_id"] == query]
    return dict(zip(rows["doc_id"], rows["score"], strict=True))


def order(frame: pd.DataFrame, query: str = "q1") -> list[str]:
    return list(frame[frame["query_id"] == query]["doc_id"])


def test_rrf_by_hand():
    fused = fuse([A, B])
    # d1: ranks 1 (A) and 3 (B); d2: 2 and 1; d3: 3 in A only; d4: 2 in B only.
    assert scores(fused) == pytest.approx({"d1": 1 / 61 + 1 / 63, "d2": 1 / 62 + 1 / 61,
                                           "d3": 1 / 63, "d4": 1 / 62}, rel=1e-15)
    assert order(fused) == ["d2", "d1", "d4", "d3"]


def test_rrf_weights_and_k():
    fused = fuse({"a": A, "b": B}, weights=[2.0, 0.5], k=1)
    assert scores(fused) == pytest.approx({"d1": 2 / 2 + 0.5 / 4, "d2": 2 / 3 + 0.5 / 2,
                                           "d3": 2 / 4, "d4": 0.5 / 3}, rel=1e-15)
    assert order(fused) == ["d1", "d2", "d3", "d4"]


def test_combsum_and_combmnz_with_min_max():
    # A: (s - 1) / 2 -> d1 1, d2 0.5, d3 0. B: (s - 1) / 8 -> d2 1, d4 0.5, d1 0.
    assert scores(fuse([A, B], method="combsum")) == pytest.approx(
        {"d1": 1.0, "d2": 1.5, "d3": 0.0, "d4": 0.5})
    assert scores(fuse([A, B], method="combmnz")) == pytest.approx(
        {"d1": 2.0, "d2": 3.0, "d3": 0.0, "d4": 0.5})


def test_combsum_with_z_score():
    # A: mean 2, sd sqrt(2/3); B: mean 5, sd sqrt(32/3) (n in the denominator)
    sa, sb = math.sqrt(2 / 3), math.sqrt(32 / 3)
    expected = {"d1": 1 / sa + (1 - 5) / sb, "d2": 0.0 + 4 / sb, "d3": -1 / sa, "d4": 0.0}
    assert scores(fuse([A, B], method="combsum", norm="z-score")) == pytest.approx(expected)
    mnz = {d: v * (2 if d in ("d1", "d2") else 1) for d, v in expected.items()}
    assert scores(fuse([A, B], method="combmnz", norm="z-score")) == pytest.approx(mnz)


def test_combsum_with_sum_and_none():
    # sum: (s - min) / sum(s - min): A 2/3, 1/3, 0; B (8, 4, 0) / 12
    assert scores(fuse([A, B], method="combsum", norm="sum")) == pytest.approx(
        {"d1": 2 / 3 + 0, "d2": 1 / 3 + 8 / 12, "d3": 0.0, "d4": 4 / 12})
    assert scores(fuse([A, B], method="combmnz", norm="none", weights=[1, 0.1])) == \
        pytest.approx({"d1": 2 * (3 + 0.1), "d2": 2 * (2 + 0.9), "d3": 1.0, "d4": 0.5})


def test_a_list_without_spread_normalises_to_zero():
    one = {"q1": {"x": 7.0}}
    flat = {"q1": {"x": 2.0, "y": 2.0}}
    for norm in ("min-max", "z-score", "sum"):
        assert scores(fuse([one, flat], method="combsum", norm=norm)) == {"x": 0.0, "y": 0.0}


def test_ties_are_ordered_by_doc_id_descending():
    # In the input: equal scores rank the larger id first (trec_eval), so in A "b" is rank 1.
    a = {"q": {"a": 1.0, "b": 1.0}}
    b = {"q": {"c": 5.0}}
    fused = fuse([a, b])
    assert scores(fused, "q") == pytest.approx({"b": 1 / 61, "c": 1 / 61, "a": 1 / 62})
    assert order(fused, "q") == ["c", "b", "a"]
    # Three runs whose ranks permute the same contributions: equal fused scores, bit for bit,
    # whatever the order of addition; the tie goes to the larger id, "y" before "x".
    r1 = {"q": {"x": 3.0, "y": 2.0, "z": 1.0}}
    r2 = {"q": {"y": 3.0, "z": 2.0, "x": 1.0}}
    r3 = {"q": {"z": 3.0, "x": 2.0, "y": 1.0}}
    for method in ("rrf", "combsum", "combmnz"):
        s = scores(fuse([r1, r2, r3], method=method), "q")
        assert s["x"] == s["y"] == s["z"]
        assert order(fuse([r1, r2, r3], method=method), "q") == ["z", "y", "x"]
    weighted = scores(fuse([r1, r2, r3], weights=[0.1, 0.7, 0.3]), "q")
    assert len(set(weighted.values())) == 3
    # evaluate ranks the fused run the same way: a tie of x and y at the top, y relevant
    tied = fuse([{"q": {"x": 2.0, "y": 1.0}}, {"q": {"y": 2.0, "x": 1.0}}])
    assert metrics.evaluate(tied, {"q": {"y": 1}}, ["RR"]).at["q", "RR"] == 1.0
    assert metrics.evaluate(tied, {"q": {"x": 1}}, ["RR"]).at["q", "RR"] == 0.5


def test_depth_cuts_each_input_run():
    fused = fuse([A, B], depth=2)
    # d1 is B's rank 3 and d3 is A's rank 3: both left out of the run that had them there
    assert scores(fused) == pytest.approx({"d1": 1 / 61, "d2": 1 / 62 + 1 / 61, "d4": 1 / 62})


def _naive(runs, method, weights, k, norm):
    """The formulas, one document at a time (rank by score desc, doc id desc)."""
    out = {}
    for q in sorted(set().union(*runs)):
        total, count = {}, {}
        for run, w in zip(runs, weights, strict=True):
            docs = run.get(q, {})
            ranked = sorted(sorted(docs, reverse=True), key=lambda d, docs=docs: -docs[d])
            s = np.array([docs[d] for d in ranked])
            if norm == "min-max":
                span = s.max() - s.min() if len(s) else 0
                s = (s - s.min()) / span if span > 0 else np.zeros_like(s)
            elif norm == "z-score":
                sd = s.std() if len(s) else 0
                s = (s - s.mean()) / sd if sd > 0 else np.zeros_like(s)
            elif norm == "sum":
                shifted = s - s.min() if len(s) else s
                s = shifted / shifted.sum() if len(s) and shifted.sum() > 0 else np.zeros_like(s)
            for rank, (d, value) in enumerate(zip(ranked, s, strict=True), start=1):
                part = w / (k + rank) if method == "rrf" else w * value
                total[d] = total.get(d, 0.0) + part
                count[d] = count.get(d, 0) + 1
        for d in total:
            out[(q, d)] = total[d] * (count[d] if method == "combmnz" else 1)
    return out


@pytest.mark.parametrize("method,norm", [("rrf", "min-max"), ("combsum", "min-max"),
                                         ("combsum", "z-score"), ("combsum", "sum"),
                                         ("combmnz", "min-max"), ("combmnz", "z-score"),
                                         ("combmnz", "sum"), ("combmnz", "none")])
def test_equal_to_the_formulas_on_random_runs(method, norm):
    rng = np.random.default_rng(len(method) * 7 + len(norm))
    runs = []
    for _ in range(3):
        run = {}
        for q in range(12):
            docs = rng.choice(30, size=int(rng.integers(1, 15)), replace=False)
            run[f"q{q}"] = {f"d{d}": float(np.round(rng.normal(), 1)) for d in docs}
        runs.append(run)
    weights = [1.0, 0.5, 2.0]
    fused = fuse(runs, method=method, norm=norm, weights=weights, k=10)
    got = {(str(q), d): s for q, d, s in fused.itertuples(index=False)}
    want = _naive(runs, method, weights, 10, norm)
    assert got.keys() == want.keys()
    for key, value in want.items():
        assert got[key] == pytest.approx(value, abs=1e-12)
    # each query's documents: score descending, ties by doc id descending
    for _query, rows in fused.groupby("query_id", observed=True, sort=False):
        pairs = list(zip(rows["score"], rows["doc_id"], strict=True))
        assert pairs == sorted(sorted(pairs, key=lambda p: p[1], reverse=True),
                               key=lambda p: -p[0])


def test_fuses_read_run_frames_and_evaluates():
    text_a = "1 Q0 x 1 3 a\n1 Q0 y 2 2 a\n2 Q0 z 1 1 a\n"
    text_b = "10 Q0 y 1 9 b\n1 Q0 y 1 5 b\n1 Q0 w 2 4 b\n"
    run_a, run_b = metrics.read_run(io.StringIO(text_a)), metrics.read_run(io.StringIO(text_b))
    fused = fuse([run_a, run_b])
    assert list(fused["query_id"].cat.categories) == ["1", "10", "2"]
    assert list(fused.columns) == ["query_id", "doc_id", "score"]
    assert order(fused, "1") == ["y", "x", "w"]
    table = metrics.evaluate(fused, {"1": {"y": 1}, "2": {"z": 1}}, ["P@1"])
    assert table["P@1"].to_dict() == {"1": 1.0, "2": 1.0}
    # written as a TREC run and read back: the same values
    again = metrics.read_run(io.StringIO(trec_run(fused, "rrf")))
    pd.testing.assert_frame_equal(
        metrics.evaluate(again, {"1": {"y": 1, "w": 2}, "2": {"z": 1}}, ["AP", "nDCG@3"]),
        metrics.evaluate(fused, {"1": {"y": 1, "w": 2}, "2": {"z": 1}}, ["AP", "nDCG@3"]),
        check_like=False, check_exact=True)
    assert trec_run(fused, "rrf").splitlines()[0] == f"1 Q0 y 1 {1 / 61 + 1 / 62!r} rrf"


def test_bad_arguments():
    for kwargs, key in (({"method": "borda"}, "bad_parameter"), ({"norm": "max"}, "bad_parameter"),
                        ({"weights": [1.0]}, "bad_parameter"),
                        ({"weights": [-1.0, 1.0]}, "bad_parameter"),
                        ({"weights": [0, 0]}, "bad_parameter"), ({"k": -1}, "bad_parameter"),
                        ({"depth": 0}, "bad_parameter")):
        with pytest.raises(MetricError) as err:
            fuse([A, B], **kwargs)
        assert err.value.key == key
    with pytest.raises(MetricError) as err:
        fuse([A])
    assert err.value.key == "fusion_runs"
    with pytest.raises(MetricError):
        fuse([A, {"q1": {"d": float("nan")}}])


def test_same_result_whether_a_run_comes_in_rank_order_or_shuffled():
    # Written in rank order with ties in file order (not trec_eval's), then shuffled: the
    # in-order path only reorders the ties, the other sorts everything; both must agree.
    rng = np.random.default_rng(5)
    rows = []
    for q in range(30):
        scores = np.sort(np.round(rng.random(40), 1))[::-1]
        docs = rng.choice(200, size=40, replace=False)
        rows += [(f"q{q}", f"d{d}", s) for d, s in zip(docs, scores, strict=True)]
    ranked = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    other = ranked.sample(frac=1, random_state=1).assign(score=lambda f: f["score"] * 2 + 1)
    for method in ("rrf", "combmnz"):
        in_order = fuse([ranked, other], method=method)
        shuffled = fuse([ranked.sample(frac=1, random_state=2), other], method=method)
        pd.testing.assert_frame_equal(in_order, shuffled, check_exact=True)
    assert len(fuse([ranked.iloc[:0], ranked.iloc[:0]])) == 0
