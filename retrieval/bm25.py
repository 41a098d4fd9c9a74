"""BM25 over a corpus (bm25s, Lucene's BM25 variant, k1 = 1.5, b = 0.75).

Terms come from ``retrieval.analysis.tokens`` (normalised, function words dropped, stemmed per
script). Only passages sharing at least one term with the question are ranked: a passage that
scores 0 is not "found", so a ranking can be shorter than k (an English question on the Arabic
handbook usually finds nothing). Equal scores: ``retrieval.ranking``'s rule.
"""

from __future__ import annotations

from collections.abc import Sequence

import bm25s
import numpy as np

from retrieval import analysis
from retrieval.ranking import Hit, rank

__all__ = ["K1", "B", "BM25Index"]

K1 = 1.5
B = 0.75


class BM25Index:
    """A BM25 index of ``texts`` whose passages are ``ids`` (same order)."""

    def __init__(self, ids: Sequence[str], texts: Sequence[str]) -> None:
        if len(ids) != len(texts):
            raise ValueError(f"{len(ids)} ids but {len(texts)} texts")
        self.ids = np.asarray(ids, dtype=str)
        self._model = bm25s.BM25(k1=K1, b=B, method="lucene")
        # bm25s adds an empty term for passages without any term, so none is left out.
        self._model.index([analysis.tokens(t) for t in texts], show_progress=False)

    def __len__(self) -> int:
        return len(self.ids)

    def scores(self, query: str) -> np.ndarray:
        """The BM25 score of every passage for ``query`` (float32, 0 = no shared term)."""
        term_ids = self._model.get_tokens_ids(analysis.tokens(query))
        if not term_ids:
            return np.zeros(len(self.ids), np.float32)
        return self._model.get_scores(term_ids)

    def search(self, query: str, k: int | None = None) -> list[Hit]:
        """The top ``k`` passages (all matching ones when None) with a score above 0."""
        scores = self.scores(query)
        found = np.flatnonzero(scores > 0)
        return rank(self.ids[found], scores[found], k)
