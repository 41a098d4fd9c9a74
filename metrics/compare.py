"""Comparing two runs on one measure, question by question.

The mean hides who lost: this reports every query's delta (B − A), the wins, ties and losses of
B, the mean delta with a bootstrap percentile interval (Efron & Tibshirani 1993), a paired t-test
(Student 1908; scipy) and a paired randomization test that flips the sign of each delta
(Fisher 1935; Smucker, Allan & Carterette, CIKM 2007). The randomization test enumerates all
2^n sign patterns when n <= 16 (exact) and otherwise draws ``n_resamples`` patterns from
``seed`` — the same seed gives the same p-value.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from metrics.evaluate import evaluate

TIE = 1e-12
EXACT_UP_TO = 16


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


def _bootstrap(deltas: np.ndarray, rng: np.random.Generator, n_resamples: int,
               confidence: float) -> tuple[float, float]:
    n = len(deltas)
    means = np.empty(n_resamples)
    for start in range(0, n_resamples, 1000):
        stop = min(start + 1000, n_resamples)
        picks = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = deltas[picks].mean(axis=1)
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return float(low), float(high)


def _randomization(deltas: np.ndarray, rng: np.random.Generator,
                   n_resamples: int) -> tuple[float, bool]:
    n = len(deltas)
    observed = abs(deltas.mean())
    if n <= EXACT_UP_TO:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=n)))
        extreme = np.abs(signs @ deltas / n) >= observed - TIE
        return float(extreme.mean()), True
    count = 0
    for start in range(0, n_resamples, 1000):
        size = min(1000, n_resamples - start)
        signs = rng.choice((1.0, -1.0), size=(size, n))
        count += int((np.abs(signs @ deltas / n) >= observed - TIE).sum())
    return (count + 1) / (n_resamples + 1), False


def _mean(values) -> float:
    return float(np.mean(values)) if len(values) else float("nan")


def compare(run_a, run_b, qrels, measure: str, *, seed: int = 0, n_resamples: int = 10_000,
            confidence: float = 0.95, missing: str = "zero") -> Comparison:
    """Compare run B against run A on ``measure`` over the queries of ``qrels``."""
    a = evaluate(run_a, qrels, [measure], missing=missing)[measure]
    b = evaluate(run_b, qrels, [measure], missing=missing)[measure]
    a, b = a.align(b, join="inner")
    deltas = (b - a).to_numpy(dtype=float)
    outcome = np.where(deltas > TIE, "win", np.where(deltas < -TIE, "loss", "tie"))
    per_query = pd.DataFrame({"a": a, "b": b, "delta": deltas, "outcome": outcome}, index=a.index)
    rng = np.random.default_rng(seed)
    n = len(deltas)
    t_stat = p_t = p_rand = None
    ci = (float("nan"), float("nan"))
    exact = False
    if n:
        ci = _bootstrap(deltas, rng, n_resamples, confidence)
        p_rand, exact = _randomization(deltas, rng, n_resamples)
    if n >= 2 and np.ptp(deltas) > TIE:
        from scipy import stats  # imported here: scipy.stats adds ~0.5 s to `import metrics`

        result = stats.ttest_rel(b.to_numpy(float), a.to_numpy(float))
        t_stat, p_t = float(result.statistic), float(result.pvalue)
    return Comparison(
        measure=measure, per_query=per_query,
        wins=int((outcome == "win").sum()), ties=int((outcome == "tie").sum()),
        losses=int((outcome == "loss").sum()),
        mean_a=_mean(a), mean_b=_mean(b), mean_delta=_mean(deltas),
        ci_low=ci[0], ci_high=ci[1], confidence=confidence,
        t_statistic=t_stat, p_ttest=p_t, p_randomization=p_rand, randomization_exact=exact,
        seed=seed)
