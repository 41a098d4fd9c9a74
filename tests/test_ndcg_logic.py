"""Lesson 5's plain functions, without a browser: the seed numbers, every number the lesson text
quotes, the charts, the step table's checking and the generated exercise."""

from __future__ import annotations

import json
import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import metrics
from lessons.ndcg import logic
from teaching import exercises as E
from teaching import mistakes
from text.i18n import load_content, placeholders

D2 = (logic.EXAMPLE_MISSED,)
LABELS = {key: key for key in load_content("ndcg", "en")["try_it"]["chart"]}


def r4(x: float) -> float:
    return round(x, 4)


def totals(**changes) -> tuple[float, float, float]:
    t = logic.totals(logic.Scenario(**changes))
    return r4(t.dcg), r4(t.idcg), r4(t.ndcg)


def reorder(*ids: str) -> tuple[tuple[str, int], ...]:
    grades = dict(logic.SEED_RANKING)
    return tuple((d, grades[d]) for d in ids)


def test_opens_on_the_seed_numbers():
    assert [g for _, g in logic.SEED_RANKING] == [3, 2, 3, 0, 1]
    assert totals() == (6.1487, 6.3235, 0.9724)
    f = logic.formulas(logic.Scenario())
    assert f["dcg"] == ("DCG@5 = 3/log2(2) + 2/log2(3) + 3/log2(4) + 0/log2(5) + 1/log2(6)"
                        " = 3 + 1.2619 + 1.5 + 0 + 0.3869 = 6.1487")
    assert f["idcg"] == ("IDCG@5 = 3/log2(2) + 3/log2(3) + 2/log2(4) + 1/log2(5) + 0/log2(6)"
                         " = 3 + 1.8928 + 1 + 0.4307 + 0 = 6.3235")
    assert f["ndcg"] == "nDCG@5 = 6.1487 / 6.3235 = 0.9724"


def test_the_pitfall_and_the_gain_switch():
    # the retrieved-list ideal cannot see the unretrieved exact answer; trec_eval's can
    assert totals(unretrieved=D2) == (6.1487, 6.3235, 0.9724)
    assert totals(unretrieved=D2, ideal="judged") == (6.1487, 7.641, 0.8047)
    assert totals(gain="exponential") == (12.7796, 13.3472, 0.9575)
    assert totals(unretrieved=D2, ideal="judged", gain="exponential")[2] == 0.7701
    f = logic.formulas(logic.Scenario(gain="exponential"))
    assert f["dcg"].startswith("DCG@5 = (2^3-1)/log2(2) + (2^2-1)/log2(3)")
    assert logic.missing_in_ideal(logic.Scenario(unretrieved=(*D2, ("d9", 0)))) == [("d2", 3)]


def test_the_numbers_the_lesson_text_quotes():
    best = reorder("d3", "d1", "d8", "d5", "d6")
    assert totals(ranking=best)[2] == 1.0
    assert totals(ranking=best, unretrieved=D2, ideal="judged")[2] == 0.8276
    assert totals(ranking=(("d2", 3), *best), unretrieved=(), ideal="judged")[2] == 1.0
    assert [round(t.ndcg, 2) for t in logic.by_k(logic.Scenario())] == [
        1.0, 0.87, 0.98, 0.91, 0.97]
    assert [r4(t.dcg) for t in logic.by_k(logic.Scenario())][2:] == [5.7619, 5.7619, 6.1487]
    assert round(totals(ranking=reorder("d6", "d3", "d8", "d1", "d5"))[2], 2) == 0.72
    assert round(totals(ranking=reorder("d3", "d1", "d8", "d6", "d5"))[2], 4) == 0.9931
    w = logic.worked_values()
    assert (r4(w["dcg5"]), r4(w["idcg5"]), r4(w["ndcg5"])) == (6.1487, 6.3235, 0.9724)
    assert (r4(w["idcg5_judged"]), r4(w["ndcg5_judged"])) == (7.641, 0.8047)
    assert (r4(w["ndcg5_exp"]), r4(w["ndcg5_judged_exp"])) == (0.9575, 0.7701)
    assert w["c1"] == 3 and isinstance(w["c1"], int)       # prose shows 3, not 3.0


def test_every_placeholder_of_the_worked_example_has_a_value():
    for lang in ("ar", "en"):
        body = load_content("ndcg", lang)["worked_example"]["body"]
        assert placeholders(body) <= set(logic.worked_values())


def test_try_it_text_numbers_match_the_interactive():
    """The try-it steps quote numbers: each must be one the interactive really shows."""
    body = load_content("ndcg", "en")["try_it"]["body"]
    for number in ("0.8276", "0.9724", "0.9575", "0.72", "0.87", "0.98", "0.91", "0.97"):
        assert number in body


def test_charts_are_plain_serialisable_vega_lite_with_rows_inside_a_layer():
    sc = logic.Scenario(k=3)
    for make in (logic.discount_chart, logic.gain_chart, logic.cumulative_chart,
                 logic.ndcg_chart):
        spec = make(sc, LABELS)
        json.dumps(spec)
        assert "data" not in spec, "top-level rows would be converted to Arrow on every rerun"
        assert spec["layer"][0]["data"]["values"]
    rows = logic.position_rows(sc)
    assert [row["in_top_k"] for row in rows] == [True, True, True, False, False]
    assert [r4(row["contribution"]) for row in rows] == [3, 1.2619, 1.5, 0, 0.3869]
    cumulative = logic.cumulative_rows(sc)
    assert [r4(row["dcg"]) for row in cumulative] == [3, 4.2619, 5.7619, 5.7619, 6.1487]
    gain = logic.gain_chart(logic.Scenario(gain="exponential"), LABELS)
    assert [row["gain"] for row in gain["layer"][0]["data"]["values"]] == [7, 3, 7, 0, 1]


def test_depth_never_exceeds_the_ranking():
    assert logic.Scenario(k=9).depth == 5
    assert len(logic.step_rows(logic.Scenario(k=9))) == 5
    assert len(logic.step_rows(logic.Scenario(k=2))) == 2


# --- the step table ------------------------------------------------------------------------------


def test_step_rows_end_on_the_metrics_values():
    for sc in (logic.Scenario(), logic.Scenario(gain="exponential", k=4),
               logic.Scenario(unretrieved=D2, ideal="judged")):
        rows = logic.step_rows(sc)
        last = rows[-1]
        assert last.dcg == pytest.approx(metrics.dcg(sc.order, sc.qrels, sc.depth, sc.gain))
        assert last.ndcg == pytest.approx(metrics.ndcg(sc.order, sc.qrels, sc.depth, sc.gain,
                                                       sc.ideal))
        assert sum(r.contribution for r in rows) == pytest.approx(last.dcg)


def test_fading_goes_backwards_one_column_at_a_time():
    assert logic.faded_columns(0) == ()
    assert logic.faded_columns(1) == ("ndcg",)
    assert logic.faded_columns(2) == ("dcg", "ndcg")
    assert logic.faded_columns(5) == logic.STEP_COLUMNS
    assert logic.faded_columns(99) == logic.STEP_COLUMNS


def check(typed: dict, level: int = 5, gain: str = "linear", **changes):
    rows = logic.step_rows(logic.Scenario(gain=gain, **changes))
    return logic.check_steps(rows, typed, logic.faded_columns(level), gain)


@pytest.mark.parametrize("cell, typed, hint", [
    ((2, "gain"), "3", "exponential_gain"),                 # 2^2 - 1 while the gain is linear
    ((2, "discount"), "1", "discount_log2_i"),              # 1/log2(2)
    ((2, "discount"), "0.5", "discount_log2_i_plus_2"),     # 1/log2(4)
    ((2, "discount"), "0.91", "discount_ln"),               # 1/ln(3)
    ((3, "discount"), "1/3", "discount_reciprocal_rank"),
    ((2, "discount"), "1.585", "discount_not_inverted"),
    ((2, "contribution"), "3.17", "contribution_multiplied"),   # 2 × log2(3)
    ((2, "contribution"), "2", "no_discount"),
    ((3, "dcg"), "1.5", "running_not_summed"),
    ((2, "ndcg"), "1.148", "ndcg_inverted"),
    ((2, "ndcg"), "0.674", "ndcg_final_idcg"),              # 4.2619 / IDCG@5 = 6.3235
    ((2, "ndcg"), "4.26", "not_normalised"),
    ((2, "gain"), "5", None),                              # wrong, no known slip
])
def test_each_cell_slip_gets_its_hint(cell, typed, hint):
    result = check({cell: typed})[cell]
    assert result.status == "wrong"
    assert result.hint == hint


def test_exponential_gain_slip_the_other_way():
    result = check({(2, "gain"): "2"}, gain="exponential")[(2, "gain")]
    assert (result.status, result.hint) == ("wrong", "linear_gain")


def test_right_empty_and_unreadable_cells():
    out = check({(1, "gain"): "3", (2, "discount"): "0.63", (3, "discount"): "٠٫٥",
                 (4, "gain"): "abc", (5, "ndcg"): "  "})
    assert out[(1, "gain")].status == "right"
    assert out[(2, "discount")].status == "right"
    assert out[(3, "discount")].status == "right"          # Arabic-Indic digits are read
    assert out[(4, "gain")].status == "unreadable"
    assert out[(5, "ndcg")].status == "empty"
    assert out[(1, "ndcg")].status == "empty"


def test_a_slip_is_marked_once_not_in_every_cell_that_uses_it():
    # rank 2's contribution is wrong (no discount: 2); the running sums built on it are
    # consistent with the learner's own numbers, so only the slip itself is marked
    typed = {(1, "contribution"): "3", (2, "contribution"): "2", (1, "dcg"): "3",
             (2, "dcg"): "5", (3, "contribution"): "1.5", (3, "dcg"): "6.5"}
    out = check(typed, level=3)
    assert out[(2, "contribution")].status == "wrong"
    assert out[(2, "dcg")].status == "right" and out[(3, "dcg")].status == "right"
    # a running sum that matches neither the truth nor the learner's own cells is wrong
    assert check({(2, "dcg"): "9"}, level=2)[(2, "dcg")].status == "wrong"


def test_the_whole_table_filled_in_correctly():
    rows = logic.step_rows(logic.Scenario())
    typed = {(r.rank, c): f"{getattr(r, c):.2f}" for r in rows for c in logic.STEP_COLUMNS}
    out = logic.check_steps(rows, typed, logic.STEP_COLUMNS, "linear")
    assert logic.all_right(out)
    names = {c: c for c in ("gain", "discount", "contribution", "dcg", "ndcg")}
    assert logic.row_mark(out, 1, logic.STEP_COLUMNS, names) == "✓"
    typed[(2, "discount")] = "0.5"
    out = logic.check_steps(rows, typed, logic.STEP_COLUMNS, "linear")
    assert not logic.all_right(out)
    assert logic.row_mark(out, 2, logic.STEP_COLUMNS, names) == "✗ discount"
    del typed[(3, "gain")]
    out = logic.check_steps(rows, typed, logic.STEP_COLUMNS, "linear")
    assert logic.row_mark(out, 3, logic.STEP_COLUMNS, names) == "✓ …"
    assert logic.row_mark({}, 1, (), names) == ""


def test_every_hint_key_has_a_text_in_both_languages():
    """The slips a cell can show have their hint in the mistake catalogue; the lesson's own
    texts cover what is not a mistake (an unreadable cell, a wrong value of no known slip)."""
    slips = {"linear_gain", "exponential_gain", "discount_log2_i", "discount_log2_i_plus_2",
             "discount_ln", "discount_reciprocal_rank", "discount_not_inverted",
             "contribution_multiplied", "no_discount", "running_not_summed",
             "ndcg_inverted", "ndcg_final_idcg", "not_normalised"}
    own = {"unreadable", *(f"generic_{c}" for c in logic.STEP_COLUMNS)}
    allowed = {"rank", "column", "grade", "typed", "expected", "next", "idcg", "idcg_k", "k"}
    for lang in ("ar", "en"):
        hints = load_content("ndcg", lang)["try_it"]["steps"]["hints"]
        assert set(hints) == own
        texts = [*hints.values(), *(mistakes.text(key, "hint", lang) for key in slips)]
        assert all(texts)
        for text in texts:
            assert placeholders(text) <= allowed
    assert {key for key in mistakes.CATALOGUE if mistakes.text(key, "hint", "en")} == slips


# --- the generated exercise (teaching.exercises, the same as /practice's) -----------------------


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, E.MAX_SEED), measure=st.sampled_from(logic.EXERCISES))
def test_every_exercise_is_solvable_and_teaches(seed, measure):
    ex = E.pick(logic.EXERCISES, measure, seed)
    assert ex == E.pick(logic.EXERCISES, measure, seed)        # the seed reproduces it
    assert ex == E.generate(measure, seed)                      # the same as /practice's
    order, qrels, tol = list(ex.ranking), ex.qrels, ex.tolerance
    reference = {"dcg": metrics.dcg, "idcg": metrics.idcg, "ndcg": metrics.ndcg}[measure]
    assert ex.answer == reference(order, qrels, ex.k)           # trec_eval's conventions
    assert E.check(ex, repr(ex.answer)).status == "correct"
    assert E.check(ex, f"{ex.answer:.2f}").status == "correct"
    assert not set(order) & {d for d, _ in ex.unretrieved}
    keys = mistakes.distinct_mistakes(measure, order, qrels, ex.k, tol)
    assert keys
    for key in keys:
        for value in mistakes._values(mistakes.MISTAKES[measure][key](order, qrels, ex.k)):
            if abs(value - ex.answer) > tol:
                diagnosed = E.check(ex, repr(value)).mistake
                assert diagnosed in mistakes.MISTAKES[measure]   # maybe an earlier equal slip
                first = mistakes.MISTAKES[measure][diagnosed](order, qrels, ex.k)
                assert any(abs(v - value) <= tol for v in mistakes._values(first))
    for lang in ("ar", "en"):
        values = E.feedback_values(ex, lang)
        for key in ("correct", "not_a_number", "wrong_unknown", "percent_not_fraction",
                    *E.mistake_ids(measure)):
            assert placeholders(E.feedback_text(ex, key, lang)) <= set(values)


def test_exercise_feedback_covers_every_graded_mistake():
    keys = {key for m in logic.EXERCISES for key in mistakes.MISTAKES[m]}
    keys |= {"percent_not_fraction"}
    for lang in ("ar", "en"):
        assert all(mistakes.text(key, "feedback", lang) for key in keys)
        verdicts = E.texts(lang)["verdict"]
        assert {"not_a_number", "wrong_unknown"} <= set(verdicts["graded"])
        assert "correct" in verdicts["any"]


def test_the_pitfall_is_diagnosed_in_an_exercise():
    seed = next(s for s in range(500)
                if "ideal_from_retrieved" in mistakes.distinct_mistakes(
                    "ndcg", *_case(E.generate("ndcg", s))))
    ex = E.generate("ndcg", seed)
    order = list(ex.ranking)
    wrong = metrics.ndcg(order, ex.qrels, ex.k, ideal="retrieved")
    assert E.check(ex, repr(wrong)).mistake == "ideal_from_retrieved"
    assert E.check(ex, repr(metrics.dcg(order, ex.qrels, ex.k))).mistake in (
        "not_normalised", "ideal_from_retrieved")


def _case(ex: E.Exercise):
    return list(ex.ranking), ex.qrels, ex.k


def test_solution_formulas_quote_the_answer():
    ex = E.generate("ndcg", 7)
    facts = E.feedback_values(ex, "en")
    assert f"= {logic.num(ex.answer)}`" in facts["ndcg_terms"]
    assert re.fullmatch(r"`DCG@\d+ = .*`", facts["dcg_terms"])
    assert math.isclose(facts["answer"], round(ex.answer, 4))


def test_nothing_relevant_and_a_single_chunk():
    none = logic.Scenario(ranking=(("a", 0), ("b", 0)), k=2)
    assert totals(ranking=none.ranking, k=2) == (0, 0, 0)
    assert logic.formulas(none)["ndcg"] == "nDCG@2 = 0   (IDCG@2 = 0)"
    for make in (logic.discount_chart, logic.gain_chart, logic.cumulative_chart,
                 logic.ndcg_chart):
        json.dumps(make(none, LABELS))
    one = logic.Scenario(ranking=(("a", 2),), k=5)
    assert one.depth == 1 and logic.formulas(one)["dcg"] == "DCG@1 = 2/log2(2) = 2"
    checks = logic.check_steps(logic.step_rows(none), {(1, "ndcg"): "0"}, ("ndcg",), "linear")
    assert checks[(1, "ndcg")].status == "right"
