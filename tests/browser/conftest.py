"""Shared fixtures for browser tests: a real `streamlit run` server and Debian's Chromium.

* ``streamlit_server(script_path, **config)`` starts ``streamlit run`` headless on a free
  port (one server per script and config for the whole session, reused by every test)
  and returns its base URL once ``/_stcore/health`` answers ``ok``.
* ``browser`` is one headless Chromium for the session (Playwright cannot download its
  own browser here); ``page`` is a fresh 1280x900 context and page per test.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # tests import the app's packages (lessons, metrics)
    sys.path.insert(0, str(ROOT))
CHROMIUM = os.environ.get("MIZAN_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
STARTUP_TIMEOUT_S = 60
# A rerun on a loaded 2-core CI machine can take longer than Playwright's 5 s default for
# `expect`: every assertion waits up to this long for the page to reach the expected state.
EXPECT_TIMEOUT_MS = 20_000


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_healthy(url: str, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with {proc.returncode}:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                if resp.status == 200 and resp.read().strip() == b"ok":
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.1)
    raise RuntimeError(
        f"streamlit did not become healthy in {STARTUP_TIMEOUT_S}s:\n{log.read_text()}"
    )


class StreamlitServer(str):
    """The base URL (a str), plus the process for tests that want to inspect it."""

    proc: subprocess.Popen
    log: Path


@pytest.fixture(scope="session")
def streamlit_server(tmp_path_factory) -> Iterator[Callable[..., StreamlitServer]]:
    servers: dict[tuple, StreamlitServer] = {}

    def start(script_path: str | os.PathLike, **config: object) -> StreamlitServer:
        script = Path(script_path)
        if not script.is_absolute():
            script = ROOT / script
        ident = (str(script), tuple(sorted(config.items())))
        if ident in servers:
            return servers[ident]
        options = {
            "server.headless": "true",
            "server.address": "127.0.0.1",
            "server.fileWatcherType": "none",
            "server.runOnSave": "false",
            "browser.gatherUsageStats": "false",
            "global.developmentMode": "false",
            **{k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in config.items()},
        }
        log = tmp_path_factory.mktemp("streamlit") / "server.log"
        last_error: Exception | None = None
        for _attempt in range(3):  # a free port can be taken between probe and bind
            port = _free_port()
            cmd = [sys.executable, "-m", "streamlit", "run", str(script)]
            cmd += [f"--{k}={v}" for k, v in options.items()]
            cmd.append(f"--server.port={port}")
            with log.open("wb") as out:
                proc = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
            url = f"http://127.0.0.1:{port}"
            try:
                _wait_healthy(url, proc, log)
            except RuntimeError as err:
                last_error = err
                proc.kill()
                proc.wait()
                continue
            server = StreamlitServer(url)
            server.proc = proc
            server.log = log
            servers[ident] = server
            return server
        raise RuntimeError(f"could not start streamlit for {script}") from last_error

    yield start

    for server in servers.values():
        server.proc.terminate()
    for server in servers.values():
        try:
            server.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.proc.kill()
            server.proc.wait()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=EXPECT_TIMEOUT_MS)

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(15_000)
    yield pg
    context.close()


SHELL_FIXTURE = "tests/apps/shell_fixture_page.py"


@pytest.fixture(scope="module")
def shell_app_url(streamlit_server) -> str:
    """The real app with the shell's fixture page added as /fixture (env read at server start)."""
    old = os.environ.get("MIZAN_EXTRA_PAGES")
    os.environ["MIZAN_EXTRA_PAGES"] = f"fixture={SHELL_FIXTURE}"
    try:
        # toolbarMode repeats config.toml; it only makes this server's identity unique
        # in the session-wide server cache (this one needs the env var above).
        return streamlit_server("app.py", **{"client.toolbarMode": "viewer"})
    finally:
        if old is None:
            os.environ.pop("MIZAN_EXTRA_PAGES", None)
        else:
            os.environ["MIZAN_EXTRA_PAGES"] = old
