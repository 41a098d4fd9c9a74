"""The live classroom's questions: right answers from ``metrics``, wrong options named by the
mistake that gives them, and a misconception text for every key a tally can report."""

from __future__ import annotations

import re

import pytest

from lessons.live import logic
from live.service import QuestionSpec, Tally, _tally, canonical_number, number_label
from metrics import binary, graded, rank
from teaching import mistakes
from text import bidi
from text.i18n import fill, load_content

SC = logic.SCENARIOS


def test_numeric_questions_use_the_metric_values():
    assert logic.value_numeric(SC["binary"], "recall").correct == "0.5000"
    assert float(logic.value_numeric(SC["binary"], "ap").correct) == pytest.approx(0.25)
    spec = logic.value_numeric(SC["graded"], "ndcg")
    ranking, qrels = list(SC["graded"].ranking), dict(SC["graded"].qrels)
    assert float(spec.correct) == pytest.approx(graded.ndcg(ranking, qrels, 5), abs=1e-4)
    assert float(spec.correct) == pytest.approx(0.804700, abs=1e-4)  # FIELD-NOTES value


@pytest.mark.parametrize("measure", logic.MEASURES)
def test_choice_options_are_the_right_value_and_diagnosable_slips(measure):
    sc = SC["graded" if measure == "ndcg" else "binary"]
    spec = logic.value_choice(sc, measure)
    values = [o["value"] for o in spec.options]
    assert spec.correct in values and len(values) == len(set(values)) >= 3
    assert values == sorted(values, key=float)
    right = logic.value(measure, sc.ranking, sc.qrels, sc.k)
    for option in spec.options:
        key = option["mistake"]
        if option["value"] == spec.correct:
            assert key is None
        elif not key.startswith("judged_by_"):
            # the option's number is what that wrong formula gives on this case
            wrong = mistakes.MISTAKES[measure][key](list(sc.ranking), dict(sc.qrels), sc.k)
            numbers = wrong if isinstance(wrong, list) else [wrong]
            assert option["value"] in {logic.fmt(n) for n in numbers}
            assert abs(float(option["value"]) - right) > 0.004


def test_swap_prediction():
    sc = SC["binary"]  # d7 d2 d9 d4 d1, relevant d2 d4, k = 3
    spec = logic.predict_swap(sc, "recall", 2, 5)  # d2 leaves the top 3
    assert spec.correct == "down"
    assert binary.recall(list(logic.swapped(sc.ranking, 2, 5)), sc.qrels, 3) == 0.0
    mistakes_by = {o["value"]: o["mistake"] for o in spec.options}
    assert mistakes_by == {"up": "swap_direction", "same": "cutoff_ignored", "down": None}
    inside = logic.predict_swap(sc, "recall", 1, 2)
    assert inside.correct == "same"
    assert {o["mistake"] for o in inside.options if o["value"] != "same"} == {"order_inside_k"}
    assert logic.predict_swap(sc, "rr", 1, 2).correct == "up"
    # "same" for the measure's own reason, not "recall@k and precision@k ignore order"
    graded_sc = SC["graded"]  # d3 d8 d1 d6 d5, grades 3 2 3 0 1, k = 5
    for measure, swap, reason in (("rr", (2, 5), "swap_first_relevant_kept"),
                                  ("idcg", (2, 5), "swap_ideal_only"),
                                  ("ap", (1, 2), "swap_relevant_alike"),
                                  ("precision", (1, 2), "order_inside_k")):
        spec = logic.predict_swap(graded_sc, measure, *swap)
        assert spec.correct == "same", measure
        assert {o["mistake"] for o in spec.options if o["value"] != "same"} == {reason}
    assert logic.predict_swap(sc, "rr", 4, 5).options[0]["mistake"] == "swap_beyond_k"
    with pytest.raises(ValueError):
        logic.predict_swap(sc, "rr", 3, 9)


def test_which_system_is_better_depends_on_the_metric():
    sc = SC["two_systems"]
    a, b = list(sc.ranking), list(sc.other)
    assert binary.recall(b, sc.qrels, 5) > binary.recall(a, sc.qrels, 5)
    assert rank.reciprocal_rank(a, sc.qrels, 5) > rank.reciprocal_rank(b, sc.qrels, 5)
    assert logic.better(sc, "recall").correct == "B"
    rr = logic.better(sc, "rr")
    assert rr.correct == "A"
    assert {o["value"]: o["mistake"] for o in rr.options}["B"] == "judged_by_recall"
    with pytest.raises(ValueError):
        logic.better(SC["binary"], "rr")


def _possible_mistakes() -> set[str]:
    keys = {"percent_not_fraction"}
    for measure in logic.MEASURES:
        keys |= set(mistakes.MISTAKES[measure])
    for sc in SC.values():
        for measure in logic.MEASURES:
            for template in logic.TEMPLATES:
                if (template == "better") != bool(sc.other):
                    continue
                n = len(sc.ranking)
                for i in range(1, n):
                    for j in range(i + 1, n + 1):
                        spec = logic.build(template, sc, measure, (i, j))
                        keys |= {o["mistake"] for o in spec.options if o["mistake"]}
                        if template != "predict_swap":
                            break
                    if template != "predict_swap":
                        break
    keys |= {f"judged_by_{m}" for m in logic.MEASURES} | {
        "ideal_not_sorted", "better_unknown", "swap_same_grade", "position_ignored"}
    return keys


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_every_misconception_has_a_text(lang):
    missing = {key for key in _possible_mistakes() if not mistakes.text(key, "misconception", lang)}
    assert not missing


def test_distribution_chart_hides_the_right_answer_until_revealed():
    tally = _tally(_q(QuestionSpec("choice", "better", "A", options=[
        {"value": "A"}, {"value": "B", "mistake": "judged_by_recall"}])),
        [("A", None, 1), ("B", None, 3)], 4)
    words = {"answer": "Answer", "count": "Students"}
    hidden = logic.distribution_chart(tally, words, revealed=False)
    assert {r["status"] for r in hidden["data"]["values"]} == {"other"}
    shown = logic.distribution_chart(tally, words, revealed=True,
                                     option_labels={"A": "System A"})
    assert {r["answer"]: r["status"] for r in shown["data"]["values"]} == {
        "System A": "correct", "B": "other"}
    assert tally.top_wrong == "B" and tally.mistake == "judged_by_recall"
    assert logic.share_of_correct(tally) == 0.25
    assert logic.share_of_correct(Tally(1, 0, 0, [], "A", 0, None, 0, None)) == 0.0


def test_number_labels():
    assert canonical_number(1 / 3) == "0.3333" and canonical_number(0.5) == "0.5"
    assert canonical_number(-0.00001) == "0" and canonical_number(2.0) == "2"
    assert number_label(0.666) == "0.67" and number_label(-0.001) == "0.00"


def _q(spec: QuestionSpec):
    from live.service import Question

    return Question(1, 1, spec.kind, spec.template, spec.measure, dict(spec.scenario),
                    list(spec.options), spec.correct, spec.tolerance, "open", False)


@pytest.mark.parametrize(("page_url", "lang", "address", "expected", "warn"), [
    # opened as localhost: the phones get this machine's network address, same port and path
    ("http://localhost:8501/live?lang=en&present=1", "en", "192.168.1.20",
     "http://192.168.1.20:8501/live?join=ABC234&lang=en", False),
    ("http://127.0.0.1/live", "ar", "10.0.0.7", "http://10.0.0.7/live?join=ABC234", False),
    ("http://[::1]:8501/live", "ar", "fd00::5", "http://[fd00::5]:8501/live?join=ABC234", False),
    # nothing but loopback known: the link stays, and the page warns
    ("http://localhost:8501/live", "en", None, "http://localhost:8501/live?join=ABC234&lang=en",
     True),
    # a real host name (the classroom's nginx): kept as it is, the fragment dropped
    ("https://mizan.school.example/live?me=abc#x", "ar", "10.0.0.7",
     "https://mizan.school.example/live?join=ABC234", False),
])
def test_the_join_link_is_one_a_phone_can_open(page_url, lang, address, expected, warn):
    link = logic.join_link(page_url, "ABC234", lang, address)
    assert (link.url, link.only_localhost) == (expected, warn)
    assert logic.join_link("", "ABC234", "en", address).url == ""   # no address known (AppTest)


def test_the_network_address_is_never_loopback():
    import ipaddress

    found = logic.network_address()
    if found is not None:
        ip = ipaddress.ip_address(found)
        assert not (ip.is_loopback or ip.is_unspecified or ip.is_link_local)


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_the_graded_scenario_name_pairs_each_id_with_its_grade(lang):
    """The composer's name of lesson 5's scenario states its ranking and grades. Written as
    «d3 d8 d1 d6 d5 بالدرجات 3 2 3 0 1», a right-to-left line laid the grades out reversed under
    the ids; each id now carries its grade, and in Arabic each pair is one left-to-right isolate
    (the composer shows the name through ``layout.label``: ``bidi.isolate_latin``)."""
    sc = SC["graded"]
    name = fill(load_content("live", lang)["compose"]["scenarios"]["graded"], {"lesson": 5})
    pairs = [f"{doc} ({sc.qrels[doc]})" for doc in sc.ranking]
    missed = logic.unretrieved_graded(sc.ranking, sc.qrels)
    assert missed == [("d2", 3)] and ("(درجته 3)" if lang == "ar" else "(grade 3)") in name
    if lang == "en":
        assert ", ".join(pairs) in name
        return
    isolates = re.findall(f"{bidi.LRI}([^{bidi.PDI}]*){bidi.PDI}", bidi.isolate_latin(name))
    assert [i for i in isolates if "(" in i] == pairs
