"""Lesson 3's plain functions: five questions, two systems, MRR, AP and a fair comparison.

No Streamlit here: the page calls these and the tests call them directly. Every number comes from
``metrics`` (one-ranking measures for the per-question values, ``metrics.compare`` for the deltas,
wins/ties/losses and the paired tests); this module only arranges the results for display. The
only arithmetic of its own is the plain mean of per-question values for the summary cards, which
the tests check against ``metrics.evaluate``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import metrics
from lessons.mrr import link
from metrics.binary import num_relevant
from metrics.rank import AP_NORMS, relevant_ranks
from teaching import measures, mistakes
from ui import charts
from ui.charts import PALETTE

SYSTEMS = link.SYSTEMS
QUESTIONS = link.QUESTIONS
POOL = link.POOL                         # the documents a ranking can hold
SEED_GOLDEN = link.SEED.golden           # the seed's five questions, two systems
SEED_RUNS = link.SEED.runs
SEED_K = link.SEED.k
COMPARE_ON = link.COMPARE_ON             # the measure the per-question comparison uses
MEAN_ORDER = ("recall", "rr", "ap")      # recall@k, MRR, MAP@k: the seed's order
NORMS = AP_NORMS                         # ("R", "retrieved", "min_k_R")
EXERCISES = ("ap", "mrr")                # "try it yourself" draws one of these
#: which key of ``metrics.REGISTRY["AP"].conventions`` describes each AP normaliser
NORM_CONVENTION = {"R": "trec_eval", "retrieved": "retrieved", "min_k_R": "min_k_R"}

Ranking = link.Ranking
Runs = link.Runs             # one ranking (or golden set) per question, in QUESTIONS order
encode_runs, parse_runs = link.encode_runs, link.parse_runs


# --- the scenario and its URL encoding -------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    """What the learner can change: the golden sets, both systems' rankings, k, AP's
    normaliser and the measure the comparison uses."""

    golden: Runs = SEED_GOLDEN
    vector: Runs = SEED_RUNS["vector"]
    hybrid: Runs = SEED_RUNS["hybrid"]
    k: int = SEED_K
    norm: str = "R"
    on: str = "rr"

    def run(self, system: str) -> Runs:
        return self.vector if system == "vector" else self.hybrid

    @property
    def questions(self) -> tuple[str, ...]:
        """The questions' names: the lesson's five, or q1 alone (a question of the reader's
        own, opened from the lab: ``link.Labels``)."""
        return QUESTIONS[:len(self.golden)]

    def question(self, q: str) -> int:
        return self.questions.index(q)


def replace(runs: Runs, index: int, ranking: Sequence[str]) -> Runs:
    """``runs`` with the ranking of question ``index`` replaced."""
    return tuple(tuple(ranking) if i == index else r for i, r in enumerate(runs))


def golden_set(docs: Sequence[str]) -> Ranking:
    """A golden set in its canonical (sorted) order."""
    return tuple(sorted(dict.fromkeys(docs), key=lambda d: int(d[1:])))


def edit_returned(ranking: Ranking, chosen: Sequence[str]) -> Ranking:
    """The documents a system returns, after the learner added or removed some: the ones kept
    stay in their order, new ones go to the end."""
    kept = [d for d in ranking if d in chosen]
    return tuple(kept + [d for d in dict.fromkeys(chosen) if d not in kept])


# --- measures --------------------------------------------------------------------------------


def value(measure: str, ranking: Sequence[str], golden: Sequence[str], k: int,
          norm: str = "R") -> float:
    """One question's value of ``measure`` ("rr", "recall" or "ap"), cut at k: RR@k, recall@k,
    AP@k (the model reads only the top k)."""
    ranking, relevant = list(ranking), set(golden)
    if measure == "rr":
        return metrics.reciprocal_rank(ranking, relevant, k)
    if measure == "recall":
        return metrics.recall(ranking, relevant, k)
    if measure == "ap":
        return metrics.average_precision(ranking, relevant, k, norm)
    raise ValueError(measure)


def measure_spec(measure: str, k: int, norm: str = "R") -> str:
    """The ``metrics`` measure string: ``RR@3``, ``R@3``, ``AP@3``, ``AP(norm=retrieved)@3``."""
    if measure == "rr":
        return f"RR@{k}"
    if measure == "recall":
        return f"R@{k}"
    return f"AP@{k}" if norm == "R" else f"AP(norm={norm})@{k}"


def measure_label(measure: str, k: int) -> str:
    """How the page names one question's value: ``RR@3``, ``recall@3``, ``AP@3``."""
    return measures.name(measure, k)


def mean_label(measure: str, k: int) -> str:
    """How the page names the mean over questions: ``MRR@3``, ``recall@3``, ``MAP@3``."""
    return measures.name(measure, k, mean=True)


@dataclass(frozen=True)
class QuestionRow:
    question: str
    golden: Ranking
    rankings: Mapping[str, Ranking]           # system -> ranking
    values: Mapping[tuple[str, str], float]   # (system, measure) -> value


def question_rows(s: Scenario) -> list[QuestionRow]:
    rows = []
    for i, q in enumerate(s.questions):
        rankings = {system: s.run(system)[i] for system in SYSTEMS}
        values = {(system, m): value(m, rankings[system], s.golden[i], s.k, s.norm)
                  for system in SYSTEMS for m in COMPARE_ON}
        rows.append(QuestionRow(q, s.golden[i], rankings, values))
    return rows


def means(s: Scenario, rows: Sequence[QuestionRow] | None = None) -> dict[str, dict[str, float]]:
    """``{system: {measure: mean over the five questions}}``: recall@k, MRR and MAP@k."""
    rows = question_rows(s) if rows is None else rows
    return {system: {m: sum(r.values[system, m] for r in rows) / len(rows) for m in COMPARE_ON}
            for system in SYSTEMS}


def qrels_of(golden: Runs) -> dict[str, dict[str, int]]:
    return {q: dict.fromkeys(g, 1) for q, g in zip(QUESTIONS, golden, strict=True)}


def run_of(runs: Runs, questions: Sequence[str] = QUESTIONS) -> dict[str, list[str]]:
    return {q: list(r) for q, r in zip(questions, runs, strict=True)}


@dataclass(frozen=True)
class Delta:
    question: str
    a: float          # vector (system A)
    b: float          # hybrid (system B)
    delta: float      # b - a
    outcome: str      # "win" | "tie" | "loss" (for B)


@dataclass(frozen=True, eq=False)
class Compared:
    """A ``metrics.Comparison`` and its per-question rows as plain objects (read once)."""

    cmp: metrics.Comparison
    deltas: tuple[Delta, ...]

    @property
    def regressions(self) -> list[Delta]:
        """The questions where B is worse than A, worst first (``Comparison.regressions``)."""
        return sorted((d for d in self.deltas if d.outcome == "loss"), key=lambda d: d.delta)


@lru_cache(maxsize=1024)
def _compare(golden: Runs, run_a: Runs, run_b: Runs, spec: str,
             questions: tuple[str, ...] = QUESTIONS) -> Compared:
    qrels = {q: dict.fromkeys(g, 1) for q, g in zip(questions, golden, strict=True)}
    cmp = metrics.compare(run_of(run_a, questions), run_of(run_b, questions), qrels, spec)
    rows = tuple(Delta(str(q), float(a), float(b), float(d), str(o))
                 for q, a, b, d, o in cmp.per_query.itertuples())
    return Compared(cmp, rows)


def comparison(s: Scenario, measure: str | None = None) -> Compared:
    """``metrics.compare(vector, hybrid, golden, …)`` on the chosen measure (hybrid − vector).
    Cached per scenario: shared by every session that shows the same numbers. Never mutate."""
    return _compare(s.golden, s.vector, s.hybrid, measure_spec(measure or s.on, s.k, s.norm),
                    s.questions)


def signed(x: float, decimals: int = 2) -> str:
    """``+0.67``, ``-0.50``, ``0.00`` (a difference, sign always shown except for zero)."""
    text = f"{x:+.{decimals}f}"
    return text[1:] if float(text) == 0 else text


def test_words(res: Compared) -> dict[str, object]:
    """The numbers the plain-words explanation of the paired tests quotes."""
    cmp = res.cmp
    # the p explained in words: the randomization test's, which counts the chance the words
    # name (the t-test only estimates it, assuming normal differences: poor with five of them)
    rand = cmp.p_randomization is not None
    p = cmp.p_randomization if rand else cmp.p_ttest
    return {
        "p_t": cmp.p_ttest, "p_rand": cmp.p_randomization, "n": len(cmp.per_query), "p": p,
        "p_test": "rand" if rand else "t",
        "in_100": round(100 * p),
        "mean_delta": cmp.mean_delta, "ci_low": cmp.ci_low, "ci_high": cmp.ci_high,
        "ci_has_zero": cmp.ci_low <= 0 <= cmp.ci_high,
        "patterns": 2 ** len(cmp.per_query),
    }


def deltas_chart(res: Compared, labels: Mapping[str, str]) -> dict:
    """A Vega-Lite spec (plain dict): one bar per question, hybrid − vector, coloured by outcome,
    with the value written on the bar. Axes left to right in both languages."""
    names = {"win": labels["better"], "tie": labels["same"], "loss": labels["worse"]}
    rows = [{"question": d.question, "delta": round(d.delta, 4), "outcome": names[d.outcome],
             "label": signed(d.delta), "a": round(d.a, 4), "b": round(d.b, 4),
             "offset": 0.14 if d.delta >= 0 else -0.14}
            for d in res.deltas]
    colours = {names["win"]: PALETTE["good"], names["tie"]: PALETTE["neutral"],
               names["loss"]: PALETTE["bad"]}
    x = {"field": "question", "type": "ordinal", "title": labels["question"],
         "sort": [d.question for d in res.deltas], "axis": {"labelAngle": 0}}
    # The data sits in each layer, not at the top (ui.charts.inline says why).
    data = {"values": rows}
    return charts.spec(
        230, layer=[
            {"data": data, "mark": {"type": "bar", "width": {"band": 0.6}},
             "encoding": {
                 "x": x,
                 "y": {"field": "delta", "type": "quantitative", "title": labels["delta_axis"],
                       "scale": {"domain": [-1.2, 1.2], "nice": False},
                       "axis": {"values": [-1, -0.5, 0, 0.5, 1]}},
                 "color": {"field": "outcome", "type": "nominal", "title": None,
                           "scale": charts.scale(colours),
                           "legend": {"orient": "bottom", "columns": 3}},
                 "tooltip": [{"field": "question", "title": labels["question"]},
                             {"field": "a", "title": labels.get("a", "vector"), "format": ".2f"},
                             {"field": "b", "title": labels.get("b", "hybrid"), "format": ".2f"},
                             {"field": "label", "title": labels["delta_axis"]}]}},
            {"data": data, "mark": {"type": "rule", "color": PALETTE["rule"]},
             "encoding": {"y": {"datum": 0}}},
            {"data": data,
             "transform": [{"calculate": "datum.delta + datum.offset", "as": "text_y"}],
             "mark": {"type": "text", "fontSize": 13, "baseline": "middle"},
             "encoding": {"x": x, "y": {"field": "text_y", "type": "quantitative"},
                          "text": {"field": "label"}}},
        ])


# --- AP step by step -------------------------------------------------------------------------


@dataclass(frozen=True)
class ApStep:
    rank: int
    doc: str
    relevant: bool
    counted: bool              # inside the top k
    hits: int                  # relevant documents in ranks 1..rank
    precision: float | None    # precision@rank, only at a relevant rank inside the top k


@dataclass(frozen=True)
class ApWork:
    steps: list[ApStep]
    terms: list[str]               # "1/1", "2/2": precision@i at each relevant rank i <= k
    missed: list[str]              # relevant documents the system never returned
    denominators: dict[str, int]   # norm -> N (R, relevant retrieved in the top k, min(k, R))
    norm: str
    k: int
    value: float

    @property
    def N(self) -> int:
        return self.denominators[self.norm]

    def formula(self, label: str) -> str:
        """``AP@3 = (1/1 + 2/2) / 2 = 1.00`` with the learner's numbers."""
        shown = f"{self.value:.2f}"
        if not self.N:
            return f"{label} = 0 (N = 0)"
        top = " + ".join(self.terms) if self.terms else "0"
        return f"{label} = ({top}) / {self.N} = {shown}"


def ap_work(ranking: Sequence[str], golden: Sequence[str], k: int, norm: str = "R") -> ApWork:
    ranking, relevant = list(ranking), set(golden)
    in_k = relevant_ranks(ranking, relevant, k)
    steps = []
    for i, doc in enumerate(ranking, start=1):
        hit = doc in relevant
        hits = metrics.binary.hits_at(ranking, relevant, i)
        steps.append(ApStep(i, doc, hit, i <= k, hits,
                            metrics.precision(ranking, relevant, i) if i in in_k else None))
    terms = [f"{n}/{r}" for n, r in enumerate(in_k, start=1)]
    R = num_relevant(relevant)
    return ApWork(steps, terms, [d for d in golden if d not in ranking],
                  {"R": R, "retrieved": len(in_k), "min_k_R": min(k, R)}, norm, k,
                  metrics.average_precision(ranking, relevant, k, norm))


# --- the worked example (the seed) ------------------------------------------------------------


@lru_cache(maxsize=1)
def worked_values() -> dict[str, float]:
    """The numbers the worked example quotes, computed on the seed by ``metrics``."""
    s = Scenario()
    m = means(s)
    rr_res = comparison(s, "rr")
    rr, recall, ap = rr_res.cmp, comparison(s, "recall").cmp, comparison(s, "ap").cmp
    out: dict[str, float] = {
        "v_recall": m["vector"]["recall"], "h_recall": m["hybrid"]["recall"],
        "v_mrr": m["vector"]["rr"], "h_mrr": m["hybrid"]["rr"],
        "v_map": m["vector"]["ap"], "h_map": m["hybrid"]["ap"],
        "p_rr": rr.p_ttest, "p_recall": recall.p_ttest, "p_ap": ap.p_ttest,
        "p_rr_rand": rr.p_randomization, "p_recall_rand": recall.p_randomization,
        "wins": rr.wins, "ties": rr.ties, "losses": rr.losses,
    }
    for d in rr_res.deltas:
        out[f"d_{d.question}"] = d.delta
    # What fifty *different* questions with the same gaps would give (the five results copied ten
    # times: the same mean and spread, ten times the n). The text says why copies are not that.
    many = tuple(f"{q}_{n}" for n in range(10) for q in QUESTIONS)
    times = 10
    out["p_rr_50"] = _compare(s.golden * times, s.vector * times, s.hybrid * times,
                              f"RR@{s.k}", many).cmp.p_ttest
    out["p_recall_50"] = _compare(s.golden * times, s.vector * times, s.hybrid * times, "R@3",
                                  many).cmp.p_ttest
    # MRR is not 1 / mean rank: hybrid's first hits are at ranks 1, 1, 1, 1, 2 (the wrong
    # formulas come from the mistake catalogue, the same ones the exercise diagnoses).
    hybrid = [(list(r), set(g)) for r, g in zip(s.hybrid, s.golden, strict=True)]
    out["h_mean_rank"] = mistakes.CATALOGUE["mrr_mean_rank"].formula(hybrid)
    out["h_inverse_mean_rank"] = mistakes.CATALOGUE["mrr_inverse_mean_rank"].formula(hybrid)
    return out


# --- the counter-example: a higher mean, worse for half the questions -------------------------

COUNTER_QUESTIONS = ("q1", "q2", "q3", "q4")
COUNTER_GOLDEN = (("d1",), ("d2",), ("d3",), ("d4",))
COUNTER_A = (("d2", "d1", "d3", "d4"), ("d1", "d2", "d3", "d4"), ("d1", "d3", "d2", "d4"),
             ("d2", "d4", "d1", "d3"))
COUNTER_B = (("d1", "d2", "d3", "d4"), ("d2", "d1", "d3", "d4"), ("d1", "d2", "d3", "d4"),
             ("d1", "d2", "d3", "d4"))
COUNTER_POOL = ("d1", "d2", "d3", "d4")


def parse_counter(raw: str) -> Runs:
    """B's four rankings from the URL: each a permutation of d1..d4."""
    runs = parse_runs(raw, n=len(COUNTER_QUESTIONS))
    if any(sorted(r) != list(COUNTER_POOL) for r in runs):
        raise ValueError("each ranking must hold d1..d4 once")
    return runs


def counter_comparison(b_runs: Runs) -> Compared:
    """System B against system A on RR, over the counter-example's four questions."""
    return _compare(COUNTER_GOLDEN, COUNTER_A, b_runs, "RR", COUNTER_QUESTIONS)


def counter_verdict(res: Compared) -> str:
    """``"hidden"`` (B's mean is higher, yet B is worse on at least half the questions),
    ``"higher"`` (higher, worse on fewer), ``"clean"`` (higher, worse on none) or ``"lower"``."""
    cmp = res.cmp
    if cmp.mean_delta <= 1e-12:
        return "lower"
    if not cmp.losses:
        return "clean"
    return "hidden" if 2 * cmp.losses >= len(cmp.per_query) else "higher"
