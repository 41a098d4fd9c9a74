"""Lesson 6's plain functions: the walkthrough's scenario, each step's check, the numbers.

No Streamlit here: the page calls these and the tests call them directly. Retrieval numbers come
from ``metrics.evaluate`` (per question, then the mean over questions: mean recall@k and MRR@k);
faithfulness from ``metrics.support.supported_share`` over the scenario's own support labels (a
real checker is lesson 4's business). This module arranges results and checks the learner's
answers against the scenario's answer key.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import metrics
from metrics.support import supported_share
from teaching import mistakes

STEPS = (1, 2, 3, 4)
FIXES = ("retrieval", "prompt", "more_chunks", "bigger_model", "nothing")
RIGHT_FIX = "retrieval"
TOLERANCE = 0.005     # two decimals are enough
MAX_SEED = 10**9


# --- the scenario -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Doc:
    id: str
    title: str
    text: str


@dataclass(frozen=True)
class Sentence:
    text: str
    support: str            # id of the retrieved document that supports it, "" if none
    note: str = ""          # why (shown when the learner judges it wrongly)


@dataclass(frozen=True)
class Question:
    id: str
    text: str
    golden: tuple[str, ...]
    retrieved: tuple[str, ...]
    sentences: tuple[Sentence, ...]
    traps: Mapping[str, str]    # doc id -> why it does not answer, though it looks like it might

    @property
    def supported(self) -> frozenset[int]:
        """1-based numbers of the sentences the retrieved documents support."""
        return frozenset(i for i, s in enumerate(self.sentences, start=1)
                         if s.support and s.support in self.retrieved)


@dataclass(frozen=True)
class Scenario:
    k: int
    docs: tuple[Doc, ...]
    questions: tuple[Question, ...]

    @functools.cached_property
    def key_table(self) -> RetrievalTable:
        """Retrieval measured against the answer key (computed once per scenario)."""
        return _retrieval_table(self, self.qrels)

    def doc(self, doc_id: str) -> Doc:
        return next(d for d in self.docs if d.id == doc_id)

    @property
    def run(self) -> dict[str, list[str]]:
        return {q.id: list(q.retrieved) for q in self.questions}

    @property
    def qrels(self) -> dict[str, dict[str, int]]:
        return qrels_of(self, [frozenset(self.doc_numbers(q.golden)) for q in self.questions])

    def doc_numbers(self, ids: Iterable[str]) -> list[int]:
        order = [d.id for d in self.docs]
        return sorted(order.index(i) + 1 for i in ids)

    def doc_ids(self, numbers: Iterable[int]) -> list[str]:
        return [self.docs[n - 1].id for n in sorted(numbers)]


def scenario(content: Mapping) -> Scenario:
    raw = content["scenario"]
    return Scenario(
        k=int(raw["k"]),
        docs=tuple(Doc(d["id"], d["title"], d["text"]) for d in raw["docs"]),
        questions=tuple(
            Question(q["id"], q["text"], tuple(q["golden"]), tuple(q["retrieved"]),
                     tuple(Sentence(s["text"], s.get("support", ""), s.get("note", ""))
                           for s in q["sentences"]),
                     dict(q.get("traps", {})))
            for q in raw["questions"]))


def qrels_of(sc: Scenario, labels: Sequence[frozenset[int]]) -> dict[str, dict[str, int]]:
    """Judgments from labels (document numbers per question): every document of the corpus is
    judged, 1 if labelled as answering the question, 0 otherwise (so a question with no label
    stays in the table and scores 0)."""
    return {q.id: {d.id: int(n in chosen) for n, d in enumerate(sc.docs, start=1)}
            for q, chosen in zip(sc.questions, labels, strict=True)}


# --- URL encodings -----------------------------------------------------------------------------
# Groups of small numbers, one group per question: "1-_-56-8-7" ("_" = an empty group).


def encode_groups(groups: Sequence[Iterable[int]]) -> str:
    return "-".join("".join(str(n) for n in sorted(g)) or "_" for g in groups)


def parse_groups(raw: str, n_groups: int, sizes: Sequence[int]) -> tuple[frozenset[int], ...]:
    parts = raw.split("-")
    if len(parts) != n_groups:
        raise ValueError(raw)
    out = []
    for part, size in zip(parts, sizes, strict=True):
        if part == "_":
            out.append(frozenset())
            continue
        if not re.fullmatch(r"[1-9]+", part) or len(set(part)) != len(part):
            raise ValueError(raw)
        numbers = frozenset(int(ch) for ch in part)
        if max(numbers) > size:
            raise ValueError(raw)
        out.append(numbers)
    return tuple(out)


def encode_set(numbers: Iterable[int]) -> str:
    return "".join(str(n) for n in sorted(numbers))


def parse_set(raw: str, size: int) -> frozenset[int]:
    if not re.fullmatch(r"[1-9]*", raw) or len(set(raw)) != len(raw):
        raise ValueError(raw)
    numbers = frozenset(int(ch) for ch in raw)
    if numbers and max(numbers) > size:
        raise ValueError(raw)
    return numbers


def reached(checked: frozenset[int]) -> int:
    """The furthest step open: one past the run of checked steps from step 1."""
    step = 1
    while step in checked and step < len(STEPS):
        step += 1
    return step


# --- step 1: label the golden set ----------------------------------------------------------------


@dataclass(frozen=True)
class LabelCheck:
    question: str
    missing: tuple[str, ...]     # answer-key documents the learner did not mark
    extra: tuple[str, ...]       # documents marked that do not answer the question

    @property
    def right(self) -> bool:
        return not self.missing and not self.extra


def check_labels(sc: Scenario, labels: Sequence[frozenset[int]]) -> list[LabelCheck]:
    out = []
    for q, chosen in zip(sc.questions, labels, strict=True):
        marked = set(sc.doc_ids(chosen))
        out.append(LabelCheck(q.id, tuple(d for d in q.golden if d not in marked),
                              tuple(d for d in sc.doc_ids(chosen) if d not in q.golden)))
    return out


def answer_key_labels(sc: Scenario) -> tuple[frozenset[int], ...]:
    return tuple(frozenset(sc.doc_numbers(q.golden)) for q in sc.questions)


# --- step 2: measure retrieval --------------------------------------------------------------------


@dataclass(frozen=True)
class RetrievalRow:
    question: str
    recall: float
    rr: float
    missing: tuple[str, ...]     # golden documents not in the top k

    @property
    def failed(self) -> bool:
        return self.recall < 1


@dataclass(frozen=True)
class RetrievalTable:
    k: int
    rows: tuple[RetrievalRow, ...]
    mean_recall: float
    mrr: float

    @property
    def failing(self) -> frozenset[str]:
        return frozenset(r.question for r in self.rows if r.failed)


def retrieval_table(sc: Scenario, qrels: Mapping[str, Mapping[str, int]] | None = None
                    ) -> RetrievalTable:
    """Per-question recall@k and RR@k from ``metrics.evaluate``, and their means (mean recall@k
    and MRR@k), against the answer key or against ``qrels`` (the learner's labels)."""
    return sc.key_table if qrels is None else _retrieval_table(sc, qrels)


def _retrieval_table(sc: Scenario, qrels: Mapping[str, Mapping[str, int]]) -> RetrievalTable:
    recall_name, rr_name = f"R@{sc.k}", f"RR@{sc.k}"
    table = _evaluate(tuple((q, tuple(r)) for q, r in sc.run.items()),
                      tuple((q, tuple(sorted(j.items()))) for q, j in qrels.items()), sc.k)
    rows = tuple(
        RetrievalRow(q.id, float(table.at[q.id, recall_name]), float(table.at[q.id, rr_name]),
                     tuple(d for d, g in qrels[q.id].items()
                           if g >= 1 and d not in q.retrieved[:sc.k]))
        for q in sc.questions)
    means = table.mean()
    return RetrievalTable(sc.k, rows, float(means[recall_name]), float(means[rr_name]))


@functools.lru_cache(maxsize=64)
def _evaluate(run: tuple, qrels: tuple, k: int):
    """``metrics.evaluate`` for recall@k and RR@k, cached: a learner flipping between two sets of
    labels costs one table each, not one per rerun. Never mutate the result."""
    return metrics.evaluate({q: list(r) for q, r in run}, {q: dict(j) for q, j in qrels},
                            [f"R@{k}", f"RR@{k}"])


@dataclass(frozen=True)
class SetCheck:
    missed: tuple[str, ...]      # should have been picked
    extra: tuple[str, ...]       # picked, but should not have been

    @property
    def right(self) -> bool:
        return not self.missed and not self.extra


def check_failing(sc: Scenario, picked: frozenset[int]) -> SetCheck:
    """The learner's "retrieval failed on these questions" against the key (recall@k < 1)."""
    failing = retrieval_table(sc).failing
    chosen = {sc.questions[n - 1].id for n in picked}
    order = [q.id for q in sc.questions]
    return SetCheck(tuple(q for q in order if q in failing and q not in chosen),
                    tuple(q for q in order if q in chosen and q not in failing))


# --- step 3: faithfulness -------------------------------------------------------------------------


@dataclass(frozen=True)
class FaithRow:
    question: str
    supported: int
    sentences: int
    faithfulness: float
    retrieval_ok: bool


@dataclass(frozen=True)
class FaithTable:
    rows: tuple[FaithRow, ...]
    mean_all: float              # over every question
    mean_retrieved: float        # over the questions whose retrieval succeeded
    mean_failed: float           # over the questions whose retrieval failed


def faithfulness_table(sc: Scenario) -> FaithTable:
    failing = retrieval_table(sc).failing
    rows = []
    for q in sc.questions:
        flags = [i in q.supported for i in range(1, len(q.sentences) + 1)]
        rows.append(FaithRow(q.id, sum(flags), len(flags), supported_share(flags) or 0.0,
                             q.id not in failing))
    ok = [r.faithfulness for r in rows if r.retrieval_ok]
    failed = [r.faithfulness for r in rows if not r.retrieval_ok]
    return FaithTable(tuple(rows), _mean([r.faithfulness for r in rows]), _mean(ok),
                      _mean(failed))


def _mean(values: Sequence[float]) -> float:
    """The mean of per-question values (the same averaging ``metrics.evaluate`` does)."""
    return float(sum(values) / len(values)) if values else 0.0


def check_support(sc: Scenario, picked: Sequence[frozenset[int]]
                  ) -> list[tuple[str, tuple[int, ...]]]:
    """Per question, the sentence numbers the learner judged wrongly (marked supported when no
    retrieved document supports them, or left unmarked when one does)."""
    return [(q.id, tuple(sorted(q.supported ^ chosen)))
            for q, chosen in zip(sc.questions, picked, strict=True)]


# --- the worked example: the walkthrough's handbook, every number of its answer key ------------


def worked_values(sc: Scenario) -> dict[str, float]:
    """Per question, recall@k and RR@k against the answer key, the supported sentences and the
    faithfulness of its answer; then mean recall@k, MRR@k, and mean faithfulness over all the
    questions, over those whose retrieval worked and over those where it failed."""
    retrieval, faith = retrieval_table(sc), faithfulness_table(sc)
    values: dict[str, float] = {}
    for r, f in zip(retrieval.rows, faith.rows, strict=True):
        values |= {f"{r.question}_recall": r.recall, f"{r.question}_rr": r.rr,
                   f"{r.question}_supported": f.supported, f"{r.question}_sentences": f.sentences,
                   f"{r.question}_faith": f.faithfulness}
    return values | {"mean_recall": retrieval.mean_recall, "mrr": retrieval.mrr,
                     "faith_all": faith.mean_all, "faith_ok": faith.mean_retrieved,
                     "faith_failed": faith.mean_failed}


# --- the exercise: a generated golden set and run -------------------------------------------------


@dataclass(frozen=True)
class RetrievalExercise:
    seed: int
    k: int
    golden: tuple[tuple[str, ...], ...]      # per question
    rankings: tuple[tuple[str, ...], ...]    # per question, top k

    @property
    def ids(self) -> list[str]:
        return [f"q{i}" for i in range(1, len(self.golden) + 1)]

    @functools.cached_property
    def table(self):
        """Per-question recall@k, precision@k, HitRate@k from ``metrics.evaluate``."""
        run = {q: list(r) for q, r in zip(self.ids, self.rankings, strict=True)}
        qrels = {q: dict.fromkeys(g, 1) for q, g in zip(self.ids, self.golden, strict=True)}
        return metrics.evaluate(run, qrels, [f"R@{self.k}", f"P@{self.k}", f"HitRate@{self.k}"])

    @property
    def recalls(self) -> list[float]:
        return [float(v) for v in self.table[f"R@{self.k}"]]

    @property
    def answer(self) -> float:
        return float(self.table[f"R@{self.k}"].mean())

    @property
    def failing(self) -> frozenset[str]:
        return frozenset(q for q, r in zip(self.ids, self.recalls, strict=True) if r < 1)

    @property
    def questions(self) -> list[tuple[list[str], set[str]]]:
        return [(list(r), set(g)) for r, g in zip(self.rankings, self.golden, strict=True)]

    def mistakes(self) -> dict[str, float | None]:
        """Wrong ways to average recall@k over the questions (the mistake catalogue's, in the
        order they are tried): pooled, the mean HitRate@k, the mean precision@k, the mean
        without the failures."""
        found = mistakes.mean_mistake_values("recall", self.questions, self.k)
        return {key: values[0] if values else None for key, values in found.items()}

    def check_mean(self, answer: float, tolerance: float = TOLERANCE) -> str:
        """``"correct"``, the mistake of the catalogue that gives ``answer``,
        ``"percent_not_fraction"`` or ``"wrong_unknown"``."""
        return mistakes.diagnose_mean("recall", self.questions, answer, tolerance, k=self.k)

    def failing_feedback(self, picked: Iterable[str]) -> list[tuple[str, str]]:
        """(question, feedback key) for each question the learner got wrong."""
        picked = set(picked)
        out = []
        for q, ranking, golden, recall in zip(self.ids, self.rankings, self.golden,
                                              self.recalls, strict=True):
            ranks = metrics.rank.relevant_ranks(list(ranking), set(golden), self.k)
            if q in picked and recall == 1:
                out.append((q, "flagged_low_rank" if ranks[0] > 1 else "flagged_full"))
            elif q not in picked and recall < 1:
                out.append((q, "missed_partial" if ranks else "missed_none"))
        return out

    def facts(self, q: str) -> dict[str, object]:
        i = self.ids.index(q)
        ranking, golden = list(self.rankings[i]), set(self.golden[i])
        ranks = metrics.rank.relevant_ranks(ranking, golden, self.k)
        return {"q": q, "k": self.k, "hits": len(ranks), "R": len(golden),
                "first_rank": ranks[0] if ranks else 0, "recall": round(self.recalls[i], 2),
                "missing": [d for d in self.golden[i] if d not in ranking]}


def _doc_number(doc: str) -> int:
    return int(doc[1:])


@functools.lru_cache(maxsize=128)
def retrieval_exercise(seed: int) -> RetrievalExercise:
    """Four questions, top 3 each, with 1 to 3 golden documents: at least one question where
    retrieval fails and one where it doesn't, at least one partial miss (so the mean HitRate@3
    differs from the mean recall@3), at least one full hit whose first golden document
    sits below rank 1 (the trap), and at least two wrong ways of averaging that give a number
    different from the right one, none of them ambiguously close to it (the rule of every
    generated exercise). The same seed always gives the same exercise."""
    rng = random.Random(seed)
    k = 3
    while True:
        golden, rankings, recalls, low_rank_full = [], [], [], False
        for _ in range(4):
            docs = [f"d{n}" for n in rng.sample(range(1, 16), 6)]
            gold = docs[:rng.choice((1, 1, 2, 2, 3))]
            others = docs[len(gold):]
            kept = gold[:rng.randint(0, len(gold))] if rng.random() < 0.45 else list(gold)
            ranking = kept + others[:k - len(kept)]
            rng.shuffle(ranking)
            ranks = metrics.rank.relevant_ranks(ranking, set(gold), k)
            recalls.append(metrics.recall(ranking, set(gold), k))
            low_rank_full |= recalls[-1] == 1 and ranks[0] > 1
            golden.append(tuple(sorted(gold, key=_doc_number)))
            rankings.append(tuple(ranking))
        # a partial miss (some golden documents in, not all) keeps recall@3 apart from
        # HitRate@3: without one, averaging "did anything arrive?" is marked right
        if not (1 <= sum(r < 1 for r in recalls) <= 3 and low_rank_full
                and any(0 < r < 1 for r in recalls)):
            continue
        ex = RetrievalExercise(seed, k, tuple(golden), tuple(rankings))
        right, wrong = ex.answer, mistakes.mean_mistake_values("recall", ex.questions, k)
        distinct = sum(any(abs(v - right) > 0.01 for v in vs) for vs in wrong.values())
        if distinct >= 2 and mistakes.unambiguous(right, wrong, TOLERANCE):
            return ex
