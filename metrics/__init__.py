"""Mizan's metrics: retrieval and faithfulness measures, exact to trec_eval by default.

No Streamlit here: lessons, tests, the lab and users' notebooks all import this package.

One ranking (``ranking``: doc ids in rank order; ``qrels``: ``{doc: grade}`` or a set of ids)::

    hit_rate, precision, recall, f1, reciprocal_rank, average_precision, r_precision,
    dcg, idcg, ndcg, bpref, judged, interpolated_precision

Many queries, from files or from Python::

    run = metrics.read_run("run.trec")          # TREC, CSV/TSV with a header, JSON; any size
    qrels = metrics.read_qrels("qrels.trec")
    table = metrics.evaluate(run, qrels, ["map", "P_10", "nDCG@10", "MRR@10"], rel=1)
    metrics.summarize(table)                    # trec_eval's "all" row
    metrics.pr_curve(run, qrels).mean           # the 11-point recall-precision curve
    metrics.compare(run_a, run_b, qrels, "AP")  # per-query deltas and significance

Many runs: ``compare_runs`` (means, paired tests, Holm, markers; the tests themselves in
``metrics.significance``), ``fuse`` (RRF, CombSUM, CombMNZ), and ``metrics.report`` to write
the table as Markdown, LaTeX or CSV and a per-query table as ``trec_eval -q`` output.

Measure names: Mizan's (``P@5``, ``nDCG(gain=exponential)@10``), ir_measures' (``AP@10``,
``RR@10``, ``Success@5``, ``Judged@10``, ``IPrec@0.5``) and trec_eval's (``map``, ``P_5``,
``ndcg_cut_10``, ``recip_rank``, ``iprec_at_recall_0.50``), all parsed by ``registry.parse``
from ``measures.toml``. ``read_run``/``read_qrels`` (``metrics.io``) load pyarrow on first use.
"""

from metrics import _dependencies  # noqa: F401  (first: it loads pandas, see there)
from metrics.binary import f1, hit_rate, judged, precision, r_precision, recall
from metrics.compare import Comparison, RunComparison, compare, compare_runs
from metrics.errors import FormatError, MetricError
from metrics.evaluate import evaluate
from metrics.fusion import fuse
from metrics.graded import dcg, discount, gain_of, idcg, ndcg
from metrics.rank import average_precision, bpref, interpolated_precision, reciprocal_rank
from metrics.registry import REGISTRY, Measure, MeasureSpec, parse
from metrics.summary import ELEVEN_POINTS, PRCurve, Summary, pr_curve, summarize

__all__ = [
    "ELEVEN_POINTS", "REGISTRY", "Comparison", "FormatError", "Measure", "MeasureSpec",
    "MetricError", "PRCurve", "RunComparison", "Summary", "average_precision", "bpref",
    "compare", "compare_runs", "dcg", "discount", "evaluate", "f1", "fuse", "gain_of",
    "hit_rate", "idcg", "interpolated_precision", "judged", "ndcg", "parse", "pr_curve",
    "precision", "r_precision", "read_qrels", "read_run", "recall", "reciprocal_rank",
    "summarize",
]

_READERS = ("read_run", "read_qrels")


def __getattr__(name: str):
    # The file readers load pyarrow; import them only when used.
    if name in _READERS:
        from metrics import io

        return getattr(io, name)
    raise AttributeError(f"module 'metrics' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_READERS))
