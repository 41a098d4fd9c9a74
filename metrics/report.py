"""Writing results to paste into a paper or feed to other tools.

- ``markdown_table(cmp)``, ``latex_table(cmp)``, ``csv_table(cmp)``: a ``compare_runs`` result
  as a table: a row per run (its letter and name), a column per measure, the mean, the best mean
  of each column in bold, superscript letters for the runs a run is significantly better than
  (as ranx), and a note saying what the letters mean: the test, alpha, the correction and over
  how many comparisons, the baseline, the queries. LaTeX uses booktabs (``\\toprule``,
  ``\\midrule``, ``\\bottomrule``) and escapes ``\\ & % $ # _ { } ~ ^ | < >`` in names.
- ``counts_table(cmp)``: per run, the queries compared, missing, dropped and unjudged.
- ``trec_eval_q(table)``: a per-query table (``metrics.evaluate``'s) as ``trec_eval -q`` prints
  it: ``measure <tab> query <tab> value``, every measure of the first query, then the next, then
  the ``all`` rows (``runid``, ``num_q``, each measure's mean). The measure is left-aligned in 22
  characters as trec_eval does; values are written exactly (shortest round-trip) unless
  ``decimals`` is given (``decimals=4`` is trec_eval's ``%6.4f``).
  ``read_trec_eval_q(text)`` reads that back (and trec_eval's own ``-q`` output).
- ``trec_run(frame, tag)``: a run frame (e.g. from ``metrics.fusion.fuse``) as a TREC run file,
  ranked as trec_eval ranks (score descending, equal scores by document id descending).

The note's sentences are English templates in ``NOTE``; a caller (the lab) passes its own,
translated, through ``words``.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping

import numpy as np
import pandas as pd

from metrics.compare import RunComparison
from metrics.errors import MetricError

DECIMALS = 4
SUPERSCRIPT = dict(zip("abcdefghij", "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲ", strict=True))

NOTE: Mapping[str, str] = {
    "queries": "Means over {n} queries.",
    "missing_zero": "Queries a run has no ranking for score 0 ({missing} in all).",
    "missing_common": "Only queries every run has are compared ({dropped} left out).",
    "markers": "A superscript letter marks a run significantly better than the run with that "
               "letter on that measure",
    "randomization": "paired randomization test, {resamples} sign patterns, seed {seed}",
    "randomization_exact": "paired randomization test, all {resamples} sign patterns",
    "t": "paired t-test",
    "holm": "Holm–Bonferroni correction over {m} comparisons",
    "none": "no correction for multiple comparisons ({m} comparisons)",
    "alpha": "adjusted p ≤ {alpha}",
    "alpha_none": "p ≤ {alpha}",
    "baseline": "Each run is tested against {baseline}.",
    "pairs": "Every pair of runs is tested.",
    "best": "Bold: the best mean in its column.",
    "separator": "; ",
}


def _number(x: float) -> str:
    return f"{x:,}" if isinstance(x, int) else str(x)


def note(cmp: RunComparison, words: Mapping[str, str] | None = None) -> str:
    """What the table's markers mean, in one paragraph (plain text)."""
    w = {**NOTE, **(words or {})}
    counts = cmp.counts
    parts = [w["queries"].format(n=_number(cmp.n_queries))]
    if cmp.missing == "zero" and counts["missing"].sum():
        parts.append(w["missing_zero"].format(missing=_number(int(counts["missing"].sum()))))
    if cmp.missing == "common" and counts["dropped"].max():
        parts.append(w["missing_common"].format(dropped=_number(int(counts["dropped"].max()))))
    if cmp.test == "t":
        test = w["t"]
    elif bool(cmp.tests["exact"].all()):
        test = w["randomization_exact"].format(resamples=_number(2 ** cmp.n_queries))
    else:
        test = w["randomization"].format(resamples=_number(cmp.n_resamples), seed=cmp.seed)
    correction = w[cmp.correction].format(m=cmp.n_comparisons)
    alpha = w["alpha" if cmp.correction != "none" else "alpha_none"].format(alpha=cmp.alpha)
    parts.append(f"{w['markers']} ({w['separator'].join((test, correction, alpha))}).")
    parts.append(w["baseline"].format(baseline=cmp.baseline) if cmp.baseline is not None
                 else w["pairs"])
    parts.append(w["best"])
    return " ".join(parts)


def _cells(cmp: RunComparison, decimals: int) -> list[list[tuple[str, bool, str]]]:
    """Per run, per measure: (the mean as text, is it the column's best, marker letters)."""
    best = {m: set(cmp.best(m, decimals)) for m in cmp.measures}
    rows = []
    for run in cmp.runs:
        row = []
        for m in cmp.measures:
            value = cmp.means.at[run, m]
            text = "—" if np.isnan(value) else f"{value:.{decimals}f}"
            row.append((text, run in best[m], cmp.markers.at[run, m]))
        rows.append(row)
    return rows


# --- Markdown ------------------------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_\[\]|<>~$])")   # markup inside a cell ($: GitHub's math)


def _md(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", str(text)).replace("\n", " ")


def markdown_table(cmp: RunComparison, *, decimals: int = DECIMALS,
                   words: Mapping[str, str] | None = None, with_note: bool = True,
                   with_counts: bool = False) -> str:
    """The comparison as a Markdown (GitHub) table, the note under it; ``with_counts`` adds
    a second table: per run, the queries compared, missing, dropped and unjudged."""
    head = ["#", "Run", *map(_md, cmp.measures)]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join([":-", ":--", *["--:"] * len(cmp.measures)]) + "|"]
    for letter, run, row in zip(cmp.letters, cmp.runs, _cells(cmp, decimals), strict=True):
        cells = []
        for text, best, marks in row:
            shown = f"**{text}**" if best else text
            cells.append(shown + "".join(SUPERSCRIPT[c] for c in marks))
        lines.append("| " + " | ".join([letter, _md(run), *cells]) + " |")
    out = "\n".join(lines) + "\n"
    if with_note:
        out += "\n" + _md_note(note(cmp, words)) + "\n"
    if with_counts:
        counts = counts_table(cmp)
        out += "\n| # | Run | " + " | ".join(counts.columns[1:]) + " |\n"
        out += "|:-|:--|" + "--:|" * (len(counts.columns) - 1) + "\n"
        for run, row in counts.iterrows():
            out += "| " + " | ".join([row["#"], _md(run), *(f"{int(v):,}" for v in
                                                           row.iloc[1:])]) + " |\n"
    return out


def _md_note(text: str) -> str:
    # the note is prose: only what would turn into markup is escaped
    return re.sub(r"([\\`*_<>|\[\]$])", r"\\\1", text)


def counts_table(cmp: RunComparison) -> pd.DataFrame:
    """Per run: queries compared, missing (no ranking), dropped, unjudged (no judgments)."""
    out = cmp.counts.copy()
    out.insert(0, "#", list(cmp.letters))
    return out


# --- LaTeX ---------------------------------------------------------------------------------------

_TEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
        "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
        "|": r"\textbar{}", "<": r"\textless{}", ">": r"\textgreater{}",
        "≤": r"$\leq$", "–": "--", "—": "---"}
_TEX_SPECIAL = re.compile("|".join(map(re.escape, _TEX)))


def latex_escape(text: str) -> str:
    """``text`` safe inside a LaTeX paragraph or table cell."""
    return _TEX_SPECIAL.sub(lambda m: _TEX[m.group()], str(text)).replace("\n", " ")


#: What a document needs to set an Arabic caption (XeLaTeX or LuaLaTeX; pdfLaTeX's 8-bit fonts
#: have no Arabic script): polyglossia loads fontspec; Amiri is one free Arabic font, any other
#: with the Arabic script will do.
ARABIC_PREAMBLE = ("\\usepackage{polyglossia}", "\\setmainlanguage{english}",
                   "\\setotherlanguage{arabic}",
                   "\\newfontfamily\\arabicfont[Script=Arabic]{Amiri}")


def _caption(caption: str | None, cmp: RunComparison, words: Mapping[str, str] | None) -> str:
    """The caption's text, escaped: ``caption`` (a full stop added) followed by the note."""
    title = caption.strip() if caption else ""
    if title and title[-1] not in ".!?:؟":
        title += "."
    title = latex_escape(title) + " " if title else ""
    return title + latex_escape(note(cmp, words))


def latex_table(cmp: RunComparison, *, decimals: int = DECIMALS, caption: str | None = None,
                label: str = "tab:runs", words: Mapping[str, str] | None = None,
                arabic: tuple[str, Mapping[str, str]] | None = None) -> str:
    """The comparison as a LaTeX ``table`` with booktabs rules (``\\usepackage{booktabs}``);
    the caption is ``caption`` (escaped) followed by the note.

    ``arabic``: (caption, note sentences) in Arabic. The table still compiles with pdfLaTeX
    as it is (its caption as above); the Arabic caption comes in comment lines before it,
    with the preamble lines (:data:`ARABIC_PREAMBLE`) that let XeLaTeX or LuaLaTeX set it:
    uncomment them and use that ``\\caption`` instead."""
    spec = "ll" + "r" * len(cmp.measures)
    lines = ["% \\usepackage{booktabs}"]
    if arabic is not None:
        arabic_caption = _caption(arabic[0], cmp, arabic[1]).replace("\n", " ")
        lines += ["% Arabic caption (XeLaTeX or LuaLaTeX; pdfLaTeX cannot set Arabic script).",
                  "% Preamble:", *(f"%   {line}" for line in ARABIC_PREAMBLE),
                  "% Caption, instead of the one below:",
                  f"%   \\caption{{\\textarabic{{{arabic_caption}}}}}"]
    lines += [
        "\\begin{table}[t]",
        "\\centering",
        f"\\caption{{{_caption(caption, cmp, words)}}}",
        f"\\label{{{latex_escape(label)}}}",
        f"\\begin{{tabular}}{{{spec}}}",
        "\\toprule",
        " & ".join(["\\#", "Run", *map(latex_escape, cmp.measures)]) + " \\\\",
        "\\midrule",
    ]
    for letter, run, row in zip(cmp.letters, cmp.runs, _cells(cmp, decimals), strict=True):
        cells = []
        for text, best, marks in row:
            shown = latex_escape(text)
            shown = f"\\textbf{{{shown}}}" if best else shown
            cells.append(shown + (f"\\textsuperscript{{{marks}}}" if marks else ""))
        lines.append(" & ".join([letter, latex_escape(run), *cells]) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}", "\\end{table}"]
    return "\n".join(lines) + "\n"


# --- CSV -----------------------------------------------------------------------------------------

def csv_table(cmp: RunComparison) -> str:
    """One row per run: letter, run, then per measure its mean (full precision) and the letters
    of the runs it is significantly better than (``<measure> better than``)."""
    out = pd.DataFrame({"letter": list(cmp.letters), "run": list(cmp.runs)})
    for m in cmp.measures:
        out[m] = cmp.means[m].to_numpy()
        out[f"{m} better than"] = cmp.markers[m].to_numpy()
    return out.to_csv(index=False, lineterminator="\n")


# --- trec_eval -q --------------------------------------------------------------------------------

def _value(x: float, decimals: int | None) -> str:
    if decimals is None:
        return repr(float(x))
    return f"{x:6.{decimals}f}"


def trec_eval_q(table: pd.DataFrame, *, run_name: str | None = None,
                decimals: int | None = None) -> str:
    """``table`` (index query ids, a column per measure) in ``trec_eval -q``'s format."""
    measures = [str(m) for m in table.columns]
    queries = [str(q) for q in table.index]
    for text in [*measures, *queries, run_name or ""]:
        if re.search(r"[\t\r\n]", text):
            raise MetricError("bad_parameter", name="id", value=repr(text),
                              allowed="no tabs or line breaks")
    values = table.to_numpy(dtype=np.float64)
    out = io.StringIO()
    for i, query in enumerate(queries):
        for j, m in enumerate(measures):
            out.write(f"{m:<22}\t{query}\t{_value(values[i, j], decimals)}\n")
    if run_name is not None:
        out.write(f"{'runid':<22}\tall\t{run_name}\n")
    out.write(f"{'num_q':<22}\tall\t{len(queries)}\n")
    means = values.mean(axis=0) if len(queries) else np.full(len(measures), np.nan)
    for m, mean in zip(measures, means, strict=True):
        out.write(f"{m:<22}\tall\t{_value(mean, decimals)}\n")
    return out.getvalue()


def read_trec_eval_q(text: str) -> tuple[pd.DataFrame, dict[str, object]]:
    """(per-query table, the ``all`` rows) from ``trec_eval -q`` output (Mizan's or
    trec_eval's own). The table has a row per query in the order met, a column per measure
    (NaN where a query lacks one); ``all`` maps ``runid`` to a string, ``num_q`` (and other
    integer counts) to ``int``, measures to ``float``."""
    rows: dict[str, dict[str, float]] = {}
    summary: dict[str, object] = {}
    measures: dict[str, None] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.split("\t") if "\t" in line else line.split()
        if len(fields) != 3:
            raise MetricError("bad_trec_eval_line", line=number, found=len(fields))
        measure, query, raw = fields[0].strip(), fields[1], fields[2].strip()
        if query == "all":
            if measure == "runid":
                summary[measure] = raw
            else:
                summary[measure] = int(raw) if re.fullmatch(r"-?\d+", raw) else _float(raw,
                                                                                     number)
            continue
        measures.setdefault(measure)
        rows.setdefault(query, {})[measure] = _float(raw, number)
    table = pd.DataFrame.from_dict(rows, orient="index", columns=list(measures), dtype=float)
    table.index = pd.Index(table.index, name="query_id", dtype=object)
    return table, summary


def _float(raw: str, line: int) -> float:
    try:
        return float(raw)
    except ValueError:
        raise MetricError("bad_trec_eval_line", line=line, value=raw) from None


# --- a run as a TREC file ------------------------------------------------------------------------

def trec_run(frame: pd.DataFrame, tag: str = "mizan") -> str:
    """``frame`` (query_id, doc_id, score) as TREC run lines ``qid Q0 doc rank score tag``, each
    query's documents ranked by score descending, equal scores by document id descending."""
    if re.search(r"\s", tag) or not tag:
        raise MetricError("bad_parameter", name="tag", value=repr(tag),
                          allowed="one word, no spaces")
    ranked = pd.DataFrame({"q": frame["query_id"].astype(str).to_numpy(dtype=object),
                           "d": frame["doc_id"].astype(str).to_numpy(dtype=object),
                           "s": frame["score"].to_numpy(dtype=np.float64)})
    for column in ("q", "d"):
        spaced = ranked[column].str.contains(r"\s", regex=True)
        if spaced.any():
            first = ranked[column][spaced].iloc[0]
            raise MetricError("bad_parameter", name="id", value=repr(first),
                              allowed="ids without spaces (TREC files split on whitespace)")
    ranked = ranked.sort_values(["q", "s", "d"], ascending=[True, False, False], kind="stable")
    lines = pd.DataFrame({"q": ranked["q"], "iter": "Q0", "d": ranked["d"],
                          "rank": ranked.groupby("q", sort=False).cumcount() + 1,
                          "s": ranked["s"], "tag": tag})
    # pandas writes floats with repr: the scores read back exactly
    return lines.to_csv(sep=" ", header=False, index=False, lineterminator="\n")
