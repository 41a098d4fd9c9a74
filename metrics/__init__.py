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
from ``measures.toml``. Each name is imported on first use: ``import metrics`` alone loads no
numpy, pandas or pyarrow.
"""

import importlib
import sys
import types

from metrics import _dependencies
from metrics.errors import FormatError, MetricError

# Every public name and the module it lives in, imported on first use (PEP 562): ``import
# metrics`` loads neither numpy, pandas nor pyarrow, so ``read_run`` can load pandas while
# pyarrow parses the file (a quarter of a second of a fresh process, see ``metrics.io.trec``).
_HOMES = {
    "binary": ("f1", "hit_rate", "judged", "precision", "r_precision", "recall"),
    "compare": ("Comparison", "RunComparison", "compare", "compare_runs"),
    "evaluate": ("evaluate",),
    "fusion": ("fuse",),
    "graded": ("dcg", "discount", "gain_of", "idcg", "ndcg"),
    "io": ("read_qrels", "read_run"),
    "rank": ("average_precision", "bpref", "interpolated_precision", "reciprocal_rank"),
    "registry": ("REGISTRY", "Measure", "MeasureSpec", "parse"),
    "summary": ("ELEVEN_POINTS", "PRCurve", "Summary", "pr_curve", "summarize"),
}
_HOME = {name: module for module, names in _HOMES.items() for name in names}
# Modules that ``import metrics`` used to load, and so listed by ``dir(metrics)``.
_MODULES = ("binary", "counts", "errors", "fusion", "graded", "rank", "registry",
            "significance", "summary")

__all__ = [
    "ELEVEN_POINTS", "REGISTRY", "Comparison", "FormatError", "Measure", "MeasureSpec",
    "MetricError", "PRCurve", "RunComparison", "Summary", "average_precision", "bpref",
    "compare", "compare_runs", "dcg", "discount", "evaluate", "f1", "fuse", "gain_of",
    "hit_rate", "idcg", "interpolated_precision", "judged", "ndcg", "parse", "pr_curve",
    "precision", "r_precision", "read_qrels", "read_run", "recall", "reciprocal_rank",
    "summarize",
]


def __getattr__(name: str):
    if name in _HOME:
        value = getattr(_load(_HOME[name]), name)
        globals()[name] = value
        return value
    if not name.startswith("__"):  # a submodule, as ``metrics.report``
        try:
            return _load(name)
        except ModuleNotFoundError as err:
            if err.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _load(module: str) -> types.ModuleType:
    # pandas first, as ``_dependencies`` loads it; not for the readers (they load it while
    # pyarrow parses) nor for the private helpers they import.
    if module != "io" and not module.startswith("_"):
        _dependencies.load_pandas()
    return importlib.import_module(f"{__name__}.{module}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME) | set(_MODULES))


class _Package(types.ModuleType):
    """``metrics.evaluate`` and ``metrics.compare`` are the functions, though modules of the
    same names exist: importing such a module binds it on the package (``setattr``), and this
    binds the function instead."""

    def __setattr__(self, name: str, value) -> None:
        if _HOME.get(name) == name and isinstance(value, types.ModuleType):
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
