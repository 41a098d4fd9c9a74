"""The lab's plain functions: read uploaded files, evaluate and compare up to ten runs, fuse
runs, build the tables, reports, charts, messages and "explain this number" links. No Streamlit
here: the page calls these and tests call them directly. Every number comes from ``metrics``.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

import metrics
from lessons.mrr import link as mrr_link
from lessons.ndcg import link as ndcg_link
from lessons.recall_precision import link as recall_precision_link
from metrics import report
from metrics.compare import MAX_RUNS, Comparison, RunComparison, compare_runs, run_name
from metrics.errors import FormatError, MetricError
from metrics.io import read_qrels, read_run
from metrics.registry import REGISTRY, parse
from metrics.significance import holm
from runtime import catalog
from teaching import measures as taught_measures
from text.i18n import fmt_p, fmt_signed, fmt_size
from ui import charts, scroll
from ui.charts import PALETTE

EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "assets" / "examples"
UPLOAD_LIMIT_MB = 200                       # per file, as st.file_uploader's max_upload_size
UPLOAD_LIMIT = UPLOAD_LIMIT_MB * 1024 * 1024
# A gzip upload may inflate beyond the upload limit; the text is capped here so one file
# cannot take the server's memory (the 7,000 x 1,000 benchmark run is 249 MB as text).
READ_LIMIT = 512 * 1024 * 1024
QRELS = "qrels"                             # the judgments' slot; runs have slots r1, r2, …
PICKABLE = ("P", "R", "HitRate", "F1", "RR", "AP", "Rprec", "nDCG", "DCG", "Bpref", "Judged")
DECIMALS = 4                                 # every measure value, difference, interval, p
DEFAULT_MEASURES = ("P", "R", "RR", "AP", "nDCG")
CUTOFFS = (1, 3, 5, 10, 20, 50, 100, 1000)
DEFAULT_CUTOFFS = (10,)
MAX_CUTOFF = 100_000
GAINS = ("linear", "exponential")
MISSING = ("zero", "skip")
RESULTS_KEPT = 2 * MAX_RUNS + 4              # evaluation results kept per session
JUDGED_WARN = 0.9        # warn when less than this share of a run's top k has a judgment
JUDGED_K = 10            # the top k whose judgments are counted, when no cutoff is chosen
FUSION_METHODS = ("rrf", "combsum", "combmnz")
FUSION_NORMS = ("min-max", "z-score", "sum", "none")
LIST_SHOWN = 30                              # query ids listed in a message


# --- reading files -------------------------------------------------------------------------


@dataclass(frozen=True)
class Loaded:
    """One file read into a DataFrame: what the page shows about it and what it computes on."""

    slot: str
    name: str            # the file's name
    digest: str          # sha256 of the bytes as uploaded: the key of every cached result
    size: int
    frame: pd.DataFrame = field(repr=False, compare=False)
    tag: str = ""        # a run's proposed name: its TREC run tag, else its file name

    @property
    def rows(self) -> int:
        return len(self.frame)

    @property
    def queries(self) -> int:
        return len(self.frame["query_id"].cat.categories)


def digest(data: bytes | memoryview) -> str:
    return hashlib.sha256(data).hexdigest()


def load(slot: str, name: str, data: bytes, known_digest: str | None = None) -> Loaded:
    """Read ``data`` as the file for ``slot`` (judgments or a run). Raises ``FormatError``.

    ``data`` may be gzip-compressed; the upload limit applies to the bytes as sent."""
    if len(data) > UPLOAD_LIMIT:
        raise FormatError("too_large", size=len(data), limit=UPLOAD_LIMIT)
    if slot == QRELS:
        frame = read_qrels(data, max_bytes=READ_LIMIT)
        return Loaded(slot, name, known_digest or digest(data), len(data), frame, name)
    frame = read_run(data, max_bytes=READ_LIMIT)
    return Loaded(slot, name, known_digest or digest(data), len(data), frame,
                  run_name(name, bytes(data[:1 << 16])))


def load_text(slot: str, text: str, name: str = "pasted") -> Loaded:
    """Pasted text: the same reader, named ``name`` (the page's word for it: «ملصوق»)."""
    data = text.encode("utf-8", "surrogatepass")
    if not data.strip():
        raise FormatError("empty_file")
    return load(slot, name, data)


@dataclass(frozen=True)
class Example:
    key: str
    files: Mapping[str, str]          # slot -> file name in assets/examples
    measure: str                      # the measure its lesson is about: shown first
    lesson: str                       # the folder of the lesson its files come from


EXAMPLES: tuple[Example, ...] = (
    Example("systems", {QRELS: "seed_qrels.trec", "r1": "seed_vector.trec",
                        "r2": "hybrid.csv"}, "RR", mrr_link.FOLDER),
    Example("graded", {QRELS: "graded_qrels.json", "r1": "graded_run.trec"}, "nDCG",
            ndcg_link.FOLDER),
)


def preferred_index(measures: Sequence[str], name: str | None) -> int:
    """The first measure string of measure ``name`` (``RR@10`` for ``RR``), else 0."""
    for i, m in enumerate(measures):
        if name and parse(m).measure.name == name:
            return i
    return 0


def load_example(key: str) -> dict[str, Loaded]:
    example = next(e for e in EXAMPLES if e.key == key)
    out = {}
    for slot, file_name in example.files.items():
        data = (EXAMPLES_DIR / file_name).read_bytes()
        out[slot] = load(slot, file_name, data)
    return out


# --- messages --------------------------------------------------------------------------------


def _word(words: Mapping[str, Mapping[str, str]], group: str, value: object) -> str:
    return words.get(group, {}).get(str(value), str(value))


def _listing(values: object, limit: int = 12) -> str:
    if isinstance(values, (list, tuple)):
        shown = [str(v) for v in values[:limit]]
        return ", ".join(shown) + (" …" if len(values) > limit else "")
    return str(values)


def error_values(err: FormatError | MetricError,
                 words: Mapping[str, Mapping[str, str]]) -> dict[str, object]:
    """The values a translated message quotes: sizes in MB, names of separators, columns and
    file kinds in the page's language, lists shortened. Strings stay raw (``fill`` escapes)."""
    values: dict[str, object] = {}
    for name, value in err.params.items():
        if name in ("size", "limit") and isinstance(err, FormatError):
            values[name] = fmt_size(value, words["units"]["megabytes"],
                                    round_up=name == "size")
        elif name == "kind":
            values[name] = _word(words, "kinds", value)
        elif name == "delimiter" or (name in ("expected", "found")
                                     and err.key == "mixed_separators"):
            values[name] = _word(words, "separators", value)
        elif name == "column":
            values[name] = _word(words, "columns", value)
        elif name in ("expected", "found") and err.key == "json_structure":
            values[name] = _word(words, "json", value)
        elif name == "allowed" and isinstance(value, str):
            values[name] = _word(words, "allowed", value)      # metrics says it in English
        elif name == "accepted" or isinstance(value, (list, tuple)):
            values[name] = _listing(value) if len(value) else "—"
        else:
            values[name] = "" if value is None else value
    return values


_QUERY_SUFFIX = ("json_structure", "non_numeric_score", "non_integer_grade")


def error_message(err: FormatError | MetricError, texts: Mapping[str, str],
                  words: Mapping[str, Mapping[str, str]],
                  metric_texts: Mapping[str, str] | None = None) -> str:
    """``err`` in the page's language, as safe Markdown: the line number first, then the
    problem with its values (anything taken from the file is escaped by ``fill``).
    ``MetricError`` keys take their text from ``metric_texts``."""
    from text.i18n import Markup, fill

    values = error_values(err, words)
    if isinstance(err, MetricError):
        template = (metric_texts or {}).get(err.key)
        if template is None:
            return fill(texts["metric"], {"key": err.key})
        if err.line is not None:
            template = texts["at_line"] + " " + template
        values["line"] = err.line if err.line is not None else ""
        try:
            return fill(template, values)
        except KeyError:
            return fill(texts["metric"], {"key": err.key})
    if err.key in _QUERY_SUFFIX:  # "(query “q7”)" after the message, only when known
        query = values.pop("query_id", "")
        values["query_id"] = Markup(fill(texts["in_query"], {"query_id": query}) if query
                                    else "")
    values["line"] = err.line if err.line is not None else ""
    try:
        return fill(error_template(err, texts), values)
    except KeyError:  # a parameter this key does not always carry: the plain message
        return fill(texts["unknown"] + " {{detail}}", {"detail": str(err)})


def error_messages(err: FormatError | MetricError, texts: Mapping[str, str],
                   words: Mapping[str, Mapping[str, str]],
                   metric_texts: Mapping[str, str] | None = None) -> tuple[list[str], bool]:
    """Every problem ``err`` lists (a file is checked in one pass: at most
    ``metrics.errors.MAX_PROBLEMS``), each translated; and whether there were more."""
    problems = getattr(err, "problems", None) or [err]
    return ([error_message(p, texts, words, metric_texts) for p in problems],
            bool(getattr(err, "truncated", False)))


def error_template(err: FormatError | MetricError, texts: Mapping[str, str]) -> str:
    """The translated template of ``err`` (``{{placeholders}}``), with its line number first."""
    key = err.key
    if key == "duplicate_doc" and err.params.get("first_line") is None:
        key = "duplicate_doc_json"
    template = texts.get(key) or texts["unknown"]
    if err.line is not None:
        template = texts["at_line"] + " " + template
    return template


# --- measures --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """What the learner picked: measures, cutoffs, the relevance threshold, gain, policy."""

    names: tuple[str, ...] = DEFAULT_MEASURES
    cutoffs: tuple[int, ...] = DEFAULT_CUTOFFS
    full: bool = False            # also without a cutoff, where the measure allows it
    rel: int = 1
    gain: str = "linear"
    missing: str = "zero"
    typed: tuple[str, ...] = ()   # measures typed by name (any name the registry parses)


def measure_strings(s: Settings) -> list[str]:
    """The measure strings ``metrics.evaluate`` takes, e.g. ``P@10``, ``P(rel=2)@10``,
    ``nDCG(gain=exponential)@10``, in the order picked."""
    out: list[str] = []
    for name in s.names:
        m = REGISTRY[name]
        params = []
        if "rel" in m.params and s.rel != 1:
            params.append(f"rel={s.rel}")
        if "gain" in m.params and s.gain != "linear":
            params.append(f"gain={s.gain}")
        base = name + (f"({','.join(params)})" if params else "")
        if m.cutoff == "none":
            out.append(base)
            continue
        out.extend(f"{base}@{k}" for k in sorted(set(s.cutoffs)))
        if m.cutoff == "optional" and (s.full or not s.cutoffs):
            out.append(base)
    out.extend(s.typed)
    return list(dict.fromkeys(out))


_SPLIT = re.compile(r"[\s;]+|,(?![^()]*\))")   # commas inside "(rel=2,gain=…)" stay


def parse_measures(text: str) -> tuple[list[str], list[MetricError]]:
    """Measures typed by name, separated by spaces, commas or semicolons, in trec_eval's or
    ir_measures' spelling (``P(rel=2)@5``, ``ndcg_cut_10``, ``Judged@10``): the ones the
    registry parses, in order without repeats, and an error for each it does not."""
    good, bad = [], []
    for token in filter(None, _SPLIT.split(text or "")):
        try:
            spec = parse(token)
        except MetricError as err:
            bad.append(err)
            continue
        if spec.k is None and spec.measure.cutoff == "required":
            bad.append(MetricError("cutoff_required", measure=token))
            continue
        good.append(token)
    return list(dict.fromkeys(good)), bad


_MATH_NAME = re.compile(r"\\mathrm\{([^{}]*)\}")


def formula_help(measure: str, lang: str) -> str:
    """What hovering a measure shows: its description, its formula (LaTeX source) and what the
    formula's symbols are."""
    m = parse(measure).measure
    # the display layout (a definition on a line of its own) as plain lines of text
    formula = (m.formula.replace(r"\begin{gathered}", "").replace(r"\end{gathered}", "")
               .replace("\\end{cases}\\\\ ", "\\end{cases}\n"))
    legend = _MATH_NAME.sub(r"\1", m.legend[lang].replace("$", ""))   # Rel, not \mathrm{Rel}
    # "|" would end a Markdown table cell even inside an attribute: the divides sign instead
    return f"{m.description[lang]}\n\n{formula}\n\n{legend}".replace("|", "∣")


def judged_k(s: Settings) -> int:
    """The top k whose judgments the lab counts: the smallest chosen cutoff, else 10."""
    return min(s.cutoffs) if s.cutoffs else JUDGED_K


def extra_measures(s: Settings) -> list[str]:
    """Computed with the chosen measures, shown beside them: Judged@k and NumRet (for the
    count of unjudged documents in the top k)."""
    return [f"Judged@{judged_k(s)}", "NumRet"]


def parse_cutoff(value: object) -> int | None:
    """A typed cutoff as an int in 1..MAX_CUTOFF, or None."""
    text = str(value).strip()
    if not text.isdigit():
        return None
    k = int(text)
    return k if 1 <= k <= MAX_CUTOFF else None


def settings_key(s: Settings) -> tuple:
    return (tuple(measure_strings(s)), s.missing, judged_k(s))


# --- evaluating ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Result:
    """One run evaluated: the chosen measures per query, and the judged counts of its top k."""

    table: pd.DataFrame          # index query_id, a column per chosen measure (evaluate's attrs)
    judged: pd.DataFrame         # index query_id: judged (share of the top k), unjudged (count)
    k: int


def evaluate(run: Loaded, qrels: Loaded, s: Settings) -> Result:
    """The chosen measures and Judged@k in one pass over the run."""
    chosen = measure_strings(s)
    extras = [m for m in extra_measures(s) if m not in chosen]
    full = metrics.evaluate(run.frame, qrels.frame, chosen + extras, missing=s.missing)
    k = judged_k(s)
    judged = full[f"Judged@{k}"]
    shown = np.minimum(full["NumRet"].to_numpy(float), k)
    counts_ = pd.DataFrame({"judged": judged,
                            "unjudged": np.rint((1 - judged.to_numpy(float)) * shown)},
                           index=full.index)
    table = full[chosen]
    table.attrs = full.attrs
    return Result(table, counts_, k)


def result_key(run: Loaded, qrels: Loaded, s: Settings) -> tuple:
    return (run.digest, qrels.digest, *settings_key(s))


def judged_table(results: Mapping[str, Result]) -> pd.DataFrame:
    """Per run: the mean Judged@k and the unjudged documents in the top k of all queries."""
    rows = {name: {"judged": float(r.judged["judged"].mean()) if len(r.judged) else np.nan,
                   "unjudged": int(r.judged["unjudged"].sum())} for name, r in results.items()}
    return pd.DataFrame.from_dict(rows, orient="index")


def poorly_judged(results: Mapping[str, Result]) -> list[str]:
    """The runs whose mean Judged@k is below ``JUDGED_WARN``."""
    table = judged_table(results)
    return [name for name, v in table["judged"].items() if v < JUDGED_WARN]


@dataclass(frozen=True)
class Counts:
    queries: int
    missing: list[str]
    unjudged: list[str]
    no_relevant: list[str]
    tied_pairs: int


def counts(table: pd.DataFrame) -> Counts:
    a = table.attrs
    return Counts(a["queries"], list(a["missing_queries"]), list(a["unjudged_queries"]),
                  list(a["no_relevant_queries"]), int(a["tied_pairs"]))


def mean_table(results: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per run (its label), one column per measure: the mean over the queries kept."""
    rows = {label: table.mean(axis=0, numeric_only=True) for label, table in results.items()}
    out = pd.DataFrame(rows).T
    out.index.name = None
    return out


def per_query_table(results: Mapping[str, pd.DataFrame], search: str = "") -> pd.DataFrame:
    """One row per query: every run's values side by side (``A · P@10``), and for two runs
    the differences (``Δ P@10`` = B − A). ``search`` keeps the query ids that contain it."""
    labels = list(results)
    parts = []
    for label in labels:
        table = results[label]
        parts.append(table.rename(columns=lambda c, lb=label: f"{lb} · {c}"))
    out = pd.concat(parts, axis=1, join="outer") if len(parts) > 1 else parts[0].copy()
    if len(labels) == 2:
        a, b = results[labels[0]], results[labels[1]]
        a, b = a.align(b, join="outer")
        for column in a.columns:
            out[f"Δ {column}"] = (b[column] - a[column]).round(6)
    out.index.name = "query_id"
    if search.strip():
        needle = search.strip().casefold()
        keep = [needle in str(q).casefold() for q in out.index]
        out = out[np.asarray(keep, dtype=bool)]
    return out


def per_query_csv(table: pd.DataFrame) -> bytes:
    return table.to_csv(float_format="%.6g").encode("utf-8")


# --- comparing up to ten runs ----------------------------------------------------------------

TESTS = ("randomization", "t")


def compare(tables: Mapping[str, pd.DataFrame], baseline: str, test: str = "randomization",
            seed: int = 0) -> RunComparison:
    """Every run against ``baseline`` on every measure: paired t-test and randomization test,
    Holm's correction over all the comparisons, markers from ``test``."""
    return compare_runs(tables, baseline=baseline, test=test, correction="holm", seed=seed)


def compare_key(keys: Sequence[tuple], names: Sequence[str], baseline: str, test: str) -> tuple:
    return ("cmp", tuple(keys), tuple(names), baseline, test)


def tests_table(cmp: RunComparison) -> pd.DataFrame:
    """One row per comparison (run against the baseline, per measure): the mean difference,
    its bootstrap interval, both tests' p-values each adjusted by Holm over all the
    comparisons shown, and the wins, ties and losses of the run."""
    t = cmp.tests
    return pd.DataFrame({
        "run": t["run"], "measure": t["measure"], "delta": t["delta"],
        "ci_low": t["ci_low"], "ci_high": t["ci_high"],
        "p_t": holm(t["p_t"].to_numpy(float)), "p_randomization": holm(
            t["p_randomization"].to_numpy(float)),
        "wins": t["wins"], "ties": t["ties"], "losses": t["losses"]}).reset_index(drop=True)


def pair(cmp: RunComparison, run: str, measure: str) -> Comparison:
    """``run`` against the baseline on ``measure``, as ``metrics.compare`` gives it (A is the
    baseline, B the run), from the numbers ``compare_runs`` already computed."""
    row = cmp.tests[(cmp.tests["run"] == run) & (cmp.tests["measure"] == measure)].iloc[0]
    a = cmp.per_query[cmp.baseline][measure]
    b = cmp.per_query[run][measure]
    deltas = (b - a).to_numpy(float)
    outcome = np.where(deltas > 1e-12, "win", np.where(deltas < -1e-12, "loss", "tie"))
    per_query = pd.DataFrame({"a": a, "b": b, "delta": deltas, "outcome": outcome}, index=a.index)
    none = lambda x: None if pd.isna(x) else float(x)  # noqa: E731
    return Comparison(
        measure=measure, per_query=per_query, wins=int(row["wins"]), ties=int(row["ties"]),
        losses=int(row["losses"]), mean_a=float(row["mean_other"]),
        mean_b=float(row["mean_run"]), mean_delta=float(row["delta"]),
        ci_low=float(row["ci_low"]), ci_high=float(row["ci_high"]), confidence=cmp.confidence,
        t_statistic=none(row["t"]), p_ttest=none(row["p_t"]),
        p_randomization=none(row["p_randomization"]), randomization_exact=bool(row["exact"]),
        seed=cmp.seed)


def num(x: float | None) -> str:
    """Every measure value, difference and interval bound on the page: ``DECIMALS`` places."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    return f"{x:.{DECIMALS}f}"


def summary_rows(names: Sequence[str], means: pd.DataFrame, judged: pd.DataFrame,
                 cmp: RunComparison | None = None) -> list[list[str]]:
    """The page's main table as Markdown cells: per run its letter, name, each measure's mean
    (the column's best in bold, superscript letters of the runs it is significantly better
    than), then the mean Judged@k and the unjudged documents in the top k."""
    from text.bidi import escape_markdown

    rows = []
    best = {m: set(_best(means[m])) for m in means.columns}
    for i, name in enumerate(names):
        cells = [LETTERS[i], escape_markdown(name)]
        for m in means.columns:
            text = num(float(means.at[name, m]))
            if name in best[m] and len(names) > 1:
                text = f"**{text}**"
            marks = cmp.markers.at[name, m] if cmp is not None else ""
            cells.append(text + "".join(report.SUPERSCRIPT[c] for c in marks))
        cells += [num(float(judged.at[name, "judged"])), f"{int(judged.at[name, 'unjudged']):,}"]
        rows.append(cells)
    return rows


LETTERS = "abcdefghij"


def _best(column: pd.Series) -> list[str]:
    rounded = column.round(DECIMALS)
    top = rounded.max()
    return [] if pd.isna(top) else list(rounded.index[rounded == top])


# --- reports ----------------------------------------------------------------------------------


def plain(template: str, values: Mapping[str, str]) -> str:
    """``template`` with ``{{name}}`` replaced as it is, unescaped: for text that is not
    Markdown (chart labels, metric card labels, table cells), which escapes it itself."""
    for name, value in values.items():
        template = template.replace("{{" + name + "}}", str(value))
    return template


def note_words(texts: Mapping[str, str]) -> dict[str, str]:
    """The sentences of ``metrics.report.note`` in the page's language (``[report_note]``)."""
    return {key: texts[key] for key in report.NOTE}


def report_files(cmp: RunComparison, words: Mapping[str, str], caption: str,
                 lang: str = "en", local_caption: str | None = None
                 ) -> dict[str, tuple[str, str, str]]:
    """kind -> (file name, MIME type, text): the table as Markdown (with the counts), LaTeX
    (booktabs) and CSV. The LaTeX caption is English (``caption``, the note's English
    sentences): pdfLaTeX sets no Arabic. On an Arabic page the same caption in Arabic
    (``local_caption``, ``words``) comes with it as comment lines, with the XeLaTeX preamble
    that sets it (``metrics.report.latex_table``'s ``arabic``)."""
    arabic = (local_caption or caption, words) if lang == "ar" else None
    return {
        "markdown": ("runs.md", "text/markdown",
                     report.markdown_table(cmp, words=words, with_counts=True)),
        "latex": ("runs.tex", "application/x-tex",
                  report.latex_table(cmp, caption=caption, arabic=arabic)),
        "table_csv": ("runs.csv", "text/csv", report.csv_table(cmp)),
    }


def trec_eval_q(tables: Mapping[str, pd.DataFrame]) -> str:
    """Every run's per-query table in ``trec_eval -q``'s format, one run after the other,
    each with its ``runid`` line (``metrics.report.read_trec_eval_q`` reads one run back)."""
    return "".join(report.trec_eval_q(t, run_name=_one_word(name)) for name, t in tables.items())


def _one_word(name: str) -> str:
    return re.sub(r"\s+", "_", name.strip()) or "run"


# --- fusion -----------------------------------------------------------------------------------


def fuse(runs: Mapping[str, Loaded], method: str, norm: str, slot: str) -> Loaded:
    """A new run fused from ``runs`` (name -> run), named after its method and parts."""
    frame = metrics.fuse([r.frame for r in runs.values()], method=method, norm=norm)
    name = f"{method}({' + '.join(runs)})"
    key = digest("\n".join([method, norm, *(r.digest for r in runs.values())]).encode())
    return Loaded(slot, name, key, 0, frame, name)


def fused_file(run: Loaded, name: str) -> str:
    """A fused run as a TREC file, its run tag the run's name as one word."""
    return report.trec_run(run.frame, tag=_one_word(name))


def signed(x: float, decimals: int = DECIMALS) -> str:
    return fmt_signed(x, decimals)


def p_text(p: float | None) -> str:
    return fmt_p(p, DECIMALS)


def p_relation(p: float | None) -> str:
    """``= 0.4310``, ``< 0.0001`` or ``= —``: what follows "p" in a sentence."""
    text = p_text(p)
    return text if text.startswith("<") else f"= {text}"


N_RESAMPLES = 10_000   # metrics.compare's default


def compare_words(cmp) -> dict[str, object]:
    """The numbers the plain-words explanation quotes (every one from ``metrics.compare``)."""
    from text.bidi import escape_markdown
    from text.i18n import Markup

    p = cmp.p_ttest if cmp.p_ttest is not None else cmp.p_randomization
    n = len(cmp.per_query)
    # As Markup (digits and signs only), not as escaped text: the renderer then isolates
    # "+0.04" as one left-to-right run, sign first, in Arabic too.
    signed_ltr = lambda x: Markup(signed(x))  # noqa: E731
    return {
        "n": n, "measure": cmp.measure, "wins": cmp.wins, "ties": cmp.ties, "losses": cmp.losses,
        "mean_a": Markup(num(cmp.mean_a)), "mean_b": Markup(num(cmp.mean_b)),
        "mean_delta": signed_ltr(cmp.mean_delta),
        "ci_low": signed_ltr(cmp.ci_low), "ci_high": signed_ltr(cmp.ci_high),
        "confidence": round(100 * cmp.confidence),
        "p_t": Markup(escape_markdown(p_relation(cmp.p_ttest))),
        "p_rand": Markup(escape_markdown(p_relation(cmp.p_randomization))),
        "in_100": "—" if p is None else max(0, round(100 * p)),
        "resamples": Markup(f"{2 ** n if cmp.randomization_exact else N_RESAMPLES:,}"),
    }


def adjusted_p(cmp: RunComparison, run: str, measure: str) -> tuple[float | None, ...]:
    """Both tests' p-values of ``run`` against the baseline on ``measure``, each adjusted by
    Holm over every comparison shown: the numbers of the tests table (``tests_table``)."""
    table = tests_table(cmp)
    row = table[(table["run"] == run) & (table["measure"] == measure)].iloc[0]
    return tuple(None if pd.isna(row[c]) else float(row[c]) for c in ("p_t", "p_randomization"))


def compare_verdict(cmp, adjusted: Sequence[float | None]) -> str:
    """Which plain-words conclusion applies: ``undefined`` (no difference on any query, or too
    few queries), ``clear`` (both
    tests' Holm-adjusted p-values, ``adjusted`` as (t-test, randomization), below 0.05 and the
    interval away from 0), ``clear_randomization`` (the same, when the t-test has no p: every
    query moved by the same amount, so its spread is 0) or ``unclear``. The adjusted values,
    not the pair's own: the page runs many comparisons."""
    if (cmp.p_randomization is None or len(cmp.per_query) < 2
            or not cmp.per_query["delta"].abs().gt(1e-12).any()):
        return "undefined"
    p_values = [p for p in adjusted if p is not None]
    away = not (cmp.ci_low <= 0 <= cmp.ci_high)
    if not (p_values and max(p_values) < 0.05 and away):
        return "unclear"
    return "clear" if len(p_values) == len(adjusted) else "clear_randomization"


def ordered_deltas(cmp) -> pd.DataFrame:
    """Per-query deltas, regressions first (worst first), then ties, then wins (best last)."""
    table = cmp.per_query.copy()
    order = table["outcome"].map({"loss": 0, "tie": 1, "win": 2})
    table = table.assign(_o=order.to_numpy()).sort_values(["_o", "delta"], kind="stable")
    return table.drop(columns="_o")


def delta_display(table: pd.DataFrame, words: Mapping[str, str], a: str = "A",
                  b: str = "B") -> pd.DataFrame:
    """``a, b, delta, outcome`` under the runs' names, ``b − a`` and the outcome in the
    page's words."""
    return pd.DataFrame({a: table["a"], b: table["b"], f"{b} − {a}": table["delta"],
                         "": table["outcome"].map(words)}, index=table.index)


# --- charts (plain Vega-Lite dicts; axes left to right in both languages) --------------------

RUN_COLOURS = (PALETTE["run_a"], PALETTE["run_b"])


def run_scale(runs: Sequence[str]) -> dict:
    """The colours of the runs: the lab's two, or Vega's Tableau 10 for more (up to ten
    runs plus nothing else: one colour each)."""
    if len(runs) <= len(RUN_COLOURS):
        return {"domain": list(runs), "range": list(RUN_COLOURS[:len(runs)])}
    return {"domain": list(runs), "scheme": "tableau10"}


def titled(spec: dict, title: str) -> dict:
    """``spec`` with a title drawn above it (downloaded charts name their measure and runs)."""
    return {**spec, "title": {"text": charts.text(title), "anchor": "start"}}
OUTCOME_COLOURS = {"win": PALETTE["good"], "tie": PALETTE["neutral"], "loss": PALETTE["bad"]}


def histogram_rows(results: Mapping[str, pd.DataFrame], measure: str,
                   bins: int = 10) -> list[dict]:
    """Counts of queries per value bin, per run. Measures in [0, 1] use ten bins of 0.1
    (1.0 falls in the last); unbounded ones (DCG) bins over their own range."""
    values = {label: t[measure].to_numpy(float) for label, t in results.items()}
    values = {label: v[np.isfinite(v)] for label, v in values.items()}
    top = max((float(np.nanmax(v)) for v in values.values() if len(v)), default=1.0)
    hi = 1.0 if top <= 1.0 else float(np.ceil(top))
    edges = np.linspace(0.0, hi, bins + 1)
    rows = []
    for label, v in values.items():
        counts_, _ = np.histogram(v[np.isfinite(v)], bins=edges)
        for i, n in enumerate(counts_):
            rows.append({"bin": f"{edges[i]:.2g}–{edges[i + 1]:.2g}", "start": float(edges[i]),
                         "run": label, "queries": int(n)})
    return rows


def histogram_chart(results: Mapping[str, pd.DataFrame], measure: str,
                    labels: Mapping[str, str]) -> dict:
    rows = histogram_rows(results, measure)
    runs = list(results)
    order = list(dict.fromkeys(r["bin"] for r in rows))
    x = {"field": "bin", "type": "ordinal", "sort": order, "title": f"{measure}",
         "axis": {"labelAngle": -40}}
    encoding = {
        "x": x,
        "y": {"field": "queries", "type": "quantitative", "title": labels["queries"]},
        "color": {"field": "run", "type": "nominal", "title": None,
                  "scale": run_scale(runs),
                  "legend": {"orient": "bottom", "columns": 3}},
        "tooltip": [{"field": "run", "title": labels["run"]},
                    {"field": "bin", "title": measure},
                    {"field": "queries", "title": labels["queries"]}],
    }
    if len(runs) > 1:
        encoding["xOffset"] = {"field": "run", "type": "nominal", "sort": runs}
    return charts.spec(240, width="container", data={"values": rows}, mark={"type": "bar"},
                       encoding=encoding)


def pr_curves(runs: Mapping[str, Loaded], qrels: Loaded, s: Settings) -> dict[str, pd.DataFrame]:
    """Per run, the interpolated precision at trec_eval's eleven recall levels per query
    (``metrics.pr_curve``, the relevance threshold and missing-query policy of the settings)."""
    return {name: metrics.pr_curve(run.frame, qrels.frame, rel=s.rel,
                                   missing=s.missing).per_query for name, run in runs.items()}


def pr_rows(curves: Mapping[str, pd.DataFrame], query: str | None = None) -> list[dict]:
    """Chart rows (run, recall, precision): averaged over the queries, or of ``query``."""
    rows = []
    for name, table in curves.items():
        if query is None:
            line = table.mean(axis=0)
        elif query in table.index:
            line = table.loc[query]
        else:
            continue
        rows += [{"run": name, "recall": float(r), "precision": round(float(p), 6)}
                 for r, p in line.items()]
    return rows


def pr_chart(curves: Mapping[str, pd.DataFrame], labels: Mapping[str, str],
             query: str | None = None) -> dict:
    """One line per run: interpolated precision against recall, both axes from 0 to 1."""
    runs = list(curves)
    return charts.spec(
        260, width="container", data={"values": pr_rows(curves, query)},
        mark={"type": "line", "point": True},
        encoding={
            "x": {"field": "recall", "type": "quantitative", "title": labels["recall"],
                  "scale": {"domain": [0, 1]},
                  "axis": {"values": list(metrics.ELEVEN_POINTS), "format": ".1f"}},
            "y": {"field": "precision", "type": "quantitative", "title": labels["precision"],
                  "scale": {"domain": [0, 1]}},
            "color": {"field": "run", "type": "nominal", "title": None,
                      "scale": run_scale(runs),
                      "legend": {"orient": "bottom", "columns": 3}},
            "tooltip": [{"field": "run", "title": labels["run"]},
                        {"field": "recall", "title": labels["recall"], "format": ".1f"},
                        {"field": "precision", "title": labels["precision"], "format": ".4f"}],
        })


def delta_rows(cmp) -> list[dict]:
    """Per-query deltas sorted by delta (most negative first), with their position."""
    table = cmp.per_query.sort_values("delta", kind="stable")
    return [{"position": i, "query": str(q), "delta": round(float(d), 6),
             "a": round(float(a), 6), "b": round(float(b), 6), "outcome": o}
            for i, (q, a, b, d, o) in enumerate(table.itertuples(), start=1)]


def delta_chart(cmp, labels: Mapping[str, str]) -> dict:
    """One bar per query, B − A, sorted by the difference; coloured by outcome. With many
    queries the x axis is the position in that order (query ids are in the tooltip)."""
    rows = delta_rows(cmp)
    names = {"win": labels["better"], "tie": labels["same"], "loss": labels["worse"]}
    for row in rows:
        row["outcome"] = names[row["outcome"]]
    few = len(rows) <= 40
    x = ({"field": "query", "type": "ordinal", "sort": [r["query"] for r in rows],
          "title": labels["query"], "axis": {"labelAngle": -40}} if few else
         {"field": "position", "type": "quantitative", "title": labels["position"],
          "scale": {"domain": [0, len(rows) + 1], "nice": False}})
    return charts.spec(
        260, width="container", data={"values": rows},
        mark={"type": "bar"} if few
        else {"type": "bar", "size": max(0.5, min(4.0, 600 / max(len(rows), 1)))},
        encoding={
            "x": x,
            "y": {"field": "delta", "type": "quantitative", "title": labels["delta"]},
            "color": {"field": "outcome", "type": "nominal", "title": None,
                      "scale": {"domain": list(names.values()),
                                "range": [OUTCOME_COLOURS[k] for k in names]},
                      "legend": {"orient": "bottom"}},
            "tooltip": [{"field": "query", "title": labels["query"]},
                        {"field": "a", "title": labels.get("a", "A"), "format": ".4f"},
                        {"field": "b", "title": labels.get("b", "B"), "format": ".4f"},
                        {"field": "delta", "title": labels["delta"], "format": "+.4f"}],
        })


# --- "explain this number": one query opened in a lesson ------------------------------------


@dataclass(frozen=True)
class Explanation:
    lesson: str                       # catalogue url path: recall-precision | mrr | ndcg
    script: str                       # the page script (st.page_link's target)
    params: dict[str, str]            # the lesson's URL fields
    notes: tuple[str, ...]            # what had to be shortened or mapped (keys of texts)
    shown: int                        # documents of the ranking shown in the lesson


def ranking_of(run: pd.DataFrame, query_id: str) -> list[str]:
    """The query's documents in rank order: score descending, ties by document id
    descending (trec_eval's order, as ``metrics.evaluate`` uses)."""
    rows = run[run["query_id"] == query_id]
    if rows.empty:
        return []
    docs = rows["doc_id"].astype(str).to_numpy()
    scores = rows["score"].to_numpy(float)
    order = sorted(range(len(docs)), key=lambda i: (-scores[i], _desc(docs[i])))
    return [docs[i] for i in order]


class _desc(str):
    """Sorts strings in descending order."""

    def __lt__(self, other: str) -> bool:
        return str.__gt__(self, other)


def judgments_of(qrels: pd.DataFrame, query_id: str) -> dict[str, int]:
    rows = qrels[qrels["query_id"] == query_id]
    return dict(zip(rows["doc_id"].astype(str), rows["grade"].astype(int), strict=True))


# The lesson that teaches each family of measures, by its public link module.
LINKS = {"binary": recall_precision_link, "rank": mrr_link, "graded": ndcg_link}
# The registry measures a lesson computes step by step (R-precision: lesson 2 at k = R). Any
# other (bpref, IPrec, Judged, the counts) opens its family's lesson on the query's ranking and
# judgments, with a note that the lesson shows other measures.
TAUGHT = frozenset({m.registry for m in taught_measures.MEASURES.values() if m.registry}
                   | {"Rprec"})
RP_MAX = recall_precision_link.MAX_DOCS      # the lessons' limits, from their links
MAX_ID = min(recall_precision_link.MAX_ID_CHARS, ndcg_link.MAX_ID_CHARS)  # longer: renamed


def lesson_for(measure: str):
    """The link module of the lesson that teaches ``measure`` (lesson 2, 3 or 5). RR opens
    lesson 2, which shows one run's ranking (lesson 3 holds two: it is AP's)."""
    m = parse(measure).measure
    if m.name == "RR":
        return recall_precision_link
    return LINKS.get(m.family, recall_precision_link)


def _safe_ids(docs: Sequence[str], most: int = MAX_ID) -> tuple[dict[str, str], bool]:
    """id -> the name a lesson shows: the id, or ``doc_<rank>`` when longer than ``most``."""
    names, renamed = {}, False
    for i, d in enumerate(docs, start=1):
        if len(d) > most:
            names[d], renamed = f"doc_{i}", True
        else:
            names[d] = d
    return names, renamed


def _explanation(lesson, params: dict[str, str], notes: list[str], shown: int,
                 lang: str | None) -> Explanation:
    entry = next(e for e in catalog.LESSONS if e.folder == lesson.FOLDER)
    params = {**params, scroll.KEY: scroll.RANKING}     # the lesson opens on the ranking
    if lang:      # a link opened in a new tab keeps the page's language
        params = {**params, "lang": lang}
    return Explanation(entry.url_path, entry.script, params, tuple(dict.fromkeys(notes)), shown)


def explain_links(measure: str, query_id: str, rankings: Mapping[str, list[str]],
                  grades: Mapping[str, int], lang: str | None = None
                  ) -> list[tuple[str | None, Explanation]]:
    """The links that open one query in the lesson that teaches ``measure``: one per run
    when the lesson holds one ranking (lessons 2 and 5), one for both runs when it holds two
    systems (lesson 3); each paired with its run's name (None: every run)."""
    if lesson_for(measure) is mrr_link:
        return [(None, explain(measure, query_id, rankings, grades, lang))]
    return [(name, explain(measure, query_id, {name: ranking}, grades, lang))
            for name, ranking in rankings.items()]


def explain(measure: str, query_id: str, rankings: Mapping[str, list[str]],
            grades: Mapping[str, int], lang: str | None = None) -> Explanation:
    """The link that opens one query in the lesson that teaches ``measure``, built through that
    lesson's ``link`` module.

    ``rankings``: run label -> that run's ranking for the query; ``grades``: its judgments.
    Lessons hold short rankings (their links say how long): the top of the ranking is shown and
    the notes say what was left out; the value for the shown cutoff stays exact where the
    lesson can show it."""
    spec = parse(measure)
    lesson = lesson_for(measure)
    rel = int(spec.params.get("rel", 1))
    ranking = next(iter(rankings.values()), [])
    taught = spec.measure.name in TAUGHT
    notes: list[str] = [] if taught else ["not_taught"]
    if lesson is mrr_link:
        return _explain_mrr(spec, query_id, rankings, grades, rel, notes, lang)
    most = lesson.MAX_DOCS
    top = ranking[:most]
    if lesson is ndcg_link:
        left = sorted(((d, g) for d, g in grades.items() if g > 0 and d not in set(top)),
                      key=lambda item: -item[1])
        if any(g > ndcg_link.MAX_GRADE for g in grades.values()):
            notes.append("clipped_grades")
        k = spec.k if spec.k is not None else len(ranking)
    else:
        left = [(d, 1) for d, g in grades.items() if g >= rel and d not in set(top)]
        k = spec.k if spec.k is not None and taught else (
            len(ranking) if spec.measure.name != "Rprec"
            else sum(g >= rel for g in grades.values()))     # IPrec's "k" is a recall level
    names, renamed = _safe_ids(top + [d for d, _ in left[:most]])
    # lesson 5 keeps the highest grades, enough for its ideal top k (k <= most): exact
    notes += ["cut_top"] * (len(ranking) > most) + ["cut_relevant"] * (
        len(left) > most and lesson is not ndcg_link)
    if rel != 1 and lesson is recall_precision_link:
        notes.append("threshold")        # nDCG takes every grade as it is
    if not 1 <= k <= most:
        notes.append("cut_k")
    if not top:
        notes.append("empty")
    k = min(max(k, 1), most)
    if lesson is ndcg_link:
        def clip(g: int) -> int:
            return min(max(int(g), 0), ndcg_link.MAX_GRADE)

        scenario = ndcg_link.Scenario(
            [(names[d], clip(grades.get(d, 0))) for d in top] or [("none", 0)],
            [(names[d], clip(g)) for d, g in left[:most]], k,
            gain=str(spec.params.get("gain", "linear")),
            ideal="retrieved" if spec.params.get("ideal") == "retrieved" else "judged")
        if top and ndcg_link.cuts_short(scenario):
            notes.append("cut_short")
    else:
        scenario = recall_precision_link.Scenario(
            [(names[d], int(grades.get(d, 0) >= rel)) for d in top] or [("none", 0)],
            [names[d] for d, _ in left[:most]], k)
    if renamed:
        notes.append("renamed")
    return _explanation(lesson, lesson.link(scenario), notes, len(top), lang)


def _shortened(name: str) -> str:
    """A name (query id, run name) the lesson can show: at most ``mrr_link.MAX_LABEL_CHARS``."""
    most = mrr_link.MAX_LABEL_CHARS
    return name if len(name) <= most else name[:most - 1] + "…"


def _free(name: str, taken: Sequence[str]) -> str:
    """``name``, or ``name`` with primes added until no document id in ``taken`` has it."""
    while name in taken:
        name += "′"
    return name


def _explain_mrr(spec, query_id: str, rankings: Mapping[str, list[str]],
                 grades: Mapping[str, int], rel: int, notes: list[str],
                 lang: str | None) -> Explanation:
    """Lesson 3 on this one query alone: run A in its left column, run B in its right one
    (one run: in both), named as the user named them, and her own document ids on the
    lesson's nine document slots d1…d9. The slots hold the top t of both runs (t as large as
    fits, with room for one relevant document), then the relevant documents neither run shows
    there; the notes say what was cut."""
    runs = dict(list(rankings.items())[:2])
    if len(runs) == 1:
        notes.append("one_run")
    names, tops = list(runs), list(runs.values())
    if len(tops) == 1:
        names, tops = names * 2, tops * 2
    relevant = [d for d, g in grades.items() if g >= rel]
    rel_set = set(relevant)
    slots = len(mrr_link.POOL)
    best = 1
    for t in range(slots, 0, -1):
        docs = list(dict.fromkeys([*tops[0][:t], *tops[1][:t]]))
        # room for a relevant document, and for a placeholder in a run that returned nothing
        extra = (not rel_set & set(docs)) + sum(not r for r in tops)
        if len(docs) + extra <= slots:
            best = t
            break
    docs = list(dict.fromkeys([*tops[0][:best], *tops[1][:best]]))
    if any(len(r) > best for r in tops):
        notes.append("cut_top")
    missed = [d for d in relevant if d not in set(docs)]
    room = slots - len(docs) - sum(not r for r in tops)
    if len(missed) > room:
        notes.append("cut_relevant")
    ids = docs + missed[:room]
    labels, renamed = _safe_ids(ids, mrr_link.MAX_LABEL_CHARS)
    golden = [d for d in ids if d in rel_set]
    if not relevant:
        notes.append("no_relevant")
        placeholder = _free("∅", list(labels.values()))
        ids.append(placeholder)
        labels[placeholder] = placeholder
        golden = [placeholder]
    if rel != 1:
        notes.append("threshold")
    shown = []
    for ranking in tops:
        top = ranking[:best]
        if not top:       # nothing retrieved for this query: one non-relevant placeholder
            notes.append("empty")
            top = [_free("—", list(labels.values()))]
            if top[0] not in labels:
                ids.append(top[0])
                labels[top[0]] = top[0]
        shown.append(top)
    slot = {d: mrr_link.POOL[i] for i, d in enumerate(ids)}
    taught = "not_taught" not in notes
    k = spec.k if spec.k is not None and taught else best    # IPrec's "k" is a recall level
    if not 1 <= k <= slots:
        notes.append("cut_k")
    if renamed:
        notes.append("renamed")
    scenario = mrr_link.Scenario(
        golden=(tuple(slot[d] for d in ids if d in set(golden)),),
        vector=(tuple(slot[d] for d in shown[0]),), hybrid=(tuple(slot[d] for d in shown[1]),),
        question=mrr_link.QUESTIONS[0], k=min(max(k, 1), slots),
        norm=str(spec.params.get("norm", "R")),
        measure={"RR": "rr", "AP": "ap"}.get(spec.measure.name, "rr"), system="vector",
        labels=mrr_link.Labels(_shortened(query_id), (_shortened(names[0]), _shortened(names[1])),
                               tuple(labels[d] for d in ids)))
    return _explanation(mrr_link, mrr_link.link(scenario), notes, best, lang)
