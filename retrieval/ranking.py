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
    # Python strings, not a NumPy string array: sorting a few hundred ids in Python and
    # reading them back as str cost a fraction of np.unique's (the same code-point order)
    ids = (np.asarray(ids, dtype=str).tolist() if isinstance(ids, np.ndarray)
           else [str(pid) for pid in ids])
    scores = np.asarray(scores, dtype=np.float64)
    if scores.shape != (len(ids),):
        raise ValueError(f"{len(ids)} ids but {scores.size} scores")
    if not ids:
        return []
    position = {pid: i for i, pid in enumerate(sorted(ids))}   # equal ids: one position
    id_order = np.fromiter(map(position.__getitem__, ids), np.intp, len(ids))
    order = np.lexsort((-id_order, -scores))[:k]
    return [Hit(ids[i], score, r) for r, (i, score)
            in enumerate(zip(order.tolist(), scores[order].tolist(), strict=True), start=1)]
