"""64-bit hashes of id strings and of (query, document) pairs, with numpy only.

The readers use them to find a repeated (query, doc) pair among millions of rows, and
``evaluate`` to find the judged rows of a run; both confirm every match on the strings
themselves, so a hash collision can cost time but never change a value. The functions take
pyarrow ``large_string`` arrays but do not import pyarrow (``import metrics`` stays light).
"""

from __future__ import annotations

import itertools

import numpy as np

_U64 = np.uint64
_MASKS = np.array([0] + [(1 << (8 * i)) - 1 for i in range(1, 8)] + [2**64 - 1], np.uint64)


def hash_strings(column) -> np.ndarray:
    """A 64-bit hash of every string of a ``large_string`` ChunkedArray: all its bytes, 8 at a
    time, each word through the splitmix64 finaliser. Equal strings get equal hashes."""
    out = np.empty(len(column), np.uint64)
    pos = 0
    for chunk in column.chunks:
        if len(chunk):
            out[pos:pos + len(chunk)] = _hash_chunk(chunk)
        pos += len(chunk)
    return out


def _hash_chunk(arr) -> np.ndarray:
    n = len(arr)
    offsets = np.frombuffer(arr.buffers()[1], np.int64, count=n + 1, offset=8 * arr.offset)
    lo, hi = int(offsets[0]), int(offsets[-1])
    padded = np.zeros(hi - lo + 8, np.uint8)
    if hi > lo:
        padded[:hi - lo] = np.frombuffer(arr.buffers()[2], np.uint8)[lo:hi]
    # Unaligned 8-byte words starting at any byte: one gather reads 8 bytes of every string.
    words = np.ndarray(shape=(len(padded) - 7,), dtype="<u8", buffer=padded, strides=(1,))
    starts = offsets[:-1] - lo
    lens = offsets[1:] - offsets[:-1]
    h = (lens.astype(_U64) + _U64(1)) * _U64(0x9E3779B97F4A7C15)
    rows = None  # None: every row (dense), else the rows still longer than k
    for k in range(0, int(lens.max()), 8):
        # A string's hash depends on its own bytes only: only rows longer than k are mixed.
        active = lens > k
        if rows is None and np.count_nonzero(active) < n // 2:
            rows = np.flatnonzero(active)  # a few long ids: work on those rows only
        if rows is None:
            w = words[np.minimum(starts + k, len(words) - 1)]
            w &= _MASKS[np.clip(lens - k, 0, 8)]
            mixed = mix(h ^ w)
            if active.all():
                h = mixed
            else:
                np.copyto(h, mixed, where=active)
        else:
            rows = rows[active[rows]]
            w = words[starts[rows] + k] & _MASKS[np.clip(lens[rows] - k, 0, 8)]
            h[rows] = mix(h[rows] ^ w)
    return h


def mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser, in place."""
    x ^= x >> _U64(30)
    x *= _U64(0xBF58476D1CE4E5B9)
    x ^= x >> _U64(27)
    x *= _U64(0x94D049BB133111EB)
    x ^= x >> _U64(31)
    return x


def pair_hash(codes: np.ndarray, doc_hash: np.ndarray) -> np.ndarray:
    """One hash per (query code, document hash) pair."""
    return mix(doc_hash ^ mix(codes.astype(_U64) + _U64(0x632BE59BD9B4E019)))


def maybe_repeated(codes: np.ndarray, starts: np.ndarray | None, hashes: np.ndarray) -> bool:
    """True when two rows may share a (query, doc) pair (equal hashes); exact when False.

    ``starts``: the first row of each query when every query's rows sit together (as in any
    TREC file), else None. Then the top 32 bits of the doc hashes are sorted per query in a
    (queries x longest list) matrix: much faster than one global sort of 64-bit keys."""
    n = len(codes)
    if n < 2:
        return False
    if starts is not None:
        sizes = np.diff(np.append(starts, n))
        width = int(sizes.max())
        if len(starts) * width <= 2 * n + 1024:
            top = (hashes >> _U64(32)).astype(np.uint32)
            if np.all(sizes == width):
                matrix = top.reshape(len(starts), width)
            else:
                matrix = np.full((len(starts), width), np.iinfo(np.uint32).max, np.uint32)
                block = np.repeat(np.arange(len(starts)), sizes)
                matrix[block, np.arange(n) - starts[block]] = top
            matrix.sort(axis=1)
            same = matrix[:, 1:] == matrix[:, :-1]
            if not np.all(sizes == width):
                same &= np.arange(width - 1)[None, :] < (sizes - 1)[:, None]
            suspects = np.flatnonzero(same.any(axis=1))
            if not len(suspects):
                return False
            # 32 bits collide now and then (~1 query in 10,000 of 1,000 docs): look again at
            # those queries with all 64 bits.
            rows = np.concatenate([np.arange(starts[b], starts[b] + sizes[b]) for b in suspects])
            codes, hashes = codes[rows], hashes[rows]
    key = pair_hash(codes, hashes)
    key.sort()
    return bool((key[1:] == key[:-1]).any())


def repeated_rows(keys: np.ndarray) -> np.ndarray:
    """The rows whose key occurs more than once, in row order."""
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    same = ordered[1:] == ordered[:-1]
    flag = np.zeros(len(keys), bool)
    flag[1:] |= same
    flag[:-1] |= same
    return np.sort(order[flag])


def take(column, rows: np.ndarray):
    """``column[rows]`` for a pyarrow ChunkedArray, chunk by chunk: pyarrow's own
    ``ChunkedArray.take`` first joins all the chunks into one array, a copy of every string."""
    import pyarrow as pa

    rows = np.asarray(rows, np.int64)
    if column.num_chunks == 1:
        return column.chunk(0).take(pa.array(rows))
    bounds = np.cumsum([0] + [len(c) for c in column.chunks])
    chunk_of = np.searchsorted(bounds, rows, side="right") - 1
    order = np.argsort(chunk_of, kind="stable")  # rows grouped by chunk, each in its order
    grouped = rows[order]
    cuts = np.searchsorted(chunk_of[order], np.arange(column.num_chunks + 1))
    pieces = [column.chunk(c).take(pa.array(grouped[lo:hi] - bounds[c]))
              for c, (lo, hi) in enumerate(itertools.pairwise(cuts)) if hi > lo]
    if not pieces:
        return pa.array([], column.type)
    joined = pa.concat_arrays(pieces)
    inverse = np.empty(len(rows), np.int64)
    inverse[order] = np.arange(len(rows))
    return joined.take(pa.array(inverse))
