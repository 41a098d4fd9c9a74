"""Lesson 2's plain functions, without a browser."""

from __future__ import annotations

import json

from lessons.recall_precision import logic

LABELS = dict.fromkeys(["counted", "not_counted", "first_hit", "relevant", "not_relevant", "rank",
                        "rr_weight", "document"], "x")
LABELS.update(counted="in", not_counted="out", first_hit="first", relevant="rel",
              not_relevant="non")


def values(s: logic.Scenario) -> dict[str, float]:
    return {row.key: round(row.value, 4) for row in logic.metric_rows(s)}


def test_opens_on_the_seed_numbers():
    s = logic.Scenario()
    assert values(s) == {"recall": 0.5, "precision": 0.3333, "hit_rate": 1.0, "f1": 0.4,
                         "rr": 0.5}
    assert values(logic.Scenario(k=5))["recall"] == 1.0
    w = logic.worked_values()
    assert (w["recall_at_3"], w["recall_at_5"], round(w["precision_at_3"], 2), w["rr"]) == (
        0.5, 1.0, 0.33, 0.5)


def test_formulas_show_the_learners_numbers():
    rows = {row.key: row for row in logic.metric_rows(logic.Scenario())}
    assert (rows["recall"].label, rows["recall"].numerator, rows["recall"].denominator) == (
        "recall@3", "1", "2")
    assert (rows["precision"].numerator, rows["precision"].denominator) == ("1", "3")
    assert rows["rr"].denominator == "2"


def test_the_lessons_suggestions_behave_as_the_text_says():
    top = logic.Scenario(order=("d4", "d7", "d2", "d9", "d1"))
    assert values(top)["rr"] == 1.0 and values(top)["recall"] == 1.0
    assert values(top)["precision"] == 0.6667 and values(top)["f1"] == 0.8
    # RR@1: the first relevant document, d2, is at rank 2, outside the top 1 the model reads
    assert values(logic.Scenario(k=1)) == {"recall": 0, "precision": 0, "hit_rate": 0, "f1": 0,
                                            "rr": 0}
    recall_by_k = [values(logic.Scenario(k=k))["recall"] for k in range(1, 6)]
    assert recall_by_k == [0, 0.5, 0.5, 1.0, 1.0]
    nothing = logic.Scenario(relevant=frozenset())
    assert set(values(nothing).values()) == {0}
    missed = logic.Scenario(unretrieved=("d8",), k=5)
    assert values(missed)["recall"] == 0.6667 and values(missed)["f1"] == 0.5


def test_position_chart_marks_top_k_and_the_first_hit():
    rows = logic.position_rows(logic.Scenario())
    assert [r["in_top_k"] for r in rows] == [True, True, True, False, False]
    assert [r["first_hit"] for r in rows] == [False, True, False, False, False]
    # RR@1 scores nothing: no first hit inside the top 1
    assert not any(r["first_hit"] for r in logic.position_rows(logic.Scenario(k=1)))
    spec = logic.position_chart(logic.Scenario(), LABELS)
    json.dumps(spec)   # a plain, serialisable Vega-Lite dict
    assert spec["data"]["values"][1]["kind"] == "first"
