"""One exercise engine: for every measure and 400 seeds, the lesson that teaches it, /practice, a
/live question and a shared link (lesson's and /practice's) give the same exercise; and no
generated exercise has a wrong formula within 3× the tolerance of its answer (nor of its answer
written as a percentage)."""

from __future__ import annotations

import pytest

from lessons.live import logic as live
from lessons.mrr import logic as mrr
from lessons.ndcg import logic as ndcg
from lessons.recall_precision import logic as recall_precision
from teaching import exercises as E
from teaching import measures, mistakes
from ui import exercise_panel

SEEDS = range(400)
LESSONS = {"recall_precision": recall_precision.EXERCISES, "mrr": mrr.EXERCISES,
           "ndcg": ndcg.EXERCISES}
# Measures whose case is not one ranking: a live question (one ranking, one k) cannot hold them.
NOT_ONE_RANKING = {"mrr", "faithfulness"}


def parsed(fields: dict, params: dict[str, str]) -> dict:
    """What a page reads from a link: each field's own parser, as ``runtime.state`` runs it."""
    return {name: fields[name].parse(params[name]) if name in params else fields[name].default
            for name in fields}


def lesson_of(measure: str) -> tuple[str, tuple[str, ...]] | None:
    return next(((folder, among) for folder, among in LESSONS.items() if measure in among), None)


def wrong_values(ex: E.Exercise) -> dict[str, list[float]]:
    """Every wrong formula of the catalogue on this exercise, computed here."""
    if ex.metric == "mrr":
        args: tuple = ([(list(r), set(g)) for r, g in ex.questions],)
        formulas = mistakes.MEAN_MISTAKES["mrr"]
    elif ex.metric == "faithfulness":
        args = ([s.verdict for s in E.faithfulness_report(ex).sentences],)
        formulas = mistakes.FAITHFULNESS_MISTAKES
    else:
        args = (list(ex.ranking), ex.qrels if ex.graded else set(ex.relevant), ex.k)
        formulas = mistakes.MISTAKES[ex.metric]
    out = {}
    for key, formula in formulas.items():
        result = formula(*args)
        out[key] = [] if result is None else result if isinstance(result, list) else [result]
    return out


def test_every_measure_is_taught_somewhere():
    taught = {m for among in LESSONS.values() for m in among}
    assert taught == set(E.PRACTICE_METRICS) - {"faithfulness"}   # lesson 4 checks sentences
    assert set(live.QUESTION_MEASURES) == set(E.PRACTICE_METRICS) - NOT_ONE_RANKING


@pytest.mark.parametrize("measure", E.PRACTICE_METRICS)
def test_the_same_exercise_in_a_lesson_practice_live_and_a_link(measure):
    lesson = lesson_of(measure)
    practice_fields = exercise_panel.PRACTICE_FIELDS
    for seed in SEEDS:
        ex = E.generate(measure, seed)                                    # /practice
        link = parsed(practice_fields, exercise_panel.practice_link(measure, seed))
        assert E.generate(link["m"], link["s"]) == ex                      # its shared link
        if lesson is not None:
            _folder, among = lesson
            fields = exercise_panel.lesson_fields(among)
            assert E.pick(among, measure, seed) == ex                       # the lesson
            link = parsed(fields, exercise_panel.lesson_link(measure, seed))
            assert E.pick(among, link["exm"], link["ex"]) == ex            # the lesson's link
            anyone = parsed(fields, exercise_panel.lesson_link("any", seed))
            assert E.pick(among, anyone["exm"], anyone["ex"]) == E.generate(
                among[seed % len(among)], seed)                            # "any", by the seed
        if measure in NOT_ONE_RANKING:
            with pytest.raises(ValueError):
                live.exercise_scenario(ex)
            continue
        spec = live.exercise_question(measure, seed)                       # a live question
        assert spec.measure == measure and spec.kind == "numeric"
        assert spec.scenario == {"ranking": list(ex.ranking), "qrels": dict(ex.judgments),
                                 "k": ex.k}
        assert spec.correct == f"{ex.answer:.4f}" and spec.tolerance == ex.tolerance
        scenario = live.Scenario("exercise", tuple(spec.scenario["ranking"]),
                                 spec.scenario["qrels"], spec.scenario["k"])
        assert live.value(measure, scenario.ranking, scenario.qrels, scenario.k) == pytest.approx(
            ex.answer, abs=1e-12)


@pytest.mark.parametrize("measure", E.PRACTICE_METRICS)
def test_no_wrong_formula_is_ambiguously_close_to_the_answer(measure):
    for seed in SEEDS:
        ex = E.generate(measure, seed)
        tol, right = ex.tolerance, ex.answer
        assert tol == measures.MEASURES[measure].tolerance
        values = wrong_values(ex)
        assert any(abs(v - right) > tol for key in measures.MEASURES[measure].headline
                   for v in values.get(key, [])), (measure, seed, "no headline mistake")
        for key, found in values.items():
            for v in found:
                gap = abs(v - right)
                assert gap <= tol or gap > 3 * tol, (measure, seed, key, v, right)
                if right:
                    assert abs(v - 100 * right) > 100 * tol + 3 * tol, (measure, seed, key)


def _clear_of(right: float, values: dict[str, list[float]], tol: float) -> list[str]:
    """The wrong formulas ambiguously close to ``right`` (or to it as a percentage)."""
    return [key for key, found in values.items() for v in found
            if tol < abs(v - right) <= 3 * tol
            or (right and abs(v - 100 * right) <= 100 * tol + 3 * tol)]


def test_the_other_generated_exercises_follow_the_same_rule():
    """Lesson 1's faithfulness number and lesson 6's mean recall@k are generated too: their
    wrong formulas come from the same catalogue and obey the same 3× rule."""
    from lessons.diagnose import logic as diagnose
    from lessons.two_stages import logic as two_stages

    for seed in SEEDS:
        stage = two_stages.stage_exercise(seed)
        n = stage.numbers
        values = mistakes.sentence_mistake_values(two_stages.sentences_of(n))
        assert _clear_of(n.faithfulness, values, two_stages.TOLERANCE) == [], seed
        assert set(values) <= set(mistakes.CATALOGUE)
        mean = diagnose.retrieval_exercise(seed)
        values = mistakes.mean_mistake_values("recall", mean.questions, mean.k)
        assert _clear_of(mean.answer, values, diagnose.TOLERANCE) == [], seed
        assert set(values) <= set(mistakes.CATALOGUE)
