"""The seed scenarios, defined once: the examples of the source texts the lessons start from.

Lesson 2's ranking, lesson 3's five questions and two systems, lesson 5's graded ranking (and
the judged chunk its system never retrieved). The lessons open on them, /live asks about them,
the lab's "explain this number" links keep lesson 3's other questions. Pure data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = ["MRR", "NDCG", "NDCG_JUDGED", "NDCG_MISSED", "RECALL_PRECISION", "TWO_SYSTEMS",
           "Questions", "Ranked"]


@dataclass(frozen=True)
class Ranked:
    """One question's ranking, its judgments (``qrels``: document -> grade, retrieved or not;
    grade >= 1 is relevant) and the cutoff k; ``other`` is a second system's ranking."""

    ranking: tuple[str, ...]
    qrels: Mapping[str, int]
    k: int
    other: tuple[str, ...] = ()

    @property
    def relevant(self) -> frozenset[str]:
        return frozenset(d for d, g in self.qrels.items() if g >= 1)

    @property
    def graded(self) -> tuple[tuple[str, int], ...]:
        """The ranking with each document's grade: ``(("d3", 3), ("d8", 2), …)``."""
        return tuple((d, self.qrels.get(d, 0)) for d in self.ranking)


def _ranked(ranking: str, qrels: Mapping[str, int], k: int, other: str = "") -> Ranked:
    return Ranked(tuple(ranking.split()), MappingProxyType(dict(qrels)), k,
                  tuple(other.split()))


# Lesson 2 (recall@k, precision@k, …): "d7 d2 d9 d4 d1", relevant {d2, d4}, k = 3 →
# recall@3 0.5, recall@5 1.0, precision@3 0.33, RR 0.5.
RECALL_PRECISION = _ranked("d7 d2 d9 d4 d1", {"d2": 1, "d4": 1}, 3)

# Lesson 5 (DCG, IDCG, nDCG): "Who is Anna Pavlovna?" over chunks of War and Peace, graded
# exact answer 3, partial mention 2, barely related 1, irrelevant 0: [3, 2, 3, 0, 1], k = 5.
NDCG = _ranked("d3 d8 d1 d6 d5", {"d3": 3, "d8": 2, "d1": 3, "d6": 0, "d5": 1}, 5)
# The pitfall: an exact answer (grade 3) judged but never retrieved.
NDCG_MISSED: tuple[str, int] = ("d2", 3)
NDCG_JUDGED = _ranked("d3 d8 d1 d6 d5", {**NDCG.qrels, NDCG_MISSED[0]: NDCG_MISSED[1]}, 5)


@dataclass(frozen=True)
class Questions:
    """Several questions, their golden sets and each system's ranking per question."""

    questions: tuple[str, ...]
    golden: tuple[tuple[str, ...], ...]
    runs: Mapping[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)
    k: int = 3


# Lesson 3 (MRR, AP, comparing two systems): the seed's five questions, vector vs hybrid;
# recall@3 0.70 vs 1.00, MRR 0.67 vs 0.90.
MRR = Questions(
    questions=("q1", "q2", "q3", "q4", "q5"),
    golden=(("d1",), ("d4", "d5"), ("d9",), ("d2",), ("d7",)),
    runs=MappingProxyType({
        "vector": (("d1", "d3", "d2"), ("d5", "d8", "d6"), ("d2", "d6", "d9"),
                   ("d3", "d1", "d8"), ("d7", "d5", "d1")),
        "hybrid": (("d1", "d2", "d3"), ("d4", "d5", "d8"), ("d9", "d2", "d6"),
                   ("d2", "d3", "d1"), ("d5", "d7", "d1")),
    }),
    k=3,
)

# Two systems on one question (the live classroom's "which is better?"): A finds one relevant
# document first; B finds both, lower down.
TWO_SYSTEMS = _ranked("d2 d7 d9 d1 d5", {"d2": 1, "d4": 1}, 5, other="d7 d9 d2 d1 d4")
