"""The live classroom's plain functions: lesson scenarios, the questions built from them, and
what the projector draws. No Streamlit here; numbers come from ``metrics`` (the right value
and, for wrong options, ``teaching.mistakes``); storage is ``live.service``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from live.service import QuestionSpec, Tally
from teaching import exercises, measures, mistakes, scenarios
from teaching.exercises import Exercise
from ui import charts
from ui.charts import PALETTE

MEASURES = ("recall", "precision", "rr", "ap", "ndcg")   # the verdicts "which is better?" names
# every measure a live question can ask about (the measures of one ranking)
QUESTION_MEASURES = measures.keys("binary", "ap", "graded")
TEMPLATES = ("value_numeric", "value_choice", "predict_swap", "better")
MAX_CHOICES = 4
CHOICE_DECIMALS = 2


@dataclass(frozen=True)
class Scenario:
    """A ranking with its judgments (``qrels``: id → grade; grade ≥ 1 is relevant, judged
    documents that were never retrieved included), the cutoff, and for "which system is
    better?" a second system's ranking."""

    key: str
    ranking: tuple[str, ...]
    qrels: Mapping[str, int]
    k: int
    other: tuple[str, ...] = ()

    def as_dict(self) -> dict:
        out = {"ranking": list(self.ranking), "qrels": dict(self.qrels), "k": self.k}
        if self.other:
            out["other"] = list(self.other)
        return out

    @classmethod
    def of(cls, key: str, seed: scenarios.Ranked) -> Scenario:
        return cls(key, seed.ranking, dict(seed.qrels), seed.k, seed.other)


# The lessons' worked examples (teaching.scenarios): the same numbers the class has seen.
SCENARIOS: Mapping[str, Scenario] = {
    "binary": Scenario.of("binary", scenarios.RECALL_PRECISION),       # lesson 2
    "graded": Scenario.of("graded", scenarios.NDCG_JUDGED),            # lesson 5, the pitfall
    "two_systems": Scenario.of("two_systems", scenarios.TWO_SYSTEMS),
}
# the lesson each scenario comes from (its number is the catalogue's)
SCENARIO_LESSONS = {"binary": "recall_precision", "graded": "ndcg"}


def exercise_scenario(ex: Exercise) -> Scenario:
    """A generated exercise as a live question's scenario: the same measure and seed give the
    same case as in a lesson, in /practice and behind a shared link (``teaching.exercises``)."""
    if ex.kind != "compute" or not ex.ranking:
        raise ValueError("only an exercise on one ranking can be a live question")
    return Scenario("exercise", ex.ranking, dict(ex.judgments), ex.k)


def exercise_question(measure: str, seed: int) -> QuestionSpec:
    """"What is <measure>@k?" on the exercise of ``(measure, seed)``."""
    return value_numeric(exercise_scenario(exercises.generate(measure, seed)), measure)


def value(measure: str, ranking: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    return float(mistakes.MEASURES[measure](list(ranking), dict(qrels), k))


def measure_name(measure: str, k: int | str) -> str:
    """``recall@3``: the measure's name from ``teaching.measures``."""
    return measures.name(measure, k)


def fmt(x: float, decimals: int = CHOICE_DECIMALS) -> str:
    text = f"{x:.{decimals}f}"
    return "0.00"[: decimals + 2] if text.startswith("-0") and float(text) == 0 else text


def swapped(ranking: Sequence[str], i: int, j: int) -> tuple[str, ...]:
    """The ranking with ranks ``i`` and ``j`` (1-based) exchanged."""
    out = list(ranking)
    out[i - 1], out[j - 1] = out[j - 1], out[i - 1]
    return tuple(out)


# --- questions ----------------------------------------------------------------------------------


def value_numeric(sc: Scenario, measure: str) -> QuestionSpec:
    """"What is <measure>@k?": a typed number; wrong numbers are diagnosed in the tally."""
    right = value(measure, sc.ranking, sc.qrels, sc.k)
    return QuestionSpec("numeric", "value_numeric", f"{right:.4f}", scenario=sc.as_dict(),
                        measure=measure, tolerance=measures.MEASURES[measure].tolerance)


def value_choice(sc: Scenario, measure: str) -> QuestionSpec:
    """The same question as a multiple choice: the right value and the values the known wrong
    formulas give on this case (each option carries its mistake key)."""
    right = fmt(value(measure, sc.ranking, sc.qrels, sc.k))
    options: dict[str, str | None] = {right: None}
    for key, wrong in mistakes.MISTAKES[measure].items():
        result = wrong(list(sc.ranking), dict(sc.qrels), sc.k)
        for number in result if isinstance(result, list) else [result]:
            if number is None or len(options) >= MAX_CHOICES:
                continue
            options.setdefault(fmt(number), key)
    for other in MEASURES:  # too few known slips on this case: the other metrics' values
        if len(options) >= MAX_CHOICES - 1:
            break
        if other != measure and (other != "ndcg" or max(sc.qrels.values(), default=0) > 1):
            options.setdefault(fmt(value(other, sc.ranking, sc.qrels, sc.k)),
                               mistakes.judged_by(other))
    ordered = sorted(options, key=float)
    return QuestionSpec("choice", "value_choice", right, scenario=sc.as_dict(), measure=measure,
                        options=[{"value": v, "mistake": options[v]} for v in ordered])


def swap_effect(sc: Scenario, measure: str, i: int, j: int) -> str:
    before = value(measure, sc.ranking, sc.qrels, sc.k)
    after = value(measure, swapped(sc.ranking, i, j), sc.qrels, sc.k)
    if abs(after - before) < 1e-9:
        return "same"
    return "up" if after > before else "down"


def predict_swap(sc: Scenario, measure: str, i: int, j: int) -> QuestionSpec:
    """"After swapping ranks i and j, <measure>@k will go up / go down / stay the same"."""
    if not (1 <= i < j <= len(sc.ranking)):
        raise ValueError("ranks out of range")
    right = swap_effect(sc, measure, i, j)
    same_grade = sc.qrels.get(sc.ranking[i - 1], 0) == sc.qrels.get(sc.ranking[j - 1], 0)
    options = [{"value": v, "mistake": None if v == right
                else mistakes.swap_mistake(right, v, i, j, sc.k, same_grade)}
               for v in ("up", "same", "down")]
    return QuestionSpec("choice", "predict_swap", right, measure=measure, options=options,
                        scenario={**sc.as_dict(), "swap": [i, j]})


def better(sc: Scenario, measure: str) -> QuestionSpec:
    """"Which system is better by <measure>@k, A or B?" A wrong pick is named by the measure
    that would have given it (judged by hits, by the first hit…)."""
    if not sc.other:
        raise ValueError("scenario has one system")

    def verdict(m: str) -> str:
        a = value(m, sc.ranking, sc.qrels, sc.k)
        b = value(m, sc.other, sc.qrels, sc.k)
        return "tie" if abs(a - b) < 1e-9 else ("A" if a > b else "B")

    verdicts = {m: verdict(m) for m in MEASURES}
    right = verdict(measure)
    options = [{"value": v, "mistake": None if v == right
                else mistakes.better_mistake(verdicts, measure, v)} for v in ("A", "B", "tie")]
    return QuestionSpec("choice", "better", right, measure=measure, options=options,
                        scenario=sc.as_dict())


def build(template: str, sc: Scenario, measure: str, swap: tuple[int, int] = (2, 5)
          ) -> QuestionSpec:
    if template == "value_numeric":
        return value_numeric(sc, measure)
    if template == "value_choice":
        return value_choice(sc, measure)
    if template == "predict_swap":
        return predict_swap(sc, measure, *swap)
    if template == "better":
        return better(sc, measure)
    raise ValueError(f"unknown template {template!r}")


# --- what the screens show ----------------------------------------------------------------------


def ranking_rows(ranking: Sequence[str], qrels: Mapping[str, int], k: int) -> list[dict]:
    """One row per rank: id, grade (0 = not relevant) and whether it is inside the top k."""
    return [{"rank": i, "id": d, "grade": int(qrels.get(d, 0)), "in_k": i <= k}
            for i, d in enumerate(ranking, start=1)]


def unretrieved(ranking: Sequence[str], qrels: Mapping[str, int]) -> list[str]:
    """Judged relevant documents the system never returned (they count for recall and IDCG)."""
    return [d for d, _ in unretrieved_graded(ranking, qrels)]


def unretrieved_graded(ranking: Sequence[str], qrels: Mapping[str, int]) -> list[tuple[str, int]]:
    """The same documents with their grades."""
    seen = set(ranking)
    return [(d, g) for d, g in qrels.items() if g >= 1 and d not in seen]


def share_of_correct(t: Tally) -> float:
    return t.n_correct / t.answered if t.answered else 0.0


def distribution_chart(t: Tally, words: Mapping[str, str], *, revealed: bool,
                       option_labels: Mapping[str, str] | None = None) -> dict:
    """Bars of the answers (Vega-Lite dict: no Altair spec building on every poll). The right
    answer is coloured only after the reveal, so the chart does not give it away."""
    option_labels = option_labels or {}
    rows = [{"answer": option_labels.get(label, label), "count": n,
             "status": "correct" if revealed and label == t.correct else "other"}
            for label, n in t.distribution]
    order = [r["answer"] for r in rows]
    return charts.spec(  # the one chart module: palette, description, accessibility settings
        260,
        data={"values": rows},
        layer=[
            {"mark": {"type": "bar", "cornerRadiusEnd": 3},
             "encoding": {
                 "color": {"field": "status", "type": "nominal", "legend": None,
                           "scale": {"domain": ["correct", "other"],
                                     "range": [PALETTE["good"], PALETTE["neutral"]]}},
                 "tooltip": [{"field": "answer", "title": words["answer"]},
                             {"field": "count", "title": words["count"]}]}},
            {"mark": {"type": "text", "dy": -8, "fontSize": 14},
             "encoding": {"text": {"field": "count", "type": "quantitative"}}},
        ],
        encoding={
            "x": {"field": "answer", "type": "nominal", "sort": order,
                  "title": words["answer"], "axis": {"labelAngle": 0, "labelFontSize": 14}},
            "y": {"field": "count", "type": "quantitative", "title": words["count"],
                  "axis": {"tickMinStep": 1}},
        },
    )
