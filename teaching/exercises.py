"""Generated exercises: a fresh, solvable case from a seed, answered and checked by ``metrics``.

Pure Python (no Streamlit): the practice hub, the lessons and the tests all use it. The same
``(metric, seed)`` always gives the same exercise, which is what lets an instructor post one
exact exercise as a link. The view is :mod:`ui.exercise_view`.

API (the practice hub calls these)::

    PRACTICE_METRICS                       # "hit_rate" … "ndcg", "faithfulness"
    ex = generate("ndcg", seed)            # Exercise(kind="compute"); generate(m, s, lang="en")
    attempt = check(ex, "0.81")            # Attempt(status, value, mistake)
    attempt.status                         # "correct" | "wrong" | "not_a_number"
    attempt.mistake                        # None, a mistake id of teaching.mistakes,
                                           # "percent_not_fraction" or "wrong_unknown"
    steps(ex, lang)                        # [Step(key, values, formula)], the right working
    feedback(ex, attempt, lang)            # targeted feedback (Markdown, placeholders filled)
    mistake_values(ex)                     # {mistake id: [wrong values]} that differ here
    texts(lang)                            # teaching/mistakes.<lang>.toml
    ex = predict_exercise(seed)            # Exercise(kind="predict"): swap two ranks, up or down?
    check(ex, "up") / check(ex, "down:large") / check_prediction(ex, "same", None)

Typed answers are read with :func:`teaching.answers.parse_number`: ``0.5``, ``1/2``,
``٠٫٥`` and ``50%`` (an explicit percent sign) are all 0.5 and correct; a bare ``50`` for 0.5 is
the ``percent_not_fraction`` mistake. Two decimals are enough (``tolerance`` 0.005; 0.011 for
DCG and IDCG, whose terms are rounded along the way).

Every exercise can teach: at least one of its metric's headline mistakes (:data:`HEADLINE`)
gives a different number, and no wrong formula lands so close to the right answer that a rounded
answer could be mistaken for it (such cases are regenerated). Texts (questions, steps and the
feedback per mistake id, in Arabic and English) live in ``teaching/mistakes.{ar,en}.toml``.
"""

from __future__ import annotations

import functools
import random
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from metrics import faithfulness, graded, rank
from metrics._input import dedupe
from teaching import mistakes
from teaching.answers import parse_number
from text import i18n

__all__ = [
    "BINARY_MEASURES", "HEADLINE", "MAX_SEED", "PRACTICE_METRICS", "PREDICT_METRICS", "Attempt",
    "Exercise", "RankingExercise", "Step", "check", "check_prediction", "feedback",
    "feedback_key", "feedback_tables", "feedback_text", "feedback_values", "generate",
    "mistake_ids", "mistake_values", "predict_exercise", "ranking_exercise", "steps", "texts",
]

PRACTICE_METRICS = ("hit_rate", "precision", "recall", "f1", "rr", "mrr", "ap", "dcg", "idcg",
                    "ndcg", "faithfulness")
PREDICT_METRICS = ("ndcg", "ap", "rr", "precision")
PREDICT_DIRECTIONS = ("up", "down", "same")
PREDICT_SIZES = ("small", "large")
LARGE_CHANGE = 0.1               # |after − before| >= 0.1 is a "large" change
MAX_SEED = 10**9
BINARY = ("hit_rate", "precision", "recall", "f1", "rr")
GRADED = ("dcg", "idcg", "ndcg")
TOLERANCE = {**dict.fromkeys(PRACTICE_METRICS, 0.005), "dcg": 0.011, "idcg": 0.011}
LANGS = ("ar", "en")

# The mistakes each exercise of a metric must be able to show (at least one of them gives a
# different number from the right answer on the generated case).
HEADLINE: Mapping[str, frozenset[str]] = {
    "hit_rate": frozenset({"hit_rate_as_count", "off_by_one_k"}),
    "precision": frozenset({"precision_divided_by_retrieved", "precision_divided_by_R"}),
    "recall": frozenset({"recall_divided_by_k", "recall_divided_by_retrieved_relevant"}),
    "f1": frozenset({"f1_arithmetic_mean"}),
    "rr": frozenset({"rr_of_last_hit", "rr_not_inverted"}),
    "mrr": frozenset({"mrr_skip_misses", "mrr_inverse_mean_rank", "mrr_mean_rank"}),
    "ap": frozenset({"ap_divided_by_retrieved_relevant", "ap_not_divided"}),
    "dcg": frozenset({"exponential_gain", "discount_log2_i", "no_discount"}),
    "idcg": frozenset({"ideal_from_retrieved", "ideal_not_sorted"}),
    "ndcg": frozenset({"ideal_from_retrieved", "not_normalised"}),
    "faithfulness": frozenset({"faith_not_scored_counted", "faith_check_counted_supported"}),
}
AMBIGUOUS = 3.0    # a wrong formula within AMBIGUOUS × tolerance of the answer → regenerate


# --- the data ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Exercise:
    """One exercise. Which case fields are filled depends on ``metric``:

    * binary metrics, AP: ``ranking``, ``judgments`` (the relevant documents, grade 1 — some
      may never have been retrieved), ``k`` (AP: ``k`` = the length of the ranking);
    * DCG/IDCG/nDCG: ``ranking``, ``judgments`` (every judged document and its grade 0–3,
      retrieved or not), ``k``;
    * MRR: ``questions`` — ``(ranking, relevant documents)`` per question;
    * faithfulness: ``source`` (sentences), ``sentences`` (the answer, ``(text, intent)`` with
      intent ``supported | changed_number | negated | invented | no_claim``), ``lang``;
    * predict (``kind="predict"``): ``ranking``, ``judgments``, ``k``, ``swap`` (two 1-based
      ranks), ``before``; ``answer`` is the value after the swap.
    """

    seed: int
    metric: str
    kind: str                                   # "compute" | "predict"
    answer: float
    tolerance: float
    ranking: tuple[str, ...] = ()
    judgments: tuple[tuple[str, int], ...] = ()
    k: int = 0
    questions: tuple[tuple[tuple[str, ...], frozenset[str]], ...] = ()
    source: tuple[str, ...] = ()
    sentences: tuple[tuple[str, str], ...] = ()
    lang: str = ""
    swap: tuple[int, int] | None = None
    before: float | None = None

    @property
    def qrels(self) -> dict[str, int]:
        return dict(self.judgments)

    @property
    def relevant(self) -> frozenset[str]:
        return frozenset(d for d, g in self.judgments if g >= 1)

    @property
    def grades(self) -> tuple[int, ...]:
        """The grade of each retrieved document, in rank order (0 when not judged)."""
        judged = self.qrels
        return tuple(judged.get(d, 0) for d in self.ranking)

    @property
    def unretrieved(self) -> tuple[tuple[str, int], ...]:
        """Judged documents (grade >= 1) the system never retrieved, with their grades."""
        shown = set(self.ranking)
        return tuple((d, g) for d, g in self.judgments if d not in shown and g >= 1)

    @property
    def graded(self) -> bool:
        return self.metric in GRADED

    @property
    def answer_text(self) -> str:
        return " ".join(text for text, _ in self.sentences)

    @property
    def source_text(self) -> str:
        return " ".join(self.source)

    @property
    def direction(self) -> str | None:
        """Predict exercises: "up", "down" or "same"."""
        if self.kind != "predict" or self.before is None:
            return None
        delta = self.answer - self.before
        return "same" if abs(delta) < 1e-9 else "up" if delta > 0 else "down"

    @property
    def size(self) -> str | None:
        """Predict exercises: "small" or "large" (None when nothing changes)."""
        if self.direction in (None, "same"):
            return None
        return "large" if abs(self.answer - self.before) >= LARGE_CHANGE else "small"


@dataclass(frozen=True)
class Attempt:
    status: str                 # "correct" | "wrong" | "not_a_number"
    value: float | None         # the number read from the typed text (None for predictions)
    mistake: str | None         # the diagnosed mistake id when status == "wrong"


@dataclass(frozen=True)
class Step:
    """One line of the right working: ``key`` names its text in ``[steps]`` of the texts file,
    ``values`` fill that text's placeholders, ``formula`` is plain left-to-right arithmetic."""

    key: str
    values: Mapping[str, Any] = field(default_factory=dict)
    formula: str = ""


# --- generating ----------------------------------------------------------------------------------


def generate(metric: str, seed: int, *, lang: str = i18n.DEFAULT_LANG) -> Exercise:
    """The compute exercise of ``(metric, seed)``. ``lang`` only changes the words of a
    faithfulness exercise (the same seed gives the same case in both languages)."""
    if metric not in PRACTICE_METRICS:
        raise ValueError(f"unknown practice metric {metric!r}")
    rng = random.Random(f"{metric}-{int(seed)}")
    make = {"mrr": _mrr_case, "ap": _ap_case, "faithfulness": _faithfulness_case}.get(metric)
    if make is None:
        make = _graded_case if metric in GRADED else _binary_case
    while True:
        ex = make(rng, metric, int(seed), lang if lang in LANGS else i18n.DEFAULT_LANG)
        if ex is not None and _teaches(ex):
            return ex


def _teaches(ex: Exercise) -> bool:
    """A headline mistake gives another number, and no wrong formula is ambiguously close to
    the right answer (or to the right answer written as a percentage)."""
    values = _all_mistake_values(ex)
    tol = ex.tolerance
    if not any(any(abs(v - ex.answer) > tol for v in values.get(key, []))
               for key in HEADLINE[ex.metric]):
        return False
    percent = 100 * ex.answer            # a bare "50" for 0.5 is diagnosed as a percentage
    return all((abs(v - ex.answer) <= tol or abs(v - ex.answer) > AMBIGUOUS * tol)
               and (not ex.answer or abs(v - percent) > 100 * tol + AMBIGUOUS * tol)
               for vs in values.values() for v in vs)


def _docs(rng: random.Random, n: int) -> list[str]:
    return [f"d{x}" for x in rng.sample(range(1, 13), n)]


def _binary_case(rng: random.Random, metric: str, seed: int, lang: str) -> Exercise | None:
    length = rng.randint(3, 7)
    docs = _docs(rng, length + 2)
    ranking, spare = docs[:length], docs[length:]
    relevant = set(rng.sample(ranking, rng.randint(1, min(3, length))))
    if rng.random() < 0.35:
        relevant.add(spare[0])                 # relevant but never retrieved
    k = rng.randint(1, length + (2 if rng.random() < 0.25 else 0))
    if metric == "precision" and rng.random() < 0.3:
        k = length + rng.randint(1, 2)         # fewer returned than k: the ÷ retrieved slip
    if metric == "hit_rate" and rng.random() < 0.25:
        # a miss in the top k with a hit just below it: HitRate@k = 0 (and @k+1 would be 1)
        k = rng.randint(1, length - 1)
        relevant = {ranking[k]} | {d for d in relevant if d not in ranking[:k]}
    judgments = tuple((d, 1) for d in sorted(relevant, key=doc_order))
    answer = mistakes.MEASURES[metric](ranking, relevant, k)
    if answer == 0 and metric != "hit_rate" and rng.random() > 0.15:
        return None                            # mostly cases with something to count
    if answer == 1 and metric in ("recall", "rr") and rng.random() < 0.5:
        return None                            # fewer perfect scores
    return Exercise(seed, metric, "compute", answer, TOLERANCE[metric], tuple(ranking),
                    judgments, k)


def _ap_case(rng: random.Random, metric: str, seed: int, lang: str) -> Exercise | None:
    length = rng.randint(4, 7)
    docs = _docs(rng, length + 1)
    ranking, spare = docs[:length], docs[length]
    relevant = set(rng.sample(ranking, 1 if rng.random() < 0.2 else rng.randint(2, 3)))
    if rng.random() < 0.35:
        relevant.add(spare)
    judgments = tuple((d, 1) for d in sorted(relevant, key=doc_order))
    answer = mistakes.MEASURES["ap"](ranking, relevant, length)
    return Exercise(seed, "ap", "compute", answer, TOLERANCE["ap"], tuple(ranking), judgments,
                    length)


def _mrr_case(rng: random.Random, metric: str, seed: int, lang: str) -> Exercise | None:
    questions = []
    for _ in range(rng.randint(3, 4)):
        length = rng.randint(3, 5)
        docs = _docs(rng, length + 1)
        ranking, spare = docs[:length], docs[length]
        if rng.random() < 0.25:
            relevant = {spare}                 # the system missed it entirely
        else:
            relevant = set(rng.sample(ranking, 1 if rng.random() < 0.6 else 2))
        questions.append((tuple(ranking), frozenset(relevant)))
    found = [r for r in _first_ranks(questions) if r is not None]
    if len(found) < 2 or len(set(found)) < 2:
        return None
    answer = mistakes.MEAN_MEASURES["mrr"](_question_list(questions))
    return Exercise(seed, "mrr", "compute", answer, TOLERANCE["mrr"],
                    questions=tuple(questions))


def _graded_case(rng: random.Random, metric: str, seed: int, lang: str) -> Exercise | None:
    length = rng.randint(3, 6)
    docs = _docs(rng, length + 1)
    grades = rng.choices((0, 1, 2, 3), weights=(3, 2, 2, 2), k=length)
    judgments = list(zip(docs[:length], grades, strict=True))
    if rng.random() < (0.3 if metric == "dcg" else 0.6):
        judgments.append((docs[length], rng.choice((2, 3, 3))))   # judged, never retrieved
    k = rng.randint(2, length)
    if not any(g > 0 for g in grades[:k]):
        return None                            # DCG@k = 0: nothing to compute
    ranking = docs[:length]
    answer = mistakes.MEASURES[metric](ranking, dict(judgments), k)
    return Exercise(seed, metric, "compute", answer, TOLERANCE[metric], tuple(ranking),
                    tuple(judgments), k)


def doc_order(doc: str) -> tuple[int, str]:
    """Sort key for document ids: ``d4`` before ``d12`` (not as text)."""
    return (int(doc[1:]) if doc[1:].isdigit() else 0, doc)


def _first_ranks(questions) -> list[int | None]:
    out = []
    for ranking, relevant in questions:
        ranks = rank.relevant_ranks(list(ranking), set(relevant))
        out.append(ranks[0] if ranks else None)
    return out


def _question_list(questions) -> list[tuple[list[str], set[str]]]:
    return [(list(r), set(g)) for r, g in questions]


# --- faithfulness cases -----------------------------------------------------------------------
# Facts of a small staff handbook, each with a number drawn from its range. An answer sentence
# is built from a fact with an intent; the checker must reach the verdict the intent means
# (tests/test_exercises_generators.py checks every generated case).

INTENT_VERDICT = {"supported": "supported", "changed_number": "check", "negated": "check",
                  "invented": "unsupported", "no_claim": "not_scored"}

# Facts, invented claims and courtesy sentences in both languages: data, not code.
_CASES = tomllib.loads((Path(__file__).with_name("faithfulness_cases.toml")).read_text("utf-8"))
_FACTS: tuple[dict[str, Any], ...] = tuple(_CASES["facts"])
_INVENTED: tuple[dict[str, str], ...] = tuple(_CASES["invented"])
_NO_CLAIM: tuple[dict[str, str], ...] = tuple(_CASES["no_claim"])  # first two open an answer


def _faithfulness_case(rng: random.Random, metric: str, seed: int, lang: str) -> Exercise | None:
    n_facts = rng.randint(4, 5)
    facts = rng.sample(range(len(_FACTS)), n_facts)
    numbers = {i: rng.randint(*_FACTS[i]["range"]) for i in facts}
    used = set(numbers.values())
    plan: list[tuple[str, int]] = []            # (intent, fact or pool index)
    supported = rng.sample(facts, rng.randint(1, 3))
    plan += [("supported", i) for i in supported]
    spare = [i for i in facts if i not in supported] or facts
    wrong = rng.sample(("changed_number", "negated", "invented"), rng.randint(1, 2))
    for intent in wrong:
        if intent == "invented":
            plan.append((intent, rng.randrange(len(_INVENTED))))
        else:
            plan.append((intent, rng.choice(spare)))
    rng.shuffle(plan)
    if rng.random() < 0.5:
        opens = rng.random() < 0.4
        no_claim = ("no_claim", rng.randrange(2) if opens else rng.randrange(2, len(_NO_CLAIM)))
        plan = [no_claim, *plan] if opens else [*plan, no_claim]
    changed: dict[int, int] = {}
    for intent, i in plan:
        if intent == "changed_number":
            lo, hi = _FACTS[i]["range"]
            choices = [x for x in range(lo, hi + 1) if x not in used]
            changed[i] = rng.choice(choices)
    source = tuple(_FACTS[i][lang].format(n=numbers[i]) for i in facts)
    sentences = []
    for intent, i in plan:
        if intent == "supported":
            text = _FACTS[i][lang].format(n=numbers[i])
        elif intent == "changed_number":
            text = _FACTS[i][lang].format(n=changed[i])
        elif intent == "negated":
            text = _FACTS[i][lang + "_neg"].format(n=numbers[i])
        elif intent == "invented":
            text = _INVENTED[i][lang]
        else:
            text = _NO_CLAIM[i][lang]
        sentences.append((text, intent))
    report = faithfulness.check(" ".join(t for t, _ in sentences), list(source))
    if report.score is None:
        return None
    return Exercise(seed, "faithfulness", "compute", report.score, TOLERANCE["faithfulness"],
                    source=source, sentences=tuple(sentences), lang=lang)


@functools.lru_cache(maxsize=256)
def faithfulness_report(ex: Exercise) -> faithfulness.Report:
    """What the checker says about a faithfulness exercise's answer (cached: a page run asks
    for it several times; the report is shared, never mutate it)."""
    return faithfulness.check(ex.answer_text, list(ex.source))


# --- predict-then-reveal -------------------------------------------------------------------------


def predict_exercise(seed: int, metric: str | None = None) -> Exercise:
    """"Swap ranks i and j — will <metric>@k go up, down or stay the same, and by a lot?"

    ``metric`` is one of :data:`PREDICT_METRICS` (None: chosen by the seed). ``answer`` is the
    value after the swap, ``before`` the value now. Changes too close to the small/large line
    (0.07–0.13) are regenerated, so the size question has a clear answer."""
    rng = random.Random(f"predict-{int(seed)}")
    chosen = metric or rng.choice(PREDICT_METRICS)
    if chosen not in PREDICT_METRICS:
        raise ValueError(f"unknown predict metric {chosen!r}")
    while True:
        length = rng.randint(4, 7)
        docs = _docs(rng, length + 1)
        ranking = docs[:length]
        if chosen == "ndcg":
            grades = rng.choices((0, 1, 2, 3), weights=(3, 2, 2, 2), k=length)
            judgments = list(zip(ranking, grades, strict=True))
            if rng.random() < 0.4:
                judgments.append((docs[length], rng.choice((2, 3))))
        else:
            relevant = rng.sample(ranking, rng.randint(1, 3))
            judgments = [(d, 1) for d in sorted(relevant, key=doc_order)]
        k = length if chosen == "ap" else rng.randint(3, length)
        if k < length and rng.random() < 0.5:  # across the cut-off: in or out of the top k
            i, j = rng.randint(1, k), rng.randint(k + 1, length)
        else:
            i, j = sorted(rng.sample(range(1, length + 1), 2))
        swapped = list(ranking)
        swapped[i - 1], swapped[j - 1] = swapped[j - 1], swapped[i - 1]
        qrels = dict(judgments)
        before = mistakes.MEASURES[chosen](ranking, qrels, k)
        after = mistakes.MEASURES[chosen](swapped, qrels, k)
        delta = abs(after - before)
        if not any(g > 0 for _, g in judgments[:length]) or 0.07 <= delta <= 0.13:
            continue
        if delta < 1e-9 and rng.random() < (0.85 if chosen == "precision" else 0.6):
            continue                           # "same" now and then, not most of the time
        return Exercise(int(seed), chosen, "predict", after, TOLERANCE[chosen], tuple(ranking),
                        tuple(judgments), k, swap=(i, j), before=before)


def check_prediction(ex: Exercise, direction: str | None, size: str | None) -> Attempt:
    """A prediction: ``direction`` up/down/same and, unless "same", ``size`` small/large."""
    if direction not in PREDICT_DIRECTIONS:
        return Attempt("not_a_number", None, None)
    if direction != ex.direction:
        return Attempt("wrong", None, "predict_wrong_direction")
    if direction != "same" and size not in PREDICT_SIZES:
        return Attempt("not_a_number", None, None)
    if direction != "same" and size != ex.size:
        return Attempt("wrong", None, "predict_wrong_size")
    return Attempt("correct", None, None)


# --- checking ------------------------------------------------------------------------------------


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
        return mistakes.diagnose_mean("mrr", _question_list(ex.questions), value, tol)
    if ex.metric == "faithfulness":
        return mistakes.diagnose_faithfulness(faithfulness_report(ex), value, tol)
    return mistakes.diagnose(ex.metric, list(ex.ranking), _qrels_for(ex), ex.k, value, tol)


def _qrels_for(ex: Exercise):
    return ex.qrels if ex.graded else set(ex.relevant)


def mistake_ids(metric: str) -> tuple[str, ...]:
    """Every wrong formula the checker knows for ``metric`` (catalogue order)."""
    if metric == "mrr":
        return tuple(mistakes.MEAN_MISTAKES["mrr"])
    if metric == "faithfulness":
        return tuple(mistakes.FAITHFULNESS_MISTAKES)
    return tuple(mistakes.MISTAKES[metric])


def _all_mistake_values(ex: Exercise) -> dict[str, list[float]]:
    if ex.metric == "mrr":
        qs = _question_list(ex.questions)
        table: Mapping[str, Callable] = mistakes.MEAN_MISTAKES["mrr"]
        return {key: list(mistakes._values(f(qs))) for key, f in table.items()}
    if ex.metric == "faithfulness":
        verdicts = [s.verdict for s in faithfulness_report(ex).sentences]
        return {key: list(mistakes._values(f(verdicts)))
                for key, f in mistakes.FAITHFULNESS_MISTAKES.items()}
    ranking, qrels = list(ex.ranking), _qrels_for(ex)
    return {key: list(mistakes._values(f(ranking, qrels, ex.k)))
            for key, f in mistakes.MISTAKES[ex.metric].items()}


def mistake_values(ex: Exercise) -> dict[str, list[float]]:
    """The wrong formulas that give a different number here: ``{mistake id: [values]}``."""
    out = {}
    for key, values in _all_mistake_values(ex).items():
        differing = [v for v in values if abs(v - ex.answer) > ex.tolerance]
        if differing:
            out[key] = differing
    return out


# --- the right working, and the values the texts quote ------------------------------------------


def _n(x: float, places: int = 4) -> str:
    """A number in a formula: 0.6667, 2, 0.5 (plain digits, left to right)."""
    return i18n.fmt_num(round(float(x), places) if not float(x).is_integer() else int(x),
                        digits="latn")


def _ratio_formula(name: str, top: int, bottom: int, value: float) -> str:
    return f"{name} = {top} / {bottom} = {_n(value)}"


def _listed(items, lang: str) -> i18n.Markup:
    """Items joined by the language's list separator ("—" for none)."""
    return i18n.Markup(i18n.list_separator(lang).join(items) or "—")


def _codes(ids, lang: str) -> i18n.Markup:
    return _listed((f"`{i}`" for i in ids), lang)


def _dcg_formula(name: str, grades: Sequence[int], k: int) -> str:
    cut = list(grades)[:k]
    terms = [f"{g}/log2({i + 1})" for i, g in enumerate(cut, start=1)]
    parts = [_n(graded.gain_of(g) * graded.discount(i)) for i, g in enumerate(cut, start=1)]
    total = graded.dcg_of_grades(cut, None)
    return f"{name}@{k} = " + " + ".join(terms) + " = " + " + ".join(parts) + f" = {_n(total)}"


def feedback_values(ex: Exercise, lang: str | None = None) -> dict[str, Any]:
    """Every value the question, step and feedback texts of ``ex`` quote (for ``fill``);
    ``lang`` (default: the page's) picks the list separator."""
    lang = lang if lang in LANGS else i18n.current_lang()
    values: dict[str, Any] = {"answer": round(ex.answer, 4), "k": ex.k}
    if ex.kind == "predict":
        return values | _predict_values(ex)
    if ex.metric in BINARY:
        return values | _binary_values(ex, lang)
    if ex.metric == "ap":
        return values | _ap_values(ex, lang)
    if ex.metric == "mrr":
        return values | _mrr_values(ex, lang)
    if ex.metric in GRADED:
        return values | _graded_values(ex, lang)
    return values | _faithfulness_values(ex)


def _binary_values(ex: Exercise, lang: str) -> dict[str, Any]:
    ranking, relevant, k = list(ex.ranking), set(ex.relevant), ex.k
    f = mistakes.facts(ranking, relevant, k)
    hit_docs = [d for d in dedupe(ranking)[:k] if d in relevant]
    return {"hits": f.hits, "R": f.R, "retrieved": f.retrieved,
            "first_rank": f.first_rank or 0, "last_rank": f.last_rank or 0,
            "hit_docs": _codes(hit_docs, lang),
            "relevant_docs": _codes(sorted(relevant, key=doc_order), lang),
            "depth": min(k, f.retrieved),
            "precision": round(mistakes.MEASURES["precision"](ranking, relevant, k), 4),
            "recall": round(mistakes.MEASURES["recall"](ranking, relevant, k), 4)}


def _ap_values(ex: Exercise, lang: str) -> dict[str, Any]:
    ranking, relevant = list(ex.ranking), set(ex.relevant)
    ranks = rank.relevant_ranks(ranking, relevant, ex.k)
    terms = [f"{hit}/{r}" for hit, r in enumerate(ranks, start=1)]
    total = sum(hit / r for hit, r in enumerate(ranks, start=1))
    return {"R": len(relevant), "retrieved": len(ranks),
            "ranks": _listed(map(str, ranks), lang), "terms": _listed(terms, lang),
            "sum": i18n.Markup(f"({' + '.join(terms) or '0'})"), "total": round(total, 4)}


def _mrr_values(ex: Exercise, lang: str) -> dict[str, Any]:
    firsts = _first_ranks(ex.questions)
    rrs = [f"1/{r}" if r else "0" for r in firsts]
    return {"n": len(firsts), "ranks": _listed((str(r) if r else "—" for r in firsts), lang),
            "rrs": _listed(rrs, lang), "sum": i18n.Markup(" + ".join(rrs)),
            "missed": sum(r is None for r in firsts)}


def _graded_values(ex: Exercise, lang: str) -> dict[str, Any]:
    order, qrels, k = list(ex.ranking), ex.qrels, ex.k
    ideal = graded.ideal_grades(order, qrels, "judged")[:k]
    ideal_ret = graded.ideal_grades(order, qrels, "retrieved")[:k]
    dcg, idcg = graded.dcg(order, qrels, k), graded.idcg(order, qrels, k)
    ndcg = graded.ndcg(order, qrels, k)
    missing = [f"`{d}` ({g})" for d, g in ex.unretrieved]
    return {
        "dcg": round(dcg, 4), "idcg": round(idcg, 4), "ndcg": round(ndcg, 4),
        "idcg_retrieved": round(graded.idcg(order, qrels, k, ideal="retrieved"), 4),
        "dcg_terms": i18n.Markup(f"`{_dcg_formula('DCG', ex.grades, k)}`"),
        "idcg_terms": i18n.Markup(f"`{_dcg_formula('IDCG', ideal, k)}`"),
        "ndcg_terms": i18n.Markup(f"`nDCG@{k} = {_n(dcg)} / {_n(idcg)} = {_n(ndcg)}`"),
        "ideal": i18n.Markup(f"`{list(ideal)}`"),
        "ideal_retrieved": i18n.Markup(f"`{list(ideal_ret)}`"),
        "missing": _listed(missing, lang),
    }


def _faithfulness_values(ex: Exercise) -> dict[str, Any]:
    verdicts = [s.verdict for s in faithfulness_report(ex).sentences]
    count = {v: verdicts.count(v) for v in ("supported", "check", "unsupported", "not_scored")}
    return {"supported": count["supported"], "check": count["check"],
            "unsupported": count["unsupported"], "not_scored": count["not_scored"],
            "scored": len(verdicts) - count["not_scored"], "total": len(verdicts)}


def _predict_values(ex: Exercise) -> dict[str, Any]:
    i, j = ex.swap or (0, 0)
    name = {"ndcg": "nDCG", "ap": "AP", "rr": "RR", "precision": "P"}[ex.metric]
    return {"i": i, "j": j, "name": i18n.Markup(f"{name}@{ex.k}" if ex.metric != "ap"
                                                else name),
            "before": round(ex.before or 0.0, 4), "after": round(ex.answer, 4),
            "delta": round(abs(ex.answer - (ex.before or 0.0)), 4)}


def steps(ex: Exercise, lang: str | None = None) -> list[Step]:
    """The right working, step by step. Each step's text is ``[steps].<key>`` in the texts file
    (filled with ``step.values``); ``step.formula`` is the arithmetic, the same in any language."""
    v = feedback_values(ex, lang)
    if ex.kind == "predict":
        return _predict_steps(ex, v)
    if ex.metric in BINARY:
        return _binary_steps(ex, v)
    if ex.metric == "ap":
        return [Step("ap_ranks", v),
                Step("ap_terms", v, ", ".join(
                    f"P@{r} = {hit}/{r}" for hit, r in enumerate(rank.relevant_ranks(
                        list(ex.ranking), set(ex.relevant), ex.k), start=1))),
                Step("ap_divide", v, f"AP = {v['sum']} / {v['R']} = {_n(ex.answer)}")]
    if ex.metric == "mrr":
        rows = [f"q{n}: RR = " + (f"1/{r}" if r else "0")
                for n, r in enumerate(_first_ranks(ex.questions), start=1)]
        return [Step("mrr_first_ranks", v, "; ".join(rows)),
                Step("mrr_mean", v, f"MRR = ({v['sum']}) / {v['n']} = {_n(ex.answer)}")]
    if ex.metric in GRADED:
        out = []
        if ex.metric in ("dcg", "ndcg"):
            out.append(Step("dcg_sum", v, str(v["dcg_terms"]).strip("`")))
        if ex.metric in ("idcg", "ndcg"):
            out.append(Step("ideal_order", v))
            out.append(Step("idcg_sum", v, str(v["idcg_terms"]).strip("`")))
        if ex.metric == "ndcg":
            out.append(Step("ndcg_divide", v, str(v["ndcg_terms"]).strip("`")))
        return out
    report = faithfulness_report(ex)
    out = [Step("faith_sentence_" + s.verdict, {**v, "number": n, "sentence": s.text})
           for n, s in enumerate(report.sentences, start=1)]
    out.append(Step("faith_share", v, f"{v['supported']} / {v['scored']} = {_n(ex.answer)}"))
    return out


def _binary_steps(ex: Exercise, v: dict[str, Any]) -> list[Step]:
    k, m = ex.k, ex.metric
    count = Step("count_hits", v)
    if m == "hit_rate":
        return [count, Step("hit_rate_rule", v,
                            f"HitRate@{k} = {1 if v['hits'] else 0}")]
    if m == "precision":
        return [count, Step("precision_divide", v,
                            _ratio_formula(f"P@{k}", v["hits"], k, ex.answer))]
    recall = Step("recall_divide", v, _ratio_formula(f"R@{k}", v["hits"], v["R"], v["recall"]))
    if m == "recall":
        return [count, Step("count_R", v), recall]
    if m == "f1":
        return [count, Step("count_R", v),
                Step("precision_divide", v, _ratio_formula(f"P@{k}", v["hits"], k,
                                                           v["precision"])),
                recall,
                Step("f1_harmonic", v, f"F1@{k} = 2 × {v['hits']} / ({k} + {v['R']}) = "
                     f"{_n(ex.answer)}")]
    if v["first_rank"]:
        return [Step("rr_first_hit", v), Step("rr_invert", v,
                                              f"RR@{k} = 1 / {v['first_rank']} = "
                                              f"{_n(ex.answer)}")]
    return [Step("rr_no_hit", v, f"RR@{k} = 0")]


def _predict_steps(ex: Exercise, v: dict[str, Any]) -> list[Step]:
    i, j = ex.swap or (0, 0)
    after = list(ex.ranking)
    after[i - 1], after[j - 1] = after[j - 1], after[i - 1]
    name = str(v["name"])
    return [Step("predict_before", v, f"{name} = {_n(ex.before or 0.0)}  ({' '.join(ex.ranking)})"),
            Step("predict_after", v, f"{name} = {_n(ex.answer)}  ({' '.join(after)})"),
            Step("predict_" + (ex.direction or "same"), v)]


# --- texts ---------------------------------------------------------------------------------------


def texts(lang: str | None = None) -> dict[str, Any]:
    """The parsed ``teaching/mistakes.<lang>.toml`` (cached; never mutate it)."""
    lang = lang if lang in LANGS else i18n.current_lang()
    return i18n.read_toml(Path(__file__).with_name(f"mistakes.{lang}.toml"))


def feedback_key(ex: Exercise, attempt: Attempt) -> str:
    """The feedback text to show: ``correct``, ``not_a_number`` or the mistake id."""
    if attempt.status == "correct":
        return "correct"
    if attempt.status == "not_a_number":
        return "not_a_number"
    return attempt.mistake or "wrong_unknown"


def feedback_tables(metric: str, kind: str = "compute") -> tuple[str, ...]:
    """Where a feedback text is looked up, first match wins: ``[feedback.<metric>]``, then its
    group (``binary`` or ``graded``), then ``any``; predict exercises: ``predict``, ``any``."""
    if kind == "predict":
        return ("predict", "any")
    group = "binary" if metric in BINARY else "graded" if metric in GRADED else None
    return tuple(t for t in (metric, group, "any") if t)


def feedback_text(ex: Exercise, key: str, lang: str | None = None) -> str:
    """The raw text of feedback ``key`` for ``ex`` (see :func:`feedback_tables`)."""
    table = texts(lang).get("feedback", {})
    for name in (*feedback_tables(ex.metric, ex.kind), "any"):
        text = table.get(name, {}).get(key)
        if text:
            return text
    return table["any"]["wrong_unknown"]


def feedback(ex: Exercise, attempt: Attempt, lang: str | None = None) -> str:
    """The targeted feedback for ``attempt``: names the mistake and shows the right step with
    this case's numbers (Markdown with placeholders filled; render with ``layout.markdown``)."""
    return i18n.fill(feedback_text(ex, feedback_key(ex, attempt), lang),
                     feedback_values(ex, lang))


# --- lesson 2's exercise (lessons/recall_precision uses it; kept as it was) ---------------------

BINARY_MEASURES = ("recall", "precision", "hit_rate", "f1", "rr")


@dataclass(frozen=True)
class RankingExercise:
    seed: int
    measure: str              # a key of teaching.mistakes.MEASURES
    ranking: tuple[str, ...]
    relevant: frozenset[str]  # may hold documents the system never retrieved
    k: int

    @property
    def answer(self) -> float:
        return mistakes.MEASURES[self.measure](list(self.ranking), set(self.relevant), self.k)

    @property
    def unretrieved(self) -> list[str]:
        return sorted(set(self.relevant) - set(self.ranking), key=doc_order)

    def facts(self) -> mistakes.Facts:
        return mistakes.facts(list(self.ranking), set(self.relevant), self.k)

    def check(self, answer: float, tolerance: float = 0.005) -> str:
        return mistakes.diagnose(self.measure, list(self.ranking), set(self.relevant), self.k,
                                 answer, tolerance)


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
