"""Binary, order-aware measures of one ranking: reciprocal rank (RR) and average precision (AP).

- RR = 1 / rank of the first relevant document, 0 if there is none (Voorhees, TREC-8 QA track,
  1999). With ``k`` only the first k ranks are looked at (RR@k, as in MS MARCO); trec_eval's
  ``recip_rank`` has no cutoff.
- AP = (1 / N) * sum over relevant ranks i <= k of precision@i (Buckley & Voorhees 2000;
  trec_eval ``map`` and ``map_cut``). The normaliser N:
    ``"R"``         all relevant documents in the judgments (trec_eval, ir_measures, ranx);
    ``"retrieved"`` relevant documents found in the top k (some tutorials and RAG toolkits);
    ``"min_k_R"``   min(k, R) (the MS MARCO / "AP@k" variant of several recommender libraries).
  N = 0 gives AP = 0.
"""

from __future__ import annotations

from collections.abc import Sequence

from metrics._input import check_cutoff, check_rel, dedupe, normalise_qrels
from metrics.binary import Qrels
from metrics.errors import MetricError

AP_NORMS = ("R", "retrieved", "min_k_R")


def relevant_ranks(ranking: Sequence[str], qrels: Qrels, k: int | None = None, *, rel: int = 1):
    """The 1-based ranks (within the first k) that hold a relevant document."""
    k = check_cutoff(k, optional=True)
    judged = normalise_qrels(qrels)
    rel = check_rel(rel)
    docs = dedupe(ranking)
    if k is not None:
        docs = docs[:k]
    return [i for i, doc in enumerate(docs, start=1) if judged.get(doc, 0) >= rel]


def reciprocal_rank(ranking: Sequence[str], qrels: Qrels, k: int | None = None, *,
                    rel: int = 1) -> float:
    """RR(@k) = 1 / rank of the first relevant document in the first k, 0 if none."""
    ranks = relevant_ranks(ranking, qrels, k, rel=rel)
    return 1.0 / ranks[0] if ranks else 0.0


def average_precision(ranking: Sequence[str], qrels: Qrels, k: int | None = None,
                      norm: str = "R", *, rel: int = 1) -> float:
    """AP(@k): mean of precision@i over the relevant ranks i <= k, divided by ``norm``."""
    if norm not in AP_NORMS:
        raise MetricError("bad_parameter", name="norm", value=repr(norm), allowed=AP_NORMS)
    ranks = relevant_ranks(ranking, qrels, k, rel=rel)
    total = sum(hit / rank for hit, rank in enumerate(ranks, start=1))
    if norm == "R":
        denominator = sum(g >= rel for g in normalise_qrels(qrels).values())
    elif norm == "retrieved":
        denominator = len(ranks)
    else:
        cutoff = k if k is not None else len(dedupe(ranking))
        denominator = min(cutoff, sum(g >= rel for g in normalise_qrels(qrels).values()))
    return total / denominator if denominator else 0.0
