"""Generated exercises: one model, one seed scheme, one rule for a case worth teaching.

Pure Python (no Streamlit): /practice, every lesson's "try it yourself", the live classroom and
the tests use it. The same ``(measure, seed)`` always gives the same exercise — in a lesson, in
/practice, behind a shared link, in a live question — which is what lets an instructor post one
exact exercise. The view is :mod:`ui.exercise_panel`.

API::

    PRACTICE_METRICS                       # every measure key of teaching/measures.toml
    ex = generate("ndcg", seed)            # Exercise(kind="compute"); generate(m, s, lang="en")
    ex = pick(("dcg", "idcg", "ndcg"), "any", seed)   # a lesson's exercise ("any": by the seed)
    attempt = check(ex, "0.81")            # Attempt(status, value, mistake)
    attempt.status                         # "correct" | "wrong" | "not_a_number"
    attempt.mistake                        # None, a mistake id of teaching.mistakes,
                                           # "percent_not_fraction" or "wrong_unknown"
    steps(ex, lang)                        # [Step(key, values, formula)], the right working
    feedback(ex, attempt, lang)            # targeted feedback (Markdown, placeholders filled)
    first_try_feedback(ex, attempt, lang)  # a first wrong answer: the mistake named, a hint
    mistake_values(ex)                     # {mistake id: [wrong values]} that differ here
    ex = predict_exercise(seed)            # Exercise(kind="predict"): swap two ranks, up or down?
    check(ex, "up") / check(ex, "down:large") / check_prediction(ex, "same", None)

The seed scheme: ``random.Random(f"{measure}-{seed}")`` draws the case (predict exercises:
``f"predict-{seed}"``). The rule for a case worth teaching: at least one of its measure's
headline mistakes gives another number, and no wrong formula lands within
:data:`AMBIGUOUS` × the tolerance of the right answer (nor of the right answer written as a
percentage); any other case is drawn again.

Typed answers are read with :func:`teaching.answers.parse_number`: ``0.5``, ``1/2``, ``٠٫٥``
and ``50%`` are all 0.5 and correct; a bare ``50`` for 0.5 is the ``percent_not_fraction``
mistake.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

from teaching import measures, mistakes
from teaching.answers import parse_number
from teaching.cases import (
    CASES,
    INTENT_VERDICT,
    LARGE_CHANGE,
    PREDICT_METRICS,
    Attempt,
    Exercise,
    Step,
    doc_order,
    faithfulness_report,
    predict_case,
    question_list,
)
from teaching.working import (
    FORM_SLIPS,
    feedback,
    feedback_key,
    feedback_text,
    feedback_values,
    first_try_feedback,
    scopes,
    steps,
    texts,
)
from text import i18n

__all__ = [
    "AMBIGUOUS", "FORM_SLIPS", "HEADLINE", "INTENT_VERDICT", "LARGE_CHANGE", "MAX_SEED",
    "PRACTICE_METRICS", "PREDICT_DIRECTIONS", "PREDICT_METRICS", "PREDICT_SIZES", "Attempt",
    "Exercise", "Step", "check", "check_prediction", "chosen", "doc_order", "faithfulness_report",
    "feedback", "feedback_key", "feedback_text", "feedback_values", "first_try_feedback",
    "generate", "mistake_ids", "mistake_values", "pick", "predict_exercise", "scopes", "steps",
    "texts",
]

PRACTICE_METRICS = measures.keys()
PREDICT_DIRECTIONS = ("up", "down", "same")
PREDICT_SIZES = ("small", "large")
MAX_SEED = 10**9
TOLERANCE: Mapping[str, float] = {m.key: m.tolerance for m in measures.MEASURES.values()}
HEADLINE: Mapping[str, frozenset[str]] = {m.key: m.headline for m in measures.MEASURES.values()}
AMBIGUOUS = mistakes.AMBIGUOUS   # a wrong formula this close (× tolerance): drawn again


# --- generating ----------------------------------------------------------------------------------


def generate(metric: str, seed: int, *, lang: str = i18n.DEFAULT_LANG) -> Exercise:
    """The compute exercise of ``(metric, seed)``. ``lang`` only changes the words of a
    faithfulness exercise (the same seed gives the same case in both languages)."""
    if metric not in measures.MEASURES:
        raise ValueError(f"unknown practice metric {metric!r}")
    rng = random.Random(f"{metric}-{int(seed)}")
    make = CASES[measures.family(metric)]
    while True:
        ex = make(rng, metric, int(seed), lang if lang in i18n.LANGS else i18n.DEFAULT_LANG)
        if ex is not None and _teaches(ex):
            return ex


def chosen(among: Sequence[str], choice: str, seed: int) -> str:
    """The measure a lesson's exercise is on: ``choice``, or for ``"any"`` the one the seed
    picks from ``among`` (so a link with ``any`` and a seed reopens the same exercise)."""
    if choice != "any":
        if choice not in among:
            raise ValueError(f"{choice!r} is not among {among}")
        return choice
    return among[int(seed) % len(among)]


def pick(among: Sequence[str], choice: str, seed: int, *,
         lang: str = i18n.DEFAULT_LANG) -> Exercise:
    """A lesson's exercise: :func:`generate` on the measure :func:`chosen` names."""
    return generate(chosen(among, choice, seed), seed, lang=lang)


def _teaches(ex: Exercise) -> bool:
    """A headline mistake gives another number, and no wrong formula is ambiguously close to
    the right answer (or to the right answer written as a percentage)."""
    values = _all_mistake_values(ex)
    tol = ex.tolerance
    if not any(any(abs(v - ex.answer) > tol for v in values.get(key, []))
               for key in HEADLINE[ex.metric]):
        return False
    return mistakes.unambiguous(ex.answer, values, tol)


def predict_exercise(seed: int, metric: str | None = None) -> Exercise:
    """"Swap ranks i and j — will <metric>@k go up, down or stay the same, and by a lot?"

    ``metric`` is one of :data:`PREDICT_METRICS` (None: chosen by the seed)."""
    rng = random.Random(f"predict-{int(seed)}")
    metric = metric or rng.choice(PREDICT_METRICS)
    if metric not in PREDICT_METRICS:
        raise ValueError(f"unknown predict metric {metric!r}")
    return predict_case(rng, metric, int(seed))


# --- checking ------------------------------------------------------------------------------------


def check_prediction(ex: Exercise, direction: str | None, size: str | None) -> Attempt:
    """A prediction: ``direction`` up/down/same and, unless "same", ``size`` small/large."""
    if direction not in PREDICT_DIRECTIONS:
        return Attempt("not_a_number", None, None)
    if direction != ex.direction:
        # "stays the same" has its own text: "goes from 0.58 to 0.58" is no change to look at
        return Attempt("wrong", None, "predict_wrong_same" if ex.direction == "same"
                       else "predict_wrong_direction")
    if direction != "same" and size not in PREDICT_SIZES:
        return Attempt("not_a_number", None, None)
    if direction != "same" and size != ex.size:
        return Attempt("wrong", None, "predict_wrong_size")
    return Attempt("correct", None, None)


def check(ex: Exercise, typed: str) -> Attempt:
    """Check what the learner typed: a number for a compute exercise, ``"up"``, ``"down:small"``
    or ``"same"`` for a predict exercise."""
    if ex.kind == "predict":
        direction, _, size = str(typed).strip().lower().partition(":")
        return check_prediction(ex, direction, size or None)
    value = parse_number(typed)
    if value is None:
        return Attempt("not_a_number", None, None)
    verdict = _diagnose(ex, value)
    if verdict == "correct":
        return Attempt("correct", value, None)
    return Attempt("wrong", value, verdict)


def _diagnose(ex: Exercise, value: float) -> str:
    tol = ex.tolerance
    if ex.metric == "mrr":
        return mistakes.diagnose_mean("mrr", question_list(ex.questions), value, tol)
    if ex.metric == "faithfulness":
        return mistakes.diagnose_faithfulness(faithfulness_report(ex), value, tol)
    return mistakes.diagnose(ex.metric, list(ex.ranking), _qrels_for(ex), ex.k, value, tol)


def _qrels_for(ex: Exercise):
    return ex.qrels if ex.graded else set(ex.relevant)


def mistake_ids(metric: str) -> tuple[str, ...]:
    """Every wrong formula the checker knows for ``metric`` (catalogue order)."""
    return tuple(_formulas(metric))


def _formulas(metric: str) -> Mapping[str, Callable]:
    if metric == "mrr":
        return mistakes.MEAN_MISTAKES["mrr"]
    if metric == "faithfulness":
        return mistakes.FAITHFULNESS_MISTAKES
    return mistakes.MISTAKES[metric]


def _all_mistake_values(ex: Exercise) -> dict[str, list[float]]:
    if ex.metric == "mrr":
        args: tuple = (question_list(ex.questions),)
    elif ex.metric == "faithfulness":
        args = ([s.verdict for s in faithfulness_report(ex).sentences],)
    else:
        args = (list(ex.ranking), _qrels_for(ex), ex.k)
    return {key: list(mistakes._values(f(*args))) for key, f in _formulas(ex.metric).items()}


def mistake_values(ex: Exercise) -> dict[str, list[float]]:
    """The wrong formulas that give a different number here: ``{mistake id: [values]}``."""
    out = {}
    for key, values in _all_mistake_values(ex).items():
        differing = [v for v in values if abs(v - ex.answer) > ex.tolerance]
        if differing:
            out[key] = differing
    return out

