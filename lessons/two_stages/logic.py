"""Lesson 1's plain functions: the "which stage failed?" cases, their numbers, the exercise.

No Streamlit here: the page calls these and the tests call them directly. Every number comes from
``metrics`` (recall@k and RR from the ranking and the golden documents, faithfulness as the share
of answer sentences the retrieved chunks support, from the case's own support labels); this module
only arranges the results and applies the lesson's rule: look at retrieval first, then at
generation.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import metrics
from metrics.support import supported_share
from teaching import mistakes
from text import bidi
from text.i18n import Markup, fill

# The four answers of the sorter, in the order the rule checks them. One letter each in the URL.
VERDICTS = ("retrieval", "ignored", "invented", "nothing")
LETTERS = {"retrieval": "r", "ignored": "g", "invented": "v", "nothing": "n"}
UNANSWERED = "_"
MAX_SEED = 10**9
TOLERANCE = 0.005     # two decimals are enough
DIAGRAM = Path(__file__).resolve().parents[2] / "assets" / "diagrams" / "two_stages.svg"


# --- the cases ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Sentence:
    text: str
    support: str | None    # id of the retrieved chunk that supports it; "" none; None no claim


@dataclass(frozen=True)
class Case:
    """One small RAG run: a question, the golden documents (which hold the answer), the chunks
    retrieval returned in rank order, and the answer split into sentences with their support."""

    id: str
    verdict: str
    question: str
    golden: tuple[str, ...]
    retrieved: tuple[tuple[str, str], ...]   # (id, text) in rank order
    sentences: tuple[Sentence, ...]
    golden_note: str = ""
    reason: str = ""

    @property
    def ranking(self) -> list[str]:
        return [doc for doc, _ in self.retrieved]

    @property
    def k(self) -> int:
        return len(self.retrieved)


def cases(content: Mapping) -> list[Case]:
    """The sorter's cases from a parsed content file (``content["try_it"]["cases"]``)."""
    return [case_from(raw) for raw in content["try_it"]["cases"]]


def case_from(raw: Mapping) -> Case:
    return Case(
        id=raw["id"], verdict=raw["verdict"], question=raw["question"],
        golden=tuple(raw["golden"]),
        retrieved=tuple((c["id"], c["text"]) for c in raw["retrieved"]),
        sentences=tuple(Sentence(s["text"], s.get("support", "") if s.get("claim", True) else None)
                        for s in raw["sentences"]),
        golden_note=raw.get("golden_note", ""), reason=raw.get("reason", ""))


@dataclass(frozen=True)
class Numbers:
    """What the two stages' measures say about one case."""

    k: int
    recall: float            # recall@k: share of the golden documents in the top k
    rr: float                # RR@k: 1 / rank of the first golden document in the top k (0 if none)
    first_rank: int | None   # rank of the first golden document
    faithfulness: float      # share of answer sentences the retrieved chunks support
    uses_golden: float       # share of answer sentences backed by a golden chunk
    hits: int                # golden documents in the top k
    R: int                   # golden documents
    supported: int           # answer sentences supported
    sentences: int           # answer sentences that make a claim (the scored ones)
    on_golden: int           # answer sentences a golden chunk supports
    missing: tuple[str, ...]      # golden documents not retrieved
    unused: tuple[str, ...]       # golden documents retrieved that no supported sentence rests on
    unsupported: tuple[int, ...]  # 1-based numbers of the unsupported sentences


def numbers(ranking: Sequence[str], golden: Sequence[str],
            supports: Sequence[str | None]) -> Numbers:
    """The measures of one run. ``supports``: per answer sentence, the id of the retrieved chunk
    that supports it, "" when none does, None when the sentence makes no claim (not scored)."""
    ranking, golden_set, k = list(ranking), set(golden), len(ranking)
    flags = [None if s is None else bool(s) and s in ranking for s in supports]
    on_golden = [None if f is None else f and s in golden_set
                 for f, s in zip(flags, supports, strict=True)]
    return Numbers(
        k=k, recall=metrics.recall(ranking, golden_set, k),
        rr=metrics.reciprocal_rank(ranking, golden_set, k),
        first_rank=next(iter(metrics.rank.relevant_ranks(ranking, golden_set)), None),
        faithfulness=_share(flags), uses_golden=_share(on_golden),
        hits=metrics.binary.hits_at(ranking, golden_set, k),
        R=metrics.binary.num_relevant(golden_set),
        supported=sum(f is True for f in flags), sentences=sum(f is not None for f in flags),
        on_golden=sum(f is True for f in on_golden),
        missing=tuple(d for d in golden if d not in ranking),
        unused=tuple(d for d in golden if d in ranking and not any(
            f and s == d for f, s in zip(flags, supports, strict=True))),
        unsupported=tuple(i for i, f in enumerate(flags, start=1) if f is False))


def _share(flags: Sequence[bool | None]) -> float:
    """``metrics.support.supported_share``; an answer with no claim at all scores 0."""
    share = supported_share(flags)
    return 0.0 if share is None else share


def case_numbers(case: Case) -> Numbers:
    return numbers(case.ranking, case.golden, [s.support for s in case.sentences])


def verdict_of(n: Numbers) -> str:
    """The lesson's rule, in order: retrieval first (did every golden document reach the
    model?), then generation (does a sentence rest on every golden chunk? is every sentence
    supported?). Each golden document holds a part of the answer, so one left unused is
    ignored, as one left out by retrieval is missed."""
    if n.recall < 1:
        return "retrieval"
    if n.unused:
        return "ignored"
    if n.faithfulness < 1:
        return "invented"
    return "nothing"


# --- the sorter's progress (one letter per case in the URL) --------------------------------


def parse_picks(raw: str, n_cases: int) -> str:
    allowed = set(LETTERS.values()) | {UNANSWERED}
    if len(raw) != n_cases or not set(raw) <= allowed:
        raise ValueError(raw)
    return raw


def pick_of(picks: str, index: int) -> str | None:
    letter = picks[index]
    return next((v for v, x in LETTERS.items() if x == letter), None)


def with_pick(picks: str, index: int, verdict: str | None) -> str:
    letter = LETTERS[verdict] if verdict else UNANSWERED
    return picks[:index] + letter + picks[index + 1:]


@dataclass(frozen=True)
class Score:
    right: int
    answered: int
    total: int


def score(picks: str, all_cases: Sequence[Case]) -> Score:
    answered = [(pick_of(picks, i), c.verdict) for i, c in enumerate(all_cases)
                if pick_of(picks, i)]
    return Score(right=sum(p == v for p, v in answered), answered=len(answered),
                 total=len(all_cases))


# --- the worked example ----------------------------------------------------------------------

# The seed's annual-leave example: one golden document, three chunks, a three-sentence answer
# whose third sentence (cashing out the balance) has no source.
WORKED_RANKING = ("d3", "d8", "d1")
WORKED_GOLDEN = ("d3",)
WORKED_SUPPORTS = ("d3", "d3", "")
# The same question when retrieval misses d3 and the model still writes "21 days".
MISSED_RANKING = ("d8", "d1", "d9")
MISSED_SUPPORTS = ("",)


def worked_values() -> dict[str, float]:
    seed = numbers(WORKED_RANKING, WORKED_GOLDEN, WORKED_SUPPORTS)
    missed = numbers(MISSED_RANKING, WORKED_GOLDEN, MISSED_SUPPORTS)
    return {"recall": seed.recall, "rr": seed.rr, "faithfulness": seed.faithfulness,
            "missed_recall": missed.recall, "missed_faithfulness": missed.faithfulness}


# --- the diagram -----------------------------------------------------------------------------


@functools.lru_cache(maxsize=4)
def _diagram_template(_mtime_ns: int) -> str:
    return _compact(DIAGRAM.read_text(encoding="utf-8"))


def diagram_svg(words: Mapping[str, str], lang: str) -> str:
    """The hand-drawn pipeline diagram with its text from the content file: every string is
    escaped for XML and its opposite-direction runs isolated, so the Arabic SVG reads right to
    left with ``recall@k`` intact."""
    template = _diagram_template(DIAGRAM.stat().st_mtime_ns)
    values = {name: Markup(bidi.isolate(bidi.escape_html(text), lang))
              for name, text in words.items()}
    values.update(dir=Markup("rtl" if lang == "ar" else "ltr"), lang=Markup(lang))
    return fill(template, values)


def _compact(svg: str) -> str:
    """One line, no comments: Markdown would end an HTML block at a blank line and turn
    indented lines into code."""
    svg = re.sub(r"<!--.*?-->", "", svg, flags=re.S)
    return " ".join(line.strip() for line in svg.splitlines() if line.strip())


# --- the exercise: a generated case ----------------------------------------------------------


@dataclass(frozen=True)
class StageExercise:
    seed: int
    ranking: tuple[str, ...]
    golden: tuple[str, ...]
    supports: tuple[str, ...]          # per answer sentence: supporting chunk id or ""

    @property
    def numbers(self) -> Numbers:
        return numbers(self.ranking, self.golden, self.supports)

    @property
    def verdict(self) -> str:
        return verdict_of(self.numbers)

    def check_faithfulness(self, answer: float, tolerance: float = TOLERANCE) -> str:
        """``"correct"``, the mistake of the catalogue that gives ``answer``,
        ``"percent_not_fraction"`` or ``"wrong_unknown"``."""
        return mistakes.diagnose_sentences(sentences_of(self.numbers), answer, tolerance)


def sentences_of(n: Numbers) -> mistakes.Sentences:
    return mistakes.Sentences(n.supported, n.sentences, n.on_golden, n.k)


def faithfulness_mistakes(n: Numbers) -> dict[str, float | None]:
    """Wrong ways to get faithfulness (the mistake catalogue's), in the order they are tried."""
    found = mistakes.sentence_mistake_values(sentences_of(n))
    return {key: values[0] if values else None for key, values in found.items()}


def stage_exercise(seed: int) -> StageExercise:
    """A fresh case whose verdict is one of the four, drawn evenly, with 3–5 chunks and 2–4
    answer sentences, and no wrong formula of its faithfulness ambiguously close to the right
    one (the rule of every generated exercise). The same seed always gives the same case (a
    shareable link)."""
    rng = random.Random(seed)
    while True:
        verdict = rng.choice(VERDICTS)
        k = rng.randint(3, 5)
        docs = [f"d{n}" for n in rng.sample(range(1, 13), k + 2)]
        golden = sorted(rng.sample(docs, rng.choice((1, 1, 2))), key=_number)
        others = [d for d in docs if d not in golden]
        if verdict == "retrieval":
            kept = golden[:-1] if len(golden) > 1 and rng.random() < 0.6 else []
            ranking = kept + others[:k - len(kept)]
        else:
            ranking = golden + others[:k - len(golden)]
        rng.shuffle(ranking)
        retrieved_golden = [d for d in ranking if d in golden]
        retrieved_other = [d for d in ranking if d not in golden]
        n_sentences = rng.randint(2, 4)
        if verdict == "nothing":
            # every golden chunk carries a sentence: an answer that leaves one unused leaves
            # out what it says (lesson 1 counts a golden document missed by retrieval as a
            # failure; one ignored by generation is no success either)
            supports = retrieved_golden + [
                rng.choice(retrieved_golden if rng.random() < 0.6 else retrieved_other)
                for _ in range(n_sentences - len(retrieved_golden))]
        elif verdict == "invented":
            # every golden chunk used (else it is "ignored"), and one sentence no chunk supports
            if n_sentences <= len(retrieved_golden):
                continue
            supports = retrieved_golden + [
                rng.choice(retrieved_golden + retrieved_other) if rng.random() < 0.4 else ""
                for _ in range(n_sentences - len(retrieved_golden))]
            supports[rng.randrange(len(retrieved_golden), n_sentences)] = ""
        elif verdict == "ignored":
            # no golden chunk used, or (two golden) one used and the other left out
            supports = [rng.choice(retrieved_other) if rng.random() < 0.75 else ""
                        for _ in range(n_sentences)]
            if len(retrieved_golden) == 2 and rng.random() < 0.5:
                supports[0] = rng.choice(retrieved_golden)
        else:
            pool = retrieved_golden + retrieved_other
            supports = [rng.choice(pool) if rng.random() < 0.5 else ""
                        for _ in range(n_sentences)]
        rng.shuffle(supports)
        case = StageExercise(seed, tuple(ranking), tuple(golden), tuple(supports))
        n = case.numbers
        wrong = mistakes.sentence_mistake_values(sentences_of(n))
        if case.verdict == verdict and mistakes.unambiguous(n.faithfulness, wrong, TOLERANCE):
            return case


def stage_feedback(picked: str, ex: StageExercise) -> str:
    """The feedback key for a verdict the learner picked: ``"stage_correct"`` or the slip it
    shows, judged in the lesson's order (retrieval before generation)."""
    right = ex.verdict
    if picked == right:
        return "stage_correct"
    if right == "retrieval":
        return "stage_missed_retrieval"
    if picked == "retrieval":
        return "stage_blamed_retrieval"
    if right == "ignored":
        return "stage_missed_ignored"
    if picked == "ignored":
        return "stage_not_ignored"
    if right == "invented":
        return "stage_missed_invention"
    return "stage_not_invented"


def _number(doc: str) -> int:
    return int(doc[1:])


def exercise_facts(ex: StageExercise, sep: str = ", ") -> dict[str, object]:
    """The values the exercise's feedback texts quote (``sep`` joins lists)."""
    n = ex.numbers
    return {"k": n.k, "R": n.R, "hits": n.hits, "supported": n.supported,
            "sentences": n.sentences, "scored": n.sentences, "answer": round(n.faithfulness, 2),
            "recall": round(n.recall, 2),
            "missing": sep.join(n.missing) or "—",
            "unused": sep.join(n.unused) or "—",
            "unsupported": sep.join(str(i) for i in n.unsupported) or "—",
            "golden": sep.join(ex.golden)}
