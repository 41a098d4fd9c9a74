"""Lesson 2's public link: how another page (the lab, home) opens /recall-precision on a
scenario of its own. The only module of this lesson another one may import.

The URL keys are public (links and QR codes are in circulation): readable names map to them in
:data:`KEYS`, the page reads exactly :data:`FIELDS`, and :func:`link` writes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from runtime.url_codec import encode_ranking, int_field, ranking_field
from teaching import scenarios

__all__ = ["FIELDS", "FOLDER", "KEYS", "MAX_DOCS", "MAX_ID_CHARS", "Scenario", "link"]

FOLDER = "recall_precision"
MAX_DOCS = 20          # documents in the ranking, and judged relevant ones never retrieved
MAX_ID_CHARS = 40      # the longest document id the lesson takes
SEED = scenarios.RECALL_PRECISION


@dataclass(frozen=True)
class Scenario:
    """The ranking (document, 1 if relevant else 0), the relevant documents never retrieved,
    and k: at most :data:`MAX_DOCS` of each, 1 <= k <= :data:`MAX_DOCS`."""

    ranking: Sequence[tuple[str, int]] = tuple((d, int(d in SEED.relevant)) for d in SEED.ranking)
    unretrieved: Sequence[str] = ()
    k: int = SEED.k


# readable name -> URL key
KEYS = {"ranking": "r", "unretrieved": "x", "k": "k"}
FIELDS = {
    KEYS["ranking"]: ranking_field(Scenario.ranking, max_items=MAX_DOCS),
    KEYS["unretrieved"]: ranking_field((), grades=(1,), min_items=0, max_items=MAX_DOCS),
    KEYS["k"]: int_field(SEED.k, lo=1, hi=MAX_DOCS),
}


def link(s: Scenario) -> dict[str, str]:
    """The query params that open the lesson on ``s``."""
    return {KEYS["ranking"]: encode_ranking(s.ranking),
            KEYS["unretrieved"]: encode_ranking([(d, 1) for d in s.unretrieved]),
            KEYS["k"]: str(s.k)}
