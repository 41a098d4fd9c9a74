"""Lesson 3 under Streamlit's AppTest: the seed's numbers in both languages, every control,
URL state, bad links, the counter-example, the exercise feedback and the presenter view."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from lessons.mrr import link, logic
from teaching import exercises as E
from teaching import mistakes
from tests.apptest_helpers import alert_text as alerts
from tests.apptest_helpers import open_lesson, strip_html
from text import bidi
from text.i18n import load_content, t

PAGE = "lessons/mrr/page.py"
SEED_H = logic.encode_runs(logic.SEED_RUNS["hybrid"])


def run(params: dict[str, str] | None = None) -> AppTest:
    return open_lesson(PAGE, params)


def text(at: AppTest) -> str:
    return "\n".join(str(m.value) for m in at.markdown)


def plain(value: str) -> str:
    """Text without the bidi isolates the renderer adds (so assertions read naturally)."""
    return "".join(ch for ch in value if ch not in "\u2066\u2067\u2068\u2069")


def page_text(at: AppTest) -> str:
    return plain(text(at))




def widget(at: AppTest, kind: str, prefix: str):
    return next(w for w in getattr(at, kind) if w.key and w.key.startswith(prefix))


def callout(at: AppTest) -> str:
    return plain("\n".join(str(a.value) for a in [*at.error, *at.success]
                           if "hybrid" in str(a.value)))



@pytest.mark.parametrize("lang", ["ar", "en"])
def test_opens_on_the_seed_numbers(lang):
    at = run({"lang": lang})
    page = page_text(at)
    # the means: vector recall@3 0.70, MRR 0.67, MAP 0.57; hybrid 1.00, 0.90, 0.90
    assert "| `vector` | **0.70** | **0.67** | **0.57** |" in page
    assert "| `hybrid` | **1.00** | **0.90** | **0.90** |" in page
    # the per-question table (RR) and its regression
    assert "| q3 | 0.33 | 1.00 | +0.67 |" in page and "| q5 | 1.00 | 0.50 | -0.50 |" in page
    assert "q5" in callout(at) and "-0.50" in callout(at)
    # the paired test, and the worked example quoting both p-values
    assert "0.431" in page and "p = 0.208" in page and "p = 0.431" in page
    # AP step by step on q2 for vector: (1/1) / 2
    assert "AP@3 = (1/1) / 2 = 0.50" in page
    content = load_content("mrr", lang)
    for key in ("core_idea", "worked_example", "try_it", "myths", "exercise", "cards", "quiz"):
        assert content[key]["heading"] in text(at)
    assert f'dir="{"rtl" if lang == "ar" else "ltr"}" lang="{lang}"' in text(at)
    assert not at.exception and not [w for w in at.warning if "link" in str(w.value)]


def test_an_edited_ranking_changes_the_table_and_the_regression_callout():
    at = run({"lang": "en"})
    assert "Worse with hybrid" in callout(at)
    at.query_params["h"] = SEED_H.replace("d5-d7-d1", "d7-d5-d1")    # q5: d7 back on top
    at.run()
    page = page_text(at)
    assert "| q5 | 1.00 | 1.00 | 0.00 | = the same |" in page
    assert "No question got worse with hybrid on RR@3" in callout(at)
    assert "hybrid is better on 2, the same on 3 and worse on 0" in callout(at)
    assert "| `hybrid` | **1.00** | **1.00** | **1.00** |" in page


def test_question_picker_golden_set_and_returned_documents():
    at = run({"lang": "en"})
    widget(at, "button_group", "mrr.q.").set_value("q4").run()
    assert at.query_params["q"] == "q4"
    # add d2 to vector's q4 documents: it joins at rank 4, RR 0.25, recall@3 still 0
    widget(at, "button_group", "mrr.v3.").set_value(["d3", "d1", "d8", "d2"]).run()
    assert at.query_params["v"].split(".")[3] == "d3-d1-d8-d2"
    assert "| q4 | 0.00 | 1.00 | +1.00 |" in page_text(at)
    # make d1 relevant too for q4: golden {d1, d2}
    widget(at, "button_group", "mrr.g3.").set_value(["d1", "d2"]).run()
    assert at.query_params["g"].split(".")[3] == "d1-d2"
    # removing every relevant document is refused with a message; the last one stays
    widget(at, "button_group", "mrr.g3.").set_value([]).run()
    assert "at least one relevant document" in alerts(at)
    assert at.query_params["g"].split(".")[3] == "d1-d2"
    widget(at, "button_group", "mrr.v3.").set_value([]).run()
    assert "at least one document" in alerts(at)


def test_k_norm_system_and_compare_on():
    at = run({"lang": "en"})
    widget(at, "radio", "mrr.n.").set_value("retrieved").run()      # vector's AP on q2: 1.0
    assert at.query_params["n"] == "retrieved"
    assert "AP@3 = (1/1) / 1 = 1.00" in page_text(at)
    widget(at, "slider", "mrr.k.").set_value(1).run()
    widget(at, "radio", "mrr.n.").set_value("min_k_R").run()
    widget(at, "button_group", "mrr.s.").set_value("hybrid").run()
    assert "AP@1 = (1/1) / 1 = 1.00" in page_text(at)
    widget(at, "radio", "mrr.n.").set_value("R").run()
    assert "AP@1 = (1/1) / 2 = 0.50" in page_text(at)
    widget(at, "slider", "mrr.k.").set_value(3).run()
    widget(at, "button_group", "mrr.m.").set_value("recall").run()
    assert at.query_params["m"] == "recall"
    assert "No question got worse with hybrid on recall@3" in callout(at)
    assert "0.208" in page_text(at)
    at.button(key="mrr-reset").click().run()
    assert "Worse with hybrid" in callout(at) and "0.431" in page_text(at)


def test_a_shared_link_reopens_that_state():
    at = run({"lang": "en", "q": "q5", "m": "ap", "k": "2", "s": "hybrid",
              "h": SEED_H.replace("d5-d7-d1", "d1-d5-d7")})
    page = page_text(at)
    assert "AP for q5, step by step" in page
    assert "AP@2 = (0) / 1 = 0.00" in page                 # d7 now at rank 3, below k = 2
    assert "| q5 | 1.00 | 0.00 | -1.00 |" in page


@pytest.mark.parametrize("params", [
    {"g": "d1.d4-d5.d9.d2"}, {"g": "d1.d4-d5.d9.d2.d77"}, {"v": "<img src=x onerror=alert(1)>"},
    {"h": "d1-d1.d4.d9.d2.d5"}, {"k": "0"}, {"k": "abc"}, {"n": "bogus"}, {"m": "ndcg"},
    {"q": "q9"}, {"s": "bm25"}, {"cb": "d1.d2"}, {"cq": "q7"}, {"ex": "-4"}, {"exm": "ndcg"},
    {"v": "d1." * 2000},
])
def test_a_bad_link_falls_back_with_a_message(params):
    at = run({**params, "lang": "en"})
    assert at.warning, "a message explains the link could not be read"
    assert "| `vector` | **0.70** | **0.67** | **0.57** |" in page_text(at)
    assert not at.exception


def test_counter_example_verdicts():
    at = run({"lang": "en"})
    assert "yet B is worse on 2 of 4 questions" in alerts(at)
    widget(at, "button_group", "mrr_counter.cq.").set_value("q4").run()
    assert at.query_params["cq"] == "q4"
    fixed = logic.encode_runs(logic.replace(logic.replace(
        logic.COUNTER_B, 2, ("d3", "d1", "d2", "d4")), 3, ("d4", "d1", "d2", "d3")))
    at.query_params["cb"] = fixed
    at.run()
    assert "no question got worse" in alerts(at)
    at.button(key="mrr-counter-reset").click().run()
    assert "yet B is worse on 2 of 4 questions" in alerts(at)


def answer(at: AppTest, text_key: str, value: str) -> None:
    """Type into a form's text box and submit the form, in one run (as a browser does)."""
    at.text_input(key=text_key).set_value(value)
    form = text_key.removesuffix("-typed") + "-form"
    next(b for b in at.button if b.form_id == form).click().run()


def test_ap_exercise_feedback_names_the_mistake():
    seed = next(s for s in range(500)
                if "ap_divided_by_retrieved_relevant" in E.mistake_values(E.generate("ap", s)))
    ex = E.generate("ap", seed)
    feedback = mistakes.text("ap_divided_by_retrieved_relevant", "feedback", "en")
    at = run({"ex": str(seed), "exm": "ap", "lang": "en"})
    key = f"mrr-ex-compute-ap-{seed}-typed"
    wrong = mistakes.MISTAKES["ap"]["ap_divided_by_retrieved_relevant"](
        list(ex.ranking), set(ex.relevant), ex.k)
    answer(at, key, f"{wrong:.3f}")
    assert E.check(ex, f"{wrong:.3f}").mistake == "ap_divided_by_retrieved_relevant"
    slip = mistakes.text("ap_divided_by_retrieved_relevant", "misconception", "en")
    assert slip in alerts(at) and feedback[:40] not in alerts(at)   # named, with a hint
    answer(at, key, f"{wrong:.3f}")
    assert feedback[:40] in alerts(at)                               # then the full feedback
    answer(at, key, "abc")
    assert "isn't a number" in alerts(at)
    answer(at, key, f"{ex.answer:.2f}")
    assert at.success and "Correct" in alerts(at)


def test_mrr_exercise_feedback_names_the_mistake():
    seed = next(s for s in range(500)
                if "mrr_inverse_mean_rank" in E.mistake_values(E.generate("mrr", s)))
    ex = E.generate("mrr", seed)
    at = run({"ex": str(seed), "exm": "mrr", "lang": "en"})
    wrong = mistakes.MEAN_MISTAKES["mrr"]["mrr_inverse_mean_rank"](
        [(list(r), set(g)) for r, g in ex.questions])
    answer(at, f"mrr-ex-compute-mrr-{seed}-typed", f"{wrong:.3f}")
    assert "Took 1 ÷ the average rank" in alerts(at)
    answer(at, f"mrr-ex-compute-mrr-{seed}-typed", f"{wrong:.3f}")
    assert "You took 1 ÷ the average rank" in alerts(at)
    widget(at, "selectbox", "mrr_exercise.exm.").set_value("ap").run()
    assert at.query_params["exm"] == "ap"
    before = at.query_params["ex"]
    at.button(key="mrr-ex-new").click().run()
    assert at.query_params["ex"] != before


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_presenter_view_hides_answers(lang):
    at = run({"present": "1", "lang": lang})
    assert not [r for r in at.radio if r.key and r.key.startswith("mz-quiz")]
    assert any(tg.key == "mz-reveal-mrr-three-questions" for tg in at.toggle)
    solution = next(tg for tg in at.toggle if tg.key and tg.key.startswith("mz-reveal-mrr-ex-"))
    solution.set_value(True).run()
    assert "MRR = (" in page_text(at) or "AP = (" in page_text(at)


def test_quiz_items():
    at = run({"lang": "en"})
    answer(at, "mz-quiz-mrr-three-questions-typed", "0.5")
    assert any("Right" in str(s.value) for s in at.success)
    radio = at.radio(key="mz-quiz-mrr-not-inverse-mean-rank-pick")
    radio.set_value(1).run()
    at.button(key="mz-quiz-mrr-not-inverse-mean-rank-check").click().run()
    assert any("Not quite" in str(e.value) for e in at.error)


# --- one question of the reader's own (the lab's "explain this number") ----------------------

OWN = link.Labels("q 7", ("bm25", "dense"), ("doc-1", "مستند٢", "<b>x</b>", "d4x"))
OWN_PARAMS = {"q": "q1", "g": "d2-d4", "v": "d1-d2-d3", "h": "d4-d2", "k": "3", "m": "ap",
              "s": "vector", "o": link.encode_labels(OWN), "at": "ranking"}


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_one_question_opens_on_the_readers_own_ids_and_names(lang):
    at = run({**OWN_PARAMS, "lang": lang})
    page, words = page_text(at), load_content("mrr", lang)["try_it"]["labels"]
    # her runs head the two columns, her ids fill the AP table, the value is hers:
    # vector = doc-1, مستند٢, <b>x</b>; relevant {مستند٢, d4x}: (1/2) / 2
    assert "#### bm25" in page and "#### dense" in page
    assert "AP@3 = (1/2) / 2 = 0.25" in page
    assert "| 2 | `مستند٢` |" in page and "| 3 | `<b>x</b>` |" in page   # a code span: literal
    assert "`d4x`" in page                                  # relevant, never returned by bm25
    assert not [w for w in at.button_group if w.key and w.key.startswith("mrr.q.")]
    assert words["means"] not in page and words["glance"] not in page   # no five questions
    assert "q 7" in alerts(at) and "bm25" in alerts(at)       # the note says whose it is
    strip = strip_html(at)
    assert "q 7" in strip and "dense" in strip
    link_words = (words["own_bad"], t("url.bad_value", lang=lang, name="o")[:12])
    assert not [w for w in at.warning if any(x in str(w.value) for x in link_words)]
    assert not at.exception


def test_one_question_edits_stay_on_her_ids():
    at = run({**OWN_PARAMS, "lang": "en"})
    widget(at, "button_group", "mrr.g0.").set_value(["d1", "d2"]).run()
    assert at.query_params["g"] == "d1-d2" and at.query_params["o"] == OWN_PARAMS["o"]
    assert "AP@3 = (1/1 + 2/2) / 2 = 1.00" in page_text(at)
    widget(at, "button_group", "mrr.s.").set_value("hybrid").run()
    assert "| 1 | `d4x` |" in page_text(at)
    at.button(key="mrr-reset").click().run()                 # back to the lesson's five
    assert "| `vector` | **0.70** | **0.67** | **0.57** |" in page_text(at)


@pytest.mark.parametrize("lang", ["ar", "en"])
@pytest.mark.parametrize("params", [
    {"o": "q.a.b.x-x"},                                   # a document id twice
    {"o": "q.a.b." + "-".join(f"x{i}" for i in range(12))},   # more ids than slots
    {"o": "x" * 5000},                                    # oversized
    {**OWN_PARAMS, "o": "q.a.b.<img src=x onerror=alert(1)>"},
    {"o": OWN_PARAMS["o"]},                               # names, but the five questions
    {"g": "d1", "v": "d1", "h": "d1"},                    # one question without its names
    {**OWN_PARAMS, "v": "d1-d9"},                         # a slot her names do not cover
])
def test_a_bad_one_question_link_says_so_in_her_language(params, lang):
    at = run({**params, "lang": lang})
    said = alerts(at)
    own_bad = load_content("mrr", lang)["try_it"]["labels"]["own_bad"]
    unreadable = bidi.strip_bidi_controls(t("url.bad_value", lang=lang, name="o"))
    assert own_bad in said or unreadable in said, said
    assert "| `vector` | **0.70** | **0.67** | **0.57** |" in page_text(at)
    assert not at.exception
