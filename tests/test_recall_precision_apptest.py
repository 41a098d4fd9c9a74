"""Lesson 2 under Streamlit's AppTest: seed numbers, every control, URL state, bad links."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from lessons.recall_precision import logic
from teaching import exercises as E
from teaching import mistakes
from tests.apptest_helpers import alert_text as alerts
from tests.apptest_helpers import open_lesson, strip_values
from text.i18n import load_content

PAGE = "lessons/recall_precision/page.py"


def run(params: dict[str, str] | None = None) -> AppTest:
    return open_lesson(PAGE, params)


def text(at: AppTest) -> str:
    return "\n".join(str(m.value) for m in at.markdown)





@pytest.mark.parametrize("lang", ["ar", "en"])
def test_at_k_1_the_meanings_speak_of_the_first_chunk(lang):
    """Round 59: at k = 1 (try-it step 2) the Arabic read «أول 1» ('the first 1')."""
    at = run({"lang": lang, "k": "1"})
    page = re.sub("[\u2066-\u2069]", "", text(at))
    content = load_content("recall_precision", lang)
    # the seed ranking opens on d7, not relevant
    assert content["interactive"]["hit_no_k1"].split("{{")[0][:20] in page
    assert "HitRate@1 = 0" in page
    for sentence in content["try_it"]["meanings_k1"].values():
        assert sentence.split("{{")[0][:25] in page
    assert "أول 1" not in page and "top 1" not in page and "the 1 chunk" not in page


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_opens_on_the_seed_example(lang):
    at = run({"lang": lang})
    page = text(at)
    for formula in ("recall@3 = 1 / 2 = 0.50", "precision@3 = 1 / 3 = 0.33",
                    "HitRate@3 = 1", "F1@3 = 2 × 1 / (3 + 2) = 0.40",
                    "RR@3 = 1 / 2 = 0.50"):
        assert formula in page
    assert "[1 > 0]" not in page          # HitRate in words, not in Iverson brackets
    content = load_content("recall_precision", lang)
    assert content["interactive"]["hit_yes"].split("{{")[0] in page
    # it opens on the interactive: the lead, then the ranking, before the long explanation
    plain = re.sub("[\u2066-\u2069]", "", page)     # the page isolates k, ids and formulas
    lead = plain.index(content["interactive"]["lead"].strip()[:30])
    assert lead < plain.index('id="mz-try-it"') < plain.index('id="mz-core-idea"')
    for key in ("core_idea", "worked_example", "try_it", "myths", "exercise", "cards", "quiz"):
        assert content[key]["heading"] in page
    assert f'dir="{"rtl" if lang == "ar" else "ltr"}" lang="{lang}"' in page
    assert not at.error and not at.warning


def test_k_slider_updates_every_metric_and_the_url():
    at = run()
    slider = next(s for s in at.slider if s.key.startswith("recall_precision.k"))
    slider.set_value(5).run()
    page = text(at)
    assert "recall@5 = 2 / 2 = 1.00" in page and "precision@5 = 2 / 5 = 0.40" in page
    assert at.query_params["k"] == "5"


def test_the_strip_shows_a_questions_hit_rate_as_a_whole_number():
    """A question's HitRate is a hit or not: the strip shows 0 and 1, not 0.00 and 1.00; its
    change reads 0 → 1 (the other measures keep two decimals)."""
    at = run({"k": "1"})
    assert strip_values(at)["hit_rate"] == ("0", "")
    assert strip_values(at)["recall"][0] == "0.00"
    next(s for s in at.slider if s.key.startswith("recall_precision.k")).set_value(2).run()
    assert strip_values(at)["hit_rate"] == ("1", "0 → 1")


def test_relevant_first_and_reset_buttons():
    at = run()
    at.button(key="rp-ideal").click().run()
    assert "RR@3 = 1 / 1 = 1.00" in text(at) and "recall@3 = 2 / 2 = 1.00" in text(at)
    assert at.query_params["r"] == "d2.1-d4.1-d7.0-d9.0-d1.0"
    at.button(key="rp-reset").click().run()
    assert "RR@3 = 1 / 2 = 0.50" in text(at)


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_with_nothing_relevant_recall_has_no_value(lang):
    """Round 63: with nothing marked relevant the rule read 'recall@3 = 0 / 0 = 0.00' under a
    note saying 0 ÷ 0 means nothing; it now stops at 0 / 0, and the strip shows a dash."""
    at = run({"r": "d2.0-d4.0-d7.0-d9.0-d1.0", "lang": lang})
    page = re.sub("[\u2066-\u2069]", "", text(at))
    assert "recall@3 = 0 / 0" in page and "0 / 0 = 0" not in page
    assert strip_values(at)["recall"] == ("—", "")
    assert strip_values(at)["precision"] == ("0.00", "")
    content = load_content("recall_precision", lang)
    assert content["try_it"]["labels"]["recall_undefined"][:20] in alerts(at)
    assert content["try_it"]["meanings"]["recall_none"][:30] in page      # not "0 of 0 …"


def test_a_shared_link_reopens_that_state():
    at = run({"r": "d4.1-d7.0-d2.1-d9.0-d1.0", "k": "1", "x": "d8.1", "lang": "en"})
    page = text(at)
    assert "recall@1 = 1 / 3 = 0.33" in page       # d8 is relevant but was never retrieved
    assert "RR@1 = 1 / 1 = 1.00" in page


@pytest.mark.parametrize("params", [
    {"r": "<img src=x onerror=alert(1)>"}, {"k": "0"}, {"k": "abc"}, {"r": "d1.0-d1.1"},
    {"x": "d1.7"}, {"r": "d" + "x" * 5000}, {"ex": "-4"}, {"exm": "ndcg"},
])
def test_a_bad_link_falls_back_with_a_message(params):
    at = run({**params, "lang": "en"})
    assert at.warning, "a message explains the link could not be read"
    assert "recall@3 = 1 / 2 = 0.50" in text(at)


def test_adding_documents_and_unretrieved_relevant_ones():
    at = run({"lang": "en"})
    labels = load_content("recall_precision", "en")["try_it"]["labels"]
    at.text_input(key="rp-new-doc").set_value("<b>x</b>").run()
    at.button(key="rp-add").click().run()
    assert at.query_params["r"].endswith("-~3Cb~3Ex~3C~2Fb~3E.0")
    at.text_input(key="rp-new-doc").set_value("d7").run()
    at.button(key="rp-add").click().run()
    assert labels["err_duplicate"] in alerts(at)
    at.button(key="rp-add").click().run()     # the box was not cleared: still a duplicate
    multiselect = next(m for m in at.multiselect if m.key.startswith("recall_precision.x-input"))
    multiselect.set_value(["d8", "d2"]).run()   # d2 is in the ranking: refused with a message
    assert "recall@3 = 1 / 3 = 0.33" in text(at)
    assert "d2" in alerts(at)


def test_exercise_feedback_names_the_mistake():
    seed = next(s for s in range(200) if mistakes.facts(
        list(E.generate("precision", s).ranking), set(E.generate("precision", s).relevant),
        E.generate("precision", s).k).retrieved < E.generate("precision", s).k)
    ex = E.generate("precision", seed)
    facts = mistakes.facts(list(ex.ranking), set(ex.relevant), ex.k)
    feedback = mistakes.text("precision_divided_by_retrieved", "feedback", "en")
    at = run({"ex": str(seed), "exm": "precision", "lang": "en"})
    key = f"recall_precision-ex-compute-precision-{seed}-typed"
    wrong = facts.hits / facts.retrieved
    # A first wrong answer names the mistake and gives a hint, not the answer...
    answer(at, key, f"{wrong:.3f}")
    slip = mistakes.text("precision_divided_by_retrieved", "misconception", "en")
    assert slip in alerts(at)
    assert feedback.split("(")[0].strip()[:40] not in alerts(at)
    # ...a second one gets the full feedback, with the working.
    answer(at, key, f"{wrong:.3f}")
    assert feedback.split("(")[0].strip()[:40] in alerts(at)
    answer(at, key, f"{ex.answer:.2f}")
    assert at.success


def answer(at: AppTest, text_key: str, value: str) -> None:
    """Type into a form's text box and submit the form, in one run (as a browser does)."""
    at.text_input(key=text_key).set_value(value)
    form = text_key.removesuffix("-typed") + "-form"
    next(b for b in at.button if b.form_id == form).click().run()


def test_quiz_numeric_and_choice_items():
    at = run({"lang": "en"})
    box = "mz-quiz-rp-seed-precision-at-4-typed"
    answer(at, box, "0.5")
    assert any("Right" in str(s.value) for s in at.success)
    answer(at, box, "abc")
    assert any("Type a number" in str(w.value) for w in at.warning)
    radio = at.radio(key="mz-quiz-rp-hitrate-vs-recall-pick")
    radio.set_value(1).run()
    at.button(key="mz-quiz-rp-hitrate-vs-recall-check").click().run()
    assert any("Not quite" in str(e.value) for e in at.error)


def test_presenter_view_hides_quiz_answers():
    at = run({"present": "1", "lang": "en"})
    assert not [r for r in at.radio if r.key and r.key.startswith("mz-quiz")]
    assert any(tg.key == "mz-reveal-rp-seed-precision-at-4" for tg in at.toggle)


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_a_k_beyond_the_list_reads_its_empty_places_as_misses(lang):
    """k = 8 on a five-document list: the model reads 5 chunks, not 8 (round 41)."""
    short, noise = {"en": ("the other places are empty", "the rest is noise"),
                    "ar": ("وباقي المواضع فارغة", "والباقي ضجيج")}[lang]
    at = run({"lang": lang, "k": "8"})
    assert short in text(at) and noise not in text(at)
    assert noise in text(run({"lang": lang, "k": "3"}))
    assert not at.exception


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_a_full_ranking_says_its_real_limit(lang):
    """The limit in the message is the lesson's own (20), filled from the code (round 42)."""
    full = "-".join(f"d{n}.0" for n in range(1, logic.MAX_DOCS + 1))
    at = run({"lang": lang, "r": full})
    at.text_input(key="rp-new-doc").set_value("extra").run()
    at.button(key="rp-add").click().run()
    shown = alerts(at)
    assert str(logic.MAX_DOCS) in shown and "10" not in shown
    assert at.query_params["r"] == full and not at.exception
