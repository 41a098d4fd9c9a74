"""Evaluating a whole run: many queries, many measures, one table.

The friendly functions in ``binary``, ``rank``, ``graded`` and ``counts`` score one ranking in
plain Python; this module computes the same measures for every query at once with numpy, on a
run sorted once. Both are tested against trec_eval (pytrec_eval) and against each other.

A value never depends on how the run was built: a frame fresh from ``read_run``, the same rows
filtered, sliced, shuffled, concatenated, re-typed or given as a dict all give the same table.
Only a frame ``read_run`` returned, unchanged, skips the checks the reader already made (see
``metrics._checked``); nothing is taken from ``DataFrame.attrs``.

Policies (visible in ``result.attrs``; defaults follow trec_eval):

- documents are ranked by score, descending; equal scores by document id, descending (trec_eval);
- one row per query in the judgments; a query absent from the run scores 0 and is listed in
  ``attrs["missing_queries"]`` (``missing="zero"``, what ``trec_eval -c`` does); ``missing=
  "skip"`` leaves it out instead, as trec_eval 9.0.8 and pytrec_eval do without ``-c``
  (trec_eval 10.0 without ``-c`` refuses such a run);
- run queries without judgments are ignored and listed in ``attrs["unjudged_queries"]``;
- a query with no relevant document (at the threshold) scores 0 on the binary measures (nDCG
  counts grades below the threshold) and is listed in ``attrs["no_relevant_queries"]``;
- the same document twice for one query: the best-ranked copy counts; the rest are counted in
  ``attrs["duplicates_dropped"]``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from metrics import _checked
from metrics._hashing import hash_strings, in_parallel, pair_hash, repeated_rows, take
from metrics._input import check_grade_array, check_rel
from metrics.errors import MetricError
from metrics.registry import MeasureSpec, parse

MISSING_POLICIES = ("zero", "skip")
_SPREAD = np.uint64(0x9E3779B97F4A7C15)  # odd: spreads query codes over the buckets


# --- input: a DataFrame or a dict, as one normalised form ---------------------------------------


@dataclass
class _Side:
    """A run or judgments: integer query codes into ``names``, document ids as Arrow strings
    with their 64-bit hashes, and the score or grade of each row."""

    queries: np.ndarray          # integer codes into names (as narrow as int8)
    names: pd.Index              # distinct query ids, as str
    docs: object                 # pyarrow ChunkedArray of large_string
    hashes: np.ndarray           # uint64, hash_strings(docs)
    values: np.ndarray
    unique: bool                 # no (query, doc) pair repeats: checked by the reader


def _arrow_strings(values, column: str, what: str):
    """Any column of ids as a pyarrow ``large_string`` ChunkedArray (numbers become text)."""
    import pyarrow as pa

    if isinstance(values, pd.Series):
        array = values.array
        if isinstance(array, pd.Categorical):
            names = pa.array(array.categories.astype(str).to_numpy(dtype=object),
                             pa.large_string())
            codes = array.codes
            if (codes < 0).any():
                raise MetricError("missing_id", column=column, what=what)
            return pa.chunked_array([names.take(pa.array(codes))])
        arrow = getattr(array, "_pa_array", None)
        if arrow is not None and (pa.types.is_string(arrow.type)
                                  or pa.types.is_large_string(arrow.type)):
            if arrow.null_count:
                raise MetricError("missing_id", column=column, what=what)
            return arrow.cast(pa.large_string()) if arrow.type != pa.large_string() else arrow
        values = values.to_numpy(dtype=object)
    values = np.asarray(values, dtype=object)
    if len(values) and pd.isna(values).any():
        raise MetricError("missing_id", column=column, what=what)
    try:
        return pa.chunked_array([pa.array(values, pa.large_string())])
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return pa.chunked_array([pa.array([str(v) for v in values], pa.large_string())])


def _factorize(values) -> tuple[np.ndarray, pd.Index]:
    """Integer codes and the distinct values as strings (free for a categorical column).
    The codes' dtype may be as narrow as int8: nothing computes with them but comparisons,
    indexing and ``pair_hash`` (which widens them)."""
    if isinstance(getattr(values, "dtype", None), pd.CategoricalDtype):
        codes = values.cat.codes.to_numpy()  # int8 to int32: compared and indexed, never added
        names = pd.Index(values.cat.categories.astype(str), dtype=object)
    else:
        codes, uniques = pd.factorize(values)
        codes = codes.astype(np.int64, copy=False)
        names = pd.Index(pd.Index(uniques).astype(str), dtype=object)
    if len(codes) and codes.min() < 0:
        raise MetricError("missing_id", column="query_id")
    return _one_code_per_name(codes, names)


def _one_code_per_name(codes: np.ndarray, names: pd.Index) -> tuple[np.ndarray, pd.Index]:
    """Codes that differ only for different names: 1 and "1" are one query id, as text."""
    if not names.has_duplicates:
        return codes, names
    codes, uniques = pd.factorize(names.to_numpy()[codes])
    return codes.astype(np.int64), pd.Index(uniques, dtype=object)


def _from_nested(data: Mapping, what: str):
    """``{qid: {doc: value}}`` or, for runs, ``{qid: [doc, ...]}`` (list order = rank order):
    the query ids, how many rows each has, and the docs and values of all rows."""
    inners = list(data.values())
    if all(type(inner) is dict for inner in inners):  # the usual case, in C loops
        sizes = list(map(len, inners))
        codes = np.repeat(np.arange(len(inners), dtype=np.int64), sizes)
        return (codes, list(map(str, data.keys())), list(itertools.chain.from_iterable(inners)),
                list(itertools.chain.from_iterable(map(dict.values, inners))))
    names: list[str] = []
    sizes = []
    docs: list = []
    values: list = []
    for qid, inner in data.items():
        if isinstance(inner, Mapping):
            docs.extend(inner.keys())
            values.extend(inner.values())
            size = len(inner)
        elif what == "run" and isinstance(inner, Sequence) and not isinstance(inner, str):
            ranked = list(dict.fromkeys(map(str, inner)))
            docs.extend(ranked)
            values.extend(range(len(ranked), 0, -1))
            size = len(ranked)
        else:
            raise MetricError(f"bad_{what}", query=str(qid), type=type(inner).__name__)
        names.append(str(qid))
        sizes.append(size)
    codes = np.repeat(np.arange(len(names), dtype=np.int64), sizes)
    return codes, names, docs, values


def _side(data, value_column: str, what: str) -> _Side:
    checked = None
    if isinstance(data, pd.DataFrame):
        missing = {"query_id", "doc_id", value_column} - set(data.columns)
        if missing:
            raise MetricError(f"bad_{what}", missing=", ".join(sorted(missing)))
        checked = _checked.lookup(data)
        codes, names = _factorize(data["query_id"])
        docs, values = data["doc_id"], data[value_column].to_numpy()
    elif isinstance(data, Mapping):
        codes, names, docs, values = _from_nested(data, what)
        codes, names = _one_code_per_name(codes, pd.Index(names, dtype=object))
    else:
        raise MetricError(f"bad_{what}", type=type(data).__name__)
    if what == "run":
        try:
            values = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            raise MetricError("non_numeric_score") from None
    else:
        values = check_grade_array(values)
    doc_strings = _arrow_strings(docs, "doc_id", what)
    hashes = checked.doc_hashes if checked is not None else hash_strings(doc_strings)
    return _Side(codes, names, doc_strings, hashes, values, checked is not None)


# --- helpers ---------------------------------------------------------------------------------


def _natural_key(text: str) -> list:
    return [(0, int(part), "") if part.isdigit() else (1, 0, part)
            for part in re.split(r"(\d+)", text) if part]


_WORD_NUMBER = re.compile(r"([^0-9]*)([0-9]{1,18})")


def _natural_order(names: Sequence[str]) -> list[int]:
    """Positions of the query ids in natural order (q2 before q10). Ids that are all a word
    and a number (``301``, ``q12``, ``topic-7``), the usual case, are sorted by numpy."""
    parts = [_WORD_NUMBER.fullmatch(n) for n in names]
    if all(parts):
        words = np.array([p.group(1) for p in parts], dtype=object)
        numbers = np.array([int(p.group(2)) for p in parts], np.int64)
        return np.lexsort((numbers, words.astype(str))).tolist() if len(names) else []
    return sorted(range(len(names)), key=lambda i: _natural_key(names[i]))


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


def _is_ranked(queries: np.ndarray, scores: np.ndarray, same_query: np.ndarray) -> bool:
    """Are the rows grouped by query with scores non-increasing? TREC runs are nearly always
    written that way; then the file order is the rank order and nothing needs sorting.
    ``same_query``: row i + 1 has the query of row i."""
    if len(queries) < 2:
        return True
    block_queries = np.append(queries[np.flatnonzero(~same_query)], queries[-1])
    return (len(np.unique(block_queries)) == len(block_queries)
            and not np.any((scores[1:] > scores[:-1]) & same_query))


def _suffix_max(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """For rows sorted by group: the maximum of each row's value and the values after it in
    its group (by doubling: log2 of the longest group passes)."""
    out = values.copy()
    n, step = len(out), 1
    while step < n:
        same = groups[step:] == groups[:-step]
        np.maximum(out[:-step], np.where(same, out[step:], -np.inf), out=out[:-step])
        step *= 2
    return out


# --- the run joined to its judgments -----------------------------------------------------------


class _Prepared:
    """A run in rank order, joined to its judgments.

    Every measure here depends only on the ranked rows that have a judgment (hits, first hit,
    gains, judged non-relevant documents) and on how many rows each query has, so only those
    few rows are ranked and kept: a row's rank is its position in its query's block, corrected
    for ties (trec_eval puts equal scores in document id order, descending).
    """

    def __init__(self, run, qrels) -> None:
        judged = _side(qrels, "grade", "qrels")
        names = judged.names.tolist()
        natural = _natural_order(names)
        self.query_ids = judged.names[natural]
        remap = np.empty(len(natural), np.int64)
        remap[natural] = np.arange(len(natural))
        self.n = len(natural)
        self.qrels_q = remap[judged.queries] if len(judged.queries) else judged.queries
        self.qrels_g = judged.values
        qrels_keys = pair_hash(self.qrels_q, judged.hashes)
        key_order = np.argsort(qrels_keys, kind="stable")
        qrels_keys = qrels_keys[key_order]
        exact = self._check_judgments(judged, qrels_keys, key_order)

        ranked = _side(run, "score", "run")
        scores = ranked.values
        if np.isnan(scores).any():
            raise MetricError("nan_score")
        raw_q, docs, hashes = ranked.queries, ranked.docs, ranked.hashes
        lookup = self.query_ids.get_indexer(ranked.names)
        self.unjudged_queries = sorted(ranked.names[lookup < 0], key=_natural_key)

        # Put rows in rank order (usually they already are) and drop duplicate documents.
        # ``position``: each ranked row's row in the input (None: the same).
        position = None
        self.duplicates_dropped = 0
        same_query = raw_q[1:] == raw_q[:-1]
        if not _is_ranked(raw_q, scores, same_query):
            position = np.lexsort((-scores, raw_q))
        if not ranked.unique:
            position = self._drop_duplicates(raw_q, docs, hashes, position)
        if position is not None:
            raw_q, scores, hashes = raw_q[position], scores[position], hashes[position]
            same_query = raw_q[1:] == raw_q[:-1]

        # Blocks of one query, and the (few) runs of equal scores inside them.
        n_rows = len(raw_q)
        block_start = np.flatnonzero(~same_query) + 1
        block_start = np.concatenate(([0], block_start)) if n_rows else block_start
        continues_tie = np.flatnonzero((scores[1:] == scores[:-1]) & same_query) + 1
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
        if exact:
            rows, row_q, which = self._join(raw_q, lookup, hashes, judged, qrels_keys,
                                            key_order, position, docs)
        else:  # two judgments share a 64-bit key (never seen): compare every id as text
            rows, row_q, which = self._join_by_text(lookup[raw_q], judged, position, docs)
        row_g = self.qrels_g[which]
        block = block_start[np.searchsorted(block_start, rows, side="right") - 1]
        rank = rows - block + 1
        group = np.searchsorted(tie_lo, rows, side="right") - 1
        tied = np.flatnonzero((group >= 0) & (rows < tie_hi[np.maximum(group, 0)])) if len(
            tie_lo) else group[:0]
        if len(tied):
            lo, hi = tie_lo[group[tied]], tie_hi[group[tied]]
            rank[tied] = lo - block[tied] + 1 + self._ahead_in_tie(docs, position, rows[tied],
                                                                   lo, hi)
        order = np.lexsort((rank, row_q))
        self.q, self.g, self.rank = row_q[order], row_g[order], rank[order]
        _, self._first = _group_ranks(self.q)
        self._cache: dict = {}

    def _check_judgments(self, judged: _Side, keys: np.ndarray, key_order: np.ndarray) -> bool:
        """Raise on a document judged twice for one query; False when two different judgments
        share a key (then the join compares text)."""
        same = np.flatnonzero(keys[1:] == keys[:-1])
        if not len(same):
            return True
        rows = key_order[np.unique(np.concatenate((same, same + 1)))]
        pairs = list(zip(self.qrels_q[rows].tolist(), take(judged.docs, rows).to_pylist(),
                         strict=True))
        if len(set(pairs)) < len(pairs):
            raise MetricError("duplicate_judgment")
        return False

    def _drop_duplicates(self, raw_q: np.ndarray, docs, hashes: np.ndarray,
                         position: np.ndarray | None) -> np.ndarray | None:
        """``position`` without the rows that repeat a better-ranked (query, doc) pair."""
        keys = pair_hash(raw_q, hashes)
        if position is not None:
            keys = keys[position]
        suspects = repeated_rows(keys)  # positions in rank order, ascending
        if not len(suspects):
            return position
        rows = suspects if position is None else position[suspects]
        pairs = pd.DataFrame({"q": raw_q[rows], "d": pd.array(take(docs, rows), dtype="str")})
        later = suspects[pairs.duplicated(keep="first").to_numpy()]
        self.duplicates_dropped = len(later)
        if position is None:
            position = np.arange(len(raw_q))
        return np.delete(position, later)

    def _join(self, raw_q: np.ndarray, lookup: np.ndarray, hashes: np.ndarray, judged: _Side,
              keys: np.ndarray, key_order: np.ndarray, position: np.ndarray | None, docs):
        """Ranked rows that have a judgment: (rows, their query, their judgment's row).

        A table of (query, doc) buckets rules out most rows with one gather (a judged doc
        retrieved for another query too); the rest are looked up by (query, doc) key in a hash
        table and confirmed on the text of the ids."""
        bits = max(16, int(np.ceil(np.log2(len(keys) + 1))) + 4)
        mask = np.uint64((1 << bits) - 1)

        def slots(codes: np.ndarray, doc_hashes: np.ndarray, out: np.ndarray) -> np.ndarray:
            wide = codes.astype(np.int64, copy=False).view(np.uint64)  # -1 wraps: fine
            np.multiply(wide, _SPREAD, out=out)
            np.add(out, doc_hashes, out=out)
            return np.bitwise_and(out, mask, out=out)

        bucket = np.zeros(1 << bits, bool)
        bucket[slots(self.qrels_q, judged.hashes, np.empty(len(judged.hashes), np.uint64))] = True

        def candidates(lo: int, hi: int) -> np.ndarray:
            step = 1 << 20  # small buffers, reused: fresh pages are slow
            slot = np.empty(min(step, max(hi - lo, 0)), np.uint64)
            found = []
            for a in range(lo, hi, step):
                b = min(a + step, hi)
                slots(lookup[raw_q[a:b]], hashes[a:b], slot[:b - a])
                found.append(np.flatnonzero(bucket[slot[:b - a]]) + a)
            return np.concatenate(found) if found else np.zeros(0, np.int64)

        half = len(hashes) // 2
        rows = np.concatenate(in_parallel([lambda: candidates(0, half),
                                           lambda: candidates(half, len(hashes))]))
        row_q = lookup[raw_q[rows]]
        rows, row_q = rows[row_q >= 0], row_q[row_q >= 0]
        at = pd.Index(keys).get_indexer(pair_hash(row_q, hashes[rows]))
        found = at >= 0
        rows, row_q, which = rows[found], row_q[found], key_order[at[found]]
        if len(rows):
            import pyarrow.compute as pc

            ours = take(docs, rows if position is None else position[rows])
            same = pc.equal(ours, take(judged.docs, which)).to_numpy(zero_copy_only=False)
            rows, row_q, which = rows[same], row_q[same], which[same]
        return rows, row_q, which

    def _join_by_text(self, row_q: np.ndarray, judged: _Side, position: np.ndarray | None,
                      docs):
        ours = pd.DataFrame({"q": row_q, "d": pd.array(
            docs if position is None else docs.take(position), dtype="str")})
        theirs = pd.DataFrame({"q": self.qrels_q, "d": pd.array(judged.docs, dtype="str"),
                               "which": np.arange(len(self.qrels_q))})
        merged = ours.reset_index().merge(theirs, on=["q", "d"])
        rows = merged["index"].to_numpy()
        order = np.argsort(rows)
        return rows[order], merged["q"].to_numpy()[order], merged["which"].to_numpy()[order]

    @staticmethod
    def _ahead_in_tie(docs, position, rows, lo, hi) -> np.ndarray:
        """For each row, how many rows of its tie group [lo, hi) have a larger document id
        (ids compared byte by byte, as trec_eval's strcmp)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        groups, where = np.unique(lo, return_index=True)
        spans = hi[where] - groups
        starts = np.cumsum(spans) - spans
        members = np.repeat(groups, spans) + (np.arange(spans.sum()) - np.repeat(starts, spans))
        member_group = np.repeat(np.arange(len(groups)), spans)
        names = take(docs, members if position is None else position[members])
        table = pa.table({"g": member_group, "d": names})
        order = pc.sort_indices(table, sort_keys=[("g", "ascending"),
                                                  ("d", "descending")]).to_numpy()
        place = np.empty(len(order), np.int64)
        place[order] = np.arange(len(order))
        member = np.searchsorted(members, rows)
        return place[member] - starts[member_group[member]]

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
        if name == "Bpref":
            return self.bpref(p["rel"])
        if name == "Judged":
            shown = self.retrieved.astype(float)
            if k is not None:
                shown = np.minimum(shown, float(k))
            return self._ratio(self._count(self._cut(k)), shown)
        if name == "IPrec":
            return self.interpolated_precision(k, p["rel"])
        if name == "NumRet":
            return self.retrieved.astype(float)
        if name == "NumRel":
            return self.num_rel(p["rel"])
        if name == "NumRelRet":
            return self.hits(None, p["rel"])
        if name == "NumQ":
            return np.ones(self.n)
        raise MetricError("unknown_measure", measure=spec.text)

    def _within(self, mask: np.ndarray) -> np.ndarray:
        """For each row, how many rows of its query up to and including it are in ``mask``."""
        seen = np.cumsum(mask)
        return seen - (seen[self._first] - mask[self._first])

    def average_precision(self, k: int | None, rel: int, norm: str) -> np.ndarray:
        relevant = (self.g >= rel) & self._cut(k)
        total = self._count(relevant, self._within(relevant) / self.rank)
        if norm == "R":
            bottom = self.num_rel(rel)
        elif norm == "retrieved":
            bottom = self._count(relevant)
        else:
            bottom = np.minimum(self.num_rel(rel),
                                self.retrieved if k is None else np.full(self.n, float(k)))
        return self._ratio(total, bottom)

    def bpref(self, rel: int) -> np.ndarray:
        relevant = self.g >= rel
        nonrel = (self.g >= 0) & ~relevant
        above = self._within(nonrel).astype(float)  # a relevant row is not itself nonrel
        n_rel = self.num_rel(rel)
        n_nonrel = np.bincount(self.qrels_q[(self.qrels_g >= 0) & (self.qrels_g < rel)],
                               minlength=self.n).astype(float)
        q, above = self.q[relevant], above[relevant]
        r, n = n_rel[q], n_nonrel[q]  # above > 0 means n >= 1, and r >= 1 on a relevant row
        penalty = np.divide(np.minimum(above, r), np.minimum(n, r), out=np.zeros(len(q)),
                            where=above > 0)
        return np.bincount(q, weights=1.0 - penalty, minlength=self.n) / np.maximum(n_rel, 1)

    def interpolated_precision(self, level: float, rel: int) -> np.ndarray:
        key = ("iprec", rel)
        if key not in self._cache:
            rows = np.flatnonzero(self.g >= rel)
            q = self.q[rows]
            _, first = _group_ranks(q)
            found = np.arange(len(rows)) - first + 1
            best = _suffix_max(found / self.rank[rows], q)
            self._cache[key] = (q, first, best, np.bincount(q, minlength=self.n))
        q, first, best, n_found = self._cache[key]
        # trec_eval 9.0.8: the level needs floor(level * R + 0.9) relevant documents (>= 1).
        needed = np.maximum(np.floor(level * self.num_rel(rel) + 0.9), 1).astype(np.int64)
        out = np.zeros(self.n)
        reached = np.flatnonzero(needed <= n_found)
        if len(reached):
            starts = np.searchsorted(q, reached)
            out[reached] = best[starts + needed[reached] - 1]
        return out

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


def evaluate(run, qrels, measures: Iterable[str] | str, *, missing: str = "zero",
             rel: int | None = None) -> pd.DataFrame:
    """Per-query values of ``measures`` for ``run`` against ``qrels``.

    ``run``: ``{qid: {doc: score}}``, ``{qid: [doc, ...]}`` or a DataFrame (query_id, doc_id,
    score), such as ``read_run`` returns. ``qrels``: ``{qid: {doc: grade}}`` or a DataFrame
    (query_id, doc_id, grade). ``measures``: Mizan's, ir_measures' or trec_eval's names, such
    as ``"P@10"``, ``"nDCG(gain=exponential)@5"``, ``"MAP"``, ``"ndcg_cut_10"`` (see
    ``metrics.registry``). ``missing``: ``"zero"`` (trec_eval -c) or ``"skip"``. ``rel``: the
    relevance threshold of every measure that has one, as ``trec_eval -l`` (a ``(rel=N)``
    written in a measure wins; nDCG has none, as trec_eval's ndcg ignores -l).

    Returns one row per query (index ``query_id``, strings) and one column per measure, named
    exactly as given; ``attrs`` holds the policies and what they affected. ``summarize`` gives
    the summary row (trec_eval's "all").
    """
    if isinstance(measures, str):
        measures = [measures]
    if rel is not None:
        rel = check_rel(rel)
    specs = [parse(m).with_rel(rel) for m in measures]
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
        "no_relevant_queries": list(prepared.query_ids[prepared.num_rel(rel or 1) == 0]),
        "tied_pairs": prepared.tied_pairs,
        "duplicates_dropped": prepared.duplicates_dropped,
        "rel": rel,
        "policy": {
            "order": "score descending, ties by doc id descending (trec_eval)",
            "missing": "scored 0" if missing == "zero" else "skipped",
            "no_relevant": "scored 0",
            "unjudged_docs": "not relevant",
        },
    }
    return table
