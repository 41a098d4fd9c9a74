"""Lesson 6's plain functions, without a browser: the scenario, each step's check, the
numbers, the URL encodings and the generated exercise."""

from __future__ import annotations

import re

import pytest

from lessons.diagnose import logic
from teaching import mistakes
from text.i18n import LANGS, load_content, placeholders


def scenario(lang: str = "en") -> logic.Scenario:
    return logic.scenario(load_content("diagnose", lang))


def test_the_two_languages_have_the_same_scenario_data():
    def data(sc):
        return (sc.k, [d.id for d in sc.docs],
                [(q.id, q.golden, q.retrieved, [s.support for s in q.sentences], sorted(q.traps))
                 for q in sc.questions])
    assert data(scenario("ar")) == data(scenario("en"))


def test_every_golden_and_support_id_exists():
    sc = scenario()
    ids = {d.id for d in sc.docs}
    for q in sc.questions:
        assert set(q.golden) <= ids and set(q.retrieved) <= ids
        assert set(q.traps) <= ids - set(q.golden)
        assert all(s.support in q.retrieved for s in q.sentences if s.support)
        assert all(s.note for s in q.sentences)


def test_step1_labels_are_checked_against_the_key():
    sc = scenario()
    key = logic.answer_key_labels(sc)
    assert all(ch.right for ch in logic.check_labels(sc, key))
    labels = list(key)
    labels[1] = frozenset({3, 4})              # q2: d3 and the expired memo d4
    labels[2] = frozenset({6})                 # q3: forgot d5
    checks = {ch.question: ch for ch in logic.check_labels(sc, labels)}
    assert checks["q2"].extra == ("d4",) and not checks["q2"].missing
    assert checks["q3"].missing == ("d5",) and not checks["q3"].extra
    assert sum(ch.right for ch in checks.values()) == 3


def test_step2_retrieval_numbers_come_from_metrics_evaluate():
    sc = scenario()
    table = logic.retrieval_table(sc)
    assert [(r.question, r.recall, r.rr) for r in table.rows] == [
        ("q1", 1.0, 1.0), ("q2", 1.0, 0.5), ("q3", 0.5, 1.0), ("q4", 0.0, 0.0), ("q5", 1.0, 1.0)]
    assert (table.mean_recall, table.mrr) == pytest.approx((0.7, 0.7))
    assert table.failing == {"q3", "q4"}
    assert [r.missing for r in table.rows if r.failed] == [("d5",), ("d8",)]
    assert logic.check_failing(sc, frozenset({3, 4})).right
    wrong = logic.check_failing(sc, frozenset({2, 3}))
    assert (wrong.missed, wrong.extra) == (("q4",), ("q2",))


def test_step2_with_the_learners_labels():
    sc = scenario()
    labels = list(logic.answer_key_labels(sc))
    labels[3] = frozenset({1})                 # q4 labelled with d1 (retrieved at rank 1)
    mine = logic.retrieval_table(sc, logic.qrels_of(sc, labels))
    assert mine.rows[3].recall == 1.0
    assert mine.mean_recall == pytest.approx(0.9)
    labels[0] = frozenset()                    # a question left without labels scores 0
    assert logic.retrieval_table(sc, logic.qrels_of(sc, labels)).rows[0].recall == 0.0


def test_step3_faithfulness():
    sc = scenario()
    table = logic.faithfulness_table(sc)
    assert [(r.question, r.supported, r.sentences) for r in table.rows] == [
        ("q1", 2, 2), ("q2", 1, 2), ("q3", 2, 3), ("q4", 0, 1), ("q5", 1, 2)]
    # q2's conclusion "so you can work from home every day" is contradicted by d3 (retrieved too)
    assert [round(r.faithfulness, 2) for r in table.rows] == [1.0, 0.5, 0.67, 0.0, 0.5]
    # the numbers the page's text and the myths quote: all, retrieval worked, retrieval failed
    assert (round(table.mean_all, 2), round(table.mean_retrieved, 2)) == (0.53, 0.67)
    failed = [r.faithfulness for r in table.rows if not r.retrieval_ok]
    assert round(sum(failed) / len(failed), 2) == 0.33
    key = [q.supported for q in sc.questions]
    assert all(not wrong for _, wrong in logic.check_support(sc, key))
    picked = list(key)
    picked[3] = frozenset({1})                 # q4's lucky sentence marked as supported
    picked[1] = frozenset({1, 2})              # q2's contradicted conclusion marked supported
    wrong = dict(logic.check_support(sc, picked))
    assert wrong["q4"] == (1,) and wrong["q2"] == (2,)


def test_worked_example_is_the_handbook_diagnosis_worked_out():
    values = logic.worked_values(scenario())
    assert [(values[f"q{n}_recall"], values[f"q{n}_rr"]) for n in range(1, 6)] == [
        (1, 1), (1, 0.5), (0.5, 1), (0, 0), (1, 1)]
    assert [(values[f"q{n}_supported"], values[f"q{n}_sentences"]) for n in range(1, 6)] == [
        (2, 2), (1, 2), (2, 3), (0, 1), (1, 2)]
    assert [round(values[k], 2) for k in ("mean_recall", "mrr", "faith_all", "faith_ok",
                                          "faith_failed")] == [0.7, 0.7, 0.53, 0.67, 0.33]
    # the quiz's "leaving q4 out": the mean RR@3 of the other four
    assert sum(values[f"q{n}_rr"] for n in (1, 2, 3, 5)) / 4 == 0.875


ROW = re.compile(r"^\| (q\d) \([^|]*\) \| ([^|]*) \| `([^`]*)` \|$", re.M)


@pytest.mark.parametrize("lang", LANGS)
def test_worked_example_tables_are_the_walkthroughs_data(lang):
    """The worked example writes the handbook's golden set and rankings out by hand: they are
    the walkthrough's, and every placeholder has a value."""
    c = load_content("diagnose", lang)
    sc = logic.scenario(c)
    body = c["worked_example"]["body"]
    rows = {q: (re.findall(r"d\d", gold), ranking.replace("★", "").split(),
                [d.rstrip("★") for d in ranking.split() if d.endswith("★")])
            for q, gold, ranking in ROW.findall(body)}
    assert rows == {q.id: (sorted(q.golden), list(q.retrieved[:sc.k]),
                           [d for d in q.retrieved[:sc.k] if d in q.golden])
                    for q in sc.questions}
    assert placeholders(body) <= set(logic.worked_values(sc))


def test_url_encodings_round_trip_and_reject_bad_input():
    groups = (frozenset({1}), frozenset(), frozenset({5, 6}), frozenset({8}), frozenset({7}))
    raw = logic.encode_groups(groups)
    assert raw == "1-_-56-8-7"
    assert logic.parse_groups(raw, 5, [8] * 5) == groups
    for bad in ("1-_-56-8", "1-_-56-8-9", "1-_-55-8-7", "1-x-56-8-7", "1--56-8-7", "0-_-_-_-_"):
        with pytest.raises(ValueError):
            logic.parse_groups(bad, 5, [8] * 5)
    assert logic.parse_set("34", 5) == {3, 4} and logic.parse_set("", 5) == frozenset()
    for bad in ("36", "33", "a", "-1"):
        with pytest.raises(ValueError):
            logic.parse_set(bad, 5)
    assert logic.encode_set({4, 3}) == "34"


def test_steps_open_in_order():
    assert logic.reached(frozenset()) == 1
    assert logic.reached(frozenset({1})) == 2
    assert logic.reached(frozenset({1, 3})) == 2     # step 2 not checked: 3 stays closed
    assert logic.reached(frozenset({1, 2, 3, 4})) == 4


@pytest.mark.parametrize("lang", LANGS)
def test_every_fix_has_a_text_and_feedback(lang):
    c = load_content("diagnose", lang)
    assert set(c["try_it"]["fixes"]) == set(logic.FIXES) == set(c["try_it"]["fix_feedback"])
    assert logic.RIGHT_FIX in logic.FIXES


def test_exercises_are_reproducible_and_worth_solving():
    for seed in range(200):
        ex = logic.retrieval_exercise(seed)
        assert ex == logic.retrieval_exercise(seed)
        assert 1 <= len(ex.failing) <= 3
        assert any(key.startswith("flagged") for _, key in ex.failing_feedback(ex.ids))
        assert ex.check_mean(ex.answer) == "correct"
        assert not ex.failing_feedback(sorted(ex.failing))
        # round 65: with no partial miss the mean HitRate@3 equals the mean recall@3 and a
        # learner who averages "did anything arrive?" was told "Correct" (171 of 300 seeds)
        hit_rate = sum(r > 0 for r in ex.recalls) / len(ex.recalls)
        assert any(0 < r < 1 for r in ex.recalls) and hit_rate != ex.answer
        assert ex.check_mean(hit_rate) != "correct"


def test_exercise_feedback_names_the_mistake():
    ex = logic.RetrievalExercise(0, 3, (("d1",), ("d2", "d3", "d4", "d5"), ("d6",), ("d7",)),
                                 (("d9", "d1", "d8"), ("d2", "d8", "d9"), ("d8", "d9", "d10"),
                                  ("d7", "d8", "d9")))
    assert ex.recalls == [1.0, 0.25, 0.0, 1.0]
    assert ex.answer == pytest.approx(0.5625)
    assert ex.check_mean(0.56) == "correct"
    assert ex.check_mean(3 / 7) == "mean_recall_pooled"     # 3 hits / 7 golden documents
    assert ex.check_mean(0.75) == "judged_by_hit_rate"      # the mean HitRate@3
    assert ex.check_mean(0.25) == "judged_by_precision"     # the mean precision@3
    assert ex.check_mean(56.25) == "percent_not_fraction"
    skip = ex.mistakes()["mean_recall_skip_failures"]
    assert skip == pytest.approx(0.75)                  # equal to hit_rate here: tried second
    feedback = dict(ex.failing_feedback(["q1", "q3"]))
    assert feedback == {"q1": "flagged_low_rank", "q2": "missed_partial"}
    assert dict(ex.failing_feedback(["q2", "q3", "q4"])) == {"q4": "flagged_full"}
    assert dict(ex.failing_feedback(["q2"])) == {"q3": "missed_none"}


@pytest.mark.parametrize("lang", LANGS)
def test_every_exercise_feedback_key_has_a_text(lang):
    feedback = load_content("diagnose", lang)["exercise"]["feedback"]
    keys = {"failing_right", "flagged_low_rank", "flagged_full", "missed_partial", "missed_none",
            "correct", "not_a_number", "wrong_unknown", "solution"}
    assert keys <= set(feedback)
    # the wrong formulas' feedback is the mistake catalogue's
    wrong = {"percent_not_fraction", *logic.retrieval_exercise(1).mistakes()}
    assert all(mistakes.text(key, "feedback", lang) for key in wrong)
