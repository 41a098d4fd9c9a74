"""One ranking rule for every retriever: score descending, ties by passage id descending.

The tie rule is trec_eval's (and ``metrics.evaluate``'s), so the ranking a page shows is the one
the TREC run file is evaluated as: writing the scores and reading them back ranks the passages
in the same order. Ids compare by code point (= UTF-8 byte order, trec_eval's ``strcmp``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

__all__ = ["Hit", "rank"]


class Hit(NamedTuple):
    id: str        # passage id
    score: float   # the retriever's score (BM25, cosine similarity, or fused RRF score)
    rank: int      # 1-based


def rank(ids: Sequence[str] | np.ndarray, scores: Sequence[float] | np.ndarray,
         k: int | None = None) -> list[Hit]:
    """The first ``k`` (all when None) of ``ids`` ordered by ``scores``, as ``Hit``s."""
    ids = np.asarray(ids, dtype=str)
    scores = np.asarray(scores, dtype=np.float64)
    if ids.shape != scores.shape:
        raise ValueError(f"{len(ids)} ids but {len(scores)} scores")
    if not len(ids):
        return []
    _, id_order = np.unique(ids, return_inverse=True)
    order = np.lexsort((-id_order, -scores))[:k]
    return [Hit(str(ids[i]), float(scores[i]), r) for r, i in enumerate(order, start=1)]
