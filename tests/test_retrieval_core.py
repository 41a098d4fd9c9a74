"""Retrieval engine: analysis, the tie rule, BM25, dense, reciprocal rank fusion."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval import analysis, dense
from retrieval.bm25 import BM25Index
from retrieval.corpus import Corpus, Passage
from retrieval.engine import SYSTEMS, Retrievers
from retrieval.fusion import RRF_K, reciprocal_rank_fusion
from retrieval.ranking import Hit, rank
from tests.retrieval_corpus import ROWS, by_the_rule, corpus, indexed

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def systems():
    """Both test corpora indexed once (one model load for the whole session)."""
    assert dense.status(load=True).available
    return {lang: indexed(lang) for lang in ("ar", "en")}


# ---------------------------------------------------------------- analysis
@pytest.mark.parametrize(("a", "b"), [
    ("الإجازة", "الاجازه"),          # hamza, ta marbuta typed as ha
    ("السنوية", "سنوي"),             # article + feminine ending
    ("مستشفى", "مستشفي"),            # alef maqsura
    ("يَوْمًا", "يوما"),               # diacritics
    ("الـعـمـل", "العمل"),            # tatweel
    ("للموظفين", "الموظف"),          # prefix + plural suffix
    ("٣٠", "30"),                    # Arabic-Indic digits
    ("Passwords", "password"),
    ("reimbursed", "reimbursement"),
])
def test_variants_share_a_term(a, b):
    assert analysis.tokens(a) == analysis.tokens(b) != []


def test_function_words_dropped_negators_and_numbers_kept():
    assert analysis.tokens("في the of") == []
    assert analysis.tokens("لا not 90") == ["لا", "not", "90"]


def test_mixed_text_stems_each_word_by_its_script():
    assert analysis.tokens("الإجازات leaves") == [*analysis.tokens("الإجازة"), "leav"]


def test_script_of():
    assert analysis.script_of("إجازة سنوية") == "ar"
    assert analysis.script_of("annual leave") == "en"
    assert analysis.script_of("إجازة سنوية annual leave") == "mixed"
    assert analysis.script_of("إجازة سنوية طويلة جدا VPN") == "ar"
    assert analysis.script_of("42 !") is None


# ---------------------------------------------------------------- the tie rule
def test_rank_orders_by_score_then_id_descending():
    hits = rank(["a", "c", "b", "d"], [0.5, 0.9, 0.5, 0.5])
    assert hits == [Hit("c", 0.9, 1), Hit("d", 0.5, 2), Hit("b", 0.5, 3), Hit("a", 0.5, 4)]
    assert rank(["a", "b"], [1.0, 2.0], k=1) == [Hit("b", 2.0, 1)]
    assert rank([], []) == []


def test_rank_compares_ids_by_code_point():
    # "p10" < "p9" as strings (trec_eval's strcmp); descending puts p9 first.
    assert [h.id for h in rank(["p10", "p9", "P9"], [1, 1, 1])] == ["p9", "p10", "P9"]


@given(st.lists(st.tuples(st.sampled_from(["p1", "p10", "p9", "P9", "a", "ب", "ب1", "d-2"]),
                          st.sampled_from([0.0, 0.25, 0.5, 1.0, -1.5, 2.0 ** -30])),
                max_size=30),
       st.one_of(st.none(), st.integers(0, 12)))
def test_rank_is_the_rule_on_ties_duplicates_and_any_k(pairs, k):
    ids = [pid for pid, _ in pairs]
    scores = [score for _, score in pairs]
    assert rank(ids, scores, k) == by_the_rule(ids, scores, k)
    assert rank(np.asarray(ids, dtype=str), np.asarray(scores), k) == by_the_rule(ids, scores, k)


# ---------------------------------------------------------------- BM25
def test_bm25_finds_the_passage_and_only_matching_ones():
    index = BM25Index(corpus("ar").ids, corpus("ar").indexed_texts)
    hits = index.search("كم يوما الاجازه السنويه؟")
    assert hits[0].id == "p01"
    assert all(h.score > 0 for h in hits)
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert index.search("annual leave") == []          # no shared term: nothing found
    assert index.search("") == index.search("في من") == []


def test_bm25_is_deterministic_across_builds():
    c = corpus("en")
    queries = ["thirty days", "leave", "manager approval", "2,000 riyals budget"]
    first = [BM25Index(c.ids, c.indexed_texts).search(q) for q in queries]
    again = [BM25Index(c.ids, c.indexed_texts).search(q) for q in queries]
    assert first == again


def test_bm25_ties_follow_the_rule():
    index = BM25Index(["a", "b", "c"], ["same words here", "same words here", "other"])
    assert [h.id for h in index.search("same words")] == ["b", "a"]


def test_bm25_passage_without_terms_is_indexed_but_never_found():
    index = BM25Index(["a", "b"], ["...", "the annual leave"])
    assert len(index) == 2
    assert [h.id for h in index.search("leave")] == ["b"]


# ---------------------------------------------------------------- reciprocal rank fusion
def _ranking(*ids):
    return [Hit(pid, 10.0 - r, r) for r, pid in enumerate(ids, start=1)]


def test_rrf_equals_its_formula_on_a_hand_case():
    bm25, vec = _ranking("a", "b", "c"), _ranking("c", "d", "a")
    fused = reciprocal_rank_fusion({"bm25": bm25, "dense": vec})
    expected = {"a": 1 / 61 + 1 / 63, "b": 1 / 62, "c": 1 / 63 + 1 / 61, "d": 1 / 62}
    assert {h.id: h.score for h in fused} == pytest.approx(expected, abs=1e-15)
    # a and c tie exactly (1/61 + 1/63 either way): passage id descending, so c first; b, d too.
    assert [h.id for h in fused] == ["c", "a", "d", "b"]
    assert [h.rank for h in fused] == [1, 2, 3, 4]


def test_rrf_weights_and_k():
    bm25, vec = _ranking("a", "b"), _ranking("b", "c")
    fused = reciprocal_rank_fusion({"bm25": bm25, "dense": vec}, {"bm25": 2.0, "dense": 0.5},
                                   k=10)
    expected = {"a": 2 / 11, "b": 2 / 12 + 0.5 / 11, "c": 0.5 / 12}
    assert {h.id: h.score for h in fused} == pytest.approx(expected, abs=1e-15)
    assert [h.id for h in fused] == ["b", "a", "c"]
    only_dense = reciprocal_rank_fusion({"bm25": bm25, "dense": vec}, {"bm25": 0})
    assert [h.id for h in only_dense] == ["b", "c"]
    assert reciprocal_rank_fusion({"bm25": bm25}, top=1) == [Hit("a", 1 / (RRF_K + 1), 1)]


@pytest.mark.parametrize("bad", [{"bm25": -1.0}, {"dense": float("nan")},
                                 {"dense": float("inf")}])
def test_rrf_refuses_bad_weights(bad):
    with pytest.raises(ValueError):
        reciprocal_rank_fusion({"bm25": _ranking("a")}, bad)


def test_rrf_is_deterministic_whatever_the_input_order():
    bm25, vec = _ranking("x", "y", "z", "w"), _ranking("w", "z", "v")
    one = reciprocal_rank_fusion({"bm25": bm25, "dense": vec}, {"bm25": 0.7, "dense": 1.3})
    two = reciprocal_rank_fusion({"dense": vec, "bm25": bm25}, {"dense": 1.3, "bm25": 0.7})
    assert one == two


# ---------------------------------------------------------------- dense
def test_dense_vectors_are_normalised_and_cached(systems):
    q = dense.embed_query("how many days of annual leave")
    assert q.shape == (dense.DIM,) and q.dtype == np.float32
    assert np.linalg.norm(q) == pytest.approx(1.0, abs=1e-5)
    assert dense.embed_query("how many days of annual leave") is q   # cached
    assert not q.flags.writeable


def test_dense_retrieves_across_languages(systems):
    assert systems["ar"].dense.search("How many days of annual leave do I get?")[0].id == "p01"
    assert systems["en"].dense.search("هل يمكنني العمل من البيت؟")[0].id == "p03"


def test_dense_ranks_every_passage_deterministically(systems):
    first = systems["en"].dense.search("receipts for a business trip")
    assert len(first) == len(corpus("en"))
    assert first[0].id == "p05"
    dense.embed_query.cache_clear()
    assert systems["en"].dense.search("receipts for a business trip") == first


def test_passage_vectors_do_not_depend_on_batching_or_threads(systems):
    texts = [p.title for lang in ("ar", "en") for p in corpus(lang).passages][:dense.BATCH + 2]
    seen = []
    one = dense.embed_passages(texts, workers=1, progress=lambda d, t: seen.append((d, t)))
    two = dense.embed_passages(texts, workers=2)
    assert np.array_equal(one, two)
    assert seen[-1] == (len(texts), len(texts))
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


LONG_EN = " ".join(text for _, _, _, (_, text) in ROWS * 4)   # ~4 x 90 tokens
LONG_AR = " ".join(text for _, _, _, (text, _) in ROWS * 4)


@pytest.mark.parametrize("text", [LONG_EN, LONG_AR])
@pytest.mark.parametrize("cap", [16, 64, 128])
def test_head_is_the_most_whole_words_within_the_cap(systems, text, cap):
    cut = dense.head(text, cap)
    assert dense.token_count(text) > cap >= dense.token_count(cut) > 0
    assert text.startswith(cut) and text[len(cut)] == " "          # after a whole word
    one_more = text[:text.index(" ", len(cut) + 1)]
    assert dense.token_count(one_more) > cap


def test_head_keeps_what_fits_and_cuts_inside_one_overlong_word(systems):
    short = ROWS[0][3][1]
    assert dense.head(short, 128) == short
    word = "x" * 400
    cut = dense.head(word, 20)
    assert word.startswith(cut) and 0 < len(cut) < len(word)
    assert dense.token_count(cut) <= 20 < dense.token_count(cut + "x")


def test_capped_passages_are_embedded_as_their_heads(systems):
    texts = [LONG_EN, ROWS[1][3][1], LONG_AR]
    capped = dense.embed_passages(texts, max_tokens=64, workers=2)
    heads = dense.embed_passages([dense.head(t, 64) for t in texts])
    assert np.array_equal(capped, heads)
    whole = dense.embed_passages(texts)
    assert np.array_equal(capped[1], whole[1])            # it fits: read whole
    assert not np.allclose(capped[0], whole[0], atol=1e-3)


def test_an_upload_is_read_up_to_the_cap_and_the_handbook_whole():
    long = Corpus((Passage("a", LONG_EN), Passage("b", ROWS[2][3][1])), "en", name="long")
    built = Retrievers.build(long)
    expected = dense.embed_passages(long.indexed_texts, max_tokens=dense.UPLOAD_MAX_TOKENS)
    assert np.array_equal(built.dense.vectors, expected)
    assert dense.token_count(long.indexed_texts[0]) > dense.UPLOAD_MAX_TOKENS
    whole = Retrievers.build(long, max_tokens=None)
    assert np.array_equal(whole.dense.vectors, dense.embed_passages(long.indexed_texts))


def test_concurrent_queries_give_the_same_vectors(systems):
    texts = [f"question number {i} about leave" for i in range(6)]
    alone = [dense.embed_passages([t])[0] for t in texts]
    together: dict[int, np.ndarray] = {}

    def embed(i):
        together[i] = dense.embed_passages([texts[i]])[0]

    threads = [threading.Thread(target=embed, args=(i,)) for i in range(len(texts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(np.array_equal(alone[i], together[i]) for i in range(len(texts)))


# ---------------------------------------------------------------- the three together
def test_search_returns_three_top_k_rankings(systems):
    found = systems["ar"].search("  كم يومًا إجازتي السنوية؟ ", k=3)
    assert tuple(found) == SYSTEMS == systems["ar"].systems
    assert all(len(hits) <= 3 for hits in found.values())
    assert len(found["dense"]) == len(found["hybrid"]) == 3
    assert {hits[0].id for hits in found.values()} == {"p01"}


def test_hybrid_is_the_fusion_of_the_full_rankings(systems):
    s = systems["en"]
    q = "thirty days"
    full = {"bm25": s.bm25.search(q), "dense": s.dense.search(q)}
    weights = {"bm25": 0.3, "dense": 1.7}
    assert s.search(q, k=None, weights=weights)["hybrid"] == reciprocal_rank_fusion(full, weights)
    assert s.search(q, k=2, weights=weights)["hybrid"] == reciprocal_rank_fusion(full, weights)[:2]


def test_search_is_deterministic(systems):
    queries = ["work from home", "كلمة المرور", "training budget 2,000", "تقرير طبي"]
    for lang in ("ar", "en"):
        first = [systems[lang].search(q) for q in queries]
        dense.embed_query.cache_clear()
        rebuilt = Retrievers.build(corpus(lang), vectors=systems[lang].dense.vectors)
        assert [rebuilt.search(q) for q in queries] == first


ONE_THREAD = """
import ctypes, os, sys
import numpy, pandas                     # as in the app: loaded before retrieval
from retrieval import dense
dense.embed_query("how many days of annual leave")
gomp = next(line.split()[-1] for line in open("/proc/self/maps") if "libgomp" in line)
print(ctypes.CDLL(gomp).omp_get_max_threads())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_the_model_runs_on_one_openmp_thread(systems):
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    done = subprocess.run([sys.executable, "-c", ONE_THREAD], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.split() == ["1"]


def test_prepare_embeds_the_question_that_search_then_uses(systems):
    dense.embed_query.cache_clear()
    systems["en"].prepare("  sick leave note  ")
    assert dense.embed_query.cache_info().misses == 1
    found = systems["en"].search("sick leave note")
    assert dense.embed_query.cache_info().misses == 1 and found["dense"]
    systems["en"].prepare("   ")
    assert dense.embed_query.cache_info().misses == 1


def test_empty_question_finds_nothing(systems):
    assert systems["ar"].search("   ") == {"bm25": [], "dense": [], "hybrid": []}


def test_progress_is_reported_for_both_indexes():
    seen = []
    Retrievers.build(corpus("en"), progress=lambda *a: seen.append(a))
    assert seen[0] == ("bm25", 6, 6)
    assert seen[-1] == ("dense", 6, 6)
