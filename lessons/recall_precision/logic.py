"""Lesson 2's plain functions: the scenario, the metric rows and the position chart.

No Streamlit here: the page calls these and tests call them directly. All arithmetic is done by
``metrics``; this module only arranges its results for display.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import metrics
from lessons.recall_precision import link
from teaching import measures
from teaching.mistakes import facts
from ui import charts
from ui.charts import PALETTE

SEED_ORDER = link.SEED.ranking          # the seed text's example (teaching.scenarios)
SEED_RELEVANT = link.SEED.relevant
SEED_K = link.SEED.k
MEASURE_KEYS = ("recall", "precision", "hit_rate", "f1", "rr")
EXERCISES = measures.keys("binary")   # "try it yourself" draws one of these
MAX_DOCS = link.MAX_DOCS


@dataclass(frozen=True)
class Scenario:
    """What the learner can change: the order, which documents are relevant, extra relevant
    documents that were never retrieved, and k."""

    order: tuple[str, ...] = SEED_ORDER
    relevant: frozenset[str] = SEED_RELEVANT
    unretrieved: tuple[str, ...] = ()
    k: int = SEED_K

    @property
    def judged(self) -> set[str]:
        return set(self.relevant) | set(self.unretrieved)

    def items(self) -> list[dict]:
        """The ranking widget's items."""
        return [{"id": d, "rel": int(d in self.relevant)} for d in self.order]


@dataclass(frozen=True)
class MetricRow:
    key: str
    label: str                 # e.g. "recall@3"
    value: float
    numerator: str             # the learner's own numbers, e.g. "1"
    denominator: str           # e.g. "2" ("" when the formula is not a fraction)
    extra: dict = field(default_factory=dict)


def metric_rows(s: Scenario) -> list[MetricRow]:
    ranking, qrels, k = list(s.order), s.judged, s.k
    f = facts(ranking, qrels, k)
    first_in_k = metrics.rank.relevant_ranks(ranking, qrels, k)   # RR@k looks at the top k only
    p = metrics.precision(ranking, qrels, k)
    r = metrics.recall(ranking, qrels, k)
    name = measures.name
    return [
        MetricRow("recall", name("recall", k), r, str(f.hits), str(f.R)),
        MetricRow("precision", name("precision", k), p, str(f.hits), str(k)),
        MetricRow("hit_rate", name("hit_rate", k), metrics.hit_rate(ranking, qrels, k),
                  str(f.hits), ""),
        MetricRow("f1", name("f1", k), metrics.f1(ranking, qrels, k), f"2 × {f.hits}",
                  f"({k} + {f.R})"),  # parenthesised: 2 × 1 / 3 + 2 would read as 2.67
        MetricRow("rr", name("rr", k), metrics.reciprocal_rank(ranking, qrels, k), "1",
                  str(first_in_k[0]) if first_in_k else "",
                  {"first_rank": first_in_k[0] if first_in_k else None}),
    ]


def counts(s: Scenario) -> dict[str, int]:
    """hits (relevant in the top k), R, k and ``sent`` (the chunks that really reach the model:
    k, or fewer when the list is shorter): the numbers the metric meanings quote."""
    f = facts(list(s.order), s.judged, s.k)
    return {"hits": f.hits, "R": f.R, "k": s.k, "sent": min(s.k, len(s.order))}


def worked_values() -> dict[str, float]:
    """The numbers the worked example's text quotes, computed on the seed."""
    r, q = list(SEED_ORDER), set(SEED_RELEVANT)
    return {
        "recall_at_3": metrics.recall(r, q, 3), "recall_at_5": metrics.recall(r, q, 5),
        "precision_at_3": metrics.precision(r, q, 3),
        "precision_at_5": metrics.precision(r, q, 5),
        "hit_at_3": int(metrics.hit_rate(r, q, 3)),  # 1 or 0, as the text says
        "f1_at_3": metrics.f1(r, q, 3),
        "rr": metrics.reciprocal_rank(r, q, 3), "r_precision": metrics.r_precision(r, q),
    }


def position_rows(s: Scenario) -> list[dict]:
    """One row per rank: is it inside the top k, is it relevant, its RR weight (1/rank) and
    whether it is the first relevant document in the top k (the only one RR@k scores)."""
    ranks = metrics.rank.relevant_ranks(list(s.order), s.judged, s.k)
    first = ranks[0] if ranks else None
    return [{"rank": i, "doc": d, "in_top_k": i <= s.k, "relevant": d in s.relevant,
             "rr_weight": 1 / i, "first_hit": i == first}
            for i, d in enumerate(s.order, start=1)]


def position_chart(s: Scenario, labels: dict[str, str]) -> dict:
    """A Vega-Lite spec (a plain dict: cheaper per rerun than building it with Altair).

    Bars: the weight RR would give each rank (1/rank); the bar of the first relevant document in
    the top k is the one RR@k actually scores. Shading: the ranks inside the top k, which every
    other metric counts. Axes stay left-to-right in both languages."""
    rows = position_rows(s)
    for row in rows:
        row["zone"] = labels["counted"] if row["in_top_k"] else labels["not_counted"]
        row["kind"] = (labels["first_hit"] if row["first_hit"]
                       else labels["relevant"] if row["relevant"] else labels["not_relevant"])
    colours = {labels["first_hit"]: PALETTE["good"], labels["relevant"]: PALETTE["good_light"],
               labels["not_relevant"]: PALETTE["muted"]}
    zones = {labels["counted"]: PALETTE["accent"], labels["not_counted"]: PALETTE["zone"]}
    return charts.spec(
        340, data={"values": rows},
        # room above the plot for the document label over a bar of height 1.0
        padding={"top": 18, "left": 5, "right": 5, "bottom": 5},
        layer=[
            {"mark": {"type": "rect", "opacity": 0.18},
             "encoding": {
                 "x": {"field": "rank", "type": "ordinal", "title": labels["rank"],
                       "sort": "ascending", "axis": {"labelAngle": 0}},
                 "color": {"field": "zone", "type": "nominal", "title": None,
                           "scale": charts.scale(zones),
                           "legend": {"orient": "bottom", "direction": "vertical"}}}},
            {"mark": {"type": "bar", "width": {"band": 0.55}},
             "encoding": {
                 "x": {"field": "rank", "type": "ordinal"},
                 "y": {"field": "rr_weight", "type": "quantitative",
                       "title": labels["rr_weight"], "scale": {"domain": [0, 1]}},
                 "fill": {"field": "kind", "type": "nominal", "title": None,
                          "scale": charts.scale(colours),
                          "legend": {"orient": "bottom", "direction": "vertical"}},
                 "tooltip": [{"field": "doc", "title": labels["document"]},
                             {"field": "rank", "title": labels["rank"]},
                             {"field": "rr_weight", "title": labels["rr_weight"],
                              "format": ".2f"}]}},
            {"mark": {"type": "text", "dy": -8, "fontSize": 13},
             "encoding": {"x": {"field": "rank", "type": "ordinal"},
                          "y": {"field": "rr_weight", "type": "quantitative"},
                          "text": {"field": "doc"}}},
        ])
