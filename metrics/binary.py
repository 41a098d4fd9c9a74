"""Binary, order-unaware measures of one ranking: HitRate@k, P@k, R@k, F1@k, R-precision.

A document is relevant when its grade >= ``rel`` (default 1); unjudged documents are not relevant.
Conventions follow trec_eval (Buckley & Voorhees, *trec_eval* 9.0.8):

- precision@k = |relevant in top k| / k, dividing by k even when fewer than k were retrieved;
- recall@k = |relevant in top k| / R, with R = all relevant documents in the judgments;
- R-precision = precision@R;
- a query without relevant documents scores 0.

F1@k is the harmonic mean of precision@k and recall@k (van Rijsbergen 1979), 0 when both are 0.
HitRate@k (also "success@k") is 1 when at least one relevant document is in the top k.
Judged@k is the share of the top k with a judgment of any grade, divided by min(k, retrieved)
(ir_measures ``Judged``), 0 for an empty ranking.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from metrics._input import check_cutoff, check_rel, dedupe, normalise_qrels

Qrels = Mapping[str, int] | Iterable[str]


def _relevant(qrels: Mapping[str, int], rel: int) -> set[str]:
    return {doc for doc, grade in qrels.items() if grade >= rel}


def hits_at(ranking: Sequence[str], qrels: Qrels, k: int, rel: int = 1) -> int:
    """How many of the first k documents are relevant."""
    k = check_cutoff(k)
    relevant = _relevant(normalise_qrels(qrels), check_rel(rel))
    return sum(doc in relevant for doc in dedupe(ranking)[:k])


def num_relevant(qrels: Qrels, rel: int = 1) -> int:
    """R: how many documents the judgments call relevant."""
    return len(_relevant(normalise_qrels(qrels), check_rel(rel)))


def hit_rate(ranking: Sequence[str], qrels: Qrels, k: int, *, rel: int = 1) -> float:
    """1.0 if a relevant document is among the first k, else 0.0."""
    return 1.0 if hits_at(ranking, qrels, k, rel) > 0 else 0.0


def precision(ranking: Sequence[str], qrels: Qrels, k: int, *, rel: int = 1) -> float:
    """P@k = relevant in the top k / k."""
    return hits_at(ranking, qrels, k, rel) / check_cutoff(k)


def recall(ranking: Sequence[str], qrels: Qrels, k: int, *, rel: int = 1) -> float:
    """R@k = relevant in the top k / R (0 when R = 0)."""
    n_rel = num_relevant(qrels, rel)
    return hits_at(ranking, qrels, k, rel) / n_rel if n_rel else 0.0


def f1(ranking: Sequence[str], qrels: Qrels, k: int, *, rel: int = 1) -> float:
    """F1@k = 2 P R / (P + R) (0 when both are 0)."""
    p = precision(ranking, qrels, k, rel=rel)
    r = recall(ranking, qrels, k, rel=rel)
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def r_precision(ranking: Sequence[str], qrels: Qrels, *, rel: int = 1) -> float:
    """R-precision = precision@R, R = number of relevant documents (0 when R = 0)."""
    n_rel = num_relevant(qrels, rel)
    return precision(ranking, qrels, n_rel, rel=rel) if n_rel else 0.0


def judged(ranking: Sequence[str], qrels: Qrels, k: int | None = None) -> float:
    """Judged@k = documents of the top k that have a judgment (any grade) / min(k, retrieved)."""
    k = check_cutoff(k, optional=True)
    judgments = normalise_qrels(qrels)
    docs = dedupe(ranking)[:k]
    return sum(doc in judgments for doc in docs) / len(docs) if docs else 0.0
