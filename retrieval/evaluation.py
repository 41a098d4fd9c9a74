"""From rankings to numbers, through ``metrics`` only: TREC files, per-question measures, the
all-questions table and comparison, and chunks counted as documents.

Runs are ``{question id: [Hit, ...]}`` (one system); judgments ``{question id: {passage id:
grade}}`` (0-3). ``write_run``/``write_qrels`` give TREC text that ``metrics.read_run`` and
``metrics.read_qrels`` read back to the same values: scores are written with every digit
(``repr``), so ties stay ties and the order stays ``retrieval.ranking``'s, which is
trec_eval's.

The four measures of the retrieval page (``MEASURES``): recall@k, precision@k, RR@k and nDCG@k,
trec_eval's conventions (``metrics``): relevant = grade >= ``rel`` (1); unjudged = not
relevant; recall divides by every relevant passage judged; nDCG's ideal ordering uses every
judged grade. With pooled judgments "unjudged" means "unknown": ``unjudged`` lists them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TextIO

import pandas as pd

import metrics
from retrieval.ranking import Hit, rank

__all__ = [
    "MEASURES", "compare_systems", "document_qrels", "measure_names", "question_measures",
    "run_dict", "system_table", "to_documents", "unjudged", "write_qrels", "write_run",
]

MEASURES = ("R", "P", "RR", "nDCG")

Run = Mapping[str, Sequence[Hit]]
Qrels = Mapping[str, Mapping[str, int]]


def _emit(text: str, dest: Path | str | TextIO | None) -> str:
    if isinstance(dest, (str, Path)):
        Path(dest).write_text(text, encoding="utf-8")
    elif dest is not None:
        dest.write(text)
    return text


def _check_id(value: str, what: str) -> str:
    if not value or any(c.isspace() for c in value):
        raise ValueError(f"a {what} id must be non-empty and without spaces: {value!r}")
    return value


def write_run(run: Run, dest: Path | str | TextIO | None = None, *, tag: str = "mizan") -> str:
    """The run as TREC text (``qid Q0 passage rank score tag``), also written to ``dest``."""
    _check_id(tag, "run")
    lines = [f"{_check_id(qid, 'question')} Q0 {_check_id(hit.id, 'passage')} {hit.rank} "
             f"{float(hit.score)!r} {tag}\n"
             for qid, hits in run.items() for hit in hits]
    return _emit("".join(lines), dest)


def write_qrels(qrels: Qrels, dest: Path | str | TextIO | None = None) -> str:
    """The judgments as TREC qrels text (``qid 0 passage grade``), also written to ``dest``."""
    lines = [f"{_check_id(qid, 'question')} 0 {_check_id(pid, 'passage')} {int(grade)}\n"
             for qid, grades in qrels.items() for pid, grade in grades.items()]
    return _emit("".join(lines), dest)


def run_dict(run: Run) -> dict[str, dict[str, float]]:
    """``{qid: {passage: score}}``, the form ``metrics.evaluate`` reads."""
    return {qid: {hit.id: float(hit.score) for hit in hits} for qid, hits in run.items()}


def measure_names(k: int) -> list[str]:
    return [f"{m}@{k}" for m in MEASURES]


def question_measures(ranking: Sequence[Hit], qrels: Mapping[str, int], k: int, *,
                      rel: int = 1) -> dict[str, float]:
    """recall@k, precision@k, RR@k, nDCG@k of one ranking (keys as ``measure_names(k)``)."""
    ids = [hit.id for hit in ranking]
    return {
        f"R@{k}": metrics.recall(ids, qrels, k, rel=rel),
        f"P@{k}": metrics.precision(ids, qrels, k, rel=rel),
        f"RR@{k}": metrics.reciprocal_rank(ids, qrels, k, rel=rel),
        f"nDCG@{k}": metrics.ndcg(ids, qrels, k),
    }


def unjudged(ranking: Sequence[Hit], qrels: Mapping[str, int], k: int) -> list[str]:
    """The passages of the top k that nobody judged (their relevance is unknown)."""
    return [hit.id for hit in ranking[:k] if hit.id not in qrels]


def system_table(runs: Mapping[str, Run], qrels: Qrels, k: int) -> pd.DataFrame:
    """Mean recall@k, precision@k, RR@k, nDCG@k per system (rows) over the judged questions
    (``metrics.evaluate``: a question a system found nothing for scores 0)."""
    names = measure_names(k)
    return pd.DataFrame({system: metrics.evaluate(run_dict(run), qrels, names).mean()
                         for system, run in runs.items()}).T.rename_axis("system")


def compare_systems(runs: Mapping[str, Run], qrels: Qrels, measure: str, a: str, b: str,
                    **options) -> metrics.Comparison:
    """System ``b`` against ``a`` question by question (``metrics.compare``: deltas,
    wins/ties/losses, paired t-test, randomization test, bootstrap interval)."""
    return metrics.compare(run_dict(runs[a]), run_dict(runs[b]), qrels, measure, **options)


def to_documents(ranking: Sequence[Hit], documents: Mapping[str, str]) -> list[Hit]:
    """The ranking of documents: each document where its best chunk is, with that chunk's score
    (two chunks of one document count once); re-ranked by ``retrieval.ranking``'s rule."""
    best: dict[str, float] = {}
    for hit in ranking:
        best.setdefault(documents.get(hit.id, hit.id), hit.score)
    return rank(list(best), list(best.values()))


def document_qrels(qrels: Mapping[str, int], documents: Mapping[str, str]) -> dict[str, int]:
    """Passage judgments as document judgments: a document's grade is its best chunk's."""
    out: dict[str, int] = {}
    for pid, grade in qrels.items():
        doc = documents.get(pid, pid)
        out[doc] = max(out.get(doc, grade), grade)
    return out
