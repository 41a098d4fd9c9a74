"""metrics.report: the comparison table as Markdown (golden file), LaTeX (golden file and its
structure checked by a small parser: no TeX installed here), CSV (read back), and per-query
tables in trec_eval's -q format (read back to the same values)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import metrics
from metrics import report
from metrics.compare import compare_runs
from metrics.errors import MetricError

DATA = Path(__file__).resolve().parent / "data"
NAMES = ("bm25", "dense_v2 50% & more", "hy|brid #1 $x$ {a}")


def _comparison(**kwargs):
    """Three runs over 20 queries, built so the answer is plain: the dense run beats bm25 on
    both measures by a wide margin; the hybrid run equals bm25 on P@10 and is a little better
    on nDCG@10 (not significantly)."""
    n = 20
    rng = np.random.default_rng(42)
    base = np.round(rng.uniform(0.1, 0.5, n), 1)
    ndcg = rng.uniform(0.2, 0.6, n)
    index = pd.Index([f"q{i}" for i in range(1, n + 1)], name="query_id")
    tables = {
        NAMES[0]: pd.DataFrame({"P@10": base, "nDCG@10": ndcg}, index=index),
        NAMES[1]: pd.DataFrame({"P@10": base + 0.3,
                                "nDCG@10": ndcg + 0.25 + rng.normal(0, 0.02, n)}, index=index),
        NAMES[2]: pd.DataFrame({"P@10": base, "nDCG@10": ndcg + rng.normal(0.005, 0.05, n)},
                               index=index),
    }
    return compare_runs(tables, baseline=NAMES[0], **kwargs)


def test_markdown_golden():
    cmp = _comparison()
    assert cmp.markers.to_dict() == {"P@10": {NAMES[0]: "", NAMES[1]: "a", NAMES[2]: ""},
                                     "nDCG@10": {NAMES[0]: "", NAMES[1]: "a", NAMES[2]: ""}}
    text = report.markdown_table(cmp)
    assert text == (DATA / "report_golden.md").read_text("utf-8")
    lines = text.splitlines()
    # a header, a rule, one row per run, every row with the same number of cells
    rows = lines[:5]
    assert all(len(re.split(r"(?<!\\)\|", row)) == 6 for row in rows)
    assert "hy\\|brid #1 \\$x\\$ {a}" in lines[4]
    assert "**" in lines[3] and "ᵃ" in lines[3]


def test_latex_golden_and_structure():
    cmp = _comparison()
    text = report.latex_table(cmp, caption="Runs on the dev set")
    assert text == (DATA / "report_golden.tex").read_text("utf-8")
    _check_latex(text, columns=2 + len(cmp.measures))
    # the special characters of run names are escaped
    assert r"dense\_v2 50\% \& more" in text
    assert r"hy\textbar{}brid \#1 \$x\$ \{a\}" in text
    assert r"\textbf{" in text and r"\textsuperscript{a}" in text


def _check_latex(text: str, columns: int) -> None:
    """Balanced braces and environments, booktabs rules in order, the right number of cells,
    no unescaped special character outside commands."""
    body = re.sub(r"\\[\\{}&%$#_]", "", text)                 # drop escaped characters
    body = "\n".join(line for line in body.splitlines() if not line.startswith("%"))
    depth = 0
    for char in body:
        depth += {"{": 1, "}": -1}.get(char, 0)
        assert depth >= 0
    assert depth == 0
    stack = []
    for kind, name in re.findall(r"\\(begin|end)\{(\w+)\}", text):
        if kind == "begin":
            stack.append(name)
        else:
            assert stack.pop() == name
    assert not stack
    rules = [text.index(r) for r in (r"\toprule", r"\midrule", r"\bottomrule")]
    assert rules == sorted(rules)
    table = text[text.index(r"\toprule"):text.index(r"\bottomrule")]
    rows = [r for r in table.split("\\\\")[:-1]]
    for row in rows:
        cells = re.split(r"(?<!\\)&", row)
        assert len(cells) == columns
    spec = re.search(r"\\begin\{tabular\}\{(\w+)\}", text).group(1)
    assert len(spec) == columns
    # outside math ($...$ pairs) no bare & % # _ ^ remains
    plain = re.sub(r"\$[^$]*\$", "", body)
    assert not re.search(r"[#_^%]", plain)
    assert plain.count("&") == len(rows) * (columns - 1)


def test_latex_escapes_every_special_character():
    assert report.latex_escape(r"a_b&c%d$e#f{g}h~i^j\k") == (
        r"a\_b\&c\%d\$e\#f\{g\}h\textasciitilde{}i\textasciicircum{}j\textbackslash{}k")


def test_csv_reads_back():
    cmp = _comparison()
    table = pd.read_csv(io.StringIO(report.csv_table(cmp)), keep_default_na=False)
    assert list(table["run"]) == list(NAMES) and list(table["letter"]) == ["a", "b", "c"]
    for m in cmp.measures:
        assert list(table[m]) == list(cmp.means[m])
        assert list(table[f"{m} better than"]) == list(cmp.markers[m])


def test_note_says_what_the_markers_mean():
    text = report.note(_comparison(test="t", correction="none", alpha=0.01))
    assert "paired t-test" in text and "no correction" in text and "p ≤ 0.01" in text
    assert "Means over 20 queries." in text
    assert "tested against bm25" in text
    translated = report.note(_comparison(), {"queries": "متوسطات على {n} سؤالًا."})
    assert translated.startswith("متوسطات على 20 سؤالًا.")


def test_counts_table():
    counts = report.counts_table(_comparison())
    assert list(counts.columns) == ["#", "queries", "missing", "dropped", "unjudged"]
    assert counts["queries"].tolist() == [20, 20, 20]
    text = report.markdown_table(_comparison(), with_note=False, with_counts=True)
    assert text.splitlines()[-5:] == [
        "| # | Run | queries | missing | dropped | unjudged |", "|:-|:--|--:|--:|--:|--:|",
        "| a | bm25 | 20 | 0 | 0 | 0 |", "| b | dense\\_v2 50% & more | 20 | 0 | 0 | 0 |",
        "| c | hy\\|brid #1 \\$x\\$ {a} | 20 | 0 | 0 | 0 |"]


# --- trec_eval -q ---------------------------------------------------------------------------------

RUN = {"1": {"d1": 3, "d2": 2, "d3": 1}, "2": {"d4": 1.0, "d5": 0.5}, "10": {"d1": 2.0}}
QRELS = {"1": {"d2": 1, "d3": 2}, "2": {"d9": 1}, "10": {"d1": 1}, "3": {"d1": 1}}


def test_trec_eval_q_reads_back_to_the_same_values():
    table = metrics.evaluate(RUN, QRELS, ["P@2", "AP", "nDCG@3", "RR"])
    text = report.trec_eval_q(table, run_name="bm25")
    back, summary = report.read_trec_eval_q(text)
    assert list(back.index) == list(table.index)
    assert list(back.columns) == list(table.columns)
    assert (back.to_numpy() == table.to_numpy()).all()         # exact, not approximate
    assert summary["runid"] == "bm25" and summary["num_q"] == 4
    for m in table.columns:
        assert summary[m] == table[m].mean()


def test_trec_eval_q_layout_is_trec_eval_s():
    table = metrics.evaluate(RUN, QRELS, ["P@2", "AP"])
    lines = report.trec_eval_q(table, decimals=4).splitlines()
    assert lines[0] == "P@2                   \t1\t0.5000"        # "%-22s\t%s\t%6.4f"
    assert lines[1] == f"{'AP':<22}\t1\t{table.at['1', 'AP']:6.4f}"
    assert lines[-3:] == [f"{'num_q':<22}\tall\t4", f"{'P@2':<22}\tall\t0.2500",
                          f"{'AP':<22}\tall\t{table['AP'].mean():6.4f}"]
    back, _ = report.read_trec_eval_q("\n".join(lines))
    np.testing.assert_allclose(back.to_numpy(), table.to_numpy(), atol=5e-5)


def test_reads_trec_eval_s_own_output():
    text = ("runid                 \tall\tRun1\n"
            "P_5                   \t301\t0.4000\n"
            "map                   \t301\t0.1234\n"
            "P_5                   \t302\t0.0000\n"
            "num_q                 \tall\t2\n"
            "P_5                   \tall\t0.2000\n")
    table, summary = report.read_trec_eval_q(text)
    assert table["P_5"].to_dict() == {"301": 0.4, "302": 0.0}
    assert table.at["301", "map"] == 0.1234 and np.isnan(table.at["302", "map"])
    assert summary == {"runid": "Run1", "num_q": 2, "P_5": 0.2}
    with pytest.raises(MetricError) as err:
        report.read_trec_eval_q("P_5\t301\n")
    assert err.value.key == "bad_trec_eval_line" and err.value.line == 1


def test_trec_eval_q_refuses_ids_it_could_not_read_back():
    table = pd.DataFrame({"P@1": [1.0]}, index=pd.Index(["a\tb"]))
    with pytest.raises(MetricError):
        report.trec_eval_q(table)
