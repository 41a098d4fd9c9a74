"""Lesson 3's public link: how another page (the lab, home) opens /mrr on questions of its own.
The only module of this lesson another one may import.

The lesson holds five questions over the documents d1…d9, two systems ("vector" and "hybrid")
and one question in focus. The URL keys are public (links and QR codes are in circulation):
readable names map to them in :data:`KEYS`, the page reads exactly :data:`FIELDS`, and
:func:`link` writes them.

**One question of the reader's own** (the lab's "explain this number"): the rankings and the
golden set hold one question instead of five, and :class:`Labels` (URL key ``o``) gives the
names the page shows — the reader's query id, her two runs' names, and her document ids for
the slots d1, d2, … the rankings are written in. The page's editor and toggles work on the
slots as always; only the names shown change, so every link written before stays valid.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from metrics.rank import AP_NORMS
from runtime.url_codec import Field, choice_field, decode_ranking, encode_ranking, int_field
from teaching import scenarios

__all__ = ["COMPARE_ON", "FIELDS", "FOLDER", "KEYS", "MAX_LABEL_CHARS", "POOL",
           "QUESTIONS", "SEED", "SYSTEMS", "Labels", "Runs", "Scenario", "encode_labels",
           "encode_runs", "link", "one_question", "parse_labels", "parse_runs"]

FOLDER = "mrr"
SEED = scenarios.MRR                                   # the seed text's five questions
QUESTIONS = SEED.questions
SYSTEMS = ("vector", "hybrid")
POOL = tuple(f"d{i}" for i in range(1, 10))            # the documents a ranking can hold
COMPARE_ON = ("rr", "recall", "ap")                    # measures the comparison can be on
MAX_LABEL_CHARS = 40     # the longest name (document id, query id, run name) a link may show

Ranking = tuple[str, ...]
Runs = tuple[Ranking, ...]   # one ranking (or golden set) per question, in QUESTIONS order


def _doc_number(doc: str) -> int:
    return int(doc[1:])


def encode_runs(runs: Sequence[Sequence[str]]) -> str:
    """``(("d1", "d3"), ("d5",))`` → ``"d1-d3.d5"`` (ids come from :data:`POOL`: URL-safe)."""
    return ".".join("-".join(ranking) for ranking in runs)


def parse_runs(raw: str, *, golden: bool = False, n: int | tuple[int, ...] = len(QUESTIONS)
               ) -> Runs:
    """Inverse of :func:`encode_runs`; raises ``ValueError`` on anything else: a number of
    questions other than ``n`` (or one of them), an id outside :data:`POOL`, a duplicate, an
    empty ranking. Golden sets come back sorted (their order means nothing)."""
    if len(raw) > 400:
        raise ValueError("too long")
    parts = raw.split(".")
    if len(parts) not in (n if isinstance(n, tuple) else (n,)):
        raise ValueError("wrong number of questions")
    out = []
    for part in parts:
        docs = part.split("-")
        if not part or len(set(docs)) != len(docs) or not set(docs) <= set(POOL):
            raise ValueError(f"bad ranking {part!r}")
        out.append(tuple(sorted(docs, key=_doc_number)) if golden else tuple(docs))
    return tuple(out)


def _runs_field(default: Runs, *, golden: bool = False) -> Field:
    """Five questions (the lesson's), or one (a question of the reader's own: :class:`Labels`)."""
    return Field(default, lambda raw: parse_runs(raw, golden=golden, n=(len(QUESTIONS), 1)),
                 encode_runs)


@dataclass(frozen=True)
class Labels:
    """What the page calls one question of the reader's own: her query id, her two runs (the
    lesson's "vector" and "hybrid" columns) and her document ids, ``docs[i]`` for slot
    ``d{i+1}``. Every name is 1..:data:`MAX_LABEL_CHARS` characters; document ids are unique."""

    question: str
    systems: tuple[str, str]
    docs: tuple[str, ...]

    def doc(self, slot: str) -> str:
        """The reader's id of the document in slot ``slot`` (``"d3"`` -> ``docs[2]``)."""
        return self.docs[_doc_number(slot) - 1]

    @property
    def pool(self) -> tuple[str, ...]:
        """The slots that hold one of her documents: d1 .. d{len(docs)}."""
        return POOL[:len(self.docs)]


def encode_labels(labels: Labels | None) -> str:
    """``query.runA.runB.doc1-doc2-…``, each name escaped (``runtime.url_codec``: only
    ``A-Za-z0-9_~`` remain, so ``.`` and ``-`` separate); ``""`` for the lesson's own."""
    if labels is None:
        return ""
    names = [encode_ranking([name]) for name in (labels.question, *labels.systems)]
    return ".".join([*names, encode_ranking(labels.docs)])


def _names(part: str, most: int) -> list[str]:
    items = decode_ranking(part, max_items=most, max_id_chars=MAX_LABEL_CHARS)
    if not items or any(grade is not None for _, grade in items):
        raise ValueError(f"bad names {part!r}")
    return [name for name, _ in items]


def parse_labels(raw: str) -> Labels | None:
    """Inverse of :func:`encode_labels`; ``ValueError`` on a malformed, over-long or
    duplicated name, or more documents than :data:`POOL` has slots."""
    if raw == "":
        return None
    parts = raw.split(".")
    if len(parts) != 4:
        raise ValueError("a query, two runs and the documents")
    question, system_a, system_b = (_names(part, 1)[0] for part in parts[:3])
    return Labels(question, (system_a, system_b), tuple(_names(parts[3], len(POOL))))


def one_question(values) -> Labels | None:
    """The :class:`Labels` of a one-question link, ``None`` for the lesson's five questions,
    from the page's validated URL values (``FIELDS`` keys). ``ValueError`` when the fields do
    not fit together: labels with five questions, one question without labels, or a ranking
    that uses a slot the labels do not name."""
    labels = values[KEYS["labels"]]
    runs = [values[KEYS[name]] for name in ("golden", "vector", "hybrid")]
    sizes = {len(r) for r in runs}
    if labels is None:
        if sizes != {len(QUESTIONS)}:
            raise ValueError("one question without its labels")
        return None
    if sizes != {1}:
        raise ValueError("labels with more than one question")
    if any(doc not in labels.pool for r in runs for doc in r[0]):
        raise ValueError("a document without a label")
    return labels


# readable name -> URL key
KEYS = {"question": "q", "golden": "g", "vector": "v", "hybrid": "h", "k": "k", "norm": "n",
        "measure": "m", "system": "s", "labels": "o"}
FIELDS = {
    KEYS["question"]: choice_field("q2", QUESTIONS),
    KEYS["golden"]: _runs_field(SEED.golden, golden=True),
    KEYS["vector"]: _runs_field(SEED.runs["vector"]),
    KEYS["hybrid"]: _runs_field(SEED.runs["hybrid"]),
    KEYS["k"]: int_field(SEED.k, lo=1, hi=len(POOL)),
    KEYS["norm"]: choice_field("R", AP_NORMS),
    KEYS["measure"]: choice_field("rr", COMPARE_ON),
    KEYS["system"]: choice_field("vector", SYSTEMS),
    KEYS["labels"]: Field(None, parse_labels, encode_labels),
}


@dataclass(frozen=True)
class Scenario:
    """The five questions' golden sets and both systems' rankings (ids from :data:`POOL`), the
    question in focus, k (1..len(POOL)), AP's normaliser (``metrics.rank.AP_NORMS``), the
    measure the comparison is on (:data:`COMPARE_ON`) and the system whose AP is worked."""

    golden: Sequence[Sequence[str]] = SEED.golden
    vector: Sequence[Sequence[str]] = SEED.runs["vector"]
    hybrid: Sequence[Sequence[str]] = SEED.runs["hybrid"]
    question: str = "q2"
    k: int = SEED.k
    norm: str = "R"
    measure: str = "rr"
    system: str = "vector"
    labels: Labels | None = None


def link(s: Scenario) -> dict[str, str]:
    """The query params that open the lesson on ``s``. Raises ``ValueError`` when ``s``
    could not be read back (:func:`one_question`)."""
    params = {KEYS["question"]: s.question, KEYS["golden"]: encode_runs(s.golden),
              KEYS["vector"]: encode_runs(s.vector), KEYS["hybrid"]: encode_runs(s.hybrid),
              KEYS["k"]: str(s.k), KEYS["norm"]: s.norm, KEYS["measure"]: s.measure,
              KEYS["system"]: s.system}
    if s.labels is not None:
        params[KEYS["labels"]] = encode_labels(s.labels)
    values = {key: FIELDS[key].parse(raw) for key, raw in params.items()}
    one_question({**{key: f.default for key, f in FIELDS.items()}, **values})
    return params
