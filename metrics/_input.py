"""Checking and normalising what callers pass in: rankings, judgments, cutoffs.

Every public measure goes through these few functions, so a bad argument gets the same clear
error everywhere. Errors carry a stable ``key`` the app translates.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from metrics.errors import MetricError

__all__ = ["MetricError", "check_cutoff", "check_rel", "dedupe", "grades_of", "normalise_qrels"]


def dedupe(ranking: Iterable[str]) -> list[str]:
    """The ranking with later duplicates dropped: the first occurrence of a document counts."""
    if isinstance(ranking, (str, bytes)):
        raise MetricError("ranking_not_sequence", type=type(ranking).__name__)
    seen: set[str] = set()
    out: list[str] = []
    for doc in ranking:
        if doc not in seen:
            seen.add(doc)
            out.append(doc)
    return out


def _check_grade(doc: str, grade: object) -> int:
    if isinstance(grade, bool):
        return int(grade)
    if isinstance(grade, numbers.Integral):
        return int(grade)
    if isinstance(grade, numbers.Real) and math.isfinite(grade) and float(grade).is_integer():
        return int(grade)
    raise MetricError("non_integer_grade", doc=str(doc), grade=repr(grade))


def normalise_qrels(qrels: Mapping[str, int] | Iterable[str]) -> dict[str, int]:
    """Judgments as ``{doc: integer grade}``; a plain set (or list) of ids means grade 1 each."""
    if isinstance(qrels, Mapping):
        return {doc: _check_grade(doc, g) for doc, g in qrels.items()}
    if isinstance(qrels, (str, bytes)):
        raise MetricError("qrels_not_mapping", type=type(qrels).__name__)
    try:
        return dict.fromkeys(qrels, 1)
    except TypeError:
        raise MetricError("qrels_not_mapping", type=type(qrels).__name__) from None


def check_cutoff(k: object, *, optional: bool = False) -> int | None:
    """A cutoff is an integer >= 1 (or None where the measure allows the whole list)."""
    if k is None and optional:
        return None
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
        raise MetricError("bad_cutoff", k=repr(k))
    return int(k)


def check_rel(rel: object) -> int:
    """The binary threshold: a document is relevant when its grade >= rel (an integer >= 1)."""
    if isinstance(rel, bool) or not isinstance(rel, numbers.Integral) or rel < 1:
        raise MetricError("bad_rel", rel=repr(rel))
    return int(rel)


def grades_of(ranking: Sequence[str], qrels: Mapping[str, int]) -> list[int]:
    """The grade at each rank; unjudged documents get 0."""
    return [qrels.get(doc, 0) for doc in ranking]


def check_grade_array(grades) -> np.ndarray:
    """Judgment grades as int64; a non-integer, non-finite or non-numeric grade is an error."""
    array = np.asarray(grades)
    if array.dtype.kind in "iub":
        return array.astype(np.int64)
    try:
        values = array.astype(np.float64)
    except (TypeError, ValueError):
        bad = next((g for g in array if not _is_number(g)), None)
        raise MetricError("non_integer_grade", grade=repr(bad)) from None
    ok = np.isfinite(values) & (values == np.round(values))
    if not ok.all():
        raise MetricError("non_integer_grade", grade=repr(array[~ok][0]))
    return values.astype(np.int64)


def _is_number(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)
