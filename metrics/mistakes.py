"""The known wrong formulas, so feedback can name the mistake behind a wrong answer.

Each mistake is a function of the same inputs as the measure it imitates. ``diagnose`` returns the
key of the first mistake whose value matches the learner's answer (and differs from the right
value — a mistake that gives the right number on this case is not a mistake here). The keys are
the feedback keys of the lessons' content files.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from metrics import binary, rank
from metrics._input import dedupe, normalise_qrels

Case = tuple[Sequence[str], Mapping[str, int], int]  # ranking, qrels, k


@dataclass(frozen=True)
class Facts:
    """The counts a learner works with, for feedback messages."""

    k: int
    hits: int
    R: int
    retrieved: int
    first_rank: int | None   # within the top k
    last_rank: int | None    # within the top k


def facts(ranking: Sequence[str], qrels, k: int) -> Facts:
    ranks = rank.relevant_ranks(ranking, qrels, k)
    return Facts(k=k, hits=len(ranks), R=binary.num_relevant(qrels),
                 retrieved=len(dedupe(ranking)), first_rank=ranks[0] if ranks else None,
                 last_rank=ranks[-1] if ranks else None)


def _ratio(top: float, bottom: float) -> float | None:
    return top / bottom if bottom else None


def _off_by_one(measure: Callable[[Sequence[str], object, int], float]):
    def values(ranking, qrels, k):
        return [measure(ranking, qrels, j) for j in (k - 1, k + 1) if j >= 1]
    return values


def _relevant_retrieved(ranking, qrels) -> int:
    judged = normalise_qrels(qrels)
    return sum(judged.get(d, 0) >= 1 for d in dedupe(ranking))


# measure -> the right value, and the wrong formulas in the order they are tried.
MEASURES: Mapping[str, Callable] = {
    "precision": binary.precision,
    "recall": binary.recall,
    "hit_rate": binary.hit_rate,
    "f1": binary.f1,
    "rr": rank.reciprocal_rank,
}

MISTAKES: Mapping[str, Mapping[str, Callable]] = {
    "precision": {
        "precision_divided_by_retrieved": lambda r, q, k: _ratio(
            binary.hits_at(r, q, k), min(k, len(dedupe(r)))),
        "precision_divided_by_R": lambda r, q, k: _ratio(
            binary.hits_at(r, q, k), binary.num_relevant(q)),
        "off_by_one_k": _off_by_one(binary.precision),
    },
    "recall": {
        "recall_divided_by_k": lambda r, q, k: binary.hits_at(r, q, k) / k,
        "recall_divided_by_retrieved_relevant": lambda r, q, k: _ratio(
            binary.hits_at(r, q, k), _relevant_retrieved(r, q)),
        "off_by_one_k": _off_by_one(binary.recall),
    },
    "hit_rate": {
        "hit_rate_as_count": lambda r, q, k: float(binary.hits_at(r, q, k)),
        "off_by_one_k": _off_by_one(binary.hit_rate),
    },
    "f1": {
        "f1_arithmetic_mean": lambda r, q, k: (binary.precision(r, q, k)
                                               + binary.recall(r, q, k)) / 2,
        "off_by_one_k": _off_by_one(binary.f1),
    },
    "rr": {
        "rr_of_last_hit": lambda r, q, k: (1 / facts(r, q, k).last_rank
                                           if facts(r, q, k).last_rank else None),
        "rr_not_inverted": lambda r, q, k: (float(facts(r, q, k).first_rank)
                                            if facts(r, q, k).first_rank else None),
        "off_by_one_k": _off_by_one(rank.reciprocal_rank),
    },
}


def _values(result) -> Iterable[float]:
    if result is None:
        return []
    return result if isinstance(result, list) else [result]


def diagnose(measure: str, ranking: Sequence[str], qrels, k: int, answer: float,
             tolerance: float = 0.005) -> str:
    """``"correct"``, a mistake key, ``"percent_not_fraction"`` or ``"wrong_unknown"``."""
    right = MEASURES[measure](ranking, qrels, k)
    tolerance += 1e-9                      # 0.625 typed as 0.62 is still right
    if abs(answer - right) <= tolerance:
        return "correct"
    if right and abs(answer - 100 * right) <= 100 * tolerance:
        return "percent_not_fraction"
    for key, wrong in MISTAKES[measure].items():
        for value in _values(wrong(ranking, qrels, k)):
            if abs(value - right) > tolerance and abs(answer - value) <= tolerance:
                return key
    return "wrong_unknown"


def distinct_mistakes(measure: str, ranking: Sequence[str], qrels, k: int,
                      tolerance: float = 0.005) -> list[str]:
    """The mistakes that give a different number from the right one on this case."""
    right = MEASURES[measure](ranking, qrels, k)
    return [key for key, wrong in MISTAKES[measure].items()
            if any(abs(v - right) > tolerance for v in _values(wrong(ranking, qrels, k)))]
