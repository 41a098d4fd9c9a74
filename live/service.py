"""What the live page (and the load test) can do with a live session: the only way in.

Every write is one short transaction that first bumps the session row's ``version``
(``UPDATE … RETURNING``). On PostgreSQL that row lock queues the writes of one session, on
SQLite ``BEGIN IMMEDIATE`` does, so "is the question still open? then store the answer" is
never split by a concurrent close, and the projector's one-integer poll sees every change.
An answer is an upsert on the unique (question, participant) pair: a student who answers
again changes their row, never adds one.

Refusals raise :class:`LiveError` with a ``key`` the page translates (``[error]`` in
``live/messages.*.toml``); nothing is written when one is raised. A database that does not
answer within its timeouts raises :class:`DatabaseUnavailable` (key ``database``).

The instructor key is returned once by :meth:`LiveService.create_session` (and by
:meth:`~LiveService.rotate_key`) and stored only as its SHA-256, compared in constant time.
Limits (``live/limits.py``): join attempts and wrong codes per client, joins per session per
minute, answers per participant per second, idle expiry, a joining lock and removal by the
instructor. A wrong code and a closed (or expired) one get the same refusal, so trying codes
tells nothing about which sessions exist.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import math
import re
import secrets
import threading
import time
import unicodedata
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Engine, case, delete, func, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite

from live import db
from live.errors import DatabaseUnavailable, LiveError
from live.limits import GUESS_WINDOW_S, ClientBudget, Limits, current_client, from_env
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
    "DatabaseUnavailable",
    "LiveError",
    "LiveService",
    "Member",
    "Poll",
    "QuestionSpec",
    "Tally",
    "normalise_code",
    "service",
]

# No 0/O, 1/I/L: a code read off a projector is typed without guessing.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
MAX_ABS_NUMBER = 1e6
NICKNAME_KEY_MAX = 72
# Characters that draw as nothing or as a blank though Unicode does not call them format
# characters (Hangul fillers, braille blank, invisible Khmer vowels, grapheme joiner).
_BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u17b4\u17b5\u034f")
_HASH_LOOKALIKES = str.maketrans({"\u266f": "#", "\u2317": "#", "\u22d5": "#"})
_TATWEEL = "\u0640"


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
    status: str           # "open" or "closed" (ended by the instructor, or idle too long)
    joining_locked: bool = False


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
    host_token: str       # the instructor key: shown once, only its hash is stored


@dataclass(frozen=True)
class Member:
    """A participant as the instructor's controls see them (``id`` for removing)."""

    id: int
    label: str
    anonymous: bool


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


def hash_key(key: object) -> str:
    """What is stored of an instructor key: its SHA-256 (hex). The key is 128 random bits,
    so nothing slower is needed to make the hash useless to whoever reads the database."""
    return hashlib.sha256(str(key).encode("utf-8")).hexdigest()


def key_matches(stored_hash: str | None, key: object) -> bool:
    """Constant-time comparison of ``key`` with a stored hash."""
    return stored_hash is not None and hmac.compare_digest(str(stored_hash), hash_key(key))


def normalise_code(text: object) -> str:
    """What a student typed → a code to look up (``" ab-c 23d "`` → ``"ABC23D"``)."""
    if not isinstance(text, str):
        return ""
    cleaned = western_digits(text).upper()
    return re.sub(r"[\s\-_.]", "", cleaned)[: CODE_LENGTH * 2]


def clean_nickname(text: object) -> str:
    """The nickname as shown: NFC, every run of whitespace (no-break, ideographic, thin…)
    one plain space, trimmed. Nothing else is removed: see :func:`nickname_problem`."""
    if not isinstance(text, str):
        return ""
    return " ".join(unicodedata.normalize("NFC", text).split())


def nickname_key(nick: str) -> str:
    """What two nicknames must not share in one session: NFKC (full-width, ligatures,
    compatibility forms folded), accents and Arabic diacritics and tatweel dropped, case
    folded, spaces removed — so ``Sara``, ``ＳＡＲＡ``, ``S ara`` and ``Sára`` are one name."""
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", nick))
    text = "".join(ch for ch in text
                   if unicodedata.category(ch) not in ("Mn", "Me") and ch != _TATWEEL)
    text = unicodedata.normalize("NFKC", text.casefold().translate(_HASH_LOOKALIKES))
    return "".join(text.split())


def nickname_problem(nick: str) -> str | None:
    """Why a (cleaned) nickname is refused, as an error key, or None.

    ``nickname_invisible``: a control, format (zero-width, bidi override/isolate), private-use,
    unassigned or line/paragraph-separator character, or a blank filler; ``nickname_invalid``:
    nothing visible left; ``nickname_reserved``: it reads as an anonymous student's number
    (``#1``, ``＃ ١``, ``♯7``); ``nickname_too_long``."""
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp")
           or ch in _BLANKS for ch in nick):
        return "nickname_invisible"
    if len(nick) > NICKNAME_MAX:
        return "nickname_too_long"
    key = nickname_key(nick)
    if nick and not key:
        return "nickname_invalid"
    if len(key) > NICKNAME_KEY_MAX:
        return "nickname_too_long"
    if re.match(r"#\d", key):
        return "nickname_reserved"
    return None


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

    def __init__(self, engine: Engine, limits: Limits | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.engine = engine
        self.limits = limits or from_env()
        self.clock = clock  # wall-clock seconds (stored, compared across hosts: keep NTP on)
        self._insert = (postgresql.insert if engine.dialect.name == "postgresql"
                        else sqlite.insert)
        self._poll_cache: dict[str, tuple[float, Poll]] = {}
        self._poll_lock = threading.Lock()
        self._join_attempts = ClientBudget(self.limits.client_joins_per_minute, 60.0)
        self._wrong_codes = ClientBudget(self.limits.client_wrong_codes, GUESS_WINDOW_S)

    def _now(self) -> datetime:
        return datetime.fromtimestamp(self.clock(), UTC)

    def _status(self, status: str | None, last_active_at: float | None) -> str | None:
        """The status a reader sees: an open session idle for too long is closed."""
        if status == "open" and last_active_at is not None and \
                last_active_at < self.clock() - self.limits.idle_s:
            return "closed"
        return status

    def _client_guard(self, client: str | None) -> str | None:
        """The calling client (explicit, else the registered provider), refused outright
        while it has used up its wrong codes/keys."""
        client = client if client is not None else current_client()
        if client and self._wrong_codes.exhausted(client):
            raise LiveError("too_many_wrong_codes")
        return client

    # --- sessions -------------------------------------------------------------------------

    def create_session(self, lesson: str = "") -> Created:
        """A new open session with a fresh join code (retried on the rare collision) and a
        fresh instructor key, returned here once (only its hash is stored)."""
        host_token = secrets.token_hex(16)
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            with db.write(self.engine) as conn:
                taken = conn.scalar(select(LiveSession.id).where(LiveSession.code == code))
                if taken is None:
                    conn.execute(LiveSession.__table__.insert().values(
                        code=code, host_key_hash=hash_key(host_token), lesson=lesson[:40],
                        status="open", version=0, state_version=0, joining_locked=False,
                        last_active_at=self.clock(), created_at=self._now()))
                    return Created(code, host_token)
        raise LiveError("no_code")  # pragma: no cover - 31^6 codes

    def close_session(self, code: str, host_token: str) -> None:
        with db.write(self.engine) as conn:
            sid = self._host(conn, code, host_token, require_open=False)
            conn.execute(update(LiveQuestion).where(LiveQuestion.session_id == sid,
                                                    LiveQuestion.status == "open")
                         .values(status="closed", closed_at=self._now()))
            conn.execute(update(LiveSession).where(LiveSession.id == sid)
                         .values(status="closed", closed_at=self._now()))

    def open_sessions(self) -> list[str]:
        """Codes of every open session (what a restarted process finds); idle ones excluded."""
        cutoff = self.clock() - self.limits.idle_s
        with db.read(self.engine) as conn:
            return list(conn.scalars(
                select(LiveSession.code)
                .where(LiveSession.status == "open",
                       or_(LiveSession.last_active_at.is_(None),
                           LiveSession.last_active_at >= cutoff))
                .order_by(LiveSession.id)))

    def session_exists(self, code: str) -> str | None:
        """``"open"``, ``"closed"`` or None for an unknown code. Not for answering a student
        who typed a code (that would tell which codes exist): :meth:`join` answers both
        unknown and closed codes with ``unknown_session``."""
        with db.read(self.engine) as conn:
            row = conn.execute(select(LiveSession.status, LiveSession.last_active_at)
                               .where(LiveSession.code == normalise_code(code))).first()
        return self._status(row.status, row.last_active_at) if row else None

    def is_host(self, code: str, host_token: str) -> bool:
        with db.read(self.engine) as conn:
            stored = conn.scalar(select(LiveSession.host_key_hash)
                                 .where(LiveSession.code == normalise_code(code)))
        return key_matches(stored, host_token)

    def resume_host(self, code: str, host_token: str, *, client: str | None = None) -> str:
        """The instructor's screen after a reload or a reconnect: check the code and the key
        the browser kept, return the normalised code. An unknown code and a wrong key are the
        same refusal (``not_host``) and count as wrong guesses for ``client``; a right key for
        an ended or expired session → ``session_closed``."""
        client = self._client_guard(client)
        with db.read(self.engine) as conn:
            row = conn.execute(select(LiveSession.host_key_hash, LiveSession.status,
                                      LiveSession.last_active_at)
                               .where(LiveSession.code == normalise_code(code))).first()
        if row is None or not key_matches(row.host_key_hash, host_token):
            if client:
                self._wrong_codes.spend(client)
            raise LiveError("not_host")
        if self._status(row.status, row.last_active_at) != "open":
            raise LiveError("session_closed")
        return normalise_code(code)

    def rotate_key(self, code: str, host_token: str) -> str:
        """A new instructor key for the session (returned once); the old one stops working
        at once, on every process (e.g. after the key was seen on a shared screen)."""
        new = secrets.token_hex(16)
        with db.write(self.engine) as conn:
            sid = self._host(conn, code, host_token)
            conn.execute(update(LiveSession).where(LiveSession.id == sid)
                         .values(host_key_hash=hash_key(new)))
        return new

    def set_joining(self, code: str, host_token: str, *, locked: bool) -> None:
        """Lock (or reopen) joining: joined students go on answering, nobody new gets in."""
        with db.write(self.engine) as conn:
            sid = self._host(conn, code, host_token)
            conn.execute(update(LiveSession).where(LiveSession.id == sid)
                         .values(joining_locked=bool(locked)))

    # --- participants ---------------------------------------------------------------------

    def join(self, code: str, nickname: str | None = None, *,
             client: str | None = None) -> Joined:
        """Join an open session, with a nickname (unique in the session by
        :func:`nickname_key`) or anonymously.

        Refusals, in the order checked: ``too_many_wrong_codes`` / ``join_too_often`` (this
        client), a nickname problem (:func:`nickname_problem`), ``unknown_session`` (unknown,
        ended or expired code: one answer for all three), ``joining_locked``,
        ``session_join_busy`` (more than the per-minute joins of the session),
        ``session_full``, ``nickname_taken``."""
        client = self._client_guard(client)
        if client:
            if self._join_attempts.exhausted(client):
                raise LiveError("join_too_often")
            self._join_attempts.spend(client)
        nick = clean_nickname(nickname or "")
        problem = nickname_problem(nick)
        if problem:
            raise LiveError(problem)
        key = nickname_key(nick) or None
        with db.write(self.engine) as conn:
            found = self._bump(conn, code, state=False, missing_ok=True)
            if found is None or found.status != "open":
                if client:
                    self._wrong_codes.spend(client)
                raise LiveError("unknown_session")
            sid = found.id
            if found.joining_locked:
                raise LiveError("joining_locked")
            now = self._now()
            recent = conn.scalar(select(func.count()).select_from(LiveParticipant).where(
                LiveParticipant.session_id == sid,
                LiveParticipant.joined_at > datetime.fromtimestamp(
                    self.clock() - 60.0, UTC))) or 0
            if recent >= self.limits.joins_per_minute:
                raise LiveError("session_join_busy")
            total, active = conn.execute(
                select(func.count(), func.count().filter(LiveParticipant.removed.is_(False)))
                .where(LiveParticipant.session_id == sid)).one()
            if (active or 0) >= self.limits.max_participants:
                raise LiveError("session_full")
            if key and conn.scalar(select(LiveParticipant.id).where(
                    LiveParticipant.session_id == sid, LiveParticipant.nickname_key == key)):
                raise LiveError("nickname_taken")
            token = secrets.token_hex(16)
            label = f"#{(total or 0) + 1}"
            conn.execute(LiveParticipant.__table__.insert().values(
                session_id=sid, token=token, nickname=nick or None, nickname_key=key,
                anon_label=label, removed=False, joined_at=now))
        return Joined(token, nick or label, not nick)

    def participant(self, code: str, token: str) -> Joined | None:
        """Who ``token`` is in session ``code`` (None if not joined there, or removed)."""
        with db.read(self.engine) as conn:
            row = conn.execute(
                select(LiveParticipant.nickname, LiveParticipant.anon_label)
                .join(LiveSession, LiveSession.id == LiveParticipant.session_id)
                .where(LiveSession.code == normalise_code(code),
                       LiveParticipant.token == str(token),
                       LiveParticipant.removed.is_(False))).first()
        if row is None:
            return None
        return Joined(str(token), row.nickname or row.anon_label, row.nickname is None)

    def roster(self, code: str, limit: int = 60) -> tuple[int, list[str]]:
        """How many joined, and the labels of the latest ``limit`` (newest first)."""
        members = self._members(code, limit)
        return members[0], [m.label for m in members[1]]

    def members(self, code: str, host_token: str, limit: int = 500) -> list[Member]:
        """The participants (newest first, removed ones left out) with the ids that
        :meth:`remove_participant` takes: for the instructor only."""
        if not self.is_host(code, host_token):
            raise LiveError("not_host")
        return self._members(code, limit)[1]

    def _members(self, code: str, limit: int) -> tuple[int, list[Member]]:
        with db.read(self.engine) as conn:
            sid = conn.scalar(select(LiveSession.id).where(
                LiveSession.code == normalise_code(code)))
            if sid is None:
                return 0, []
            active = (LiveParticipant.session_id == sid, LiveParticipant.removed.is_(False))
            count = conn.scalar(select(func.count()).select_from(LiveParticipant)
                                .where(*active)) or 0
            rows = conn.execute(select(LiveParticipant.id, LiveParticipant.nickname,
                                       LiveParticipant.anon_label)
                                .where(*active)
                                .order_by(LiveParticipant.id.desc()).limit(limit)).all()
        return int(count), [Member(r.id, r.nickname or r.anon_label, r.nickname is None)
                            for r in rows]

    def remove_participant(self, code: str, host_token: str, participant_id: int) -> None:
        """The instructor removes a participant: their answers are deleted (counts and the
        chart drop them), their token is refused (``removed``), their nickname stays taken."""
        with db.write(self.engine) as conn:
            sid = self._host(conn, code, host_token)
            done = conn.execute(update(LiveParticipant)
                                .where(LiveParticipant.id == int(participant_id),
                                       LiveParticipant.session_id == sid,
                                       LiveParticipant.removed.is_(False))
                                .values(removed=True))
            if done.rowcount != 1:
                raise LiveError("participant_unknown")
            conn.execute(delete(LiveAnswer).where(
                LiveAnswer.participant_id == int(participant_id)))

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
                         .values(status="closed", closed_at=self._now()))
            position = (conn.scalar(select(func.max(LiveQuestion.position))
                                    .where(LiveQuestion.session_id == sid)) or 0) + 1
            qid = conn.execute(LiveQuestion.__table__.insert().values(
                session_id=sid, position=position, kind=spec.kind, template=spec.template[:40],
                measure=spec.measure, scenario=dict(spec.scenario), options=options,
                correct=spec.correct, tolerance=float(spec.tolerance), status="open",
                revealed=False, created_at=self._now()).returning(LiveQuestion.id)).scalar_one()
            conn.execute(update(LiveSession).where(LiveSession.id == sid)
                         .values(current_question_id=qid))
            return qid

    def close_question(self, code: str, host_token: str, question_id: int) -> None:
        self._set_question(code, host_token, question_id, status="closed",
                           closed_at=self._now())

    def reveal(self, code: str, host_token: str, question_id: int) -> None:
        """Show the right answer (and close the question: no answers after the reveal)."""
        self._set_question(code, host_token, question_id, status="closed", revealed=True,
                           closed_at=self._now())

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
        """Store (or change) this participant's answer; refused once the question is closed,
        for a removed participant (``removed``) and when sent sooner than the answer rate
        allows after their previous one (``answer_too_fast``). The same answer again (a resend
        after a reconnect, or a second tap) is confirmed without a write, whenever it comes:
        an answer resent is never stored twice."""
        if not isinstance(value, str) or not value.strip():
            raise LiveError("answer_empty")
        if len(value) > 64:
            raise LiveError("answer_too_long")
        with db.write(self.engine) as conn:
            found = self._bump(conn, code, state=False)
            sid, current = found.id, found.current_question_id
            if found.status != "open":
                raise LiveError("session_closed")
            q = conn.execute(select(LiveQuestion.kind, LiveQuestion.options,
                                    LiveQuestion.status)
                             .where(LiveQuestion.id == int(question_id),
                                    LiveQuestion.session_id == sid)).first()
            if q is None:
                raise LiveError("question_unknown")
            if q.status != "open" or current != int(question_id):
                raise LiveError("question_closed")
            who = conn.execute(select(LiveParticipant.id, LiveParticipant.removed,
                                      LiveParticipant.last_answer_at).where(
                LiveParticipant.token == str(token), LiveParticipant.session_id == sid)).first()
            if who is None:
                raise LiveError("not_joined")
            if who.removed:
                raise LiveError("removed")
            pid = who.id
            stored, number = _validate(q.kind, q.options, value)
            previous = conn.scalar(select(LiveAnswer.value).where(
                LiveAnswer.question_id == int(question_id), LiveAnswer.participant_id == pid))
            if previous == stored:   # the same answer again (a resend): nothing to change
                return AnswerResult(stored, previous)
            moment = self.clock()
            if (who.last_answer_at is not None
                    and moment - who.last_answer_at < self.limits.answer_interval_s):
                raise LiveError("answer_too_fast")
            conn.execute(update(LiveParticipant).where(LiveParticipant.id == pid)
                         .values(last_answer_at=moment))
            now = self._now()
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
                                      LiveSession.current_question_id, LiveSession.status,
                                      LiveSession.last_active_at, LiveSession.joining_locked)
                               .where(LiveSession.code == code)).first()
        result = Poll(row.version, row.state_version, row.current_question_id,
                      self._status(row.status, row.last_active_at) or "closed",
                      bool(row.joining_locked)) if row else None
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
                .where(LiveParticipant.session_id == row.session_id,
                       LiveParticipant.removed.is_(False))) or 0
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

    def _bump(self, conn: Connection, code: str, *, state: bool,
              missing_ok: bool = False) -> _Locked | None:
        """Lock the session row (first statement of every write), bump its counters and its
        idle clock — unless it is already past the idle limit: then it stays expired and its
        status reads ``closed``."""
        now = self.clock()
        alive = or_(LiveSession.last_active_at.is_(None),
                    LiveSession.last_active_at >= now - self.limits.idle_s)
        values: dict[str, Any] = {"version": LiveSession.version + 1,
                                  "last_active_at": case((alive, now),
                                                         else_=LiveSession.last_active_at)}
        if state:
            values["state_version"] = LiveSession.state_version + 1
        row = conn.execute(update(LiveSession).where(LiveSession.code == normalise_code(code))
                           .values(**values)
                           .returning(LiveSession.id, LiveSession.status,
                                      LiveSession.current_question_id,
                                      LiveSession.last_active_at, LiveSession.joining_locked,
                                      LiveSession.host_key_hash)).first()
        if row is None:
            if missing_ok:
                return None
            raise LiveError("unknown_session")
        status = "closed" if row.last_active_at is not None and row.last_active_at < now \
            else row.status
        return _Locked(row.id, status, row.current_question_id, bool(row.joining_locked),
                       row.host_key_hash)

    def _host(self, conn: Connection, code: str, host_token: str, *,
              require_open: bool = True) -> int:
        found = self._bump(conn, code, state=True)
        if not key_matches(found.host_key_hash, host_token):
            raise LiveError("not_host")
        if require_open and found.status != "open":
            raise LiveError("session_closed")
        return found.id


@dataclass(frozen=True)
class _Locked:
    """The session row as the first statement of a write transaction left it."""

    id: int
    status: str
    current_question_id: int | None
    joining_locked: bool
    host_key_hash: str


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
