"""The lab's plain functions: reading real good and bad files, translated messages for every
FormatError, the seed's numbers, tables, charts and the "explain this number" links."""

from __future__ import annotations

import codecs
import gzip
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import metrics
from lessons.lab import logic
from metrics import report
from metrics.errors import MAX_PROBLEMS, FormatError, MetricError
from runtime import state
from text import bidi
from text.i18n import LANGS, load_content, placeholders
from ui import charts

ROOT = Path(__file__).resolve().parents[1]
TEXTS = {lang: load_content("lab", lang) for lang in LANGS}


def io_keys() -> set[str]:
    """Every FormatError key raised in the metrics/io package (read from its source)."""
    source = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "metrics" / "io").glob("*.py"))
    keys = set(re.findall(r'FormatError\(\s*"([a-z_0-9]+)"', source))
    keys |= set(re.findall(r'problems\.add\(\s*"([a-z_0-9]+)"', source))  # one of several
    return keys | set(re.findall(r'return "(looks_like_[a-z]+)"', source))  # the file's kind


def message(err: FormatError, lang: str = "en") -> str:
    c = TEXTS[lang]
    return logic.error_message(err, c["format_errors"], c["format_words"])


def metric_message(err: MetricError, lang: str = "en") -> str:
    c = TEXTS[lang]
    return logic.error_message(err, c["format_errors"], c["format_words"], c["metric_errors"])


def fails(slot: str, data: bytes) -> FormatError:
    with pytest.raises(FormatError) as info:
        logic.load(slot, "file", data)
    return info.value


def test_what_a_parameter_accepts_is_said_in_the_page_language():
    """Round 50: «(المسموح: an integer >= 1)» on the Arabic page."""
    with pytest.raises(MetricError) as info:
        metrics.registry.parse("P(rel=x)@5")
    assert "an integer >= 1" in metric_message(info.value, "en") or "whole number" in \
        metric_message(info.value, "en")
    arabic = bidi.strip_bidi_controls(metric_message(info.value, "ar"))
    assert "عدد صحيح لا يقل عن 1" in arabic and "integer" not in arabic


def test_a_missing_header_suggests_the_header_of_judgments_too():
    """Round 50: a judgments file without a header was told to add `query_id,doc_id,score`,
    then refused as a run."""
    err = fails("qrels", b"q1,d1,1\nq1,d2,0\n")
    assert err.key == "no_header"
    assert "query_id,doc_id,grade" in message(err)
    header = b"query_id,doc_id,grade\nq1,d1,1\nq1,d2,0\n"
    assert logic.load("qrels", "qrels.csv", header).frame.shape[0] == 2


# --- every key has a message in both languages ---------------------------------------------

# One set of params per key, as metrics/errors.py documents them.
PARAMS = {
    "empty_file": {}, "no_rows": {}, "too_large": {"size": 300 * 2**20, "limit": 200 * 2**20},
    "too_large_unzipped": {"limit": 512 * 2**20},
    "unreadable_file": {"path": "/x", "reason": "No such file"},
    "no_such_file": {"path": "run.trec"},
    "looks_like_prefs": {"found": 5}, "looks_like_zscores": {"found": 4},
    "binary_file": {"kind": "zip"}, "utf16": {"encoding": "UTF-16 LE"},
    "not_utf8": {"byte": "0xe3"}, "unknown_format": {"detail": "internal: ?"},
    "bad_json": {"detail": "Expecting value", "column": 3},
    "json_structure": {"expected": "an object or a list", "found": "number", "query_id": "q1"},
    "wrong_column_count": {"expected": 6, "found": 5},
    "mixed_separators": {"expected": "tab", "found": "space"},
    "looks_like_qrels": {"found": 4}, "looks_like_run": {"found": 6},
    "no_header": {"delimiter": "comma"},
    "missing_column": {"column": "doc_id", "found": ["a", "b"], "accepted": ["doc_id", "docno"]},
    "empty_id": {"column": "query_id"},
    "non_numeric_score": {"value": "abc", "column": "score"},
    "nan_score": {"value": "nan", "column": "score"},
    "non_integer_grade": {"value": "1.5"},
    "duplicate_doc": {"first_line": 1, "query_id": "q1", "doc_id": "d1"},
}


def test_every_format_error_key_in_io_has_a_text_in_both_languages():
    keys = io_keys()
    assert len(keys) == 25, sorted(keys)
    assert keys <= set(PARAMS)
    for lang in LANGS:
        texts = TEXTS[lang]["format_errors"]
        assert keys <= set(texts), (lang, keys - set(texts))


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("key", sorted(PARAMS))
def test_each_message_fills_with_its_params_and_line(key, lang):
    err = FormatError(key, 7, **PARAMS[key])
    text = message(err, lang)
    assert "{{" not in text and text
    assert text.startswith(("Line 7:", "السطر 7:"))
    assert TEXTS[lang]["format_errors"]["unknown"] not in text  # the key's own text was used
    no_line = message(FormatError(key, None, **PARAMS[key]), lang)
    assert "7" not in no_line.split(" ")[0]


def test_placeholders_of_messages_are_known_params():
    texts = TEXTS["en"]["format_errors"]
    for key, params in PARAMS.items():
        allowed = set(params) | {"line", "query_id"}
        assert placeholders(texts[key]) <= allowed, key


def test_file_values_are_escaped_in_messages():
    err = FormatError("non_numeric_score", 2, value="<img src=x onerror=alert(1)>[a](b)",
                      column="score")
    text = message(err)
    assert "<img" not in text and "](" not in text


# --- real bad files: one clear message each, with its line --------------------------------

TREC = b"q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 1.0 x\n"


@pytest.mark.parametrize(("slot", "data", "key", "line"), [
    ("r1", b"", "empty_file", None),
    ("r1", b"   \n\n", "empty_file", None),
    ("r1", b"q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 1.0\n", "wrong_column_count", 2),      # wrong columns
    ("r1", b"q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 high x\n", "non_numeric_score", 2),   # wrong type
    ("qrels", b"q1 0 d1 1\nq1 0 d2 yes\n", "non_integer_grade", 2),
    ("r1", b"query_id\tdoc_id\tscore\nq1\td1\t1\nq1,d2,2\n", "mixed_separators", 3),  # mixed
    ("r1", b"q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 1.5 x\nq1 Q0 d1 3 1.0 x\n", "duplicate_doc", 3),
    ("r1", b"q1 0 d1 1\n", "looks_like_qrels", 1),
    ("qrels", TREC, "looks_like_run", 1),
    ("r1", b"PK\x03\x04" + bytes(range(256)), "binary_file", None),
    ("r1", b"\x89PNG\r\n\x1a\n" + bytes(100), "binary_file", None),
    ("a", codecs.BOM_UTF16_LE + TREC.decode().encode("utf-16-le"), "utf16", None),
    ("a", TREC.decode().encode("utf-16-le"), "utf16", None),                    # no BOM
    ("r1", b"q1 Q0 d1 1 2.0 x\nq1 Q0 d\xe9 2 1.0 x\n", "not_utf8", 2),
    ("r1", b"query_id,doc_id,score\nq1,d1,nan\n", "nan_score", 2),
    ("r1", b"qid,docno\nq1,d1\n", "missing_column", 1),
    ("r1", b'{"q1": {"d1": "x"}}', "non_numeric_score", None),
    ("r1", b'{"q1": 3}', "json_structure", None),
    ("r1", b'{"q1": {"d1": 1.0,', "bad_json", 1),
    ("r1", b"query_id,doc_id,score\n", "no_rows", 1),
    ("r1", b"a,b,c\n1,2,3\n", "missing_column", 1),
])
def test_bad_files_give_one_translated_message_with_the_line(slot, data, key, line):
    err = fails(slot, data)
    assert err.key == key, err
    assert err.line == line
    for lang in LANGS:
        text = message(err, lang)
        assert TEXTS[lang]["format_errors"]["unknown"] not in text
        if line is not None:
            assert text.startswith(("Line", "السطر")) and str(line) in text.split(":")[0]


def test_a_file_above_the_upload_limit_is_refused_before_reading():
    err = fails("r1", b"\n" * (logic.UPLOAD_LIMIT + 1))
    assert err.key == "too_large"
    # the limit as the page's own limits say it (round 53: "200.0 MB" in the Arabic too)
    en, ar = (bidi.strip_bidi_controls(message(err, lang)).replace("\\.", ".")
              for lang in ("en", "ar"))
    assert "the limit is 200 MB" in en and "والحد الأقصى 200 ميغابايت" in ar
    assert "(200.1 MB)" in en                       # just over the limit: never "200 MB"


def test_gzip_files_are_read_and_a_broken_one_is_named():
    loaded = logic.load("r1", "run.trec.gz", gzip.compress(TREC))
    assert loaded.rows == 2 and loaded.queries == 1
    assert fails("r1", gzip.compress(TREC)[:20]).key == "binary_file"


def test_crlf_bom_and_pasted_text_are_read():
    loaded = logic.load("r1", "f", codecs.BOM_UTF8 + TREC.replace(b"\n", b"\r\n"))
    assert loaded.rows == 2
    assert logic.load_text("qrels", "q1 0 d1 1\nq1 0 d2 0\n").rows == 2
    with pytest.raises(FormatError):
        logic.load_text("qrels", "  \n")


# --- the seed's numbers --------------------------------------------------------------------


def seed_results(settings: logic.Settings) -> tuple[dict, dict]:
    files = logic.load_example("systems")
    results = {label: logic.evaluate(files[slot], files["qrels"], settings).table
               for label, slot in (("A", "r1"), ("B", "r2"))}
    return files, results


def test_two_systems_example_reproduces_the_seed():
    files, results = seed_results(logic.Settings(names=("R", "RR", "AP"), cutoffs=(3,)))
    assert (files["r1"].tag, files["r2"].tag) == ("vector", "hybrid")  # tag, file name
    mean = logic.mean_table(results)
    assert mean.loc["A", "R@3"] == pytest.approx(0.7) and mean.loc["B", "R@3"] == 1.0
    assert mean.loc["A", "RR@3"] == pytest.approx(0.6667, abs=1e-4)
    assert mean.loc["B", "RR@3"] == pytest.approx(0.9)
    assert mean.loc["A", "AP@3"] == pytest.approx(0.5667, abs=1e-4)


def test_one_pair_of_the_table_is_metrics_compare_on_the_same_runs():
    files, results = seed_results(logic.Settings(names=("RR", "AP"), cutoffs=(10,)))
    cmp = logic.compare(results, "A")
    view = logic.pair(cmp, "B", "RR@10")
    direct = metrics.compare(files["r1"].frame, files["r2"].frame, files["qrels"].frame,
                             "RR@10")
    for name in ("wins", "ties", "losses", "mean_a", "mean_b", "mean_delta", "ci_low",
                 "ci_high", "p_ttest", "p_randomization", "randomization_exact"):
        assert getattr(view, name) == pytest.approx(getattr(direct, name)), name
    assert (view.wins, view.ties, view.losses) == (2, 2, 1)
    assert next(iter(logic.ordered_deltas(view).index)) == "q5"
    words = logic.compare_words(view)
    assert words["p_t"].replace("\\", "") == "= 0.4310"  # FIELD-NOTES: p = 0.431 for RR
    assert words["resamples"] == "32"                        # exact: all 2^5 sign patterns
    assert logic.p_relation(0.00001) == "< 0.0001" and logic.p_text(0.5) == "0.5000"
    assert logic.compare_verdict(view, logic.adjusted_p(cmp, "B", "RR@10")) == "unclear"
    rows = logic.delta_rows(view)
    assert [r["delta"] for r in rows] == sorted(r["delta"] for r in rows)


def constructed(n: int = 12) -> dict[str, pd.DataFrame]:
    """Three runs on n queries: "good" beats "base" on every query by 0.2 or more, "same"
    equals "base" but on one query."""
    base = np.linspace(0.1, 0.6, n)
    index = pd.Index([f"q{i}" for i in range(n)], name="query_id")
    good = base + 0.2 + 0.01 * np.arange(n)
    same = base.copy()
    same[0] += 0.05
    return {name: pd.DataFrame({"M@10": v}, index=index)
            for name, v in (("base", base), ("good", good), ("same", same))}


def test_markers_and_holm_on_a_constructed_case():
    tables = constructed()
    cmp = logic.compare(tables, "base")
    tests = logic.tests_table(cmp)
    # Holm by hand on the raw p-values of both tests: sorted, times (m - i), running max
    for column, raw in (("p_t", cmp.tests["p_t"]), ("p_randomization",
                                                     cmp.tests["p_randomization"])):
        p = raw.to_numpy(float)
        order = np.argsort(p)
        adjusted = np.empty_like(p)
        running = 0.0
        for i, j in enumerate(order):
            running = max(running, min(1.0, (len(p) - i) * p[j]))
            adjusted[j] = running
        assert tests[column].to_numpy() == pytest.approx(adjusted)
    # good beats base on all 12 queries: exact randomization p = 2 / 2^12, significant
    good = cmp.tests[cmp.tests["run"] == "good"].iloc[0]
    assert good["p_randomization"] == pytest.approx(2 / 2 ** 12)
    assert cmp.markers.at["good", "M@10"] == "a" and cmp.markers.at["same", "M@10"] == ""
    judged = pd.DataFrame({"judged": [1.0, 1.0, 1.0], "unjudged": [0, 0, 0]},
                          index=["base", "good", "same"])
    rows = logic.summary_rows(list(tables), logic.mean_table(tables), judged, cmp)
    assert [r[0] for r in rows] == ["a", "b", "c"]
    assert rows[1][2] == f"**{logic.num(tables['good']['M@10'].mean())}**ᵃ"   # best, marked
    assert rows[2][2] == logic.num(tables["same"]["M@10"].mean())
    assert good["delta"] == pytest.approx(tests.loc[0, "delta"])
    assert tests.loc[0, "ci_low"] > 0


def test_the_verdict_reads_the_holm_adjusted_p_values():
    """A run better on 10 of 12 queries: both raw p-values are below 0.05, but over the four
    comparisons shown Holm lifts them above it, so the page does not call it "clear"."""
    tables = constructed()
    base = tables["base"]["M@10"].to_numpy()
    mid = base + np.array([0.1] * 10 + [-0.1] * 2)
    tables = {name: pd.DataFrame({f"M{j}@10": v for j in range(4)}, index=tables["base"].index)
              for name, v in (("base", base), ("mid", mid))}
    cmp = logic.compare(tables, "base")
    view = logic.pair(cmp, "mid", "M0@10")
    assert max(view.p_ttest, view.p_randomization) < 0.05 and view.ci_low > 0
    adjusted = logic.adjusted_p(cmp, "mid", "M0@10")
    table = logic.tests_table(cmp)                   # the numbers the page's table shows
    assert adjusted == pytest.approx(tuple(table.loc[0, ["p_t", "p_randomization"]]))
    assert min(adjusted) > 0.05
    assert logic.compare_verdict(view, adjusted) == "unclear"
    good = logic.compare(constructed(), "base")        # better on all 12: still clear after Holm
    assert logic.compare_verdict(logic.pair(good, "good", "M@10"),
                                 logic.adjusted_p(good, "good", "M@10")) == "clear"


def test_report_files_and_trec_eval_q_read_back():
    _, results = seed_results(logic.Settings(names=("RR", "AP", "nDCG"), cutoffs=(10,)))
    cmp = logic.compare(results, "A")
    words = logic.note_words(TEXTS["ar"]["report_note"])
    files = logic.report_files(cmp, words, "Runs")
    name, _, md = files["markdown"]
    assert name == "runs.md" and md.startswith("| # | Run | RR@10 | AP@10 | nDCG@10 |")
    assert "**0.9000**" in md and "متوسطات على الأسئلة (عددها 5)" in md
    assert "\\toprule" in files["latex"][2] and "\\textbf{0.9000}" in files["latex"][2]
    assert files["table_csv"][2].splitlines()[0].startswith("letter,run,RR@10")
    text = logic.trec_eval_q({"my run": results["A"]})
    table, summary = report.read_trec_eval_q(text)
    assert summary["runid"] == "my_run" and summary["num_q"] == 5
    pd.testing.assert_frame_equal(table, results["A"], check_names=False, check_dtype=False)


def test_latex_on_an_arabic_page_carries_the_arabic_caption_for_xelatex():
    from tests.test_report import _check_latex

    _, results = seed_results(logic.Settings(names=("RR", "AP"), cutoffs=(10,)))
    cmp = logic.compare(results, "A")
    for lang in LANGS:
        words = logic.note_words(TEXTS[lang]["report_note"])
        english = logic.report_files(cmp, words, "Runs compared")["latex"][2]
        text = logic.report_files(cmp, words, "Runs compared", lang,
                                  TEXTS[lang]["results"]["latex_caption_local"])["latex"][2]
        _check_latex(text, columns=4)
        added = [line for line in text.splitlines() if line not in english.splitlines()]
        if lang == "en":
            assert text == english and not added
            continue
        # pdfLaTeX reads the same table: every added line is a comment
        assert added and all(line.startswith("%") for line in added)
        assert "\\caption{Runs compared. Means over 5 queries." in text
        arabic = next(line for line in added if "\\textarabic" in line)
        assert "مقارنة الأنظمة." in arabic and "متوسطات على الأسئلة (عددها 5)." in arabic
        # uncommented (preamble lines out of the table, its caption in place of the English
        # one) it is still a well-formed table for XeLaTeX
        caption = arabic.split("%", 1)[1].strip()
        swapped = re.sub(r"^\\caption\{.*\}$", lambda _, c=caption: c, english, flags=re.M)
        _check_latex(swapped, columns=4)
        assert caption in swapped and "\\setotherlanguage{arabic}" in text


def test_fusion_is_its_formula_and_a_run_like_any_other():
    files = logic.load_example("systems")
    fused = logic.fuse({"v": files["r1"], "h": files["r2"]}, "rrf", "min-max", "r3")
    assert fused.name == fused.tag == "rrf(v + h)" and fused.size == 0
    rankings = [logic.ranking_of(files[s].frame, "q2") for s in ("r1", "r2")]
    expected = {}
    for ranking in rankings:
        for rank, doc in enumerate(ranking, start=1):
            expected[doc] = expected.get(doc, 0.0) + 1 / (60 + rank)
    got = fused.frame[fused.frame["query_id"] == "q2"].set_index("doc_id")["score"]
    assert got.to_dict() == pytest.approx(expected)
    table = logic.evaluate(fused, files["qrels"], logic.Settings(("RR",), (10,))).table
    assert len(table) == 5
    lines = logic.fused_file(fused, "rrf v + h").splitlines()
    assert lines[0].split()[-1] == "rrf_v_+_h" and len(lines) == len(fused.frame)


def test_judged_at_k_and_unjudged_counts_by_hand():
    files = logic.load_example("systems")
    result = logic.evaluate(files["r1"], files["qrels"], logic.Settings(("P",), (3,)))
    assert result.k == 3
    judged_docs = set(zip(files["qrels"].frame["query_id"].astype(str),
                          files["qrels"].frame["doc_id"].astype(str), strict=True))
    shares, unjudged = [], 0
    for q in result.table.index:
        top = logic.ranking_of(files["r1"].frame, q)[:3]
        n = sum((q, d) in judged_docs for d in top)
        shares.append(n / len(top))
        unjudged += len(top) - n
    table = logic.judged_table({"v": result})
    assert table.at["v", "judged"] == pytest.approx(np.mean(shares))
    assert table.at["v", "unjudged"] == unjudged > 0
    assert logic.poorly_judged({"v": result}) == ["v"]       # 1-2 of every top 3 unjudged


def test_measures_typed_by_name_in_both_spellings():
    good, bad = logic.parse_measures("P(rel=2)@5, ndcg_cut_10 Judged@10;Bpref map foo P "
                                     "nDCG(gain=exponential,ideal=retrieved)@5 P_5")
    assert good == ["P(rel=2)@5", "ndcg_cut_10", "Judged@10", "Bpref", "map",
                    "nDCG(gain=exponential,ideal=retrieved)@5", "P_5"]
    assert [e.key for e in bad] == ["unknown_measure", "cutoff_required"]
    s = logic.Settings(names=("RR",), cutoffs=(10,), typed=tuple(good))
    files = logic.load_example("graded")
    table = logic.evaluate(files["r1"], files["qrels"], s).table
    assert list(table.columns) == ["RR@10", *good]
    for lang in LANGS:
        texts = [bidi.strip_bidi_controls(metric_message(e, lang)) for e in bad]
        assert "«foo»" in texts[0] or "“foo”" in texts[0]
        assert "P@10" in texts[1] and "{{" not in texts[0] + texts[1]
        assert "formula" not in logic.formula_help("ndcg_cut_10", lang)
        assert "\\frac" in logic.formula_help("ndcg_cut_10", lang)


def test_measure_strings_follow_the_settings():
    s = logic.Settings(names=("P", "AP", "nDCG", "Rprec"), cutoffs=(5, 10), full=True, rel=2,
                       gain="exponential")
    assert logic.measure_strings(s) == [
        "P(rel=2)@5", "P(rel=2)@10", "AP(rel=2)@5", "AP(rel=2)@10", "AP(rel=2)",
        "nDCG(gain=exponential)@5", "nDCG(gain=exponential)@10", "nDCG(gain=exponential)",
        "Rprec(rel=2)"]
    for m in logic.measure_strings(s):
        metrics.parse(m)
    assert logic.parse_cutoff("12") == 12
    assert logic.parse_cutoff("0") is None and logic.parse_cutoff("x") is None


def test_policies_and_counts_for_queries_missing_unjudged_and_ties():
    qrels = logic.load_text("qrels", "q1 0 d1 1\nq2 0 d5 1\nq3 0 d9 0\n")
    run = logic.load_text("r1", "q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 2.0 x\nq9 Q0 d1 1 1.0 x\n")
    zero = logic.evaluate(run, qrels, logic.Settings(names=("RR",), cutoffs=(10,))).table
    n = logic.counts(zero)
    assert n.missing == ["q2", "q3"] and n.unjudged == ["q9"] and n.no_relevant == ["q3"]
    assert n.tied_pairs == 1 and n.queries == 3
    skip = logic.evaluate(run, qrels, logic.Settings(names=("RR",), cutoffs=(10,),
                                                     missing="skip")).table
    assert logic.counts(skip).queries == 1


def test_per_query_table_search_and_csv():
    _, results = seed_results(logic.Settings(names=("RR",), cutoffs=(3,)))
    table = logic.per_query_table(results)
    assert list(table.columns) == ["A · RR@3", "B · RR@3", "Δ RR@3"]
    assert table.loc["q5", "Δ RR@3"] == pytest.approx(-0.5)
    assert list(logic.per_query_table(results, " Q5 ").index) == ["q5"]
    csv = logic.per_query_csv(table).decode()
    assert csv.splitlines()[0] == "query_id,A · RR@3,B · RR@3,Δ RR@3"
    assert len(csv.splitlines()) == 6


def test_charts_count_every_query_and_draw_offline():
    _, results = seed_results(logic.Settings(names=("RR", "DCG"), cutoffs=(3,)))
    rows = logic.histogram_rows(results, "RR@3")
    assert sum(r["queries"] for r in rows if r["run"] == "A") == 5
    assert sum(r["queries"] for r in logic.histogram_rows(results, "DCG@3")) == 10
    spec = logic.histogram_chart(results, "RR@3", {"queries": "q", "run": "r"})
    svg = charts.svg(spec)
    assert svg.lstrip().startswith("<svg") and "RR@3" in svg
    assert charts.png(spec)[:4] == b"\x89PNG"


# --- explain this number ---------------------------------------------------------------------


def test_explain_binary_link_gives_the_same_value_in_the_lesson():
    files = logic.load_example("systems")
    for q in ("q1", "q2", "q3", "q4", "q5"):
        ranking = logic.ranking_of(files["r1"].frame, q)
        grades = logic.judgments_of(files["qrels"].frame, q)
        link = logic.explain("R@3", q, {"A": ranking}, grades)
        assert link.lesson == "recall-precision"
        shown = state.decode_ranking(link.params["r"])
        missed = state.decode_ranking(link.params["x"]) if link.params["x"] else []
        relevant = {d for d, g in shown if g} | {d for d, _ in missed}
        value = metrics.recall([d for d, _ in shown], relevant, int(link.params["k"]))
        table = logic.evaluate(files["r1"], files["qrels"], logic.Settings(("R",), (3,))).table
        assert value == pytest.approx(table.loc[q, "R@3"])


@pytest.mark.parametrize("measure", ["Bpref", "IPrec@0.5", "Judged@10", "NumRelRet"])
def test_explain_says_when_no_lesson_teaches_the_measure(measure):
    """Bpref, IPrec, Judged and the counts open a lesson that shows other measures: the link
    says so, and IPrec's recall level is never read as a cutoff (round 43)."""
    files = logic.load_example("systems")
    ranking = logic.ranking_of(files["r1"].frame, "q1")
    grades = logic.judgments_of(files["qrels"].frame, "q1")
    for _, link in logic.explain_links(measure, "q1", {"A": ranking, "B": ranking}, grades):
        assert "not_taught" in link.notes and "cut_k" not in link.notes
    for taught in ("P@5", "R@3", "RR@10", "AP", "nDCG@5", "Rprec"):
        link = logic.explain(taught, "q1", {"A": ranking}, grades)
        assert "not_taught" not in link.notes, taught


def test_ranking_order_follows_trec_eval_ties():
    run = logic.load_text("r1", "q1 Q0 a 1 1.0 x\nq1 Q0 c 2 1.0 x\nq1 Q0 b 3 2.0 x\n")
    assert logic.ranking_of(run.frame, "q1") == ["b", "c", "a"]


def test_explain_graded_link_keeps_the_true_ideal():
    files = logic.load_example("graded")
    ranking = logic.ranking_of(files["r1"].frame, "anna")
    grades = logic.judgments_of(files["qrels"].frame, "anna")
    link = logic.explain("nDCG@5", "anna", {"A": ranking}, grades)
    assert link.lesson == "ndcg" and link.params["i"] == "jud"
    assert link.params["x"] == "d2.3"            # judged, never retrieved: the pitfall
    shown = dict(state.decode_ranking(link.params["r"]))
    judged = {**shown, **dict(state.decode_ranking(link.params["x"]))}
    value = metrics.ndcg(list(shown), judged, 5)
    assert value == pytest.approx(0.804700, abs=1e-6)


def test_explain_says_when_lesson_5_cuts_a_short_ranking_at_its_length():
    """Round 48: a run shorter than k opened lesson 5 on nDCG@n (its k stops at the ranking's
    length), another number than the lab's nDCG@k, without a word. The note comes exactly
    when the two differ; more relevant documents than the lesson holds change nothing."""
    rng = np.random.default_rng(48)
    said = silent = 0
    for _ in range(300):
        docs = [f"d{i}" for i in range(int(rng.integers(8, 25)))]   # up to 24 judged
        grades = {d: int(g) for d, g in zip(docs, rng.integers(0, 4, len(docs)), strict=True)}
        ranking = docs[:int(rng.integers(1, 8))]
        k = int(rng.integers(1, 11))
        link = logic.explain(f"nDCG@{k}", "q", {"run": ranking}, grades)
        shown = dict(state.decode_ranking(link.params["r"]))
        judged = {**shown, **dict(state.decode_ranking(link.params["x"]))}
        in_lesson = metrics.ndcg(list(shown), judged, min(int(link.params["k"]), len(shown)))
        differs = abs(in_lesson - metrics.ndcg(ranking, grades, k)) > 1e-12
        assert ("cut_short" in link.notes) == differs, (ranking, grades, k)
        assert "cut_relevant" not in link.notes        # the highest grades carried: exact
        said += differs
        silent += not differs
    assert said > 30 and silent > 30


def test_explain_long_rankings_are_cut_and_said_so():
    ranking = [f"doc{i}" for i in range(1000)]
    grades = {"doc500": 2, "doc3": 1, "x" * 80: 3}
    rp = logic.explain("P@10", "q", {"A": ranking}, grades)
    assert len(state.decode_ranking(rp.params["r"])) == logic.RP_MAX
    assert {"cut_top", "renamed"} <= set(rp.notes)
    nd = logic.explain("nDCG@20", "q", {"A": ranking}, grades)
    assert "cut_k" in nd.notes and nd.params["k"] == "10"
    mrr = logic.explain("AP", "q", {"A": ranking, "B": ranking[::-1]}, grades)
    assert mrr.lesson == "mrr" and "cut_top" in mrr.notes
    golden = mrr.params["g"].split(".")[0].split("-")
    assert golden and all(re.fullmatch(r"d[1-9]", d) for d in golden)


def test_every_measure_convention_has_a_text_in_both_languages():
    for lang in LANGS:
        c = TEXTS[lang]
        for name, measure in metrics.REGISTRY.items():
            if name not in logic.PICKABLE:
                continue
            for tool in measure.conventions:
                assert c["conventions"][name][tool], (lang, name, tool)
                assert c["convention_names"][tool], (lang, tool)


# --- every error the page can meet has a message in both languages ---------------------------


def metric_keys() -> set[str]:
    """Every MetricError key raised anywhere in metrics/ (read from the source)."""
    source = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "metrics").rglob("*.py"))
    return set(re.findall(r'MetricError\(\s*"([a-z_0-9]+)"', source))


def test_every_metric_error_key_has_a_text_in_both_languages():
    keys = metric_keys()
    assert {"run_count", "duplicate_run_name", "unknown_baseline", "measure_not_in_table",
            "fusion_runs", "bad_trec_eval_line", "bad_run", "unknown_measure"} <= keys
    for lang in LANGS:
        texts = TEXTS[lang]["metric_errors"]
        assert keys <= set(texts), (lang, sorted(keys - set(texts)))
        assert set(texts) <= keys, (lang, sorted(set(texts) - keys))   # none left over


def raised(call) -> MetricError:
    with pytest.raises(MetricError) as info:
        call()
    return info.value


def test_real_metric_errors_read_in_both_languages():
    tables = constructed()
    many = {f"r{i}": tables["base"] for i in range(11)}
    errors = [
        raised(lambda: logic.compare(many, "r0")),
        raised(lambda: logic.compare(tables, "nobody")),
        raised(lambda: metrics.compare_runs(tables, ["X@10"])),
        raised(lambda: metrics.fuse([pd.DataFrame({"query_id": ["q"], "doc_id": ["d"],
                                                   "score": [1.0]})])),
        raised(lambda: report.read_trec_eval_q("P_5 q1\n")),
        raised(lambda: metrics.parse("ndgc@10")),
        raised(lambda: metrics.parse("RR(gain=2)@10")),
    ]
    assert [e.key for e in errors] == ["run_count", "unknown_baseline", "measure_not_in_table",
                                       "fusion_runs", "bad_trec_eval_line", "unknown_measure",
                                       "unknown_parameter"]
    for lang in LANGS:
        fallback = TEXTS[lang]["format_errors"]["metric"].split("(")[0]
        for err in errors:
            text = bidi.strip_bidi_controls(metric_message(err, lang))
            assert "{{" not in text and fallback not in text, (lang, err.key, text)
        assert "nDCG" in bidi.strip_bidi_controls(metric_message(errors[5], lang))  # close
        assert "11" in metric_message(errors[0], lang) and "10" in metric_message(errors[0],
                                                                                lang)
        line = metric_message(errors[4], lang)
        assert line.startswith(("Line 1:", "السطر 1:"))


def test_a_bad_file_with_five_problems_lists_five_with_their_lines():
    data = (b"q1 Q0 d1 1 2.0 x\n"
            b"q1 Q0 d2 2 high x\n"          # 2: not a number
            b"q1 Q0 d3 3 1.0\n"             # 3: five columns
            b"q1 Q0 d4 4 nan x\n"           # 4: not finite
            b"q1 Q0 d1 5 0.5 x\n"           # 5: d1 twice
            b"q2 Q0 d9 1 abc x\n")          # 6: not a number
    err = fails("r1", data)
    for lang in LANGS:
        c = TEXTS[lang]
        lines, truncated = logic.error_messages(err, c["format_errors"], c["format_words"],
                                                c["metric_errors"])
        assert len(lines) == 5 and not truncated
        numbers = [int(re.search(r"\d+", bidi.strip_bidi_controls(t)).group()) for t in lines]
        assert numbers == [2, 3, 4, 5, 6]
        assert all(c["format_errors"]["unknown"] not in t for t in lines)
    many = b"".join(b"q1 Q0 d%d 1 x%d t\n" % (i, i) for i in range(30))
    lines, truncated = logic.error_messages(fails("r1", many), TEXTS["en"]["format_errors"],
                                            TEXTS["en"]["format_words"])
    assert len(lines) == MAX_PROBLEMS and truncated


def test_explain_links_carry_lang_and_the_users_own_ids():
    files = logic.load_example("systems")
    q = "q2"
    rankings = {name: logic.ranking_of(files[slot].frame, q)
                for name, slot in (("vector", "r1"), ("hybrid", "r2"))}
    grades = logic.judgments_of(files["qrels"].frame, q)
    for lang in LANGS:
        links = logic.explain_links("RR@10", q, rankings, grades, lang)
        assert [name for name, _ in links] == ["vector", "hybrid"]   # both runs
        for name, link in links:
            assert link.params["lang"] == lang and link.lesson == "recall-precision"
            shown = [d for d, _ in state.decode_ranking(link.params["r"])]
            assert shown == rankings[name]                 # her ids, in her order
            assert link.params["k"] == "10" and "seed_others" not in link.notes
        (name, ap), = logic.explain_links("AP@10", q, rankings, grades, lang)
        assert name is None and ap.lesson == "mrr" and ap.params["lang"] == lang
        nd = logic.explain_links("nDCG@10", q, rankings, grades, lang)
        assert all(link.params["lang"] == lang for _, link in nd)
        # every lesson opens on the ranking it explains (ui.scroll's key)
        for _, link in [*links, (None, ap), *nd]:
            assert link.params["at"] == "ranking"


def test_precision_recall_curves_per_run_mean_and_one_query():
    files = logic.load_example("systems")
    runs = {"vector": files["r1"], "hybrid": files["r2"]}
    curves = logic.pr_curves(runs, files["qrels"], logic.Settings())
    mean = logic.pr_rows(curves)
    assert len(mean) == 22 and {r["run"] for r in mean} == {"vector", "hybrid"}
    direct = metrics.pr_curve(files["r1"].frame, files["qrels"].frame).mean
    assert [r["precision"] for r in mean if r["run"] == "vector"] == pytest.approx(
        list(direct))
    one = logic.pr_rows(curves, "q5")
    assert [r["precision"] for r in one if r["run"] == "vector"] == pytest.approx(
        list(metrics.pr_curve(files["r1"].frame, files["qrels"].frame).per_query.loc["q5"]))
    spec = logic.pr_chart(curves, {"recall": "recall", "precision": "p", "run": "run"})
    assert charts.svg(logic.titled(spec, "P–R: vector, hybrid")).count("<svg") >= 1


def _lesson3(link):
    """What lesson 3 shows for an AP link: names, and per run the ranking and golden set in the
    reader's own ids (decoded from the URL exactly as the lesson does)."""
    from lessons.mrr import link as mrr_link
    values = {key: field.parse(link.params[key]) if key in link.params else field.default
              for key, field in mrr_link.FIELDS.items()}
    own = mrr_link.one_question(values)
    golden = [own.doc(d) for d in values["g"][0]]
    runs = [[own.doc(d) for d in values[key][0]] for key in ("v", "h")]
    return own, golden, runs, values


def test_explain_ap_opens_lesson_3_on_her_query_alone_with_her_ids():
    files = logic.load_example("systems")
    for q in ("q1", "q2", "q3", "q4", "q5"):
        rankings = {name: logic.ranking_of(files[slot].frame, q)
                    for name, slot in (("vector", "r1"), ("hybrid", "r2"))}
        grades = logic.judgments_of(files["qrels"].frame, q)
        for lang in LANGS:
            (_, ap), = logic.explain_links("AP@3", q, rankings, grades, lang)
            assert ap.params["lang"] == lang and ap.params["at"] == "ranking"
            own, golden, runs, values = _lesson3(ap)
            assert own.question == q and own.systems == ("vector", "hybrid")
            assert runs == [rankings["vector"], rankings["hybrid"]]   # both, her order
            assert set(golden) == {d for d, g in grades.items() if g >= 1}
            assert values["k"] == 3 and ap.notes == ()
            table = logic.evaluate(files["r1"], files["qrels"], logic.Settings(("AP",), (3,)))
            assert metrics.average_precision(runs[0], set(golden), 3) == pytest.approx(
                table.table.loc[q, "AP@3"])


def test_explain_ap_cuts_what_lesson_3_cannot_hold_and_says_so():
    ranking = [f"مستند {i}" for i in range(1000)]            # Arabic ids with a space
    grades = {"مستند 1": 1, "y" * 80: 1, "never": 1, "مستند 700": 2}
    (_, ap), = logic.explain_links("AP", "سؤال 9", {"A": ranking, "B": ranking[::-1]}, grades,
                                   "ar")
    own, golden, runs, _ = _lesson3(ap)
    # eight documents (the top 4 of each run) and one slot for the relevant ones neither shows
    assert set(ap.notes) == {"cut_top", "cut_relevant", "renamed"}
    assert own.question == "سؤال 9" and own.systems == ("A", "B")
    assert len(own.docs) == 9 and runs[0] == [f"مستند {i}" for i in range(4)]
    assert runs[1] == [f"مستند {i}" for i in (999, 998, 997, 996)]
    assert golden == ["مستند 1", "doc_9"]       # the 80-character id renamed; "never" cut
    assert re.fullmatch(r"[A-Za-z0-9_~.\-]+", ap.params["o"])
    # one run only: both columns show it, and the note says so; no relevant: a placeholder
    (_, one), = logic.explain_links("AP@5", "q", {"A": ["a", "b"]}, {"z": 0}, "en")
    own, golden, runs, _ = _lesson3(one)
    assert {"one_run", "no_relevant"} <= set(one.notes) and runs == [["a", "b"], ["a", "b"]]
    assert golden and not set(golden) & {"a", "b"}
    # a run with nothing for the query: a placeholder, said so
    (_, empty), = logic.explain_links("AP@5", "q", {"A": [], "B": ["a"]}, {"a": 1}, "en")
    own, golden, runs, _ = _lesson3(empty)
    assert "empty" in empty.notes and runs[1] == ["a"] and runs[0] and runs[0][0] != "a"


@pytest.mark.parametrize(("measure", "second_line"),
                         [("bpref", "t_r = "), ("IPrec@0.5", "I = "), ("RR@10", "r_1 = ")])
def test_a_measures_hover_text_puts_its_definitions_on_a_line_of_their_own(measure, second_line):
    tip = logic.formula_help(measure, "en")
    assert "gathered" not in tip and "\\end{cases}\\\\" not in tip
    assert "\\end{cases}\n" + second_line in tip.split("\n\n", 1)[1]


@pytest.mark.parametrize("lang", LANGS)
def test_a_measures_hover_text_ends_with_its_legend_in_the_pages_language(lang):
    tip = logic.formula_help("R@10", lang)
    legend = tip.rsplit("\n\n", 1)[1]
    assert legend.startswith("Rel") and "Top_k" in legend and "$" not in legend
    assert ("المستندات ذات الصلة" in legend) == (lang == "ar")


def test_a_verdict_on_the_randomization_test_alone_does_not_say_both_tests():
    """Every query moved by the same amount: the t-test has no p (no spread), the exact
    randomization test does; the page says which test it rests on, not "both tests"."""
    tables = constructed()
    shifted = tables["base"]["M@10"] + 0.2
    tables = {"base": tables["base"], "shift": shifted.to_frame("M@10")}
    cmp = logic.compare(tables, "base")
    view = logic.pair(cmp, "shift", "M@10")
    adjusted = logic.adjusted_p(cmp, "shift", "M@10")
    assert view.p_ttest is None and adjusted[0] is None and adjusted[1] < 0.05
    assert logic.compare_verdict(view, adjusted) == "clear_randomization"
    for lang in ("en", "ar"):
        assert "clear_randomization" in TEXTS[lang]["compare"]


def test_two_runs_equal_on_every_query_have_nothing_to_test():
    """The same value on every query (common for HitRate@k or RR@k): the randomization test
    says p = 1, but the page's verdict is "nothing to test", not "not conclusive"."""
    base = constructed()["base"]
    cmp = logic.compare({"base": base, "copy": base.copy()}, "base")
    view = logic.pair(cmp, "copy", "M@10")
    assert logic.compare_verdict(view, logic.adjusted_p(cmp, "copy", "M@10")) == "undefined"
