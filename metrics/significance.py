"""Paired significance tests, the bootstrap interval of the mean difference, and Holm's
correction: one implementation of each, vectorised over many comparisons at once.

Every test takes ``deltas``, the paired per-query differences (system − baseline), as a vector
(one comparison) or an ``(n queries × m comparisons)`` matrix, and returns one value per
comparison. The randomization test and the bootstrap draw their sign patterns / resamples once
for all ``m`` columns (one matrix product each), from ``seed``: the same seed and the same
``n`` give the same numbers, whichever other comparisons are computed alongside.

**Paired t-test** (Student 1908; as ``scipy.stats.ttest_rel(system, baseline)``)::

    t = mean(d) / (sd(d) / √n),   sd with n − 1,   p = 2 · P(T_{n−1} ≥ |t|)   (two-sided)

undefined (NaN) when n < 2 or all deltas are equal (no variance).

**Paired randomization test** (Fisher 1935; Smucker, Allan & Carterette, CIKM 2007): if the two
systems were interchangeable, each query's delta would be as likely to have the other sign::

    p = #{ sign patterns s : |mean(s ⊙ d)| ≥ |mean(d)| } / #patterns        (two-sided)

Exact (all 2^n patterns) when n ≤ ``EXACT_UP_TO``; otherwise ``n_resamples`` patterns are drawn
and p = (1 + #{≥}) / (1 + n_resamples), which is never 0 (Phipson & Smyth 2010). The observed
pattern counts as extreme within ``TIE`` (1e-12), so floating-point noise cannot split ties.
Undefined (NaN) when n = 0.

**Bootstrap interval of the mean delta** (Efron & Tibshirani 1993, ch. 13, percentile method):
``n_resamples`` resamples of the n queries with replacement; the interval is the
(1 − confidence)/2 and (1 + confidence)/2 quantiles of their means (linear interpolation).

**Holm–Bonferroni** (Holm 1979, *Scand. J. Statist.* 6:65–70): with the m defined p-values
sorted p₍₁₎ ≤ … ≤ p₍ₘ₎, the adjusted p-values are::

    p̃₍ᵢ₎ = max_{j ≤ i} min(1, (m − j + 1) · p₍ⱼ₎)

and hypothesis (i) is rejected at level α when p̃₍ᵢ₎ ≤ α. This controls the probability of any
false rejection among the m at α, whatever their dependence. Undefined p-values (NaN) are not
counted in m and stay NaN.
"""

from __future__ import annotations

import itertools

import numpy as np

TIE = 1e-12
EXACT_UP_TO = 16
CHUNK = 1 << 22          # random numbers per block: ~32 MB of float64 at a time


def _matrix(deltas) -> np.ndarray:
    d = np.asarray(deltas, dtype=np.float64)
    if d.ndim == 1:
        d = d[:, None]
    if d.ndim != 2:
        raise ValueError("deltas must be a vector or an (n queries x m comparisons) matrix")
    return d


def _shape_like(values: np.ndarray, deltas) -> np.ndarray | float:
    return float(values[0]) if np.ndim(deltas) == 1 else values


def _rows_per_block(n: int) -> int:
    return max(1, CHUNK // max(n, 1))


def paired_t(deltas) -> tuple[np.ndarray | float, np.ndarray | float]:
    """(t, two-sided p) of the paired t-test on each column of ``deltas``."""
    d = _matrix(deltas)
    n, m = d.shape
    t = np.full(m, np.nan)
    p = np.full(m, np.nan)
    if n >= 2:
        defined = np.ptp(d, axis=0) > TIE
        if defined.any():
            from scipy.special import stdtr  # lazily: scipy adds ~0.5 s to `import metrics`

            x = d[:, defined]
            t[defined] = x.mean(axis=0) / (x.std(axis=0, ddof=1) / np.sqrt(n))
            p[defined] = np.minimum(1.0, 2.0 * stdtr(n - 1, -np.abs(t[defined])))
    return _shape_like(t, deltas), _shape_like(p, deltas)


def randomization(deltas, *, n_resamples: int = 10_000, seed: int | np.random.Generator = 0,
                  exact: bool | None = None) -> tuple[np.ndarray | float, bool]:
    """(two-sided p per column, whether p is exact) of the paired randomization test.

    ``exact``: None enumerates all 2^n sign patterns when n <= ``EXACT_UP_TO`` and samples
    otherwise; True / False force either (True is refused above 24 queries)."""
    d = _matrix(deltas)
    n, m = d.shape
    if n == 0:
        return _shape_like(np.full(m, np.nan), deltas), True
    exact = n <= EXACT_UP_TO if exact is None else exact
    if exact and n > 24:
        raise ValueError(f"2^{n} sign patterns are too many to enumerate")
    observed = np.abs(d.mean(axis=0)) - TIE
    if exact:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=n)))
        p = (np.abs(signs @ d / n) >= observed).mean(axis=0)
        return _shape_like(p, deltas), True
    rng = np.random.default_rng(seed)
    # s · d = 2 · (b · d) − Σd for a 0/1 pattern b: random bits are cheap, one product per block
    total = d.sum(axis=0)
    extreme = np.zeros(m, np.int64)
    block = _rows_per_block(n)
    for start in range(0, n_resamples, block):
        rows = min(block, n_resamples - start)
        bits = np.unpackbits(rng.integers(0, 256, size=(rows, (n + 7) // 8), dtype=np.uint8),
                             axis=1, count=n)
        means = (2.0 * (bits.astype(np.float64) @ d) - total) / n
        extreme += (np.abs(means) >= observed).sum(axis=0)
    p = (extreme + 1) / (n_resamples + 1)
    return _shape_like(p, deltas), False


def bootstrap_interval(deltas, *, n_resamples: int = 10_000,
                       seed: int | np.random.Generator = 0, confidence: float = 0.95
                       ) -> tuple[np.ndarray | float, np.ndarray | float]:
    """(low, high): the percentile bootstrap interval of each column's mean."""
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    d = _matrix(deltas)
    n, m = d.shape
    if n == 0:
        nan = np.full(m, np.nan)
        return _shape_like(nan, deltas), _shape_like(nan, deltas)
    rng = np.random.default_rng(seed)
    means = np.empty((n_resamples, m))
    block = _rows_per_block(n)
    for start in range(0, n_resamples, block):
        rows = min(block, n_resamples - start)
        picks = rng.integers(0, n, size=(rows, n))
        # how often each query was drawn, per resample: one matrix product for all columns
        picks += (np.arange(rows) * n)[:, None]
        counts = np.bincount(picks.ravel(), minlength=rows * n).reshape(rows, n)
        means[start:start + rows] = counts.astype(np.float64) @ d / n
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail], axis=0)
    return _shape_like(low, deltas), _shape_like(high, deltas)


def holm(p_values) -> np.ndarray:
    """Holm–Bonferroni adjusted p-values, in the order given (NaN stays NaN, not counted)."""
    p = np.asarray(p_values, dtype=np.float64).ravel()
    adjusted = np.full(p.shape, np.nan)
    defined = np.flatnonzero(~np.isnan(p))
    m = len(defined)
    if m:
        order = defined[np.argsort(p[defined], kind="stable")]
        scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
        adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted.reshape(np.shape(p_values))
