"""The metrics package: the seeds' worked numbers, the conventions, the registry, bad input."""

from __future__ import annotations

import contextlib
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import metrics
from metrics import MetricError

SEED_RANKING = ["d7", "d2", "d9", "d4", "d1"]
SEED_RELEVANT = {"d2", "d4"}
GOLDEN = {"q1": {"d1"}, "q2": {"d4", "d5"}, "q3": {"d9"}, "q4": {"d2"}, "q5": {"d7"}}
VECTOR = {"q1": "d1 d3 d2", "q2": "d5 d8 d6", "q3": "d2 d6 d9", "q4": "d3 d1 d8", "q5": "d7 d5 d1"}
HYBRID = {"q1": "d1 d2 d3", "q2": "d4 d5 d8", "q3": "d9 d2 d6", "q4": "d2 d3 d1", "q5": "d5 d7 d1"}
QRELS = {q: dict.fromkeys(docs, 1) for q, docs in GOLDEN.items()}
RUNS = {name: {q: r.split() for q, r in run.items()}
        for name, run in (("vector", VECTOR), ("hybrid", HYBRID))}
GRADED = dict(zip(["a", "b", "c", "d", "e"], [3, 2, 3, 0, 1], strict=True))


def close(a: float, b: float, places: int = 4) -> bool:
    return round(a, places) == round(b, places)


def test_lesson_seed_ranking():
    r, q = SEED_RANKING, SEED_RELEVANT
    assert metrics.recall(r, q, 3) == 0.5
    assert metrics.recall(r, q, 5) == 1.0
    assert close(metrics.precision(r, q, 3), 0.33, 2)
    assert metrics.reciprocal_rank(r, q) == 0.5
    assert metrics.hit_rate(r, q, 1) == 0.0 and metrics.hit_rate(r, q, 2) == 1.0
    assert close(metrics.f1(r, q, 3), 0.4)
    assert metrics.average_precision(r, q) == 0.5
    assert metrics.average_precision(r, q, 3) == 0.25
    assert metrics.r_precision(r, q) == 0.5
    assert close(metrics.ndcg(r, q, 5), 0.650921, 6)


def test_lesson_seed_systems():
    means = {name: metrics.evaluate(run, QRELS, ["R@3", "RR", "AP"]).mean()
             for name, run in RUNS.items()}
    assert close(means["vector"]["R@3"], 0.70) and close(means["vector"]["RR"], 0.6667)
    assert close(means["hybrid"]["R@3"], 1.00) and close(means["hybrid"]["RR"], 0.90)
    assert close(means["vector"]["AP"], 0.5667) and close(means["hybrid"]["AP"], 0.90)


def test_compare_seed_systems():
    rr = metrics.compare(RUNS["vector"], RUNS["hybrid"], QRELS, "RR")
    assert [round(d, 3) for d in rr.per_query["delta"]] == [0, 0, 0.667, 1, -0.5]
    assert (rr.wins, rr.ties, rr.losses) == (2, 2, 1)
    assert list(rr.regressions.index) == ["q5"]
    assert close(rr.p_ttest, 0.431, 3)
    recall = metrics.compare(RUNS["vector"], RUNS["hybrid"], QRELS, "R@3")
    assert close(recall.p_ttest, 0.208, 3)
    assert recall.randomization_exact and 0 < recall.p_randomization <= 1
    assert recall.ci_low <= recall.mean_delta <= recall.ci_high


def test_compare_randomization_is_reproducible_for_a_seed():
    rng = np.random.default_rng(7)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 2)) for j in range(10)} for i in range(40)}
    run_a = {q: list(rng.permutation(10).astype(str)) for q in qrels}
    run_a = {q: [f"d{x}" for x in r] for q, r in run_a.items()}
    run_b = {q: list(reversed(r)) for q, r in run_a.items()}
    first = metrics.compare(run_a, run_b, qrels, "AP", seed=3)
    again = metrics.compare(run_a, run_b, qrels, "AP", seed=3)
    assert not first.randomization_exact
    assert first.p_randomization == again.p_randomization
    assert (first.ci_low, first.ci_high) == (again.ci_low, again.ci_high)


def test_graded_seed():
    ranking = list(GRADED)
    assert close(metrics.dcg(ranking, GRADED, 5), 6.1487)
    assert close(metrics.idcg(ranking, GRADED, 5, ideal="retrieved"), 6.3235)
    assert close(metrics.ndcg(ranking, GRADED, 5, ideal="retrieved"), 0.9724)
    assert close(metrics.ndcg(ranking, GRADED, 5, gain="exponential", ideal="retrieved"), 0.9575)
    assert close(metrics.dcg(ranking, GRADED, 5, gain="exponential"), 12.779642, 6)
    assert close(metrics.idcg(ranking, GRADED, 5, gain="exponential"), 13.347185, 6)
    judged = {**GRADED, "unretrieved": 3}
    assert close(metrics.ndcg(ranking, judged, 5), 0.8047)
    assert close(metrics.ndcg(ranking, judged, 5, gain="exponential"), 0.770072, 6)
    # The pitfall: the retrieved-only ideal does not see the missed document.
    assert close(metrics.ndcg(ranking, judged, 5, ideal="retrieved"), 0.9724)


def test_conventions():
    # precision@k divides by k even when fewer were retrieved
    assert metrics.precision(["a"], {"a"}, 5) == 0.2
    # recall divides by every relevant document in the judgments
    assert metrics.recall(["a", "b"], {"a", "z"}, 2) == 0.5
    # RR@k really cuts at k
    assert metrics.reciprocal_rank(["x", "y", "a"], {"a"}, 2) == 0.0
    assert metrics.reciprocal_rank(["x", "y", "a"], {"a"}) == pytest.approx(1 / 3)
    # the first occurrence of a duplicate counts
    assert metrics.precision(["a", "a", "b"], {"b"}, 2) == 0.5
    # negative grades are never relevant and add no gain
    assert metrics.precision(["a"], {"a": -1}, 1) == 0.0
    assert metrics.dcg(["a", "b"], {"a": -2, "b": 1}, 2) == pytest.approx(1 / math.log2(3))
    # no relevant document: 0, not a division error
    for fn in (metrics.recall, metrics.f1, metrics.ndcg):
        assert fn(["a"], {"a": 0}, 1) == 0.0
    assert metrics.average_precision(["a"], set()) == 0.0
    # AP denominators
    ranking, qrels = ["x", "a", "y", "b"], {"a", "b", "c"}
    assert metrics.average_precision(ranking, qrels) == pytest.approx((1 / 2 + 2 / 4) / 3)
    assert metrics.average_precision(ranking, qrels, norm="retrieved") == pytest.approx(0.5)
    assert metrics.average_precision(ranking, qrels, 2, norm="min_k_R") == pytest.approx(0.25)
    # the binary threshold
    assert metrics.precision(["a", "b"], {"a": 1, "b": 2}, 2, rel=2) == 0.5


@pytest.mark.parametrize("call, key", [
    (lambda: metrics.precision(["a"], {"a"}, 0), "bad_cutoff"),
    (lambda: metrics.recall(["a"], {"a"}, 2.5), "bad_cutoff"),
    (lambda: metrics.precision(["a"], {"a"}, True), "bad_cutoff"),
    (lambda: metrics.ndcg(["a"], {"a": 1.5}, 1), "non_integer_grade"),
    (lambda: metrics.ndcg(["a"], {"a": float("nan")}, 1), "non_integer_grade"),
    (lambda: metrics.precision(["a"], {"a": "2"}, 1), "non_integer_grade"),
    (lambda: metrics.precision("abc", {"a"}, 1), "ranking_not_sequence"),
    (lambda: metrics.precision(["a"], {"a"}, 1, rel=0), "bad_rel"),
    (lambda: metrics.average_precision(["a"], {"a"}, norm="k"), "bad_parameter"),
    (lambda: metrics.dcg(["a"], {"a": 1}, 1, gain="cubic"), "bad_parameter"),
    (lambda: metrics.ndcg(["a"], {"a": 1}, 1, ideal="oracle"), "bad_parameter"),
    (lambda: metrics.parse("MRRR@10"), "unknown_measure"),
    (lambda: metrics.parse("recip_rank_10"), "unknown_measure"),
    (lambda: metrics.parse("IPrec@1.5"), "bad_cutoff"),
    (lambda: metrics.parse("IPrec"), "cutoff_required"),
    (lambda: metrics.parse("P"), "cutoff_required"),
    (lambda: metrics.parse("P@0"), "bad_cutoff"),
    (lambda: metrics.parse("P@x"), "bad_cutoff"),
    (lambda: metrics.parse("Rprec@5"), "cutoff_not_allowed"),
    (lambda: metrics.parse("P(gain=linear)@5"), "unknown_parameter"),
    (lambda: metrics.parse("nDCG(gain=cubic)@5"), "bad_parameter"),
    (lambda: metrics.parse("P(rel=0)@5"), "bad_parameter"),
    (lambda: metrics.evaluate({"q": {"a": float("nan")}}, {"q": {"a": 1}}, ["P@1"]), "nan_score"),
    (lambda: metrics.evaluate({"q": {"a": 1}}, {"q": {"a": 0.5}}, ["P@1"]), "non_integer_grade"),
    (lambda: metrics.evaluate({"q": {"a": 1}}, {"q": {"a": 1}}, []), "no_measures"),
    (lambda: metrics.evaluate({"q": {"a": 1}}, {"q": {"a": 1}}, ["P@1"], missing="x"),
     "bad_parameter"),
    (lambda: metrics.evaluate({"q": "a b"}, {"q": {"a": 1}}, ["P@1"]), "bad_run"),
])
def test_bad_input_raises_a_keyed_error(call, key):
    with pytest.raises(MetricError) as error:
        call()
    assert error.value.key == key
    assert isinstance(error.value, ValueError)


def test_unknown_measure_lists_the_close_and_the_valid_ones():
    with pytest.raises(MetricError) as error:
        metrics.evaluate({"q": ["a"]}, {"q": {"a": 1}}, ["nDGC@10"])
    assert error.value.params["close"][0] == "nDCG"
    assert "Did you mean nDCG" in str(error.value) and "Bpref" in str(error.value)


def test_registry_parses_ir_measures_syntax():
    spec = metrics.parse("nDCG(gain=exponential, ideal=retrieved)@10")
    assert (spec.name, spec.k, dict(spec.params)) == (
        "nDCG", 10, {"gain": "exponential", "ideal": "retrieved"})
    assert spec.canonical() == "nDCG(gain=exponential,ideal=retrieved)@10"
    assert metrics.parse("ndcg@5").name == "nDCG"
    assert metrics.parse("AP").k is None
    for measure in metrics.REGISTRY.values():
        assert measure.description["ar"] and measure.description["en"]
        assert measure.formula and measure.citation


def test_evaluate_table_shape_and_policies():
    run = {"q1": {"a": 2.0, "b": 1.0}, "q9": {"a": 1.0}, "q3": {"x": 1.0, "y": 1.0}}
    qrels = {"q1": {"a": 1}, "q2": {"a": 1}, "q3": {"x": 0}, "q10": {"z": 2}}
    table = metrics.evaluate(run, qrels, ["P@1", "nDCG@5"])
    assert list(table.index) == ["q1", "q2", "q3", "q10"]   # natural order, strings
    assert list(table.columns) == ["P@1", "nDCG@5"]
    assert table.attrs["missing_queries"] == ["q2", "q10"]
    assert table.attrs["unjudged_queries"] == ["q9"]
    assert table.attrs["no_relevant_queries"] == ["q3"]
    assert table.attrs["tied_pairs"] == 1
    assert table.loc["q2"].tolist() == [0.0, 0.0]
    skipped = metrics.evaluate(run, qrels, ["P@1"], missing="skip")
    assert list(skipped.index) == ["q1", "q3"]


def test_evaluate_accepts_frames_and_list_runs_alike():
    run = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "a"],
                        "score": [0.5, 0.9, 0.1]})
    qrels = pd.DataFrame({"query_id": ["1", "2"], "doc_id": ["a", "a"], "grade": [1, 2]})
    from_frame = metrics.evaluate(run, qrels, ["RR", "nDCG@2"])
    from_lists = metrics.evaluate({"1": ["b", "a"], "2": ["a"]}, {"1": {"a": 1}, "2": {"a": 2}},
                                  ["RR", "nDCG@2"])
    pd.testing.assert_frame_equal(from_frame, from_lists)
    categorical = run.astype({"query_id": "category", "doc_id": "category"})
    pd.testing.assert_frame_equal(metrics.evaluate(categorical, qrels, ["RR", "nDCG@2"]),
                                  from_frame)


def test_duplicate_documents_in_a_frame_keep_the_best_ranked_copy():
    run = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "a"], "score": [1, 3, 2]})
    table = metrics.evaluate(run, {"q": {"a": 1}}, ["P@2", "RR"])
    assert table.loc["q"].tolist() == [0.5, 0.5]
    assert table.attrs["duplicates_dropped"] == 1


ids = st.text(min_size=0, max_size=4)
grades = st.one_of(st.integers(-3, 5), st.floats(allow_nan=True), st.text(max_size=2),
                   st.booleans(), st.none())


@settings(max_examples=300, deadline=None)
@given(ranking=st.lists(ids, max_size=8), qrels=st.dictionaries(ids, grades, max_size=6),
       k=st.one_of(st.integers(-2, 10), st.floats(), st.none(), st.text(max_size=2)),
       measure=st.sampled_from(sorted(metrics.REGISTRY)))
def test_no_other_exception_escapes_a_measure(ranking, qrels, k, measure):
    spec = metrics.REGISTRY[measure]
    args = [] if spec.cutoff == "none" else [k]
    try:
        value = spec.function(ranking, qrels, *args)
    except MetricError:
        return
    assert value >= 0.0 or measure in ("DCG", "IDCG")
    assert math.isfinite(value)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_parse_never_raises_anything_else(text):
    with contextlib.suppress(MetricError):
        metrics.parse(text)


def test_import_is_light_and_names_stay_functions():
    """``import metrics`` and ``metrics.read_run`` load no pandas (``read_run`` loads it while
    pyarrow parses, see ``metrics._dependencies``); importing the modules named like the
    functions ``evaluate`` and ``compare`` leaves those names the functions."""
    code = (
        "import sys, types, metrics\n"
        "metrics.read_run, metrics.read_qrels, metrics.FormatError\n"
        "assert 'pandas' not in sys.modules, 'pandas loaded too early'\n"
        "import metrics.report, metrics.summary, metrics.compare, metrics.evaluate\n"
        "from metrics import compare, evaluate\n"
        "for f in (metrics.compare, metrics.evaluate, compare, evaluate):\n"
        "    assert isinstance(f, types.FunctionType), f\n"
        "assert metrics.report.__name__ == 'metrics.report'\n"
        "assert [n for n in metrics.__all__ if not hasattr(metrics, n)] == []\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parent.parent)


def test_readers_are_in_dir_and_help():
    import pydoc

    assert {"read_run", "read_qrels", "summarize", "pr_curve"} <= set(dir(metrics))
    text = pydoc.render_doc(metrics, renderer=pydoc.plaintext)
    assert "read_run(source" in text and "read_qrels(source" in text
    assert metrics.read_run is metrics.io.read_run
