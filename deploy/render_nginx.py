"""Render deploy/nginx.conf.template into a runnable nginx.conf (used by deploy/run.sh, and by
hand for a systemd setup: see deploy/README.md).

    .venv/bin/python deploy/render_nginx.py --run data/run --listen 8080 \\
        --upstream 127.0.0.1:8601 --upstream 10.0.0.12:8601 [--tls-cert C --tls-key K]

The limits come from the environment (defaults sized for one class behind one address):

=========================  =======  =========================================================
MIZAN_NGINX_PAGE_RATE      20       page loads per second per client address …
MIZAN_NGINX_PAGE_BURST     600      … with this many at once (a whole room arriving)
MIZAN_NGINX_WS_RATE        2        new websocket connections per second per address …
MIZAN_NGINX_WS_BURST       300      … with this many at once (a class connecting together)
MIZAN_NGINX_WS_CONN        1000     open websockets per address (one per browser tab)
MIZAN_NGINX_API_RATE       50       other /_stcore/ requests (health, uploads, components) …
MIZAN_NGINX_API_BURST      2000     … with this many at once
MIZAN_MAX_UPLOAD_MB        200      the one upload limit (nginx and every app process)
MIZAN_WS_PING_S            10       the app's websocket ping; nginx drops a silent one after 3×
MIZAN_NGINX_READ_S         30       longest wait for an app process's answer before another
                                    process is tried (a hung one; the watchdog kills it)
MIZAN_NGINX_MAX_FAILS      3        failures within MIZAN_NGINX_READ_S that leave a process out
=========================  =======  =========================================================
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULTS = {"MIZAN_NGINX_PAGE_RATE": 20, "MIZAN_NGINX_PAGE_BURST": 600,
            "MIZAN_NGINX_WS_RATE": 2, "MIZAN_NGINX_WS_BURST": 300,
            "MIZAN_NGINX_WS_CONN": 1000, "MIZAN_NGINX_API_RATE": 50,
            "MIZAN_NGINX_API_BURST": 2000, "MIZAN_MAX_UPLOAD_MB": 200, "MIZAN_WS_PING_S": 10,
            "MIZAN_NGINX_READ_S": 30, "MIZAN_NGINX_MAX_FAILS": 3}
_INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", re.S)


def setting(name: str) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return DEFAULTS[name]
    if not raw.isdigit() or int(raw) < 1:
        raise SystemExit(f"{name} must be a positive whole number, not {raw!r}")
    return int(raw)


def inline_script_hashes(index_html: str) -> list[str]:
    """CSP sources for the inline scripts of Streamlit's index.html (its exact bytes)."""
    return ["'sha256-" + base64.b64encode(hashlib.sha256(body.encode()).digest()).decode() + "'"
            for body in _INLINE_SCRIPT.findall(index_html)]


def streamlit_index() -> str:
    import streamlit

    return (Path(streamlit.__file__).parent / "static" / "index.html").read_text("utf-8")


def content_security_policy(index_html: str) -> str:
    """No 'unsafe-inline' or 'unsafe-eval' scripts (charts draw without eval), no other host:
    ``blob:`` scripts are how components v2 (the ranking editor, the progress store) load
    their module; 'wasm-unsafe-eval' lets the protobuf decoder's 64-bit helper compile its
    WebAssembly (it falls back to JavaScript, but the refusal is a reported violation on
    every page) and allows no JavaScript eval; ``data:`` fonts and images are Streamlit's own
    (icons, KaTeX, the QR)."""
    scripts = " ".join(["'self'", "blob:", "'wasm-unsafe-eval'",
                        *inline_script_hashes(index_html)])
    return "; ".join([
        "default-src 'self'",
        f"script-src {scripts}",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "media-src 'self'",
        "worker-src 'none'",
        "frame-src 'none'",
        "frame-ancestors 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
    ])


def _blocks(text: str, name: str, keep: bool) -> str:
    text = re.sub(rf"\{{\{{#{name}\}}\}}\n(.*?)\{{\{{/{name}\}}\}}\n",
                  lambda m: m.group(1) if keep else "", text, flags=re.S)
    return re.sub(rf"\{{\{{\^{name}\}}\}}\n(.*?)\{{\{{/{name}\}}\}}\n",
                  lambda m: "" if keep else m.group(1), text, flags=re.S)


def render(*, run: str, listen: str, upstreams: list[str], tls_cert: str = "",
           tls_key: str = "", redirect_listen: str = "", hsts: bool = False, user: str = "",
           csp: str | None = None) -> str:
    if not upstreams:
        raise SystemExit("at least one --upstream host:port is needed")
    for up in upstreams:
        if not re.fullmatch(r"[A-Za-z0-9.\-\[\]:]+:\d+", up):
            raise SystemExit(f"--upstream must look like host:port, not {up!r}")
    tls = bool(tls_cert)
    if tls != bool(tls_key):
        raise SystemExit("--tls-cert and --tls-key go together")
    port = listen.rsplit(":", 1)[-1]
    ping = setting("MIZAN_WS_PING_S")
    read_s, max_fails = setting("MIZAN_NGINX_READ_S"), setting("MIZAN_NGINX_MAX_FAILS")
    values = {
        "RUN": run, "USER": f"user {user};" if user else "", "LISTEN": listen, "PORT": port,
        "REDIRECT_LISTEN": redirect_listen or "", "TLS_CERT": tls_cert, "TLS_KEY": tls_key,
        "UPSTREAMS": "\n".join(f"        server {up} max_fails={max_fails} "
                               f"fail_timeout={read_s}s;" for up in upstreams),
        "MAX_FAILS": str(max_fails), "FAIL_S": str(read_s), "READ_S": str(read_s),
        "NEXT_S": str(2 * read_s + 5),
        "COOKIE_SECURE": "; Secure" if tls else "",
        "HSTS": ('        add_header Strict-Transport-Security "max-age=31536000" always;'
                 if tls and hsts else ""),
        "CSP": csp if csp is not None else content_security_policy(streamlit_index()),
        "UPLOAD_MB": str(setting("MIZAN_MAX_UPLOAD_MB")),
        "PAGE_RATE": str(setting("MIZAN_NGINX_PAGE_RATE")),
        "PAGE_BURST": str(setting("MIZAN_NGINX_PAGE_BURST")),
        "WS_RATE": str(setting("MIZAN_NGINX_WS_RATE")),
        "WS_BURST": str(setting("MIZAN_NGINX_WS_BURST")),
        "WS_CONN": str(setting("MIZAN_NGINX_WS_CONN")),
        "API_RATE": str(setting("MIZAN_NGINX_API_RATE")),
        "API_BURST": str(setting("MIZAN_NGINX_API_BURST")),
        "PING_S": str(ping), "WS_READ_S": str(3 * ping),
    }
    text = (HERE / "nginx.conf.template").read_text("utf-8")
    text = _blocks(text, "tls", tls)
    if tls and not redirect_listen:
        text = re.sub(r"    # plain HTTP only sends.*?\n    }\n\n", "", text, flags=re.S)
    for key, value in values.items():
        text = text.replace(f"@{key}@", value)
    left = [m for m in re.findall(r"@[A-Z_]+@", text) if m != "@NAMES@"]
    if left:
        raise SystemExit(f"template placeholders left unfilled: {left}")
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", required=True, help="folder for pid, logs and temp files")
    parser.add_argument("--listen", required=True, help="port or address:port")
    parser.add_argument("--upstream", action="append", default=[], help="host:port, repeated")
    parser.add_argument("--tls-cert", default="")
    parser.add_argument("--tls-key", default="")
    parser.add_argument("--redirect-listen", default="", help="plain HTTP port → HTTPS")
    parser.add_argument("--hsts", action="store_true")
    parser.add_argument("--user", default="")
    parser.add_argument("--out", help="write here (default: stdout)")
    args = parser.parse_args(argv)
    upstreams = [u for item in args.upstream for u in item.replace(",", " ").split()]
    text = render(run=args.run, listen=args.listen, upstreams=upstreams,
                  tls_cert=args.tls_cert, tls_key=args.tls_key,
                  redirect_listen=args.redirect_listen, hsts=args.hsts, user=args.user)
    if args.out:
        Path(args.out).write_text(text, "utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
