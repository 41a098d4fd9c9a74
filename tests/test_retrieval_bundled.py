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
