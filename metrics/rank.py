"""Binary, order-aware measures of one ranking: reciprocal rank (RR) and average precision (AP).

- RR = 1 / rank of the first relevant document, 0 if there is none (Voorhees, TREC-8 QA track,
  1999). With ``k`` only the first k ranks are looked at (RR@k, as in MS MARCO); trec_eval's
  ``recip_rank`` has no cutoff.
- AP = (1 / N) * sum over relevant ranks i <= k of precision@i (Buckley & Voorhees 2000;
  trec_eval ``map`` and ``map_cut``). The normaliser N:
    ``"R"``         all relevant documents in the judgments (trec_eval, ir_measures, ranx);
    ``"retrieved"`` relevant documents found in the top k (some tutorials and RAG toolkits);
    ``"min_k_R"``   min(k, R) (``apk`` in Kaggle's ml_metrics, common in recommender-system
                    libraries).
  N = 0 gives AP = 0.
- bpref = (1 / R) * sum over relevant retrieved documents r of
  1 - min(n_r, R) / min(N, R), where n_r is the number of judged non-relevant documents ranked
  above r and N the number of judged non-relevant documents (Buckley & Voorhees, SIGIR 2004;
  trec_eval ``bpref``). Judged non-relevant: a grade from 0 up to ``rel``; unjudged documents and
  negative grades are skipped.
- IPrec@r, interpolated precision at recall level r: the best precision at any rank whose top
  holds at least floor(r * R + 0.9) relevant documents, 0 when the ranking never gets there
  (trec_eval 9.0.8 ``iprec_at_recall``, as pytrec_eval and ir_measures compute it).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

from metrics._input import check_cutoff, check_rel, dedupe, normalise_qrels
from metrics.binary import Qrels, num_relevant
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


def bpref(ranking: Sequence[str], qrels: Qrels, *, rel: int = 1) -> float:
    """bpref: how often relevant documents come before judged non-relevant ones."""
    judged = normalise_qrels(qrels)
    rel = check_rel(rel)
    n_rel = sum(g >= rel for g in judged.values())
    n_nonrel = sum(0 <= g < rel for g in judged.values())
    above = 0
    total = 0.0
    for doc in dedupe(ranking):
        grade = judged.get(doc, -1)
        if grade < 0:
            continue  # unjudged, or judged "unjudged" (a negative grade)
        if grade < rel:
            above += 1
        else:
            total += 1.0 - min(above, n_rel) / min(n_nonrel, n_rel) if above else 1.0
    return total / n_rel if n_rel else 0.0


def interpolated_precision(ranking: Sequence[str], qrels: Qrels, recall: float, *,
                           rel: int = 1) -> float:
    """IPrec@recall: the best precision at any rank where recall is at least ``recall``."""
    if isinstance(recall, bool) or not isinstance(recall, numbers.Real) or not (
            0 <= recall <= 1):
        raise MetricError("bad_cutoff", k=repr(recall), allowed="a recall level from 0 to 1")
    ranks = relevant_ranks(ranking, qrels, rel=rel)
    needed = max(int(recall * num_relevant(qrels, rel) + 0.9), 1)
    if needed > len(ranks):
        return 0.0
    return max(j / r for j, r in enumerate(ranks, start=1) if j >= needed)
