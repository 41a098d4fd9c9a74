"""Counts of one ranking, as trec_eval reports them: NumRet, NumRel, NumRelRet, NumQ.

They are summed over queries, not averaged (``aggregate = "sum"`` in ``measures.toml``).
"""

from __future__ import annotations

from collections.abc import Sequence

from metrics._input import dedupe
from metrics.binary import Qrels, hits_at, num_relevant


def num_ret(ranking: Sequence[str], qrels: Qrels) -> float:
    """How many documents were retrieved (each once)."""
    return float(len(dedupe(ranking)))


def num_rel(ranking: Sequence[str], qrels: Qrels, *, rel: int = 1) -> float:
    """R: how many documents the judgments call relevant, retrieved or not."""
    return float(num_relevant(qrels, rel))


def num_rel_ret(ranking: Sequence[str], qrels: Qrels, *, rel: int = 1) -> float:
    """How many relevant documents were retrieved."""
    docs = dedupe(ranking)
    return float(hits_at(docs, qrels, len(docs), rel)) if docs else 0.0


def num_q(ranking: Sequence[str], qrels: Qrels) -> float:
    """1: one query (the summary adds them up)."""
    return 1.0
