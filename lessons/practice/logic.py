"""The practice hub's plain functions: decks and quiz pool gathered from every lesson's
content and quiz files, the quiz round, the progress table. No Streamlit.

Cards and myths have no ids in the lessons' content files, so each gets one from its lesson
folder and a short hash of its English text (``recall_precision.c-1a2b3c4d5e``). An edited
card is therefore a new card (due at once) — never another card's schedule.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from runtime import catalog
from teaching import progress as pg
from text.i18n import Markup, load_content, load_quiz
from ui import tables

QUIZ_ROUND = 5  # items per round of the mixed quiz


@dataclass(frozen=True)
class Card:
    id: str
    folder: str
    front: str
    back: str


@dataclass(frozen=True)
class Myth:
    id: str
    folder: str
    myth: str
    fact: str


def lesson_folders() -> list[str]:
    """The numbered lessons, in teaching order (only those that exist)."""
    return [e.folder for e in catalog.LESSONS if e.kind == "lesson" and e.exists]


def _hash_id(folder: str, tag: str, text: str) -> str:
    digest = hashlib.sha1(text.strip().encode("utf-8")).hexdigest()[:10]
    return f"{folder}.{tag}-{digest}"


def cards(lang: str, folders: Sequence[str] | None = None) -> list[Card]:
    """Every lesson's flashcards in ``lang`` (ids from the English text)."""
    out = []
    for folder in lesson_folders() if folders is None else folders:
        items = load_content(folder, lang).get("cards", {}).get("items", [])
        english = load_content(folder, "en").get("cards", {}).get("items", [])
        for item, en in zip(items, english, strict=False):
            out.append(Card(_hash_id(folder, "c", en.get("front", "")), folder,
                            item.get("front", ""), item.get("back", "")))
    return out


def myths(lang: str, folders: Sequence[str] | None = None) -> list[Myth]:
    """Every lesson's myth-vs-fact items in ``lang``."""
    out = []
    for folder in lesson_folders() if folders is None else folders:
        items = load_content(folder, lang).get("myths", {}).get("items", [])
        english = load_content(folder, "en").get("myths", {}).get("items", [])
        for item, en in zip(items, english, strict=False):
            out.append(Myth(_hash_id(folder, "m", en.get("myth", "")), folder,
                            item.get("myth", ""), item.get("fact", "")))
    return out


def quiz_pool(lang: str, folders: Sequence[str] | None = None) -> list[tuple[str, dict]]:
    """``(folder, item)`` for every quiz item of every lesson, in lesson order."""
    out = []
    for folder in lesson_folders() if folders is None else folders:
        out.extend((folder, item) for item in load_quiz(folder, lang))
    return out


def quiz_round(p: pg.Progress, item_ids: Sequence[str], seed: int,
               size: int = QUIZ_ROUND) -> list[str]:
    """A round of the mixed quiz: items last answered wrong first, then never answered,
    then those already right (each group shuffled by ``seed``, so a round is stable
    across reruns and a "new round" reshuffles)."""
    rng = random.Random(seed)
    groups: list[list[str]] = [[], [], []]
    for item_id in item_ids:
        answer = p.quiz.get(item_id)
        groups[2 if answer and answer.right else 0 if answer else 1].append(item_id)
    out: list[str] = []
    for group in groups:
        rng.shuffle(group)
        out.extend(group)
    return out[:size]


def today(timezone: str | None) -> dt.date:
    """The learner's calendar day (their browser's time zone; UTC if unknown)."""
    try:
        zone = ZoneInfo(timezone) if timezone else dt.UTC
    except (ZoneInfoNotFoundError, ValueError):
        zone = dt.UTC
    return dt.datetime.now(zone).date()


def mastery_table(p: pg.Progress, metrics: Sequence[str], names: dict[str, str],
                  head: dict[str, str]) -> str:
    """The progress table as Markdown (rendered by ``layout.markdown``, which isolates the
    metric names and numbers in Arabic)."""
    rows = []
    for r in pg.mastery(p, metrics):
        status = (head["mastered"] if r.mastered else head["practising"] if r.attempts
                  else head["not_started"])
        # "3/5" without spaces: a number, a slash, a number stay left-to-right in Arabic.
        rows.append([Markup(names.get(r.metric, r.metric)), Markup(f"{r.correct}/{r.attempts}"),
                     r.streak, Markup(status)])
    return tables.table([head["metric"], head["right"], head["streak"], head["status"]], rows)

