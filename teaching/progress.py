"""A learner's progress: exercises per metric, quiz answers, flashcard schedule, myth deck.

Pure Python (no Streamlit). A :class:`Progress` is immutable: every ``record_*`` /
``review_card`` returns a new one, so session state never holds a half-updated record.
It is stored as versioned JSON (the browser's ``localStorage``, an exported file); the
reader is strict — size, JSON, the ``app``/``kind`` marker, the schema version, every
type, range and key — and refuses anything else with a :class:`ProgressError` whose
``key`` names the reason (a UI string under ``practice.errors``). A refused file never
replaces good progress: callers only swap in what :func:`from_json` returned.

Times are Unix seconds (``now``); card due dates are calendar days (``today``), so a card
"due tomorrow" is due whatever the hour. Both are parameters, never read from the clock
here, which keeps every function deterministic and testable.

**Mastery** of a metric: the last :data:`MASTERY_STREAK` (3) answers to its exercises were
all right. One wrong answer resets the streak.

**Flashcards** use a Leitner schedule: boxes 1–5 with intervals of 1, 3, 7, 14 and 30 days.
"good" moves a card up one box and schedules it that many days ahead; "hard" keeps its box
and schedules it after half the interval (at least a day); "again" sends it back to box 1,
due *today* — and since :func:`due_cards` orders due cards by when they were last seen, a
forgotten card comes back after the others in the same session.

**Merging** (an imported file, or what the browser had stored when a session that already
did something finally reads it): item by item, the record seen most recently wins (ties go
to a fixed order of the records, so the merge is commutative, associative and idempotent:
importing the same file twice changes nothing, and nothing newer is ever lost).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = [
    "APP",
    "BOX_DAYS",
    "GRADES",
    "KIND",
    "MASTERY_STREAK",
    "MAX_BYTES",
    "VERSION",
    "CardState",
    "ExerciseStats",
    "MythStats",
    "Progress",
    "ProgressError",
    "QuizAnswer",
    "due_cards",
    "forget",
    "from_json",
    "mastery",
    "merge",
    "next_metric",
    "record_exercise",
    "record_myth",
    "record_quiz",
    "review_card",
    "summary",
    "to_json",
]

APP = "mizan"
KIND = "progress"
VERSION = 1
MAX_BYTES = 256 * 1024  # a full record of every card, item and metric is ~15 KB
MAX_ENTRIES = 2000  # per section
MAX_COUNT = 10**9
MAX_TIME = 2**40  # Unix seconds, far beyond any real date
MASTERY_STREAK = 3
BOX_DAYS: tuple[int, ...] = (1, 3, 7, 14, 30)  # box n (1-based) → days until due after "good"
GRADES: tuple[str, ...] = ("again", "hard", "good")

_ID = re.compile(r"[A-Za-z0-9_.:\-]{1,120}")
_MISTAKE = re.compile(r"[A-Za-z0-9_.\-]{1,60}")
_ANSWER_MAX = 40


class ProgressError(ValueError):
    """A progress file or stored value that is refused. ``key`` is one of
    ``too_large``, ``not_json``, ``foreign``, ``newer_version``, ``invalid``."""

    def __init__(self, key: str, detail: str = "") -> None:
        super().__init__(f"{key}: {detail}" if detail else key)
        self.key = key
        self.detail = detail


# --- the record ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ExerciseStats:
    attempts: int = 0
    correct: int = 0
    streak: int = 0  # right answers in a row, up to now
    best: int = 0  # the longest streak so far
    last: int = 0  # Unix seconds of the last attempt
    mistakes: Mapping[str, int] = field(default_factory=dict)  # mistake id → times made

    @property
    def mastered(self) -> bool:
        return self.streak >= MASTERY_STREAK


@dataclass(frozen=True)
class QuizAnswer:
    answer: str  # the option index (choice) or the typed number, as last checked
    right: bool  # was the last checked answer right?
    tries: int  # answers checked so far
    first_right: bool  # right at the first try
    last: int


@dataclass(frozen=True)
class CardState:
    box: int  # 1–5 (Leitner box)
    due: str  # ISO day
    reviews: int
    lapses: int  # times "again"
    last: int


@dataclass(frozen=True)
class MythStats:
    seen: int
    right: int  # times the learner knew it was a myth
    last: int


@dataclass(frozen=True)
class Progress:
    exercises: Mapping[str, ExerciseStats] = field(default_factory=dict)
    quiz: Mapping[str, QuizAnswer] = field(default_factory=dict)
    cards: Mapping[str, CardState] = field(default_factory=dict)
    myths: Mapping[str, MythStats] = field(default_factory=dict)
    # When the learner last chose "forget my progress" (Unix seconds, 0: never). Another tab
    # that still holds older progress must not write it back (see local_store.receive).
    forgotten_at: int = 0

    @property
    def is_empty(self) -> bool:
        """No record at all (whether or not it was ever forgotten)."""
        return not (self.exercises or self.quiz or self.cards or self.myths)


def _check_id(name: str) -> str:
    if not isinstance(name, str) or not _ID.fullmatch(name):
        raise ValueError(f"bad id {name!r}")
    return name


def _with(mapping: Mapping[str, Any], key: str, value: Any) -> dict[str, Any]:
    out = dict(mapping)
    out[key] = value
    return out


# --- recording ----------------------------------------------------------------------------


def record_exercise(p: Progress, metric: str, correct: bool, now: int,
                    mistake: str | None = None) -> Progress:
    """One checked answer to an exercise on ``metric`` (``mistake``: the diagnosed wrong
    formula's id, counted so the progress view can say which mistake keeps coming back)."""
    _check_id(metric)
    old = p.exercises.get(metric, ExerciseStats())
    streak = old.streak + 1 if correct else 0
    mistakes = dict(old.mistakes)
    if not correct and mistake and _MISTAKE.fullmatch(mistake) and (
            mistake in mistakes or len(mistakes) < 50):
        mistakes[mistake] = min(mistakes.get(mistake, 0) + 1, MAX_COUNT)
    new = ExerciseStats(
        attempts=min(old.attempts + 1, MAX_COUNT),
        correct=min(old.correct + int(correct), MAX_COUNT),
        streak=min(streak, MAX_COUNT),
        best=min(max(old.best, streak), MAX_COUNT),
        last=now,
        mistakes=mistakes,
    )
    return replace(p, exercises=_with(p.exercises, metric, new))


def record_quiz(p: Progress, item_id: str, answer: str, right: bool, now: int) -> Progress:
    """One checked quiz answer (wrong then right counts 2 tries, not right at first)."""
    _check_id(item_id)
    old = p.quiz.get(item_id)
    new = QuizAnswer(
        answer=str(answer)[:_ANSWER_MAX],
        right=bool(right),
        tries=min((old.tries if old else 0) + 1, MAX_COUNT),
        first_right=old.first_right if old else bool(right),
        last=now,
    )
    return replace(p, quiz=_with(p.quiz, item_id, new))


def record_myth(p: Progress, myth_id: str, knew: bool, now: int) -> Progress:
    """The learner met a myth and said whether they already knew it was one."""
    _check_id(myth_id)
    old = p.myths.get(myth_id, MythStats(0, 0, 0))
    new = MythStats(min(old.seen + 1, MAX_COUNT), min(old.right + int(knew), MAX_COUNT), now)
    return replace(p, myths=_with(p.myths, myth_id, new))


def _days(day: dt.date, n: int) -> str:
    return (day + dt.timedelta(days=n)).isoformat()


def review_card(p: Progress, card_id: str, grade: str, today: dt.date,
                now: int) -> tuple[Progress, str]:
    """Schedule ``card_id`` after a review graded ``again``/``hard``/``good``.

    Returns the new progress and the card's next due day (ISO). See the module doc.
    """
    _check_id(card_id)
    if grade not in GRADES:
        raise ValueError(f"grade must be one of {GRADES}, not {grade!r}")
    old = p.cards.get(card_id)
    box = old.box if old else 0  # 0: never reviewed
    lapses = old.lapses if old else 0
    if grade == "again":
        box, due, lapses = 1, today.isoformat(), lapses + 1
    elif grade == "hard":
        box = max(box, 1)
        due = _days(today, max(1, BOX_DAYS[box - 1] // 2))
    else:
        box = min(box + 1, len(BOX_DAYS))
        due = _days(today, BOX_DAYS[box - 1])
    new = CardState(box=box, due=due, reviews=min((old.reviews if old else 0) + 1, MAX_COUNT),
                    lapses=min(lapses, MAX_COUNT), last=now)
    return replace(p, cards=_with(p.cards, card_id, new)), due


def due_cards(p: Progress, card_ids: Iterable[str], today: dt.date) -> list[str]:
    """The cards to review now, in order: overdue first, then due today and new ones; among
    equals, the one seen longest ago first — so a card just marked "again" comes last."""
    today_iso = today.isoformat()
    due: list[tuple[str, int, int, str]] = []
    for position, card_id in enumerate(dict.fromkeys(card_ids)):
        state = p.cards.get(card_id)
        if state is None:
            due.append((today_iso, 0, position, card_id))
        elif state.due <= today_iso:
            due.append((state.due, state.last, position, card_id))
    due.sort()
    return [card_id for *_, card_id in due]


# --- views --------------------------------------------------------------------------------


@dataclass(frozen=True)
class MetricMastery:
    metric: str
    attempts: int
    correct: int
    streak: int
    mastered: bool
    top_mistake: str | None


def mastery(p: Progress, metrics: Sequence[str]) -> list[MetricMastery]:
    """One row per metric (in the order given), for the progress table."""
    rows = []
    for metric in metrics:
        s = p.exercises.get(metric, ExerciseStats())
        top = max(s.mistakes.items(), key=lambda kv: (kv[1], kv[0]))[0] if s.mistakes else None
        rows.append(MetricMastery(metric, s.attempts, s.correct, s.streak, s.mastered, top))
    return rows


def next_metric(p: Progress, metrics: Sequence[str]) -> str:
    """What to practise next: a metric started but not mastered (the weakest: shortest
    streak, then lowest share right, then longest ago); else one never tried (in teaching
    order); else the mastered one practised longest ago (spaced practice)."""
    if not metrics:
        raise ValueError("no metrics")
    started = [m for m in metrics if m in p.exercises]
    weak = [m for m in started if not p.exercises[m].mastered]
    if weak:
        def weakness(m: str) -> tuple[int, float, int, int]:
            s = p.exercises[m]
            return (s.streak, s.correct / s.attempts if s.attempts else 0.0, s.last,
                    metrics.index(m))
        return min(weak, key=weakness)
    fresh = [m for m in metrics if m not in p.exercises]
    if fresh:
        return fresh[0]
    return min(metrics, key=lambda m: (p.exercises[m].last, metrics.index(m)))


@dataclass(frozen=True)
class Summary:
    metrics_mastered: int
    metrics_total: int
    quiz_right: int  # items whose last checked answer is right
    quiz_answered: int
    quiz_total: int
    cards_due: int
    cards_new: int
    myths_seen: int
    myths_total: int
    review_next: tuple[tuple[str, str], ...]  # (kind, id): "metric" / "quiz" / "cards"


def summary(p: Progress, metrics: Sequence[str], quiz_ids: Sequence[str],
            card_ids: Sequence[str], myth_ids: Sequence[str], today: dt.date) -> Summary:
    """Numbers for the progress view and the "what to review next" list (at most 5)."""
    quiz_known = [q for q in quiz_ids if q in p.quiz]
    due = due_cards(p, card_ids, today)
    new = sum(1 for c in card_ids if c not in p.cards)
    review: list[tuple[str, str]] = []
    if metrics:
        m = next_metric(p, metrics)
        if not (m in p.exercises and p.exercises[m].mastered):
            review.append(("metric", m))
    if len(due) - new > 0:
        review.append(("cards", str(len(due) - new)))
    wrong = sorted((q for q in quiz_known if not p.quiz[q].right), key=lambda q: -p.quiz[q].last)
    review.extend(("quiz", q) for q in wrong)
    return Summary(
        metrics_mastered=sum(1 for r in mastery(p, metrics) if r.mastered),
        metrics_total=len(metrics),
        quiz_right=sum(1 for q in quiz_known if p.quiz[q].right),
        quiz_answered=len(quiz_known),
        quiz_total=len(quiz_ids),
        cards_due=len(due) - new,
        cards_new=new,
        myths_seen=sum(1 for m in myth_ids if m in p.myths),
        myths_total=len(myth_ids),
        review_next=tuple(review[:5]),
    )


# --- merge ----------------------------------------------------------------------------------


def _newer(a: Any, b: Any) -> Any:
    """The record seen last; on a tie, the larger of a fixed total order (so merge is
    commutative)."""
    if a.last != b.last:
        return a if a.last > b.last else b
    return a if _canon(a) >= _canon(b) else b


def _canon(record: Any) -> str:
    return json.dumps(_dump_record(record), sort_keys=True)


def merge(a: Progress, b: Progress) -> Progress:
    """Item by item, the more recently seen record wins (see the module doc)."""

    def one(x: Mapping[str, Any], y: Mapping[str, Any]) -> dict[str, Any]:
        out = dict(x)
        for key, value in y.items():
            out[key] = _newer(out[key], value) if key in out else value
        return dict(sorted(out.items()))

    return Progress(one(a.exercises, b.exercises), one(a.quiz, b.quiz), one(a.cards, b.cards),
                    one(a.myths, b.myths), max(a.forgotten_at, b.forgotten_at))


def merge_changes(a: Progress, b: Progress) -> dict[str, int]:
    """How many records of each kind ``merge(a, b)`` adds to ``a`` or replaces in it (the
    file's record is new, or more recent than ``a``'s): what an import really changed."""
    merged = merge(a, b)
    return {kind: sum(getattr(a, kind).get(key) != record
                      for key, record in getattr(merged, kind).items())
            for kind in ("exercises", "quiz", "cards", "myths")}


def forget(now: int) -> Progress:
    """Empty progress that remembers when it was emptied."""
    return Progress(forgotten_at=now)


# --- JSON -----------------------------------------------------------------------------------


def _dump_record(r: Any) -> dict[str, Any]:
    if isinstance(r, ExerciseStats):
        return {"attempts": r.attempts, "correct": r.correct, "streak": r.streak,
                "best": r.best, "last": r.last, "mistakes": dict(sorted(r.mistakes.items()))}
    if isinstance(r, QuizAnswer):
        return {"answer": r.answer, "right": r.right, "tries": r.tries,
                "first_right": r.first_right, "last": r.last}
    if isinstance(r, CardState):
        return {"box": r.box, "due": r.due, "reviews": r.reviews, "lapses": r.lapses,
                "last": r.last}
    if isinstance(r, MythStats):
        return {"seen": r.seen, "right": r.right, "last": r.last}
    raise TypeError(type(r))


def to_json(p: Progress, *, saved_at: int = 0) -> str:
    """The versioned JSON text (keys sorted, compact: what is stored and exported)."""
    doc = {
        "app": APP,
        "kind": KIND,
        "version": VERSION,
        "saved_at": saved_at,
        "forgotten_at": p.forgotten_at,
        "exercises": {k: _dump_record(v) for k, v in sorted(p.exercises.items())},
        "quiz": {k: _dump_record(v) for k, v in sorted(p.quiz.items())},
        "cards": {k: _dump_record(v) for k, v in sorted(p.cards.items())},
        "myths": {k: _dump_record(v) for k, v in sorted(p.myths.items())},
    }
    return json.dumps(doc, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-standard JSON constant {name}")


def from_json(text: str | bytes) -> Progress:
    """Parse and validate stored or imported progress. Raises :class:`ProgressError`."""
    if isinstance(text, bytes | bytearray):
        if len(text) > MAX_BYTES:
            raise ProgressError("too_large")
        try:
            text = bytes(text).decode("utf-8-sig")
        except UnicodeDecodeError as err:
            raise ProgressError("not_json", "not UTF-8") from err
    if not isinstance(text, str):
        raise ProgressError("not_json", type(text).__name__)
    if len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise ProgressError("too_large")
    try:
        doc = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as err:
        raise ProgressError("not_json", str(err)[:100]) from err
    if not isinstance(doc, dict) or doc.get("app") != APP or doc.get("kind") != KIND:
        raise ProgressError("foreign")
    version = doc.get("version")
    if not _is_int(version) or version < 1:
        raise ProgressError("invalid", "version")
    if version > VERSION:
        raise ProgressError("newer_version", str(version))
    try:
        return _parse_v1(doc)
    except (ValueError, TypeError, KeyError) as err:
        raise ProgressError("invalid", str(err)[:200]) from err


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _int(d: Mapping[str, Any], name: str, lo: int = 0, hi: int = MAX_COUNT) -> int:
    x = d[name]
    if not _is_int(x) or not lo <= x <= hi:
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}]")
    return x


def _bool(d: Mapping[str, Any], name: str) -> bool:
    x = d[name]
    if not isinstance(x, bool):
        raise ValueError(f"{name} must be true or false")
    return x


def _exact_keys(d: Any, keys: set[str], what: str) -> None:
    if not isinstance(d, dict) or set(d) != keys:
        raise ValueError(f"{what}: expected the fields {sorted(keys)}")


def _section(doc: Mapping[str, Any], name: str) -> dict[str, Any]:
    sec = doc[name]
    if not isinstance(sec, dict):
        raise ValueError(f"{name} must be an object")
    if len(sec) > MAX_ENTRIES:
        raise ValueError(f"{name}: too many entries")
    for key in sec:
        if not _ID.fullmatch(key):
            raise ValueError(f"{name}: bad id {key[:40]!r}")
    return sec


def _day(text: Any) -> str:
    if not isinstance(text, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        raise ValueError("due must be a day YYYY-MM-DD")
    dt.date.fromisoformat(text)  # a real calendar day
    return text


def _parse_v1(doc: Mapping[str, Any]) -> Progress:
    _exact_keys(doc, {"app", "kind", "version", "saved_at", "forgotten_at", "exercises", "quiz",
                      "cards", "myths"}, "progress")
    _int(doc, "saved_at", 0, MAX_TIME)
    forgotten_at = _int(doc, "forgotten_at", 0, MAX_TIME)
    exercises = {}
    for metric, r in _section(doc, "exercises").items():
        _exact_keys(r, {"attempts", "correct", "streak", "best", "last", "mistakes"}, metric)
        attempts = _int(r, "attempts")
        correct = _int(r, "correct", 0, attempts)
        streak = _int(r, "streak", 0, correct)
        best = _int(r, "best", streak, correct)
        mistakes = r["mistakes"]
        if not isinstance(mistakes, dict) or len(mistakes) > 50:
            raise ValueError("mistakes must be a small object")
        for name in mistakes:
            if not _MISTAKE.fullmatch(name):
                raise ValueError("bad mistake id")
            _int(mistakes, name, 1)
        exercises[metric] = ExerciseStats(attempts, correct, streak, best,
                                          _int(r, "last", 0, MAX_TIME), dict(mistakes))
    quiz = {}
    for item, r in _section(doc, "quiz").items():
        _exact_keys(r, {"answer", "right", "tries", "first_right", "last"}, item)
        answer = r["answer"]
        if not isinstance(answer, str) or len(answer) > _ANSWER_MAX:
            raise ValueError("answer must be a short string")
        right, first_right = _bool(r, "right"), _bool(r, "first_right")
        tries = _int(r, "tries", 1)
        if first_right and not right and tries == 1:
            raise ValueError("right at the first try but not right")
        quiz[item] = QuizAnswer(answer, right, tries, first_right, _int(r, "last", 0, MAX_TIME))
    cards = {}
    for card, r in _section(doc, "cards").items():
        _exact_keys(r, {"box", "due", "reviews", "lapses", "last"}, card)
        reviews = _int(r, "reviews", 1)
        cards[card] = CardState(_int(r, "box", 1, len(BOX_DAYS)), _day(r["due"]), reviews,
                                _int(r, "lapses", 0, reviews), _int(r, "last", 0, MAX_TIME))
    myths = {}
    for myth, r in _section(doc, "myths").items():
        _exact_keys(r, {"seen", "right", "last"}, myth)
        seen = _int(r, "seen", 1)
        myths[myth] = MythStats(seen, _int(r, "right", 0, seen), _int(r, "last", 0, MAX_TIME))
    return Progress(exercises, quiz, cards, myths, forgotten_at)

