"""Lesson 1 under Streamlit's AppTest: the seed numbers, the diagram, the sorter and its URL
state, the presenter view, the exercise, the quiz, bad links."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from lessons.two_stages import logic
from tests.apptest_helpers import alert_text as alerts
from tests.apptest_helpers import open_lesson
from text import bidi
from text.i18n import load_content

PAGE = "lessons/two_stages/page.py"


def run(params: dict[str, str] | None = None) -> AppTest:
    return open_lesson(PAGE, params)


def text(at: AppTest) -> str:
    return bidi.strip_bidi_controls("\n".join(str(m.value) for m in at.markdown))




def pick_radio(at: AppTest, case_index: int):
    return next(r for r in at.radio if r.key and r.key.startswith(f"two_stages.pick-{case_index}."))



@pytest.mark.parametrize("lang", ["ar", "en"])
def test_opens_with_the_diagram_the_seed_numbers_and_every_section(lang):
    at = run({"lang": lang})
    page = text(at)
    content = load_content("two_stages", lang)
    for key in ("core_idea", "worked_example", "try_it", "myths", "exercise", "cards", "quiz"):
        assert content[key]["heading"] in page
    # the seed's leave example: retrieval fine, faithfulness 2/3
    # each formula bold as a whole, one left-to-right run in Arabic (issue #14, item 21)
    assert "**recall@3 = 1/1 = 1.0**" in page and "**RR@3 = 1/1 = 1.0**" in page
    assert "**2/3 ≈ 0.67**" in page
    # the diagram: inline SVG, direction of the language, text from the content file
    assert '<svg xmlns="http://www.w3.org/2000/svg"' in page
    assert f'direction="{"rtl" if lang == "ar" else "ltr"}"' in page
    assert bidi.strip_bidi_controls(content["diagram"]["rule"]) in page
    assert f'dir="{"rtl" if lang == "ar" else "ltr"}" lang="{lang}"' in page
    assert not at.error and not at.warning
    # the first case, unanswered: four verdicts to choose from, no verdict shown yet
    radio = pick_radio(at, 0)
    assert radio.value is None and len(radio.options) == 4 and not radio.disabled
    assert not at.get("metric") and ".mz-metric" not in page


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_picking_a_stage_shows_the_verdict_the_reason_and_the_numbers(lang):
    at = run({"lang": lang})
    content = load_content("two_stages", lang)["try_it"]
    pick_radio(at, 0).set_value("invented").run()       # case 1 (leave): right
    assert at.query_params["p"] == "v_______"
    assert bidi.strip_bidi_controls(content["verdicts"]["invented"]) in alerts(at)
    assert at.success and not at.error
    page = text(at)
    assert "0.67" in page and "2 / 3" in page          # faithfulness card
    assert "cash out" in page or "نقدًا" in page      # the reason's sentence list
    assert pick_radio(at, 0).disabled                  # the first choice counts
    # case 2 (meals) by the case pills, wrong answer: the right one is named
    pills = next(p for p in at.button_group if p.key.startswith("two_stages.c."))
    pills.set_value(2).run()
    assert at.query_params["c"] == "2"
    pick_radio(at, 1).set_value("nothing").run()
    assert at.error and bidi.strip_bidi_controls(content["verdicts"]["retrieval"]) in alerts(at)
    assert at.query_params["p"] == "vn______"
    score = bidi.strip_bidi_controls(content["labels"]["score"])
    assert score.split("{{")[0].strip() in text(at)


def test_next_and_start_over():
    at = run({"lang": "en"})
    at.button(key="ts-next").click().run()
    assert at.query_params["c"] == "2"
    assert "daily meal allowance" in text(at)
    pick_radio(at, 1).set_value("retrieval").run()
    assert "Sorted right: 1 of 1 answered" in text(at)
    at.button(key="ts-reset").click().run()
    assert "Sorted right: 0 of 0 answered" in text(at)
    assert "How many days of annual leave" in text(at)
    assert pick_radio(at, 0).value is None


def test_a_shared_link_reopens_the_sorted_cases():
    at = run({"lang": "en", "c": "3", "p": "vr______"})
    page = text(at)
    assert "How many days a week can I work from home?" in page
    assert "Sorted right: 2 of 2 answered" in page
    assert pick_radio(at, 2).value is None
    # The same link opened on case 1 (a link opens a new session; within one session a URL that
    # repeats a value the page just held is the browser lagging, see runtime.state).
    at = run({"lang": "en", "c": "1", "p": "vr______"})
    assert pick_radio(at, 0).value == "invented" and pick_radio(at, 0).disabled


def test_all_cases_sorted_shows_the_final_score():
    picks = "".join(logic.LETTERS[c.verdict] for c in logic.cases(load_content("two_stages",
                                                                               "en")))
    at = run({"lang": "en", "p": picks})
    assert "You have sorted all 8 cases: 8 right." in text(at)


@pytest.mark.parametrize("params", [
    {"c": "0"}, {"c": "9"}, {"c": "abc"}, {"p": "xxxxxxxx"}, {"p": "v"},
    {"p": "<img src=x onerror=alert(1)>"}, {"ex": "-4"}, {"ex": "1e9x"},
])
def test_a_bad_link_falls_back_with_a_message(params):
    at = run({**params, "lang": "en"})
    assert at.warning, "a message explains the link could not be read"
    assert "How many days of annual leave" in text(at)
    assert "<img" not in text(at)


def test_presenter_view_hides_the_verdict_until_revealed():
    at = run({"lang": "en", "present": "1"})
    pick_radio(at, 0).set_value("ignored").run()
    page = text(at)
    assert "The class chose: Generation ignored the right chunk." in page
    assert not at.error and not at.success             # no verdict yet
    assert "Sorted right" not in page                  # no score on the projector
    reveal = next(t for t in at.toggle if t.key == "mz-reveal-ts-case-leave")
    reveal.set_value(True).run()
    assert "Not this time. The answer: Generation invented what no chunk says." in alerts(at)
    assert "0.67" in text(at)


def answer(at: AppTest, text_key: str, value: str) -> None:
    """Type into a form's text box and submit the form, in one run (as a browser does)."""
    at.text_input(key=text_key).set_value(value)
    form = text_key.removesuffix("-typed") + "-form"
    next(b for b in at.button if b.form_id == form).click().run()


def test_exercise_feedback_names_the_mistake():
    seed = next(s for s in range(200) if logic.stage_exercise(s).verdict == "invented"
                and logic.stage_exercise(s).numbers.uses_golden
                != logic.stage_exercise(s).numbers.faithfulness)
    ex = logic.stage_exercise(seed)
    feedback = load_content("two_stages", "en")["exercise"]["feedback"]
    at = run({"ex": str(seed), "lang": "en"})
    radio = at.radio(key=f"ts-ex-{seed}-stage")
    radio.set_value("nothing").run()
    assert feedback["stage_missed_invention"].split("(")[0].strip() in alerts(at)
    at.radio(key=f"ts-ex-{seed}-stage").set_value("invented").run()
    assert at.success
    answer(at, f"ts-ex-{seed}-typed", f"{ex.numbers.uses_golden:.3f}")
    assert "You counted only the sentences backed by a golden document" in alerts(at)
    answer(at, f"ts-ex-{seed}-typed", "abc")
    assert "isn't a number" in alerts(at)
    answer(at, f"ts-ex-{seed}-typed", "2.5")     # no slip of the catalogue gives it
    assert "always between 0 and 1" in alerts(at)
    answer(at, f"ts-ex-{seed}-typed", "  ")      # "check" on an empty box: no verdict
    assert "Type your answer in the box first" in alerts(at)
    assert "isn't a number" not in alerts(at) and "between 0 and 1" not in alerts(at)
    answer(at, f"ts-ex-{seed}-typed", f"{ex.numbers.supported}/{ex.numbers.sentences}")
    assert "Correct:" in alerts(at)
    at.button(key="ts-ex-new").click().run()
    assert at.query_params["ex"] != str(seed)


def test_quiz_items_answer():
    at = run({"lang": "en"})
    answer(at, "mz-quiz-ts-faithfulness-share-typed", "3/4")
    assert any("Right" in str(s.value) for s in at.success)
    radio = at.radio(key="mz-quiz-ts-fix-first-pick")
    radio.set_value(1).run()
    at.button(key="mz-quiz-ts-fix-first-check").click().run()
    assert any("Not quite" in str(e.value) for e in at.error)
