"""The lab page through the real app (AppTest): examples, pasted good and bad files, settings,
cached results, the comparison and the "explain this number" links, in both languages.

AppTest cannot drive ``st.file_uploader`` (no upload API in streamlit.testing); uploads are
tested in Chromium (tests/browser/test_lab.py). Pasted text goes through the same reader."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest

from lessons.lab import logic
from tests.apptest_helpers import alert_text as raw_alerts
from tests.apptest_helpers import open_lesson
from text.i18n import load_content

PAGE = "lessons/lab/page.py"
EN = load_content("lab", "en")
AR = load_content("lab", "ar")


def lab(lang: str = "en"):
    return open_lesson(PAGE, {"lang": lang})


def unescape(text: str) -> str:
    """Values from files reach Markdown escaped (``seed\\_vector``): compare plain text."""
    return re.sub(r"\\(.)", r"\1", text)


def alert_text(at) -> str:
    return unescape(raw_alerts(at))


def markdown_text(at) -> str:
    from text import bidi

    return unescape(bidi.strip_bidi_controls("\n".join(str(m.value) for m in at.markdown)))


def with_example(key: str = "systems", lang: str = "en"):
    at = lab(lang)
    at.button(key=f"lab-example-{key}").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def paste(at, slot: str, text: str):
    at.text_area(key=f"lab-paste-{slot}").input(text)
    at.button(key=f"lab-paste-use-{slot}").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_waits_for_files_and_shows_the_limit():
    at = lab()
    assert "Load the judgments" in alert_text(at)
    assert "200" in markdown_text(at)


def test_example_gives_the_seed_means_and_the_comparison():
    at = with_example()
    at.multiselect(key="lab-cutoffs").set_value([3]).run()
    mean = at.dataframe[0].value
    assert mean.loc["A", "R@3"] == pytest.approx(0.7)
    assert mean.loc["B", "RR@3"] == pytest.approx(0.9)
    at.selectbox(key="lab-chart-measure").set_value("RR@3").run()
    text = markdown_text(at)
    assert "B beats A on **2**, ties on **2** and loses on **1**" in text
    assert "p = 0.431" in text                         # paired t-test on RR (FIELD-NOTES)
    regressions = [df.value for df in at.dataframe if "B − A" in df.value.columns]
    assert list(regressions[0].index) == ["q5"]
    # the explain picker lists the regression first
    assert at.selectbox(key="lab-explain-query").options[0] == "q5"


def test_results_are_cached_by_content_and_settings():
    at = with_example()
    keys = set(at.session_state["lab.cache"].keys())
    assert len([k for k in keys if k[0] != "cmp"]) == 2 and len(keys) == 3  # A, B, compare
    at.text_input(key="lab-search").input("q5").run()       # a rerun: nothing recomputed
    assert set(at.session_state["lab.cache"].keys()) == keys
    assert list(at.dataframe[1].value.index) == ["q5"]
    at.number_input(key="lab-rel").set_value(2).run()
    assert len(set(at.session_state["lab.cache"].keys()) - keys) == 3
    assert "P(rel=2)@10" in at.dataframe[0].value.columns


def test_a_bad_paste_keeps_the_file_already_loaded():
    at = with_example()
    paste(at, "a", "q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 high x\n")
    alerts = alert_text(at)
    assert "Line 2:" in alerts and "is not a number" in alerts
    assert "seed_vector.trec" in markdown_text(at)
    assert at.session_state["lab.files"]["a"].name == "seed_vector.trec"
    assert at.dataframe[0].value.loc["A", "R@10"] == pytest.approx(0.7)   # still computed
    paste(at, "a", "q1 Q0 d1 1 2.0 x\nq1 Q0 d1 2 1.0 x\n")               # duplicate document
    assert "appears twice" in alert_text(at) and "Line 2:" in alert_text(at)


def test_a_good_paste_replaces_and_counts_are_shown():
    at = with_example()
    paste(at, "a", "q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 2.0 x\nq9 Q0 d1 1 1.0 x\n")
    alerts = alert_text(at)
    assert "A (pasted): 1 query without judgments, ignored" in alerts
    assert "A (pasted): 4 queries of the judgments missing, counted as 0" in alerts
    assert "equal scores" in alerts
    at.radio(key="lab-missing").set_value("skip").run()
    # q1 only (the missing ones left out); d1 and d2 tie, and trec_eval puts d2 first: RR 1/2
    assert at.dataframe[0].value.loc["A", "RR@10"] == 0.5


def test_a_run_with_no_judged_query_says_so():
    at = with_example("graded")
    paste(at, "a", "z1 Q0 d1 1 1.0 x\n")
    assert "No query of A (pasted) appears in the judgments" in alert_text(at)


def test_settings_warn_on_a_bad_cutoff_and_no_measure():
    at = with_example()
    at.multiselect(key="lab-cutoffs").set_value([10, "ten"]).run()
    assert "“ten” is not a cutoff" in alert_text(at)
    at.multiselect(key="lab-measures").set_value([]).run()
    assert "Pick at least one measure" in alert_text(at)
    assert not at.exception


def test_arabic_page_and_messages():
    at = with_example("systems", "ar")
    paste(at, "qrels", "q1 Q0 d1 1 2.0 x\n")
    alerts = alert_text(at)
    assert "السطر 1:" in alerts and "ملف نتائج" in alerts
    assert at.session_state["lab.files"]["qrels"].name == "seed_qrels.trec"
    assert "قارن" in markdown_text(at) or "مقارنة" in markdown_text(at)


@pytest.mark.parametrize(("measure", "page", "example"), [
    ("R@10", "lessons/recall_precision/page.py", "systems"),
    ("RR@10", "lessons/mrr/page.py", "systems"),
    ("nDCG@10", "lessons/ndcg/page.py", "graded"),
])
def test_explain_links_open_the_lesson_without_a_bad_value(measure, page, example):
    at = with_example(example)
    at.selectbox(key="lab-explain-measure").set_value(measure).run()
    assert at.get("page_link"), "no link to the lesson"
    files = at.session_state["lab.files"]
    query = at.selectbox(key="lab-explain-query").value
    link = logic.explain(measure, query,
                         {label: logic.ranking_of(files[slot].frame, query)
                          for label, slot in (("A", "a"), ("B", "b")) if slot in files},
                         logic.judgments_of(files["qrels"].frame, query))
    assert link.script == page
    captions = " ".join(unescape(str(x.value)) for x in at.caption)
    for note in link.notes:   # what had to be shortened or mapped is said on the page
        assert EN["explain"][note].split("{{")[0][:30] in captions, note
    lesson = open_lesson(page, {"lang": "en", **link.params})
    assert "cannot read" not in alert_text(lesson), (urlencode(link.params), alert_text(lesson))
    assert lesson.query_params["r" if "r" in link.params else "v"] == link.params.get(
        "r", link.params.get("v"))
