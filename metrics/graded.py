"""Graded measures of one ranking: DCG@k, IDCG@k, nDCG@k (Järvelin & Kekäläinen 2002).

    DCG@k  = sum_{i=1..k} gain(rel_i) / log2(i + 1)
    IDCG@k = DCG@k of the ideal ordering
    nDCG@k = DCG@k / IDCG@k, and 0 when IDCG@k = 0

``gain="linear"``: gain = grade (trec_eval ``ndcg_cut``, ranx ``ndcg``).
``gain="exponential"``: gain = 2**grade - 1 (Burges et al. 2005; ranx ``ndcg_burges``).
Grades <= 0 (unjudged, non-relevant, or negative "judged junk") add no gain.

``ideal="judged"``: the ideal ordering sorts *all judged grades* of the query (trec_eval).
``ideal="retrieved"``: it sorts only the grades of the retrieved list (what many tutorials and
sklearn's ``ndcg_score`` fed the retrieved items do). A relevant document the system never
retrieved then cannot lower the score — the pitfall the nDCG lesson shows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from metrics._input import check_cutoff, dedupe, grades_of, normalise_qrels
from metrics.binary import Qrels
from metrics.errors import MetricError

GAINS = ("linear", "exponential")
IDEALS = ("judged", "retrieved")


def discount(rank: int) -> float:
    """The weight of a 1-based rank: 1 / log2(rank + 1)."""
    return 1.0 / math.log2(rank + 1)


def gain_of(grade: int, gain: str = "linear") -> float:
    """The gain of a grade: the grade itself (linear) or 2**grade - 1 (exponential); 0 if <= 0."""
    if gain not in GAINS:
        raise MetricError("bad_parameter", name="gain", value=repr(gain), allowed=GAINS)
    if grade <= 0:
        return 0.0
    return float(grade) if gain == "linear" else float(2**grade - 1)


def dcg_of_grades(grades: Sequence[int], k: int | None, gain: str = "linear") -> float:
    """DCG of a list of grades in rank order, cut at k (None: the whole list)."""
    cut = grades if k is None else grades[:k]
    return sum(gain_of(g, gain) * discount(i) for i, g in enumerate(cut, start=1))


def ideal_grades(ranking: Sequence[str], qrels: Qrels, ideal: str = "judged") -> list[int]:
    """The grades of the ideal ordering, best first."""
    if ideal not in IDEALS:
        raise MetricError("bad_parameter", name="ideal", value=repr(ideal), allowed=IDEALS)
    judged = normalise_qrels(qrels)
    pool = judged.values() if ideal == "judged" else grades_of(dedupe(ranking), judged)
    return sorted(pool, reverse=True)


def dcg(ranking: Sequence[str], qrels: Qrels, k: int | None = None, gain: str = "linear") -> float:
    """DCG@k of the ranking (k=None: the whole ranking)."""
    k = check_cutoff(k, optional=True)
    return dcg_of_grades(grades_of(dedupe(ranking), normalise_qrels(qrels)), k, gain)


def idcg(ranking: Sequence[str], qrels: Qrels, k: int | None = None, gain: str = "linear",
         ideal: str = "judged") -> float:
    """IDCG@k: the DCG@k of the best possible ordering (see ``ideal``)."""
    k = check_cutoff(k, optional=True)
    return dcg_of_grades(ideal_grades(ranking, qrels, ideal), k, gain)


def ndcg(ranking: Sequence[str], qrels: Qrels, k: int | None = None, gain: str = "linear",
         ideal: str = "judged") -> float:
    """nDCG@k = DCG@k / IDCG@k, 0 when IDCG@k is 0."""
    best = idcg(ranking, qrels, k, gain, ideal)
    return dcg(ranking, qrels, k, gain) / best if best > 0 else 0.0
