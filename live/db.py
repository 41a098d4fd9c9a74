"""The database: which one, how to connect, and bringing its schema up to date.

``MIZAN_DATABASE_URL`` (``postgresql://user@host/db``; plain ``postgresql://`` URLs are sent
to psycopg 3) selects PostgreSQL. Without it Mizan uses one SQLite file,
``$MIZAN_DATA_DIR/mizan.sqlite3`` (default ``<repo>/data``), in WAL mode (readers never wait
for the writer) with a busy timeout (concurrent writers queue instead of failing). SQLite
write transactions start with ``BEGIN IMMEDIATE`` so a read-then-write (is the question still
open? then store the answer) cannot interleave with another process's write.

Nothing waits for the database without a bound, so a hung or unreachable database cannot
freeze every screen: ``MIZAN_DB_CONNECT_TIMEOUT_S`` (default 5; libpq's minimum is 2) bounds a
new connection, ``MIZAN_DB_STATEMENT_TIMEOUT_S`` (default 5) bounds each statement (PostgreSQL
``statement_timeout``, lock waits included; SQLite's busy timeout); the wait for a free pooled
connection is bounded by their sum. A transaction left idle by a frozen app process is ended
by PostgreSQL after twice the statement timeout (``idle_in_transaction_session_timeout``),
releasing its row locks. TCP keepalives and
``tcp_user_timeout`` notice a database host that went away. Every such failure leaves
:func:`read` / :func:`write` as :class:`live.errors.DatabaseUnavailable` (key ``database``).
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import make_url

from live.errors import DatabaseUnavailable

__all__ = ["database_url", "engine", "make_engine", "read", "timeouts", "upgrade", "write"]

ROOT = Path(__file__).resolve().parents[1]
CONNECT_TIMEOUT_S = 5.0
STATEMENT_TIMEOUT_S = 5.0
_WRITE = "mizan_write"
# what "the database is not answering" looks like: refused or lost connections, a statement
# or lock wait cancelled by its timeout, SQLite's "database is locked", an exhausted pool
_UNAVAILABLE = (sa_exc.OperationalError, sa_exc.InterfaceError, sa_exc.TimeoutError)


def timeouts() -> tuple[float, float]:
    """(connect, statement) timeouts in seconds from the environment (see the module doc)."""
    out = []
    for name, default in (("MIZAN_DB_CONNECT_TIMEOUT_S", CONNECT_TIMEOUT_S),
                          ("MIZAN_DB_STATEMENT_TIMEOUT_S", STATEMENT_TIMEOUT_S)):
        raw = os.environ.get(name, "").strip()
        try:
            value = float(raw) if raw else default
        except ValueError:
            value = 0.0
        if not value > 0:
            raise ValueError(f"{name} must be a positive number of seconds, not {raw!r}")
        out.append(value)
    return out[0], out[1]


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


def make_engine(url: str | None = None, *, connect_timeout: float | None = None,
                statement_timeout: float | None = None) -> Engine:
    """A new engine for ``url`` (default :func:`database_url`) with the timeouts (default
    :func:`timeouts`) applied, and SQLite's pragmas."""
    url = url or database_url()
    default_connect, default_statement = timeouts()
    connect_s = connect_timeout or default_connect
    statement_s = statement_timeout or default_statement
    statement_ms = max(1, round(statement_s * 1000))
    if url.startswith("sqlite"):
        path = make_url(url).database
        if path and path != ":memory:":
            folder = Path(path).parent
            if not folder.is_dir():
                folder.mkdir(parents=True, exist_ok=True)
                # class data (nicknames, answers) must never be committed by accident
                (folder / ".gitignore").write_text("*\n", encoding="utf-8")
        eng = create_engine(url, connect_args={"timeout": statement_s,
                                               "check_same_thread": False})
        _sqlite_setup(eng, statement_ms)
        return eng
    options = (f"-c statement_timeout={statement_ms} "
               f"-c idle_in_transaction_session_timeout={2 * statement_ms}")
    connect_args = {
        "connect_timeout": max(2, math.ceil(connect_s)),  # libpq: whole seconds, at least 2
        "options": options,
        # a database host that vanished (no ACKs): give up instead of waiting for TCP
        "keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 3,
        "keepalives_count": 3, "tcp_user_timeout": round(1000 * (connect_s + statement_s)),
    }
    # a process runs one script thread per busy session: room for a burst of them
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20,
                         pool_timeout=connect_s + statement_s, connect_args=connect_args)


def _sqlite_setup(eng: Engine, busy_timeout_ms: int) -> None:
    @event.listens_for(eng, "connect")
    def _on_connect(dbapi_conn, _record) -> None:
        dbapi_conn.isolation_level = None  # we emit BEGIN ourselves (below)
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute(f"PRAGMA busy_timeout={busy_timeout_ms}")
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
    """One write transaction (``BEGIN IMMEDIATE`` on SQLite), committed on success; a
    database that does not answer in time → :class:`DatabaseUnavailable`."""
    try:
        with eng.connect() as conn:
            conn.execution_options(**{_WRITE: True})
            with conn.begin():
                yield conn
    except _UNAVAILABLE as err:
        raise DatabaseUnavailable() from err


@contextmanager
def read(eng: Engine) -> Iterator[Connection]:
    """One read-only transaction (same timeouts and error as :func:`write`)."""
    try:
        with eng.connect() as conn, conn.begin():
            yield conn
    except _UNAVAILABLE as err:
        raise DatabaseUnavailable() from err


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
            # another process may be migrating: wait for it, whatever the statement timeout
            conn.exec_driver_sql("SET statement_timeout = 0")
            conn.exec_driver_sql("SELECT pg_advisory_lock(824071)")  # session-level lock
            conn.commit()
        elif eng.dialect.name == "sqlite":
            conn.execution_options(**{_WRITE: True})
            # SQLite changes a column by copying the table and dropping the old one; with
            # foreign keys on, that drop would cascade into every participant and answer.
            # The pragma only takes effect outside a transaction: set it on the raw connection.
            conn.connection.dbapi_connection.execute("PRAGMA foreign_keys=OFF")
        try:
            with conn.begin():
                cfg.attributes["connection"] = conn
                command.upgrade(cfg, revision)
        finally:
            if eng.dialect.name == "sqlite":
                conn.connection.dbapi_connection.execute("PRAGMA foreign_keys=ON")
            if eng.dialect.name == "postgresql":
                conn.exec_driver_sql("SELECT pg_advisory_unlock(824071)")
                conn.exec_driver_sql("RESET statement_timeout")  # pooled: back to the bound
                conn.commit()
