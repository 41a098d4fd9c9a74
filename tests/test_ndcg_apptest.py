"""Lesson 5 under Streamlit's AppTest: the seed numbers in both languages, every control, the
step table, URL state, bad and inconsistent links, the exercise, the quiz, the presenter view."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

import metrics
from lessons.ndcg import logic
from teaching import exercises as E
from tests.apptest_helpers import alert_text as alerts
from tests.apptest_helpers import open_lesson, strip_html, strip_values
from text.i18n import load_content

PAGE = "lessons/ndcg/page.py"
SEED_FORMULAS = (
    "DCG@5 = 3/log2(2) + 2/log2(3) + 3/log2(4) + 0/log2(5) + 1/log2(6)"
    " = 3 + 1.2619 + 1.5 + 0 + 0.3869 = 6.1487",
    "IDCG@5 = 3/log2(2) + 3/log2(3) + 2/log2(4) + 1/log2(5) + 0/log2(6)"
    " = 3 + 1.8928 + 1 + 0.4307 + 0 = 6.3235",
    "nDCG@5 = 6.1487 / 6.3235 = 0.9724",
)


def run(params: dict[str, str] | None = None) -> AppTest:
    return open_lesson(PAGE, params)


def text(at: AppTest) -> str:
    return "\n".join(str(m.value) for m in at.markdown)




def cards(at: AppTest) -> str:
    """The metrics strip's HTML (one markdown element), without its line-break hints."""
    return strip_html(at).replace("<wbr>", "")


def ndcg_card(at: AppTest) -> str:
    return strip_values(at)["ndcg"][0]


def by_key(widgets, prefix: str):
    return next(w for w in widgets if w.key and w.key.startswith(prefix))



@pytest.mark.parametrize("lang", ["ar", "en"])
def test_opens_on_the_seed_example(lang):
    at = run({"lang": lang})
    page = text(at)
    for formula in SEED_FORMULAS:
        assert formula in page
    assert ndcg_card(at) == "0.9724"
    for label, value in (("DCG@5", "6.1487"), ("IDCG@5", "6.3235"), ("nDCG@5", "0.9724")):
        assert label in cards(at) and value in cards(at)
    content = load_content("ndcg", lang)
    for key in ("core_idea", "worked_example", "try_it", "myths", "exercise", "cards", "quiz"):
        assert content[key]["heading"] in page
    assert f'dir="{"rtl" if lang == "ar" else "ltr"}" lang="{lang}"' in page
    # the worked example quotes the seed and the pitfall
    for number in ("6.1487", "6.3235", "0.9724", "7.641", "0.8047", "0.9575"):
        assert number in page
    # the ideal starts as the retrieved list (the seed's code), the gain linear
    assert by_key(at.radio, "ndcg.i").value == "ret"
    assert by_key(at.radio, "ndcg.g").value == "lin"
    assert not at.error and not at.warning


def test_k_slider_updates_every_formula_and_the_url():
    at = run({"lang": "en"})
    by_key(at.slider, "ndcg.k").set_value(3).run()
    page = text(at)
    assert "DCG@3 = 3/log2(2) + 2/log2(3) + 3/log2(4) = 3 + 1.2619 + 1.5 = 5.7619" in page
    assert "nDCG@3 = 5.7619 / 5.8928 = 0.9778" in page
    assert ndcg_card(at) == "0.9778"
    assert at.query_params["k"] == "3"
    assert "| **3** | **5.7619** | **5.8928** | **0.9778** |" in page     # the table by k


def test_gain_switch():
    at = run({"lang": "en"})
    by_key(at.radio, "ndcg.g").set_value("exp").run()
    assert "nDCG@5 = 12.7796 / 13.3472 = 0.9575" in text(at)
    assert "(2^3-1)/log2(2)" in text(at)
    assert at.query_params["g"] == "exp"


def test_the_pitfall_add_the_missed_answer_switch_the_ideal_retrieve_it():
    at = run({"lang": "en"})
    labels = load_content("ndcg", "en")["try_it"]["labels"]
    at.button(key="nd-ideal").click().run()
    assert ndcg_card(at) == "1.0000"                         # sorted: "perfect"
    at.button(key="nd-add-example").click().run()
    assert at.query_params["x"] == "d2.3"
    assert ndcg_card(at) == "1.0000"                         # the retrieved ideal can't see d2
    assert labels["missed_ignored"] in alerts(at)
    by_key(at.radio, "ndcg.i").set_value("jud").run()
    assert ndcg_card(at) == "0.8276"                         # the perfect 1.0 falls
    assert "IDCG@5 = 3/log2(2) + 3/log2(3) + 3/log2(4) + 2/log2(5) + 1/log2(6)" in text(at)
    assert labels["missed_counted"] in alerts(at)
    at.button(key="nd-retrieve-d2").click().run()            # now it is retrieved, last
    assert at.query_params["r"].endswith("-d2.3") and at.query_params["x"] == ""
    assert ndcg_card(at) == "0.8276"                         # still outside the top 5
    at.button(key="nd-reset").click().run()
    assert ndcg_card(at) == "0.9724" and "d2" not in at.query_params.get("r", "")


def test_seed_with_the_judged_missed_chunk_gives_trec_evals_number():
    at = run({"x": "d2.3", "i": "jud", "lang": "ar"})
    assert "nDCG@5 = 6.1487 / 7.641 = 0.8047" in text(at)
    at.button(key="nd-forget-d2").click().run()
    assert "nDCG@5 = 6.1487 / 6.3235 = 0.9724" in text(at)


def test_judge_another_document_escapes_what_was_typed():
    at = run({"lang": "en"})
    labels = load_content("ndcg", "en")["try_it"]["labels"]
    at.text_input(key="nd-new-doc").set_value("<img src=x onerror=alert(1)>").run()
    at.selectbox(key="nd-new-grade").set_value(2).run()
    at.button(key="nd-add").click().run()
    assert at.query_params["x"].endswith(".2")
    page = text(at)
    assert "<img src=x" not in page and "&lt;img src" in page
    at.text_input(key="nd-new-doc").set_value("d3").run()
    at.button(key="nd-add").click().run()
    assert labels["err_in_ranking"] in alerts(at)
    at.text_input(key="nd-new-doc").set_value("").run()
    at.button(key="nd-add").click().run()
    assert labels["err_empty"] in alerts(at)


def test_grade_scale_switch_clamps_grades_to_the_scale():
    at = run({"r": "d3.5-d8.2-d1.4", "k": "3", "lang": "en"})
    assert by_key(at.radio, "ndcg.s").value == "5"         # a grade 5 in the link: scale 0-5
    by_key(at.radio, "ndcg.s").set_value("3").run()
    assert at.query_params["r"] == "d3.3-d8.2-d1.3"
    assert at.query_params["s"] == "3"


def test_a_shared_link_reopens_that_state():
    at = run({"r": "d1.3-d3.3-d8.2-d5.1-d6.0", "k": "4", "g": "exp", "i": "jud",
              "x": "d2.3", "lang": "en"})
    t = logic.totals(logic.Scenario(ranking=(("d1", 3), ("d3", 3), ("d8", 2), ("d5", 1),
                                             ("d6", 0)), unretrieved=(("d2", 3),), k=4,
                                    gain="exponential", ideal="judged"))
    assert f"nDCG@4 = {logic.num(t.dcg)} / {logic.num(t.idcg)} = {logic.num(t.ndcg)}" in text(at)


@pytest.mark.parametrize("params", [
    {"r": "<img src=x onerror=alert(1)>"}, {"k": "0"}, {"k": "abc"}, {"r": "d1.0-d1.1"},
    {"r": "d1.9"}, {"x": "d2.7"}, {"g": "cubic"}, {"i": "oracle"}, {"s": "4"}, {"f": "9"},
    {"r": "d" + "x" * 5000}, {"ex": "-4"}, {"exm": "recall"},
])
def test_a_bad_link_falls_back_with_a_message(params):
    at = run({**params, "lang": "en"})
    assert at.warning, "a message explains the link could not be read"
    assert SEED_FORMULAS[2] in text(at)


def test_an_inconsistent_link_is_repaired_without_losing_anything():
    # d3 is both retrieved and "not retrieved"; k beyond the list
    at = run({"x": "d3.3-d2.3", "k": "9", "lang": "en"})
    assert at.query_params["x"] == "d2.3"
    assert SEED_FORMULAS[2] in text(at)                     # k is cut to the 5 retrieved


# --- the step table ----------------------------------------------------------------------------


def edit_steps(at: AppTest, key: str, rows: dict[int, dict[str, str]]) -> None:
    at.session_state[key] = {"edited_rows": rows, "added_rows": [], "deleted_rows": []}
    at.run()


def test_step_table_fades_and_checks_every_cell():
    at = run({"lang": "en"})
    words = load_content("ndcg", "en")["try_it"]["steps"]
    assert not at.data_editor                               # fully worked: a plain table
    assert "| 2 | d8 | 2 | 2 | 0.6309 | 1.2619 | 4.2619 | 4.8928 | 0.8710 |" in text(at)
    at.button(key="nd-fade-start").click().run()
    assert at.query_params["f"] == "1"
    editor = at.data_editor[0]
    assert list(editor.value["ndcg"]) == [""] * 5           # the faded column is empty
    assert list(editor.value["dcg"])[:2] == ["3.0000", "4.2619"]
    edit_steps(at, "nd-steps-1-0", {0: {"ndcg": "1"}, 1: {"ndcg": "4.26"}, 2: {"ndcg": "abc"}})
    checks = list(at.data_editor[0].value["check"])
    assert checks[:3] == ["✓", "✗ nDCG@i", "✗ nDCG@i"]
    errors = "\n".join(str(e.value) for e in at.error)
    for mark in ("\u2068", "\u2069", "\\"):                  # isolates, Markdown escapes
        errors = errors.replace(mark, "")
    assert "4.26 is DCG@2 itself" in errors
    assert "abc" in errors                                   # unreadable, quoted back escaped
    edit_steps(at, "nd-steps-1-0", {i: {"ndcg": f"{v:.3f}"} for i, v in
                                    enumerate([1, 0.871, 0.978, 0.911, 0.972])})
    assert words["column_done"] in alerts(at)
    at.button(key="nd-fade-next").click().run()              # now the running sum too
    assert at.query_params["f"] == "2"
    assert list(at.data_editor[0].value["ndcg"])[:2] == ["1.000", "0.871"]   # kept
    assert list(at.data_editor[0].value["dcg"]) == [""] * 5
    at.button(key="nd-steps-clear").click().run()
    assert list(at.data_editor[0].value["ndcg"]) == [""] * 5
    at.button(key="nd-fade-reset").click().run()
    assert not at.data_editor and at.query_params["f"] == "0"


def test_step_table_follows_the_ranking_rows_stay_by_rank():
    at = run({"f": "4", "lang": "en"})                       # discount, contribution, ... faded
    edit_steps(at, "nd-steps-4-0", {1: {"discount": "0.63"}})
    assert list(at.data_editor[0].value["check"])[1] == "✓ …"
    by_key(at.slider, "ndcg.k").set_value(2).run()           # fewer rows, typed values kept
    assert len(at.data_editor[0].value) == 2
    assert list(at.data_editor[0].value["discount"]) == ["", "0.63"]


# --- exercise, quiz, presenter ------------------------------------------------------------------


def answer(at: AppTest, text_key: str, value: str) -> None:
    """Type into a form's text box and submit the form, in one run (as a browser does)."""
    at.text_input(key=text_key).set_value(value)
    form = text_key.removesuffix("-typed") + "-form"
    next(b for b in at.button if b.form_id == form).click().run()


def test_exercise_feedback_names_the_ideal_pitfall():
    seed = next(s for s in range(500)
                if "ideal_from_retrieved" in E.mistake_values(E.generate("ndcg", s)))
    ex = E.generate("ndcg", seed)
    at = run({"ex": str(seed), "exm": "ndcg", "lang": "en"})
    key = f"ndcg-ex-compute-ndcg-{seed}-typed"
    wrong = metrics.ndcg(list(ex.ranking), ex.qrels, ex.k, ideal="retrieved")
    answer(at, key, f"{wrong:.3f}")     # first: the mistake named, a hint, no answer
    assert "Built the ideal ordering from the retrieved list only" in alerts(at)
    assert f"{ex.answer:.2f}" not in alerts(at)
    answer(at, key, f"{wrong:.3f}")     # second: the full feedback
    assert "You built the ideal ordering from the retrieved list only" in alerts(at)
    answer(at, key, f"{ex.answer:.2f}")
    assert at.success
    answer(at, key, "abc")
    assert at.warning


def test_exercise_measure_choice_and_new_round():
    at = run({"lang": "en", "ex": "5"})
    by_key(at.selectbox, "ndcg_exercise.exm").set_value("dcg").run()
    assert at.query_params["exm"] == "dcg" and at.query_params["ex"] != "5"
    question = E.texts("en")["question"]["dcg"].split("{{")[0]
    assert question in text(at)
    before = at.query_params["ex"]
    at.button(key="ndcg-ex-new").click().run()
    assert at.query_params["ex"] != before


def test_quiz_numeric_and_choice_items():
    at = run({"lang": "en"})
    answer(at, "mz-quiz-ndcg-seed-trec-eval-typed", "0.80")
    assert any("Right" in str(s.value) for s in at.success)
    answer(at, "mz-quiz-ndcg-seed-trec-eval-typed", "0.97")
    assert any("Not quite" in str(e.value) for e in at.error)
    radio = at.radio(key="mz-quiz-ndcg-perfect-but-missing-pick")
    radio.set_value(0).run()
    at.button(key="mz-quiz-ndcg-perfect-but-missing-check").click().run()
    assert any("Right" in str(s.value) for s in at.success)


def test_presenter_view_hides_answers():
    at = run({"present": "1", "lang": "en"})
    assert not [r for r in at.radio if r.key and r.key.startswith("mz-quiz")]
    assert any(tg.key == "mz-reveal-ndcg-discount-rank-3" for tg in at.toggle)
    assert any(tg.key and tg.key.endswith("-solution") for tg in at.toggle)
    assert SEED_FORMULAS[2] in text(at)
