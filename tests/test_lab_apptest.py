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


def runs_in(at) -> list[str]:
    return [run.name for run in at.session_state["lab.runs"].values()]


def table_rows(at) -> list[str]:
    """The rows of the main table (letter, run, means, Judged@k, unjudged), as text."""
    text = markdown_text(at)
    head = text.index("| Run |") if "| Run |" in text else text.index("| النظام |")
    lines = text[head:].split("\n")
    return [line for line in lines[2:] if line.startswith("|")][:10]


def frame_with(at, column: str):
    return next(df.value for df in at.dataframe if column in df.value.columns)


def test_waits_for_files_and_shows_the_limit():
    at = lab()
    assert "Load the judgments" in alert_text(at)
    assert "200" in markdown_text(at)
    assert "make_data" not in markdown_text(at)          # no developer notes on the page


def test_example_gives_the_seed_table_markers_note_and_the_pair():
    at = with_example()
    at.multiselect(key="lab-cutoffs").set_value([3]).run()
    rows = table_rows(at)
    # P@3 R@3 RR@3 AP@3 nDCG@3, then Judged@3 and the unjudged documents in the top 3
    assert rows == ["| a | vector | 0.2667 | 0.7000 | 0.6667 | 0.5667 | 0.6226 | 0.2667 | 11 |",
                    "| b | hybrid | **0.4000** | **1.0000** | **0.9000** | **0.9000** | "
                    "**0.9262** | 0.4000 | 9 |"]
    text = markdown_text(at)
    assert "How to read the table" in text
    # said once, by the report's note (the page's paragraph repeated it until round 52)
    assert text.count("marks a run significantly better than the run with that letter") == 1
    assert "Holm–Bonferroni correction over all comparisons (5)" in text
    tests = frame_with(at, "p, randomization (Holm)")
    assert list(tests["measure"]) == ["P@3", "R@3", "RR@3", "AP@3", "nDCG@3"]
    # Judged@3 low
    assert "less than 90 % of the top 3 (or of all retrieved, when fewer) has a judgment" in (
        alert_text(at))
    at.selectbox(key="lab-chart-measure").set_value("RR@3").run()
    text = markdown_text(at)
    assert "hybrid beats vector on **2**, ties on **2** and loses on **1**" in text
    assert "answers p = 0.4310" in text                 # paired t-test on RR (FIELD-NOTES)
    assert "95 % bootstrap interval" in text            # the card names its confidence
    regressions = frame_with(at, "hybrid − vector")
    assert list(regressions.index) == ["q5"]
    # the explain picker lists the regression first; one link per run (lesson 2)
    assert at.selectbox(key="lab-explain-query").options[0] == "q5"
    assert len(at.main.get("page_link")) == 2
    assert not [m for m in at.success if "Done" in str(m.value)]   # no leftover status box


def test_results_are_cached_by_content_and_settings():
    at = with_example()
    keys = set(at.session_state["lab.cache"].keys())
    assert len([k for k in keys if k[0] != "cmp"]) == 2 and len(keys) == 3  # two runs, table
    at.text_input(key="lab-search").input("q5").run()       # a rerun: nothing recomputed
    assert set(at.session_state["lab.cache"].keys()) == keys
    assert list(frame_with(at, "vector · RR@10").index) == ["q5"]
    at.number_input(key="lab-rel").set_value(2).run()
    assert len(set(at.session_state["lab.cache"].keys()) - keys) == 3
    assert "P(rel=2)@10" in markdown_text(at)


def test_a_bad_paste_lists_every_problem_and_keeps_the_runs_loaded():
    at = with_example()
    paste(at, "runs", "q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 high x\nq1 Q0 d3 3 1.0\n"
                      "q1 Q0 d4 4 nan x\nq1 Q0 d1 5 0.5 x\nq2 Q0 d9 1 abc x\n")
    alerts = alert_text(at)
    assert "(5 problems found)" in alerts
    for n in (2, 3, 4, 5, 6):
        assert f"Line {n}:" in alerts
    assert "is not a number" in alerts and "appears twice" in alerts
    assert runs_in(at) == ["seed_vector.trec", "hybrid.csv"]
    assert table_rows(at)[0].startswith("| a | vector |")          # still computed


def test_pasted_text_is_named_in_the_pages_language():
    """Round 65: text pasted on the Arabic page was named with the English word "pasted"
    («المستخدَم الآن: **pasted** —»)."""
    at = lab("ar")
    paste(at, "qrels", "q1 0 d1 1\nq1 0 d2 0\n")
    paste(at, "runs", "q1 Q0 d1 1 2.0 mine\nq1 Q0 d2 2 1.0 mine\n")
    assert runs_in(at) == ["ملصوق"]
    page = "\n".join(str(m.value) for m in at.markdown)
    assert "ملصوق" in page and "pasted" not in page


def test_a_good_paste_adds_a_run_named_by_its_tag_and_counts_are_shown():
    at = with_example()
    paste(at, "runs", "q1 Q0 d1 1 2.0 mine\nq1 Q0 d2 2 2.0 mine\nq9 Q0 d1 1 1.0 mine\n")
    assert runs_in(at) == ["seed_vector.trec", "hybrid.csv", "pasted"]
    alerts = alert_text(at)
    assert "mine: 1 query without judgments, ignored: q9" in alerts
    assert "mine: 4 queries of the judgments missing, counted as 0: q2, q3, q4, q5" in alerts
    assert "equal scores" in alerts
    assert table_rows(at)[2].startswith("| c | mine |")
    at.text_input(key="lab-name-r3").input("my system").run()        # names are editable
    assert table_rows(at)[2].startswith("| c | my system |")
    assert "my system" in at.selectbox(key="lab-baseline").options
    at.button(key="lab-remove-r3").click().run()
    assert runs_in(at) == ["seed_vector.trec", "hybrid.csv"]


def test_a_run_with_no_judged_query_says_so():
    at = with_example("graded")
    paste(at, "runs", "z1 Q0 d1 1 1.0 zed\n")
    assert "No query of zed appears in the judgments" in alert_text(at)


def test_settings_warn_on_a_bad_cutoff_no_measure_and_an_unknown_name():
    at = with_example()
    at.multiselect(key="lab-cutoffs").set_value([10, "ten"]).run()
    assert "“ten” is not a cutoff" in alert_text(at)
    at.text_input(key="lab-typed").input("Bpref ndcg_cut_5 ndgc@3").run()
    assert "Unknown measure “ndgc@3”. Close names: nDCG" in alert_text(at)
    header = markdown_text(at)
    assert ">Bpref</span>" in header and ">ndcg_cut_5</span>" in header
    assert 'title="DCG divided by the best DCG possible' in header    # the formula on hover
    at.multiselect(key="lab-measures").set_value([]).run()
    assert "Pick at least one measure" not in alert_text(at)          # typed ones remain
    at.text_input(key="lab-typed").input("").run()
    assert "Pick at least one measure" in alert_text(at)
    assert not at.exception


def test_fusion_makes_a_run_compared_like_any_other():
    at = with_example()
    at.button(key="lab-fuse-make").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert runs_in(at)[-1] == "rrf(vector + hybrid)"
    assert table_rows(at)[2].startswith("| c | rrf(vector + hybrid) |")
    tests = frame_with(at, "p, randomization (Holm)")
    assert len(tests) == 10                                 # 2 runs x 5 measures vs baseline


def test_at_most_ten_runs():
    at = with_example("graded")
    for i in range(9):
        paste(at, "runs", f"anna Q0 d{i} 1 1.0 run{i}\n")
    assert len(runs_in(at)) == 10
    paste(at, "runs", "anna Q0 d1 1 1.0 eleven\n")
    assert len(runs_in(at)) == 10 and "compares up to 10 runs" in alert_text(at)


def test_arabic_page_and_messages():
    at = with_example("systems", "ar")
    paste(at, "qrels", "q1 Q0 d1 1 2.0 x\n")
    alerts = alert_text(at)
    assert "السطر 1:" in alerts and "ملف نتائج" in alerts
    assert at.session_state["lab.qrels"]["qrels"].name == "seed_qrels.trec"
    text = markdown_text(at)
    assert "تصحيح Holm–Bonferroni" in text and "اختبار t للأزواج المترابطة" in text
    assert table_rows(at)[1].startswith("| b | hybrid |")


@pytest.mark.parametrize(("measure", "page", "example"), [
    ("R@10", "lessons/recall_precision/page.py", "systems"),
    ("RR@10", "lessons/recall_precision/page.py", "systems"),
    ("AP@10", "lessons/mrr/page.py", "systems"),
    ("nDCG@10", "lessons/ndcg/page.py", "graded"),
])
def test_explain_links_open_the_lesson_without_a_bad_value(measure, page, example):
    at = with_example(example)
    if measure == "AP@10":
        at.text_input(key="lab-typed").input("AP@10").run()
    at.selectbox(key="lab-chart-measure").set_value(measure).run()
    assert at.main.get("page_link"), "no link to the lesson"
    runs = at.session_state["lab.runs"]
    qrels = at.session_state["lab.qrels"]["qrels"]
    query = at.selectbox(key="lab-explain-query").value
    rankings = {run.tag: logic.ranking_of(run.frame, query) for run in runs.values()}
    links = logic.explain_links(measure, query, rankings,
                                logic.judgments_of(qrels.frame, query), "en")
    assert len(at.main.get("page_link")) == len(links)
    captions = " ".join(unescape(str(x.value)) for x in at.caption)
    for _, link in links:
        assert link.script == page and link.params["lang"] == "en"
        for note in link.notes:   # what had to be shortened or mapped is said on the page
            assert EN["explain"][note].split("{{")[0][:30] in captions, note
        lesson = open_lesson(page, dict(link.params))
        assert "cannot read" not in alert_text(lesson), (urlencode(link.params),
                                                         alert_text(lesson))
        key = "r" if "r" in link.params else "v"
        assert lesson.query_params[key] == link.params[key]


def test_precision_recall_curve_on_demand():
    at = with_example()
    assert not [k for k in at.session_state["lab.cache"] if k[0] == "pr"]   # not computed
    at.toggle(key="lab-pr").set_value(True).run()
    assert not at.exception
    assert [k for k in at.session_state["lab.cache"] if k[0] == "pr"]
    assert at.selectbox(key="lab-pr-query").options[:2] == ["mean over the queries", "q1"]



def test_a_clear_win_without_regressions_does_not_send_you_to_read_them():
    """A run better on every one of fourteen queries: the verdict is clear (the randomization
    test alone: every query moved by the same amount) and, with no query worse, the page does
    not tell the reader to read the regressions; a run worse on one of them does."""
    n = 14
    qrels = "".join(f"q{i} 0 d1 1\n" for i in range(n))
    base = "".join(f"q{i} Q0 d2 1 2.0 base\nq{i} Q0 d1 2 1.0 base\n" for i in range(n))
    better = "".join(f"q{i} Q0 d1 1 2.0 better\n" for i in range(n))
    once = better.replace("better", "once").replace("q0 Q0 d1 1", "q0 Q0 d3 1")
    at = lab()
    paste(at, "qrels", qrels)
    paste(at, "runs", base)
    paste(at, "runs", better)
    rr = next(m for m in at.selectbox(key="lab-chart-measure").options if m.startswith("RR"))
    at.selectbox(key="lab-chart-measure").set_value(rr).run()
    words = EN["compare"]
    shown = alert_text(at)
    assert words["clear_randomization"].split(":")[0] in shown
    assert words["still_regressions"] not in shown
    # the plain words say the t-test has no p here (round 59: they said "answers p = —")
    text = markdown_text(at)
    assert words["t_no_answer"] in text and "p = —" not in text
    paste(at, "runs", once)
    at.selectbox(key="lab-pair").set_value("once").run()
    shown = alert_text(at)
    assert words["clear"].split(":")[0] in shown and words["still_regressions"] in shown
