"""A value never depends on how the run was built.

The same rows given to ``metrics.evaluate`` as the frame fresh from ``read_run``, after a boolean
filter, ``head``, ``groupby(...).head``, ``sample(frac=1)``, ``pd.concat`` of two parts,
``reset_index``, ``astype(str)`` or category ids, a frame built by hand, an edited copy, or a
``{qid: {doc: score}}`` dict give the same table, equal to pytrec_eval's where they share a
measure. Query and document counts cross the widths of pandas' category codes (127/128,
255/256, 32,767/32,768), where codes change from int8 to int16 to int32.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import metrics

pytrec_eval = pytest.importorskip("pytrec_eval")

MEASURES = ["P@5", "R@10", "HitRate@3", "RR", "RR@10", "AP", "AP@10", "nDCG@10", "nDCG",
            "Rprec", "F1@5", "DCG@5", "Bpref", "Judged@5", "IPrec@0.5", "NumRet", "NumRelRet"]
# The same measures under trec_eval's names, for pytrec_eval (RR@10, F1, DCG, Judged: none).
TREC = {"P_5": "P@5", "recall_10": "R@10", "success_3": "HitRate@3", "recip_rank": "RR",
        "map": "AP", "map_cut_10": "AP@10", "ndcg_cut_10": "nDCG@10", "ndcg": "nDCG",
        "Rprec": "Rprec", "bpref": "Bpref", "iprec_at_recall_0.50": "IPrec@0.5",
        "num_ret": "NumRet", "num_rel_ret": "NumRelRet"}


def make(n_queries: int, n_docs: int, seed: int, ties: bool):
    """Rows (query, doc, score) using exactly ``n_queries`` query ids and ``n_docs`` doc ids,
    in random order, and judgments for every query (graded, negative, unretrieved)."""
    rng = np.random.default_rng(seed)
    n = max(n_queries, n_docs)
    q = np.arange(n) % n_queries
    d = np.arange(n) % n_docs
    extra = rng.integers(0, n, size=n // 3)  # some queries get a second, random document
    q = np.concatenate([q, q[extra]])
    d = np.concatenate([d, rng.integers(0, n_docs, size=len(extra))])
    pairs = pd.DataFrame({"q": q, "d": d}).drop_duplicates().to_numpy()
    pairs = pairs[rng.permutation(len(pairs))]
    scores = (rng.integers(0, 3, len(pairs)).astype(float) if ties
              else np.round(rng.normal(size=len(pairs)), 6))
    rows = [(f"q{a}", f"d{b}", float(s)) for (a, b), s in zip(pairs, scores, strict=True)]
    qrels: dict[str, dict[str, int]] = {f"q{a}": {} for a in range(n_queries)}
    for (a, b) in pairs[rng.random(len(pairs)) < 0.6]:
        qrels[f"q{a}"][f"d{b}"] = int(rng.choice([-1, 0, 1, 1, 2, 3]))
    for a in range(n_queries):  # a judged document nobody retrieved, in every query
        qrels[f"q{a}"][f"unretrieved{a % 7}"] = int(rng.integers(0, 3))
    return rows, qrels


def as_dict(rows) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for q, d, s in rows:
        out.setdefault(q, {})[d] = s
    return out


def frame_rows(frame: pd.DataFrame) -> list[tuple[str, str, float]]:
    return list(zip(frame["query_id"].astype(str), frame["doc_id"].astype(str),
                    frame["score"].astype(float), strict=True))


def trec_text(rows) -> str:
    return "".join(f"{q} Q0 {d} {i} {s!r} run\n" for i, (q, d, s) in enumerate(rows, 1))


def same(table: pd.DataFrame, expected: pd.DataFrame, what: str) -> None:
    assert list(table.index) == list(expected.index), what
    np.testing.assert_allclose(table.to_numpy(), expected.to_numpy(), rtol=0, atol=1e-12,
                               err_msg=what)


def check_every_way(n_queries: int, n_docs: int, seed: int, ties: bool, cut: float,
                    keep: int) -> None:
    rows, qrels = make(n_queries, n_docs, seed, ties)
    reference = metrics.evaluate(as_dict(rows), qrels, MEASURES)
    fresh = metrics.read_run(trec_text(rows))
    assert len(fresh.query_id.cat.categories) == n_queries
    same(metrics.evaluate(fresh, qrels, MEASURES), reference, "fresh from read_run")
    judged = metrics.read_qrels("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items()
                                        for d, g in docs.items()))
    same(metrics.evaluate(fresh, judged, MEASURES), reference, "fresh run and qrels")

    # Different rows: compared with the dict of exactly those rows.
    threshold = float(np.quantile(fresh.score, cut))
    derived = {
        "boolean filter": fresh[fresh.score >= threshold],
        "head": fresh.head(keep),
        "groupby head": fresh.groupby("query_id", observed=True).head(1),
    }
    for what, frame in derived.items():
        expected = metrics.evaluate(as_dict(frame_rows(frame)), qrels, MEASURES)
        same(metrics.evaluate(frame, qrels, MEASURES), expected, what)

    # The same rows in other forms.
    split = keep % len(fresh)
    by_hand = pd.DataFrame({"query_id": [r[0] for r in rows], "doc_id": [r[1] for r in rows],
                            "score": [r[2] for r in rows]})
    for what, frame in {
        "all rows kept by a filter": fresh[fresh.score > -np.inf],
        "sample(frac=1)": fresh.sample(frac=1, random_state=seed),
        "concat of two parts": pd.concat([fresh.iloc[:split], fresh.iloc[split:]]),
        "reset_index": fresh.reset_index(),
        "copy": fresh.copy(),
        "astype(str)": fresh.astype({"query_id": str, "doc_id": str}),
        "category ids": by_hand.astype({"query_id": "category", "doc_id": "category"}),
        "built by hand": by_hand,
        "object ids": fresh.astype({"query_id": object, "doc_id": object}),
    }.items():
        same(metrics.evaluate(frame, qrels, MEASURES), reference, what)

    # A part concatenated with itself: pandas keeps the attrs and the length of a frame twice
    # as long; the repeated rows are duplicates, and only one copy counts.
    half = fresh.head(max(len(fresh) // 2, 1))
    doubled = metrics.evaluate(pd.concat([half, half]), qrels, MEASURES)
    same(doubled, metrics.evaluate(as_dict(frame_rows(half)), qrels, MEASURES), "twice")
    assert doubled.attrs["duplicates_dropped"] == len(half)

    # Edited in place after reading: a query id changed on the first row.
    if n_queries > 1:
        edited = fresh.copy()
        other = next(c for c in edited.query_id.cat.categories if c != edited.query_id.iloc[0])
        edited.loc[0, "query_id"] = other
        rows_now = frame_rows(edited)
        first_copy = {}
        for q, d, s in sorted(rows_now, key=lambda r: -r[2]):  # the best-scored copy counts
            first_copy.setdefault((q, d), s)
        expected = metrics.evaluate(as_dict([(q, d, s) for (q, d), s in first_copy.items()]),
                                    qrels, MEASURES)
        same(metrics.evaluate(edited, qrels, MEASURES), expected, "edited query id")

    # And pytrec_eval (trec_eval 9.0.8) on the dict, for every measure it shares.
    oracle = pytrec_eval.RelevanceEvaluator(qrels, set(TREC)).evaluate(as_dict(rows))
    ours = metrics.evaluate(fresh, qrels, list(TREC), missing="skip")
    assert set(ours.index) == set(oracle)
    for name in TREC:
        expected = np.array([oracle[q][name] for q in ours.index])
        np.testing.assert_allclose(ours[name].to_numpy(), expected, rtol=0, atol=1e-9,
                                   err_msg=name)
        np.testing.assert_array_equal(ours[name].to_numpy(), reference.loc[ours.index,
                                                                           TREC[name]])


BOUNDARIES = [(127, 128), (128, 127), (255, 256), (256, 255), (32767, 130), (32768, 126),
              (200, 32767), (120, 32768)]


@pytest.mark.parametrize(("n_queries", "n_docs"), BOUNDARIES)
@settings(max_examples=1, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), ties=st.booleans(), cut=st.floats(0.05, 0.95),
       keep=st.integers(1, 10**6))
def test_same_values_however_the_frame_was_built(n_queries, n_docs, seed, ties, cut, keep):
    check_every_way(n_queries, n_docs, seed, ties, cut, keep % (max(n_queries, n_docs) + 1) + 1)


@settings(max_examples=40, deadline=None)
@given(n_queries=st.integers(1, 300), n_docs=st.integers(1, 300),
       seed=st.integers(0, 2**32 - 1), ties=st.booleans(), cut=st.floats(0.0, 1.0),
       keep=st.integers(1, 400))
def test_same_values_however_the_frame_was_built_small(n_queries, n_docs, seed, ties, cut,
                                                        keep):
    check_every_way(n_queries, n_docs, seed, ties, cut, keep)


def test_the_reported_case_filter_and_groupby_head():
    """The issue's cases: 6 queries x 60 documents filtered on the score, and groupby.head on
    many queries (which used to overflow int8 query codes)."""
    rng = np.random.default_rng(3)
    rows = [(f"q{q}", f"d{d}", float(rng.normal())) for q in range(6) for d in range(60)]
    qrels = {f"q{q}": {f"d{d}": 1 for d in range(0, 60, 4)} for q in range(6)}
    run = metrics.read_run(trec_text(rows))
    kept = run[run.score >= 0]
    table = metrics.evaluate(kept, qrels, ["P@50", "AP"])
    expected = metrics.evaluate(as_dict(frame_rows(kept)), qrels, ["P@50", "AP"])
    same(table, expected, "filtered")
    assert table.attrs["duplicates_dropped"] == 0
    many = [(f"q{q}", f"d{d}", float(3 - d)) for q in range(184) for d in range(3)]
    run = metrics.read_run(trec_text(many))
    top = run.groupby("query_id", observed=True).head(2)
    table = metrics.evaluate(top, {f"q{q}": {"d1": 1} for q in range(184)}, ["RR", "P@2"])
    assert (table["RR"] == 0.5).all() and (table["P@2"] == 0.5).all()


@pytest.mark.parametrize("weak", ["length", "constant"])
def test_hash_collisions_never_change_a_value(monkeypatch, weak):
    """With a hash that collides on purpose (an id's length, or one value for every id), the
    join and the duplicate check fall back on the ids' text and give the same table."""
    import importlib

    ev = importlib.import_module("metrics.evaluate")  # the module, not the function

    rows, qrels = make(40, 30, 7, True)
    rows += rows[:5]  # some duplicates, with their scores
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    expected = metrics.evaluate(frame, qrels, MEASURES)

    def collide(column):
        lengths = [len(s) for s in column.to_pylist()]
        return np.array(lengths if weak == "length" else [7] * len(lengths), np.uint64)

    monkeypatch.setattr(ev, "hash_strings", collide)
    table = metrics.evaluate(frame, qrels, MEASURES)
    same(table, expected, weak)
    assert table.attrs["duplicates_dropped"] == expected.attrs["duplicates_dropped"] == 5


def test_a_run_id_whose_hash_matches_a_judged_id_is_not_taken_for_it(monkeypatch):
    import importlib

    ev = importlib.import_module("metrics.evaluate")
    qrels = {"q1": {"a": 1, "bb": 2}, "q2": {"ccc": 1}}
    run = {"q1": {"x": 4.0, "a": 3.0, "yy": 2.0, "bb": 1.0}, "q2": {"zzz": 2.0, "ccc": 1.0}}
    expected = metrics.evaluate(run, qrels, MEASURES)
    monkeypatch.setattr(ev, "hash_strings", lambda column: np.array(
        [len(s) for s in column.to_pylist()], np.uint64))  # x ~ a, yy ~ bb, zzz ~ ccc
    same(metrics.evaluate(run, qrels, MEASURES), expected, "colliding ids")
    assert expected.loc["q1", "RR"] == 0.5 and expected.loc["q2", "P@5"] == 0.2
