"""Fusing runs: a new run from two or more, by reciprocal rank fusion, CombSUM or CombMNZ.

For a query q and a document d, let r range over the runs that retrieved d for q (within the
first ``depth`` documents of each run, if given), ``rank_r(d)`` be d's 1-based rank in run r,
``s_r(d)`` its score there and ``w_r`` the run's weight (default 1)::

    RRF      score(d) = Σ_r w_r / (k + rank_r(d))              k = 60
             (Cormack, Clarke & Büttcher, SIGIR 2009)
    CombSUM  score(d) = Σ_r w_r · ŝ_r(d)
    CombMNZ  score(d) = |{r : d retrieved by r}| · Σ_r w_r · ŝ_r(d)
             (Fox & Shaw, TREC-2 1994; the count is not weighted)

``ŝ`` is the score normalised per run and query, over the documents that enter the fusion
(Montague & Aslam, CIKM 2001; the same definitions as ranx):

- ``"min-max"`` (default): (s − min) / (max − min), in [0, 1] (Lee, SIGIR 1997);
- ``"z-score"``: (s − mean) / sd, sd over the list with n (not n − 1), "ZMUV";
- ``"sum"``: (s − min) / Σ(s − min): shifted to start at 0, summing to 1;
- ``"none"``: the scores as given (only sensible when the runs share a scale).

Where a list has no spread (one document, or all scores equal) the denominator is 0 and every
document of that list gets 0 (ranx floors the denominator at 1e-9, which gives the same 0).

Ranks and the result follow trec_eval's order: score descending, equal scores by document id
descending (byte order of the UTF-8 ids). Contributions are rounded to a common binary grid
(below 2^-52 of the largest possible sum) on which every sum is exact, so documents whose
contributions are equal as multisets get bit-identical fused scores, whatever the order of
addition, and their tie is broken by document id, never by floating-point rounding.

The result is a run frame ``metrics.evaluate`` takes: ``query_id`` (category, ids sorted),
``doc_id`` (str), ``score`` (float64), in rank order, one row per (query, document)
(``evaluate`` checks that itself, as for any frame not fresh from ``read_run``);
``attrs["fusion"]`` records the method and its parameters. Every document any run retrieved
is kept (``depth`` cuts the inputs).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from metrics.errors import MetricError

METHODS = ("rrf", "combsum", "combmnz")
NORMS = ("min-max", "z-score", "sum", "none")
RRF_K = 60
_STR = pd.StringDtype("pyarrow", na_value=np.nan)   # read_run's doc_id dtype


def _columns(run) -> tuple[object, object, np.ndarray]:
    """(query ids, doc ids, scores) of a run frame or a ``{qid: {doc: score}}`` mapping."""
    if isinstance(run, pd.DataFrame):
        absent = {"query_id", "doc_id", "score"} - set(run.columns)
        if absent:
            raise MetricError("bad_run", missing=", ".join(sorted(absent)))
        queries, docs, scores = run["query_id"], run["doc_id"], run["score"].to_numpy()
    elif isinstance(run, Mapping):
        queries, docs, values = [], [], []
        for qid, ranking in run.items():
            if not isinstance(ranking, Mapping):
                raise MetricError("bad_run", query=str(qid), type=type(ranking).__name__)
            queries.extend([str(qid)] * len(ranking))
            docs.extend(map(str, ranking))
            values.extend(ranking.values())
        queries, docs, scores = pd.Series(queries, dtype=object), pd.Series(docs), values
    else:
        raise MetricError("bad_run", type=type(run).__name__)
    try:
        scores = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError):
        raise MetricError("non_numeric_score") from None
    if not np.isfinite(scores).all():
        raise MetricError("nan_score")
    return queries, docs, scores


def _distinct(values) -> tuple[np.ndarray, pa.Array]:
    """Codes of ``values`` and their distinct ids (as Arrow strings); a category column's
    codes and categories are used as they are."""
    if isinstance(getattr(values, "dtype", None), pd.CategoricalDtype):
        codes, uniques = values.cat.codes.to_numpy(), values.cat.categories
    else:
        codes, uniques = pd.factorize(values)
    if len(codes) and codes.min() < 0:
        raise MetricError("bad_run", missing="query_id/doc_id")
    return codes.astype(np.int64), pa.array(pd.Index(uniques).astype(_STR), type=pa.large_string())


def _joint(columns: Sequence) -> tuple[list[np.ndarray], pa.Array]:
    """Every column's codes into one shared list of distinct ids, sorted by code point (the
    order trec_eval's strcmp gives UTF-8 ids), so a larger code is a larger id."""
    parts = [_distinct(c) for c in columns]
    distinct = pc.unique(pa.chunked_array([u for _, u in parts], type=pa.large_string()))
    ids = distinct.take(pc.array_sort_indices(distinct))
    out = []
    for codes, local in parts:
        remap = pc.index_in(local, value_set=ids).to_numpy(zero_copy_only=False).astype(np.int64)
        out.append(remap[codes] if len(codes) else codes)
    return out, ids


def _descending_codes(values: np.ndarray) -> tuple[np.ndarray, int]:
    """Dense ranks of ``values``, largest first (0 = the largest), and how many there are."""
    distinct, inverse = np.unique(values, return_inverse=True)
    return len(distinct) - 1 - inverse, len(distinct)


def _sort_rows(query: np.ndarray, score: np.ndarray, doc: np.ndarray, n_queries: int,
               n_docs: int) -> np.ndarray:
    """The permutation putting rows in trec_eval's order: by query, score descending, doc
    (sorted-id code) descending. The three keys are packed into one int64 and sorted once
    (numpy's lexsort is several times slower) when they fit in 63 bits."""
    score_code, n_scores = _descending_codes(score)
    if n_queries * n_scores * n_docs < 2 ** 63:
        key = (query * n_scores + score_code) * n_docs + (n_docs - 1 - doc)
        return np.argsort(key)
    return np.lexsort((-doc, score_code, query))


def _trec_order(query: np.ndarray, score: np.ndarray, doc: np.ndarray, n_queries: int,
                n_docs: int) -> np.ndarray:
    """As ``_sort_rows``; a run already written in rank order (each query's rows together,
    scores not increasing: nearly every TREC file) only has its ties put in order."""
    n = len(query)
    if n < 2:
        return np.arange(n)
    same_query = query[1:] == query[:-1]
    block_query = query[np.flatnonzero(np.append(True, ~same_query))]
    if len(np.unique(block_query)) != len(block_query) or np.any(
            (score[1:] > score[:-1]) & same_query):
        return _sort_rows(query, score, doc, n_queries, n_docs)
    order = np.arange(n)
    tied = same_query & (score[1:] == score[:-1])
    if tied.any():
        in_tie = np.zeros(n, bool)
        in_tie[1:] |= tied
        in_tie[:-1] |= tied
        rows = np.flatnonzero(in_tie)
        group = np.cumsum(np.append(True, ~tied[rows[1:] - 1]))   # one number per tie
        order[rows] = rows[np.argsort(group * n_docs + (n_docs - 1 - doc[rows]))]
    return order


def _blocks(query: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For rows grouped by query: where each block starts, and each row's 1-based rank."""
    n = len(query)
    start = np.flatnonzero(np.append(True, query[1:] != query[:-1])) if n else query[:0]
    first = np.repeat(start, np.diff(np.append(start, n)))
    return start, np.arange(n) - first + 1


def _normalise(query: np.ndarray, score: np.ndarray, start: np.ndarray, norm: str) -> np.ndarray:
    """Scores normalised per query, for rows in rank order (``start``: the blocks' first rows,
    where each query's highest score is; its lowest is the row before the next block)."""
    if norm == "none":
        return score
    sizes = np.diff(np.append(start, len(score)))
    block = np.repeat(np.arange(len(start)), sizes)
    if norm == "z-score":
        mean = np.bincount(block, weights=score) / sizes
        centred = score - mean[block]
        sd = np.sqrt(np.bincount(block, weights=centred ** 2) / sizes)[block]
        return np.divide(centred, sd, out=np.zeros_like(score), where=sd > 0)
    low = score[start + sizes - 1]
    shifted = score - low[block]
    if norm == "min-max":
        bottom = (score[start] - low)[block]
    else:  # sum
        bottom = np.bincount(block, weights=shifted)[block]
    return np.divide(shifted, bottom, out=np.zeros_like(score), where=bottom > 0)


def _on_common_grid(parts: np.ndarray, terms: int) -> np.ndarray:
    """``parts`` rounded to multiples of one power of two, chosen so that any sum of ``terms``
    of them is exact in float64: the sums then do not depend on the order of addition, and
    documents with equal contributions tie exactly. The rounding is below 2^-52 of the
    largest possible sum."""
    largest = float(np.abs(parts).max()) * terms if len(parts) else 0.0
    if largest == 0.0:
        return parts
    quantum = 2.0 ** (math.frexp(largest)[1] - 52)
    return np.round(parts / quantum) * quantum


def fuse(runs: Sequence | Mapping, *, method: str = "rrf", weights: Sequence[float] | None = None,
         k: float = RRF_K, norm: str = "min-max", depth: int | None = None) -> pd.DataFrame:
    """A new run from ``runs`` (a list of run frames, or name -> run; two or more).

    ``method``: ``"rrf"``, ``"combsum"`` or ``"combmnz"``; ``weights``: one per run (>= 0, not
    all 0); ``k``: RRF's constant (>= 0); ``norm``: CombSUM/CombMNZ's score normalisation;
    ``depth``: only each run's first ``depth`` documents per query take part."""
    if isinstance(runs, Mapping):
        runs = list(runs.values())
    runs = list(runs)
    if len(runs) < 2:
        raise MetricError("fusion_runs", found=len(runs))
    if method not in METHODS:
        raise MetricError("bad_parameter", name="method", value=repr(method), allowed=METHODS)
    if norm not in NORMS:
        raise MetricError("bad_parameter", name="norm", value=repr(norm), allowed=NORMS)
    w = np.ones(len(runs)) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != (len(runs),) or not np.isfinite(w).all() or (w < 0).any() or not w.any():
        raise MetricError("bad_parameter", name="weights", value=repr(weights),
                          allowed=f"{len(runs)} numbers >= 0, not all 0")
    if not (np.isfinite(k) and k >= 0):
        raise MetricError("bad_parameter", name="k", value=repr(k), allowed="a number >= 0")
    if depth is not None and (int(depth) != depth or depth < 1):
        raise MetricError("bad_parameter", name="depth", value=repr(depth),
                          allowed="an integer >= 1")

    columns = [_columns(r) for r in runs]
    query_codes, query_ids = _joint([c[0] for c in columns])
    doc_codes, doc_ids = _joint([c[1] for c in columns])
    n_queries, n_docs = max(len(query_ids), 1), max(len(doc_ids), 1)
    keys, parts = [], []
    for weight, (_, _, score), q, d in zip(w, columns, query_codes, doc_codes, strict=True):
        order = _trec_order(q, score, d, n_queries, n_docs)
        q, d, score = q[order], d[order], score[order]
        start, rank = _blocks(q)
        if depth is not None and len(rank) and rank.max() > depth:
            kept = rank <= depth
            q, d, score, rank = q[kept], d[kept], score[kept], rank[kept]
            start, _ = _blocks(q)
        if method == "rrf":
            part = weight / (k + rank)
        else:
            part = weight * _normalise(q, score, start, norm)
        keys.append(q * n_docs + d)
        parts.append(part)
    key = np.concatenate(keys)
    part = _on_common_grid(np.concatenate(parts), len(runs))
    # Group each document's contributions: sort the (query, document) keys once.
    order = np.argsort(key)
    key, part = key[order], part[order]
    start = np.flatnonzero(np.append(True, key[1:] != key[:-1])) if len(key) else key[:0]
    fused = np.add.reduceat(part, start) if len(key) else part
    key = key[start]
    if method == "combmnz":
        fused = fused * np.diff(np.append(start, len(part)))
    q, d = key // n_docs, key % n_docs
    if n_queries < 2 ** 15:
        # Reversed, the rows run by query and doc id descending; two stable sorts (score
        # descending, then the query: a radix sort on int16) keep that order within ties.
        order = np.argsort(-fused[::-1], kind="stable")
        order = order[np.argsort(q[::-1][order].astype(np.int16), kind="stable")]
        order = len(key) - 1 - order
    else:
        order = _sort_rows(q, fused, d, n_queries, n_docs)
    q, d, fused = q[order], d[order], fused[order]
    frame = pd.DataFrame({
        "query_id": pd.Categorical.from_codes(q, categories=pd.Index(query_ids, dtype=_STR),
                                              validate=False),
        "doc_id": pd.array(doc_ids.take(pa.array(d)), dtype=_STR),
        "score": fused,
    })
    frame.attrs["fusion"] = {"method": method, "weights": [float(x) for x in w],
                             "k": float(k) if method == "rrf" else None,
                             "norm": norm if method != "rrf" else None, "depth": depth}
    return frame
