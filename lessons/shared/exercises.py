"""Generated exercises on one ranking: a fresh, solvable case from a seed, checked by ``metrics``.

Pure Python (no Streamlit) so the practice hub and tests use it too. The same seed always gives
the same exercise, which is what lets an instructor post one exact exercise as a link.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from metrics import mistakes

BINARY_MEASURES = ("recall", "precision", "hit_rate", "f1", "rr")
MAX_SEED = 10**9


@dataclass(frozen=True)
class RankingExercise:
    seed: int
    measure: str              # a key of metrics.mistakes.MEASURES
    ranking: tuple[str, ...]
    relevant: frozenset[str]  # may hold documents the system never retrieved
    k: int

    @property
    def answer(self) -> float:
        return mistakes.MEASURES[self.measure](list(self.ranking), set(self.relevant), self.k)

    @property
    def unretrieved(self) -> list[str]:
        return sorted(set(self.relevant) - set(self.ranking), key=_doc_number)

    def facts(self) -> mistakes.Facts:
        return mistakes.facts(list(self.ranking), set(self.relevant), self.k)

    def check(self, answer: float, tolerance: float = 0.005) -> str:
        return mistakes.diagnose(self.measure, list(self.ranking), set(self.relevant), self.k,
                                 answer, tolerance)


def _doc_number(doc: str) -> int:
    return int(doc[1:])


def ranking_exercise(seed: int, measure: str | None = None) -> RankingExercise:
    """A case worth solving: at least one relevant document, and at least one known mistake
    that gives a different number (so the feedback can teach something)."""
    rng = random.Random(seed)
    while True:
        chosen = measure or rng.choice(BINARY_MEASURES)
        length = rng.randint(3, 7)
        docs = [f"d{n}" for n in rng.sample(range(1, 13), length + 2)]
        ranking, spare = docs[:length], docs[length:]
        relevant = set(rng.sample(ranking, rng.randint(1, min(3, length))))
        if rng.random() < 0.35:
            relevant.add(spare[0])        # relevant but never retrieved
        k = rng.randint(1, length + (2 if rng.random() < 0.25 else 0))
        case = RankingExercise(seed, chosen, tuple(ranking), frozenset(relevant), k)
        if case.answer == 0 and rng.random() > 0.15:
            continue                      # mostly cases with something to count
        if mistakes.distinct_mistakes(chosen, ranking, relevant, k):
            return case
