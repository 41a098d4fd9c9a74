"""Lesson 5's public link: how another page (the lab, home) opens /ndcg on a graded ranking of
its own. The only module of this lesson another one may import.

The URL keys are public (links and QR codes are in circulation): readable names map to them in
:data:`KEYS`, the page reads exactly :data:`FIELDS`, and :func:`link` writes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from runtime.url_codec import choice_field, encode_ranking, int_field, ranking_field
from teaching import scenarios

__all__ = ["FIELDS", "FOLDER", "GAINS", "IDEALS", "KEYS", "MAX_DOCS", "MAX_GRADE",
           "MAX_ID_CHARS", "MAX_STEPS", "SCALES", "Scenario", "cuts_short", "link"]

FOLDER = "ndcg"
MAX_DOCS = 10          # documents in the ranking, and judged documents never retrieved
MAX_ID_CHARS = 40      # the longest document id the lesson takes
MAX_GRADE = 5          # grades 0..5 (the 0–5 scale; the 0–3 scale is the default)
MAX_STEPS = 5          # the step table's fading levels: 0 (worked) .. 5 (all filled by hand)
SCALES = ("3", "5")
GAINS = {"lin": "linear", "exp": "exponential"}       # URL value -> metrics' gain
IDEALS = {"ret": "retrieved", "jud": "judged"}         # URL value -> metrics' ideal ordering
SEED = scenarios.NDCG

# readable name -> URL key
KEYS = {"ranking": "r", "unretrieved": "x", "k": "k", "scale": "s", "gain": "g",
        "ideal": "i", "fading": "f"}
_GRADES = range(0, MAX_GRADE + 1)
FIELDS = {
    KEYS["ranking"]: ranking_field(SEED.graded, grades=_GRADES, max_items=MAX_DOCS),
    KEYS["unretrieved"]: ranking_field((), grades=_GRADES, min_items=0, max_items=MAX_DOCS),
    KEYS["k"]: int_field(SEED.k, lo=1, hi=MAX_DOCS),
    KEYS["scale"]: choice_field("3", SCALES),
    KEYS["gain"]: choice_field("lin", tuple(GAINS)),
    KEYS["ideal"]: choice_field("ret", tuple(IDEALS)),
    KEYS["fading"]: int_field(0, lo=0, hi=MAX_STEPS),
}


@dataclass(frozen=True)
class Scenario:
    """A graded ranking (document, grade 0..:data:`MAX_GRADE`), the judged documents never
    retrieved with their grades, k, the gain ("linear" | "exponential") and where the ideal
    ordering comes from ("retrieved" | "judged")."""

    ranking: Sequence[tuple[str, int]] = SEED.graded
    unretrieved: Sequence[tuple[str, int]] = ()
    k: int = SEED.k
    gain: str = "linear"
    ideal: str = "retrieved"


def link(s: Scenario) -> dict[str, str]:
    """The query params that open the lesson on ``s`` (the 0–5 scale when a grade needs it)."""
    grades = [g for _, g in (*s.ranking, *s.unretrieved)]
    return {KEYS["ranking"]: encode_ranking(s.ranking),
            KEYS["unretrieved"]: encode_ranking(s.unretrieved),
            KEYS["k"]: str(s.k),
            KEYS["scale"]: "5" if any(g > 3 for g in grades) else "3",
            KEYS["gain"]: _key(GAINS, s.gain),
            KEYS["ideal"]: _key(IDEALS, s.ideal)}


def cuts_short(s: Scenario) -> bool:
    """Whether the lesson shows another nDCG than nDCG@k for ``s``: its k stops at the
    ranking's length n (the slider runs 1..n), so it shows DCG@n / IDCG@n, while nDCG@k (as
    trec_eval's ndcg_cut, the lab and /retrieve compute it) divides the same DCG by IDCG@k,
    larger when the judged ideal holds more than n positive grades (and both are 0 when
    nothing retrieved is relevant)."""
    n = len(s.ranking)
    positive = sum(g > 0 for _, g in (*s.ranking, *s.unretrieved))
    found = any(g > 0 for _, g in s.ranking)
    return s.k > n and s.ideal == "judged" and positive > n and found


def _key(table: dict[str, str], value: str) -> str:
    return next(key for key, named in table.items() if named == value)
