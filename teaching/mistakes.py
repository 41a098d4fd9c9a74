"""The known wrong formulas, so feedback can name the mistake behind a wrong answer.

Each mistake is a function of the same inputs as the measure it imitates. ``diagnose`` returns the
key of the first mistake whose value matches the learner's answer (and differs from the right
value — a mistake that gives the right number on this case is not a mistake here). The keys are
the feedback keys of the lessons' content files.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from metrics import binary, graded, rank
from metrics._input import dedupe, grades_of, normalise_qrels

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
    "ap": rank.average_precision,          # lesson 3: AP@k with N = R (trec_eval)
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
    # lesson 3 (MRR and AP); the helpers are defined at the end of this file.
    "ap": {
        "ap_divided_by_retrieved_relevant": lambda r, q, k: rank.average_precision(
            r, q, k, "retrieved"),
        "ap_precision_at_every_rank": lambda r, q, k: _ap_precision_at_every_rank(r, q, k),
        "ap_not_divided": lambda r, q, k: _ap_sum(r, q, k),
        "ap_divided_by_k": lambda r, q, k: _ap_sum(r, q, k) / k,
        "ap_first_hit_only": lambda r, q, k: (rank.reciprocal_rank(r, q, k)
                                              if rank.relevant_ranks(r, q, k) else None),
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


# --- lesson 3: AP helpers, and measures averaged over several questions (MRR) ----------------


def _ap_sum(ranking: Sequence[str], qrels, k: int) -> float:
    """The sum of precision@i over the relevant ranks i <= k (AP before it is divided by N)."""
    return sum(hit / r for hit, r in enumerate(rank.relevant_ranks(ranking, qrels, k), start=1))


def _ap_precision_at_every_rank(ranking: Sequence[str], qrels, k: int) -> float | None:
    """The mean of precision@i over *every* rank i <= k, relevant or not (a wrong AP)."""
    depth = min(k, len(dedupe(ranking)))
    if not depth:
        return None
    return sum(binary.hits_at(ranking, qrels, i) / i for i in range(1, depth + 1)) / depth


Questions = Sequence[tuple[Sequence[str], object]]  # (ranking, qrels) for each question


def _first_ranks(questions: Questions) -> list[int | None]:
    out = []
    for ranking, qrels in questions:
        ranks = rank.relevant_ranks(ranking, qrels)
        out.append(ranks[0] if ranks else None)
    return out


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _mrr(questions: Questions) -> float:
    if not questions:
        raise ValueError("MRR needs at least one question")
    return sum(rank.reciprocal_rank(r, q) for r, q in questions) / len(questions)


def _found(questions: Questions) -> list[int]:
    return [r for r in _first_ranks(questions) if r is not None]


# measure over several questions -> the right value, and the wrong formulas in the order tried.
MEAN_MEASURES: Mapping[str, Callable[[Questions], float]] = {
    "mrr": _mrr,
}

MEAN_MISTAKES: Mapping[str, Mapping[str, Callable[[Questions], float | list | None]]] = {
    "mrr": {
        # 1 / (mean rank of the first hit), over the questions that have one
        "mrr_inverse_mean_rank": lambda qs: (1 / _mean(_found(qs)) if _found(qs) else None),
        # the mean of RR over only the questions with a hit (a miss should count as 0)
        "mrr_skip_misses": lambda qs: _mean([1 / r for r in _found(qs)]),
        # each question's RR taken at its last relevant document instead of its first
        "mrr_of_last_hits": lambda qs: _mean([
            1 / ranks[-1] if ranks else 0.0
            for ranks in (rank.relevant_ranks(r, q) for r, q in qs)]),
        # the mean rank itself, not inverted
        "mrr_mean_rank": lambda qs: _mean(_found(qs)),
        # the sum of the RRs, not divided by the number of questions
        "mrr_sum_not_mean": lambda qs: sum(rank.reciprocal_rank(r, q) for r, q in qs),
    },
}


def diagnose_mean(measure: str, questions: Questions, answer: float,
                  tolerance: float = 0.005) -> str:
    """Like :func:`diagnose`, for a measure averaged over questions (``"mrr"``)."""
    right = MEAN_MEASURES[measure](questions)
    tolerance += 1e-9
    if abs(answer - right) <= tolerance:
        return "correct"
    if right and abs(answer - 100 * right) <= 100 * tolerance:
        return "percent_not_fraction"
    for key, wrong in MEAN_MISTAKES[measure].items():
        for value in _values(wrong(questions)):
            if abs(value - right) > tolerance and abs(answer - value) <= tolerance:
                return key
    return "wrong_unknown"


def distinct_mean_mistakes(measure: str, questions: Questions,
                           tolerance: float = 0.005) -> list[str]:
    """The mistakes that give a different number from the right one on these questions."""
    right = MEAN_MEASURES[measure](questions)
    return [key for key, wrong in MEAN_MISTAKES[measure].items()
            if any(abs(v - right) > tolerance for v in _values(wrong(questions)))]


# --- lesson 5 (/ndcg): graded measures DCG@k, IDCG@k, nDCG@k ---------------------------------
# The right values follow trec_eval (``ndcg_cut``): linear gain, discount 1 / log2(i + 1), the
# ideal ordering of *every* judged grade, cut at k. ``qrels`` is ``{doc: grade}``. Each wrong
# formula below changes exactly one of those choices. Keys are shared by the three measures
# where the slip is the same (the lesson's feedback texts are keyed by them).


def _discount_log2_i(i: int) -> float:
    """Divides rank i by log2(i), leaving rank 1 undiscounted (log2(1) = 0)."""
    return 1.0 if i == 1 else 1.0 / math.log2(i)


def _discount_log2_i_plus_2(i: int) -> float:
    return 1.0 / math.log2(i + 2)


def _discount_ln(i: int) -> float:
    return 1.0 / math.log(i + 1)


def _no_discount(i: int) -> float:
    return 1.0


def _graded_dcg(grades: Sequence[int], k: int | None, gain: str = "linear",
                weight: Callable[[int], float] = graded.discount) -> float:
    cut = grades if k is None else grades[:k]
    return sum(graded.gain_of(g, gain) * weight(i) for i, g in enumerate(cut, start=1))


def _graded(measure: str, *, gain: str = "linear", weight: Callable[[int], float] = graded.discount,
            ideal: str = "judged", ideal_sorted: bool = True, ideal_cut: bool = True,
            normalised: bool = True, inverted: bool = False) -> Callable:
    """DCG@k, IDCG@k or nDCG@k (``measure``) computed with one slip (the keyword changed)."""

    def value(ranking: Sequence[str], qrels, k: int) -> float | None:
        grades = grades_of(dedupe(ranking), normalise_qrels(qrels))
        top = _graded_dcg(grades, k, gain, weight)
        pool = graded.ideal_grades(ranking, qrels, ideal) if ideal_sorted else grades
        best = _graded_dcg(pool, k if ideal_cut else None, gain, weight)
        if measure == "dcg":
            return top
        if measure == "idcg":
            return best
        if not normalised:
            return top
        if inverted:
            return best / top if top > 0 else None
        return top / best if best > 0 else 0.0

    return value


def _graded_mistakes(measure: str) -> dict[str, Callable]:
    slips: dict[str, dict] = {}
    if measure in ("idcg", "ndcg"):
        slips["ideal_from_retrieved"] = {"ideal": "retrieved"}
    if measure == "idcg":
        slips["ideal_not_sorted"] = {"ideal_sorted": False}
    if measure == "ndcg":
        slips["not_normalised"] = {"normalised": False}
    slips["exponential_gain"] = {"gain": "exponential"}
    if measure in ("idcg", "ndcg"):
        slips["ideal_not_cut"] = {"ideal_cut": False}
    slips["discount_log2_i"] = {"weight": _discount_log2_i}
    slips["discount_log2_i_plus_2"] = {"weight": _discount_log2_i_plus_2}
    slips["discount_ln"] = {"weight": _discount_ln}
    slips["no_discount"] = {"weight": _no_discount}
    if measure == "ndcg":
        slips["ndcg_inverted"] = {"inverted": True}
    out = {key: _graded(measure, **change) for key, change in slips.items()}
    out["off_by_one_k"] = _off_by_one(_graded(measure))
    return out


GRADED_MEASURES: Mapping[str, Callable] = {
    "dcg": lambda r, q, k: graded.dcg(r, q, k),
    "idcg": lambda r, q, k: graded.idcg(r, q, k),
    "ndcg": lambda r, q, k: graded.ndcg(r, q, k),
}
GRADED_MISTAKES: Mapping[str, Mapping[str, Callable]] = {
    measure: _graded_mistakes(measure) for measure in GRADED_MEASURES
}
MEASURES = {**MEASURES, **GRADED_MEASURES}
MISTAKES = {**MISTAKES, **GRADED_MISTAKES}


# --- lesson 4 (/faithfulness): the share of scored answer sentences that are supported --------
# The right value is ``metrics.faithfulness.check(answer, sources).score``: supported sentences ÷
# scored sentences, where "not_scored" sentences (no claim) are left out and "check" sentences
# (a changed number, a flipped negation, an unknown name) do not count as supported. The wrong
# formulas below take the checker's per-sentence verdicts.

def _verdict_count(verdicts: Sequence[str], *wanted: str) -> int:
    return sum(v in wanted for v in verdicts)


def _scored(verdicts: Sequence[str]) -> int:
    return len(verdicts) - _verdict_count(verdicts, "not_scored")


FAITHFULNESS_MISTAKES: Mapping[str, Callable[[Sequence[str]], float | None]] = {
    # sentences that make no claim kept in the denominator
    "faith_not_scored_counted": lambda v: _ratio(_verdict_count(v, "supported"), len(v)),
    # "check" (a changed number or negation) counted as supported
    "faith_check_counted_supported": lambda v: _ratio(
        _verdict_count(v, "supported", "check"), _scored(v)),
    # "check" sentences left out of the denominator, as if they made no claim
    "faith_check_left_out": lambda v: _ratio(
        _verdict_count(v, "supported"), _verdict_count(v, "supported", "unsupported")),
    # the number of supported sentences, not their share
    "faith_count_not_share": lambda v: float(_verdict_count(v, "supported")),
    # the share of scored sentences that are *not* supported
    "faith_unsupported_share": lambda v: _ratio(
        _scored(v) - _verdict_count(v, "supported"), _scored(v)),
}


def _report_verdicts(report) -> list[str]:
    return [s.verdict for s in report.sentences]


def diagnose_faithfulness(report, answer: float, tolerance: float = 0.005) -> str:
    """Like :func:`diagnose`, for a faithfulness score. ``report`` is what
    ``metrics.faithfulness.check`` returned (its ``score`` must not be None)."""
    right = report.score
    verdicts = _report_verdicts(report)
    tolerance += 1e-9
    if abs(answer - right) <= tolerance:
        return "correct"
    if right and abs(answer - 100 * right) <= 100 * tolerance:
        return "percent_not_fraction"
    for key, wrong in FAITHFULNESS_MISTAKES.items():
        for value in _values(wrong(verdicts)):
            if abs(value - right) > tolerance and abs(answer - value) <= tolerance:
                return key
    return "wrong_unknown"


def distinct_faithfulness_mistakes(report, tolerance: float = 0.005) -> list[str]:
    """The faithfulness mistakes that give a different number from the right one here."""
    verdicts = _report_verdicts(report)
    return [key for key, wrong in FAITHFULNESS_MISTAKES.items()
            if any(abs(v - report.score) > tolerance for v in _values(wrong(verdicts)))]
