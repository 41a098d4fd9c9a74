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


def _factorize(values) -> tuple[np.ndarray, pd.Index]:
    """Integer codes and the distinct values as strings (free for a categorical column)."""
    if isinstance(getattr(values, "dtype", None), pd.CategoricalDtype):
        return values.cat.codes.to_numpy(), pd.Index(values.cat.categories.astype(str))
    codes, uniques = pd.factorize(values)
    return codes, pd.Index(uniques).astype(str)


def _positions(values, index: pd.Index) -> np.ndarray:
    """Position of each value in ``index`` (-1 when absent). Arrow-backed strings are looked up
    by pyarrow's hash join without converting millions of ids to Python objects."""
    arrow = getattr(getattr(values, "array", None), "_pa_array", None)
    if arrow is not None and len(index):
        import pyarrow as pa
        import pyarrow.compute as pc

        found = pc.index_in(arrow, value_set=pa.array(index.to_numpy(dtype=object),
                                                       type=arrow.type))
        return pc.fill_null(found, -1).to_numpy()
    codes, uniques = _factorize(values)
    return index.get_indexer(uniques)[codes] if len(codes) else codes


def _take(column, rows: np.ndarray):
    """Rows of a pandas Series or a numpy array, by position."""
    return column.iloc[rows].to_numpy() if hasattr(column, "iloc") else column[rows]


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


def _is_ranked(queries: np.ndarray, scores: np.ndarray) -> bool:
    """Are the rows grouped by query with scores non-increasing? TREC runs are nearly always
    written that way; then the file order is the rank order and nothing needs sorting."""
    if len(queries) < 2:
        return True
    same_query = queries[1:] == queries[:-1]
    block_queries = np.append(queries[np.flatnonzero(~same_query)], queries[-1])
    return (len(np.unique(block_queries)) == len(block_queries)
            and not np.any((scores[1:] > scores[:-1]) & same_query))


class _Prepared:
    """A run in rank order, joined to its judgments.

    Every measure here depends only on the ranked rows with a positive grade (hits, first hit,
    gains) and on how many rows each query has, so only those few rows are ranked and kept:
    a row's rank is its position in its query's block, corrected for ties (trec_eval puts equal
    scores in document id order, descending).
    """

    def __init__(self, run, qrels) -> None:
        judged = _columns(qrels, "grade", "qrels")
        grades = check_grade_array(judged.value)
        qids, qindex = _factorize(judged.query)
        names = qindex.tolist()
        natural = sorted(range(len(names)), key=lambda i: _natural_key(names[i]))
        self.query_ids = qindex[natural]
        remap = np.empty(len(natural), np.int64)
        remap[natural] = np.arange(len(natural))
        self.n = len(natural)
        self.qrels_q = remap[qids] if len(qids) else qids
        self.qrels_g = grades
        judged_docs, doc_index = _factorize(judged.doc)
        width = max(len(doc_index), 1)
        qrels_keys = self.qrels_q * width + judged_docs
        key_order = np.argsort(qrels_keys, kind="stable")
        qrels_keys, key_grades = qrels_keys[key_order], grades[key_order]
        if len(qrels_keys) and np.any(qrels_keys[1:] == qrels_keys[:-1]):
            raise MetricError("duplicate_judgment")

        ranked = _columns(run, "score", "run")
        scores = ranked.value
        if np.isnan(scores).any():
            raise MetricError("nan_score")
        raw_q, run_index = _factorize(ranked.query)
        lookup = self.query_ids.get_indexer(run_index)
        self.unjudged_queries = sorted(run_index[lookup < 0], key=_natural_key)
        run_doc = _positions(ranked.doc, doc_index)     # -1: a document nobody judged
        docs = ranked.doc

        # Put rows in rank order (usually they already are) and drop duplicate documents.
        self.duplicates_dropped = 0
        checked = getattr(run, "attrs", {}).get("unique_pairs") == len(scores)
        if not (_is_ranked(raw_q, scores) and checked):
            order = np.lexsort((-scores, raw_q))
            if not checked and len(order):
                doc_codes, _ = _factorize(docs)
                pairs = raw_q[order] * (int(doc_codes.max()) + 1) + doc_codes[order]
                first = ~pd.Series(pairs).duplicated().to_numpy()
                self.duplicates_dropped = int((~first).sum())
                order = order[first]
            raw_q, scores, run_doc = raw_q[order], scores[order], run_doc[order]
            docs = _take(docs, order)

        # Blocks of one query, and the (few) runs of equal scores inside them.
        n_rows = len(raw_q)
        block_start = np.flatnonzero(raw_q[1:] != raw_q[:-1]) + 1
        block_start = np.concatenate(([0], block_start)) if n_rows else block_start
        continues_tie = np.flatnonzero((scores[1:] == scores[:-1]) & (raw_q[1:] == raw_q[:-1])) + 1
        self.tied_pairs = len(continues_tie)
        split = np.flatnonzero(np.diff(continues_tie) != 1) + 1
        tie_lo = continues_tie[np.concatenate(([0], split))] - 1 if len(continues_tie) else split
        tie_hi = continues_tie[np.append(split - 1, len(continues_tie) - 1)] + 1 if len(
            continues_tie) else split
        block_q = lookup[raw_q[block_start]] if len(block_start) else block_start
        sizes = np.diff(np.append(block_start, n_rows))
        self.retrieved = np.bincount(block_q[block_q >= 0], weights=sizes[block_q >= 0],
                                     minlength=self.n).astype(np.int64)

        # The judged rows: their query, grade and rank.
        rows = np.flatnonzero(run_doc >= 0)
        row_q = lookup[raw_q[rows]]
        keys = row_q * width + run_doc[rows]
        pos = np.minimum(np.searchsorted(qrels_keys, keys), max(len(qrels_keys) - 1, 0))
        hit = (row_q >= 0) & (qrels_keys[pos] == keys) if len(qrels_keys) else row_q < -1
        rows, row_q, row_g = rows[hit], row_q[hit], key_grades[pos[hit]]
        positive = row_g > 0
        rows, row_q, row_g = rows[positive], row_q[positive], row_g[positive]
        block = block_start[np.searchsorted(block_start, rows, side="right") - 1]
        rank = rows - block + 1
        group = np.searchsorted(tie_lo, rows, side="right") - 1
        tied = np.flatnonzero((group >= 0) & (rows < tie_hi[np.maximum(group, 0)])) if len(
            tie_lo) else group[:0]
        if len(tied):
            lo, hi = tie_lo[group[tied]], tie_hi[group[tied]]
            rank[tied] = lo - block[tied] + 1 + self._ahead_in_tie(docs, rows[tied], lo, hi)
        order = np.lexsort((rank, row_q))
        self.q, self.g, self.rank = row_q[order], row_g[order], rank[order]
        _, self._first = _group_ranks(self.q)
        self._cache: dict = {}

    @staticmethod
    def _ahead_in_tie(docs, rows, lo, hi) -> np.ndarray:
        """For each row, how many rows of its tie group [lo, hi) have a larger document id."""
        groups, where = np.unique(lo, return_index=True)
        spans = hi[where] - groups
        members = np.repeat(groups, spans) + (np.arange(spans.sum())
                                              - np.repeat(np.cumsum(spans) - spans, spans))
        names = np.asarray(_take(docs, members), dtype=str)
        member_group = np.repeat(np.arange(len(groups)), spans)
        row_group = np.searchsorted(groups, lo)
        row_name = names[np.searchsorted(members, rows)]
        # count members of the same group whose name is greater: sort (group, name)
        key_order = np.lexsort((names, member_group))
        sorted_group, sorted_names = member_group[key_order], names[key_order]
        ahead = np.empty(len(rows), np.int64)
        group_end = np.searchsorted(sorted_group, row_group, side="right")
        for i, (g_end, name, g) in enumerate(zip(group_end, row_name, row_group, strict=True)):
            g_start = np.searchsorted(sorted_group, g, side="left")
            ahead[i] = g_end - (g_start + np.searchsorted(sorted_names[g_start:g_end], name,
                                                         side="right"))
        return ahead

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
