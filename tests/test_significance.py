"""metrics.significance: each test against an independent computation, and compare_runs' table
and markers against hand computations."""

from __future__ import annotations

import gzip
import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import metrics
from metrics import significance
from metrics.compare import compare_runs, run_name, run_tag, unique_names
from metrics.errors import MetricError

# --- the paired t-test ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 7, 50, 1000])
def test_t_test_equals_scipy_ttest_rel(n):
    rng = np.random.default_rng(n)
    baseline = rng.random((n, 6))
    system = baseline + rng.normal(0.02, 0.2, size=(n, 6))
    t, p = significance.paired_t(system - baseline)
    for j in range(6):
        expected = stats.ttest_rel(system[:, j], baseline[:, j])
        assert t[j] == pytest.approx(expected.statistic, rel=1e-10)
        assert p[j] == pytest.approx(expected.pvalue, rel=1e-9, abs=1e-300)
    one_t, one_p = significance.paired_t(system[:, 0] - baseline[:, 0])
    assert isinstance(one_p, float) and one_p == p[0] and one_t == t[0]


def test_t_test_undefined_without_variance_or_pairs():
    t, p = significance.paired_t(np.array([[0.5, 0.0, 1.0], [0.5, 0.0, 2.0]]))
    assert np.isnan(t[0]) and np.isnan(p[0]) and np.isnan(p[1]) and not np.isnan(p[2])
    assert np.isnan(significance.paired_t([0.3])[1])


# --- the randomization test ----------------------------------------------------------------------


def _exact_p(deltas) -> float:
    """Every sign pattern, one at a time (independent of the vectorised code)."""
    deltas = list(deltas)
    observed = abs(sum(deltas) / len(deltas))
    hits = total = 0
    for signs in itertools.product((1, -1), repeat=len(deltas)):
        total += 1
        mean = sum(s * d for s, d in zip(signs, deltas, strict=True)) / len(deltas)
        hits += abs(mean) >= observed - 1e-12
    return hits / total


def test_randomization_exact_by_hand():
    # deltas 1, 2, 3: only the all-plus and all-minus patterns reach |mean| 2: p = 2/8
    p, exact = significance.randomization([1.0, 2.0, 3.0])
    assert exact and p == 0.25
    # 1, -1: every pattern has |mean| >= 0: p = 1
    assert significance.randomization([1.0, -1.0])[0] == 1.0
    # five wins of 1: 2 of 32 patterns
    assert significance.randomization([1.0] * 5)[0] == 2 / 32


def test_randomization_exact_matches_enumeration_column_by_column():
    rng = np.random.default_rng(3)
    deltas = np.round(rng.normal(0.1, 0.3, size=(11, 4)), 1)   # ties among patterns
    p, exact = significance.randomization(deltas)
    assert exact
    assert list(p) == [_exact_p(deltas[:, j]) for j in range(4)]


def test_randomization_sampled_is_reproducible_and_close_to_exact():
    rng = np.random.default_rng(11)
    deltas = rng.normal(0.15, 0.4, size=12)
    exact = _exact_p(deltas)
    first, is_exact = significance.randomization(deltas, exact=False, n_resamples=100_000, seed=5)
    again, _ = significance.randomization(deltas, exact=False, n_resamples=100_000, seed=5)
    other, _ = significance.randomization(deltas, exact=False, n_resamples=100_000, seed=6)
    assert not is_exact and first == again and first != other
    # the standard error of a sampled p near 0.2 with 100,000 patterns is ~0.0013
    assert abs(first - exact) < 0.006 and abs(other - exact) < 0.006
    assert 0 < first <= 1


def test_randomization_columns_share_patterns_so_adding_comparisons_changes_nothing():
    rng = np.random.default_rng(2)
    deltas = rng.normal(0.02, 0.3, size=(300, 5))
    together, _ = significance.randomization(deltas, n_resamples=3000, seed=9)
    for j in range(5):
        alone, _ = significance.randomization(deltas[:, j], n_resamples=3000, seed=9)
        assert alone == together[j]


def test_randomization_p_is_never_zero_when_sampled():
    p, exact = significance.randomization(np.full(40, 1.0), n_resamples=999, seed=0)
    assert not exact and p == 1 / 1000


# --- the bootstrap interval ----------------------------------------------------------------------


def test_bootstrap_equals_resampling_queries_naively():
    rng = np.random.default_rng(4)
    deltas = rng.normal(0.05, 0.3, size=(80, 3))
    low, high = significance.bootstrap_interval(deltas, n_resamples=2000, seed=8)
    # the same draws, the obvious way: resample rows, take the mean
    draws = np.random.default_rng(8).integers(0, 80, size=(2000, 80))
    means = deltas[draws].mean(axis=1)
    want_low, want_high = np.percentile(means, [2.5, 97.5], axis=0)
    np.testing.assert_allclose(low, want_low, rtol=1e-12)
    np.testing.assert_allclose(high, want_high, rtol=1e-12)
    assert (low < deltas.mean(axis=0)).all() and (deltas.mean(axis=0) < high).all()


def test_bootstrap_reproducible():
    deltas = np.random.default_rng(1).normal(size=50)
    assert (significance.bootstrap_interval(deltas, seed=3)
            == significance.bootstrap_interval(deltas, seed=3))


# --- Holm ----------------------------------------------------------------------------------------


def test_holm_textbook_example():
    # Four hypotheses, alpha 0.05 (the usual textbook example): sorted 0.005, 0.01, 0.03, 0.04
    # against 0.05/4, 0.05/3, 0.05/2, 0.05/1: reject the first two, stop at 0.03 > 0.025.
    # Adjusted: 4 x 0.005 = 0.02, 3 x 0.01 = 0.03, 2 x 0.03 = 0.06, max(1 x 0.04, 0.06) = 0.06.
    adjusted = significance.holm([0.01, 0.04, 0.03, 0.005])
    np.testing.assert_allclose(adjusted, [0.03, 0.06, 0.06, 0.02])
    assert list(adjusted <= 0.05) == [True, False, False, True]


def test_holm_caps_at_one_keeps_order_and_skips_undefined():
    np.testing.assert_allclose(significance.holm([0.5, 0.6]), [1.0, 1.0])
    adjusted = significance.holm([0.01, np.nan, 0.04])
    assert adjusted[0] == pytest.approx(0.02) and np.isnan(adjusted[1])
    assert adjusted[2] == pytest.approx(0.04)
    assert significance.holm([]).shape == (0,)


# --- compare_runs --------------------------------------------------------------------------------


def _table(values: dict[str, np.ndarray], queries: list[str] | None = None) -> pd.DataFrame:
    n = len(next(iter(values.values())))
    index = pd.Index(queries or [f"q{i}" for i in range(n)], name="query_id")
    return pd.DataFrame(values, index=index)


def _obvious_runs(n: int = 40):
    rng = np.random.default_rng(0)
    base = rng.uniform(0.2, 0.6, size=n)
    noise = rng.normal(0, 0.02, size=n)
    return {
        "base": _table({"P@10": base, "AP": base / 2}),
        "better": _table({"P@10": base + 0.3 + noise, "AP": base / 2}),   # P@10: far better
        "same": _table({"P@10": base, "AP": base / 2}),                    # identical
        "worse": _table({"P@10": base - 0.15 + noise, "AP": base / 2 - 0.1 + noise}),
    }


def test_markers_on_an_obvious_case_against_a_baseline():
    cmp = compare_runs(_obvious_runs(), baseline="base")
    assert cmp.letters == ("a", "b", "c", "d")
    # better beats the baseline on P@10; the baseline beats worse on both measures
    assert cmp.markers.to_dict() == {
        "P@10": {"base": "d", "better": "a", "same": "", "worse": ""},
        "AP": {"base": "d", "better": "", "same": "", "worse": ""},
    }
    assert len(cmp.tests) == 3 * 2 and cmp.n_comparisons == 6
    # equal values on every query: the randomization p is 1, the t-test's is undefined
    same = cmp.tests["delta"].abs() < 1e-12
    assert set(zip(cmp.tests["run"][same], cmp.tests["measure"][same], strict=True)) == {
        ("better", "AP"), ("same", "P@10"), ("same", "AP")}
    assert (cmp.tests["p_randomization"][same] == 1).all() and cmp.tests["p_t"][same].isna().all()
    # with the t-test, Holm counts only the defined p-values
    assert compare_runs(_obvious_runs(), baseline="base", test="t").n_comparisons == 3


def test_markers_every_pair_as_ranx():
    cmp = compare_runs(_obvious_runs())
    assert cmp.baseline is None and len(cmp.tests) == 6 * 2
    assert cmp.markers["P@10"].to_dict() == {"base": "d", "better": "acd", "same": "d",
                                             "worse": ""}
    assert cmp.markers["AP"].to_dict() == {"base": "d", "better": "d", "same": "d", "worse": ""}


def test_means_and_deltas_are_the_tables():
    runs = _obvious_runs()
    cmp = compare_runs(runs, baseline="base", test="t")
    for name, table in runs.items():
        assert cmp.means.loc[name].to_dict() == pytest.approx(table.mean().to_dict())
    row = cmp.tests[(cmp.tests["run"] == "better") & (cmp.tests["measure"] == "P@10")].iloc[0]
    d = runs["better"]["P@10"] - runs["base"]["P@10"]
    assert row["delta"] == pytest.approx(d.mean())
    assert row["p_t"] == pytest.approx(stats.ttest_rel(runs["better"]["P@10"],
                                                       runs["base"]["P@10"]).pvalue)
    assert row["ci_low"] < row["delta"] < row["ci_high"] and row["wins"] == 40


def _with_p(target: float, n: int = 30) -> np.ndarray:
    """Deltas whose paired t-test gives exactly ``target`` (two-sided)."""
    z = np.random.default_rng(1).normal(size=n)
    z = (z - z.mean()) / z.std(ddof=1)
    t = stats.t.isf(target / 2, n - 1)
    return z + t / np.sqrt(n)


def test_holm_across_all_comparisons_decides_the_markers():
    n = 30
    base = np.full(n, 0.5)
    a = _with_p(0.03, n)                                    # alone: significant at 0.05
    tables = {
        "base": _table({"m1": base, "m2": base}),
        "x": _table({"m1": base + a * 0.01, "m2": base + _with_p(0.9, n) * 0.01}),
        "y": _table({"m1": base + _with_p(0.5, n) * 0.01, "m2": base + _with_p(0.7, n) * 0.01}),
    }
    plain = compare_runs(tables, baseline="base", test="t", correction="none")
    holm = compare_runs(tables, baseline="base", test="t")
    p = plain.tests.set_index(["run", "measure"])["p"]
    assert p[("x", "m1")] == pytest.approx(0.03) and p[("y", "m2")] == pytest.approx(0.7)
    assert plain.markers.at["x", "m1"] == "a"
    # four comparisons: 0.03 x 4 = 0.12 > 0.05, no marker; adjusted values by hand
    assert holm.markers.at["x", "m1"] == ""
    adjusted = holm.tests.set_index(["run", "measure"])["p_adjusted"]
    assert adjusted[("x", "m1")] == pytest.approx(0.12)
    assert adjusted[("y", "m1")] == pytest.approx(1.0)
    assert adjusted[("y", "m2")] == pytest.approx(1.0) and adjusted[("x", "m2")] == 1.0
    assert holm.n_comparisons == 4


def test_compare_and_compare_runs_share_one_implementation():
    rng = np.random.default_rng(7)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 2)) for j in range(10)} for i in range(40)}
    run_a = {q: {f"d{j}": float(rng.random()) for j in range(10)} for q in qrels}
    run_b = {q: {d: s + 0.3 * qrels[q][d] for d, s in r.items()} for q, r in run_a.items()}
    pair = metrics.compare(run_a, run_b, qrels, "AP", seed=4)
    tables = {"A": metrics.evaluate(run_a, qrels, ["AP"]), "B": metrics.evaluate(run_b, qrels,
                                                                                   ["AP"])}
    row = compare_runs(tables, baseline="A", seed=4).tests.iloc[0]
    assert row["p_randomization"] == pair.p_randomization and row["p_t"] == pair.p_ttest
    assert (row["ci_low"], row["ci_high"]) == (pair.ci_low, pair.ci_high)
    assert row["delta"] == pytest.approx(pair.mean_delta)
    assert (row["wins"], row["ties"], row["losses"]) == (pair.wins, pair.ties, pair.losses)


def test_compare_runs_is_reproducible_for_a_seed():
    runs = _obvious_runs()
    first = compare_runs(runs, baseline="base", seed=3)
    again = compare_runs(runs, baseline="base", seed=3)
    pd.testing.assert_frame_equal(first.tests, again.tests)


def test_missing_queries_policy_is_explicit():
    full = _table({"P@10": np.array([0.5, 0.2, 0.4])}, ["q1", "q2", "q3"])
    short = _table({"P@10": np.array([0.3, 0.6])}, ["q1", "q3"])
    short.attrs = {"missing_queries": ["q2"], "unjudged_queries": ["x"]}
    common = compare_runs({"full": full, "short": short}, baseline="full")
    assert common.n_queries == 2 and common.means.at["full", "P@10"] == pytest.approx(0.45)
    assert common.counts.loc["full"].to_dict() == {"queries": 2, "missing": 0, "dropped": 1,
                                                   "unjudged": 0}
    assert common.counts.loc["short"].to_dict() == {"queries": 2, "missing": 0, "dropped": 0,
                                                    "unjudged": 1}
    zero = compare_runs({"full": full, "short": short}, baseline="full", missing="zero")
    assert zero.n_queries == 3 and zero.means.at["short", "P@10"] == pytest.approx(0.3)
    assert zero.counts.at["short", "missing"] == 1 and zero.counts.at["full", "dropped"] == 0
    assert list(zero.per_query["short"]["P@10"]) == [0.3, 0.0, 0.6]


def test_compare_runs_refuses_what_it_cannot_do():
    runs = _obvious_runs()
    with pytest.raises(MetricError) as err:
        compare_runs({f"r{i}": runs["base"] for i in range(11)})
    assert err.value.key == "run_count"
    with pytest.raises(MetricError, match="unknown baseline"):
        compare_runs(runs, baseline="nope")
    with pytest.raises(MetricError, match="bad parameter"):
        compare_runs(runs, test="wilcoxon")
    with pytest.raises(MetricError, match="measure not in table"):
        compare_runs(runs, ["nDCG@10"])


# --- run names -----------------------------------------------------------------------------------


def test_run_names_from_the_tag_or_the_file_name():
    trec = b"# a comment\n1 Q0 d1 1 2.5 bm25_k1.2\n1 Q0 d2 2 2.0 bm25_k1.2\n"
    assert run_tag(trec) == "bm25_k1.2"
    assert run_name("whatever.trec", trec) == "bm25_k1.2"
    assert run_name("x.trec.gz", gzip.compress(trec)) == "bm25_k1.2"
    assert run_name("dense.run.gz", b"qid,doc,score\n1,d1,0.5\n") == "dense"
    assert run_name("runs/hybrid.json", b'{"1": {"d1": 1}}') == "hybrid"
    assert run_name(None) == "run"
    assert unique_names(["bm25", "bm25", "dense", "bm25"]) == ["bm25", "bm25 (2)", "dense",
                                                               "bm25 (3)"]
