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
    """A 64-bit hash of every string of a ``large_string`` ChunkedArray (see ``_hash_chunk``).
    Equal strings get equal hashes."""
    out = np.empty(len(column), np.uint64)
    bounds = np.cumsum([0] + [len(c) for c in column.chunks])
    work = [(chunk, out[a:b]) for chunk, a, b in zip(column.chunks, bounds[:-1], bounds[1:],
                                                     strict=True) if b > a]
    cut = int(np.searchsorted(np.cumsum([len(o) for _, o in work]), len(out) // 2)) + 1
    in_parallel([lambda part=part: [_hash_chunk(c, o) for c, o in part]
                 for part in (work[:cut], work[cut:]) if part])
    return out


def in_parallel(tasks: list) -> list:
    """Run the callables on two threads (numpy and pyarrow let go of the GIL while they work
    on large arrays, so two cores share the work); their results in order."""
    if len(tasks) < 2:
        return [t() for t in tasks]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        return list(pool.map(lambda t: t(), tasks))


def _words(arr) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The strings of one Arrow ``large_string`` chunk as (words, starts, lengths):
    ``words[starts[i] + k]`` is bytes k..k+8 of string i as a little-endian uint64 (bytes past
    its end belong to its neighbours or to 8 bytes of padding on either side)."""
    n = len(arr)
    offsets = np.frombuffer(arr.buffers()[1], np.int64, count=n + 1, offset=8 * arr.offset)
    lo, hi = int(offsets[0]), int(offsets[-1])
    padded = np.zeros(hi - lo + 16, np.uint8)
    if hi > lo:
        padded[8:8 + hi - lo] = np.frombuffer(arr.buffers()[2], np.uint8)[lo:hi]
    # Unaligned 8-byte words starting at any byte: one gather reads 8 bytes of every string.
    words = np.ndarray(shape=(len(padded) - 7,), dtype="<u8", buffer=padded, strides=(1,))
    return words, offsets[:-1] - (lo - 8), offsets[1:] - offsets[:-1]


def _hash_chunk(arr, h: np.ndarray) -> None:
    """Hash the strings of one Arrow chunk into ``h``: the length and the first 8 bytes, then
    for longer ids the 8-byte words in between and the last 8 bytes (which may overlap the
    ones before), each through splitmix64's finaliser. Only the id's own bytes count."""
    n = len(arr)
    words, starts, lens = _words(arr)
    longest = int(lens.max())
    first = words[starts]
    first &= _MASKS[np.minimum(lens, 8)]
    np.multiply(lens.astype(_U64), _U64(0x9E3779B97F4A7C15), out=h)
    h ^= first
    mix(h)
    if longest <= 8:
        return
    longer = np.flatnonzero(lens > 8)
    for k in range(8, longest - 8, 8):  # the words between the first and the last
        rows = longer[lens[longer] - 8 > k]
        h[rows] = mix(h[rows] ^ words[starts[rows] + k])
    if len(longer) > n // 2:  # most ids: one pass over all rows
        last = words[starts + lens - 8]
        last ^= h
        mix(last)
        np.copyto(h, last, where=lens > 8)
    else:
        h[longer] = mix(h[longer] ^ words[starts[longer] + lens[longer] - 8])


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
    TREC file), else None. Then 32 bits of each doc hash are sorted per query in a
    (queries x longest list) matrix: much faster than one global sort of 64-bit keys."""
    n = len(codes)
    if n < 2:
        return False
    if starts is not None:
        sizes = np.diff(np.append(starts, n))
        width = int(sizes.max())
        if len(starts) * width <= 2 * n + 1024:
            # 32 of the 64 bits (any half would do), read in place
            top = np.ascontiguousarray(hashes).view(np.uint32)[1::2]
            if np.all(sizes == width):
                rows = top.reshape(len(starts), width)
                matrix = np.empty(rows.shape, np.uint32)
            else:
                rows = None
                matrix = np.full((len(starts), width), np.iinfo(np.uint32).max, np.uint32)
                block = np.repeat(np.arange(len(starts)), sizes)
                matrix[block, np.arange(n) - starts[block]] = top

            def sort_rows(part: slice) -> None:  # half the rows on each core
                if rows is not None:
                    matrix[part] = rows[part]
                matrix[part].sort(axis=1)

            half = len(matrix) // 2
            in_parallel([lambda: sort_rows(slice(0, half)), lambda: sort_rows(slice(half, None))])
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
