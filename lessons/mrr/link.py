"""Lesson 3's public link: how another page (the lab, home) opens /mrr on questions of its own.
The only module of this lesson another one may import.

The lesson holds five questions over the documents d1…d9, two systems ("vector" and "hybrid")
and one question in focus. The URL keys are public (links and QR codes are in circulation):
readable names map to them in :data:`KEYS`, the page reads exactly :data:`FIELDS`, and
:func:`link` writes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from metrics.rank import AP_NORMS
from runtime.url_codec import Field, choice_field, int_field
from teaching import scenarios

__all__ = ["COMPARE_ON", "FIELDS", "FOLDER", "KEYS", "POOL", "QUESTIONS", "SEED", "SYSTEMS",
           "Runs", "Scenario", "encode_runs", "link", "parse_runs"]

FOLDER = "mrr"
SEED = scenarios.MRR                                   # the seed text's five questions
QUESTIONS = SEED.questions
SYSTEMS = ("vector", "hybrid")
POOL = tuple(f"d{i}" for i in range(1, 10))            # the documents a ranking can hold
COMPARE_ON = ("rr", "recall", "ap")                    # measures the comparison can be on

Ranking = tuple[str, ...]
Runs = tuple[Ranking, ...]   # one ranking (or golden set) per question, in QUESTIONS order


def _doc_number(doc: str) -> int:
    return int(doc[1:])


def encode_runs(runs: Sequence[Sequence[str]]) -> str:
    """``(("d1", "d3"), ("d5",))`` → ``"d1-d3.d5"`` (ids come from :data:`POOL`: URL-safe)."""
    return ".".join("-".join(ranking) for ranking in runs)


def parse_runs(raw: str, *, golden: bool = False, n: int = len(QUESTIONS)) -> Runs:
    """Inverse of :func:`encode_runs`; raises ``ValueError`` on anything else: a wrong number of
    questions, an id outside :data:`POOL`, a duplicate, an empty ranking. Golden sets come back
    sorted (their order means nothing)."""
    if len(raw) > 400:
        raise ValueError("too long")
    parts = raw.split(".")
    if len(parts) != n:
        raise ValueError("wrong number of questions")
    out = []
    for part in parts:
        docs = part.split("-")
        if not part or len(set(docs)) != len(docs) or not set(docs) <= set(POOL):
            raise ValueError(f"bad ranking {part!r}")
        out.append(tuple(sorted(docs, key=_doc_number)) if golden else tuple(docs))
    return tuple(out)


def _runs_field(default: Runs, *, golden: bool = False) -> Field:
    return Field(default, lambda raw: parse_runs(raw, golden=golden), encode_runs)


# readable name -> URL key
KEYS = {"question": "q", "golden": "g", "vector": "v", "hybrid": "h", "k": "k", "norm": "n",
        "measure": "m", "system": "s"}
FIELDS = {
    KEYS["question"]: choice_field("q2", QUESTIONS),
    KEYS["golden"]: _runs_field(SEED.golden, golden=True),
    KEYS["vector"]: _runs_field(SEED.runs["vector"]),
    KEYS["hybrid"]: _runs_field(SEED.runs["hybrid"]),
    KEYS["k"]: int_field(SEED.k, lo=1, hi=len(POOL)),
    KEYS["norm"]: choice_field("R", AP_NORMS),
    KEYS["measure"]: choice_field("rr", COMPARE_ON),
    KEYS["system"]: choice_field("vector", SYSTEMS),
}


@dataclass(frozen=True)
class Scenario:
    """The five questions' golden sets and both systems' rankings (ids from :data:`POOL`), the
    question in focus, k (1..len(POOL)), AP's normaliser (``metrics.rank.AP_NORMS``), the
    measure the comparison is on (:data:`COMPARE_ON`) and the system whose AP is worked."""

    golden: Sequence[Sequence[str]] = SEED.golden
    vector: Sequence[Sequence[str]] = SEED.runs["vector"]
    hybrid: Sequence[Sequence[str]] = SEED.runs["hybrid"]
    question: str = "q2"
    k: int = SEED.k
    norm: str = "R"
    measure: str = "rr"
    system: str = "vector"


def link(s: Scenario) -> dict[str, str]:
    """The query params that open the lesson on ``s``."""
    return {KEYS["question"]: s.question, KEYS["golden"]: encode_runs(s.golden),
            KEYS["vector"]: encode_runs(s.vector), KEYS["hybrid"]: encode_runs(s.hybrid),
            KEYS["k"]: str(s.k), KEYS["norm"]: s.norm, KEYS["measure"]: s.measure,
            KEYS["system"]: s.system}
