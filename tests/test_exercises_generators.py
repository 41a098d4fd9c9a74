"""The practice hub's generated exercises (teaching/exercises.py): every exercise is
solvable, its answer is what ``metrics`` computes, every diagnosed mistake is exactly the wrong
formula's value and never the right one, the same seed gives the same exercise, the
faithfulness cases are built so the checker reaches the intended verdicts, and every mistake
has its feedback text in both languages."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import metrics
from metrics import faithfulness
from teaching import exercises as E
from teaching import mistakes
from teaching.cases import _FACTS, fact_sentence
from text import plural
from text.i18n import fill, placeholders

SEEDS = st.integers(0, E.MAX_SEED)
SETTINGS = settings(max_examples=80, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def reference(ex: E.Exercise) -> float:
    """The right answer, straight from the public ``metrics`` functions."""
    ranking, k = list(ex.ranking), ex.k
    binary = set(ex.relevant)
    if ex.metric == "mrr":
        rrs = [metrics.reciprocal_rank(list(r), set(g)) for r, g in ex.questions]
        return sum(rrs) / len(rrs)
    if ex.metric == "faithfulness":
        return faithfulness.check(" ".join(t for t, _ in ex.sentences), list(ex.source)).score
    return {
        "hit_rate": lambda: metrics.hit_rate(ranking, binary, k),
        "precision": lambda: metrics.precision(ranking, binary, k),
        "recall": lambda: metrics.recall(ranking, binary, k),
        "f1": lambda: metrics.f1(ranking, binary, k),
        "rr": lambda: metrics.reciprocal_rank(ranking, binary, k),
        "ap": lambda: metrics.average_precision(ranking, binary, k),
        "dcg": lambda: metrics.dcg(ranking, ex.qrels, k),
        "idcg": lambda: metrics.idcg(ranking, ex.qrels, k),
        "ndcg": lambda: metrics.ndcg(ranking, ex.qrels, k),
    }[ex.metric]()


def catalogue(metric: str) -> Mapping[str, Any]:
    if metric == "mrr":
        return mistakes.MEAN_MISTAKES["mrr"]
    if metric == "faithfulness":
        return mistakes.FAITHFULNESS_MISTAKES
    return mistakes.MISTAKES[metric]


def wrong_values(ex: E.Exercise, key: str) -> list[float]:
    """The value(s) of one wrong formula on ``ex``, computed here from the catalogue."""
    formula = catalogue(ex.metric)[key]
    if ex.metric == "mrr":
        result = formula([(list(r), set(g)) for r, g in ex.questions])
    elif ex.metric == "faithfulness":
        result = formula([s.verdict for s in E.faithfulness_report(ex).sentences])
    else:
        qrels = ex.qrels if ex.graded else set(ex.relevant)
        result = formula(list(ex.ranking), qrels, ex.k)
    return [] if result is None else result if isinstance(result, list) else [result]


@pytest.mark.parametrize("metric", E.PRACTICE_METRICS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS)
def test_every_exercise_is_solvable_and_diagnoses_mistakes(metric, seed):
    ex = E.generate(metric, seed)
    assert ex == E.generate(metric, seed)                      # the seed reproduces it
    assert ex.metric == metric and ex.kind == "compute" and ex.seed == seed
    right = reference(ex)
    assert right is not None and math.isfinite(right)
    assert ex.answer == pytest.approx(right, abs=1e-12)
    tol = ex.tolerance
    assert E.check(ex, repr(ex.answer)).status == "correct"
    assert E.check(ex, f"{ex.answer:.2f}").status == "correct"  # two decimals are enough
    assert E.check(ex, "abc") == E.Attempt("not_a_number", None, None)

    found = E.mistake_values(ex)
    assert set(found) & E.HEADLINE[metric], "no headline mistake on this case"
    for key, values in found.items():
        assert values == [v for v in wrong_values(ex, key) if abs(v - right) > tol]
        for value in values:
            assert abs(value - right) > E.AMBIGUOUS * tol      # never close to the right one
            for typed in (repr(value), f"{value:.2f}"):
                attempt = E.check(ex, typed)
                assert attempt.status == "wrong", (key, typed)
                # the first catalogue mistake with this number (maybe ``key`` itself)
                diagnosed = attempt.mistake
                assert diagnosed in catalogue(metric), (key, typed, diagnosed)
                assert list(catalogue(metric)).index(diagnosed) <= list(
                    catalogue(metric)).index(key)
                assert any(abs(v - attempt.value) <= tol + 1e-9
                           for v in wrong_values(ex, diagnosed))
                assert all(abs(v - right) > tol for v in wrong_values(ex, diagnosed)
                           if abs(v - attempt.value) <= tol + 1e-9)

    if right and metric not in ("dcg", "idcg"):
        assert E.check(ex, repr(100 * right)).mistake == "percent_not_fraction"
        assert E.check(ex, f"{100 * right}%").status == "correct"


@pytest.mark.parametrize("metric", E.PRACTICE_METRICS)
def test_each_mistake_is_diagnosed_as_itself_somewhere(metric):
    """Over many seeds, typing a mistake's value names that very mistake (not only an earlier
    one that happens to give the same number)."""
    seen: set[str] = set()
    named: set[str] = set()
    for seed in range(100):
        ex = E.generate(metric, seed)
        for key, values in E.mistake_values(ex).items():
            seen.add(key)
            if E.check(ex, repr(values[0])).mistake == key:
                named.add(key)
    assert named == seen
    # the natural log only rescales DCG and IDCG alike, so nDCG never changes with it
    never = {"discount_ln"} if metric == "ndcg" else set()
    assert set(catalogue(metric)) - seen == never


@SETTINGS
@given(seed=SEEDS)
def test_faithfulness_cases_get_the_intended_verdicts(seed):
    cases = {lang: E.generate("faithfulness", seed, lang=lang) for lang in ("ar", "en")}
    for lang, ex in cases.items():
        assert ex.lang == lang
        report = faithfulness.check(ex.answer_text, list(ex.source))
        assert [s.text for s in report.sentences] == [t for t, _ in ex.sentences]
        assert [s.verdict for s in report.sentences] == [
            E.INTENT_VERDICT[intent] for _, intent in ex.sentences]
        intents = {intent for _, intent in ex.sentences}
        assert "supported" in intents and intents & {"changed_number", "negated", "invented"}
        # the steps say a flag here means "a number or a negation differs": nothing else flags
        flagged = [s.reasons for s in report.sentences if s.verdict == "check"]
        assert all(set(r) <= {"number_not_in_source", "negation_differs"} for r in flagged)
    ar, en = cases["ar"], cases["en"]
    assert [i for _, i in ar.sentences] == [i for _, i in en.sentences]   # one case, two languages
    assert ar.answer == en.answer


def test_every_fact_says_its_number_with_an_agreeing_noun():
    """A fact's Arabic noun after its number is right for every number of its range: a fixed
    noun («{{n}} يومًا») only where the whole range is in one CLDR category, otherwise the
    counted form «{{n|دولار}}» (600 دولار، 603 دولارات، 615 دولارًا)."""
    for fact in _FACTS:
        lo, hi = fact["range"]
        for key in ("ar", "ar_neg"):
            if "{{n|" not in fact[key]:
                assert len({plural.category(n, "ar") for n in range(lo, hi + 1)}) == 1, fact[key]
    laptop = next(f for f in _FACTS if "دولار" in f["ar"])
    shown = {n: fact_sentence(laptop, "ar", n) for n in (600, 603, 615, 1000, 1010, 1250)}
    assert [s.split()[-1] for s in shown.values()] == [
        "دولار.", "دولارات.", "دولارًا.", "دولار.", "دولارات.", "دولارًا."]
    assert "615 دولارًا" in shown[615]
    assert fact_sentence(laptop, "en", 615).endswith("615 dollars.")


@pytest.mark.parametrize("verdicts, key, value", [
    (["supported", "not_scored", "check", "unsupported"], "faith_not_scored_counted", 1 / 4),
    (["supported", "not_scored", "check", "unsupported"], "faith_check_counted_supported", 2 / 3),
    (["supported", "check", "unsupported"], "faith_check_left_out", 1 / 2),
    (["supported", "check", "not_scored"], "faith_check_either_way", 1.0),
    (["supported", "supported", "check"], "faith_count_not_share", 2.0),
    (["supported", "check", "unsupported"], "faith_unsupported_share", 2 / 3),
])
def test_faithfulness_wrong_formulas(verdicts, key, value):
    assert mistakes.FAITHFULNESS_MISTAKES[key](verdicts) == pytest.approx(value)


def test_the_two_ways_of_not_counting_a_check_are_named_apart_when_they_differ():
    """With an unsupported sentence, counting a check as supported (2/3) and leaving it out
    (1/2) give different numbers: each is named alone, and the 'either way' text is not."""
    verdicts = ["supported", "check", "unsupported"]
    assert mistakes.FAITHFULNESS_MISTAKES["faith_check_either_way"](verdicts) is None
    source = "The main library opens at 8 in the morning. The training course lasts 4 weeks."
    answer = ("The main library opens at 8 in the morning. The training course lasts 6 weeks. "
              "Parking is free for every visitor on weekends.")
    report = faithfulness.check(answer, source)
    assert [s.verdict for s in report.sentences] == ["supported", "check", "unsupported"]
    assert mistakes.diagnose_faithfulness(report, 2 / 3) == "faith_check_counted_supported"
    assert mistakes.diagnose_faithfulness(report, 1 / 2) == "faith_check_left_out"


def test_faithfulness_diagnosis_on_a_real_report():
    source = "The main library opens at 8 in the morning. The training course lasts 4 weeks."
    answer = ("Hope this helps! The main library opens at 8 in the morning. "
              "The training course lasts 6 weeks.")
    report = faithfulness.check(answer, source)
    assert [s.verdict for s in report.sentences] == ["not_scored", "supported", "check"]
    assert report.score == 0.5
    assert mistakes.diagnose_faithfulness(report, 0.5) == "correct"
    assert mistakes.diagnose_faithfulness(report, 1 / 3) == "faith_not_scored_counted"
    # no unsupported sentence: counting the check as supported and leaving it out both give 1
    assert mistakes.diagnose_faithfulness(report, 1.0) == "faith_check_either_way"
    assert mistakes.diagnose_faithfulness(report, 50) == "percent_not_fraction"


# --- predict-then-reveal ------------------------------------------------------------------------


@SETTINGS
@given(seed=SEEDS, metric=st.sampled_from((None, *E.PREDICT_METRICS)))
def test_predict_exercises(seed, metric):
    ex = E.predict_exercise(seed, metric)
    assert ex == E.predict_exercise(seed, metric)
    assert ex.kind == "predict" and ex.metric in E.PREDICT_METRICS
    i, j = ex.swap
    assert 1 <= i < j <= len(ex.ranking)
    swapped = list(ex.ranking)
    swapped[i - 1], swapped[j - 1] = swapped[j - 1], swapped[i - 1]
    after = E.Exercise(0, ex.metric, "compute", 0, 0, tuple(swapped), ex.judgments, ex.k)
    before = E.Exercise(0, ex.metric, "compute", 0, 0, ex.ranking, ex.judgments, ex.k)
    assert ex.before == pytest.approx(reference(before), abs=1e-12)
    assert ex.answer == pytest.approx(reference(after), abs=1e-12)
    delta = ex.answer - ex.before
    assert ex.direction == ("same" if abs(delta) < 1e-9 else "up" if delta > 0 else "down")
    assert not 0.07 <= abs(delta) <= 0.13                     # the size question is clear
    assert E.check(ex, f"{ex.direction}:{ex.size or ''}").status == "correct"
    assert E.check_prediction(ex, ex.direction, ex.size).status == "correct"
    for other in set(E.PREDICT_DIRECTIONS) - {ex.direction}:
        assert E.check_prediction(ex, other, "small").mistake == (
            "predict_wrong_same" if ex.direction == "same" else "predict_wrong_direction")
    if ex.size:
        other = "small" if ex.size == "large" else "large"
        assert E.check_prediction(ex, ex.direction, other).mistake == "predict_wrong_size"
        assert E.check_prediction(ex, ex.direction, None).status == "not_a_number"
    assert E.check(ex, "sideways").status == "not_a_number"


def test_predict_covers_every_direction():
    seen = {E.predict_exercise(seed).direction for seed in range(60)}
    assert seen == {"up", "down", "same"}


# --- texts --------------------------------------------------------------------------------------


def _walk(a: Any, b: Any, path: str = "") -> Iterator[str]:
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                yield f"{path}{key}"
            else:
                yield from _walk(a[key], b[key], f"{path}{key}.")
    elif isinstance(a, str) and isinstance(b, str):
        if placeholders(a) != placeholders(b):
            yield f"{path[:-1]} (placeholders differ)"
        if not a.strip() or not b.strip():
            yield f"{path[:-1]} (empty)"
    else:
        yield f"{path[:-1]} (type differs)"


def test_texts_have_the_same_keys_and_placeholders_in_both_languages():
    assert list(_walk(E.texts("ar"), E.texts("en"))) == []


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_every_mistake_has_a_feedback_text(lang):
    verdicts = E.texts(lang)["verdict"]
    for metric in E.PRACTICE_METRICS:
        ex = E.generate(metric, 1, lang=lang)
        for key in ("correct", "not_a_number", "wrong_unknown"):
            assert any(key in verdicts.get(name, {}) for name in E.scopes(ex)), (metric, key)
        for key in ("percent_not_fraction", *E.mistake_ids(metric)):
            assert mistakes.text(key, "feedback", lang), (metric, key)
    for key in ("correct", "not_a_number"):
        assert key in verdicts["predict"]
    for key in ("predict_wrong_direction", "predict_wrong_same", "predict_wrong_size"):
        assert mistakes.text(key, "feedback", lang)
    # every value formula in the catalogue of teaching/mistakes.py has its feedback text
    every = {k for m in mistakes.MISTAKES.values() for k in m} | set(
        mistakes.MEAN_MISTAKES["mrr"]) | set(mistakes.FAITHFULNESS_MISTAKES)
    assert all(mistakes.text(key, "feedback", lang) for key in every)


@pytest.mark.parametrize("lang", ["ar", "en"])
@pytest.mark.parametrize("metric", E.PRACTICE_METRICS)
def test_texts_fill_with_every_exercise(metric, lang):
    """Every question, step and feedback text a metric can show fills with its values."""
    texts = E.texts(lang)
    for seed in range(25):
        ex = E.generate(metric, seed, lang=lang)
        values = E.feedback_values(ex, lang)
        fill(texts["question"][metric], values)
        for key in ("correct", "not_a_number", "percent_not_fraction", "wrong_unknown",
                    *E.mistake_ids(metric)):
            text = E.feedback(ex, E.Attempt("wrong", 0.0, key), lang)
            assert "{{" not in text
        for step in E.steps(ex, lang):
            shown = fill(texts["steps"][step.key], step.values)
            assert "{{" not in shown
            # an empty list gets a sentence of its own, not a lone dash ("never retrieved: —")
            assert not re.search(r": —[.)]", shown), shown
    for seed in range(25):
        ex = E.predict_exercise(seed)
        fill(texts["question"]["predict"], E.feedback_values(ex, lang))
        for attempt in (E.check(ex, ex.direction), E.check(ex, "x")):
            assert "{{" not in E.feedback(ex, attempt, lang)
        for step in E.steps(ex, lang):
            fill(texts["steps"][step.key], step.values)


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_an_unknown_rr_slip_is_told_about_the_first_relevant_document(lang):
    """Round 48: RR fell back to the binary text ("count the relevant documents in ranks 1
    to k"), beside the point for RR."""
    ex = E.generate("rr", 2, lang=lang)
    text = E.feedback(ex, E.Attempt("wrong", 0.0, None), lang)
    assert text == fill(E.texts(lang)["verdict"]["rr"]["wrong_unknown"], {"k": ex.k})
    assert f"RR@{ex.k}" in text


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_a_wrong_prediction_of_a_change_says_why_the_measure_stays(lang):
    """Round 49: "AP goes from 0.5833 to 0.5833. Look at which document moves up" when the
    right answer was "stays the same"."""
    seeds = [s for s in range(200) if E.predict_exercise(s).direction == "same"]
    assert len(seeds) > 10
    reasons = set()
    for seed in seeds:
        ex = E.predict_exercise(seed)
        text = E.feedback(ex, E.check_prediction(ex, "up", "small"), lang)
        why = str(E.feedback_values(ex, lang)["why"])
        assert why and why in text and "{{" not in text, (seed, text)
        before = round(ex.before, 4)     # a whole value reads "1", as the working does
        assert fill("{{x}}", {"x": int(before) if before.is_integer() else before}) in text
        assert not re.search(r"\b\d+\.0\b", text), (seed, text)
        reasons.add(why)
    assert len(reasons) >= 3            # the measures' own reasons, not one sentence for all


def test_feedback_names_the_mistake_with_the_case_numbers():
    ex = E.generate("recall", 3)
    values = E.mistake_values(ex)
    key = next(iter(values))
    attempt = E.check(ex, repr(values[key][0]))
    text = E.feedback(ex, attempt, "en")
    assert text == fill(mistakes.text(attempt.mistake, "feedback", "en"),
                        E.feedback_values(ex, "en"))
    assert f"{ex.k}" in text


def test_unknown_metric_is_refused():
    with pytest.raises(ValueError):
        E.generate("bleu", 1)
    with pytest.raises(ValueError):
        E.predict_exercise(1, "recall")


@pytest.mark.parametrize("metric", ["precision", "recall", "hit_rate", "f1", "rr"])
def test_binary_exercises_cut_at_two_or_more(metric):
    """k = 1 would print "ranks 1 to 1" and "fewer than 1 document" in the working."""
    assert min(E.generate(metric, seed).k for seed in range(400)) >= 2


@pytest.mark.parametrize(("key", "words"), [("ideal_not_cut", "أول درجتين"),
                                            ("ideal_from_retrieved", "أفضل درجتين")])
def test_a_grade_count_after_a_superlative_is_genitive(key, words):
    """Round 51: «إلا أول درجتان», «أفضل درجتان» at k = 2 (the noun follows أول/أفضل in idafa)."""
    text = mistakes.text(key, "feedback", "ar")
    assert words in fill(text, {name: 2 if name == "k" else "x"
                                for name in re.findall(r"\{\{(\w+)", text)})
