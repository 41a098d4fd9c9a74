"""Hybrid retrieval by reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009).

    RRF(p) = sum over systems s that ranked p of  w_s / (k + rank_s(p)),   k = 60

Only ranks enter, never scores, so BM25 scores and cosine similarities need no common scale.
A system that did not rank p adds nothing; a weight of 0 leaves a system out. Systems are
summed in the order of their names, so the same inputs give the same float. Passages with a
fused score of 0 are dropped; equal fused scores (rank 1 + rank 3 against rank 3 + rank 1 at
equal weights) follow ``retrieval.ranking``'s rule (passage id descending).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from retrieval.ranking import Hit, rank

__all__ = ["RRF_K", "reciprocal_rank_fusion"]

RRF_K = 60


def reciprocal_rank_fusion(rankings: Mapping[str, Sequence[Hit]],
                           weights: Mapping[str, float] | None = None, *, k: float = RRF_K,
                           top: int | None = None) -> list[Hit]:
    """Fuse ``rankings`` (system name → its ranking, every rank it gave) into one, cut at
    ``top``. ``weights``: system name → weight >= 0 (1 for a system not named)."""
    weights = dict(weights or {})
    if not (math.isfinite(k) and k >= 0):
        raise ValueError(f"k must be a finite number >= 0, not {k!r}")
    for name, weight in weights.items():
        if not (math.isfinite(weight) and weight >= 0):
            raise ValueError(f"the weight of {name} must be a finite number >= 0, not {weight!r}")
    fused: dict[str, float] = {}
    for name in sorted(rankings):
        weight = weights.get(name, 1.0)
        if weight == 0:
            continue
        for hit in rankings[name]:
            fused[hit.id] = fused.get(hit.id, 0.0) + weight / (k + hit.rank)
    kept = {pid: score for pid, score in fused.items() if score > 0}
    return rank(list(kept), list(kept.values()), top)
