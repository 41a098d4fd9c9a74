"""Runs and judgments as TREC files, measures through `metrics`, chunks counted as documents."""

from __future__ import annotations

import io
import itertools

import pandas as pd
import pytest

import metrics
from retrieval.bm25 import BM25Index
from retrieval.evaluation import (
    compare_systems,
    document_qrels,
    measure_names,
    question_measures,
    run_dict,
    system_table,
    to_documents,
    unjudged,
    write_qrels,
    write_run,
)
from retrieval.fusion import reciprocal_rank_fusion
from retrieval.ranking import Hit, rank
from tests.retrieval_corpus import corpus

QRELS = {"q1": {"p01": 3, "p02": 1, "p05": 0}, "q2": {"p03": 2, "p04": 0},
         "q3": {"p06": 3}, "q4": {"p02": 2, "p01": 1}}


def _runs():
    c = corpus("en")
    index = BM25Index(c.ids, c.indexed_texts)
    questions = {"q1": "thirty days paid leave", "q2": "work from home",
                 "q3": "training budget", "q4": "sick leave report"}
    bm25 = {q: index.search(text) for q, text in questions.items()}
    # a second system with many exact ties: fused ranks of two reversed rankings
    other = {q: reciprocal_rank_fusion({"a": hits, "b": [Hit(h.id, 0, n) for n, h in
                                                         enumerate(reversed(hits), 1)]})
             for q, hits in bm25.items()}
    return {"bm25": bm25, "tied": other}


def test_runs_and_qrels_round_trip_through_metrics(tmp_path):
    runs = _runs()
    run_file = tmp_path / "bm25.trec"
    text = write_run(runs["bm25"], run_file, tag="bm25")
    assert run_file.read_text(encoding="utf-8") == text
    assert text.splitlines()[0].split()[:4] == ["q1", "Q0", runs["bm25"]["q1"][0].id, "1"]
    back = metrics.read_run(run_file)
    expected = [(q, h.id, h.score) for q, hits in runs["bm25"].items() for h in hits]
    assert list(zip(back.query_id.astype(str), back.doc_id, back.score, strict=True)) == expected

    stream = io.StringIO()
    write_qrels(QRELS, stream)
    judged = metrics.read_qrels(stream.getvalue())
    assert {(q, d): g for q, d, g in zip(judged.query_id.astype(str), judged.doc_id,
                                          judged.grade, strict=True)} == {
        (q, d): g for q, grades in QRELS.items() for d, g in grades.items()}


@pytest.mark.parametrize("system", ["bm25", "tied"])
def test_metrics_ranks_the_written_run_as_shown(system):
    """Ties included: evaluating the TREC file gives the per-ranking values of the shown order."""
    runs = _runs()
    assert any(a.score == b.score for hits in runs["tied"].values()
               for a, b in itertools.pairwise(hits))
    names = measure_names(3)
    table = metrics.evaluate(metrics.read_run(write_run(runs[system])),
                             metrics.read_qrels(write_qrels(QRELS)), names)
    for qid, hits in runs[system].items():
        assert table.loc[qid, names].to_dict() == pytest.approx(
            question_measures(hits, QRELS[qid], 3))


def test_question_measures_by_hand():
    ranking = rank(["d7", "d2", "d9", "d4", "d1"], [5, 4, 3, 2, 1])
    got = question_measures(ranking, {"d2": 1, "d4": 1}, 3)
    assert got == pytest.approx({"R@3": 0.5, "P@3": 1 / 3, "RR@3": 0.5, "nDCG@3": 0.3868528})
    assert unjudged(ranking, {"d2": 1, "d4": 0}, 3) == ["d7", "d9"]


def test_system_table_and_comparison_equal_metrics_on_the_trec_files():
    runs = _runs()
    qrels = metrics.read_qrels(write_qrels(QRELS))
    table = system_table(runs, QRELS, 5)
    assert list(table.index) == ["bm25", "tied"] and list(table.columns) == measure_names(5)
    for system in runs:
        from_file = metrics.evaluate(metrics.read_run(write_run(runs[system])), qrels,
                                     measure_names(5)).mean()
        pd.testing.assert_series_equal(table.loc[system], from_file, check_names=False)
    comparison = compare_systems(runs, QRELS, "RR@5", "bm25", "tied")
    on_files = metrics.compare(metrics.read_run(write_run(runs["bm25"])),
                               metrics.read_run(write_run(runs["tied"])), qrels, "RR@5")
    pd.testing.assert_frame_equal(comparison.per_query, on_files.per_query)
    assert (comparison.wins, comparison.ties, comparison.losses, comparison.p_randomization) == (
        on_files.wins, on_files.ties, on_files.losses, on_files.p_randomization)


def test_a_question_a_system_found_nothing_for_scores_zero():
    runs = {"bm25": {"q1": [Hit("p01", 1.0, 1)], "q2": []}}
    table = metrics.evaluate(run_dict(runs["bm25"]), QRELS, ["R@5"])
    assert table.loc["q2", "R@5"] == 0
    assert system_table(runs, QRELS, 5).loc["bm25", "R@5"] == pytest.approx(table["R@5"].mean())


def test_bad_ids_cannot_be_written():
    with pytest.raises(ValueError):
        write_run({"q 1": [Hit("p1", 1.0, 1)]})
    with pytest.raises(ValueError):
        write_qrels({"q1": {"p 1": 1}})
    with pytest.raises(ValueError):
        write_run({"q1": [Hit("p1", 1.0, 1)]}, tag="my run")


# ---------------------------------------------------------------- chunks and documents
DOCS = {"a.1": "a", "a.2": "a", "b": "b", "c.1": "c", "c.2": "c"}


def test_two_chunks_of_one_document_count_once():
    chunks = rank(["a.1", "a.2", "b", "c.2"], [0.9, 0.8, 0.7, 0.6])
    docs = to_documents(chunks, DOCS)
    assert docs == [Hit("a", 0.9, 1), Hit("b", 0.7, 2), Hit("c", 0.6, 3)]
    chunk_qrels = {"a.1": 2, "a.2": 3, "c.1": 1}
    doc_qrels = document_qrels(chunk_qrels, DOCS)
    assert doc_qrels == {"a": 3, "c": 1}
    # Passage level: 2 of 3 relevant chunks in the top 2. Document level: 1 of 2 documents.
    assert question_measures(chunks, chunk_qrels, 2)["R@2"] == pytest.approx(2 / 3)
    assert question_measures(docs, doc_qrels, 2)["R@2"] == pytest.approx(1 / 2)
    assert question_measures(docs, doc_qrels, 3)["R@3"] == 1.0


def test_document_ties_follow_the_rule_on_document_ids():
    chunks = rank(["a.1", "c.2"], [0.5, 0.5])      # c.2 before a.1 (id descending)
    assert [h.id for h in to_documents(chunks, {"a.1": "z", "c.2": "b"})] == ["z", "b"]
