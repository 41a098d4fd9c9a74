"""The lab's plain functions: read uploaded files, evaluate and compare runs, build the tables,
charts, messages and "explain this number" links. No Streamlit here: the page calls these and
tests call them directly. Every number comes from ``metrics``.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

import metrics
from lessons.mrr import link as mrr_link
from lessons.ndcg import link as ndcg_link
from lessons.recall_precision import link as recall_precision_link
from metrics.errors import FormatError, MetricError
from metrics.io import read_qrels, read_run
from metrics.registry import REGISTRY, parse
from runtime import catalog
from ui import charts
from ui.charts import PALETTE

EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "assets" / "examples"
UPLOAD_LIMIT_MB = 200                       # per file, as st.file_uploader's max_upload_size
UPLOAD_LIMIT = UPLOAD_LIMIT_MB * 1024 * 1024
# A gzip upload may inflate beyond the upload limit; the text is capped here so one file
# cannot take the server's memory (the 7,000 x 1,000 benchmark run is 249 MB as text).
READ_LIMIT = 512 * 1024 * 1024
SLOTS = ("qrels", "a", "b")                 # the judgments, run A, run B
KIND = {"qrels": "qrels", "a": "run", "b": "run"}
PICKABLE = ("P", "R", "HitRate", "F1", "RR", "AP", "Rprec", "nDCG", "DCG")
DEFAULT_MEASURES = ("P", "R", "RR", "AP", "nDCG")
CUTOFFS = (1, 3, 5, 10, 20, 50, 100, 1000)
DEFAULT_CUTOFFS = (10,)
MAX_CUTOFF = 100_000
GAINS = ("linear", "exponential")
MISSING = ("zero", "skip")
RESULTS_KEPT = 6                             # evaluation results kept per session
LIST_SHOWN = 30                              # query ids listed in a message


# --- reading files -------------------------------------------------------------------------


@dataclass(frozen=True)
class Loaded:
    """One file read into a DataFrame: what the page shows about it and what it computes on."""

    slot: str
    name: str
    digest: str          # sha256 of the bytes as uploaded: the key of every cached result
    size: int
    frame: pd.DataFrame = field(repr=False, compare=False)

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
    reader = read_qrels if KIND[slot] == "qrels" else read_run
    frame = reader(data, max_bytes=READ_LIMIT)
    return Loaded(slot, name, known_digest or digest(data), len(data), frame)


def load_text(slot: str, text: str) -> Loaded:
    """Pasted text: the same reader, named "pasted"."""
    data = text.encode("utf-8", "surrogatepass")
    if not data.strip():
        raise FormatError("empty_file")
    return load(slot, "pasted", data)


@dataclass(frozen=True)
class Example:
    key: str
    files: Mapping[str, str]          # slot -> file name in assets/examples
    measure: str                      # the measure its lesson is about: shown first


EXAMPLES: tuple[Example, ...] = (
    Example("systems", {"qrels": "seed_qrels.trec", "a": "seed_vector.trec",
                        "b": "seed_hybrid.csv"}, "RR"),
    Example("graded", {"qrels": "graded_qrels.json", "a": "graded_run.trec"}, "nDCG"),
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


def _mb(size: object) -> str:
    try:
        return f"{int(size) / (1024 * 1024):,.1f} MB"
    except (TypeError, ValueError):
        return str(size)


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
        if name in ("size", "limit"):
            values[name] = _mb(value)
        elif name == "kind":
            values[name] = _word(words, "kinds", value)
        elif name == "delimiter" or (name in ("expected", "found")
                                     and err.key == "mixed_separators"):
            values[name] = _word(words, "separators", value)
        elif name == "column":
            values[name] = _word(words, "columns", value)
        elif name in ("expected", "found") and err.key == "json_structure":
            values[name] = _word(words, "json", value)
        elif name == "accepted" or isinstance(value, (list, tuple)):
            values[name] = _listing(value)
        else:
            values[name] = "" if value is None else value
    return values


_QUERY_SUFFIX = ("json_structure", "non_numeric_score", "non_integer_grade")


def error_message(err: FormatError | MetricError, texts: Mapping[str, str],
                  words: Mapping[str, Mapping[str, str]]) -> str:
    """``err`` in the page's language, as safe Markdown: the line number first, then the
    problem with its values (anything taken from the file is escaped by ``fill``)."""
    from text.i18n import Markup, fill

    if isinstance(err, MetricError):
        return fill(texts["metric"], {"key": err.key})
    values = error_values(err, words)
    if err.key in _QUERY_SUFFIX:  # "(query “q7”)" after the message, only when known
        query = values.pop("query_id", "")
        values["query_id"] = Markup(fill(texts["in_query"], {"query_id": query}) if query
                                    else "")
    values["line"] = err.line if err.line is not None else ""
    try:
        return fill(error_template(err, texts), values)
    except KeyError:  # a parameter this key does not always carry: the plain message
        return fill(texts["unknown"] + " {{detail}}", {"detail": str(err)})


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
    return list(dict.fromkeys(out))


def parse_cutoff(value: object) -> int | None:
    """A typed cutoff as an int in 1..MAX_CUTOFF, or None."""
    text = str(value).strip()
    if not text.isdigit():
        return None
    k = int(text)
    return k if 1 <= k <= MAX_CUTOFF else None


def settings_key(s: Settings) -> tuple:
    return (tuple(measure_strings(s)), s.missing)


# --- evaluating ------------------------------------------------------------------------------


def evaluate(run: Loaded, qrels: Loaded, s: Settings) -> pd.DataFrame:
    return metrics.evaluate(run.frame, qrels.frame, measure_strings(s), missing=s.missing)


def result_key(run: Loaded, qrels: Loaded, s: Settings) -> tuple:
    return (run.digest, qrels.digest, *settings_key(s))


@dataclass(frozen=True)
class Counts:
    queries: int
    missing: list[str]
    unjudged: list[str]
    no_relevant: list[str]
    tied_pairs: int
    duplicates: int


def counts(table: pd.DataFrame) -> Counts:
    a = table.attrs
    return Counts(a["queries"], list(a["missing_queries"]), list(a["unjudged_queries"]),
                  list(a["no_relevant_queries"]), int(a["tied_pairs"]),
                  int(a["duplicates_dropped"]))


def mean_table(results: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per run (its label), one column per measure: the mean over the queries kept."""
    rows = {label: table.mean(axis=0, numeric_only=True) for label, table in results.items()}
    out = pd.DataFrame(rows).T
    out.index.name = None
    return out.round(4)


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


# --- comparing -------------------------------------------------------------------------------


def compare(a: Loaded, b: Loaded, qrels: Loaded, measure: str, missing: str):
    return metrics.compare(a.frame, b.frame, qrels.frame, measure, missing=missing)


def compare_key(a: Loaded, b: Loaded, qrels: Loaded, measure: str, missing: str) -> tuple:
    return ("cmp", a.digest, b.digest, qrels.digest, measure, missing)


def signed(x: float, decimals: int = 3) -> str:
    text = f"{x:+.{decimals}f}"
    return text[1:] if float(text) == 0 else text


def p_text(p: float | None) -> str:
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "—"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def p_relation(p: float | None) -> str:
    """``= 0.431``, ``< 0.001`` or ``= —``: what follows "p" in a sentence."""
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
    signed_ltr = lambda x: Markup(signed(x, 4))  # noqa: E731
    return {
        "n": n, "measure": cmp.measure, "wins": cmp.wins, "ties": cmp.ties, "losses": cmp.losses,
        "mean_a": round(cmp.mean_a, 4), "mean_b": round(cmp.mean_b, 4),
        "mean_delta": signed_ltr(cmp.mean_delta),
        "ci_low": signed_ltr(cmp.ci_low), "ci_high": signed_ltr(cmp.ci_high),
        "confidence": round(100 * cmp.confidence),
        "p_t": Markup(escape_markdown(p_relation(cmp.p_ttest))),
        "p_rand": Markup(escape_markdown(p_relation(cmp.p_randomization))),
        "in_100": "—" if p is None else max(0, round(100 * p)),
        "resamples": Markup(f"{2 ** n if cmp.randomization_exact else N_RESAMPLES:,}"),
    }


def compare_verdict(cmp) -> str:
    """Which plain-words conclusion applies: ``undefined`` (no variation), ``clear`` (both
    tests below 0.05 and the interval away from 0) or ``unclear``."""
    if cmp.p_randomization is None or len(cmp.per_query) < 2:
        return "undefined"
    p_values = [p for p in (cmp.p_ttest, cmp.p_randomization) if p is not None]
    away = not (cmp.ci_low <= 0 <= cmp.ci_high)
    return "clear" if p_values and max(p_values) < 0.05 and away else "unclear"


def ordered_deltas(cmp) -> pd.DataFrame:
    """Per-query deltas, regressions first (worst first), then ties, then wins (best last)."""
    table = cmp.per_query.copy()
    order = table["outcome"].map({"loss": 0, "tie": 1, "win": 2})
    table = table.assign(_o=order.to_numpy()).sort_values(["_o", "delta"], kind="stable")
    return table.drop(columns="_o")


def delta_display(table: pd.DataFrame, words: Mapping[str, str]) -> pd.DataFrame:
    """``a, b, delta, outcome`` as ``A, B, B − A`` and the outcome in the page's words."""
    return pd.DataFrame({"A": table["a"], "B": table["b"], "B − A": table["delta"],
                         "": table["outcome"].map(words)}, index=table.index)


# --- charts (plain Vega-Lite dicts; axes left to right in both languages) --------------------

RUN_COLOURS = (PALETTE["run_a"], PALETTE["run_b"])
OUTCOME_COLOURS = {"win": PALETTE["good"], "tie": PALETTE["neutral"], "loss": PALETTE["bad"]}


def histogram_rows(results: Mapping[str, pd.DataFrame], measure: str,
                   bins: int = 10) -> list[dict]:
    """Counts of queries per value bin, per run. Measures in [0, 1] use ten bins of 0.1
    (1.0 falls in the last); unbounded ones (DCG) bins over their own range."""
    values = {label: t[measure].to_numpy(float) for label, t in results.items()}
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
                  "scale": {"domain": runs, "range": list(RUN_COLOURS[:len(runs)])},
                  "legend": {"orient": "bottom"}},
        "tooltip": [{"field": "run", "title": labels["run"]},
                    {"field": "bin", "title": measure},
                    {"field": "queries", "title": labels["queries"]}],
    }
    if len(runs) > 1:
        encoding["xOffset"] = {"field": "run", "type": "nominal", "sort": runs}
    return charts.spec(240, width="container", data={"values": rows}, mark={"type": "bar"},
                       encoding=encoding)


def delta_rows(cmp) -> list[dict]:
    """Per-query deltas sorted by delta (most negative first), with their position."""
    table = cmp.per_query.sort_values("delta", kind="stable")
    return [{"position": i, "query": str(q), "delta": round(float(d), 6),
             "a": round(float(a), 4), "b": round(float(b), 4), "outcome": o}
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
                        {"field": "a", "title": "A", "format": ".3f"},
                        {"field": "b", "title": "B", "format": ".3f"},
                        {"field": "delta", "title": labels["delta"], "format": "+.3f"}],
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
RP_MAX = recall_precision_link.MAX_DOCS      # the lessons' limits, from their links
MAX_ID = 30          # longer document ids are renamed in the link (URLs have a length limit)


def lesson_for(measure: str):
    """The link module of the lesson that teaches ``measure`` (lesson 2, 3 or 5)."""
    return LINKS.get(parse(measure).measure.family, recall_precision_link)


def _safe_ids(docs: Sequence[str]) -> tuple[dict[str, str], bool]:
    names, renamed = {}, False
    for i, d in enumerate(docs, start=1):
        if len(d) > MAX_ID:
            names[d], renamed = f"doc_{i}", True
        else:
            names[d] = d
    return names, renamed


def _explanation(lesson, params: dict[str, str], notes: list[str], shown: int) -> Explanation:
    entry = next(e for e in catalog.LESSONS if e.folder == lesson.FOLDER)
    return Explanation(entry.url_path, entry.script, params, tuple(dict.fromkeys(notes)), shown)


def explain(measure: str, query_id: str, rankings: Mapping[str, list[str]],
            grades: Mapping[str, int]) -> Explanation:
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
    notes: list[str] = []
    if lesson is mrr_link:
        return _explain_mrr(spec, rankings, grades, rel, notes)
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
        k = spec.k if spec.k is not None else (len(ranking) if spec.measure.name != "Rprec"
                                               else sum(g >= rel for g in grades.values()))
    names, renamed = _safe_ids(top + [d for d, _ in left[:most]])
    notes += ["cut_top"] * (len(ranking) > most) + ["cut_relevant"] * (len(left) > most)
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
    else:
        scenario = recall_precision_link.Scenario(
            [(names[d], int(grades.get(d, 0) >= rel)) for d in top] or [("none", 0)],
            [names[d] for d, _ in left[:most]], k)
    if renamed:
        notes.append("renamed")
    return _explanation(lesson, lesson.link(scenario), notes, len(top))


def _explain_mrr(spec, rankings: Mapping[str, list[str]], grades: Mapping[str, int], rel: int,
                 notes: list[str]) -> Explanation:
    """The MRR lesson holds five questions with documents d1..d9: the query becomes q1 (run A
    as "vector", run B as "hybrid"), its documents renamed d1..d9 in rank order; q2..q5 stay
    the lesson's own example."""
    runs = list(rankings.values())[:2]
    if len(runs) == 1:
        runs = runs * 2
        notes.append("one_run")
    relevant = [d for d, g in grades.items() if g >= rel]
    rel_set = set(relevant)
    pool = list(mrr_link.POOL)
    best = 1
    for t in range(len(pool), 0, -1):
        docs = list(dict.fromkeys([*runs[0][:t], *runs[1][:t]]))
        extra = 1 if not relevant or not (rel_set & set(docs)) else 0
        if len(docs) + extra <= len(pool):
            best = t
            break
    docs = list(dict.fromkeys([*runs[0][:best], *runs[1][:best]]))
    if any(len(r) > best for r in runs):
        notes.append("cut_top")
    names = {d: pool[i] for i, d in enumerate(docs)}
    free = pool[len(docs):]
    golden = [names[d] for d in docs if d in rel_set]
    missed = [d for d in relevant if d not in names]
    placeholders = free[:len(missed)]
    golden += placeholders
    if len(missed) > len(placeholders):
        notes.append("cut_relevant")
    if not relevant:
        notes.append("no_relevant")
        golden = free[:1]
    if rel != 1:
        notes.append("threshold")
    shown = []
    for r in runs:
        mapped = [names[d] for d in r[:best]]
        if not mapped:  # the run has nothing for this query: one non-relevant placeholder
            spare = [p for p in pool if p not in golden]
            mapped = spare[:1]
            notes.append("empty")
        shown.append(mapped)
    k = spec.k if spec.k is not None else best
    if not 1 <= k <= len(pool):
        notes.append("cut_k")
    seed = mrr_link.SEED      # questions q2..q5 stay the lesson's own
    scenario = mrr_link.Scenario(
        golden=[sorted(dict.fromkeys(golden), key=lambda d: int(d[1:])), *seed.golden[1:]],
        vector=[shown[0], *seed.runs["vector"][1:]], hybrid=[shown[1], *seed.runs["hybrid"][1:]],
        question=mrr_link.QUESTIONS[0], k=min(max(k, 1), len(pool)),
        norm=str(spec.params.get("norm", "R")),
        measure={"RR": "rr", "AP": "ap"}.get(spec.measure.name, "rr"), system="vector")
    notes.append("seed_others")
    return _explanation(mrr_link, mrr_link.link(scenario), notes, best)
