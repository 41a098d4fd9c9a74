"""The /retrieve page's plain functions: real retrieval on the bundled handbook or an upload, the
judgments, the measures of one question and of all of them, the readings by question kind, the
lesson links, the TREC files and the background dense index of an upload.

No Streamlit here: the page calls these and tests call them directly. Rankings come from
``retrieval``; every number from ``metrics`` (through ``retrieval.evaluation``).
"""

from __future__ import annotations

import csv
import functools
import hashlib
import math
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache

import numpy as np
import pandas as pd

import metrics
from lessons.ndcg import link as ndcg_link
from lessons.recall_precision import link as recall_precision_link
from retrieval import dense, evaluation
from retrieval.bm25 import BM25Index
from retrieval.corpus import CORPUS_DIR, LANGUAGES, Corpus, Passage, Question, load_questions
from retrieval.engine import SYSTEMS, Retrievers, load_bundled
from retrieval.fusion import reciprocal_rank_fusion
from retrieval.ranking import Hit
from retrieval.upload import MAX_BYTES, Chunking, Upload, parse_upload
from text.i18n import fill, fmt_p, fmt_signed, fmt_size

__all__ = [
    "DEFAULT_K", "GRADES", "KINDS", "MAX_BYTES", "MAX_K", "MAX_QUESTION_CHARS", "MAX_WEIGHT",
    "PAIRS", "RUN_DEPTH", "SYSTEMS", "Bundled", "DenseJob", "Item", "LessonLink", "Overview",
    "Reading", "bm25_only", "bundled", "bundled_qrels", "bundled_runs", "cached_overview",
    "chunk_sweep", "clean_question", "combined", "count_form", "digest", "document_view",
    "error_message", "freeze", "full_rankings", "judgeable", "learner_qrels", "lesson_links",
    "merge_document_qrels", "ordered_deltas", "overview", "own_runs_file", "p_text", "parse",
    "qrels_file", "question_items", "question_values", "run_file", "search",
    "signed", "unjudged_count", "warm_up", "weights_of", "with_dense",
]

GRADES = (0, 1, 2, 3)
MAX_K = 20
DEFAULT_K = 10
MAX_WEIGHT = 3.0
RUN_DEPTH = 100                  # passages per question in the downloaded runs
MAX_QUESTION_CHARS = 300
MAX_LEARNER_JUDGMENTS = 60       # one question's judgments in a link (3 systems x k <= 20)
# (question language, corpus language): the three settings the judgments cover.
PAIRS: dict[str, tuple[str, str]] = {"ar-ar": ("ar", "ar"), "en-en": ("en", "en"),
                                     "en-ar": ("en", "ar")}
KINDS = ("exact", "paraphrase", "multi", "distractor", "vague")
# What the field expects of each kind (the reading says whether these questions agree):
# lexical matching wins exact terms, codes and numbers; embeddings win paraphrase.
EXPECTED = {"exact": ("bm25", "dense"), "paraphrase": ("dense", "bm25")}
COMPARED = (("bm25", "dense"), ("bm25", "hybrid"), ("dense", "hybrid"))
TIE = 1e-12


def measure_names(k: int) -> list[str]:
    return evaluation.measure_names(k)


# --- counting words ---------------------------------------------------------------------------


def count_form(n: int, template: str) -> str:
    """A content template such as ``{{n|سؤال|مجرور}}`` filled with ``n``: the noun in the form
    the number asks for (``text.plural``, CLDR's rules via Babel): «5 أسئلة», «سؤالين»."""
    return fill(template, {"n": int(n)})


# --- the bundled handbook ----------------------------------------------------------------------


def _read_judgments(path) -> tuple[dict[str, dict[str, int]], dict[tuple[str, str], str]]:
    """``judgments.<lang>.tsv``: question, passage, grade, the assessor's note (``#`` lines are
    comments)."""
    qrels: dict[str, dict[str, int]] = {}
    notes: dict[tuple[str, str], str] = {}
    with open(path, encoding="utf-8", newline="") as f:
        rows = csv.reader((line for line in f if not line.startswith("#")), delimiter="\t")
        next(rows)  # header
        for row in rows:
            if not row:
                continue
            qid, pid, grade, note = [*row, ""][:4]
            qrels.setdefault(qid, {})[pid] = int(grade)
            if note.strip():
                notes[qid, pid] = note.strip()
    return qrels, notes


@dataclass(frozen=True)
class Bundled:
    retrievers: Mapping[str, Retrievers]                       # corpus language -> retrievers
    questions: tuple[Question, ...]
    qrels: Mapping[str, Mapping[str, Mapping[str, int]]]       # corpus language -> qid -> grades
    notes: Mapping[str, Mapping[tuple[str, str], str]]         # corpus language -> notes

    @cached_property
    def by_id(self) -> dict[str, Question]:
        return {q.id: q for q in self.questions}

    @property
    def systems(self) -> tuple[str, ...]:
        return self.retrievers["ar"].systems


@lru_cache(maxsize=1)
def bundled() -> Bundled:
    """The handbook in both languages with its indexes, questions and judgments (once per
    process: the indexes are read-only and shared by every session)."""
    retrievers = load_bundled()
    judged = {lang: _read_judgments(CORPUS_DIR / f"judgments.{lang}.tsv") for lang in LANGUAGES}
    return Bundled(retrievers, load_questions(corpus=retrievers["ar"].corpus),
                   {lang: j[0] for lang, j in judged.items()},
                   {lang: j[1] for lang, j in judged.items()})


# --- one question ------------------------------------------------------------------------------


def clean_question(text: str) -> str:
    """A typed question as it is searched: control characters dropped, spaces collapsed, cut at
    ``MAX_QUESTION_CHARS``."""
    kept = "".join(c if c.isprintable() else " " for c in str(text))
    return " ".join(kept.split())[:MAX_QUESTION_CHARS]


def weights_of(w_bm25: float, w_dense: float) -> dict[str, float]:
    return {"bm25": float(w_bm25), "dense": float(w_dense)}


def search(retrievers: Retrievers, text: str, k: int, weights: Mapping[str, float]
           ) -> dict[str, list[Hit]]:
    """Each system's top ``k`` (the hybrid fuses the whole BM25 and dense rankings)."""
    return retrievers.search(text, k, weights=weights)


def combined(assessed: Mapping[str, int], mine: Mapping[str, int]) -> dict[str, int]:
    """The judgments a question is measured with: the assessors', and the learner's grades of
    passages the assessors did not judge (an assessor's grade is never replaced)."""
    return {**{p: g for p, g in mine.items() if p not in assessed}, **assessed}


@dataclass(frozen=True)
class Item:
    """One retrieved passage as the page shows it."""

    hit: Hit
    passage: Passage
    grade: int | None          # None: unjudged (unknown, not irrelevant)
    source: str                # "assessor", "you" or "" (unjudged)
    note: str = ""             # the assessor's note


def question_items(rankings: Mapping[str, Sequence[Hit]], corpus: Corpus,
                   assessed: Mapping[str, int], mine: Mapping[str, int],
                   notes: Mapping[str, str] | None = None) -> dict[str, list[Item]]:
    notes = notes or {}
    out: dict[str, list[Item]] = {}
    for system, hits in rankings.items():
        items = []
        for hit in hits:
            if hit.id in assessed:
                grade, source = assessed[hit.id], "assessor"
            elif hit.id in mine:
                grade, source = mine[hit.id], "you"
            else:
                grade, source = None, ""
            items.append(Item(hit, corpus[hit.id], grade, source, notes.get(hit.id, "")))
        out[system] = items
    return out


def question_values(rankings: Mapping[str, Sequence[Hit]], qrels: Mapping[str, int],
                    k: int) -> dict[str, dict[str, float]]:
    """recall@k, precision@k, RR@k and nDCG@k of each system's ranking (``metrics``)."""
    return {system: evaluation.question_measures(hits, qrels, k)
            for system, hits in rankings.items()}


def best_systems(values: Mapping[str, Mapping[str, float]], measure: str) -> tuple[str, ...]:
    """The systems with the highest ``measure`` (several when they tie)."""
    if not values:
        return ()
    top = max(v[measure] for v in values.values())
    return tuple(s for s, v in values.items() if v[measure] >= top - TIE)


def judgeable(items: Mapping[str, Sequence[Item]]) -> list[Item]:
    """Passages of the shown rankings the assessors did not judge, each once, in the order of
    their best rank (then system order)."""
    seen: dict[str, tuple[int, Item]] = {}
    for system_items in items.values():
        for item in system_items:
            if item.source != "assessor":
                best = seen.get(item.hit.id)
                if best is None or item.hit.rank < best[0]:
                    seen[item.hit.id] = (item.hit.rank, item)
    return [item for _, item in sorted(seen.values(), key=lambda pair: pair[0])]


def unjudged_count(items: Sequence[Item]) -> int:
    return sum(item.grade is None for item in items)


# --- links into the lessons --------------------------------------------------------------------

RP_MAX = recall_precision_link.MAX_DOCS      # the lessons' limits, from their public links
NDCG_MAX = ndcg_link.MAX_DOCS


@dataclass(frozen=True)
class LessonLink:
    url_path: str             # catalogue url path
    script: str               # st.page_link target
    params: dict[str, str]    # the lesson's URL fields
    notes: tuple[str, ...]    # what had to be changed (keys of the page's texts)


def lesson_links(ranking: Sequence[str], qrels: Mapping[str, int], k: int
                 ) -> dict[str, LessonLink]:
    """The links that open ``ranking`` (passage ids, best first) with its judgments in lesson 2
    (binary relevance, grade >= 1) and lesson 5 (grades 0-3, linear gain, the ideal from every
    judged grade, as trec_eval), built only through the two lessons' public ``link`` modules.

    Notes: ``unjudged`` (shown as not relevant, grade 0), ``cut_k`` (k beyond what the lesson
    holds), ``cut_short`` (lesson 5 cuts at the ranking's length, and its nDCG differs from
    nDCG@k), ``cut_relevant`` (more judged relevant passages than it holds), ``empty``."""
    top = list(ranking[:k])
    unjudged = any(p not in qrels for p in top)
    links = {}
    for url_path, module, graded in (("recall-precision", recall_precision_link, False),
                                     ("ndcg", ndcg_link, True)):
        limit = module.MAX_DOCS
        shown = top[:limit]
        notes = ["unjudged"] if unjudged else []
        if k > limit:
            notes.append("cut_k")
        left = sorted(((p, g) for p, g in qrels.items() if g >= 1 and p not in set(shown)),
                      key=lambda item: (-item[1], item[0]))
        if len(left) > limit and not graded:
            # lesson 5 keeps the highest grades, enough for its ideal top k (k <= limit)
            notes.append("cut_relevant")
        left = left[:limit]
        if not shown:
            notes.append("empty")
        cut = max(1, min(k, limit))
        if graded:
            scenario = module.Scenario(
                ranking=[(p, qrels.get(p, 0)) for p in shown], unretrieved=left, k=cut,
                gain="linear", ideal="judged")
            if shown and module.cuts_short(scenario):
                notes.append("cut_short")
            params = module.link(scenario)
        else:
            params = module.link(module.Scenario(
                ranking=[(p, int(qrels.get(p, 0) >= 1)) for p in shown],
                unretrieved=[p for p, _ in left], k=cut))
        links[url_path] = LessonLink(url_path, f"lessons/{module.FOLDER}/page.py", params,
                                     tuple(notes))
    return links


# --- all questions -----------------------------------------------------------------------------


@lru_cache(maxsize=len(PAIRS))
def full_rankings(question_lang: str, corpus_lang: str
                  ) -> dict[str, dict[str, tuple[Hit, ...]]]:
    """Every bundled question's whole BM25 and dense rankings (once per process: the query
    vectors are the expensive part, ~15-20 ms a question)."""
    handbook = bundled()
    retrievers = handbook.retrievers[corpus_lang]
    out: dict[str, dict[str, tuple[Hit, ...]]] = {}
    for question in handbook.questions:
        found = retrievers.search(question.text[question_lang], None, weights={})
        out[question.id] = {s: tuple(found[s]) for s in ("bm25", "dense") if s in found}
    return out


def bundled_runs(pair: str, weights: Mapping[str, float], depth: int = RUN_DEPTH
                 ) -> dict[str, dict[str, list[Hit]]]:
    """``{system: {qid: top depth}}`` for the bundled questions (the hybrid fused with
    ``weights`` from the whole rankings, exactly as ``Retrievers.search`` does)."""
    full = full_rankings(*PAIRS[pair])
    runs: dict[str, dict[str, list[Hit]]] = {s: {} for s in bundled().systems}
    for qid, found in full.items():
        for system in found:
            runs[system][qid] = list(found[system][:depth])
        if "hybrid" in runs:
            runs["hybrid"][qid] = reciprocal_rank_fusion(found, weights, top=depth)
    return runs


def bundled_qrels(corpus_lang: str, learner: Mapping[str, Mapping[str, int]] | None = None
                  ) -> dict[str, dict[str, int]]:
    """The assessors' judgments of the corpus, plus the learner's for passages they left
    unjudged (``learner``: qid -> passage -> grade)."""
    assessed = bundled().qrels[corpus_lang]
    learner = learner or {}
    return {qid: combined(assessed.get(qid, {}), learner.get(qid, {}))
            for qid in dict.fromkeys([*assessed, *learner])}


@dataclass(frozen=True)
class Reading:
    """One computed sentence of the honest reading: a text key and the values it quotes."""

    key: str
    values: dict[str, object]


@dataclass(frozen=True)
class Overview:
    pair: str
    k: int
    measure: str                                  # e.g. "nDCG@10": deltas and tests
    systems: tuple[str, ...]
    table: pd.DataFrame                           # system x R@k, P@k, RR@k, nDCG@k (means)
    per_question: pd.DataFrame                    # qid x (system, measure)
    comparisons: dict[tuple[str, str], metrics.Comparison]
    kinds: pd.DataFrame                           # kind x system: mean of ``measure``
    readings: tuple[Reading, ...]
    found_nothing: dict[str, int] = field(default_factory=dict)   # system -> questions


def overview(pair: str, k: int, weights: Mapping[str, float], measure_key: str = "nDCG",
             learner: Mapping[str, Mapping[str, int]] | None = None, *,
             runs: Mapping[str, Mapping[str, Sequence[Hit]]] | None = None) -> Overview:
    """Everything the all-questions view shows, from ``metrics.evaluate`` and
    ``metrics.compare`` on the runs cut at ``RUN_DEPTH`` (the downloadable files)."""
    corpus_lang = PAIRS[pair][1]
    runs = runs if runs is not None else bundled_runs(pair, weights)
    qrels = bundled_qrels(corpus_lang, learner)
    systems = tuple(runs)
    measure = f"{measure_key}@{k}"
    names = measure_names(k)
    per = {s: metrics.evaluate(evaluation.run_dict(runs[s]), qrels, names) for s in systems}
    table = pd.DataFrame({s: per[s].mean() for s in systems}).T.rename_axis("system")
    per_question = pd.concat(per, axis=1)
    comparisons = {(a, b): evaluation.compare_systems(runs, qrels, measure, a, b)
                   for a, b in COMPARED if a in runs and b in runs}
    kinds_of = {q.id: q.kind for q in bundled().questions}
    kind = per_question.index.map(lambda qid: kinds_of.get(qid, ""))
    kinds = pd.DataFrame({s: per[s][measure].groupby(kind).mean() for s in systems})
    kinds = kinds.reindex([k_ for k_ in KINDS if k_ in kinds.index])
    found_nothing = {s: sum(not runs[s].get(q.id) for q in bundled().questions) for s in systems}
    readings = _readings(pair, measure, per, kinds_of, kinds, found_nothing)
    return Overview(pair, k, measure, systems, table, per_question, comparisons, kinds,
                    tuple(readings), found_nothing)


Frozen = tuple[tuple[str, tuple[tuple[str, int], ...]], ...]


def freeze(learner: Mapping[str, Mapping[str, int]]) -> Frozen:
    """The learner's judgments as a hashable key (for ``cached_overview``)."""
    return tuple(sorted((qid, tuple(sorted(grades.items())))
                        for qid, grades in learner.items() if grades))


@lru_cache(maxsize=64)
def cached_overview(pair: str, k: int, weights: tuple[tuple[str, float], ...],
                    measure_key: str, learner: Frozen) -> Overview:
    """``overview`` shared by every session (a class asking for the same view computes it
    once); the result is read-only."""
    return overview(pair, k, dict(weights), measure_key,
                    {qid: dict(grades) for qid, grades in learner})


def signed(x: float, decimals: int = 3) -> str:
    return fmt_signed(x, decimals)


def p_text(p: float | None) -> str:
    return fmt_p(p, 3)


def _wins(per: Mapping[str, pd.DataFrame], measure: str, a: str, b: str,
          qids: Iterable[str]) -> tuple[int, int, int]:
    """Questions (of ``qids``) where ``a`` is better than ``b``, equal, worse."""
    qids = list(qids)
    delta = (per[a].loc[qids, measure] - per[b].loc[qids, measure]).to_numpy(float)
    return int((delta > TIE).sum()), int((np.abs(delta) <= TIE).sum()), int((delta < -TIE).sum())


def _readings(pair: str, measure: str, per: Mapping[str, pd.DataFrame],
              kinds_of: Mapping[str, str], kinds: pd.DataFrame,
              found_nothing: Mapping[str, int]) -> list[Reading]:
    """The reading by question kind, as text keys and the values they quote. Which sentence is
    used (``expected_held`` or ``expected_not``, ``ahead`` or ``level``) follows the numbers."""
    out: list[Reading] = []
    systems = list(per)
    if len(systems) < 2:
        return [Reading("bm25_only", {})]
    question_lang, corpus_lang = PAIRS[pair]
    if question_lang != corpus_lang:
        means = {s: float(per[s][measure].mean()) for s in systems}
        out.append(Reading("other_language", {
            "nothing": found_nothing.get("bm25", 0), "total": len(per["bm25"]),
            "bm25": means["bm25"], "dense": means["dense"], "hybrid": means.get("hybrid", 0.0),
            "measure": measure,
            "wins": _wins(per, measure, "dense", "bm25", per["bm25"].index)[0]}))
    for kind in kinds.index:
        qids = [q for q in per["bm25"].index if kinds_of.get(q) == kind]
        row = kinds.loc[kind]
        best = max(systems, key=lambda s: (row[s], -systems.index(s)))
        values = {"kind": kind, "n": len(qids), "measure": measure, "best": best,
                  "best_value": float(row[best]),
                  **{s: float(row[s]) for s in systems}}
        wins, ties, losses = _wins(per, measure, "bm25", "dense", qids)
        values.update(bm25_wins=wins, ties=ties, dense_wins=losses)
        if kind in EXPECTED:
            favoured, other = EXPECTED[kind]
            gap = float(row[favoured] - row[other])
            key = ("expected_held" if gap > TIE else "expected_level" if gap >= -TIE
                   else "expected_not")
            values.update(favoured=favoured, other=other, gap=abs(gap))
        else:
            tied = tuple(s for s in systems if abs(row[s] - row[best]) <= TIE)
            key = ("kind_level" if len(tied) == len(systems) else "kind_best" if len(tied) == 1
                   else "kind_best_tie")
            values["tied"] = tied
        out.append(Reading(key, values))
    return out


def ordered_deltas(comparison: metrics.Comparison, questions: Mapping[str, Question],
                   question_lang: str) -> pd.DataFrame:
    """Per-question deltas (B - A), regressions first (worst first), then ties, then wins
    (largest last): question id, kind, text, A, B, delta, outcome."""
    table = comparison.per_query.copy()
    rank = table["outcome"].map({"loss": 0, "tie": 1, "win": 2})
    table = table.assign(_rank=rank).sort_values(["_rank", "delta"], kind="stable")
    table["kind"] = [questions[q].kind if q in questions else "" for q in table.index]
    table["text"] = [questions[q].text[question_lang] if q in questions else ""
                     for q in table.index]
    return table[["kind", "text", "a", "b", "delta", "outcome"]]


_warm = threading.Lock()
_warmed = False


def warm_up() -> None:
    """Compute the bundled questions' full rankings on a background thread, once per process
    (~80 query vectors: the first all-questions view is then ready)."""
    global _warmed
    with _warm:
        if _warmed:
            return
        _warmed = True

    def run() -> None:
        for pair in PAIRS.values():
            full_rankings(*pair)

    threading.Thread(target=run, name="mizan-retrieve-warm-up", daemon=True).start()


# --- TREC files ---------------------------------------------------------------------------------


def run_file(run: Mapping[str, Sequence[Hit]], system: str) -> str:
    return evaluation.write_run(run, tag=f"mizan-{system}")


def qrels_file(qrels: Mapping[str, Mapping[str, int]]) -> str:
    return evaluation.write_qrels(qrels)


def learner_qrels(judged: Mapping[tuple[str, str], Mapping[str, int]], corpus_key: str
                  ) -> dict[str, dict[str, int]]:
    """The learner's judgments of one corpus: ``judged`` is keyed (corpus key, question id)."""
    return {qid: dict(grades) for (key, qid), grades in judged.items()
            if key == corpus_key and grades}


# --- your own corpus ----------------------------------------------------------------------------


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def parse(data: bytes, name: str, chunking: Chunking) -> Upload:
    """The uploaded file cut into passages (raises ``metrics.FormatError``, keyed)."""
    return parse_upload(data, name, chunking)


def error_message(err: metrics.FormatError, texts: Mapping[str, str],
                  words: Mapping[str, Mapping[str, str]], separator: str = ", ") -> str:
    """A refused upload in the page's language, as safe Markdown: the line first when known,
    then the problem with its values (anything from the file is escaped by ``fill``)."""
    values: dict[str, object] = {}
    for key, value in err.params.items():
        if key in ("size", "limit") and err.key in ("too_large", "too_large_unzipped"):
            values[key] = fmt_size(value, words["units"]["megabytes"],
                                   round_up=key == "size")
        elif key == "kind":
            values[key] = words.get("kinds", {}).get(str(value), str(value))
        elif key == "column":
            values[key] = words.get("columns", {}).get(str(value), str(value))
        elif isinstance(value, (list, tuple)):
            shown = [str(v) for v in value[:12]]
            values[key] = separator.join(shown) + (" …" if len(value) > 12 else "")
        else:
            values[key] = "" if value is None else value
    template = texts.get(err.key) or texts["unknown"]
    if err.line is not None:
        template = texts["at_line"] + " " + template
        values["line"] = err.line
    try:
        return fill(template, values)
    except KeyError:  # a parameter this key does not always carry
        return fill(texts["unknown"], {})


def own_runs_file(systems: Retrievers, questions: Mapping[str, str],
                  weights: Mapping[str, float] | None = None, depth: int = RUN_DEPTH) -> str:
    """The runs of every system on the learner's own questions, as one TREC file (the run tag
    names the system)."""
    runs: dict[str, dict[str, list[Hit]]] = {}
    for qid, text in questions.items():
        for system, hits in systems.search(text, depth, weights=weights).items():
            runs.setdefault(system, {})[qid] = hits
    return "".join(run_file(run, system) for system, run in runs.items())


def bm25_only(corpus: Corpus) -> Retrievers:
    """The corpus searchable at once by BM25 (~0.1 s for 1,000 passages); the dense index
    follows from a ``DenseJob``."""
    return Retrievers(corpus, BM25Index(corpus.ids, corpus.indexed_texts), None)


class DenseJob:
    """Embeds an upload's passages on a background thread, so the page stays usable (BM25 at
    once) while the dense index is built: ``done``/``total`` for the progress bar, ``vectors``
    when finished, ``error`` if the model failed, ``cancel()`` when the upload is replaced.

    Passages go to the model in slices of ``SLICE`` (``dense.embed_passages``, ``workers``
    threads: the model leaves the GIL), so a cancel stops within one slice; each is read up to
    ``max_tokens`` tokens (``dense.UPLOAD_MAX_TOKENS``: the cost is linear in the tokens)."""

    SLICE = 32

    def __init__(self, texts: Sequence[str], *, workers: int = 2,
                 max_tokens: int | None = dense.UPLOAD_MAX_TOKENS,
                 embed: Callable[..., np.ndarray] | None = None) -> None:
        self.texts = tuple(texts)
        self.max_tokens = max_tokens
        self.total = len(self.texts)
        self.done = 0
        self.cut = 0                     # passages embedded so far that were longer than the cap
        self.vectors: np.ndarray | None = None
        self.error: str | None = None
        self.started = time.monotonic()
        self.finished: float | None = None
        self._workers = workers
        self._embed = embed or functools.partial(dense.embed_passages, max_tokens=max_tokens)
        self._count_cut = embed is None and max_tokens is not None
        self._cancel = threading.Event()
        self._thread = threading.Thread(target=self._run, name="mizan-dense-index", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        out = np.empty((self.total, dense.DIM), np.float32)
        try:
            for start in range(0, self.total, self.SLICE):
                if self._cancel.is_set():
                    return
                part = self.texts[start:start + self.SLICE]
                out[start:start + len(part)] = self._embed(part, workers=self._workers)
                if self._count_cut:
                    self.cut += sum(dense.token_count(t) > self.max_tokens for t in part)
                self.done = start + len(part)
            self.vectors = out
        except Exception as err:  # the model could not run: the page keeps BM25
            self.error = f"{type(err).__name__}: {err}"
        finally:
            self.finished = time.monotonic()

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    @property
    def elapsed(self) -> float:
        return (self.finished or time.monotonic()) - self.started

    def remaining(self) -> float | None:
        """Seconds left at the pace so far (None before the first slice)."""
        if not self.done or self.finished is not None:
            return None
        return self.elapsed / self.done * (self.total - self.done)

    def cancel(self) -> None:
        self._cancel.set()

    def wait(self, timeout: float | None = None) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()


def with_dense(systems: Retrievers, vectors: np.ndarray) -> Retrievers:
    return replace(systems, dense=dense.DenseIndex(systems.corpus.ids, vectors))


def document_view(rankings: Mapping[str, Sequence[Hit]], qrels: Mapping[str, int],
                  documents: Mapping[str, str], k: int) -> dict[str, dict[str, float]]:
    """recall@k counted by passages and by documents (two chunks of one document count once)
    for each system: ``{system: {"passages": R@k, "documents": R@k}}``."""
    doc_qrels = evaluation.document_qrels(qrels, documents)
    out = {}
    for system, hits in rankings.items():
        docs = evaluation.to_documents(hits, documents)
        out[system] = {"passages": metrics.recall([h.id for h in hits], qrels, k),
                       "documents": metrics.recall([h.id for h in docs], doc_qrels, k)}
    return out


def merge_document_qrels(judged: Mapping[tuple[str, str], Mapping[str, int]],
                         documents: Mapping[str, Mapping[str, str]]) -> dict[str, dict[str, int]]:
    """Passage judgments made under several chunkings of one file (``judged``: (chunking key,
    question id) -> grades; ``documents``: chunking key -> passage -> document) as one set of
    document judgments per question, each document at its best judged chunk's grade."""
    out: dict[str, dict[str, int]] = {}
    for (key, qid), grades in judged.items():
        for doc, grade in evaluation.document_qrels(grades, documents.get(key, {})).items():
            mine = out.setdefault(qid, {})
            mine[doc] = max(mine.get(doc, grade), grade)
    return out


SWEEP = (("sentences", 1), ("sentences", 2), ("sentences", 3), ("sentences", 5),
         ("paragraph", 0))


def chunk_sweep(data: bytes, name: str, questions: Mapping[str, str],
                doc_qrels: Mapping[str, Mapping[str, int]], k: int) -> pd.DataFrame:
    """BM25's mean document recall@k over the learner's questions for each way of chunking the
    same file (documents stay the same, so document judgments carry over): passages made,
    mean passages per document, mean recall@k by documents. Chunkings the file refuses (too
    many passages) are left out."""
    rows = []
    for mode, size in SWEEP:
        try:
            corpus = parse(data, name, Chunking(mode, size or 1)).corpus
        except metrics.FormatError:
            continue
        index = BM25Index(corpus.ids, corpus.indexed_texts)
        documents = corpus.documents
        recalls = []
        for qid, text in questions.items():
            judged = doc_qrels.get(qid, {})
            hits = index.search(text)
            docs = [h.id for h in evaluation.to_documents(hits, documents)]
            recalls.append(metrics.recall(docs, judged, k))
        rows.append({"mode": mode, "size": size, "passages": len(corpus),
                     "per_document": len(corpus) / max(1, len(set(documents.values()))),
                     "recall": float(np.mean(recalls)) if recalls else math.nan})
    return pd.DataFrame(rows)

