"""The stored passage vectors of the bundled handbook (``assets/corpus/embeddings.npz``).

Written by ``scripts/embed_corpus.py`` so the app starts without embedding anything. One
``.npz`` (no pickles) with, for every passage of every language, one row of:

    lang     "ar" / "en"
    ids      the passage id
    sha256   SHA-256 (hex) of the exact text that was embedded (``Passage.indexed_text``)
    vectors  float16, n x 384 (L2-normalised float32 rounded: cosine errors below 1e-3)
    model    the model's name (a 0-d string)

``vectors_for`` refuses a file that does not match the corpus (another id, order or text):
the page would otherwise rank passages by the vectors of old texts.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from retrieval.corpus import CORPUS_DIR, Corpus
from retrieval.dense import DIM, MODEL
from retrieval.errors import CorpusError

__all__ = ["EMBEDDINGS_PATH", "save", "text_hash", "vectors_for"]

EMBEDDINGS_PATH = CORPUS_DIR / "embeddings.npz"


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def save(path: Path | str, vectors: Mapping[str, np.ndarray],
         corpora: Mapping[str, Corpus]) -> None:
    """Write the vectors of each language's corpus (``vectors[lang]`` rows in corpus order)."""
    langs, ids, hashes, rows = [], [], [], []
    for lang in sorted(corpora):
        corpus, matrix = corpora[lang], np.asarray(vectors[lang])
        if matrix.shape != (len(corpus), DIM):
            raise ValueError(f"{lang}: expected {len(corpus)} x {DIM}, got {matrix.shape}")
        langs += [lang] * len(corpus)
        ids += list(corpus.ids)
        hashes += [text_hash(t) for t in corpus.indexed_texts]
        rows.append(matrix.astype(np.float16))
    np.savez_compressed(path, lang=np.array(langs), ids=np.array(ids), sha256=np.array(hashes),
                        vectors=np.concatenate(rows), model=np.array(MODEL))


def vectors_for(corpus: Corpus, path: Path | str = EMBEDDINGS_PATH) -> np.ndarray:
    """The stored vectors of ``corpus`` (float32, corpus order); ``CorpusError``
    ``embeddings_stale`` when the file does not hold exactly this corpus's passages and texts."""
    with np.load(path, allow_pickle=False) as stored:
        mine = stored["lang"] == corpus.lang
        ids, hashes = stored["ids"][mine], stored["sha256"][mine]
        vectors = stored["vectors"][mine]
        model = str(stored["model"])
    if model != MODEL:
        raise CorpusError("embeddings_stale", detail=f"made with {model}, not {MODEL}")
    if tuple(ids) != corpus.ids:
        raise CorpusError("embeddings_stale",
                          detail=f"{corpus.lang}: {len(ids)} stored ids differ from the "
                                 f"corpus's {len(corpus)}")
    changed = [pid for pid, digest, text in zip(ids, hashes, corpus.indexed_texts, strict=True)
               if digest != text_hash(text)]
    if changed:
        raise CorpusError("embeddings_stale",
                          detail=f"{corpus.lang}: the text of {', '.join(changed[:5])} changed")
    return vectors.astype(np.float32)
