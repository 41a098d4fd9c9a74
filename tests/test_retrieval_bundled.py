"""The bundled handbook (assets/corpus/): its passages, questions and stored embeddings."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from retrieval import dense
from retrieval.corpus import CORPUS_DIR, LANGUAGES, load_handbook, load_questions
from retrieval.embeddings import EMBEDDINGS_PATH, text_hash, vectors_for
from retrieval.engine import load_bundled
from retrieval.errors import CorpusError
from retrieval.fusion import RRF_K
from tests.retrieval_corpus import by_the_rule


@pytest.fixture(scope="module")
def handbook():
    return load_handbook()


def test_same_passages_in_both_languages(handbook):
    assert handbook["ar"].ids == handbook["en"].ids
    assert 100 <= len(handbook["ar"]) <= 150
    for lang in LANGUAGES:
        assert handbook[lang].lang == lang
        assert all(p.text and p.title and p.doc for p in handbook[lang].passages)
    assert handbook["ar"].documents == handbook["en"].documents
    assert [p.superseded for p in handbook["ar"].passages] == [
        p.superseded for p in handbook["en"].passages]


def test_questions_name_existing_passages(handbook):
    questions = load_questions(corpus=handbook["ar"])   # raises on an unknown passage id
    assert len(questions) >= 30
    assert all(q.text["ar"] and q.text["en"] for q in questions)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_stored_embeddings_match_the_corpus(handbook, lang):
    with np.load(EMBEDDINGS_PATH, allow_pickle=False) as stored:
        mine = stored["lang"] == lang
        assert tuple(stored["ids"][mine]) == handbook[lang].ids
        assert list(stored["sha256"][mine]) == [text_hash(t) for t in
                                                handbook[lang].indexed_texts]
        assert stored["vectors"].dtype == np.float16
    vectors = vectors_for(handbook[lang])
    assert vectors.shape == (len(handbook[lang]), dense.DIM)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=2e-3)
    # The stored vectors are the model's: recompute two passages.
    rows = [0, len(handbook[lang]) - 1]
    fresh = dense.embed_passages([handbook[lang].indexed_texts[i] for i in rows])
    assert np.abs(fresh - vectors[rows]).max() < 2e-3


def test_stale_embeddings_are_refused(handbook):
    changed = dataclasses.replace(handbook["en"].passages[3], text="A new rule.")
    passages = list(handbook["en"].passages)
    passages[3] = changed
    with pytest.raises(CorpusError) as info:
        vectors_for(dataclasses.replace(handbook["en"], passages=tuple(passages)))
    assert info.value.key == "embeddings_stale" and changed.id in str(info.value)
    with pytest.raises(CorpusError) as info:
        vectors_for(dataclasses.replace(handbook["en"], passages=tuple(passages[:-1])))
    assert info.value.key == "embeddings_stale"


def test_bundled_retrievers_search_both_languages(handbook):
    bundled = load_bundled(CORPUS_DIR)
    question = load_questions()[0]
    for lang in LANGUAGES:
        assert bundled[lang].corpus.ids == handbook[lang].ids
        found = bundled[lang].search(question.text[lang], k=10)
        assert set(found) == {"bm25", "dense", "hybrid"}
        assert len(found["dense"]) == len(found["hybrid"]) == 10
    across = bundled["ar"].search(question.text["en"], k=10)
    assert len(across["dense"]) == 10


def test_every_bundled_question_ranks_as_its_raw_scores_say():
    """The page's rankings, every bundled question in both languages on both handbooks, equal
    to the scores ranked in plain Python: the same passages in the same order with the very
    same scores (BM25, cosine, and the fused RRF sum), whatever the search does to be fast."""
    bundled = load_bundled(CORPUS_DIR)
    weights = {"bm25": 0.5, "dense": 1.25}
    for corpus_lang in LANGUAGES:
        systems = bundled[corpus_lang]
        ids = list(systems.corpus.ids)
        for question in load_questions():
            for text in question.text.values():
                found = systems.search(text, k=None, weights=weights)
                bm25 = systems.bm25.scores(text)
                kept = [i for i in range(len(ids)) if bm25[i] > 0]
                assert found["bm25"] == by_the_rule([ids[i] for i in kept],
                                                     [bm25[i] for i in kept])
                cosine = systems.dense.vectors @ dense.embed_query(text)
                assert found["dense"] == by_the_rule(ids, cosine)
                fused: dict[str, float] = {}
                for name in ("bm25", "dense"):
                    for hit in found[name]:
                        fused[hit.id] = fused.get(hit.id, 0.0) + weights[name] / (RRF_K + hit.rank)
                assert found["hybrid"] == by_the_rule(list(fused), list(fused.values()))
                top = systems.search(text, k=10, weights=weights)
                assert top == {name: hits[:10] for name, hits in found.items()}


def test_the_pool_is_the_current_systems_top_10():
    """The page says the assessors judged the pool: the top 10 of the three systems (default
    weights) for every question, in each corpus language. Every passage of today's pool has a
    judgment, so a change to a retriever that brings in new passages fails here until they are
    judged (JUDGING.md: how; scripts/make_pool.py lists the pool)."""
    from retrieval.pool import build_pool

    bundled = load_bundled(CORPUS_DIR)
    judged = {}
    for lang in LANGUAGES:
        rows = (line.split("\t") for line in
                (CORPUS_DIR / f"judgments.{lang}.tsv").read_text(encoding="utf-8").splitlines()[1:]
                if line and not line.startswith("#"))
        judged[lang] = {(row[0], row[1]) for row in rows}
    entries = build_pool(bundled, load_questions(corpus=bundled["ar"].corpus))
    unjudged = [(e.corpus_lang, e.question.id, pid) for e in entries for pid in e.passages
                if (e.question.id, pid) not in judged[e.corpus_lang]]
    assert unjudged == []
    assert len(entries) == 80 and min(len(e.passages) for e in entries) >= 10


def test_every_assessor_note_is_in_its_corpus_language():
    """/retrieve prints the note beside a judgment, on the page of the corpus's language: a note
    in the Arabic file is Arabic prose (ids and numbers may be Latin), and the English file's
    notes have no Arabic."""
    import re

    arabic = re.compile(r"[\u0600-\u06FF]")
    for lang in LANGUAGES:
        lines = (CORPUS_DIR / f"judgments.{lang}.tsv").read_text(encoding="utf-8").splitlines()[1:]
        rows = (line.split("\t") for line in lines if line and not line.startswith("#"))
        notes = [row[3] for row in rows if len(row) > 3 and row[3]]
        assert notes
        wrong = [n for n in notes if bool(arabic.search(n)) != (lang == "ar")]
        assert wrong == [], lang
