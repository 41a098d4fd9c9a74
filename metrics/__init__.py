"""Mizan's metrics: retrieval and faithfulness measures, exact to trec_eval by default.

No Streamlit here: lessons, tests, the lab and users' notebooks all import this package.

One ranking (``ranking``: doc ids in rank order; ``qrels``: ``{doc: grade}`` or a set of ids)::

    hit_rate, precision, recall, f1, reciprocal_rank, average_precision, r_precision,
    dcg, idcg, ndcg

Many queries: ``read_run``, ``read_qrels``, ``evaluate``, ``compare``; measure strings are
parsed by ``registry.parse`` (``"P@5"``, ``"nDCG(gain=exponential)@10"``).

Many runs: ``compare_runs`` (means, paired tests, Holm, markers; the tests themselves in
``metrics.significance``), ``fuse`` (RRF, CombSUM, CombMNZ), and ``metrics.report`` to write
the table as Markdown, LaTeX or CSV and a per-query table as ``trec_eval -q`` output.
"""

from metrics.binary import f1, hit_rate, precision, r_precision, recall
from metrics.compare import Comparison, RunComparison, compare, compare_runs
from metrics.errors import FormatError, MetricError
from metrics.evaluate import evaluate
from metrics.fusion import fuse
from metrics.graded import dcg, discount, gain_of, idcg, ndcg
from metrics.rank import average_precision, reciprocal_rank
from metrics.registry import REGISTRY, Measure, MeasureSpec, parse

__all__ = [
    "REGISTRY", "Comparison", "FormatError", "Measure", "MeasureSpec", "MetricError",
    "RunComparison", "average_precision", "compare", "compare_runs", "dcg", "discount",
    "evaluate", "f1", "fuse", "gain_of", "hit_rate",
    "idcg", "ndcg", "parse", "precision", "r_precision", "read_qrels", "read_run", "recall",
    "reciprocal_rank",
]


def __getattr__(name: str):
    # The file readers load pyarrow; import them only when used.
    if name in ("read_run", "read_qrels"):
        from metrics import io

        return getattr(io, name)
    raise AttributeError(name)
