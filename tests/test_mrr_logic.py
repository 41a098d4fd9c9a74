"""Lesson 3's plain functions, without a browser: the seed's numbers, the comparison, AP step by
step, the counter-example, the exercises, and agreement with metrics.evaluate / compare."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import metrics
from lessons.mrr import link, logic
from teaching import exercises as E
from text.i18n import load_content

SEED = logic.Scenario()
LABELS = {"question": "Question", "delta_axis": "hybrid − vector", "better": "better",
          "same": "same", "worse": "worse"}


def r(x: float, places: int = 4) -> float:
    return round(x, places)


def with_run(s: logic.Scenario, system: str, q: str, ranking: str) -> logic.Scenario:
    runs = logic.replace(s.run(system), s.question(q), ranking.split())
    return dataclasses.replace(s, **{system: runs})


def test_the_seed_numbers():
    m = logic.means(SEED)
    assert (r(m["vector"]["recall"], 2), r(m["vector"]["rr"], 2)) == (0.70, 0.67)
    assert (r(m["hybrid"]["recall"], 2), r(m["hybrid"]["rr"], 2)) == (1.00, 0.90)
    assert (r(m["vector"]["ap"]), r(m["hybrid"]["ap"])) == (0.5667, 0.9)
    res = logic.comparison(SEED)                                  # RR, hybrid - vector
    assert [r(d.delta, 3) for d in res.deltas] == [0, 0, 0.667, 1, -0.5]
    assert (res.cmp.wins, res.cmp.ties, res.cmp.losses) == (2, 2, 1)
    assert [d.question for d in res.regressions] == ["q5"]
    assert r(res.cmp.p_ttest, 3) == 0.431
    assert r(logic.comparison(SEED, "recall").cmp.p_ttest, 3) == 0.208


def test_worked_values():
    w = logic.worked_values()
    assert (r(w["v_recall"], 2), r(w["h_recall"], 2), r(w["v_mrr"], 2), r(w["h_mrr"], 2)) == (
        0.7, 1.0, 0.67, 0.9)
    assert (r(w["v_map"], 2), r(w["h_map"], 2)) == (0.57, 0.9)
    assert (w["wins"], w["ties"], w["losses"]) == (2, 2, 1)
    assert (r(w["d_q3"], 3), w["d_q4"], w["d_q5"]) == (0.667, 1.0, -0.5)
    assert r(w["p_rr"], 3) == 0.431 and r(w["p_recall"], 3) == 0.208
    assert w["p_rr_50"] < 0.01 and w["p_recall_50"] < 0.001     # same gap, 50 questions
    assert w["h_mean_rank"] == 1.2 and r(w["h_inverse_mean_rank"], 4) == 0.8333


def test_means_agree_with_metrics_evaluate_on_the_seed():
    for system in logic.SYSTEMS:
        table = metrics.evaluate(logic.run_of(SEED.run(system)), logic.qrels_of(SEED.golden),
                                 ["R@3", "RR@3", "AP@3"]).mean()
        m = logic.means(SEED)[system]
        assert (r(m["recall"]), r(m["rr"]), r(m["ap"])) == (
            r(table["R@3"]), r(table["RR@3"]), r(table["AP@3"]))


ranking = st.lists(st.sampled_from(logic.POOL), min_size=1, max_size=6, unique=True)
golden = st.lists(st.sampled_from(logic.POOL), min_size=1, max_size=3, unique=True)


@st.composite
def scenarios(draw):
    five = st.lists(ranking, min_size=5, max_size=5)
    return logic.Scenario(
        golden=tuple(logic.golden_set(g) for g in draw(st.lists(golden, min_size=5,
                                                                max_size=5))),
        vector=tuple(map(tuple, draw(five))), hybrid=tuple(map(tuple, draw(five))),
        k=draw(st.integers(1, 9)), norm=draw(st.sampled_from(logic.NORMS)),
        on=draw(st.sampled_from(logic.COMPARE_ON)))


@settings(max_examples=60, deadline=None)
@given(s=scenarios())
def test_means_and_the_comparison_agree_with_metrics(s):
    m = logic.means(s)
    for system in logic.SYSTEMS:
        specs = [logic.measure_spec(x, s.k, s.norm) for x in logic.MEAN_ORDER]
        table = metrics.evaluate(logic.run_of(s.run(system)), logic.qrels_of(s.golden),
                                 specs).mean()
        for x, spec in zip(logic.MEAN_ORDER, specs, strict=True):
            assert m[system][x] == pytest.approx(table[spec])
    res = logic.comparison(s)
    assert res.cmp.mean_a == pytest.approx(m["vector"][s.on])
    assert res.cmp.mean_b == pytest.approx(m["hybrid"][s.on])
    assert [d.question for d in res.regressions] == list(res.cmp.regressions.index)
    assert [d.outcome for d in res.deltas].count("loss") == res.cmp.losses


@settings(max_examples=100, deadline=None)
@given(s=scenarios())
def test_runs_round_trip_through_the_url(s):
    assert logic.parse_runs(logic.encode_runs(s.vector)) == s.vector
    assert logic.parse_runs(logic.encode_runs(s.golden), golden=True) == s.golden


@pytest.mark.parametrize("raw", [
    "", "d1", "d1.d2.d3.d4", "d1.d2.d3.d4.d5.d6", "d1-d1.d2.d3.d4.d5", "d1.d2.d3.d4.",
    "d10.d2.d3.d4.d5", "x.d2.d3.d4.d5", "<img src=x onerror=alert(1)>", "d1." * 300,
])
def test_bad_runs_are_refused(raw):
    with pytest.raises(ValueError):
        logic.parse_runs(raw)


def test_counter_rankings_must_be_permutations():
    assert logic.parse_counter(logic.encode_runs(logic.COUNTER_B)) == logic.COUNTER_B
    with pytest.raises(ValueError):
        logic.parse_counter("d1-d2-d3.d1-d2-d3-d4.d1-d2-d3-d4.d1-d2-d3-d4")


def test_adding_and_removing_returned_documents():
    assert logic.edit_returned(("d3", "d1", "d8"), ["d8", "d3"]) == ("d3", "d8")
    assert logic.edit_returned(("d3", "d1", "d8"), ["d3", "d1", "d8", "d2"]) == (
        "d3", "d1", "d8", "d2")
    assert logic.golden_set(["d9", "d2", "d2"]) == ("d2", "d9")


def test_ap_step_by_step_on_q2():
    vector = logic.ap_work(SEED.vector[1], SEED.golden[1], 3)
    assert vector.terms == ["1/1"] and vector.missed == ["d4"]
    assert vector.denominators == {"R": 2, "retrieved": 1, "min_k_R": 2}
    assert vector.formula("AP@3") == "AP@3 = (1/1) / 2 = 0.50"
    hybrid = logic.ap_work(SEED.hybrid[1], SEED.golden[1], 3)
    assert hybrid.formula("AP@3") == "AP@3 = (1/1 + 2/2) / 2 = 1.00"
    assert [s.precision for s in hybrid.steps] == [1.0, 1.0, None]
    for norm in logic.NORMS:
        for k in (1, 2, 3):
            work = logic.ap_work(SEED.vector[1], SEED.golden[1], k, norm)
            assert work.value == metrics.average_precision(list(SEED.vector[1]),
                                                           set(SEED.golden[1]), k, norm)
    below = logic.ap_work(("d1", "d2", "d9"), ("d9",), 2)
    assert below.steps[2].relevant and not below.steps[2].counted and below.value == 0
    assert below.formula("AP@2") == "AP@2 = (0) / 1 = 0.00"


def test_the_lessons_suggestions_behave_as_the_text_says():
    fixed = with_run(SEED, "hybrid", "q5", "d7 d5 d1")                     # 1. drag d7 up
    res = logic.comparison(fixed)
    assert not res.regressions and (res.cmp.wins, res.cmp.ties) == (2, 3)
    assert logic.means(fixed)["hybrid"]["rr"] == 1.0
    retrieved = dataclasses.replace(SEED, norm="retrieved")                  # 2.
    assert logic.question_rows(retrieved)[1].values["vector", "ap"] == 1.0
    assert logic.question_rows(SEED)[1].values["vector", "ap"] == 0.5
    k1 = dataclasses.replace(SEED, k=1)                                      # 3.
    assert logic.question_rows(k1)[1].values["hybrid", "ap"] == 0.5
    k1_min = dataclasses.replace(k1, norm="min_k_R")
    assert logic.question_rows(k1_min)[1].values["hybrid", "ap"] == 1.0
    recall = dataclasses.replace(SEED, on="recall")                          # 4.
    assert not logic.comparison(recall).regressions
    added = with_run(SEED, "vector", "q4", "d3 d1 d8 d2")                    # 5.
    row = logic.question_rows(added)[3]
    # RR@3: d2 at rank 4 is outside the top 3 (uncut RR would say 0.25)
    assert (row.values["vector", "rr"], row.values["vector", "recall"]) == (0, 0)
    assert metrics.reciprocal_rank(["d3", "d1", "d8", "d2"], {"d2"}) == 0.25
    moved = with_run(SEED, "vector", "q4", "d3 d2 d1 d8")
    assert (logic.question_rows(moved)[3].values["vector", "recall"],
            logic.question_rows(moved)[3].values["vector", "rr"]) == (1.0, 0.5)


def test_the_myths_numbers():
    hybrid_q2 = list(SEED.hybrid[1])
    assert metrics.reciprocal_rank(["d4", "d8", "d5"], {"d4", "d5"}) == 1
    assert r(metrics.average_precision(["d4", "d8", "d5"], {"d4", "d5"}), 2) == 0.83
    assert metrics.average_precision(hybrid_q2, {"d4", "d5"}) == 1.0
    # five questions, hybrid wins every one: the randomization test cannot go below 2/32
    all_win = metrics.compare({q: ["x", "a"] for q in logic.QUESTIONS},
                              {q: ["a", "x"] for q in logic.QUESTIONS},
                              {q: {"a": 1} for q in logic.QUESTIONS}, "RR")
    assert all_win.p_randomization == 2 / 32 and all_win.p_ttest is None


def test_counter_example():
    res = logic.counter_comparison(logic.COUNTER_B)
    assert (r(res.cmp.mean_a, 2), r(res.cmp.mean_b, 2)) == (0.5, 0.65)
    assert res.cmp.losses == 2 and len(res.deltas) == 4
    assert logic.counter_verdict(res) == "hidden"
    better = logic.replace(logic.replace(logic.COUNTER_B, 2, ("d3", "d1", "d2", "d4")), 3,
                           ("d4", "d1", "d2", "d3"))
    assert logic.counter_verdict(logic.counter_comparison(better)) == "clean"
    one = logic.replace(logic.COUNTER_B, 2, ("d3", "d1", "d2", "d4"))
    assert logic.counter_verdict(logic.counter_comparison(one)) == "higher"
    worse = tuple(("d4", "d3", "d2", "d1") if g[0] != "d4" else ("d1", "d2", "d3", "d4")
                  for g in logic.COUNTER_GOLDEN)
    assert logic.counter_verdict(logic.counter_comparison(worse)) == "lower"


def test_test_words_and_chart():
    res = logic.comparison(SEED)
    words = logic.test_words(res)
    assert words["in_100"] == 50 and words["p_test"] == "rand"   # the exact test's p, in words
    assert words["patterns"] == 32 and words["ci_has_zero"]
    spec = logic.deltas_chart(res, LABELS)
    json.dumps(spec)                                   # a plain, serialisable Vega-Lite dict
    assert "data" not in spec                          # per layer: Streamlit sends it as it is
    rows = spec["layer"][0]["data"]["values"]
    assert [row["label"] for row in rows] == ["0.00", "0.00", "+0.67", "+1.00", "-0.50"]
    assert rows[4]["outcome"] == "worse"
    assert logic.signed(0.0) == "0.00" and logic.signed(-1e-13) == "0.00"


def test_the_ap_switch_labels_say_who_uses_which():
    conventions = metrics.REGISTRY["AP"].conventions
    assert set(logic.NORM_CONVENTION.values()) <= set(conventions)
    en = load_content("mrr", "en")["try_it"]["labels"]
    assert "N = R" in conventions["trec_eval"] and "trec_eval" in en["norm_R"]
    assert "map_cut" in conventions["trec_eval"] and "map_cut" in en["norm_R"]
    assert "RAG" in conventions["retrieved"] and "RAG" in en["norm_retrieved"]
    assert "ml_metrics" in conventions["min_k_R"] and "ml_metrics" in en["norm_min_k_R"]
    ar = load_content("mrr", "ar")["try_it"]["labels"]
    assert "trec_eval" in ar["norm_R"] and "RAG" in ar["norm_retrieved"]
    assert "ml_metrics" in ar["norm_min_k_R"]


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, E.MAX_SEED), choice=st.sampled_from(("any", *logic.EXERCISES)))
def test_every_exercise_is_solvable_and_teaches(seed, choice):
    ex = E.pick(logic.EXERCISES, choice, seed)
    assert ex == E.pick(logic.EXERCISES, choice, seed)          # the seed reproduces it
    assert ex.metric == E.chosen(logic.EXERCISES, choice, seed) and 0 <= ex.answer <= 1
    assert ex == E.generate(ex.metric, seed)                     # the same as /practice's
    assert E.check(ex, repr(ex.answer)).status == "correct"
    assert E.check(ex, f"{ex.answer:.2f}").status == "correct"
    assert E.mistake_values(ex)
    if ex.metric == "ap":
        assert ex.answer == metrics.average_precision(list(ex.ranking), set(ex.relevant))
        work = logic.ap_work(ex.ranking, logic.golden_set(ex.relevant), ex.k, "R")
        assert work.value == ex.answer
    else:
        run = {f"q{i}": list(rk) for i, (rk, _) in enumerate(ex.questions)}
        qrels = {f"q{i}": dict.fromkeys(g, 1) for i, (_, g) in enumerate(ex.questions)}
        assert ex.answer == pytest.approx(metrics.evaluate(run, qrels, ["RR"])["RR"].mean())
        firsts = [metrics.rank.relevant_ranks(list(r), set(g)) for r, g in ex.questions]
        assert len([x for x in firsts if x]) >= 2


def test_any_kind_alternates_with_the_seed():
    assert {E.pick(logic.EXERCISES, "any", s).metric for s in range(4)} == {"ap", "mrr"}


# --- one question of the reader's own (the lab's "explain this number") ----------------------


OWN = link.Labels("query 7 «سؤال»", ("bm25 (k1=0.9)", "e5-small — v2"),
                  ("doc-1", "مستند٢", "a.b", "x y", "`<b>`", "~7E", "|pipe|"))


def test_labels_round_trip_any_characters_and_stay_url_safe():
    raw = link.encode_labels(OWN)
    assert re.fullmatch(r"[A-Za-z0-9_~.\-]+", raw)       # nothing a browser would re-encode
    assert link.parse_labels(raw) == OWN
    assert link.encode_labels(None) == "" and link.parse_labels("") is None
    assert OWN.doc("d2") == "مستند٢" and OWN.pool == link.POOL[:7]


@pytest.mark.parametrize("raw", [
    "q.a.b",                                     # no documents part
    "q.a.b.d1.extra",                            # a fifth part
    "q.a.b.",                                    # no document
    "q.a.b.x-x",                                 # a document id twice
    "q.a.b." + "-".join(f"x{i}" for i in range(10)),   # ten documents for nine slots
    "q.a.b.x" + "y" * link.MAX_LABEL_CHARS,       # an id longer than the lesson shows
    "q.a.b.x.1",                                 # a grade where names go
    "q.a-c.b.x",                                 # two names for one run
    "q.a.b.~ZZ",                                 # a broken escape
    "q.a.b.~C3",                                 # half a UTF-8 character
    "<script>.a.b.x",                            # characters never written by a link
])
def test_bad_labels_are_refused(raw):
    with pytest.raises(ValueError):
        link.parse_labels(raw)


def test_one_question_needs_its_parts_to_fit_together():
    defaults = {key: field.default for key, field in link.FIELDS.items()}
    assert link.one_question(defaults) is None                       # the lesson's five
    one = {**defaults, "g": (("d2",),), "v": (("d1", "d2"),), "h": (("d2", "d3"),), "o": OWN}
    assert link.one_question(one) == OWN
    for bad in ({**one, "o": None},                                   # one question, no names
                {**defaults, "o": OWN},                               # names on five questions
                {**one, "v": (("d1", "d9"),)},                        # d9 has no name
                {**one, "g": defaults["g"]}):                         # five golden sets, one run
        with pytest.raises(ValueError):
            link.one_question(bad)


def test_old_links_are_written_and_read_as_before():
    """The five-question link of every earlier version: the same keys, the same values."""
    old = {"q": "q2", "g": "d1.d4-d5.d9.d2.d7",
           "v": "d1-d3-d2.d5-d8-d6.d2-d6-d9.d3-d1-d8.d7-d5-d1",
           "h": "d1-d2-d3.d4-d5-d8.d9-d2-d6.d2-d3-d1.d5-d7-d1",
           "k": "3", "n": "R", "m": "rr", "s": "vector"}
    assert link.link(link.Scenario()) == old
    values = {key: link.FIELDS[key].parse(raw) for key, raw in old.items()}
    assert link.one_question({**values, "o": None}) is None


def test_a_link_that_could_not_be_read_back_is_refused_when_written():
    with pytest.raises(ValueError):
        link.link(link.Scenario(labels=OWN))          # names for five questions
    with pytest.raises(ValueError):
        link.link(link.Scenario(golden=(("d1",),), vector=(("d1",),), hybrid=(("d1",),)))


def test_one_question_values_come_from_the_same_metrics():
    """The lesson's numbers on one question equal metrics' on the reader's own ids."""
    s = logic.Scenario(golden=(("d2", "d5"),), vector=(("d1", "d2", "d3"),),
                       hybrid=(("d2", "d4", "d5"),), k=3)
    assert s.questions == ("q1",)
    (row,) = logic.question_rows(s)
    names = {f"d{i}": OWN.docs[i - 1] for i in range(1, 6)}
    relevant = {names["d2"], names["d5"]}
    for system, ranking in (("vector", ["d1", "d2", "d3"]), ("hybrid", ["d2", "d4", "d5"])):
        own = [names[d] for d in ranking]
        assert row.values[system, "ap"] == pytest.approx(
            metrics.average_precision(own, relevant, 3))
        assert row.values[system, "rr"] == pytest.approx(metrics.reciprocal_rank(own, relevant, 3))
