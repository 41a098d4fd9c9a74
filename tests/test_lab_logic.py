"""The lab's plain functions: reading real good and bad files, translated messages for every
FormatError, the seed's numbers, tables, charts and the "explain this number" links."""

from __future__ import annotations

import codecs
import gzip
import re
from pathlib import Path

import pytest

import metrics
from lessons.lab import logic
from metrics.errors import FormatError
from runtime import state
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


def fails(slot: str, data: bytes) -> FormatError:
    with pytest.raises(FormatError) as info:
        logic.load(slot, "file", data)
    return info.value


# --- every key has a message in both languages ---------------------------------------------

# One set of params per key, as metrics/errors.py documents them.
PARAMS = {
    "empty_file": {}, "no_rows": {}, "too_large": {"size": 300 * 2**20, "limit": 200 * 2**20},
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
    assert len(keys) == 24, sorted(keys)
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
    ("a", b"", "empty_file", None),
    ("a", b"   \n\n", "empty_file", None),
    ("a", b"q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 1.0\n", "wrong_column_count", 2),      # wrong columns
    ("a", b"q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 high x\n", "non_numeric_score", 2),   # wrong type
    ("qrels", b"q1 0 d1 1\nq1 0 d2 yes\n", "non_integer_grade", 2),
    ("a", b"query_id\tdoc_id\tscore\nq1\td1\t1\nq1,d2,2\n", "mixed_separators", 3),  # mixed
    ("a", b"q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 1.5 x\nq1 Q0 d1 3 1.0 x\n", "duplicate_doc", 3),
    ("a", b"q1 0 d1 1\n", "looks_like_qrels", 1),
    ("qrels", TREC, "looks_like_run", 1),
    ("a", b"PK\x03\x04" + bytes(range(256)), "binary_file", None),
    ("a", b"\x89PNG\r\n\x1a\n" + bytes(100), "binary_file", None),
    ("a", codecs.BOM_UTF16_LE + TREC.decode().encode("utf-16-le"), "utf16", None),
    ("a", TREC.decode().encode("utf-16-le"), "utf16", None),                    # no BOM
    ("a", b"q1 Q0 d1 1 2.0 x\nq1 Q0 d\xe9 2 1.0 x\n", "not_utf8", 2),
    ("a", b"query_id,doc_id,score\nq1,d1,nan\n", "nan_score", 2),
    ("a", b"qid,docno\nq1,d1\n", "missing_column", 1),
    ("a", b'{"q1": {"d1": "x"}}', "non_numeric_score", None),
    ("a", b'{"q1": 3}', "json_structure", None),
    ("a", b'{"q1": {"d1": 1.0,', "bad_json", 1),
    ("a", b"query_id,doc_id,score\n", "no_rows", 1),
    ("a", b"a,b,c\n1,2,3\n", "missing_column", 1),
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
    err = fails("a", b"\n" * (logic.UPLOAD_LIMIT + 1))
    assert err.key == "too_large"
    for lang in LANGS:
        assert "200\\.0 MB" in message(err, lang)       # sizes in MB (Markdown-escaped)


def test_gzip_files_are_read_and_a_broken_one_is_named():
    loaded = logic.load("a", "run.trec.gz", gzip.compress(TREC))
    assert loaded.rows == 2 and loaded.queries == 1
    assert fails("a", gzip.compress(TREC)[:20]).key == "binary_file"


def test_crlf_bom_and_pasted_text_are_read():
    loaded = logic.load("a", "f", codecs.BOM_UTF8 + TREC.replace(b"\n", b"\r\n"))
    assert loaded.rows == 2
    assert logic.load_text("qrels", "q1 0 d1 1\nq1 0 d2 0\n").rows == 2
    with pytest.raises(FormatError):
        logic.load_text("qrels", "  \n")


# --- the seed's numbers --------------------------------------------------------------------


def seed_results(settings: logic.Settings) -> tuple[dict, dict]:
    files = logic.load_example("systems")
    results = {label: logic.evaluate(files[slot], files["qrels"], settings)
               for label, slot in (("A", "a"), ("B", "b"))}
    return files, results


def test_two_systems_example_reproduces_the_seed():
    _, results = seed_results(logic.Settings(names=("R", "RR", "AP"), cutoffs=(3,)))
    mean = logic.mean_table(results)
    assert mean.loc["A", "R@3"] == pytest.approx(0.7) and mean.loc["B", "R@3"] == 1.0
    assert mean.loc["A", "RR@3"] == pytest.approx(0.6667, abs=1e-4)
    assert mean.loc["B", "RR@3"] == pytest.approx(0.9)
    assert mean.loc["A", "AP@3"] == pytest.approx(0.5667, abs=1e-4)


def test_compare_on_the_seed_lists_q5_first_and_explains_it():
    files = logic.load_example("systems")
    cmp = logic.compare(files["a"], files["b"], files["qrels"], "RR", "zero")
    assert (cmp.wins, cmp.ties, cmp.losses) == (2, 2, 1)
    assert next(iter(logic.ordered_deltas(cmp).index)) == "q5"
    words = logic.compare_words(cmp)
    assert words["p_t"].replace("\\", "") == "= 0.431"   # FIELD-NOTES: p = 0.431 for RR
    assert words["resamples"] == "32"                       # exact: all 2^5 sign patterns
    assert logic.p_relation(0.0001) == "< 0.001"
    assert logic.compare_verdict(cmp) == "unclear"
    rows = logic.delta_rows(cmp)
    assert [r["delta"] for r in rows] == sorted(r["delta"] for r in rows)


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
    run = logic.load_text("a", "q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 2.0 x\nq9 Q0 d1 1 1.0 x\n")
    zero = logic.evaluate(run, qrels, logic.Settings(names=("RR",), cutoffs=(10,)))
    n = logic.counts(zero)
    assert n.missing == ["q2", "q3"] and n.unjudged == ["q9"] and n.no_relevant == ["q3"]
    assert n.tied_pairs == 1 and n.queries == 3
    skip = logic.evaluate(run, qrels, logic.Settings(names=("RR",), cutoffs=(10,),
                                                     missing="skip"))
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
        ranking = logic.ranking_of(files["a"].frame, q)
        grades = logic.judgments_of(files["qrels"].frame, q)
        link = logic.explain("R@3", q, {"A": ranking}, grades)
        assert link.lesson == "recall-precision"
        shown = state.decode_ranking(link.params["r"])
        missed = state.decode_ranking(link.params["x"]) if link.params["x"] else []
        relevant = {d for d, g in shown if g} | {d for d, _ in missed}
        value = metrics.recall([d for d, _ in shown], relevant, int(link.params["k"]))
        table = logic.evaluate(files["a"], files["qrels"], logic.Settings(("R",), (3,)))
        assert value == pytest.approx(table.loc[q, "R@3"])


def test_ranking_order_follows_trec_eval_ties():
    run = logic.load_text("a", "q1 Q0 a 1 1.0 x\nq1 Q0 c 2 1.0 x\nq1 Q0 b 3 2.0 x\n")
    assert logic.ranking_of(run.frame, "q1") == ["b", "c", "a"]


def test_explain_graded_link_keeps_the_true_ideal():
    files = logic.load_example("graded")
    ranking = logic.ranking_of(files["a"].frame, "anna")
    grades = logic.judgments_of(files["qrels"].frame, "anna")
    link = logic.explain("nDCG@5", "anna", {"A": ranking}, grades)
    assert link.lesson == "ndcg" and link.params["i"] == "jud"
    assert link.params["x"] == "d2.3"            # judged, never retrieved: the pitfall
    shown = dict(state.decode_ranking(link.params["r"]))
    judged = {**shown, **dict(state.decode_ranking(link.params["x"]))}
    value = metrics.ndcg(list(shown), judged, 5)
    assert value == pytest.approx(0.804700, abs=1e-6)


def test_explain_long_rankings_are_cut_and_said_so():
    ranking = [f"doc{i}" for i in range(1000)]
    grades = {"doc500": 2, "doc3": 1, "x" * 80: 3}
    rp = logic.explain("P@10", "q", {"A": ranking}, grades)
    assert len(state.decode_ranking(rp.params["r"])) == logic.RP_MAX
    assert {"cut_top", "renamed"} <= set(rp.notes)
    nd = logic.explain("nDCG@20", "q", {"A": ranking}, grades)
    assert "cut_k" in nd.notes and nd.params["k"] == "10"
    mrr = logic.explain("RR", "q", {"A": ranking, "B": ranking[::-1]}, grades)
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
