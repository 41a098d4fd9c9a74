"""Comparing runs question by question: two runs on one measure, or up to ten on many.

The mean hides who lost: ``compare`` reports every query's delta (B − A), the wins, ties and
losses of B, the mean delta with a bootstrap percentile interval, a paired t-test and a paired
randomization test. ``compare_runs`` makes the table papers print (ranx's ``compare``): a row
per run, a column per measure, the mean, and markers for significant differences, corrected for
multiple comparisons (Holm 1979). Every test is the one in ``metrics.significance`` (formulas
and references there); the same seed gives the same p-values and intervals.

``compare_runs``, step by step:

1. **Queries** (``missing``). The per-query tables (``metrics.evaluate``'s) are aligned on their
   query ids. ``"common"`` (default) keeps the queries every table has — the only ones that can
   be paired; with tables from ``evaluate(..., missing="zero")`` (its default) that is every
   judged query, a run's missing queries already scored 0 (as ``trec_eval -c``). ``"zero"``
   keeps every query of any table and scores 0 where a table lacks it. ``counts`` says, per
   run: ``queries`` compared; ``missing``, compared queries it has no ranking for (scored 0,
   by ``evaluate`` or here); ``dropped``, its queries left out because another table lacks
   them; ``unjudged``, queries it ranked that have no judgments (never scored).
2. **Means**: the mean of each measure over those queries, a row per run.
3. **Comparisons**: every other run against ``baseline`` (``delta = run − baseline``), or,
   without a baseline, every pair of runs (``delta = later run − earlier run``), on every
   measure: a paired t-test, a paired randomization test, the bootstrap interval of the mean
   delta, and wins / ties / losses (|delta| <= 1e-12 is a tie).
4. **Correction**: ``correction="holm"`` adjusts the p-values of the chosen ``test`` over *all*
   comparisons in the table (runs × measures), so the chance of any false marker is at most
   ``alpha``; ``"none"`` leaves them as they are.
5. **Markers** (as ranx): each run has a letter (a, b, c, … in the order given); a cell carries
   the letters of the runs this run is significantly better than on that measure: adjusted
   p <= ``alpha`` and a higher mean.

Run names are the caller's (the keys of ``tables``); ``run_name`` proposes one from a file's run
tag (TREC column 6) or its file name, and ``unique_names`` keeps them apart.
"""

from __future__ import annotations

import gzip
import itertools
import re
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePath

import numpy as np
import pandas as pd

from metrics.errors import MetricError
from metrics.evaluate import evaluate
from metrics.significance import TIE, bootstrap_interval, holm, paired_t, randomization

MAX_RUNS = 10
LETTERS = "abcdefghij"
TESTS = ("randomization", "t")
CORRECTIONS = ("holm", "none")
ALIGNMENTS = ("common", "zero")


def _seeds(seed: int) -> tuple[np.random.SeedSequence, np.random.SeedSequence]:
    """Independent streams for the bootstrap and the randomization test."""
    boot, rand = np.random.SeedSequence(seed).spawn(2)
    return boot, rand


def _outcomes(deltas: np.ndarray) -> np.ndarray:
    return np.where(deltas > TIE, "win", np.where(deltas < -TIE, "loss", "tie"))


def _none_if_nan(x: float) -> float | None:
    return None if np.isnan(x) else float(x)


# --- two runs, one measure ---------------------------------------------------------------------


@dataclass(frozen=True)
class Comparison:
    measure: str
    per_query: pd.DataFrame       # index query_id; columns a, b, delta (= b - a), outcome
    wins: int                     # queries where B is better
    ties: int
    losses: int                   # queries where B is worse
    mean_a: float
    mean_b: float
    mean_delta: float
    ci_low: float                 # bootstrap percentile interval of the mean delta
    ci_high: float
    confidence: float
    t_statistic: float | None     # None when undefined (fewer than 2 queries, or no variance)
    p_ttest: float | None
    p_randomization: float | None
    randomization_exact: bool
    seed: int

    @property
    def regressions(self) -> pd.DataFrame:
        """The queries where B is worse than A, worst first."""
        worse = self.per_query[self.per_query["outcome"] == "loss"]
        return worse.sort_values("delta", kind="stable")


def _mean(values) -> float:
    return float(np.mean(values)) if len(values) else float("nan")


def compare(run_a, run_b, qrels, measure: str, *, seed: int = 0, n_resamples: int = 10_000,
            confidence: float = 0.95, missing: str = "zero") -> Comparison:
    """Compare run B against run A on ``measure`` over the queries of ``qrels``."""
    a = evaluate(run_a, qrels, [measure], missing=missing)[measure]
    b = evaluate(run_b, qrels, [measure], missing=missing)[measure]
    a, b = a.align(b, join="inner")
    deltas = (b - a).to_numpy(dtype=float)
    outcome = _outcomes(deltas)
    per_query = pd.DataFrame({"a": a, "b": b, "delta": deltas, "outcome": outcome}, index=a.index)
    boot_seed, rand_seed = _seeds(seed)
    low, high = bootstrap_interval(deltas, n_resamples=n_resamples, seed=boot_seed,
                                   confidence=confidence)
    p_rand, exact = randomization(deltas, n_resamples=n_resamples, seed=rand_seed)
    t_stat, p_t = paired_t(deltas)
    return Comparison(
        measure=measure, per_query=per_query,
        wins=int((outcome == "win").sum()), ties=int((outcome == "tie").sum()),
        losses=int((outcome == "loss").sum()),
        mean_a=_mean(a), mean_b=_mean(b), mean_delta=_mean(deltas),
        ci_low=float(low), ci_high=float(high), confidence=confidence,
        t_statistic=_none_if_nan(t_stat), p_ttest=_none_if_nan(p_t),
        p_randomization=_none_if_nan(p_rand), randomization_exact=bool(exact and len(deltas)),
        seed=seed)


# --- many runs, many measures ------------------------------------------------------------------


@dataclass(frozen=True)
class RunComparison:
    """The result of ``compare_runs``; ``metrics.report`` writes it as Markdown, LaTeX, CSV."""

    runs: tuple[str, ...]             # in the order given
    letters: tuple[str, ...]          # a, b, c, … (the markers' names for the runs)
    measures: tuple[str, ...]
    baseline: str | None              # None: every pair of runs was compared
    means: pd.DataFrame               # index runs, columns measures
    tests: pd.DataFrame               # one row per comparison (see compare_runs)
    markers: pd.DataFrame             # index runs, columns measures: letters, "" for none
    counts: pd.DataFrame              # index runs: queries, missing, dropped, unjudged
    per_query: Mapping[str, pd.DataFrame]   # run -> its aligned per-query values
    alpha: float
    test: str                         # the test behind the markers: "randomization" | "t"
    correction: str                   # "holm" | "none"
    missing: str                      # "common" | "zero"
    n_queries: int
    n_resamples: int
    confidence: float
    seed: int

    @property
    def n_comparisons(self) -> int:
        """How many p-values the correction was over (the defined ones)."""
        return int(self.tests["p"].notna().sum())

    def letter(self, run: str) -> str:
        return self.letters[self.runs.index(run)]

    def best(self, measure: str, decimals: int | None = None) -> list[str]:
        """The runs with the highest mean on ``measure`` (all of them if tied when rounded)."""
        column = self.means[measure]
        if decimals is not None:
            column = column.round(decimals)
        top = column.max()
        return [] if np.isnan(top) else list(column.index[column == top])


def _aligned(tables: Mapping[str, pd.DataFrame], measures: Sequence[str],
             missing: str) -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    names = list(tables)
    for name in names:
        absent = [m for m in measures if m not in tables[name].columns]
        if absent:
            raise MetricError("measure_not_in_table", run=name, measure=", ".join(absent))
    indexes = [pd.Index(tables[n].index.astype(str)) for n in names]
    if missing == "common":
        queries = indexes[0]
        for index in indexes[1:]:
            queries = queries.intersection(index, sort=False)
    else:
        queries = indexes[0]
        for index in indexes[1:]:
            queries = queries.union(index, sort=False)
    queries.name = "query_id"
    aligned, rows = {}, {}
    for name, index in zip(names, indexes, strict=True):
        table = tables[name][list(measures)].set_axis(index, axis=0)
        table = table.reindex(queries)
        absent = set(queries[table.isna().any(axis=1).to_numpy()])
        aligned[name] = table.fillna(0.0).astype(np.float64)
        attrs = tables[name].attrs
        listed = set(map(str, attrs.get("missing_queries", ()))) & set(queries)
        rows[name] = {
            "queries": len(queries),
            # judged queries compared without a ranking: scored 0 by evaluate or here
            "missing": len(listed | absent),
            # this table's queries left out because another run lacks them ("common")
            "dropped": len(index) - len(index.intersection(queries)),
            "unjudged": len(attrs.get("unjudged_queries", ())),
        }
    return aligned, pd.DataFrame.from_dict(rows, orient="index")


def compare_runs(tables: Mapping[str, pd.DataFrame], measures: Sequence[str] | None = None, *,
                 baseline: str | None = None, alpha: float = 0.05, test: str = "randomization",
                 correction: str = "holm", missing: str = "common", seed: int = 0,
                 n_resamples: int = 10_000, confidence: float = 0.95) -> RunComparison:
    """Compare up to ten runs on many measures: means, paired tests, Holm, markers.

    ``tables``: run name -> its per-query table (``metrics.evaluate(run, qrels, measures)``),
    in the order the table should list them. ``measures``: columns to compare (default: those
    of the first table). ``baseline``: the run every other is tested against; None tests every
    pair (as ranx). The rest as described in the module docstring.

    ``tests`` has one row per comparison: ``run``, ``other`` (baseline or the earlier run),
    ``measure``, ``n`` (queries), ``mean_run``, ``mean_other``, ``delta`` (mean of run − other),
    ``ci_low``, ``ci_high``, ``t``, ``p_t``, ``p_randomization``, ``exact`` (the randomization
    enumerated every sign pattern), ``p`` (of ``test``), ``p_adjusted`` (after ``correction``),
    ``significant`` (p_adjusted <= alpha), ``wins``, ``ties``, ``losses`` (of run over other).
    """
    names = list(tables)
    if not 2 <= len(names) <= MAX_RUNS:
        raise MetricError("run_count", found=len(names), limit=MAX_RUNS)
    if len(set(names)) != len(names):
        raise MetricError("duplicate_run_name")
    if baseline is not None and baseline not in tables:
        raise MetricError("unknown_baseline", baseline=str(baseline), runs=", ".join(names))
    for name, value, allowed in (("test", test, TESTS), ("correction", correction, CORRECTIONS),
                                 ("missing", missing, ALIGNMENTS)):
        if value not in allowed:
            raise MetricError("bad_parameter", name=name, value=repr(value), allowed=allowed)
    if not 0 < alpha < 1:
        raise MetricError("bad_parameter", name="alpha", value=repr(alpha), allowed="0 < alpha < 1")
    if measures is None:
        measures = [c for c in tables[names[0]].columns]
    measures = list(dict.fromkeys(measures))
    if not measures:
        raise MetricError("no_measures")

    aligned, counts = _aligned(tables, measures, missing)
    means = pd.DataFrame({m: [aligned[n][m].mean() if len(aligned[n]) else np.nan
                              for n in names] for m in measures}, index=pd.Index(names))
    pairs = ([(n, baseline) for n in names if n != baseline] if baseline is not None
             else [(names[j], names[i]) for i, j in itertools.combinations(range(len(names)), 2)])

    # One (queries × comparisons) matrix: every test runs on all columns at once.
    keys = [(run, other, m) for run, other in pairs for m in measures]
    n = len(next(iter(aligned.values())))
    deltas = np.empty((n, len(keys)))
    for col, (run, other, m) in enumerate(keys):
        deltas[:, col] = aligned[run][m].to_numpy() - aligned[other][m].to_numpy()
    boot_seed, rand_seed = _seeds(seed)
    t_stat, p_t = paired_t(deltas)
    p_rand, exact = randomization(deltas, n_resamples=n_resamples, seed=rand_seed)
    low, high = bootstrap_interval(deltas, n_resamples=n_resamples, seed=boot_seed,
                                   confidence=confidence)
    p = p_rand if test == "randomization" else p_t
    adjusted = holm(p) if correction == "holm" else np.asarray(p, dtype=float)
    tests = pd.DataFrame({
        "run": [k[0] for k in keys], "other": [k[1] for k in keys],
        "measure": [k[2] for k in keys], "n": n,
        "mean_run": [means.at[k[0], k[2]] for k in keys],
        "mean_other": [means.at[k[1], k[2]] for k in keys],
        "delta": deltas.mean(axis=0) if n else np.full(len(keys), np.nan),
        "ci_low": low, "ci_high": high, "t": t_stat, "p_t": p_t, "p_randomization": p_rand,
        "exact": bool(exact), "p": p, "p_adjusted": adjusted,
        "significant": np.nan_to_num(adjusted, nan=1.0) <= alpha,
        "wins": (deltas > TIE).sum(axis=0), "ties": (np.abs(deltas) <= TIE).sum(axis=0),
        "losses": (deltas < -TIE).sum(axis=0),
    })

    letters = tuple(LETTERS[: len(names)])
    letter_of = dict(zip(names, letters, strict=True))
    beaten: dict[tuple[str, str], set[str]] = {(r, m): set() for r in names for m in measures}
    for row in tests[tests["significant"]].itertuples():
        if row.delta > TIE:
            beaten[(row.run, row.measure)].add(row.other)
        elif row.delta < -TIE:
            beaten[(row.other, row.measure)].add(row.run)
    markers = pd.DataFrame(
        {m: ["".join(letter_of[o] for o in names if o in beaten[(r, m)]) for r in names]
         for m in measures}, index=pd.Index(names))
    return RunComparison(
        runs=tuple(names), letters=letters, measures=tuple(measures), baseline=baseline,
        means=means, tests=tests, markers=markers, counts=counts, per_query=aligned,
        alpha=alpha, test=test, correction=correction, missing=missing, n_queries=n,
        n_resamples=n_resamples, confidence=confidence, seed=seed)


# --- run names ----------------------------------------------------------------------------------

_SUFFIXES = (".gz", ".trec", ".txt", ".run", ".res", ".tsv", ".csv", ".json", ".jsonl")
_HEAD = 1 << 16


def _head_text(data: bytes) -> str:
    head = bytes(data[:_HEAD])
    if head[:2] == b"\x1f\x8b":  # gzip: the first block is enough for the first lines
        try:
            head = zlib.decompressobj(zlib.MAX_WBITS | 16).decompress(head, _HEAD)
        except (zlib.error, gzip.BadGzipFile):
            return ""
    return head.decode("utf-8", "replace").lstrip("\ufeff")


def run_tag(data: bytes | None) -> str | None:
    """The run tag of a TREC run (column 6 of its first line), or None (no tag: CSV, JSON)."""
    if not data:
        return None
    for line in _head_text(data).splitlines():
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) >= 6 and _numeric(fields[4]):
            return fields[5]
        return None
    return None


def _numeric(text: str) -> bool:
    return re.fullmatch(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", text) is not None


def run_name(file_name: str | None, data: bytes | None = None) -> str:
    """A name for a run: its TREC run tag if it has one, else its file name without the
    extensions (``bm25.trec.gz`` -> ``bm25``)."""
    tag = run_tag(data)
    if tag:
        return tag
    name = PurePath(file_name or "run").name
    while name.lower().endswith(_SUFFIXES) and len(name) > 1:
        name = name[: name.rfind(".")]
    return name or "run"


def unique_names(names: Sequence[str]) -> list[str]:
    """``names`` with repeats told apart: ``bm25``, ``bm25 (2)``, …"""
    seen: dict[str, int] = {}
    out = []
    taken = set(names)
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        if seen[name] == 1:
            out.append(name)
            continue
        i = seen[name]
        while f"{name} ({i})" in taken:
            i += 1
        taken.add(f"{name} ({i})")
        out.append(f"{name} ({i})")
    return out
