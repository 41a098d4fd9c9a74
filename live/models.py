"""The four tables of a live session (SQLAlchemy 2 declarative models).

* ``live_sessions``: one per class; ``code`` is the short join code shown on the projector;
  ``host_key_hash`` is the SHA-256 of the instructor key (the key itself is never stored: it
  is 128 random bits, so a plain hash cannot be reversed by guessing); ``last_active_at``
  (epoch seconds) ends a session left idle; ``joining_locked`` stops new joins.
  ``version`` grows on every change (answers too) so the projector polls one integer;
  ``state_version`` grows only when the question changes, closes or is revealed, so the
  students' phones poll an integer that does not move with every classmate's answer.
* ``live_questions``: pushed by the instructor, with the scenario (ranking, grades, k) and the
  right answer frozen at push time; ``status`` is ``open`` until closed.
* ``live_participants``: a student who joined; ``token`` is the secret that identifies them
  (kept by their browser session), ``nickname`` is only a label (unique per session, compared
  by ``nickname_key``); ``removed`` marks one the instructor removed (their answers are
  deleted, their token refused); ``last_answer_at`` paces their answers.
* ``live_answers``: at most one per (question, participant); changing it updates the row.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    String,
    UniqueConstraint,
    false,
    func,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

CODE_LENGTH = 6
TOKEN_LENGTH = 32
KEY_HASH_LENGTH = 64
NICKNAME_MAX = 24
ANSWER_MAX = 32


class Base(DeclarativeBase):
    pass


class LiveSession(Base):
    __tablename__ = "live_sessions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(String(CODE_LENGTH), unique=True, nullable=False)
    host_key_hash: Mapped[str] = mapped_column(String(KEY_HASH_LENGTH), nullable=False)
    lesson: Mapped[str] = mapped_column(String(40), nullable=False, default="")
    status: Mapped[str] = mapped_column(String(8), nullable=False, default="open")
    version: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    state_version: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    current_question_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    joining_locked: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False,
                                                 server_default=false())
    last_active_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), nullable=False, server_default=func.now())
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class LiveQuestion(Base):
    __tablename__ = "live_questions"
    __table_args__ = (UniqueConstraint("session_id", "position", name="uq_question_position"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_id: Mapped[int] = mapped_column(
        ForeignKey("live_sessions.id", ondelete="CASCADE"), nullable=False, index=True)
    position: Mapped[int] = mapped_column(Integer, nullable=False)
    kind: Mapped[str] = mapped_column(String(16), nullable=False)  # numeric | choice
    template: Mapped[str] = mapped_column(String(40), nullable=False, default="")
    measure: Mapped[str | None] = mapped_column(String(16), nullable=True)
    scenario: Mapped[dict] = mapped_column(JSON, nullable=False)
    options: Mapped[list] = mapped_column(JSON, nullable=False)  # [{"value", "mistake"?}]
    correct: Mapped[str] = mapped_column(String(ANSWER_MAX), nullable=False)
    tolerance: Mapped[float] = mapped_column(Float, nullable=False, default=0.005)
    status: Mapped[str] = mapped_column(String(8), nullable=False, default="open")
    revealed: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), nullable=False, server_default=func.now())
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class LiveParticipant(Base):
    __tablename__ = "live_participants"
    __table_args__ = (UniqueConstraint("session_id", "nickname_key", name="uq_participant_nick"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_id: Mapped[int] = mapped_column(
        ForeignKey("live_sessions.id", ondelete="CASCADE"), nullable=False, index=True)
    token: Mapped[str] = mapped_column(String(TOKEN_LENGTH), unique=True, nullable=False)
    nickname: Mapped[str | None] = mapped_column(String(NICKNAME_MAX), nullable=True)
    # casefolded nickname for uniqueness; NULL for anonymous students (NULLs never collide)
    nickname_key: Mapped[str | None] = mapped_column(String(NICKNAME_MAX * 3), nullable=True)
    anon_label: Mapped[str] = mapped_column(String(16), nullable=False)
    removed: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False,
                                          server_default=false())
    last_answer_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    joined_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), nullable=False, server_default=func.now())


class LiveAnswer(Base):
    __tablename__ = "live_answers"
    __table_args__ = (
        UniqueConstraint("question_id", "participant_id", name="uq_answer_once"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    question_id: Mapped[int] = mapped_column(
        ForeignKey("live_questions.id", ondelete="CASCADE"), nullable=False, index=True)
    participant_id: Mapped[int] = mapped_column(
        ForeignKey("live_participants.id", ondelete="CASCADE"), nullable=False)
    value: Mapped[str] = mapped_column(String(ANSWER_MAX), nullable=False)
    number: Mapped[float | None] = mapped_column(Float, nullable=True)
    revisions: Mapped[int] = mapped_column(Integer, nullable=False, default=1)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), nullable=False, server_default=func.now())
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), nullable=False, server_default=func.now())
