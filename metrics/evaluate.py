"""Evaluating a whole run: many queries, many measures, one table.

The friendly functions in ``binary``, ``rank`` and ``graded`` score one ranking in plain Python;
this module computes the same measures for every query at once with numpy, on a run sorted once.
Both are tested against trec_eval (pytrec_eval) and against each other.

Policies (visible in ``result.attrs``; defaults follow trec_eval):

- documents are ranked by score, descending; equal scores by document id, descending (trec_eval);
- one row per query in the judgments; a query absent from the run scores 0 and is listed in
  ``attrs["missing_queries"]`` (``missing="skip"`` leaves it out instead, as pytrec_eval does);
- run queries without judgments are ignored and listed in ``attrs["unjudged_queries"]``;
- a query with no relevant document scores 0 and is listed in ``attrs["no_relevant_queries"]``;
- the same document twice for one query: the best-ranked copy counts; the rest are counted in
  ``attrs["duplicates_dropped"]``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from metrics._input import check_grade_array
from metrics.errors import MetricError
from metrics.registry import MeasureSpec, parse

MISSING_POLICIES = ("zero", "skip")


@dataclass
class _Columns:
    query: pd.Series | np.ndarray
    doc: pd.Series | np.ndarray
    value: np.ndarray


def _natural_key(text: str) -> list:
    return [(0, int(part), "") if part.isdigit() else (1, 0, part)
            for part in re.split(r"(\d+)", text) if part]


def _from_nested(data: Mapping, what: str) -> _Columns:
    """``{qid: {doc: value}}`` or, for runs, ``{qid: [doc, ...]}`` (list order = rank order)."""
    queries: list[str] = []
    docs: list[str] = []
    values: list[float] = []
    for qid, inner in data.items():
        if isinstance(inner, Mapping):
            queries.extend([str(qid)] * len(inner))
            docs.extend(map(str, inner.keys()))
            values.extend(inner.values())
        elif what == "run" and isinstance(inner, Sequence) and not isinstance(inner, str):
            seen: set[str] = set()
            ranked = [d for d in map(str, inner) if not (d in seen or seen.add(d))]
            queries.extend([str(qid)] * len(ranked))
            docs.extend(ranked)
            values.extend(range(len(ranked), 0, -1))
        else:
            raise MetricError(f"bad_{what}", query=str(qid), type=type(inner).__name__)
    try:
        array = np.asarray(values, dtype=np.float64 if what == "run" else object)
    except (TypeError, ValueError):
        raise MetricError("non_numeric_score") from None
    return _Columns(np.asarray(queries, dtype=object), np.asarray(docs, dtype=object), array)


def _from_frame(frame: pd.DataFrame, value_column: str, what: str) -> _Columns:
    missing = {"query_id", "doc_id", value_column} - set(frame.columns)
    if missing:
        raise MetricError(f"bad_{what}", missing=", ".join(sorted(missing)))
    values = frame[value_column].to_numpy()
    if what == "run":
        try:
            values = values.astype(np.float64)
        except (TypeError, ValueError):
            raise MetricError("non_numeric_score") from None
    return _Columns(frame["query_id"], frame["doc_id"], values)


def _columns(data, value_column: str, what: str) -> _Columns:
    if isinstance(data, pd.DataFrame):
        return _from_frame(data, value_column, what)
    if isinstance(data, Mapping):
        return _from_nested(data, what)
    raise MetricError(f"bad_{what}", type=type(data).__name__)


def _codes(values, index: pd.Index) -> np.ndarray:
    """Position of each value in ``index`` (-1 when absent), hashing each distinct value once."""
    if isinstance(getattr(values, "dtype", None), pd.CategoricalDtype):
        lookup = index.get_indexer(values.cat.categories.astype(str))
        codes = values.cat.codes.to_numpy()
        return np.where(codes >= 0, lookup[codes], -1)
    codes, uniques = pd.factorize(values)
    lookup = index.get_indexer(pd.Index(uniques).astype(str))
    return lookup[codes]


def _factorize(values) -> tuple[np.ndarray, pd.Index]:
    if isinstance(getattr(values, "dtype", None), pd.CategoricalDtype):
        return values.cat.codes.to_numpy().astype(np.int64), pd.Index(
            values.cat.categories.astype(str))
    codes, uniques = pd.factorize(values)
    return codes.astype(np.int64), pd.Index(uniques).astype(str)


def _group_ranks(groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For rows sorted by group: the 1-based position of each row within its group, and the
    index of the first row of each row's group."""
    n = len(groups)
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    is_start = np.empty(n, dtype=bool)
    is_start[0] = True
    np.not_equal(groups[1:], groups[:-1], out=is_start[1:])
    starts = np.flatnonzero(is_start)
    first = np.repeat(starts, np.diff(np.append(starts, n)))
    return np.arange(n, dtype=np.int64) - first + 1, first


def _gain(grades: np.ndarray, gain: str) -> np.ndarray:
    positive = np.maximum(grades, 0).astype(np.float64)
    return positive if gain == "linear" else np.exp2(positive) - 1.0


class _Prepared:
    """A run joined to its judgments and sorted once; the measures are sums over its rows."""

    def __init__(self, run, qrels) -> None:
        judged = _columns(qrels, "grade", "qrels")
        grades = check_grade_array(judged.value)
        qids, qindex = _factorize(judged.query)
        names = qindex.tolist()
        order = sorted(range(len(names)), key=lambda i: _natural_key(names[i]))
        self.query_ids = qindex[order]
        remap = np.empty(len(order), np.int64)
        remap[order] = np.arange(len(order))
        self.n = len(order)
        self.qrels_q = remap[qids] if len(qids) else qids
        self.qrels_g = grades

        ranked = _columns(run, "score", "run")
        scores = ranked.value
        if np.isnan(scores).any():
            raise MetricError("nan_score")
        run_q, run_index = _factorize(ranked.query)
        lookup = self.query_ids.get_indexer(run_index)
        run_q = lookup[run_q] if len(run_q) else run_q
        self.unjudged_queries = sorted(run_index[lookup < 0], key=_natural_key)
        keep = run_q >= 0
        doc_codes, doc_index = _factorize(ranked.doc)
        run_q, doc_codes, scores = run_q[keep], doc_codes[keep], scores[keep]

        # Judged grade of each run row: look (query, doc) up in the sorted judgment keys.
        width = max(len(doc_index), 1)
        qrels_doc = _codes(judged.doc, doc_index)
        on_run = qrels_doc >= 0
        qrels_keys = self.qrels_q[on_run] * width + qrels_doc[on_run]
        key_order = np.argsort(qrels_keys, kind="stable")
        qrels_keys, key_grades = qrels_keys[key_order], grades[on_run][key_order]
        if len(qrels_keys) and np.any(qrels_keys[1:] == qrels_keys[:-1]):
            raise MetricError("duplicate_judgment")
        run_keys = run_q * width + doc_codes
        pos = np.searchsorted(qrels_keys, run_keys)
        pos_clipped = np.minimum(pos, max(len(qrels_keys) - 1, 0))
        found = (pos < len(qrels_keys)) & (qrels_keys[pos_clipped] == run_keys) if len(
            qrels_keys) else np.zeros(len(run_keys), bool)
        run_g = np.where(found, key_grades[pos_clipped] if len(qrels_keys) else 0, 0)

        # Rank: score descending, then doc id descending (trec_eval's tie-break).
        order = np.lexsort((-scores, run_q))
        sorted_q, sorted_s = run_q[order], scores[order]
        tied = (sorted_q[1:] == sorted_q[:-1]) & (sorted_s[1:] == sorted_s[:-1])
        self.tied_pairs = int(tied.sum())
        if self.tied_pairs:
            in_tie = np.zeros(len(order), bool)
            in_tie[1:] |= tied
            in_tie[:-1] |= tied
            tied_docs = np.unique(doc_codes[order[in_tie]])
            names = np.asarray(doc_index[tied_docs], dtype=str)
            doc_rank = np.zeros(len(doc_index), np.int64)
            doc_rank[tied_docs[np.argsort(names, kind="stable")]] = np.arange(1, len(names) + 1)
            order = np.lexsort((-doc_rank[doc_codes], -scores, run_q))
        self.duplicates_dropped = 0
        if not getattr(run, "attrs", {}).get("unique_pairs", False) and len(order):
            first = ~pd.Series(run_keys[order]).duplicated().to_numpy()
            self.duplicates_dropped = int((~first).sum())
            if self.duplicates_dropped:
                order = order[first]
        self.q = run_q[order]
        self.g = run_g[order]
        self.rank, self._first = _group_ranks(self.q)
        self.retrieved = np.bincount(self.q, minlength=self.n)
        self._cache: dict = {}

    # --- building blocks -------------------------------------------------------------------
    def num_rel(self, rel: int) -> np.ndarray:
        return np.bincount(self.qrels_q[self.qrels_g >= rel], minlength=self.n).astype(float)

    def _count(self, mask: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        w = None if weights is None else weights[mask]
        return np.bincount(self.q[mask], weights=w, minlength=self.n).astype(float)

    def _cut(self, k: int | None) -> np.ndarray:
        return np.ones(len(self.q), bool) if k is None else self.rank <= k

    def hits(self, k: int | None, rel: int) -> np.ndarray:
        return self._count((self.g >= rel) & self._cut(k))

    @staticmethod
    def _ratio(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
        return np.divide(top, bottom, out=np.zeros_like(top), where=bottom > 0)

    # --- measures ---------------------------------------------------------------------------
    def value(self, spec: MeasureSpec) -> np.ndarray:
        p, k, name = spec.params, spec.k, spec.name
        if name == "P":
            return self.hits(k, p["rel"]) / k
        if name == "R":
            return self._ratio(self.hits(k, p["rel"]), self.num_rel(p["rel"]))
        if name == "HitRate":
            return (self.hits(k, p["rel"]) > 0).astype(float)
        if name == "F1":
            precision = self.hits(k, p["rel"]) / k
            recall = self._ratio(self.hits(k, p["rel"]), self.num_rel(p["rel"]))
            return self._ratio(2 * precision * recall, precision + recall)
        if name == "Rprec":
            n_rel = self.num_rel(p["rel"])
            mask = (self.g >= p["rel"]) & (self.rank <= n_rel[self.q])
            return self._ratio(self._count(mask), n_rel)
        if name == "RR":
            rows = np.flatnonzero((self.g >= p["rel"]) & self._cut(k))
            out = np.zeros(self.n)
            if len(rows):
                q = self.q[rows]
                first = np.append(True, q[1:] != q[:-1])
                out[q[first]] = 1.0 / self.rank[rows[first]]
            return out
        if name == "AP":
            return self.average_precision(k, p["rel"], p["norm"])
        if name in ("DCG", "IDCG", "nDCG"):
            dcg = self._count(self._cut(k), _gain(self.g, p["gain"]) / np.log2(self.rank + 1.0))
            if name == "DCG":
                return dcg
            ideal = self.idcg(k, p["gain"], p["ideal"])
            return ideal if name == "IDCG" else self._ratio(dcg, ideal)
        raise MetricError("unknown_measure", measure=spec.text)

    def average_precision(self, k: int | None, rel: int, norm: str) -> np.ndarray:
        relevant = (self.g >= rel) & self._cut(k)
        seen = np.cumsum(relevant)
        within = seen - (seen[self._first] - relevant[self._first])
        total = self._count(relevant, within / self.rank)
        if norm == "R":
            bottom = self.num_rel(rel)
        elif norm == "retrieved":
            bottom = self._count(relevant)
        else:
            bottom = np.minimum(self.num_rel(rel),
                                self.retrieved if k is None else np.full(self.n, float(k)))
        return self._ratio(total, bottom)

    def idcg(self, k: int | None, gain: str, ideal: str) -> np.ndarray:
        key = ("idcg", k, gain, ideal)
        if key not in self._cache:
            q, g = (self.qrels_q, self.qrels_g) if ideal == "judged" else (self.q, self.g)
            order = np.lexsort((-g, q))
            q, g = q[order], g[order]
            rank, _ = _group_ranks(q)
            mask = (g > 0) if k is None else (g > 0) & (rank <= k)
            weights = _gain(g[mask], gain) / np.log2(rank[mask] + 1.0)
            self._cache[key] = np.bincount(q[mask], weights=weights, minlength=self.n)
        return self._cache[key]


def evaluate(run, qrels, measures: Iterable[str] | str, *, missing: str = "zero") -> pd.DataFrame:
    """Per-query values of ``measures`` for ``run`` against ``qrels``.

    ``run``: ``{qid: {doc: score}}``, ``{qid: [doc, ...]}`` or a DataFrame (query_id, doc_id,
    score) as ``read_run`` returns. ``qrels``: ``{qid: {doc: grade}}`` or a DataFrame
    (query_id, doc_id, grade). ``measures``: strings such as ``"P@10"`` or
    ``"nDCG(gain=exponential)@5"``.
    Returns one row per query (index ``query_id``, strings) and one column per measure, named
    exactly as given; ``attrs`` holds the policies and what they affected.
    """
    if isinstance(measures, str):
        measures = [measures]
    specs = [parse(m) for m in measures]
    if not specs:
        raise MetricError("no_measures")
    if missing not in MISSING_POLICIES:
        raise MetricError("bad_parameter", name="missing", value=repr(missing),
                          allowed=MISSING_POLICIES)
    prepared = _Prepared(run, qrels)
    table = pd.DataFrame({spec.text: prepared.value(spec) for spec in specs},
                         index=pd.Index(prepared.query_ids, name="query_id", dtype=object))
    absent = prepared.retrieved == 0
    missing_queries = list(prepared.query_ids[absent])
    if missing == "skip":
        table = table[~absent]
    table.attrs = {
        "queries": len(table),
        "missing_queries": missing_queries,
        "unjudged_queries": prepared.unjudged_queries,
        "no_relevant_queries": list(prepared.query_ids[prepared.num_rel(1) == 0]),
        "tied_pairs": prepared.tied_pairs,
        "duplicates_dropped": prepared.duplicates_dropped,
        "policy": {
            "order": "score descending, ties by doc id descending (trec_eval)",
            "missing": "scored 0" if missing == "zero" else "skipped",
            "no_relevant": "scored 0",
            "unjudged_docs": "not relevant",
        },
    }
    return table
