"""After ``evaluate``: the summary row (trec_eval's "all") and the recall–precision curve."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from metrics.errors import MetricError
from metrics.evaluate import evaluate
from metrics.registry import parse

ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


@dataclass(frozen=True)
class Summary:
    """trec_eval's "all" row for a table from ``evaluate``.

    ``values``: per measure, the mean over the queries of the table, or the sum for the counts
    (NumRet, NumRel, NumRelRet, NumQ), as trec_eval prints them. ``queries``: how many queries
    were averaged (trec_eval's ``num_q``). ``policy``: how queries missing from the run entered
    those means, in words. ``missing_queries``: the judged queries the run lacks."""

    values: pd.Series
    queries: int
    policy: str
    missing_queries: tuple[str, ...]

    def __getitem__(self, measure: str) -> float:
        return self.values[measure]

    def __str__(self) -> str:
        width = max([len(str(m)) for m in self.values.index] + [5])
        lines = []
        for measure, value in self.values.items():
            whole = self._is_sum(measure) and float(value).is_integer()
            lines.append(f"{measure!s:<{width}}  all  {int(value) if whole else f'{value:.4f}'}")
        if not any(self._is_sum(m) and parse(m).name == "NumQ" for m in self.values.index):
            lines.append(f"{'num_q':<{width}}  all  {self.queries}")
        return "\n".join([*lines, self.policy])

    @staticmethod
    def _is_sum(column: str) -> bool:
        try:
            return parse(column).measure.aggregate == "sum"
        except MetricError:
            return False

    def to_frame(self) -> pd.DataFrame:
        """One row, ``all``: the values, then ``num_q``."""
        row = {**self.values.to_dict(), "num_q": self.queries}
        return pd.DataFrame([row], index=pd.Index(["all"], name="query_id"))


def summarize(table: pd.DataFrame) -> Summary:
    """The summary row of an ``evaluate`` table: trec_eval's "all"."""
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"expected the DataFrame metrics.evaluate returns, not {type(table)}")
    values = {}
    for column in table.columns:
        summed = Summary._is_sum(column)
        values[column] = float(table[column].sum() if summed else table[column].mean())
    attrs = table.attrs
    policy = attrs.get("policy", {}).get("missing")
    in_table = set(table.index)
    missing = [q for q in attrs.get("missing_queries", []) if (q in in_table) == (
        policy == "scored 0")]
    n = len(table)
    if policy == "scored 0" and missing:
        words = (f"{n} queries averaged: every query in the judgments; the {len(missing)} "
                 "missing from the run scored 0 (missing=\"zero\", as trec_eval -c).")
    elif policy == "scored 0":
        words = (f"{n} queries averaged: every query in the judgments, all of them in the run "
                 "(missing=\"zero\", as trec_eval -c: a query missing from it would score 0).")
    elif policy == "skipped" and missing:
        words = (f"{n} queries averaged: the judged queries the run has; the {len(missing)} "
                 "missing from it were left out (missing=\"skip\", as trec_eval 9.0.8 and "
                 "pytrec_eval without -c; trec_eval 10.0 without -c refuses such a run).")
    elif policy == "skipped":
        words = (f"{n} queries averaged: every query in the judgments, all of them in the run "
                 "(missing=\"skip\": a query missing from it would be left out, as trec_eval "
                 "9.0.8 does without -c).")
    else:
        words = (f"{n} queries averaged (this table did not come from metrics.evaluate: how "
                 "queries missing from the run were counted is not known).")
    unjudged = attrs.get("unjudged_queries") or []
    if policy and unjudged:
        words += f" {len(unjudged)} run queries without judgments were ignored, as trec_eval does."
    return Summary(pd.Series(values, name="all", dtype=float), n, words, tuple(missing))


@dataclass(frozen=True)
class PRCurve:
    """The interpolated recall–precision curve of a run: IPrec at each recall level.

    ``per_query``: one row per query (index ``query_id``), one column per recall level.
    ``mean``: the curve averaged over those queries (trec_eval's iprec_at_recall "all")."""

    per_query: pd.DataFrame
    mean: pd.Series
    rel: int
    missing: str

    def long(self) -> pd.DataFrame:
        """Columns query_id, recall, precision: one row per query and level (for charts)."""
        table = self.per_query.rename_axis(columns="recall").stack()
        return table.rename("precision").reset_index()


def pr_curve(run, qrels, *, levels: Sequence[float] = ELEVEN_POINTS, rel: int = 1,
             missing: str = "zero") -> PRCurve:
    """The interpolated recall–precision curve of ``run``, per query and averaged; ``levels``
    are recall levels from 0 to 1 (trec_eval's eleven by default)."""
    levels = [float(r) for r in levels]
    names = [f"IPrec@{r!r}" for r in levels]
    table = evaluate(run, qrels, names, missing=missing, rel=rel)
    table.columns = pd.Index(levels, name="recall")
    return PRCurve(table, table.mean(axis=0).rename("precision"), rel, missing)
