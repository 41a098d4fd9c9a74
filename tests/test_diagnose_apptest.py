"""Lesson 6 under Streamlit's AppTest: the worked numbers, each step of the walkthrough with its
check, progress in the URL, the presenter view, the exercise, the quiz, bad links."""

from __future__ import annotations

from fractions import Fraction

import pytest
from streamlit.testing.v1 import AppTest

from lessons.diagnose import logic
from tests.apptest_helpers import alert_text as alerts
from tests.apptest_helpers import open_lesson
from text import bidi
from text.i18n import load_content

PAGE = "lessons/diagnose/page.py"
KEY = {"l": "1-3-56-8-7", "f": "34", "u": "12-1-12-_-1", "x": "retrieval"}


def run(params: dict[str, str] | None = None) -> AppTest:
    return open_lesson(PAGE, params)


def text(at: AppTest) -> str:
    return bidi.strip_bidi_controls("\n".join(str(m.value) for m in at.markdown))




def pills(at: AppTest, key_prefix: str):
    return next(p for p in at.button_group if p.key.startswith(f"diagnose.{key_prefix}."))



@pytest.mark.parametrize("lang", ["ar", "en"])
def test_opens_on_step_1_with_the_worked_numbers_and_every_section(lang):
    at = run({"lang": lang})
    page = text(at)
    content = load_content("diagnose", lang)
    for key in ("core_idea", "worked_example", "try_it", "myths", "exercise", "cards", "quiz"):
        assert content[key]["heading"] in page
    # the worked example is the handbook's answer key: mean recall@3 and MRR@3 both 0.7, q4 a
    # total miss, q3 a partial one; faithfulness 0.53 overall, 0.67 and 0.33 in the two groups
    assert "(1.0 + 1.0 + 0.5 + 0.0 + 1.0) ÷ 5 = 0.7**" in page
    assert "(1.0 + 0.5 + 1.0 + 0.0 + 1.0) ÷ 5 = 0.7**" in page
    assert "| q4 | 0.0 | 0.0 |" in page and "| q3 | 0.5 | 1.0 |" in page
    assert "÷ 5 = 0.53**" in page and "÷ 3 = 0.67**" in page and "(2/3 + 0/1) ÷ 2 = 0.33**" in page
    assert bidi.strip_bidi_controls(content["try_it"]["step1"]["title"]) in page
    assert len([p for p in at.button_group if p.key.startswith("diagnose.l")]) == 5
    assert f'dir="{"rtl" if lang == "ar" else "ltr"}" lang="{lang}"' in page
    assert not at.error and not at.warning


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_walk_through_the_four_steps(lang):
    at = run({"lang": lang})
    c = load_content("diagnose", lang)["try_it"]
    sc = logic.scenario(load_content("diagnose", lang))
    # step 1: label q2 with the expired memo too, forget d5 for q3; the rest right
    wrong = {0: ["d1"], 1: ["d3", "d4"], 2: ["d6"], 3: ["d8"], 4: ["d7"]}
    for i, docs in wrong.items():
        group = pills(at, f"l{i}")
        group.set_value([n for n, d in enumerate(sc.docs, start=1) if d.id in docs]).run()
    assert at.query_params["l"] == "1-34-6-8-7"
    at.button(key="dg-check-1").click().run()
    assert at.query_params["ck"] == "1"
    feedback = alerts(at) + text(at)
    assert "3" in feedback and "d4" in feedback and "d5" in feedback
    assert bidi.strip_bidi_controls(sc.questions[1].traps["d4"]) in text(at)
    at.button(key="dg-next-1").click().run()
    assert at.query_params["st"] == "2"
    # step 2: q2 is not a failure (RR 0.5 only), q4 is
    pills(at, "f").set_value([2, 4]).run()
    at.button(key="dg-check-2").click().run()
    page, said = text(at), alerts(at)
    assert "q3" in said and "q2" in said               # missed q3, q2 wrongly flagged
    assert "| 0.70 |" not in page and "**0.70**" in page  # the mean row
    assert "| **q4** | 0.00 | 0.00 |" in page            # failing rows highlighted
    assert "0.9" in said or "0.8" in said              # the learner's labels move the numbers
    at.button(key="dg-next-2").click().run()
    # step 3: mark every sentence of q4 supported (it is not)
    for i, q in enumerate(sc.questions):
        picked = sorted(q.supported | ({1} if q.id == "q4" else set()))
        pills(at, f"u{i}").set_value(picked).run()
    at.button(key="dg-check-3").click().run()
    assert bidi.strip_bidi_controls(sc.questions[3].sentences[0].note) in text(at)
    # the metric cards (the worked example's prose holds these numbers too): faithfulness over
    # all answers, where retrieval worked, where it failed
    cards = [f'<bdi dir="ltr">{v}</bdi>' for v in ("0.53", "0.67", "0.33")]
    assert all(card in text(at) for card in cards)
    at.button(key="dg-next-3").click().run()
    # step 4: a wrong fix, then the right one
    radio = next(r for r in at.radio if r.key.startswith("diagnose.x."))
    radio.set_value("bigger_model").run()
    at.button(key="dg-check-4").click().run()
    assert at.error
    assert bidi.strip_bidi_controls(c["fix_feedback"]["bigger_model"])[:40] in alerts(at)
    next(r for r in at.radio if r.key.startswith("diagnose.x.")).set_value("retrieval").run()
    assert at.success
    assert bidi.strip_bidi_controls(c["step4"]["summary"]).strip()[:30] in text(at)
    assert at.query_params["ck"] == "1234" and at.query_params["x"] == "retrieval"


def test_the_right_labels_and_picks_get_the_right_feedback():
    at = run({"lang": "en", **KEY, "ck": "123", "st": "1"})
    assert "All five questions are labelled" in alerts(at)
    pills(at, "st").set_value(2).run()
    assert "Right: retrieval failed on" in alerts(at)
    assert "With your own labels" not in alerts(at)
    pills(at, "st").set_value(3).run()
    assert "You judged every sentence as the answer key does." in alerts(at)


def test_steps_stay_closed_until_the_earlier_one_is_checked():
    at = run({"lang": "en"})
    pills(at, "st").set_value(3).run()
    assert "Check step 1 first." in alerts(at)
    assert at.query_params.get("st", "1") == "1"
    assert "Step 1: label the golden set" in text(at)
    assert not any(b.key == "dg-next-1" for b in at.button)   # no "next" before a check


def test_a_shared_link_reopens_the_same_step_and_answers():
    at = run({"lang": "en", **KEY, "ck": "12", "st": "3"})
    assert "Step 3: measure faithfulness" in text(at)
    assert pills(at, "u2").value == [1, 2]
    # a link to a step whose earlier steps were never checked opens the furthest open one
    at = run({"lang": "en", "st": "4", "ck": "1"})
    assert "Step 2: measure retrieval" in text(at) and "Check step 2 first." in alerts(at)


def test_restart_clears_the_walkthrough():
    at = run({"lang": "en", **KEY, "ck": "1234", "st": "4"})
    at.button(key="dg-restart").click().run()
    assert "Step 1: label the golden set" in text(at)
    assert all(not pills(at, f"l{i}").value for i in range(5))


@pytest.mark.parametrize("params", [
    {"st": "9"}, {"st": "x"}, {"ck": "15"}, {"ck": "11"}, {"l": "1-2"}, {"l": "9-_-_-_-_"},
    {"f": "7"}, {"u": "<img src=x onerror=alert(1)>"}, {"x": "drop_table"}, {"ex": "-1"},
])
def test_a_bad_link_falls_back_with_a_message(params):
    at = run({**params, "lang": "en"})
    assert at.warning, "a message explains the link could not be read"
    assert "Step 1: label the golden set" in text(at)
    assert "<img" not in text(at)


def test_presenter_view_hides_the_feedback_until_revealed():
    at = run({"lang": "en", "present": "1", **KEY, "ck": "12", "st": "2"})
    assert "Right: retrieval failed" not in alerts(at)
    reveal = next(t for t in at.toggle if t.key == "mz-reveal-dg-step2")
    reveal.set_value(True).run()
    assert "Right: retrieval failed" in alerts(at)


def answer(at: AppTest, text_key: str, value: str) -> None:
    at.text_input(key=text_key).set_value(value)
    form = text_key.removesuffix("-typed") + "-form"
    next(b for b in at.button if b.form_id == form).click().run()


def test_exercise_feedback_names_the_mistake():
    seed = next(s for s in range(100)
                if logic.retrieval_exercise(s).check_mean(
                    logic.retrieval_exercise(s).mistakes()["mean_recall_pooled"])
                == "mean_recall_pooled")
    ex = logic.retrieval_exercise(seed)
    at = run({"ex": str(seed), "lang": "en"})
    key = f"dg-ex-{seed}"
    full = next(q for q in ex.ids if q not in ex.failing)
    at.button_group(key=key + "-failing").set_value([full])
    next(b for b in at.button if b.form_id == key + "-failing-form").click().run()
    said = alerts(at)
    assert f"{full}:" in said and "recall@3 = 1" in said
    assert any(f"{q}:" in said for q in ex.failing)          # the missed failures are named
    answer(at, key + "-typed", f"{ex.mistakes()['mean_recall_pooled']:.4f}")
    assert "You pooled the hits" in alerts(at)
    answer(at, key + "-typed", f"{ex.answer:.3f}")
    assert "Correct:" in alerts(at)
    # the instruction says "a decimal or a fraction": the exact fraction is right too
    answer(at, key + "-typed", str(Fraction(ex.answer).limit_denominator(1000)))
    assert "Correct:" in alerts(at)


def test_quiz_items_answer():
    at = run({"lang": "en"})
    answer(at, "mz-quiz-dg-mean-recall-typed", "0.625")
    assert any("Right" in str(s.value) for s in at.success)
    at.radio(key="mz-quiz-dg-pooled-vs-mean-pick").set_value(1).run()
    at.button(key="mz-quiz-dg-pooled-vs-mean-check").click().run()
    assert any("Not quite" in str(e.value) for e in at.error)
