"""The mistake catalogue: every wrong formula a learner may use, each defined once.

A mistake has an id (``recall_divided_by_k``), one formula and its texts: the texts are in
``mistakes.<lang>.toml``, one per register the pages need — ``feedback`` (an exercise's answer,
with the case's numbers), ``hint`` (a cell of lesson 5's step table) and ``misconception`` (one
line on the live projector). :data:`CATALOGUE` lists every id with its kind:

* ``value`` — a wrong way to compute a measure; ``formula(measure, ranking, qrels, k)`` gives
  the number(s) it leads to. :data:`MISTAKES` is the same formulas per measure, in the order
  :func:`diagnose` tries them (one slip, such as ``off_by_one_k`` or ``exponential_gain``, can
  imitate several measures: one formula, applied to each);
* ``questions`` — a wrong way to average over questions (MRR): ``formula(questions)``;
* ``verdicts`` — a wrong faithfulness score: ``formula(verdicts)`` from the checker's verdicts;
* ``cell`` — a slip in one cell of the DCG step table: ``formula(cell)`` (a :class:`Cell`);
* ``judgement`` — a wrong prediction or comparison (the live classroom's "up or down?" and
  "which system is better?", the predict exercises): ``formula`` is the rule that names it.

``diagnose`` returns the first mistake whose value matches the learner's answer and differs from
the right value (a mistake that gives the right number on this case is not a mistake here).
Pure Python, no Streamlit; numbers come from ``metrics``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from metrics import binary, graded, rank
from metrics._input import dedupe, grades_of, normalise_qrels
from text import i18n

__all__ = [
    "AMBIGUOUS",
    "CATALOGUE",
    "CELL_COLUMNS",
    "FAITHFULNESS_MISTAKES",
    "MEAN_MEASURES",
    "MEAN_MISTAKES",
    "MEASURES",
    "MISTAKES",
    "REGISTERS",
    "WEIGHTS",
    "Cell",
    "Facts",
    "Mistake",
    "Sentences",
    "better_mistake",
    "cell_mistake",
    "diagnose",
    "diagnose_faithfulness",
    "diagnose_mean",
    "diagnose_sentences",
    "distinct_mistakes",
    "facts",
    "judged_by",
    "mean_mistake_values",
    "sentence_mistake_values",
    "swap_mistake",
    "text",
    "texts",
    "unambiguous",
]

PERCENT = "percent_not_fraction"   # the right number, written as a percentage
OUT_OF_RANGE = "out_of_range"      # a measure that is a share (or a mean of shares) outside 0–1
UNBOUNDED = frozenset({"dcg", "idcg"})   # may exceed 1: not in OUT_OF_RANGE's measures


@dataclass(frozen=True)
class Mistake:
    id: str
    kind: str                        # value | range | questions | verdicts | cell | judgement
    formula: Callable = field(repr=False, compare=False)
    measures: tuple[str, ...] = ()   # the measures it imitates (kind "value")


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


# --- the right values -----------------------------------------------------------------------

MEASURES: Mapping[str, Callable] = {
    "precision": binary.precision,
    "recall": binary.recall,
    "hit_rate": binary.hit_rate,
    "f1": binary.f1,
    "rr": rank.reciprocal_rank,
    "ap": rank.average_precision,          # AP@k with N = R (trec_eval)
    # trec_eval's ndcg_cut: linear gain, 1 / log2(i + 1), the ideal of every judged grade
    "dcg": lambda r, q, k: graded.dcg(r, q, k),
    "idcg": lambda r, q, k: graded.idcg(r, q, k),
    "ndcg": lambda r, q, k: graded.ndcg(r, q, k),
}
BINARY = ("precision", "recall", "hit_rate", "f1", "rr")
GRADED = ("dcg", "idcg", "ndcg")

Questions = Sequence[tuple[Sequence[str], object]]  # (ranking, qrels) for each question


def _mrr(questions: Questions) -> float:
    if not questions:
        raise ValueError("MRR needs at least one question")
    return sum(rank.reciprocal_rank(r, q) for r, q in questions) / len(questions)


MEAN_MEASURES: Mapping[str, Callable[..., float]] = {
    "mrr": _mrr,
    "recall": lambda questions, k: _mean_recall(questions, k),   # mean recall@k (lesson 6)
}


# --- helpers the formulas share ---------------------------------------------------------------


def _ratio(top: float, bottom: float) -> float | None:
    return top / bottom if bottom else None


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _relevant_retrieved(ranking, qrels) -> int:
    judged = normalise_qrels(qrels)
    return sum(judged.get(d, 0) >= 1 for d in dedupe(ranking))


def _ap_sum(ranking: Sequence[str], qrels, k: int) -> float:
    """The sum of precision@i over the relevant ranks i <= k (AP before it is divided by N)."""
    return sum(hit / r for hit, r in enumerate(rank.relevant_ranks(ranking, qrels, k), start=1))


def _ap_precision_at_every_rank(ranking: Sequence[str], qrels, k: int) -> float | None:
    """The mean of precision@i over *every* rank i <= k, relevant or not (a wrong AP)."""
    depth = min(k, len(dedupe(ranking)))
    if not depth:
        return None
    return sum(binary.hits_at(ranking, qrels, i) / i for i in range(1, depth + 1)) / depth


def _first_ranks(questions: Questions) -> list[int | None]:
    out = []
    for ranking, qrels in questions:
        ranks = rank.relevant_ranks(ranking, qrels)
        out.append(ranks[0] if ranks else None)
    return out


def _found(questions: Questions) -> list[int]:
    return [r for r in _first_ranks(questions) if r is not None]


def _verdict_count(verdicts: Sequence[str], *wanted: str) -> int:
    return sum(v in wanted for v in verdicts)


def _scored(verdicts: Sequence[str]) -> int:
    return len(verdicts) - _verdict_count(verdicts, "not_scored")


# Rank discounts: the right one is 1 / log2(i + 1); each of these is a slip. The step table's
# discount and contribution cells use the same functions as the DCG-level slips.
WEIGHTS: Mapping[str, Callable[[int], float]] = {
    # divides rank i by log2(i), leaving rank 1 undiscounted (log2(1) = 0)
    "discount_log2_i": lambda i: 1.0 if i == 1 else 1.0 / math.log2(i),
    "discount_log2_i_plus_2": lambda i: 1.0 / math.log2(i + 2),
    "discount_ln": lambda i: 1.0 / math.log(i + 1),
    "no_discount": lambda i: 1.0,
    "discount_reciprocal_rank": lambda i: 1.0 / i,
    "discount_not_inverted": lambda i: math.log2(i + 1),
}


def _graded_dcg(grades: Sequence[int], k: int | None, gain: str = "linear",
                weight: Callable[[int], float] = graded.discount) -> float:
    cut = grades if k is None else grades[:k]
    return sum(graded.gain_of(g, gain) * weight(i) for i, g in enumerate(cut, start=1))


def _graded(measure: str, ranking: Sequence[str], qrels, k: int, *, gain: str = "linear",
            weight: Callable[[int], float] = graded.discount, ideal: str = "judged",
            ideal_sorted: bool = True, ideal_cut: bool = True, normalised: bool = True,
            inverted: bool = False) -> float | None:
    """DCG@k, IDCG@k or nDCG@k (``measure``) computed with one slip (the keyword changed)."""
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


def _slip(**change) -> Callable:
    return lambda measure, r, q, k: _graded(measure, r, q, k, **change)


def _off_by_one(measure: str, ranking, qrels, k: int) -> list[float]:
    right = MEASURES[measure]
    return [right(ranking, qrels, j) for j in (k - 1, k + 1) if j >= 1]


def _first_hit(ranking, qrels, k: int, which: int) -> int | None:
    ranks = rank.relevant_ranks(ranking, qrels, k)
    return ranks[which] if ranks else None


# --- the catalogue ---------------------------------------------------------------------------
# Value mistakes are listed in the order diagnose tries them (an earlier one wins a tie).

_VALUE: tuple[tuple[str, tuple[str, ...], Callable], ...] = (
    ("precision_divided_by_retrieved", ("precision",), lambda m, r, q, k: _ratio(
        binary.hits_at(r, q, k), min(k, len(dedupe(r))))),
    ("precision_divided_by_R", ("precision",), lambda m, r, q, k: _ratio(
        binary.hits_at(r, q, k), binary.num_relevant(q))),
    ("recall_divided_by_k", ("recall",), lambda m, r, q, k: binary.hits_at(r, q, k) / k),
    ("recall_divided_by_retrieved_relevant", ("recall",), lambda m, r, q, k: _ratio(
        binary.hits_at(r, q, k), _relevant_retrieved(r, q))),
    ("hit_rate_as_count", ("hit_rate",), lambda m, r, q, k: float(binary.hits_at(r, q, k))),
    ("f1_arithmetic_mean", ("f1",), lambda m, r, q, k: (binary.precision(r, q, k)
                                                        + binary.recall(r, q, k)) / 2),
    ("rr_of_last_hit", ("rr",), lambda m, r, q, k: _ratio(1, _first_hit(r, q, k, -1) or 0)),
    ("rr_not_inverted", ("rr",), lambda m, r, q, k: (
        float(_first_hit(r, q, k, 0)) if _first_hit(r, q, k, 0) else None)),
    ("ap_divided_by_retrieved_relevant", ("ap",), lambda m, r, q, k: rank.average_precision(
        r, q, k, "retrieved")),
    ("ap_precision_at_every_rank", ("ap",), lambda m, r, q, k: _ap_precision_at_every_rank(
        r, q, k)),
    ("ap_not_divided", ("ap",), lambda m, r, q, k: _ap_sum(r, q, k)),
    ("ap_divided_by_k", ("ap",), lambda m, r, q, k: _ap_sum(r, q, k) / k),
    ("ap_first_hit_only", ("ap",), lambda m, r, q, k: (
        rank.reciprocal_rank(r, q, k) if rank.relevant_ranks(r, q, k) else None)),
    ("ideal_from_retrieved", ("idcg", "ndcg"), _slip(ideal="retrieved")),
    ("ideal_not_sorted", ("idcg",), _slip(ideal_sorted=False)),
    ("not_normalised", ("ndcg",), _slip(normalised=False)),
    ("exponential_gain", GRADED, _slip(gain="exponential")),
    ("ideal_not_cut", ("idcg", "ndcg"), _slip(ideal_cut=False)),
    # before log2(i): at k = 2 the two give the same number, and forgetting the discount is the
    # more basic slip (round 62: a learner who forgot it was told of J&K's original formula)
    ("no_discount", GRADED, _slip(weight=WEIGHTS["no_discount"])),
    ("discount_log2_i", GRADED, _slip(weight=WEIGHTS["discount_log2_i"])),
    ("discount_log2_i_plus_2", GRADED, _slip(weight=WEIGHTS["discount_log2_i_plus_2"])),
    ("discount_ln", GRADED, _slip(weight=WEIGHTS["discount_ln"])),
    ("ndcg_inverted", ("ndcg",), _slip(inverted=True)),
    ("off_by_one_k", (*BINARY, *GRADED), _off_by_one),
)

_QUESTIONS: tuple[tuple[str, Callable[[Questions], float | None]], ...] = (
    # 1 / (mean rank of the first hit), over the questions that have one
    ("mrr_inverse_mean_rank", lambda qs, k=None: 1 / _mean(_found(qs)) if _found(qs) else None),
    # the mean of RR over only the questions with a hit (a miss should count as 0)
    ("mrr_skip_misses", lambda qs, k=None: _mean([1 / r for r in _found(qs)])),
    # each question's RR taken at its last relevant document instead of its first
    ("mrr_of_last_hits", lambda qs, k=None: _mean([
        1 / ranks[-1] if ranks else 0.0 for ranks in (rank.relevant_ranks(r, q) for r, q in qs)])),
    # the mean rank itself, not inverted
    ("mrr_mean_rank", lambda qs, k=None: _mean(_found(qs))),
    # the sum of the RRs, not divided by the number of questions
    ("mrr_sum_not_mean", lambda qs, k=None: sum(rank.reciprocal_rank(r, q) for r, q in qs)),
    # recall@k over several questions (lesson 6): all hits over all relevant documents, which
    # weighs each question by how many relevant documents it has
    ("mean_recall_pooled", lambda qs, k: _ratio(sum(binary.hits_at(r, q, k) for r, q in qs),
                                                sum(binary.num_relevant(q) for _, q in qs))),
    # the mean over only the questions where retrieval found something
    ("mean_recall_skip_failures", lambda qs, k: _mean(
        [v for v in (binary.recall(r, q, k) for r, q in qs) if v > 0])),
)


def _mean_recall(questions: Questions, k: int) -> float:
    return _mean([binary.recall(r, q, k) for r, q in questions]) or 0.0


@dataclass(frozen=True)
class Sentences:
    """An answer's sentences as lesson 1 counts them: the supported ones, the scored ones (that
    make a claim), those a golden chunk supports, and how many chunks were retrieved."""

    supported: int
    scored: int
    on_golden: int
    chunks: int

    @property
    def verdicts(self) -> list[str]:
        return ["supported"] * self.supported + ["unsupported"] * (self.scored - self.supported)


_SENTENCES: tuple[tuple[str, Callable[[Sentences], float | None]], ...] = (
    # only the sentences a golden chunk supports counted as supported
    ("faith_golden_only", lambda s: _ratio(s.on_golden, s.scored)),
    # supported sentences divided by the number of chunks, not of sentences
    ("faith_divided_by_chunks", lambda s: _ratio(s.supported, s.chunks)),
)

# The faithfulness score is supported ÷ scored sentences ("not_scored" ones, with no claim, left
# out; "check" ones, a changed number or a flipped negation, not supported): slips of it.
def _check_counted_supported(v: Sequence[str]) -> float | None:
    return _ratio(_verdict_count(v, "supported", "check"), _scored(v))


def _check_left_out(v: Sequence[str]) -> float | None:
    return _ratio(_verdict_count(v, "supported"), _verdict_count(v, "supported", "unsupported"))


def _check_either_way(v: Sequence[str]) -> float | None:
    """With no unsupported sentence, counting the "check" sentences as supported and leaving
    them out give the same number (1): the feedback cannot tell which was done, so it names
    both rather than blame the learner for one they may not have made."""
    both = _check_counted_supported(v)
    return both if both is not None and both == _check_left_out(v) else None


_VERDICTS: tuple[tuple[str, Callable[[Sequence[str]], float | None]], ...] = (
    ("faith_not_scored_counted", lambda v: _ratio(_verdict_count(v, "supported"), len(v))),
    ("faith_check_either_way", _check_either_way),
    ("faith_check_counted_supported", _check_counted_supported),
    ("faith_check_left_out", _check_left_out),
    ("faith_count_not_share", lambda v: float(_verdict_count(v, "supported"))),
    ("faith_unsupported_share", lambda v: _ratio(
        _scored(v) - _verdict_count(v, "supported"), _scored(v))),
)


@dataclass(frozen=True)
class Cell:
    """One row of the DCG step table: its rank, grade and the gain kind asked for; the right
    gain, contribution, running DCG and IDCG of the row; the running DCG of the row above (None
    on the first row) and the IDCG@k of the last row."""

    rank: int
    grade: int
    gain_kind: str
    gain: float
    contribution: float
    dcg: float
    idcg: float
    previous_dcg: float | None
    final_idcg: float
    last: bool


def _other_gain(c: Cell, kind: str) -> float | None:
    return graded.gain_of(c.grade, kind) if c.gain_kind != kind else None


# column -> (mistake id, the value the cell holds after that slip), in the order tried
_CELLS: tuple[tuple[str, str, Callable[[Cell], float | None]], ...] = (
    ("gain", "exponential_gain", lambda c: _other_gain(c, "exponential")),
    ("gain", "linear_gain", lambda c: _other_gain(c, "linear")),
    # log2(1) = 0: rank 1 has no log2(i) discount to get wrong
    ("discount", "discount_log2_i", lambda c: (
        WEIGHTS["discount_log2_i"](c.rank) if c.rank > 1 else None)),
    *(("discount", key, lambda c, key=key: WEIGHTS[key](c.rank))
      for key in ("discount_log2_i_plus_2", "discount_ln", "discount_reciprocal_rank",
                  "discount_not_inverted")),
    ("contribution", "contribution_multiplied", lambda c: (
        c.gain * WEIGHTS["discount_not_inverted"](c.rank) if c.gain > 0 else None)),
    ("contribution", "no_discount", lambda c: (
        c.gain * WEIGHTS["no_discount"](c.rank) if c.rank > 1 else None)),
    ("dcg", "running_not_summed", lambda c: c.contribution if c.previous_dcg else None),
    ("ndcg", "ndcg_inverted", lambda c: c.idcg / c.dcg if c.dcg > 0 else None),
    ("ndcg", "ndcg_final_idcg", lambda c: (
        c.dcg / c.final_idcg if not c.last and c.final_idcg > 0 else None)),
    ("ndcg", "not_normalised", lambda c: c.dcg if c.idcg > 0 else None),
)
CELL_COLUMNS = ("gain", "discount", "contribution", "dcg", "ndcg")


# Why a swap of two documents with different grades, not both below k, leaves a measure as it
# was: the measure's own reason (the set measures count, RR looks at the first relevant
# document, AP sees relevant or not, IDCG never reads the system's order).
_SWAP_SAME = {"rr": "swap_first_relevant_kept", "ap": "swap_relevant_alike",
              "idcg": "swap_ideal_only"}


def swap_mistake(right: str, picked: str, i: int, j: int, k: int, same_grade: bool,
                 measure: str = "") -> str:
    """Why a learner predicts ``picked`` ("up" | "same" | "down") for swapping ranks ``i`` and
    ``j`` when the answer is ``right`` for ``measure``: the misconception behind that
    prediction."""
    if right == "same":
        if i > k and j > k:
            return "swap_beyond_k"
        if same_grade:
            return "swap_same_grade"
        return _SWAP_SAME.get(measure, "order_inside_k")
    if picked == "same":
        return "cutoff_ignored" if (i <= k) != (j <= k) else "position_ignored"
    return "swap_direction"


def judged_by(measure: str) -> str:
    """The mistake of answering with ``measure``'s number or verdict instead of the one asked."""
    return f"judged_by_{measure}"


def better_mistake(verdicts: Mapping[str, str], asked: str, picked: str) -> str:
    """Why a learner says system ``picked`` is better by ``asked`` when it is not: the first
    other measure whose verdict (``verdicts``: measure -> "A" | "B" | "tie") gives that answer."""
    return next((judged_by(m) for m, v in verdicts.items() if m != asked and v == picked),
                "better_unknown")


def _judgements() -> Iterable[tuple[str, Callable]]:
    for key in ("swap_direction", "cutoff_ignored", "position_ignored", "order_inside_k",
                "swap_beyond_k", "swap_same_grade", *_SWAP_SAME.values()):
        yield key, swap_mistake
    for measure in ("recall", "precision", "rr", "ap", "ndcg", "hit_rate"):
        yield judged_by(measure), MEASURES[measure]   # that measure's own number and verdict
    yield "better_unknown", better_mistake
    # the predict-then-reveal exercises (teaching.exercises.check_prediction)
    yield "predict_wrong_direction", lambda before, after: (after > before) - (after < before)
    yield "predict_wrong_same", swap_mistake           # its text says the measure's reason
    yield "predict_wrong_size", lambda before, after: abs(after - before)


def _percent(right: float) -> float:
    return 100 * right


def _outside_unit(answer: float) -> bool:
    return not 0 <= answer <= 1


CATALOGUE: Mapping[str, Mistake] = {
    **{key: Mistake(key, "value", formula, measures) for key, measures, formula in _VALUE},
    PERCENT: Mistake(PERCENT, "value", _percent, (*MEASURES, *MEAN_MEASURES, "faithfulness")),
    OUT_OF_RANGE: Mistake(OUT_OF_RANGE, "range", _outside_unit,
                          (*(m for m in MEASURES if m not in UNBOUNDED), *MEAN_MEASURES,
                           "faithfulness")),
    **{key: Mistake(key, "questions", formula, ("recall" if "recall" in key else "mrr",))
       for key, formula in _QUESTIONS},
    **{key: Mistake(key, "sentences", formula, ("faithfulness",)) for key, formula in _SENTENCES},
    **{key: Mistake(key, "verdicts", formula, ("faithfulness",)) for key, formula in _VERDICTS},
    **{key: Mistake(key, "cell", formula) for _, key, formula in _CELLS
       if key not in {k for k, _, _ in _VALUE}},
    **{key: Mistake(key, "judgement", formula) for key, formula in _judgements()},
}

# The same formulas per measure, as functions of one case, in the order diagnose tries them.
MISTAKES: Mapping[str, Mapping[str, Callable]] = {
    measure: {key: partial(formula, measure) for key, measures, formula in _VALUE
              if measure in measures}
    for measure in MEASURES
}
GRADED_MEASURES: Mapping[str, Callable] = {m: MEASURES[m] for m in GRADED}
GRADED_MISTAKES: Mapping[str, Mapping[str, Callable]] = {m: MISTAKES[m] for m in GRADED}
MEAN_MISTAKES: Mapping[str, Mapping[str, Callable]] = {
    "mrr": {key: f for key, f in _QUESTIONS if key.startswith("mrr_")},
    # lesson 6's mean recall@k: answering with another measure's mean is judged_by_<measure>
    "recall": {
        "mean_recall_pooled": dict(_QUESTIONS)["mean_recall_pooled"],
        **{judged_by(m): lambda qs, k, m=m: _mean([MEASURES[m](r, q, k) for r, q in qs])
           for m in ("hit_rate", "precision")},
        "mean_recall_skip_failures": dict(_QUESTIONS)["mean_recall_skip_failures"],
    },
}
FAITHFULNESS_MISTAKES: Mapping[str, Callable[[Sequence[str]], float | None]] = dict(_VERDICTS)


# --- diagnosing --------------------------------------------------------------------------------


def _values(result) -> Iterable[float]:
    if result is None:
        return []
    return result if isinstance(result, list) else [result]


def _diagnose(measure: str, right: float, candidates: Iterable[tuple[str, object]],
              answer: float, tolerance: float) -> str:
    """``"correct"``, :data:`PERCENT`, the first candidate whose value is ``answer`` (and not
    ``right``), :data:`OUT_OF_RANGE` (a ``measure`` the catalogue's entry bounds to 0–1,
    answered outside that range), or ``"wrong_unknown"``. ``candidates``: (id, wrong value(s)), in
    order: a known slip that lands outside 0–1 (a count for a share) is named before the range."""
    tolerance += 1e-9                      # 0.625 typed as 0.62 is still right
    if abs(answer - right) <= tolerance:
        return "correct"
    if right and abs(answer - _percent(right)) <= 100 * tolerance:
        return PERCENT
    for key, result in candidates:
        for value in _values(result):
            if abs(value - right) > tolerance and abs(answer - value) <= tolerance:
                return key
    if _outside_unit(answer) and measure in CATALOGUE[OUT_OF_RANGE].measures:
        return OUT_OF_RANGE
    return "wrong_unknown"


def _distinct(right: float, candidates: Iterable[tuple[str, object]],
              tolerance: float) -> list[str]:
    return [key for key, result in candidates
            if any(abs(v - right) > tolerance for v in _values(result))]


def _on_case(measure: str, ranking, qrels, k: int):
    return ((key, wrong(ranking, qrels, k)) for key, wrong in MISTAKES[measure].items())


def diagnose(measure: str, ranking: Sequence[str], qrels, k: int, answer: float,
             tolerance: float = 0.005) -> str:
    """``"correct"``, a mistake id, ``"percent_not_fraction"``, ``"out_of_range"`` or
    ``"wrong_unknown"``."""
    return _diagnose(measure, MEASURES[measure](ranking, qrels, k),
                     _on_case(measure, ranking, qrels, k), answer, tolerance)


def distinct_mistakes(measure: str, ranking: Sequence[str], qrels, k: int,
                      tolerance: float = 0.005) -> list[str]:
    """The mistakes that give a different number from the right one on this case."""
    return _distinct(MEASURES[measure](ranking, qrels, k), _on_case(measure, ranking, qrels, k),
                     tolerance)


def _on_questions(measure: str, questions: Questions, k: int | None):
    args = (questions,) if k is None else (questions, k)
    return ((key, wrong(*args)) for key, wrong in MEAN_MISTAKES[measure].items())


def _mean_right(measure: str, questions: Questions, k: int | None) -> float:
    return MEAN_MEASURES[measure](*((questions,) if k is None else (questions, k)))


def diagnose_mean(measure: str, questions: Questions, answer: float,
                  tolerance: float = 0.005, *, k: int | None = None) -> str:
    """Like :func:`diagnose`, for a measure averaged over questions (``"mrr"``; ``"recall"``
    at cutoff ``k``)."""
    return _diagnose(measure, _mean_right(measure, questions, k),
                     _on_questions(measure, questions, k), answer, tolerance)


def distinct_mean_mistakes(measure: str, questions: Questions,
                           tolerance: float = 0.005, *, k: int | None = None) -> list[str]:
    """The mistakes that give a different number from the right one on these questions."""
    return _distinct(_mean_right(measure, questions, k), _on_questions(measure, questions, k),
                     tolerance)


def mean_mistake_values(measure: str, questions: Questions,
                        k: int | None = None) -> dict[str, list[float]]:
    """Every wrong way to average ``measure`` over these questions: ``{id: [values]}``."""
    return {key: list(_values(v)) for key, v in _on_questions(measure, questions, k)}


def _on_sentences(s: Sentences):
    """Lesson 1's slips of the supported share, in the order they are tried: two of its own
    and two the faithfulness exercises share (the share not supported, the count)."""
    own = dict(_SENTENCES)
    verdicts = s.verdicts
    return (("faith_golden_only", own["faith_golden_only"](s)),
            ("faith_unsupported_share", FAITHFULNESS_MISTAKES["faith_unsupported_share"](verdicts)),
            ("faith_divided_by_chunks", own["faith_divided_by_chunks"](s)),
            ("faith_count_not_share", FAITHFULNESS_MISTAKES["faith_count_not_share"](verdicts)))


def diagnose_sentences(s: Sentences, answer: float, tolerance: float = 0.005) -> str:
    """Like :func:`diagnose`, for lesson 1's share of supported sentences."""
    return _diagnose("faithfulness", _ratio(s.supported, s.scored) or 0.0, _on_sentences(s),
                     answer, tolerance)


def sentence_mistake_values(s: Sentences) -> dict[str, list[float]]:
    return {key: list(_values(v)) for key, v in _on_sentences(s)}


def _on_report(report):
    verdicts = [s.verdict for s in report.sentences]
    return ((key, wrong(verdicts)) for key, wrong in FAITHFULNESS_MISTAKES.items())


def diagnose_faithfulness(report, answer: float, tolerance: float = 0.005) -> str:
    """Like :func:`diagnose`, for a faithfulness score. ``report`` is what
    ``metrics.faithfulness.check`` returned (its ``score`` must not be None)."""
    return _diagnose("faithfulness", report.score, _on_report(report), answer, tolerance)


def distinct_faithfulness_mistakes(report, tolerance: float = 0.005) -> list[str]:
    """The faithfulness mistakes that give a different number from the right one here."""
    return _distinct(report.score, _on_report(report), tolerance)


AMBIGUOUS = 3.0    # a wrong formula within AMBIGUOUS × tolerance of the answer: not teachable


def unambiguous(right: float, values: Mapping[str, Iterable[float]], tolerance: float) -> bool:
    """The rule every generated exercise follows: no wrong formula lands so close to the right
    answer (or to the right answer written as a percentage) that a rounded answer could be
    taken for it — each is either the right number itself or more than :data:`AMBIGUOUS` ×
    ``tolerance`` away."""
    percent = _percent(right)
    return all((abs(v - right) <= tolerance or abs(v - right) > AMBIGUOUS * tolerance)
               and (not right or abs(v - percent) > 100 * tolerance + AMBIGUOUS * tolerance)
               for vs in values.values() for v in vs)


def cell_mistake(column: str, cell: Cell, typed: float, tolerance: float) -> str | None:
    """The slip that puts ``typed`` in this step-table cell, or None."""
    for where, key, formula in _CELLS:
        value = formula(cell) if where == column else None
        if value is not None and abs(typed - value) <= tolerance + 1e-9:
            return key
    return None


# --- the texts ---------------------------------------------------------------------------------

REGISTERS = ("feedback", "hint", "misconception")


def texts(lang: str | None = None) -> Mapping[str, Mapping[str, str]]:
    """``mistakes.<lang>.toml``: mistake id -> register -> text (cached; never mutate it)."""
    lang = lang if lang in i18n.LANGS else i18n.current_lang()
    return i18n.read_toml(Path(__file__).with_name(f"mistakes.{lang}.toml"))


def text(mistake: str, register: str, lang: str | None = None) -> str | None:
    """The text of ``mistake`` in ``register`` ("feedback", "hint", "misconception"), or None
    when the catalogue has none (placeholders not filled)."""
    return texts(lang).get(mistake, {}).get(register)
