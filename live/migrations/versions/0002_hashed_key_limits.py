"""The instructor key stored only as its SHA-256; joining lock, idle expiry, removed
participants and answer pacing (live/limits.py); nickname keys recomputed with the
look-alike-proof normalisation (live.service.nickname_key).

Existing sessions keep working with the key their instructor holds: each stored key is
hashed in place. Downgrading cannot bring the keys back (only their hashes exist): it gives
every session a fresh random key that nobody knows, i.e. open sessions can no longer be run.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

import secrets
import time

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

sessions = sa.table("live_sessions", sa.column("id", sa.Integer),
                    sa.column("host_token", sa.String), sa.column("host_key_hash", sa.String),
                    sa.column("last_active_at", sa.Float))
participants = sa.table("live_participants", sa.column("id", sa.Integer),
                        sa.column("session_id", sa.Integer), sa.column("nickname", sa.String),
                        sa.column("nickname_key", sa.String))


def upgrade() -> None:
    from live.service import hash_key, nickname_key

    with op.batch_alter_table("live_sessions") as batch:
        batch.add_column(sa.Column("host_key_hash", sa.String(64), nullable=True))
        batch.add_column(sa.Column("joining_locked", sa.Boolean(), nullable=False,
                                   server_default=sa.false()))
        batch.add_column(sa.Column("last_active_at", sa.Float(), nullable=True))
    conn = op.get_bind()
    now = time.time()  # an existing session's idle time starts now, not at its creation
    for sid, token in conn.execute(sa.select(sessions.c.id, sessions.c.host_token)).all():
        conn.execute(sessions.update().where(sessions.c.id == sid)
                     .values(host_key_hash=hash_key(token), last_active_at=now))
    with op.batch_alter_table("live_sessions") as batch:
        batch.alter_column("host_key_hash", existing_type=sa.String(64), nullable=False)
        batch.drop_column("host_token")

    with op.batch_alter_table("live_participants") as batch:
        batch.add_column(sa.Column("removed", sa.Boolean(), nullable=False,
                                   server_default=sa.false()))
        batch.add_column(sa.Column("last_answer_at", sa.Float(), nullable=True))
    rows = conn.execute(sa.select(participants.c.id, participants.c.session_id,
                                  participants.c.nickname, participants.c.nickname_key)
                        .where(participants.c.nickname.is_not(None))
                        .order_by(participants.c.id)).all()
    taken: set[tuple[int, str]] = {(r.session_id, r.nickname_key) for r in rows}
    for r in rows:
        key = nickname_key(r.nickname)
        # two old nicknames that now look alike both stay: the later keeps its old key
        if key and key != r.nickname_key and len(key) <= 72 and (r.session_id, key) not in taken:
            conn.execute(participants.update().where(participants.c.id == r.id)
                         .values(nickname_key=key))
            taken.discard((r.session_id, r.nickname_key))
            taken.add((r.session_id, key))


def downgrade() -> None:
    with op.batch_alter_table("live_participants") as batch:
        batch.drop_column("last_answer_at")
        batch.drop_column("removed")
    with op.batch_alter_table("live_sessions") as batch:
        batch.add_column(sa.Column("host_token", sa.String(32), nullable=True))
    conn = op.get_bind()
    for (sid,) in conn.execute(sa.select(sessions.c.id)).all():
        conn.execute(sessions.update().where(sessions.c.id == sid)
                     .values(host_token=secrets.token_hex(16)))
    with op.batch_alter_table("live_sessions") as batch:
        batch.alter_column("host_token", existing_type=sa.String(32), nullable=False)
        batch.drop_column("last_active_at")
        batch.drop_column("joining_locked")
        batch.drop_column("host_key_hash")
