"""Start and stop real deployments (``deploy/run.sh``) for the fault tests: nginx from Debian,
supervised Streamlit processes, PostgreSQL; each in a fresh data folder, on free ports, in its
own process group so that stopping it stops everything it started."""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
START_TIMEOUT_S = 150


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def app_ports(count: int) -> int:
    """A first port with ``count`` free ports after it (run.sh numbers its processes)."""
    for _ in range(50):
        first = random.randrange(20000, 30000)
        try:
            for port in range(first, first + count):
                with socket.socket() as sock:
                    sock.bind(("127.0.0.1", port))
            return first
        except OSError:
            continue
    raise RuntimeError("no free port range")


_INSECURE = ssl.create_default_context()
_INSECURE.check_hostname = False
_INSECURE.verify_mode = ssl.CERT_NONE


def get(url: str, cookie: str = "", timeout: float = 30):
    """(status, headers, body) of a GET; a self-signed certificate is accepted."""
    request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    try:
        with urllib.request.urlopen(request, timeout=timeout, context=_INSECURE) as resp:
            return resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers, err.read()


@dataclass
class Deployment:
    data: Path
    proc: subprocess.Popen
    base: str = ""
    app_port: int = 0
    pg_port: int = 0
    env: dict = field(default_factory=dict)

    @property
    def run(self) -> Path:
        return self.data / "run"

    def log(self) -> str:
        parts = [(self.data / "deploy.log").read_text(errors="replace")[-3000:]]
        for name in ("supervisor.log", "nginx-error.log"):
            path = self.run / name
            if path.exists():
                parts.append(f"--- {name}\n" + path.read_text(errors="replace")[-2000:])
        return "\n".join(parts)

    def app_pid(self, port: int) -> int:
        return int((self.run / f"app-{port}.pid").read_text())

    def upstream_of(self, cookie_value: str) -> str:
        """Which app process nginx sends this browser (its mz_node cookie) to."""
        marker = self.run / "upstream.log"
        before = marker.stat().st_size if marker.exists() else 0
        status, _, _ = get(f"{self.base}/_stcore/health", cookie=f"mz_node={cookie_value}")
        assert status == 200
        for _ in range(50):
            lines = marker.read_text()[before:].splitlines()
            hits = [ln for ln in lines if ln.endswith(" " + cookie_value)]
            if hits:
                return hits[-1].split('"')[1].split(",")[-1].strip()
            time.sleep(0.05)
        raise AssertionError(f"no upstream logged for {cookie_value}")

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)


@contextlib.contextmanager
def deployment(*args: str, procs: int = 2, env: dict | None = None, health: str = "",
               data: Path | None = None) -> Iterator[Deployment]:
    """``deploy/run.sh procs *args`` in a fresh folder; yields once ``health`` (default the
    proxy's /_stcore/health) answers. The folder is removed afterwards."""
    own = data is None
    if data is None:
        data = Path(tempfile.mkdtemp(prefix="mizan-deploy-"))
        os.chmod(data, 0o755)  # PostgreSQL runs as its own user and must reach pg/
    first = app_ports(max(procs, 1))
    full_env = {**os.environ, "MIZAN_DATA_DIR": str(data), "MIZAN_APP_PORT": str(first),
                "MIZAN_PG_PORT": str(free_port()), **(env or {})}
    if "MIZAN_DATABASE_URL" not in (env or {}):
        full_env.pop("MIZAN_DATABASE_URL", None)
    log = (data / "deploy.log").open("wb")
    proc = subprocess.Popen([str(ROOT / "deploy" / "run.sh"), str(procs), *args], cwd=ROOT,
                            env=full_env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    dep = Deployment(data, proc, app_port=first, pg_port=int(full_env["MIZAN_PG_PORT"]),
                     env=full_env)
    try:
        if "--port" in args:
            port = args[args.index("--port") + 1]
            tls = "--self-signed" in args or "--tls-cert" in args
            dep.base = f"{'https' if tls else 'http'}://127.0.0.1:{port}"
        url = health or f"{dep.base}/_stcore/health"
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"run.sh exited with {proc.returncode}:\n{dep.log()}")
            with contextlib.suppress(OSError):
                if get(url, timeout=2)[0] == 200 and "Mizan" in (data / "deploy.log").read_text(
                        errors="replace"):
                    break
            if time.monotonic() > deadline:
                raise RuntimeError(f"deployment did not come up:\n{dep.log()}")
            time.sleep(0.3)
        yield dep
    finally:
        dep.stop()
        log.close()
        if own:
            shutil.rmtree(data, ignore_errors=True)


def wait_until(predicate, timeout: float, step: float = 0.2, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"{what} not reached within {timeout} s")
