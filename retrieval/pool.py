"""The judging pool: what human judges grade, so the bundled questions get their qrels.

Pooling (TREC's method): run every system on every question and judge only the union of their
top ``DEPTH`` passages. Passages outside the pool stay unjudged, which means *unknown*, not
irrelevant. One pool per (question, corpus language): the Arabic handbook's pool holds what the
three systems found for the Arabic question and for the English one (``PAIRS``).

Judges see the question in the corpus's language and the passages sorted by id, never which
system found a passage or at what rank (that would lean their grade).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from retrieval.corpus import Question
from retrieval.engine import Retrievers

__all__ = ["DEPTH", "PAIRS", "PoolEntry", "build_pool", "pool_toml"]

DEPTH = 10
PAIRS = (("ar", "ar"), ("en", "en"), ("en", "ar"))   # (question language, corpus language)

GRADES = """\
# Grades (0-3), for the question as asked, from this passage alone:
#   3 = answers it fully;  2 = answers most of it, or answers it with a missing condition;
#   1 = on the topic but does not answer it (or an outdated, superseded rule);  0 = not relevant.
# Replace every `grade = -1` (not judged yet). Judge each passage on its own, in any order."""


@dataclass(frozen=True)
class PoolEntry:
    question: Question
    corpus_lang: str
    pairs: tuple[str, ...]              # "ar-ar", "en-ar", ...: the runs that were pooled
    passages: tuple[str, ...]           # pooled passage ids, sorted


def build_pool(handbook: Mapping[str, Retrievers], questions: Iterable[Question], *,
               depth: int = DEPTH, pairs: Iterable[tuple[str, str]] = PAIRS) -> list[PoolEntry]:
    """The union of every system's top ``depth`` per (question, corpus language)."""
    pairs = tuple(pairs)
    entries = []
    for question in questions:
        for corpus_lang in dict.fromkeys(c for _, c in pairs):
            pooled: set[str] = set()
            names = []
            for question_lang, lang in pairs:
                if lang != corpus_lang:
                    continue
                names.append(f"{question_lang}-{lang}")
                found = handbook[lang].search(question.text[question_lang], k=depth)
                pooled.update(hit.id for hits in found.values() for hit in hits)
            entries.append(PoolEntry(question, corpus_lang, tuple(names), tuple(sorted(pooled))))
    return entries


def _s(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(text, ensure_ascii=False)


def pool_toml(entries: Iterable[PoolEntry], handbook: Mapping[str, Retrievers]) -> str:
    """The pool as TOML for the judges: ``[[pool]]`` per (question, corpus language), a
    ``[[pool.passages]]`` per pooled passage with its title, text and ``grade = -1``."""
    entries = list(entries)
    size = sum(len(e.passages) for e in entries)
    lines = [
        "# Judging pool for the bundled questions (retrieval.pool; scripts/make_pool.py).",
        f"# {len(entries)} (question, corpus language) pools, {size} passages to grade: the",
        f"# union of the top {DEPTH} of BM25, dense and hybrid (RRF) for each question.",
        GRADES, "",
    ]
    for entry in entries:
        corpus = handbook[entry.corpus_lang].corpus
        lines += ["[[pool]]", f"question = {_s(entry.question.id)}",
                  f"kind = {_s(entry.question.kind)}",
                  f"corpus_lang = {_s(entry.corpus_lang)}",
                  f"pairs = [{', '.join(map(_s, entry.pairs))}]",
                  f"question_text = {_s(entry.question.text[entry.corpus_lang])}", ""]
        for pid in entry.passages:
            passage = corpus[pid]
            lines += ["[[pool.passages]]", f"id = {_s(pid)}", f"title = {_s(passage.title)}",
                      f"text = {_s(passage.text)}", "grade = -1", ""]
    return "\n".join(lines)
