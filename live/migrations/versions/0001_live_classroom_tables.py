"""Live classroom tables: sessions, questions, participants, answers (live/models.py).

Revision ID: 0001
Revises: (none)
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _created(name: str = "created_at") -> sa.Column:
    return sa.Column(name, sa.DateTime(timezone=True), server_default=sa.func.now(),
                     nullable=False)


def upgrade() -> None:
    op.create_table(
        "live_sessions",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("code", sa.String(6), nullable=False, unique=True),
        sa.Column("host_token", sa.String(32), nullable=False),
        sa.Column("lesson", sa.String(40), nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("state_version", sa.Integer(), nullable=False),
        sa.Column("current_question_id", sa.Integer(), nullable=True),
        _created(),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "live_participants",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("session_id", sa.Integer(),
                  sa.ForeignKey("live_sessions.id", ondelete="CASCADE"), nullable=False),
        sa.Column("token", sa.String(32), nullable=False, unique=True),
        sa.Column("nickname", sa.String(24), nullable=True),
        sa.Column("nickname_key", sa.String(72), nullable=True),
        sa.Column("anon_label", sa.String(16), nullable=False),
        _created("joined_at"),
        sa.UniqueConstraint("session_id", "nickname_key", name="uq_participant_nick"),
    )
    op.create_index("ix_live_participants_session_id", "live_participants", ["session_id"])
    op.create_table(
        "live_questions",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("session_id", sa.Integer(),
                  sa.ForeignKey("live_sessions.id", ondelete="CASCADE"), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("template", sa.String(40), nullable=False),
        sa.Column("measure", sa.String(16), nullable=True),
        sa.Column("scenario", sa.JSON(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("correct", sa.String(32), nullable=False),
        sa.Column("tolerance", sa.Float(), nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("revealed", sa.Boolean(), nullable=False),
        _created(),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("session_id", "position", name="uq_question_position"),
    )
    op.create_index("ix_live_questions_session_id", "live_questions", ["session_id"])
    op.create_table(
        "live_answers",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("question_id", sa.Integer(),
                  sa.ForeignKey("live_questions.id", ondelete="CASCADE"), nullable=False),
        sa.Column("participant_id", sa.Integer(),
                  sa.ForeignKey("live_participants.id", ondelete="CASCADE"), nullable=False),
        sa.Column("value", sa.String(32), nullable=False),
        sa.Column("number", sa.Float(), nullable=True),
        sa.Column("revisions", sa.Integer(), nullable=False),
        _created(),
        _created("updated_at"),
        sa.UniqueConstraint("question_id", "participant_id", name="uq_answer_once"),
    )
    op.create_index("ix_live_answers_question_id", "live_answers", ["question_id"])


def downgrade() -> None:
    op.drop_table("live_answers")
    op.drop_table("live_questions")
    op.drop_table("live_participants")
    op.drop_table("live_sessions")
