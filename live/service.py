"""What the live page (and the load test) can do with a live session: the only way in.

Every write is one short transaction that first bumps the session row's ``version``
(``UPDATE … RETURNING``). On PostgreSQL that row lock queues the writes of one session, on
SQLite ``BEGIN IMMEDIATE`` does, so "is the question still open? then store the answer" is
never split by a concurrent close, and the projector's one-integer poll sees every change.
An answer is an upsert on the unique (question, participant) pair: a student who answers
again changes their row, never adds one.

Refusals raise :class:`LiveError` with a ``key`` the page translates (``live.error.<key>``);
nothing is written when one is raised.
"""

from __future__ import annotations

import csv
import hmac
import io
import math
import re
import secrets
import threading
import time
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Engine, func, select, update
from sqlalchemy.dialects import postgresql, sqlite

from live import db
from live.models import (
    ANSWER_MAX,
    CODE_LENGTH,
    NICKNAME_MAX,
    LiveAnswer,
    LiveParticipant,
    LiveQuestion,
    LiveSession,
)
from teaching.answers import parse_number, western_digits

__all__ = [
    "LiveError",
    "LiveService",
    "Poll",
    "QuestionSpec",
    "Tally",
    "normalise_code",
    "service",
]

# No 0/O, 1/I/L: a code read off a projector is typed without guessing.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
MAX_PARTICIPANTS = 2000
MAX_ABS_NUMBER = 1e6


class LiveError(Exception):
    """A refused action; ``key`` names the message (``live.error.<key>`` in the strings)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


@dataclass(frozen=True)
class QuestionSpec:
    """A question as the instructor pushes it.

    ``kind`` is ``"numeric"`` (a typed number, right within ``tolerance``) or ``"choice"``
    (``options``: ``[{"value": "A", "mistake": "recall_divided_by_k"}, …]``; the optional
    ``mistake`` names the misconception that option reveals). ``measure`` + ``scenario``
    (``ranking``, ``qrels``, ``k``) let the tally diagnose wrong numbers with
    ``teaching.mistakes``. ``template`` tells the page how to word it.
    """

    kind: str
    template: str
    correct: str
    scenario: Mapping[str, Any] = field(default_factory=dict)
    options: Sequence[Mapping[str, Any]] = ()
    measure: str | None = None
    tolerance: float = 0.005


@dataclass(frozen=True)
class Poll:
    version: int          # grows on every change, answers included (the projector polls it)
    state_version: int    # grows when the question changes, closes or is revealed (phones)
    question_id: int | None
    status: str


@dataclass(frozen=True)
class Question:
    id: int
    position: int
    kind: str
    template: str
    measure: str | None
    scenario: dict
    options: list
    correct: str
    tolerance: float
    status: str
    revealed: bool

    @property
    def is_open(self) -> bool:
        return self.status == "open"


@dataclass(frozen=True)
class Joined:
    token: str
    label: str            # nickname, or "#n" for an anonymous student
    anonymous: bool


@dataclass(frozen=True)
class Created:
    code: str
    host_token: str


@dataclass(frozen=True)
class AnswerResult:
    value: str
    previous: str | None  # the answer it replaced (None: first answer)


@dataclass(frozen=True)
class Tally:
    question_id: int
    answered: int
    participants: int
    distribution: list[tuple[str, int]]   # (answer label, count): option order / ascending
    correct: str
    n_correct: int
    top_wrong: str | None                 # the most common wrong answer (label)
    top_wrong_count: int
    mistake: str | None                   # the misconception it reveals (mistakes key)


def _now() -> datetime:
    return datetime.now(UTC)


def normalise_code(text: object) -> str:
    """What a student typed → a code to look up (``" ab-c 23d "`` → ``"ABC23D"``)."""
    if not isinstance(text, str):
        return ""
    cleaned = western_digits(text).upper()
    return re.sub(r"[\s\-_.]", "", cleaned)[: CODE_LENGTH * 2]


def clean_nickname(text: object) -> str:
    """NFC, no control/format characters (bidi overrides, zero-width), single spaces."""
    if not isinstance(text, str):
        return ""
    text = unicodedata.normalize("NFC", text)
    text = "".join(ch for ch in text if unicodedata.category(ch) not in ("Cc", "Cf", "Co", "Cs"))
    return " ".join(text.split())


def canonical_number(value: float) -> str:
    """The stored text of a typed number: at most 4 decimals, no trailing zeros."""
    text = f"{round(value, 4):.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def number_label(value: float) -> str:
    """The histogram bin of a number (2 decimals: 0.667 and 0.67 land together)."""
    text = f"{round(value, 2):.2f}"
    return "0.00" if text == "-0.00" else text


class LiveService:
    """The live-session API over one SQLAlchemy engine (migrated to head)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._insert = (postgresql.insert if engine.dialect.name == "postgresql"
                        else sqlite.insert)
        self._poll_cache: dict[str, tuple[float, Poll]] = {}
        self._poll_lock = threading.Lock()

    # --- sessions -------------------------------------------------------------------------

    def create_session(self, lesson: str = "") -> Created:
        """A new open session with a fresh join code (retried on the rare collision)."""
        host_token = secrets.token_hex(16)
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            with db.write(self.engine) as conn:
                taken = conn.scalar(select(LiveSession.id).where(LiveSession.code == code))
                if taken is None:
                    conn.execute(LiveSession.__table__.insert().values(
                        code=code, host_token=host_token, lesson=lesson[:40], status="open",
                        version=0, state_version=0, created_at=_now()))
                    return Created(code, host_token)
        raise LiveError("no_code")  # pragma: no cover - 31^6 codes

    def close_session(self, code: str, host_token: str) -> None:
        with db.write(self.engine) as conn:
            sid = self._host(conn, code, host_token)
            conn.execute(update(LiveQuestion).where(LiveQuestion.session_id == sid,
                                                    LiveQuestion.status == "open")
                         .values(status="closed", closed_at=_now()))
            conn.execute(update(LiveSession).where(LiveSession.id == sid)
                         .values(status="closed", closed_at=_now()))

    def open_sessions(self) -> list[str]:
        """Codes of every open session (what a restarted process finds)."""
        with db.read(self.engine) as conn:
            return list(conn.scalars(select(LiveSession.code)
                                     .where(LiveSession.status == "open")
                                     .order_by(LiveSession.id)))

    def session_exists(self, code: str) -> str | None:
        """``"open"``, ``"closed"`` or None for an unknown code."""
        with db.read(self.engine) as conn:
            return conn.scalar(select(LiveSession.status)
                               .where(LiveSession.code == normalise_code(code)))

    def is_host(self, code: str, host_token: str) -> bool:
        with db.read(self.engine) as conn:
            token = conn.scalar(select(LiveSession.host_token)
                                .where(LiveSession.code == normalise_code(code)))
        return token is not None and hmac.compare_digest(token, str(host_token))

    # --- participants ---------------------------------------------------------------------

    def join(self, code: str, nickname: str | None = None) -> Joined:
        """Join an open session, with a nickname (unique in the session) or anonymously."""
        nick = clean_nickname(nickname or "")
        if len(nick) > NICKNAME_MAX:
            raise LiveError("nickname_too_long")
        if isinstance(nickname, str) and nickname.strip() and not nick:
            raise LiveError("nickname_invalid")
        with db.write(self.engine) as conn:
            sid, status, _ = self._bump(conn, code, state=False)
            if status != "open":
                raise LiveError("session_closed")
            count = conn.scalar(select(func.count()).select_from(LiveParticipant)
                                .where(LiveParticipant.session_id == sid)) or 0
            if count >= MAX_PARTICIPANTS:
                raise LiveError("session_full")
            key = nick.casefold() if nick else None
            if key and conn.scalar(select(LiveParticipant.id).where(
                    LiveParticipant.session_id == sid, LiveParticipant.nickname_key == key)):
                raise LiveError("nickname_taken")
            token = secrets.token_hex(16)
            label = f"#{count + 1}"
            conn.execute(LiveParticipant.__table__.insert().values(
                session_id=sid, token=token, nickname=nick or None, nickname_key=key,
                anon_label=label, joined_at=_now()))
        return Joined(token, nick or label, not nick)

    def participant(self, code: str, token: str) -> Joined | None:
        """Who ``token`` is in session ``code`` (None if not joined there)."""
        with db.read(self.engine) as conn:
            row = conn.execute(
                select(LiveParticipant.nickname, LiveParticipant.anon_label)
                .join(LiveSession, LiveSession.id == LiveParticipant.session_id)
                .where(LiveSession.code == normalise_code(code),
                       LiveParticipant.token == str(token))).first()
        if row is None:
            return None
        return Joined(str(token), row.nickname or row.anon_label, row.nickname is None)

    def roster(self, code: str, limit: int = 60) -> tuple[int, list[str]]:
        """How many joined, and the labels of the latest ``limit`` (newest first)."""
        with db.read(self.engine) as conn:
            sid = conn.scalar(select(LiveSession.id).where(
                LiveSession.code == normalise_code(code)))
            if sid is None:
                return 0, []
            count = conn.scalar(select(func.count()).select_from(LiveParticipant)
                                .where(LiveParticipant.session_id == sid)) or 0
            rows = conn.execute(select(LiveParticipant.nickname, LiveParticipant.anon_label)
                                .where(LiveParticipant.session_id == sid)
                                .order_by(LiveParticipant.id.desc()).limit(limit)).all()
        return int(count), [r.nickname or r.anon_label for r in rows]

    # --- questions ------------------------------------------------------------------------

    def push_question(self, code: str, host_token: str, spec: QuestionSpec) -> int:
        """Make ``spec`` the current question (the previous one is closed). Returns its id."""
        if spec.kind not in ("numeric", "choice"):
            raise LiveError("bad_question")
        options = [dict(o) for o in spec.options]
        if spec.kind == "choice":
            values = [str(o.get("value", "")) for o in options]
            if (len(values) < 2 or len(set(values)) != len(values) or spec.correct not in values
                    or any(not v or len(v) > ANSWER_MAX for v in values)):
                raise LiveError("bad_question")
        elif parse_number(spec.correct) is None:
            raise LiveError("bad_question")
        with db.write(self.engine) as conn:
            sid = self._host(conn, code, host_token)
            conn.execute(update(LiveQuestion).where(LiveQuestion.session_id == sid,
                                                    LiveQuestion.status == "open")
                         .values(status="closed", closed_at=_now()))
            position = (conn.scalar(select(func.max(LiveQuestion.position))
                                    .where(LiveQuestion.session_id == sid)) or 0) + 1
            qid = conn.execute(LiveQuestion.__table__.insert().values(
                session_id=sid, position=position, kind=spec.kind, template=spec.template[:40],
                measure=spec.measure, scenario=dict(spec.scenario), options=options,
                correct=spec.correct, tolerance=float(spec.tolerance), status="open",
                revealed=False, created_at=_now()).returning(LiveQuestion.id)).scalar_one()
            conn.execute(update(LiveSession).where(LiveSession.id == sid)
                         .values(current_question_id=qid))
            return qid

    def close_question(self, code: str, host_token: str, question_id: int) -> None:
        self._set_question(code, host_token, question_id, status="closed", closed_at=_now())

    def reveal(self, code: str, host_token: str, question_id: int) -> None:
        """Show the right answer (and close the question: no answers after the reveal)."""
        self._set_question(code, host_token, question_id, status="closed", revealed=True,
                           closed_at=_now())

    def _set_question(self, code: str, host_token: str, question_id: int, **values) -> None:
        with db.write(self.engine) as conn:
            sid = self._host(conn, code, host_token)
            done = conn.execute(update(LiveQuestion)
                                .where(LiveQuestion.id == int(question_id),
                                       LiveQuestion.session_id == sid).values(**values))
            if done.rowcount != 1:
                raise LiveError("question_unknown")

    def question(self, question_id: int) -> Question | None:
        with db.read(self.engine) as conn:
            row = conn.execute(select(LiveQuestion).where(
                LiveQuestion.id == int(question_id))).first()
        return _question(row) if row else None

    def current_question(self, code: str) -> Question | None:
        with db.read(self.engine) as conn:
            row = conn.execute(
                select(LiveQuestion)
                .join(LiveSession, LiveSession.current_question_id == LiveQuestion.id)
                .where(LiveSession.code == normalise_code(code))).first()
        return _question(row) if row else None

    # --- answers --------------------------------------------------------------------------

    def answer(self, code: str, token: str, question_id: int, value: str) -> AnswerResult:
        """Store (or change) this participant's answer; refused once the question is closed."""
        if not isinstance(value, str) or not value.strip():
            raise LiveError("answer_empty")
        if len(value) > 64:
            raise LiveError("answer_too_long")
        with db.write(self.engine) as conn:
            sid, status, current = self._bump(conn, code, state=False)
            if status != "open":
                raise LiveError("session_closed")
            q = conn.execute(select(LiveQuestion.kind, LiveQuestion.options,
                                    LiveQuestion.status)
                             .where(LiveQuestion.id == int(question_id),
                                    LiveQuestion.session_id == sid)).first()
            if q is None:
                raise LiveError("question_unknown")
            if q.status != "open" or current != int(question_id):
                raise LiveError("question_closed")
            pid = conn.scalar(select(LiveParticipant.id).where(
                LiveParticipant.token == str(token), LiveParticipant.session_id == sid))
            if pid is None:
                raise LiveError("not_joined")
            stored, number = _validate(q.kind, q.options, value)
            previous = conn.scalar(select(LiveAnswer.value).where(
                LiveAnswer.question_id == int(question_id), LiveAnswer.participant_id == pid))
            now = _now()
            stmt = self._insert(LiveAnswer.__table__).values(
                question_id=int(question_id), participant_id=pid, value=stored, number=number,
                revisions=1, created_at=now, updated_at=now)
            conn.execute(stmt.on_conflict_do_update(
                index_elements=["question_id", "participant_id"],
                set_={"value": stored, "number": number, "updated_at": now,
                      "revisions": LiveAnswer.__table__.c.revisions + 1}))
        return AnswerResult(stored, previous)

    def my_answer(self, question_id: int, token: str) -> str | None:
        with db.read(self.engine) as conn:
            return conn.scalar(
                select(LiveAnswer.value)
                .join(LiveParticipant, LiveParticipant.id == LiveAnswer.participant_id)
                .where(LiveAnswer.question_id == int(question_id),
                       LiveParticipant.token == str(token)))

    # --- reading --------------------------------------------------------------------------

    def poll(self, code: str, max_age: float = 0.0) -> Poll | None:
        """The session's counters (one indexed row). With ``max_age`` > 0 a result that young
        is reused from this process's cache: 150 phones polling cost one query a second."""
        code = normalise_code(code)
        now = time.monotonic()
        if max_age > 0:
            with self._poll_lock:
                hit = self._poll_cache.get(code)
            if hit and now - hit[0] < max_age:
                return hit[1]
        with db.read(self.engine) as conn:
            row = conn.execute(select(LiveSession.version, LiveSession.state_version,
                                      LiveSession.current_question_id, LiveSession.status)
                               .where(LiveSession.code == code)).first()
        result = Poll(row.version, row.state_version, row.current_question_id,
                      row.status) if row else None
        if result is not None:
            with self._poll_lock:
                # a slower read that started earlier must not overwrite a newer one: the
                # counters would go back and every phone would redraw for nothing
                hit = self._poll_cache.get(code)
                if hit is None or hit[0] <= now:
                    self._poll_cache[code] = (now, result)
        return result

    def tally(self, question_id: int) -> Tally:
        """Counts, distribution, the number right, the most common wrong answer and (for a
        metric or an option that names one) the misconception behind it."""
        with db.read(self.engine) as conn:
            row = conn.execute(select(LiveQuestion).where(
                LiveQuestion.id == int(question_id))).first()
            if row is None:
                raise LiveError("question_unknown")
            q = _question(row)
            groups = conn.execute(select(LiveAnswer.value, LiveAnswer.number, func.count())
                                  .where(LiveAnswer.question_id == q.id)
                                  .group_by(LiveAnswer.value, LiveAnswer.number)).all()
            participants = conn.scalar(
                select(func.count()).select_from(LiveParticipant)
                .where(LiveParticipant.session_id == row.session_id)) or 0
        return _tally(q, [(g[0], g[1], int(g[2])) for g in groups], int(participants))

    def export_csv(self, code: str, host_token: str) -> str:
        """Every answer of the session, one row each (spreadsheet formulas neutralised)."""
        with db.read(self.engine) as conn:
            sid = conn.scalar(select(LiveSession.id).where(
                LiveSession.code == normalise_code(code)))
            if sid is None:
                raise LiveError("unknown_session")
            if not self.is_host(code, host_token):
                raise LiveError("not_host")
            rows = conn.execute(
                select(LiveQuestion.position, LiveQuestion.template, LiveQuestion.measure,
                       LiveQuestion.kind, LiveQuestion.correct, LiveQuestion.tolerance,
                       LiveQuestion.options, LiveParticipant.anon_label,
                       LiveParticipant.nickname, LiveAnswer.value, LiveAnswer.number,
                       LiveAnswer.revisions, LiveAnswer.created_at, LiveAnswer.updated_at)
                .join(LiveQuestion, LiveQuestion.id == LiveAnswer.question_id)
                .join(LiveParticipant, LiveParticipant.id == LiveAnswer.participant_id)
                .where(LiveQuestion.session_id == sid)
                .order_by(LiveQuestion.position, LiveParticipant.id)).all()
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["session", "question", "template", "measure", "kind", "correct_answer",
                         "participant", "nickname", "answer", "is_correct", "revisions",
                         "answered_at", "updated_at"])
        for r in rows:
            right = _is_correct(r.kind, r.correct, r.tolerance, r.value, r.number)
            writer.writerow([normalise_code(code), r.position, r.template, r.measure or "",
                             r.kind, r.correct, r.anon_label, _csv_safe(r.nickname or ""),
                             _csv_safe(r.value), int(right), r.revisions,
                             _iso(r.created_at), _iso(r.updated_at)])
        return out.getvalue()

    # --- internals ------------------------------------------------------------------------

    def _bump(self, conn: Connection, code: str, *, state: bool) -> tuple[int, str, int | None]:
        """Lock the session row (first statement of every write) and bump its counters."""
        values: dict[str, Any] = {"version": LiveSession.version + 1}
        if state:
            values["state_version"] = LiveSession.state_version + 1
        row = conn.execute(update(LiveSession).where(LiveSession.code == normalise_code(code))
                           .values(**values)
                           .returning(LiveSession.id, LiveSession.status,
                                      LiveSession.current_question_id)).first()
        if row is None:
            raise LiveError("unknown_session")
        return row.id, row.status, row.current_question_id

    def _host(self, conn: Connection, code: str, host_token: str) -> int:
        sid, _status, _ = self._bump(conn, code, state=True)
        token = conn.scalar(select(LiveSession.host_token).where(LiveSession.id == sid))
        if not hmac.compare_digest(str(token), str(host_token)):
            raise LiveError("not_host")
        return sid


def _question(row) -> Question:
    return Question(row.id, row.position, row.kind, row.template, row.measure,
                    dict(row.scenario or {}), list(row.options or []), row.correct,
                    float(row.tolerance), row.status, bool(row.revealed))


def _validate(kind: str, options: list, value: str) -> tuple[str, float | None]:
    text = value.strip()
    if kind == "choice":
        if text not in [str(o.get("value")) for o in options]:
            raise LiveError("answer_not_option")
        return text, None
    number = parse_number(text)
    if number is None or not math.isfinite(number) or abs(number) > MAX_ABS_NUMBER:
        raise LiveError("answer_not_number")
    return canonical_number(number), number


def _is_correct(kind: str, correct: str, tolerance: float, value: str,
                number: float | None) -> bool:
    if kind == "choice":
        return value == correct
    right = parse_number(correct)
    return number is not None and right is not None and abs(number - right) <= tolerance + 1e-9


def _tally(q: Question, groups: list[tuple[str, float | None, int]], participants: int) -> Tally:
    answered = sum(n for _, _, n in groups)
    wrong: Counter[str] = Counter()
    example: dict[str, float] = {}
    n_correct = 0
    if q.kind == "choice":
        counts = Counter()
        for value, _, n in groups:
            counts[value] += n
        distribution = [(str(o["value"]), counts.get(str(o["value"]), 0)) for o in q.options]
        for value, n in counts.items():
            if value == q.correct:
                n_correct += n
            else:
                wrong[value] += n
        correct_label = q.correct
    else:
        bins: Counter[str] = Counter()
        for value, number, n in groups:
            label = number_label(number if number is not None else float(value))
            bins[label] += n
            if _is_correct("numeric", q.correct, q.tolerance, value, number):
                n_correct += n
            else:
                wrong[label] += n
                example.setdefault(label, number if number is not None else float(value))
        distribution = sorted(bins.items(), key=lambda item: float(item[0]))
        correct_label = number_label(parse_number(q.correct) or 0.0)
    top_wrong, top_count, mistake = None, 0, None
    if wrong:
        # most answers first; ties broken by the label so every process shows the same one
        top_wrong, top_count = sorted(wrong.items(), key=lambda item: (-item[1], item[0]))[0]
        mistake = _mistake_of(q, top_wrong, example.get(top_wrong))
    return Tally(q.id, answered, participants, distribution, correct_label, n_correct,
                 top_wrong, top_count, mistake)


def _mistake_of(q: Question, label: str, number: float | None) -> str | None:
    if q.kind == "choice":
        for option in q.options:
            if str(option.get("value")) == label:
                return option.get("mistake") or None
        return None
    from teaching import mistakes  # here, not at the top: pandas is not needed to answer

    sc = q.scenario
    if q.measure not in mistakes.MEASURES or number is None or not sc.get("ranking"):
        return None
    try:
        key = mistakes.diagnose(q.measure, list(sc["ranking"]), dict(sc.get("qrels", {})),
                                int(sc["k"]), number, tolerance=q.tolerance)
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return None
    return None if key in ("correct", "wrong_unknown") else key


def _csv_safe(text: str) -> str:
    """A cell a spreadsheet will not run as a formula (OWASP CSV injection)."""
    if text and text[0] in "=+-@\t\r" and parse_number(text) is None:
        return "'" + text
    return text


def _iso(value: datetime | None) -> str:
    if value is None:
        return ""
    if value.tzinfo is None:  # SQLite returns naive datetimes: they were stored in UTC
        value = value.replace(tzinfo=UTC)
    return value.isoformat(timespec="seconds")


_SERVICES: dict[str, LiveService] = {}
_SERVICES_LOCK = threading.Lock()


def service(url: str | None = None) -> LiveService:
    """The process-wide service for the configured database (migrated on first use)."""
    url = url or db.database_url()
    with _SERVICES_LOCK:
        svc = _SERVICES.get(url)
        if svc is None:
            svc = _SERVICES[url] = LiveService(db.engine(url))
        return svc
