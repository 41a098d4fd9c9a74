"""ui/exercise_panel.py under AppTest, through the real app shell: a known wrong answer
gets that mistake's feedback, the right one gets "correct" and the working, each submission is
reported once, predict items reveal before/after, the presenter view hides the working.

``MIZAN_EXTRA_PAGES`` adds the test page ``tests/apps/exercise_page.py``."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from teaching import exercises as E
from teaching import mistakes
from tests.apptest_helpers import ROOT, alert_text, open_lesson
from text import bidi

PAGE = "tests/apps/exercise_page.py"


@pytest.fixture(autouse=True)
def _exercise_page(monkeypatch):
    monkeypatch.setenv("MIZAN_EXTRA_PAGES", f"exercise={PAGE}")
    monkeypatch.chdir(ROOT)


def open_page(params: dict[str, str]) -> AppTest:
    return open_lesson(PAGE, params)


def submit(at: AppTest, ex: E.Exercise, typed: str) -> None:
    base = f"t-{ex.kind}-{ex.metric}-{ex.seed}"
    at.text_input(key=f"{base}-typed").input(typed)
    next(b for b in at.button if b.form_id == f"{base}-form").click().run()
    assert not at.exception, [e.value for e in at.exception]


def reports(at: AppTest) -> list[str]:
    text = next(t.value for t in at.text if t.value.startswith("reports="))
    return [r for r in text.removeprefix("reports=").split("|") if r]


def shown(at: AppTest) -> str:
    return bidi.strip_bidi_controls("\n".join(str(m.value) for m in at.markdown))


def plain(text: str) -> str:
    return bidi.strip_bidi_controls(text)


@pytest.mark.parametrize("metric, seed, lang", [
    ("recall", 11, "en"), ("ndcg", 4, "ar"), ("faithfulness", 2, "ar"), ("mrr", 8, "en"),
])
def test_wrong_then_right(metric, seed, lang):
    ex = E.generate(metric, seed, lang=lang)
    at = open_page({"metric": metric, "seed": str(seed), "lang": lang})
    page = shown(at)
    if metric == "faithfulness":
        assert all(plain(bidi.escape_markdown(s)) in page for s in ex.source)
    else:
        assert "`d" in page                                  # documents shown as code

    values = next(iter(E.mistake_values(ex).values()))
    wrong = f"{values[0]:.4f}"
    attempt = E.check(ex, wrong)
    assert attempt.status == "wrong" and attempt.mistake in E.mistake_ids(metric)
    steps_heading = E.texts(lang)["labels"]["steps"]
    submit(at, ex, wrong)
    # A first wrong answer names the mistake and gives a hint; the full feedback (with the
    # right number) and the working wait for a second one.
    first = plain(str(at.error[0].value))
    assert plain(E.first_try_feedback(ex, attempt, lang)) in first
    assert plain(mistakes.text(attempt.mistake, "misconception", lang)) in first
    assert plain(E.feedback(ex, attempt, lang)) not in first
    assert steps_heading not in shown(at)          # only behind "show the solution"
    assert reports(at) == [f"wrong:{attempt.mistake}"]

    at.button(key="ex-rerun").click().run()                  # another widget's rerun
    assert reports(at) == [f"wrong:{attempt.mistake}"]       # not reported twice
    assert at.error, "the verdict stays shown"

    submit(at, ex, wrong)
    assert plain(E.feedback(ex, attempt, lang)) in plain(str(at.error[0].value))
    assert steps_heading in shown(at)                          # the working, after two tries
    assert reports(at) == [f"wrong:{attempt.mistake}"] * 2

    submit(at, ex, f"{ex.answer:.2f}")
    assert at.success and not at.error
    assert reports(at) == [f"wrong:{attempt.mistake}"] * 2 + ["correct:None"]
    assert steps_heading in shown(at)                          # the working, shown at once
    first_step = E.steps(ex)[0]
    if first_step.formula:
        assert first_step.formula in shown(at)


def test_same_answer_submitted_twice_is_reported_twice():
    ex = E.generate("precision", 5, lang="en")
    at = open_page({"metric": "precision", "seed": "5", "lang": "en"})
    submit(at, ex, "abc")
    assert "abc" not in alert_text(at) and at.warning          # not a number: amber
    submit(at, ex, "abc")
    assert reports(at) == ["not_a_number:None", "not_a_number:None"]


def test_percent_answers():
    ex = E.generate("precision", 6, lang="en")
    at = open_page({"metric": "precision", "seed": "6", "lang": "en"})
    submit(at, ex, f"{100 * ex.answer:.1f}")
    assert reports(at) == ["wrong:percent_not_fraction"]
    submit(at, ex, f"{100 * ex.answer:.1f}%")
    assert reports(at)[-1] == "correct:None"


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_predict_reveals_before_and_after(lang):
    seed = next(s for s in range(100) if E.predict_exercise(s).direction != "same")
    ex = E.predict_exercise(seed)
    at = open_page({"metric": "any", "seed": str(seed), "kind": "predict", "lang": lang})
    base = f"t-predict-{ex.metric}-{seed}"
    wrong = "down" if ex.direction == "up" else "up"
    at.radio(key=f"{base}-direction").set_value(wrong)
    at.radio(key=f"{base}-size").set_value("small")
    next(b for b in at.button if b.form_id == f"{base}-form").click().run()
    assert not at.exception
    assert reports(at) == ["wrong:predict_wrong_direction"]
    # first wrong: the slip named, the before/after not yet given away
    first = plain(str(at.error[0].value))
    assert plain(E.first_try_feedback(ex, E.check(ex, wrong), lang)) in first
    assert plain(E.feedback(ex, E.check(ex, wrong), lang)) not in first
    # the reveal waits behind "show the solution" (an expander: rendered, but closed)
    solution = next(e for e in at.expander if E.texts(lang)["labels"]["solution"] in e.label)
    assert E.steps(ex)[1].formula in "\n".join(str(m.value) for m in solution.markdown)
    assert shown(at).count(E.steps(ex)[1].formula) == 1
    at.radio(key=f"{base}-direction").set_value(ex.direction)
    at.radio(key=f"{base}-size").set_value(ex.size)
    next(b for b in at.button if b.form_id == f"{base}-form").click().run()
    assert reports(at)[-1] == "correct:None" and at.success
    page = shown(at)
    before, after = E.steps(ex)[0].formula, E.steps(ex)[1].formula
    assert before in page and after in page


def test_presenter_view_hides_the_working_until_revealed():
    ex = E.generate("ap", 3, lang="en")
    at = open_page({"metric": "ap", "seed": "3", "lang": "en", "present": "1"})
    submit(at, ex, f"{ex.answer:.2f}")
    assert at.success
    formula = E.steps(ex)[-1].formula
    assert formula not in shown(at)
    toggle = next(tg for tg in at.toggle if tg.key.startswith("mz-reveal-t-compute-ap-3"))
    toggle.set_value(True).run()
    assert formula in shown(at)


def test_presenter_view_reveals_a_prediction_on_request():
    seed = next(s for s in range(100) if E.predict_exercise(s).direction == "same")
    ex = E.predict_exercise(seed)
    at = open_page({"metric": "any", "seed": str(seed), "kind": "predict", "lang": "ar",
                    "present": "1"})
    base = f"t-predict-{ex.metric}-{seed}"
    at.radio(key=f"{base}-direction").set_value("same")
    next(b for b in at.button if b.form_id == f"{base}-form").click().run()
    assert reports(at) == ["correct:None"]
    after = E.steps(ex, "ar")[1].formula
    assert after not in shown(at)
    next(tg for tg in at.toggle if tg.key == f"mz-reveal-{base}-reveal").set_value(True).run()
    assert after in shown(at)
