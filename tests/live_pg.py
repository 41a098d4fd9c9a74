"""A throwaway PostgreSQL cluster for the live-classroom tests (Debian's server binaries).

``initdb`` + ``pg_ctl`` from ``/usr/lib/postgresql/<version>/bin`` in a temporary folder,
listening on a free localhost port with trust authentication, stopped and deleted afterwards.
PostgreSQL refuses to run as root: as root the cluster is run by the ``postgres`` system user
(created by the Debian package) through ``runuser``.
"""

from __future__ import annotations

import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import create_engine


def server_bin() -> Path | None:
    """The newest ``/usr/lib/postgresql/*/bin`` holding initdb and pg_ctl, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"),
                   key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    for pg_ctl in reversed(found):
        folder = Path(pg_ctl).parent
        if (folder / "initdb").is_file():
            return folder
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Cluster:
    url: str
    folder: Path
    _cmd_prefix: list[str]
    _bin: Path
    _options: str = ""

    def halt(self) -> None:
        """Stop the server, keeping its data (``start_again`` brings it back)."""
        subprocess.run([*self._cmd_prefix, str(self._bin / "pg_ctl"), "-D",
                        str(self.folder / "data"), "-m", "fast", "-w", "stop"],
                       capture_output=True, timeout=60, check=True)

    def start_again(self) -> None:
        subprocess.run([*self._cmd_prefix, str(self._bin / "pg_ctl"), "-D",
                        str(self.folder / "data"), "-l", str(self.folder / "server.log"),
                        "-o", self._options, "-w", "-t", "60", "start"],
                       capture_output=True, timeout=120, check=True)

    def stop(self) -> None:
        subprocess.run([*self._cmd_prefix, str(self._bin / "pg_ctl"), "-D",
                        str(self.folder / "data"), "-m", "immediate", "-w", "stop"],
                       capture_output=True, timeout=60, check=False)
        shutil.rmtree(self.folder, ignore_errors=True)


def start_cluster() -> Cluster:
    """Start a fresh cluster; raises RuntimeError (with the server's log) if it cannot."""
    binaries = server_bin()
    if binaries is None:
        raise FileNotFoundError("PostgreSQL server binaries not found")
    folder = Path(tempfile.mkdtemp(prefix="mizan-pg-"))
    prefix: list[str] = []
    if os.geteuid() == 0:
        user = pwd.getpwnam("postgres")  # KeyError: no such user (the package creates it)
        os.chown(folder, user.pw_uid, user.pw_gid)
        prefix = ["runuser", "-u", "postgres", "--"]
    data, log = folder / "data", folder / "server.log"
    port = _free_port()
    run = {"capture_output": True, "text": True, "timeout": 120, "check": False}
    init = subprocess.run([*prefix, str(binaries / "initdb"), "-D", str(data), "-U", "mizan",
                           "--auth=trust", "--encoding=UTF8", "--no-sync"], **run)
    if init.returncode:
        shutil.rmtree(folder, ignore_errors=True)
        raise RuntimeError(f"initdb failed: {init.stderr[-2000:]}")
    options = (f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off "
               "-c max_connections=200 -c synchronous_commit=off")
    start = subprocess.run([*prefix, str(binaries / "pg_ctl"), "-D", str(data), "-l", str(log),
                            "-o", options, "-w", "-t", "60", "start"], **run)
    if start.returncode:
        text = log.read_text(errors="replace")[-2000:] if log.exists() else start.stderr
        shutil.rmtree(folder, ignore_errors=True)
        raise RuntimeError(f"pg_ctl start failed: {text}")
    return Cluster(f"postgresql+psycopg://mizan@127.0.0.1:{port}/postgres", folder, prefix,
                   binaries, options)


# --- fixtures: each test on SQLite and on a fresh database in the throwaway cluster ------------


@pytest.fixture(scope="session")
def pg_cluster():
    if server_bin() is None:
        pytest.skip("PostgreSQL server binaries not installed (/usr/lib/postgresql/*/bin: "
                    "apt-get install postgresql)")
    cluster = start_cluster()  # a failure to start is an error, not a skip
    yield cluster
    cluster.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'live.sqlite3'}"
        return
    cluster = request.getfixturevalue("pg_cluster")
    name = "t_" + secrets.token_hex(6)
    admin = create_engine(cluster.url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f"CREATE DATABASE {name}")
    yield cluster.url.rsplit("/", 1)[0] + "/" + name
    with admin.connect() as conn:
        conn.exec_driver_sql(f"DROP DATABASE {name} WITH (FORCE)")
    admin.dispose()


@pytest.fixture
def svc(db_url):
    from live import db
    from live.service import LiveService

    engine = db.make_engine(db_url)
    db.upgrade(engine)
    service = LiveService(engine)
    yield service
    engine.dispose()


# --- worker processes for the concurrency and restart tests (spawned: importable here) -------


def answer_worker(url: str, code: str, question_id: int, tokens: list[str], rounds: int,
                  start, results, until_refused: bool = False) -> None:
    """Answer for each participant in ``tokens``, ``rounds`` times (changing the answer each
    round), after ``start`` (a multiprocessing Event); put ``(token, value)`` for each
    accepted answer and ``(token, "refused:<key>")`` for each refused one on ``results``.
    ``until_refused``: keep going round after round (up to 60 s) until a round was refused,
    so a test that closes the question meanwhile always sees the close bite."""
    from live import db
    from live.errors import DatabaseUnavailable
    from live.service import LiveError, LiveService

    svc = LiveService(db.make_engine(url))
    start.wait(60)
    out = []
    deadline = time.monotonic() + 60
    r = 0
    while r < rounds or (until_refused and time.monotonic() < deadline
                         and not any(v.startswith("refused") for _, v in out)):
        r += 1
        for i, token in enumerate(tokens):
            value = str((i + r - 1) % 3)  # "0", "1", "2": the last round's value is final
            for attempt in range(5):
                try:
                    svc.answer(code, token, question_id, value)
                    out.append((token, value))
                except DatabaseUnavailable:
                    # a lock wait past the statement timeout on a loaded machine: the phone
                    # keeps the answer pending and resends it (phone.resend), so do the same
                    if attempt < 4:
                        time.sleep(0.2)
                        continue
                    out.append((token, "refused:database"))
                except LiveError as err:
                    out.append((token, f"refused:{err.key}"))
                break
    svc.engine.dispose()
    results.put(out)


def restart_worker(url: str, results) -> None:
    """A brand-new process: which sessions are open, and what is their current question?"""
    from live import db
    from live.service import LiveService

    svc = LiveService(db.engine(url))
    found = {}
    for code in svc.open_sessions():
        q = svc.current_question(code)
        found[code] = (q.id if q else None, q.status if q else None,
                       svc.tally(q.id).answered if q else 0)
    svc.engine.dispose()
    results.put(found)
