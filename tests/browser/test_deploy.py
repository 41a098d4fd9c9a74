"""The classroom deployment under faults, for real: ``deploy/run.sh`` with Debian's nginx, two
supervised app processes and a local PostgreSQL behind TLS (self-signed), then app processes
on two stand-in hosts (127.0.0.2, 127.0.0.3) behind one proxy sharing that database.

Each fault test is bounded (well under a minute): a killed process is started again, a
stopped (SIGSTOP) one is routed around and then replaced by the watchdog, a phone whose
process hung comes back on the other one with its answer, the database asks for a password
on a private socket, and every page passes the content security policy in Chromium.
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
import shutil
import signal
import stat
import subprocess
import time

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_live import shows
from tests.browser.test_live import start_session as open_session
from tests.deploy_helpers import ROOT, deployment, free_port, get, wait_until

pytestmark = [
    pytest.mark.deploy,
    # Processes are stopped and hung on purpose, with several browsers, app processes, nginx
    # and a database at once: on a loaded 2-core machine a projector once did not show "1 of 1
    # answered" within 60 s (CI, session 8; not reproduced alone). One rerun, counted ("R") in
    # pytest's summary; a failure twice in a row still fails. Not a fix: the cause is not known.
    pytest.mark.flaky(reruns=1),
    pytest.mark.xdist_group("deploy"),  # one deployment per module, on one worker
    pytest.mark.skipif(shutil.which("nginx") is None and not os.path.exists("/usr/sbin/nginx"),
                       reason="nginx not installed (make test installs it)"),
]
# faster than the defaults so that each fault resolves in seconds (deploy/README.md); the
# ping not so fast that a loaded machine's healthy process looks silent (nginx cuts a
# websocket after 3 missed pings; an instructor cut off resumes by itself, but a class waits)
FAULT_ENV = {"MIZAN_WATCHDOG_S": "6", "MIZAN_RESTART_DELAY_S": "0.5", "MIZAN_WS_PING_S": "4",
             "MIZAN_NGINX_READ_S": "5", "MIZAN_NGINX_MAX_FAILS": "1"}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def classroom():
    with deployment("--port", str(free_port()), "--postgres", "--self-signed",
                    "--redirect-port", str(free_port()), procs=2, env=FAULT_ENV) as dep:
        yield dep


def ports(dep) -> list[int]:
    return [dep.app_port, dep.app_port + 1]


def routed_cookie(dep, port: int, host: str = "127.0.0.1") -> str | None:
    """An mz_node cookie value that nginx routes to the app process on ``host:port`` now, or
    None (none of 60 tried: e.g. nginx left that process out after a failure)."""
    for i in range(60):
        value = f"test{i:02d}{port}"
        if dep.upstream_of(value) == f"{host}:{port}":
            return value
    return None


def cookie_for(dep, port: int, host: str = "127.0.0.1", timeout: float = 40) -> str:
    """Such a cookie, waiting until nginx has the process (back) in its rotation."""
    return wait_until(lambda: routed_cookie(dep, port, host), timeout, step=1,
                      what=f"nginx routing to {host}:{port}")


def in_rotation(dep, port: int, host: str = "127.0.0.1") -> bool:
    return routed_cookie(dep, port, host) is not None


def healthy(port: int, host: str = "127.0.0.1") -> bool:
    try:
        return get(f"http://{host}:{port}/_stcore/health", timeout=2)[0] == 200
    except OSError:
        return False


# --- configuration ------------------------------------------------------------------------------


def test_rendered_nginx_config_is_valid_with_one_upload_limit_and_a_strict_policy(tmp_path):
    from deploy.render_nginx import inline_script_hashes, render, streamlit_index

    cert, key = tmp_path / "c.pem", tmp_path / "k.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=t", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    for name, extra in (("plain", {}), ("tls", {"tls_cert": str(cert), "tls_key": str(key),
                                               "redirect_listen": "18080", "hsts": True})):
        text = render(run=str(tmp_path), listen="18443", user="",
                      upstreams=["127.0.0.1:8601", "10.0.0.12:8601"], **extra)
        (tmp_path / f"{name}.conf").write_text(text)
        for folder in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (tmp_path / folder).mkdir(exist_ok=True)
        check = subprocess.run(["nginx", "-t", "-c", str(tmp_path / f"{name}.conf"),
                                "-p", str(tmp_path)], capture_output=True, text=True)
        assert check.returncode == 0, check.stderr
        assert "client_max_body_size 200m;" in text
        assert "server 10.0.0.12:8601 max_fails=3 fail_timeout=30s;" in text
        policy = re.search(r'Content-Security-Policy "([^"]+)"', text).group(1)
        scripts = policy.split("script-src")[1].split(";")[0]
        assert "'unsafe-eval'" not in scripts and "unsafe-inline" not in scripts
        assert "connect-src 'self'" in policy and "ws:" not in policy
        assert all(h in policy for h in inline_script_hashes(streamlit_index()))
        assert ("Strict-Transport-Security" in text) == (name == "tls")
        assert ("; Secure" in text) == (name == "tls")
    # the app processes get the same upload limit as nginx
    assert '--server.maxUploadSize "$MIZAN_MAX_UPLOAD_MB"' in (ROOT / "deploy" / "run.sh"
                                                               ).read_text()


def test_https_with_secure_cookies_and_plain_http_redirected(classroom):
    status, headers, body = get(f"{classroom.base}/live")
    assert status == 200 and b"<div id=\"root\">" in body
    assert headers["Set-Cookie"].endswith("; Secure")
    assert "Strict-Transport-Security" not in headers  # self-signed: no HSTS (see README)
    policy = headers["Content-Security-Policy"]
    assert "script-src 'self' blob: 'wasm-unsafe-eval' 'sha256-" in policy
    assert "connect-src 'self';" in policy
    conf = (classroom.run / "nginx.conf").read_text()
    redirect = re.search(r"listen (\d+);\n\s+server_name _;\n\s+return 301", conf).group(1)
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", int(redirect), timeout=10)
    conn.request("GET", "/live?join=ABC")
    answer = conn.getresponse()
    assert answer.status == 301
    port = classroom.base.rsplit(":", 1)[1]
    assert answer.getheader("Location") == f"https://127.0.0.1:{port}/live?join=ABC"


def test_postgres_asks_for_a_password_on_a_private_socket(classroom):
    hba = (classroom.data / "pg" / "pg_hba.conf").read_text()
    rules = [ln for ln in hba.splitlines() if ln and not ln.startswith("#")]
    assert rules and all(ln.endswith("scram-sha-256") for ln in rules)
    socket_dir = classroom.run / "pg-socket"
    assert stat.S_IMODE(socket_dir.stat().st_mode) == 0o700
    for secret in ("pgpass", "pg-password"):
        assert stat.S_IMODE((classroom.data / secret).stat().st_mode) == 0o600
    psql = (sorted(glob.glob("/usr/lib/postgresql/*/bin/psql")) or [shutil.which("psql")])[-1]
    assert psql, "psql not found"
    runuser = shutil.which("runuser") or "/usr/sbin/runuser"
    as_nobody = [runuser, "-u", "nobody", "--"] if os.geteuid() == 0 else []
    for host in ("127.0.0.1", str(socket_dir)):
        tried = subprocess.run([*as_nobody, psql, "-w", "-h", host, "-p", str(classroom.pg_port),
                                "-U", "mizan", "-d", "postgres", "-c", "select 1"],
                               capture_output=True, text=True, timeout=30,
                               env={"PATH": "/usr/bin:/bin"})
        assert tried.returncode != 0
        assert "password" in tried.stderr or "Permission denied" in tried.stderr, tried.stderr
    with_password = subprocess.run(
        [psql, "-w", "-h", "127.0.0.1", "-p", str(classroom.pg_port), "-U", "mizan",
         "-d", "postgres", "-Atc", "select 1"], capture_output=True, text=True, timeout=30,
        env={"PATH": "/usr/bin:/bin", "PGPASSFILE": str(classroom.data / "pgpass")})
    assert with_password.stdout.strip() == "1", with_password.stderr


# --- faults -------------------------------------------------------------------------------------


def test_a_killed_app_process_is_started_again(classroom):
    port = ports(classroom)[0]
    cookie = f"mz_node={cookie_for(classroom, port)}"
    old = classroom.app_pid(port)
    t0 = time.monotonic()
    os.kill(old, signal.SIGKILL)
    # meanwhile its browsers are served by the other process
    assert get(f"{classroom.base}/live", cookie=cookie, timeout=15)[0] == 200
    wait_until(lambda: classroom.app_pid(port) != old and healthy(port), 45,
               what="a new process on the killed one's port")
    took = time.monotonic() - t0
    assert took < 45, took
    assert "exited" in (classroom.run / "supervisor.log").read_text()


def test_nginx_routes_around_a_stopped_process_and_the_watchdog_replaces_it(classroom):
    other, port = ports(classroom)
    wait_until(lambda: in_rotation(classroom, other), 30,  # e.g. after the kill test
               what="the other process back in nginx's rotation")
    cookie = f"mz_node={cookie_for(classroom, port)}"
    old = classroom.app_pid(port)
    os.kill(old, signal.SIGSTOP)
    try:
        t0 = time.monotonic()
        status, _, _ = get(f"{classroom.base}/live", cookie=cookie, timeout=30)
        first = time.monotonic() - t0
        assert status == 200 and first < 5 + 3, first  # one read timeout, then the other
        t0 = time.monotonic()
        assert get(f"{classroom.base}/live", cookie=cookie, timeout=30)[0] == 200
        assert time.monotonic() - t0 < 2  # marked failed: straight to the healthy one
        wait_until(lambda: classroom.app_pid(port) != old and healthy(port), 45,
                   what="the watchdog's replacement")
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(old, signal.SIGCONT)
    assert "no health answer" in (classroom.run / "supervisor.log").read_text()


def context_on(browser, dep, port: int, host: str = "127.0.0.1", **kw):
    context = browser.new_context(ignore_https_errors=True, **kw)
    context.add_cookies([{"name": "mz_node", "value": cookie_for(dep, port, host),
                          "url": dep.base}])
    return context


def start_session(page: Page, base: str) -> str:
    """A session with the first question pushed (the projector waits for answers)."""
    code = open_session(page, base)
    page.get_by_role("button", name="Push to the class").click()
    shows(page, "0 of 0 answered", 30)
    return code


def join(page: Page, base: str, code: str, nickname: str) -> None:
    page.goto(f"{base}/live?join={code}&lang=en")
    expect(page.get_by_label("Session code")).to_have_value(code, timeout=30_000)
    page.get_by_label("Nickname (optional)").fill(nickname)
    page.get_by_role("button", name="Join").click()
    shows(page, "What is recall@3 for this ranking?", 30)


def answer(page: Page, value: str, button: str) -> None:
    page.get_by_label("Your answer").fill(value)
    page.get_by_role("button", name=button).click()


@pytest.mark.browser
def test_a_phone_whose_process_hangs_comes_back_on_the_other_with_its_answer(
        classroom, browser):
    from live import db
    from live.service import LiveService

    hung, alive = ports(classroom)
    host = context_on(browser, classroom, alive)
    phone = context_on(browser, classroom, hung, viewport=PHONE, is_mobile=True)
    try:
        projector = host.new_page()
        code = start_session(projector, classroom.base)
        student = phone.new_page()
        join(student, classroom.base, code, "Hana")
        answer(student, "0.5", "Send")
        shows(student, "Your answer 0.5 is in.", 30)
        # the participant is what the browser keeps (written a run after joining): the fault
        # comes once it holds it
        wait_until(lambda: student.evaluate("() => localStorage.getItem('mizan-live-me')"),
                   20, step=0.5, what="the browser keeping the participant")
        old = classroom.app_pid(hung)
        os.kill(old, signal.SIGSTOP)
        t0 = time.monotonic()
        try:
            # the phone reconnects to the other process: a new session there, the same
            # participant (found again from what its browser keeps), its stored answer drawn again
            shows(student, "Your answer: 0.5", 45)
            took = time.monotonic() - t0
            answer(student, "1", "Change my answer")
            shows(student, "Changed from 0.5 to 1.", 30)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(old, signal.SIGCONT)
        assert took < 45, took
        shows(projector, "1 of 1 answered", 60)
        os.environ["PGPASSFILE"] = str(classroom.data / "pgpass")
        svc = LiveService(db.make_engine(
            f"postgresql+psycopg://mizan@127.0.0.1:{classroom.pg_port}/postgres"))
        q = svc.current_question(code)
        tally = svc.tally(q.id)
        assert (tally.answered, tally.participants, tally.distribution[-1]) == (1, 1, ("1.00", 1))
        svc.engine.dispose()
    finally:
        host.close()
        phone.close()


@pytest.mark.browser
def test_an_instructor_whose_process_hangs_comes_back_by_itself_on_the_other(
        classroom, browser):
    """Issue 17: after a reconnect the projector resumes from the key its browser keeps,
    without the code and key typed again, and goes on counting the class's answers."""
    hung, alive = ports(classroom)
    wait_until(lambda: in_rotation(classroom, alive), 30,   # e.g. after the fault tests above
               what="the other process back in nginx's rotation")
    host = context_on(browser, classroom, hung)
    phone = context_on(browser, classroom, alive, viewport=PHONE, is_mobile=True)
    try:
        projector = host.new_page()
        code = start_session(projector, classroom.base)
        wait_until(lambda: projector.evaluate(
            "() => localStorage.getItem('mizan-live-host')"), 20, step=0.5,
                   what="the browser keeping the instructor key")
        old = classroom.app_pid(hung)
        os.kill(old, signal.SIGSTOP)
        t0 = time.monotonic()
        try:
            student = phone.new_page()
            join(student, classroom.base, code, "Rami")
            answer(student, "0.5", "Send")
            shows(student, "Your answer 0.5 is in.", 30)
            # the instructor's page reconnects to the other process: a new session there,
            # resumed from the browser, the projector counting again
            shows(projector, "1 of 1 answered", 60)
            took = time.monotonic() - t0
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(old, signal.SIGCONT)
        assert took < 60, took
        expect(projector.locator(".mz-live-code")).to_have_text(code)
        expect(projector.get_by_role("button", name="Start a new session")).to_have_count(0)
        projector.get_by_role("button", name="Reveal the answer").click()
        shows(projector, "Right answer: 0.50 — 100 % of those who answered got it.", 30)
    finally:
        host.close()
        phone.close()


CSP_WATCH = """
window.__csp = [];
document.addEventListener('securitypolicyviolation',
  e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));
"""


@pytest.mark.browser
def test_every_page_passes_the_content_security_policy(classroom, browser):
    context = browser.new_context(ignore_https_errors=True,
                                  viewport={"width": 1280, "height": 2000})
    context.add_init_script(CSP_WATCH)
    page = context.new_page()
    seen: list[str] = []
    page.on("console", lambda m: seen.append(m.text) if "Content Security Policy" in m.text
            else None)
    page.goto(f"{classroom.base}/?lang=en")
    page.wait_for_selector(".st-key-mz-nav a", timeout=60_000)
    links = page.eval_on_selector_all(".st-key-mz-nav a",
                                      "els => els.map(e => e.href.split('?')[0])")
    assert len(links) >= 8
    charts = 0
    # every page in Arabic (its font and RTL styles), two in English as well
    for link, lang in [*((link, "ar") for link in links), (links[0], "en"), (links[-1], "en")]:
        page.goto(f"{link}?lang={lang}")
        page.wait_for_selector("[data-testid=stMainBlockContainer] h1", timeout=60_000)
        # the script has finished (no status widget spinning); components and charts draw
        # (a function, not an expression: Playwright evals an expression, which the CSP forbids)
        page.wait_for_function(
            "() => !document.querySelector('[data-testid=stStatusWidget] svg')", timeout=60_000)
        page.wait_for_timeout(500)
        charts += page.locator("[data-testid=stVegaLiteChart] canvas, "
                               "[data-testid=stVegaLiteChart] svg").count()
        violations = page.evaluate("window.__csp")
        assert violations == [], (link, lang, violations)
    # the live page's instructor view: the QR code (inline SVG) and the projector
    page.goto(f"{classroom.base}/live?lang=en")
    page.get_by_role("radio", name="The teacher: run a session").click()
    page.get_by_role("button", name="Start a new session").click()
    expect(page.locator(".mz-live-join svg")).to_be_visible(timeout=30_000)
    assert page.evaluate("window.__csp") == []
    assert seen == [] and charts > 0  # charts drew without 'unsafe-eval'
    context.close()


# --- several hosts ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def two_hosts(classroom):
    """App processes on two stand-in hosts (127.0.0.2 and 127.0.0.3) sharing the classroom's
    PostgreSQL, and a proxy-only nginx in front of both."""
    env = {**FAULT_ENV, "PGPASSFILE": str(classroom.data / "pgpass"),
           "MIZAN_DATABASE_URL": f"postgresql://mizan@127.0.0.1:{classroom.pg_port}/postgres"}
    hosts = []
    try:
        for address in ("127.0.0.2", "127.0.0.3"):
            first = free_port(address)
            started = deployment("--app-only", "--bind", address, procs=1,
                                 env={**env, "MIZAN_APP_PORT": str(first)},
                                 health=f"http://{address}:{first}/_stcore/health")
            dep = started.__enter__()
            hosts.append((started, dep))
        upstreams = ",".join(f"{a}:{d.env['MIZAN_APP_PORT']}"
                             for a, (_, d) in zip(("127.0.0.2", "127.0.0.3"), hosts,
                                                  strict=True))
        with deployment("--proxy-only", "--upstreams", upstreams, "--port", str(free_port()),
                        procs=0, env=env) as proxy:
            yield proxy, [d for _, d in hosts]
    finally:
        for started, _ in reversed(hosts):
            started.__exit__(None, None, None)


@pytest.mark.browser
def test_app_processes_on_two_hosts_share_one_class(two_hosts, browser):
    proxy, hosts = two_hosts
    first, second = (int(h.env["MIZAN_APP_PORT"]) for h in hosts)
    host = context_on(browser, proxy, first, "127.0.0.2")
    phone = context_on(browser, proxy, second, "127.0.0.3", viewport=PHONE, is_mobile=True)
    try:
        projector = host.new_page()
        code = start_session(projector, proxy.base)      # on host 127.0.0.2
        student = phone.new_page()
        join(student, proxy.base, code, "Omar")          # on host 127.0.0.3
        answer(student, "0.5", "Send")
        shows(student, "Your answer 0.5 is in.", 30)
        shows(projector, "1 of 1 answered", 30)              # seen on the other host
        served = (proxy.run / "upstream.log").read_text()
        assert f"127.0.0.2:{first}" in served and f"127.0.0.3:{second}" in served
    finally:
        host.close()
        phone.close()
