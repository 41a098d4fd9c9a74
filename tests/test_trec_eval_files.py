"""trec_eval's own test files (tests/data/trec_eval, copied unchanged from trec_eval 10.0):
read as trec_eval reads them, and every measure Mizan shares with it gives trec_eval's numbers,
per query and in the summary row ("all"), with -c (missing="zero") and -l2 (rel=2).

trec_eval prints 4 decimals. Its ``iprec_at_recall`` changed in 10.0 (the recall level needs
round(rR) relevant documents instead of 9.0.8's floor(rR + 0.9)); Mizan keeps 9.0.8's, which
pytrec_eval and ir_measures compute, and both rules are recomputed here from the rankings.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import metrics
from metrics.errors import FormatError, MetricError

DATA = Path(__file__).parent / "data" / "trec_eval"
EXACT = 5e-5 + 1e-12  # trec_eval's %.4f


def trec_output(name: str) -> dict[str, dict[str, str]]:
    """``measure qid value`` lines as {measure: {qid: value}}."""
    out: dict[str, dict[str, str]] = {}
    for line in (DATA / name).read_text().splitlines():
        measure, qid, value = line.split()
        out.setdefault(measure, {})[qid] = value
    return out


def shared(output: dict) -> list[str]:
    """The trec_eval measures Mizan computes (all parse as Mizan measures)."""
    names = []
    for name in output:
        try:
            metrics.parse(name)
        except MetricError:
            continue
        names.append(name)
    return names


def compare(table, summary, output: dict, names: list[str], skip=()) -> None:
    for name in names:
        if name in skip:
            continue
        for qid, value in output[name].items():
            ours = summary[name] if qid == "all" else table.loc[qid, name]
            assert abs(ours - float(value)) <= EXACT, (name, qid, ours, value)


@pytest.fixture(scope="module")
def files():
    return (metrics.read_qrels(DATA / "qrels.test"), metrics.read_run(DATA / "results.test"))


def test_qrels_with_comments_read_like_without(files):
    qrels, _ = files
    commented = metrics.read_qrels(DATA / "qrels.test.with-comments")
    # Its three comment lines are skipped; it also renames one document with a '#' inside,
    # which is data.
    expected = qrels.astype(str).replace({"doc_id": {"CR93E-1860": "CR#93E-1860"}})
    assert commented.astype(str).equals(expected)


def test_summary_matches_trec_eval(files):
    """``trec_eval qrels.test results.test`` (out.test): the summary row, iprec aside."""
    qrels, run = files
    output = trec_output("out.test")
    names = shared(output)
    assert {"map", "P_5", "bpref", "num_rel_ret", "Rprec", "recip_rank"} <= set(names)
    table = metrics.evaluate(run, qrels, [n for n in names if n != "num_q"])
    summary = metrics.summarize(table)
    assert summary.queries == int(output["num_q"]["all"]) == 3
    compare(table, summary, output, [n for n in names if n != "num_q"],
            skip=[n for n in names if n.startswith("iprec")])
    assert summary["num_ret"] == 1500 and summary["num_rel"] == 561  # sums, not means
    assert "num_q" in str(summary) and "1500" in str(summary)


def test_every_query_matches_trec_eval(files):
    """``trec_eval -m all_trec -q`` (out.test.aq): every shared measure, every query."""
    qrels, run = files
    output = trec_output("out.test.aq")
    names = [n for n in shared(output) if n != "num_q"]
    assert len(names) >= 45
    table = metrics.evaluate(run, qrels, names)
    compare(table, metrics.summarize(table), output, names,
            skip=[n for n in names if n.startswith("iprec")])


def test_missing_query_with_c_and_fields_after_the_sixth(files):
    """``trec_eval -q -c qrels.test results.trunc`` (out.test.aqc): results.trunc has junk
    after the run tag, and lacks query 302, which -c scores 0 (num_rel stays 77)."""
    qrels, _ = files
    run = metrics.read_run(DATA / "results.trunc")
    assert set(run.query_id) == {"301", "303"} and len(run) == 584
    output = trec_output("out.test.aqc")
    names = [n for n in shared(output) if n != "num_q"]
    table = metrics.evaluate(run, qrels, names)  # missing="zero" is trec_eval -c
    summary = metrics.summarize(table)
    assert table.attrs["missing_queries"] == ["302"] and table.loc["302", "num_rel"] == 77
    assert summary.queries == int(output["num_q"]["all"]) == 3
    compare(table, summary, output, names, skip=[n for n in names if n.startswith("iprec")])
    assert "trec_eval -c" in summary.policy
    skipped = metrics.summarize(metrics.evaluate(run, qrels, ["map"], missing="skip"))
    assert skipped.queries == 2 and "trec_eval 10.0 without -c refuses" in skipped.policy


def test_relevance_level_2_like_trec_eval_l2():
    """``trec_eval -q -l2 qrels.rel_level results.test`` (out.test.aql): the threshold moves
    every binary measure; ndcg and ndcg_cut ignore it."""
    qrels = metrics.read_qrels(DATA / "qrels.rel_level")
    run = metrics.read_run(DATA / "results.test")
    output = trec_output("out.test.aql")
    names = [n for n in shared(output) if n != "num_q"]
    table = metrics.evaluate(run, qrels, names, rel=2)
    compare(table, metrics.summarize(table), output, names,
            skip=[n for n in names if n.startswith("iprec")])
    assert table.loc["301", "num_rel"] == 12


def _iprec(ranking: list[str], grades: dict[str, int], level: float, needed) -> float:
    """Interpolated precision as trec_eval's m_iprec_at_recall.c computes it, given the rule
    for how many relevant documents a recall level needs."""
    hits = [i for i, d in enumerate(ranking, 1) if grades.get(d, 0) >= 1]
    cut = needed(level * sum(g >= 1 for g in grades.values()))
    if cut > len(hits):
        return 0.0
    return max(j / r for j, r in enumerate(hits, 1) if j >= max(cut, 1))


def test_iprec_is_trec_eval_9_and_differs_from_10_only_by_the_rounding(files):
    qrels, run = files
    pytrec_eval = pytest.importorskip("pytrec_eval")
    levels = [r / 10 for r in range(11)]
    names = [f"iprec_at_recall_{r:.2f}" for r in levels]
    ours = metrics.evaluate(run, qrels, names)
    as_dict = {q: dict(zip(g["doc_id"], g["score"], strict=True))
               for q, g in run.astype({"query_id": str}).groupby("query_id")}
    grades = {q: dict(zip(g["doc_id"], g["grade"], strict=True))
              for q, g in qrels.astype({"query_id": str}).groupby("query_id")}
    oracle = pytrec_eval.RelevanceEvaluator(grades, {"iprec_at_recall"}).evaluate(as_dict)
    output = trec_output("out.test.aq")
    differs = 0
    for q in ours.index:
        ranking = [d for d, _ in sorted(as_dict[q].items(), key=lambda kv: (kv[1], kv[0]),
                                        reverse=True)]
        for level, name in zip(levels, names, strict=True):
            assert math.isclose(ours.loc[q, name], oracle[q][name], abs_tol=1e-9)
            v9 = _iprec(ranking, grades[q], level, lambda x: math.floor(x + 0.9))
            v10 = _iprec(ranking, grades[q], level, lambda x: math.floor(x + 0.5))
            assert math.isclose(ours.loc[q, name], v9, abs_tol=1e-12)
            assert abs(v10 - float(output[name][q])) <= EXACT, (q, name)
            differs += abs(v9 - v10) > EXACT
    assert differs > 0  # the change in 10.0 shows on these very files


@pytest.mark.parametrize(("name", "key"), [("prefs.test", "looks_like_prefs"),
                                           ("zscores_file", "looks_like_zscores")])
def test_other_trec_eval_inputs_are_named(name, key):
    for reader in (metrics.read_run, metrics.read_qrels):
        with pytest.raises(FormatError) as info:
            reader(DATA / name)
        assert (info.value.key, info.value.line) == (key, 1)
        assert "trec_eval" in str(info.value)


def test_pr_curve_is_the_iprec_columns(files):
    qrels, run = files
    curve = metrics.pr_curve(run, qrels)
    names = [f"IPrec@{r / 10:.1f}" for r in range(11)]
    table = metrics.evaluate(run, qrels, names)
    assert list(curve.per_query.columns) == list(metrics.ELEVEN_POINTS)
    np.testing.assert_array_equal(curve.per_query.to_numpy(), table.to_numpy())
    np.testing.assert_allclose(curve.mean.to_numpy(), table.mean().to_numpy())
    assert curve.mean.is_monotonic_decreasing
    long = curve.long()
    assert list(long.columns) == ["query_id", "recall", "precision"] and len(long) == 33
