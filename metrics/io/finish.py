"""Checks shared by every format, and the result: numbers that convert, finite scores, no
repeated (query, doc) pair; then the DataFrame.

Each check reports every bad row it finds (up to ``MAX_PROBLEMS`` of its kind) with its line;
``lines(rows)`` maps rows of the parsed columns to their 1-based lines (None for JSON).

``pyarrow.compute`` is imported where it is used, not here: it takes some 40 ms to load, which
a fresh process spends better while pyarrow parses the file (pandas loads it then, see
``metrics._dependencies``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from metrics import _checked
from metrics._dependencies import load_pandas
from metrics._hashing import (
    hash_strings,
    maybe_repeated,
    pair_hash,
    repeated_rows,
    take,
)
from metrics.errors import MAX_PROBLEMS, FormatError
from metrics.io.common import Problems, clip

if TYPE_CHECKING:  # pandas loads only when the DataFrame is built
    import pandas as pd

Lines = Callable[[np.ndarray], list]

# Values pyarrow surely converts (anything else is tried one value at a time).
_FLOAT = r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$|^(?i:[+-]?(nan|inf|infinity))$"
_INTEGER = r"^[+-]?\d{1,15}$"


def convert(raw: pa.Array, kind: str, decimal_comma: bool, lines: Lines, problems: Problems,
            column: str) -> np.ndarray | None:
    """Text to float64 scores (run) or int64 grades (qrels; "1.0" is a grade). Every value that
    does not convert is reported, and 0 stands in for it (so that the other checks still see
    the rest); None when even that fails. ``decimal_comma``: "0,5" is 0.5 when the whole
    column reads that way (the separator is not a comma)."""
    import pyarrow.compute as pc  # see the module's docstring

    variants = [raw] + ([pc.replace_substring(raw, ",", ".")] if decimal_comma else [])
    for arr in variants:
        values = _cast(arr, kind)
        if values is not None:
            return values
    arr = variants[-1]
    check = _cast_one_float if kind == "run" else _cast_one_grade
    ok = pc.match_substring_regex(arr, _FLOAT if kind == "run" else _INTEGER)
    bad = []
    for row in np.flatnonzero(~ok.to_numpy(zero_copy_only=False)).tolist():
        if check(arr.slice(row, 1)) is None:
            bad.append(row)
            if len(bad) > MAX_PROBLEMS:
                problems.more = True
                break
    if not bad:  # a value the patterns let through: find it by halving
        bad = [_first_bad(arr, lambda a: check(a) is not None)]
    key = "non_numeric_score" if kind == "run" else "non_integer_grade"
    params = {"column": column} if kind == "run" else {}
    for row, line in zip(bad[:MAX_PROBLEMS], lines(np.array(bad[:MAX_PROBLEMS])), strict=True):
        problems.add(key, line, value=clip(raw[row].as_py()), **params)
    if problems.more:  # more bad values than were looked at
        return None
    flagged = np.zeros(len(arr), bool)
    flagged[bad] = True
    return _cast(pc.if_else(pa.array(flagged), "0", arr), kind)


def _cast(arr: pa.Array, kind: str) -> np.ndarray | None:
    return _cast_one_float(arr) if kind == "run" else _cast_one_grade(arr)


def _cast_one_float(arr: pa.Array) -> np.ndarray | None:
    import pyarrow.compute as pc  # see the module's docstring

    try:
        return pc.cast(arr, pa.float64()).to_numpy()
    except pa.ArrowInvalid:
        return None


def _cast_one_grade(arr: pa.Array) -> np.ndarray | None:
    import pyarrow.compute as pc  # see the module's docstring

    try:
        return pc.cast(arr, pa.int64()).to_numpy()
    except pa.ArrowInvalid:
        as_float = _cast_one_float(arr)
    if as_float is not None and np.all(np.isfinite(as_float) & (as_float == np.round(as_float))
                                       & (np.abs(as_float) < 2**53)):
        return as_float.astype(np.int64)
    return None


def _first_bad(arr: pa.Array, good: Callable[[pa.Array], bool]) -> int:
    """Index of the first element that is not ``good`` (binary search on slices)."""
    lo, hi = 0, len(arr)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if good(arr.slice(lo, mid - lo)):
            lo = mid
        else:
            hi = mid
    return lo


def finish(kind: str, query: pa.ChunkedArray, doc: pa.ChunkedArray, values: np.ndarray,
           lines: Lines, problems: Problems, *, value_column: str = "score",
           codes: tuple | None = None) -> pd.DataFrame:
    """Finite scores, no repeated (query, doc) pair; then the DataFrame (or every problem)."""
    if len(values) == 0:  # every row was malformed (reported), or there were none
        problems.raise_if_any()
        raise FormatError("no_rows")
    if kind == "run":
        values = np.ascontiguousarray(values, dtype=np.float64)
        finite = np.isfinite(values)
        bad = np.flatnonzero(~finite) if not finite.all() else ()
        if len(bad):
            problems.more |= len(bad) > MAX_PROBLEMS
            bad = bad[:MAX_PROBLEMS]
            for row, line in zip(bad.tolist(), lines(bad), strict=True):
                problems.add("nan_score", line, value=str(values[row]), column=value_column)
    else:
        values = np.ascontiguousarray(values, dtype=np.int64)
    codes, categories, starts = codes if codes is not None else query_codes(query)
    del query  # the codes replace the ids' text
    hashes = hash_strings(doc)
    if maybe_repeated(codes, starts, hashes):
        _report_repeats(codes, categories, doc, hashes, lines, problems)
    problems.raise_if_any()
    if not values.flags.writeable:
        values = values.copy()
    pd = load_pandas()
    text = pd.StringDtype("pyarrow", na_value=np.nan)  # pandas 3's default str dtype
    names = pd.Index(pd.array(categories, dtype=text), dtype=text)
    frame = pd.DataFrame({
        "query_id": pd.Categorical.from_codes(codes, categories=names, validate=False),
        "doc_id": pd.array(doc, dtype=text),  # zero-copy: the Arrow strings themselves
        "score" if kind == "run" else "grade": values,
    }, copy=False)
    _checked.register(frame, hashes)  # evaluate() trusts these checks for this frame only
    return frame


def query_codes(query: pa.ChunkedArray) -> tuple[np.ndarray, pa.Array, np.ndarray | None]:
    """Query ids as codes into their sorted distinct values (code point order, as trec_eval's
    strcmp).

    Returns (codes per row, categories, block starts); the block starts are the first row of
    each query when every query's rows sit together (as in any TREC file), else None. Such
    files are read block by block: runs of equal ids come from pyarrow's run-end encoding,
    and only the few block names are sorted."""
    import pyarrow.compute as pc  # see the module's docstring

    if pa.types.is_dictionary(query.type):
        query = query.cast(pa.large_string())
    n = len(query)
    starts = _run_starts(query)
    if len(starts) > n // 4 + 1024:  # ids not grouped: a hash table over every row
        encoded = pc.dictionary_encode(query).unify_dictionaries()
        names = encoded.chunk(0).dictionary
        order = pc.sort_indices(names).to_numpy()
        rank = np.empty(len(order), _code_type(len(order)))
        rank[order] = np.arange(len(order))
        codes = np.concatenate([rank[c.indices.to_numpy(zero_copy_only=False)]
                                for c in encoded.chunks])
        return codes, names.take(pa.array(order)), None
    block_names = take(query, starts)
    distinct = pc.unique(block_names)
    categories = distinct.take(pc.sort_indices(distinct))
    block_codes = pc.index_in(block_names, value_set=categories).to_numpy()
    codes = np.repeat(block_codes.astype(_code_type(len(categories))),
                      np.diff(np.append(starts, n)))
    return codes, categories, starts if len(starts) == len(categories) else None


def _run_starts(column: pa.ChunkedArray) -> np.ndarray:
    """The first row of every run of equal strings (pyarrow's run-end encoding)."""
    import pyarrow.compute as pc  # see the module's docstring

    starts = []
    pos, before = 0, None
    for chunk in column.chunks:
        if not len(chunk):
            continue
        ends = pc.run_end_encode(chunk, run_end_type=pa.int64()).run_ends.to_numpy()
        here = np.concatenate(([0], ends[:-1])) + pos
        if before is not None and chunk[0] == before[-1]:  # a run across the chunk boundary
            here = here[1:]
        starts.append(here)
        pos += len(chunk)
        before = chunk
    return np.concatenate(starts) if starts else np.zeros(0, np.int64)


def _code_type(n_categories: int) -> type:
    return np.int32 if n_categories >= 2**15 else np.int16


def _report_repeats(codes: np.ndarray, categories: pa.Array, doc: pa.ChunkedArray,
                    hashes: np.ndarray, lines: Lines, problems: Problems) -> None:
    """Every repeated (query, doc) pair, the later copy's line first: only rows whose pair hash
    repeats are compared as strings."""
    rows = repeated_rows(pair_hash(codes, hashes))
    first_seen: dict[tuple[int, str], int] = {}
    repeats: list[tuple[int, int]] = []
    for row, q, d in zip(rows.tolist(), codes[rows].tolist(),
                         doc.take(pa.array(rows)).to_pylist(), strict=True):
        first = first_seen.setdefault((q, d), row)
        if first != row:
            repeats.append((first, row))
            if len(repeats) > MAX_PROBLEMS:
                problems.more = True
                break
    repeats = repeats[:MAX_PROBLEMS]
    if not repeats:
        return
    found = lines(np.array([r for pair in repeats for r in pair]))
    for i, (_, row) in enumerate(repeats):
        problems.add("duplicate_doc", found[2 * i + 1], first_line=found[2 * i],
                     query_id=clip(categories[int(codes[row])].as_py()),
                     doc_id=clip(doc[row].as_py()))
