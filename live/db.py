"""The database: which one, how to connect, and bringing its schema up to date.

``MIZAN_DATABASE_URL`` (``postgresql://user@host/db``; plain ``postgresql://`` URLs are sent
to psycopg 3) selects PostgreSQL. Without it Mizan uses one SQLite file,
``$MIZAN_DATA_DIR/mizan.sqlite3`` (default ``<repo>/data``), in WAL mode (readers never wait
for the writer) with a busy timeout (concurrent writers queue instead of failing). SQLite
write transactions start with ``BEGIN IMMEDIATE`` so a read-then-write (is the question still
open? then store the answer) cannot interleave with another process's write.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url

__all__ = ["database_url", "engine", "make_engine", "read", "upgrade", "write"]

ROOT = Path(__file__).resolve().parents[1]
BUSY_TIMEOUT_MS = 10_000
_WRITE = "mizan_write"


def data_dir() -> Path:
    return Path(os.environ.get("MIZAN_DATA_DIR") or ROOT / "data")


def database_url() -> str:
    """The configured URL (PostgreSQL via psycopg 3) or the default SQLite file."""
    url = os.environ.get("MIZAN_DATABASE_URL", "").strip()
    if not url:
        return f"sqlite:///{data_dir() / 'mizan.sqlite3'}"
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed.render_as_string(hide_password=False)


def make_engine(url: str | None = None) -> Engine:
    """A new engine for ``url`` (default :func:`database_url`), SQLite pragmas applied."""
    url = url or database_url()
    if url.startswith("sqlite"):
        path = make_url(url).database
        if path and path != ":memory:":
            folder = Path(path).parent
            if not folder.is_dir():
                folder.mkdir(parents=True, exist_ok=True)
                # class data (nicknames, answers) must never be committed by accident
                (folder / ".gitignore").write_text("*\n", encoding="utf-8")
        eng = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000,
                                               "check_same_thread": False})
        _sqlite_setup(eng)
        return eng
    # a process runs one script thread per busy session: room for a burst of them
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20, pool_timeout=60)


def _sqlite_setup(eng: Engine) -> None:
    @event.listens_for(eng, "connect")
    def _on_connect(dbapi_conn, _record) -> None:
        dbapi_conn.isolation_level = None  # we emit BEGIN ourselves (below)
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.close()

    @event.listens_for(eng, "begin")
    def _on_begin(conn: Connection) -> None:
        immediate = conn.get_execution_options().get(_WRITE, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


_ENGINES: dict[str, Engine] = {}
_LOCK = threading.Lock()


def engine(url: str | None = None) -> Engine:
    """The process-wide engine for ``url`` (created, and migrated to head, on first use)."""
    url = url or database_url()
    with _LOCK:
        eng = _ENGINES.get(url)
        if eng is None:
            eng = make_engine(url)
            upgrade(eng)
            _ENGINES[url] = eng
        return eng


@contextmanager
def write(eng: Engine) -> Iterator[Connection]:
    """One write transaction (``BEGIN IMMEDIATE`` on SQLite), committed on success."""
    with eng.connect() as conn:
        conn.execution_options(**{_WRITE: True})
        with conn.begin():
            yield conn


@contextmanager
def read(eng: Engine) -> Iterator[Connection]:
    """One read-only transaction."""
    with eng.connect() as conn, conn.begin():
        yield conn


def alembic_config(url: str):
    from alembic.config import Config

    cfg = Config(str(ROOT / "alembic.ini"))
    cfg.set_main_option("script_location", str(Path(__file__).with_name("migrations")))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def upgrade(eng: Engine, revision: str = "head") -> None:
    """``alembic upgrade head`` on ``eng`` (idempotent; safe when several processes start at
    once: on PostgreSQL an advisory lock serialises them, on SQLite the write lock does)."""
    from alembic import command

    cfg = alembic_config(eng.url.render_as_string(hide_password=False))
    with eng.connect() as conn:
        if eng.dialect.name == "postgresql":
            conn.exec_driver_sql("SELECT pg_advisory_lock(824071)")  # session-level lock
            conn.commit()
        elif eng.dialect.name == "sqlite":
            conn.execution_options(**{_WRITE: True})
        try:
            with conn.begin():
                cfg.attributes["connection"] = conn
                command.upgrade(cfg, revision)
        finally:
            if eng.dialect.name == "postgresql":
                conn.exec_driver_sql("SELECT pg_advisory_unlock(824071)")
                conn.commit()
