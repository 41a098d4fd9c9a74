"""Passages, corpora and questions; the bundled handbook (``assets/corpus/``).

``handbook.toml``: ``[[passages]]`` with ``id``, ``doc`` (the document the passage is a part
of), ``title.ar``/``title.en``, ``text.ar``/``text.en`` and ``superseded`` (an outdated rule the
handbook keeps, so a retriever can find the wrong version). The same ids in both languages.
``questions.toml``: ``[[questions]]`` with ``id``, ``kind``, ``text.ar``/``text.en``,
``answers`` and ``partial`` (the writer's passage ids: the answer, and a partial answer).
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from retrieval.errors import CorpusError

__all__ = [
    "CORPUS_DIR", "LANGUAGES", "Corpus", "Passage", "Question", "load_handbook", "load_questions",
]

CORPUS_DIR = Path(__file__).resolve().parent.parent / "assets" / "corpus"
LANGUAGES = ("ar", "en")


@dataclass(frozen=True)
class Passage:
    id: str
    text: str
    doc: str = ""              # the document this passage is a chunk of ("" = itself)
    title: str = ""
    superseded: bool = False
    line: int | None = None    # where it starts in an uploaded file

    @property
    def document(self) -> str:
        return self.doc or self.id

    @property
    def indexed_text(self) -> str:
        """What both retrievers index: the title, then the text."""
        return f"{self.title}\n{self.text}" if self.title else self.text


@dataclass(frozen=True)
class Corpus:
    passages: tuple[Passage, ...]
    lang: str | None = None    # "ar", "en", or None (an upload: any mix)
    name: str = ""
    _index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        index: dict[str, int] = {}
        for i, passage in enumerate(self.passages):
            if passage.id in index:
                raise CorpusError("duplicate_id", line=passage.line, id=passage.id,
                                  first_line=self.passages[index[passage.id]].line)
            if not passage.id or any(c.isspace() for c in passage.id):
                raise CorpusError("bad_id", line=passage.line, id=passage.id)
            index[passage.id] = i
        object.__setattr__(self, "_index", index)

    def __len__(self) -> int:
        return len(self.passages)

    def __contains__(self, passage_id: object) -> bool:
        return passage_id in self._index

    def __getitem__(self, passage_id: str) -> Passage:
        return self.passages[self._index[passage_id]]

    @cached_property
    def ids(self) -> tuple[str, ...]:
        return tuple(p.id for p in self.passages)

    @cached_property
    def indexed_texts(self) -> tuple[str, ...]:
        return tuple(p.indexed_text for p in self.passages)

    @cached_property
    def documents(self) -> dict[str, str]:
        """Passage id → document id (for counting chunks of one document once)."""
        return {p.id: p.document for p in self.passages}


@dataclass(frozen=True)
class Question:
    id: str
    kind: str
    text: Mapping[str, str]          # language → question
    answers: tuple[str, ...] = ()    # passage ids that answer it (the writer's)
    partial: tuple[str, ...] = ()    # passage ids that answer part of it


def _text_of(value: object, lang: str, where: str) -> str:
    text = value.get(lang) if isinstance(value, Mapping) else None
    if not isinstance(text, str):
        raise CorpusError("bad_corpus", detail=f"{where} has no {lang} text")
    return text.strip()


def load_handbook(path: Path | str = CORPUS_DIR / "handbook.toml") -> dict[str, Corpus]:
    """The handbook in each language: ``{"ar": Corpus, "en": Corpus}``, passages in file order."""
    with open(path, "rb") as f:
        records = tomllib.load(f).get("passages", [])
    by_lang: dict[str, list[Passage]] = {lang: [] for lang in LANGUAGES}
    for number, record in enumerate(records, start=1):
        pid = str(record.get("id", ""))
        where = f"passage {pid or number}"
        for lang in LANGUAGES:
            text = _text_of(record.get("text"), lang, where)
            title = _text_of(record.get("title"), lang, where) if "title" in record else ""
            if not text:
                raise CorpusError("bad_corpus", detail=f"{where} has an empty {lang} text")
            by_lang[lang].append(Passage(pid, text, doc=str(record.get("doc", "")), title=title,
                                         superseded=bool(record.get("superseded", False))))
    if not records:
        raise CorpusError("bad_corpus", detail=f"no passages in {path}")
    return {lang: Corpus(tuple(ps), lang, name="handbook") for lang, ps in by_lang.items()}


def load_questions(path: Path | str = CORPUS_DIR / "questions.toml",
                   corpus: Corpus | None = None) -> tuple[Question, ...]:
    """The bundled questions; with ``corpus``, their answer ids are checked against it."""
    with open(path, "rb") as f:
        records = tomllib.load(f).get("questions", [])
    questions: list[Question] = []
    seen: set[str] = set()
    for number, record in enumerate(records, start=1):
        qid = str(record.get("id", ""))
        if not qid or any(c.isspace() for c in qid) or qid in seen:
            raise CorpusError("bad_corpus", detail=f"question {number} has a bad id {qid!r}")
        seen.add(qid)
        text = {lang: _text_of(record.get("text"), lang, f"question {qid}") for lang in LANGUAGES}
        question = Question(qid, str(record.get("kind", "")), text,
                            _ids(record.get("answers", ())), _ids(record.get("partial", ())))
        unknown = [p for p in question.answers + question.partial
                   if corpus is not None and p not in corpus]
        if unknown:
            raise CorpusError("bad_corpus", detail=f"question {qid} names unknown {unknown}")
        questions.append(question)
    return tuple(questions)


def _ids(value: Iterable | str) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(map(str, value))
