"""The few ONNX messages ``retrieval.encoder``'s graph needs, serialised directly.

Why not the ``onnx`` package: importing it costs ~1.3 s of CPU on this machine (its
``ml_dtypes`` dependency), paid on the path of /retrieve's first page, which embeds a question
before it paints (cold start +3.7 s against a lesson, bench/README.md session 11). The encoder
needs five message types and no checking, so they are written here in protobuf's wire format
(https://protobuf.dev/programming-guides/encoding/): each field a key (field number << 3 | wire
type) then a varint, a little-endian float32 or a length-prefixed payload. Field numbers are
``onnx/onnx-ml.proto``'s (proto2: repeated scalars unpacked, as ``onnx`` writes them). Fields
go in field-number order, attributes sorted by name, as ``onnx.helper`` does:
``tests/test_encoder.py`` checks each builder byte for byte against ``onnx.helper`` and
``onnx.numpy_helper`` (``onnx`` is a test dependency only).

Each function returns one serialised message (bytes); a message inside another is its bytes.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence

import numpy as np

__all__ = ["graph", "model", "node", "tensor", "value_info"]

# TensorProto.DataType
_DATA_TYPES = {np.dtype(np.float32): 1, np.dtype(np.uint8): 2, np.dtype(np.int64): 7}
# AttributeProto.AttributeType
_FLOAT, _INT, _INTS = 1, 2, 7
_VARINT, _FIXED32, _BYTES = 0, 5, 2     # wire types


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1              # an int64 below 0: its two's complement, 10 bytes
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        if not value:
            out.append(low)
            return bytes(out)
        out.append(low | 0x80)


def _key(field: int, wire: int) -> bytes:
    return _varint(field << 3 | wire)


def _int(field: int, value: int) -> bytes:
    return _key(field, _VARINT) + _varint(value)


def _float(field: int, value: float) -> bytes:
    return _key(field, _FIXED32) + struct.pack("<f", value)


def _bytes(field: int, payload: bytes | str) -> bytes:
    if isinstance(payload, str):
        payload = payload.encode("utf-8")
    return _key(field, _BYTES) + _varint(len(payload)) + payload


def _many(field: int, payloads: Iterable[bytes | str]) -> bytes:
    return b"".join(_bytes(field, p) for p in payloads)


def _attribute(name: str, value: int | float | Sequence[int]) -> bytes:
    """AttributeProto: name = 1, f = 2, i = 3, ints = 8, type = 20."""
    if isinstance(value, bool | np.bool_):
        raise TypeError(f"{name}: no boolean attributes in ONNX")
    if isinstance(value, int | np.integer):
        return _bytes(1, name) + _int(3, int(value)) + _int(20, _INT)
    if isinstance(value, float | np.floating):
        return _bytes(1, name) + _float(2, float(value)) + _int(20, _FLOAT)
    return (_bytes(1, name) + b"".join(_int(8, int(v)) for v in value)
            + _int(20, _INTS))


def tensor(name: str, array: np.ndarray) -> bytes:
    """TensorProto (an initializer): dims = 1, data_type = 2, name = 8, raw_data = 9."""
    array = np.asarray(array)           # not ascontiguousarray: it makes a scalar 1-d
    data_type = _DATA_TYPES[array.dtype.newbyteorder("=")]
    raw = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes(order="C")
    return (b"".join(_int(1, d) for d in array.shape) + _int(2, data_type) + _bytes(8, name)
            + _bytes(9, raw))


def node(op_type: str, inputs: Sequence[str], outputs: Sequence[str], name: str,
         domain: str = "", **attributes: int | float | Sequence[int]) -> bytes:
    """NodeProto: input = 1, output = 2, name = 3, op_type = 4, attribute = 5, domain = 7
    (an empty input name: an optional input left out)."""
    return (_many(1, inputs) + _many(2, outputs) + _bytes(3, name) + _bytes(4, op_type)
            + _many(5, (_attribute(k, v) for k, v in sorted(attributes.items())))
            + (_bytes(7, domain) if domain else b""))


def value_info(name: str, data_type: type, shape: Sequence[int | str]) -> bytes:
    """ValueInfoProto (a graph input or output): name = 1, type = 2 → TypeProto.tensor_type = 1
    → elem_type = 1, shape = 2 → dim = 1 → dim_value = 1 or dim_param = 2."""
    dims = b"".join(_bytes(1, _bytes(2, d) if isinstance(d, str) else _int(1, d))
                    for d in shape)
    tensor_type = _int(1, _DATA_TYPES[np.dtype(data_type)]) + _bytes(2, dims)
    return _bytes(1, name) + _bytes(2, _bytes(1, tensor_type))


def graph(nodes: Sequence[bytes], name: str, inputs: Sequence[bytes], outputs: Sequence[bytes],
          initializers: Sequence[bytes]) -> bytes:
    """GraphProto: node = 1, name = 2, initializer = 5, input = 11, output = 12."""
    return (_many(1, nodes) + _bytes(2, name) + _many(5, initializers) + _many(11, inputs)
            + _many(12, outputs))


def model(graph_proto: bytes, opsets: dict[str, int], ir_version: int) -> bytes:
    """ModelProto: ir_version = 1, graph = 7, opset_import = 8 → domain = 1, version = 2."""
    return (_int(1, ir_version) + _bytes(7, graph_proto)
            + _many(8, (_bytes(1, domain) + _int(2, version)
                        for domain, version in opsets.items())))
