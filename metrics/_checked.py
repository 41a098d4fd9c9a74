"""Which DataFrames the readers checked: (query, doc) pairs unique, doc ids hashed.

``read_run`` and ``read_qrels`` check that no (query_id, doc_id) pair repeats and hash every
doc id on the way; ``evaluate`` reuses both when it is given that very frame, and checks
everything itself for any other. A frame is recognised by the Arrow array of its ``doc_id``
column (pandas replaces it whenever rows are filtered, reordered, added or edited) together
with a checksum of its query codes (which an in-place edit of ``query_id`` would change), never
by ``DataFrame.attrs``, which pandas carries over to derived frames unchanged. An entry lives
exactly as long as that Arrow array.
"""

from __future__ import annotations

import weakref
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class Checked:
    """What the reader established about a frame's rows."""

    rows: int
    codes_crc: int
    doc_hashes: np.ndarray      # uint64 per row (metrics._hashing.hash_strings of doc_id)


_REGISTRY: dict[int, tuple[weakref.ref, Checked]] = {}


def _parts(frame: pd.DataFrame):
    """The frame's doc-id Arrow array and its query codes, or None when it has no such."""
    try:
        docs = frame["doc_id"].array._pa_array
        queries = frame["query_id"].array
    except (KeyError, AttributeError):
        return None
    import pandas as pd  # loaded already: there is a frame

    if not isinstance(queries, pd.Categorical):
        return None
    return docs, np.ascontiguousarray(queries.codes)


def _crc(codes: np.ndarray) -> int:
    return zlib.crc32(codes.view(np.uint8)) ^ (codes.dtype.itemsize << 40)


def register(frame: pd.DataFrame, doc_hashes: np.ndarray) -> None:
    parts = _parts(frame)
    if parts is None:
        return
    docs, codes = parts
    key = id(docs)
    _REGISTRY[key] = (weakref.ref(docs), Checked(len(frame), _crc(codes), doc_hashes))
    weakref.finalize(docs, _REGISTRY.pop, key, None)


def lookup(frame: pd.DataFrame) -> Checked | None:
    """What the reader established, if ``frame`` still holds exactly the rows it read."""
    parts = _parts(frame)
    if parts is None:
        return None
    docs, codes = parts
    entry = _REGISTRY.get(id(docs))
    if entry is None or entry[0]() is not docs:
        return None
    checked = entry[1]
    if checked.rows != len(frame) or checked.rows != len(codes) or checked.codes_crc != _crc(
            codes):
        return None
    return checked
