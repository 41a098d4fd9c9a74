"""The exercise model and how each family's case is drawn from a seed. Pure Python.

One :class:`Exercise` holds any generated exercise; a generator per measure family (binary
measures, AP, MRR, DCG/IDCG/nDCG, faithfulness, and the predict-then-reveal swaps) draws its
case from a ``random.Random`` it is given. :mod:`teaching.exercises` owns the seed scheme and
the rule for a case worth teaching; nothing else draws exercises.
"""

from __future__ import annotations

import functools
import random
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from metrics import faithfulness, rank
from teaching import measures, mistakes
from text import i18n

__all__ = ["CASES", "INTENT_VERDICT", "LARGE_CHANGE", "PREDICT_METRICS", "Attempt", "Exercise",
           "Step", "doc_order", "faithfulness_report", "first_ranks", "predict_case",
           "question_list"]

GRADED = measures.keys("graded")
PREDICT_METRICS = ("ndcg", "ap", "rr", "precision")
LARGE_CHANGE = 0.1               # |after − before| >= 0.1 is a "large" change


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


# --- one generator per family -------------------------------------------------------------


def _tolerance(metric: str) -> float:
    return measures.MEASURES[metric].tolerance


def _docs(rng: random.Random, n: int) -> list[str]:
    return [f"d{x}" for x in rng.sample(range(1, 13), n)]


def _binary_case(rng: random.Random, metric: str, seed: int, lang: str) -> Exercise | None:
    length = rng.randint(3, 7)
    docs = _docs(rng, length + 2)
    ranking, spare = docs[:length], docs[length:]
    relevant = set(rng.sample(ranking, rng.randint(1, min(3, length))))
    if rng.random() < 0.35:
        relevant.add(spare[0])                 # relevant but never retrieved
    # k >= 2: "ranks 1 to 1", "fewer than 1 document" are no sentences a teacher writes
    k = rng.randint(2, length + (2 if rng.random() < 0.25 else 0))
    if metric == "precision" and rng.random() < 0.3:
        k = length + rng.randint(1, 2)         # fewer returned than k: the ÷ retrieved slip
    if metric == "hit_rate" and rng.random() < 0.25:
        # a miss in the top k with a hit just below it: HitRate@k = 0 (and @k+1 would be 1)
        k = rng.randint(2, length - 1)
        relevant = {ranking[k]} | {d for d in relevant if d not in ranking[:k]}
    judgments = tuple((d, 1) for d in sorted(relevant, key=doc_order))
    answer = mistakes.MEASURES[metric](ranking, relevant, k)
    if answer == 0 and metric != "hit_rate" and rng.random() > 0.15:
        return None                            # mostly cases with something to count
    if answer == 1 and metric in ("recall", "rr") and rng.random() < 0.5:
        return None                            # fewer perfect scores
    return Exercise(seed, metric, "compute", answer, _tolerance(metric), tuple(ranking),
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
    return Exercise(seed, "ap", "compute", answer, _tolerance("ap"), tuple(ranking), judgments,
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
    found = [r for r in first_ranks(questions) if r is not None]
    if len(found) < 2 or len(set(found)) < 2:
        return None
    answer = mistakes.MEAN_MEASURES["mrr"](question_list(questions))
    return Exercise(seed, "mrr", "compute", answer, _tolerance("mrr"),
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
    return Exercise(seed, metric, "compute", answer, _tolerance(metric), tuple(ranking),
                    tuple(judgments), k)


def doc_order(doc: str) -> tuple[int, str]:
    """Sort key for document ids: ``d4`` before ``d12`` (not as text)."""
    return (int(doc[1:]) if doc[1:].isdigit() else 0, doc)


def first_ranks(questions) -> list[int | None]:
    out = []
    for ranking, relevant in questions:
        ranks = rank.relevant_ranks(list(ranking), set(relevant))
        out.append(ranks[0] if ranks else None)
    return out


def question_list(questions) -> list[tuple[list[str], set[str]]]:
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


def fact_sentence(fact: Mapping[str, Any], key: str, n: int) -> str:
    """A fact's sentence (``key``: ``ar``, ``en``, ``ar_neg``, ``en_neg``) with the number ``n``.
    A template writes ``{{n|noun}}`` where the noun must agree with the number: «603 دولارات»،
    «615 دولارًا»، «700 دولار» (text.plural, CLDR via Babel)."""
    return i18n.fill(fact[key], {"n": n})


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
    source = tuple(fact_sentence(_FACTS[i], lang, numbers[i]) for i in facts)
    sentences = []
    for intent, i in plan:
        if intent == "supported":
            text = fact_sentence(_FACTS[i], lang, numbers[i])
        elif intent == "changed_number":
            text = fact_sentence(_FACTS[i], lang, changed[i])
        elif intent == "negated":
            text = fact_sentence(_FACTS[i], lang + "_neg", numbers[i])
        elif intent == "invented":
            text = _INVENTED[i][lang]
        else:
            text = _NO_CLAIM[i][lang]
        sentences.append((text, intent))
    report = faithfulness.check(" ".join(t for t, _ in sentences), list(source))
    if report.score is None:
        return None
    return Exercise(seed, "faithfulness", "compute", report.score, _tolerance("faithfulness"),
                    source=source, sentences=tuple(sentences), lang=lang)


@functools.lru_cache(maxsize=256)
def faithfulness_report(ex: Exercise) -> faithfulness.Report:
    """What the checker says about a faithfulness exercise's answer (cached: a page run asks
    for it several times; the report is shared, never mutate it)."""
    return faithfulness.check(ex.answer_text, list(ex.source))


# --- predict-then-reveal -------------------------------------------------------------------------


def predict_case(rng: random.Random, chosen: str, seed: int) -> Exercise:
    """"Swap ranks i and j — will <chosen>@k go up, down or stay the same, and by a lot?"
    ``answer`` is the value after the swap, ``before`` the value now. Changes too close to the
    small/large line (0.07–0.13) are drawn again, so the size question has a clear answer."""
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
        return Exercise(seed, chosen, "predict", after, _tolerance(chosen),
                        tuple(ranking), tuple(judgments), k, swap=(i, j), before=before)


# family -> the generator of one case (None: draw again)
CASES = {"binary": _binary_case, "ap": _ap_case, "mrr": _mrr_case, "graded": _graded_case,
         "faithfulness": _faithfulness_case}
