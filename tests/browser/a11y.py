"""The accessibility audit: axe-core and Chromium's accessibility tree on Mizan's pages.

Used by ``tests/browser/test_accessibility.py`` and runnable on its own to print every
violation by page, language and width (it starts its own server unless given a URL)::

    .venv/bin/python tests/browser/a11y.py                 # every page, ar/en, 1280/390
    .venv/bin/python tests/browser/a11y.py http://127.0.0.1:8501 --pages mrr lab --json out.json

How a page is audited (``audit``): open it at the first width (resize it for the next), wait
until Streamlit has drawn it, open every expander, stretch the viewport to the page's full
height (axe's contrast rule only sees what is on screen inside Streamlit's scrolling main
area), inject axe-core (the copy bundled with ``axe-playwright-python``) and run every rule
axe enables by default.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from runtime import catalog  # noqa: E402

# Every page of the app, by URL path ("" is home); a page whose folder has no page.py yet
# (e.g. /retrieve while it is being built) is left out by the catalogue itself.
PAGES: tuple[str, ...] = ("", *(entry.url_path for entry in catalog.available()))
LANGS = ("ar", "en")
WIDTHS = (1280, 390)
HEIGHTS = {1280: 800, 390: 844}
SERIOUS = ("critical", "serious")

READY_JS = """(lang) => {
  const main = document.querySelector('[data-testid=stMainBlockContainer]');
  return !!main && !!main.querySelector(`.mz-prose[lang="${lang}"]`)
    && !document.querySelector('[data-testid=stSkeleton], [data-testid=stAppSkeleton]')
    && !document.querySelector('[data-testid=stStatusWidget] [data-testid=stBaseButton-header]')
    && document.fonts.status === 'loaded';
}"""

OPEN_EXPANDERS_JS = """() => {
  let n = 0;
  for (const d of document.querySelectorAll('details:not([open])')) {
    d.querySelector(':scope > summary')?.click(); n++;
  }
  return n;
}"""

FULL_HEIGHT_JS = """() => {
  const main = document.querySelector('[data-testid=stMain]');
  const block = document.querySelector('[data-testid=stMainBlockContainer]');
  const sidebar = document.querySelector('[data-testid=stSidebarUserContent]');
  return Math.max(main ? main.scrollHeight : 0, block ? block.scrollHeight + 120 : 0,
                  sidebar ? sidebar.scrollHeight + 200 : 0);
}"""


# What has the keyboard focus (through open shadow roots), where it is, and its indicator: the
# element itself or the nearest of its 4 ancestors that draws an outline (a text field's box, a
# slider's thumb, a radio's label), with the colour behind that outline.
FOCUS_JS = r"""() => {
  const up = (e) => e.parentElement || (e.getRootNode && e.getRootNode().host) || null;
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  if (!el || el === document.body || el === document.documentElement) return null;
  let ind = null;
  for (let e = el, i = 0; e && i < 5; e = up(e), i++) {
    const cs = getComputedStyle(e);
    if (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 1) { ind = e; break; }
  }
  const rgba = (c) => { const m = c.match(/[\d.]+/g) || ['0','0','0','0'];
    return [+m[0], +m[1], +m[2], m.length > 3 ? +m[3] : 1]; };
  const behind = (e) => {
    for (let a = up(e); a; a = up(a)) {
      const c = rgba(getComputedStyle(a).backgroundColor);
      if (c[3] > 0.5) return c;
    }
    return [255, 255, 255, 1];
  };
  const box = (ind || el).getBoundingClientRect();
  const own = el.getBoundingClientRect();
  const cs = ind ? getComputedStyle(ind) : null;
  // Covered (WCAG 2.4.11) only when something else is on top at its centre and at each of its
  // inner corners; the component's own parts (a field's hint, a label's text) do not count.
  const root = ind || el;
  const ours = (hit) => !!hit && (root.contains(hit) || hit.contains(root)
    || (hit.shadowRoot && hit.shadowRoot.contains(root)) || root.getRootNode().host === hit
    || (root.parentElement && root.parentElement.contains(hit)));
  let covered = false;
  if (box.width > 6 && box.height > 6) {
    const xs = [box.left + 3, box.left + box.width / 2, box.right - 3];
    const ys = [box.top + 3, box.top + box.height / 2, box.bottom - 3];
    const points = [[xs[1], ys[1]], [xs[0], ys[0]], [xs[2], ys[0]], [xs[0], ys[2]], [xs[2], ys[2]]];
    covered = points.every(([x, y]) => !ours(document.elementFromPoint(x, y)));
  }
  // An outline drawn inside the element (negative offset) lies on the element's own colour.
  const inside = cs && parseFloat(cs.outlineOffset) < 0;
  const ownBg = ind ? rgba(getComputedStyle(ind).backgroundColor) : null;
  return {
    tag: el.tagName.toLowerCase(), testid: el.getAttribute('data-testid') || '',
    role: el.getAttribute('role') || '',
    label: (el.getAttribute('aria-label') || el.textContent || '').trim().slice(0, 60),
    box: {x: box.left, y: box.top, w: box.width, h: box.height},
    own: {x: own.left, y: own.top, w: own.width, h: own.height},
    vw: innerWidth, vh: innerHeight, covered,
    outline: cs ? {style: cs.outlineStyle, width: parseFloat(cs.outlineWidth),
                   color: rgba(cs.outlineColor), offset: parseFloat(cs.outlineOffset)} : null,
    background: ind ? (inside && ownBg[3] > 0.5 ? ownBg : behind(ind)) : null,
  };
}"""


def luminance(rgb) -> float:
    def channel(c: float) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b) -> float:
    """WCAG contrast ratio of two colours (``[r, g, b, ...]``, 0–255)."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def focus_problem(info: dict | None) -> str | None:
    """Why the focused element's indicator fails (None when it passes): no outline, one under
    2 px or under 3:1 against what is behind it, off screen, or covered."""
    if info is None:
        return "nothing has the focus"
    if not info["outline"]:
        return "no focus indicator"
    if info["outline"]["width"] < 2:
        return f"indicator {info['outline']['width']} px"
    ratio = contrast(info["outline"]["color"], info["background"])
    if ratio < 3:
        return f"indicator contrast {ratio:.2f}:1"
    box, vw, vh = info["box"], info["vw"], info["vh"]
    if box["w"] <= 0 or box["h"] <= 0:
        return "indicator has no size"
    if box["x"] < -1 or box["y"] < -1 or box["x"] + box["w"] > vw + 1 or (
            box["y"] + box["h"] > vh + 1 and box["h"] < vh):
        return f"off screen at {box}"
    if info["covered"]:
        return "covered by another element"
    return None


def tab_walk(page, limit: int = 250) -> list[dict]:
    """Press Tab from the top of the page until the focus comes back round (or ``limit``);
    every stop's :data:`FOCUS_JS` report, with ``problem`` set by :func:`focus_problem`."""
    page.evaluate("document.activeElement && document.activeElement.blur()")
    stops: list[dict] = []
    seen: set[tuple] = set()
    for _ in range(limit):
        page.keyboard.press("Tab")
        info = page.evaluate(FOCUS_JS)
        if info is None:
            continue
        ident = (info["tag"], info["testid"], info["label"], round(info["own"]["x"]),
                 round(info["own"]["y"]))
        if ident in seen:
            break
        seen.add(ident)
        info["problem"] = focus_problem(info)
        stops.append(info)
    return stops


def page_url(base: str, path: str, lang: str, query: str = "") -> str:
    return f"{base.rstrip('/')}/{path}?lang={lang}" + (f"&{query}" if query else "")


def settle(page, lang: str, timeout: float = 45_000) -> None:
    """Wait until Streamlit has drawn the page in ``lang`` and is not running anymore."""
    page.wait_for_function(READY_JS, arg=lang, timeout=timeout)
    page.wait_for_timeout(300)  # charts and components draw after the last delta
    page.wait_for_function(READY_JS, arg=lang, timeout=timeout)


def open_expanders(page) -> None:
    for _ in range(3):  # an expander can hold another
        if not page.evaluate(OPEN_EXPANDERS_JS):
            break
        page.wait_for_timeout(200)


def stretch(page, width: int) -> None:
    """Make the viewport as tall as the page, so every node is on screen for axe."""
    for _ in range(3):
        height = min(int(page.evaluate(FULL_HEIGHT_JS)), 30_000)
        if height <= page.viewport_size["height"]:
            break
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(500)  # Vega redraws at the new size


def run_axe(page, context: str | None = None) -> list[dict]:
    """axe-core's violations on the page (every rule enabled by default)."""
    from axe_playwright_python.base import AXE_SCRIPT

    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(AXE_SCRIPT)
    result = page.evaluate(
        "async (ctx) => { const r = await axe.run(ctx || document, {resultTypes: ['violations']});"
        " return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,"
        " nodes: v.nodes.map(n => ({target: n.target, html: n.html.slice(0, 300),"
        " summary: n.failureSummary}))})); }",
        context,
    )
    return result


# Roles whose name a screen reader announces as the thing itself (controls, landmarks, images).
NAMED_ROLES = frozenset({
    "button", "link", "textbox", "searchbox", "combobox", "listbox", "option", "slider",
    "spinbutton", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemradio",
    "navigation", "complementary", "region", "main", "banner", "img", "image", "figure",
    "dialog", "radiogroup", "tablist", "menu",
})
LATIN = re.compile(r"[A-Za-z]")
ARABIC = re.compile(r"[\u0600-\u06FF]")
# Latin words that are symbols, not English (measure names, ids, formats, the brand):
# a name made of these alone is said the same way in Arabic.
SYMBOLS = re.compile(
    r"(?i)\b(?:[a-z]{1,2}\d*|recall|precision|hitrate|ndcg|dcg|idcg|mrr|rr|ap|map|f1|k|rag|"
    r"bm25|csv|png|json|toml|url|qr|llm|rrf|vega-lite|trec_eval|mizan|"
    # lesson 3's two systems: code names, shown as code throughout its Arabic text
    r"vector|hybrid)(?:@\w+)?\b")
LANG_SCOPE_JS = "function() { const e = this.closest ? this : this.parentElement;" \
    " const s = e && e.closest('[lang]'); return s ? s.getAttribute('lang') : ''; }"


def english_names(page) -> list[dict]:
    """Nodes of Chromium's accessibility tree (not ignored, with a role in
    :data:`NAMED_ROLES`) whose name has Latin words other than :data:`SYMBOLS` and no Arabic,
    outside an element marked with another language (``lang="en"``): what a screen reader
    would read in English on an Arabic page."""
    cdp = page.context.new_cdp_session(page)
    try:
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
        found = []
        for node in nodes:
            role = (node.get("role") or {}).get("value", "")
            name = str((node.get("name") or {}).get("value", "")).strip()
            if node.get("ignored") or role not in NAMED_ROLES or not name:
                continue
            if ARABIC.search(name) or not LATIN.search(SYMBOLS.sub("", name)):
                continue
            scope = ""
            if node.get("backendDOMNodeId"):
                obj = cdp.send("DOM.resolveNode", {"backendNodeId": node["backendDOMNodeId"]})
                oid = obj["object"].get("objectId")
                if oid:
                    scope = cdp.send("Runtime.callFunctionOn", {
                        "objectId": oid, "functionDeclaration": LANG_SCOPE_JS,
                        "returnByValue": True})["result"].get("value", "")
            if scope and not scope.startswith("ar"):
                continue
            found.append({"role": role, "name": name[:80], "scope": scope})
        return found
    finally:
        cdp.detach()


def document_language(page) -> dict:
    """``<html>``'s lang and dir and the tab's title."""
    return page.evaluate("() => ({lang: document.documentElement.lang,"
                         " dir: document.documentElement.dir, title: document.title})")


def audit(page, base: str, path: str, lang: str, width: int, *, load: bool = True) -> list[dict]:
    """Open one page and return axe's violations (see the module doc). ``load=False`` audits
    the page already open at the new width instead of loading it again: Streamlit lays a page
    out for its width in CSS alone and collapses the sidebar when the window narrows, as a
    fresh load at that width does (checked in Chromium), and one load per page and language
    halves the audit's time."""
    page.set_viewport_size({"width": width, "height": HEIGHTS[width]})
    if load:
        page.goto(page_url(base, path, lang))
    settle(page, lang)
    open_expanders(page)
    stretch(page, width)
    settle(page, lang)
    return run_axe(page)


def count(violations: Iterable[dict]) -> Counter:
    """Violation nodes by impact."""
    out: Counter = Counter()
    for v in violations:
        out[v["impact"]] += len(v["nodes"])
    return out


# --- the command line ---------------------------------------------------------------------


def start_server() -> tuple[str, subprocess.Popen]:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "MIZAN_DATA_DIR": tempfile.mkdtemp(prefix="mizan-a11y-")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true",
         f"--server.port={port}", "--server.address=127.0.0.1",
         "--browser.gatherUsageStats=false"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as resp:
                if resp.read().strip() == b"ok":
                    return url, proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("streamlit did not start")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", nargs="?", help="a running Mizan (default: start one)")
    parser.add_argument("--pages", nargs="*", default=None, help="url paths ('' = home)")
    parser.add_argument("--langs", nargs="*", default=list(LANGS))
    parser.add_argument("--widths", nargs="*", type=int, default=list(WIDTHS))
    parser.add_argument("--json", help="write every violation to this file")
    args = parser.parse_args()
    pages = PAGES if args.pages is None else tuple("" if p in {"home", "/"} else p
                                                   for p in args.pages)
    proc = None
    base = args.url
    if not base:
        base, proc = start_server()
    from playwright.sync_api import sync_playwright

    from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS

    total: Counter = Counter()
    rules: Counter = Counter()
    report = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            context = browser.new_context()
            page = context.new_page()
            for path in pages:
                for lang in args.langs:
                    for width in args.widths:
                        found = audit(page, base, path, lang, width,
                                      load=width == args.widths[0])
                        counts = count(found)
                        total.update(counts)
                        for v in found:
                            rules[(v["impact"], v["id"])] += len(v["nodes"])
                        report.append({"page": path or "home", "lang": lang, "width": width,
                                       "violations": found})
                        print(f"/{path:<18} {lang} {width:>4}  "
                              + " ".join(f"{k}={counts[k]}" for k in
                                         ("critical", "serious", "moderate", "minor")),
                              flush=True)
            browser.close()
    finally:
        if proc:
            proc.terminate()
    print("total:", dict(total), "nodes:", sum(total.values()))
    for (impact, rule), n in sorted(rules.items(), key=lambda x: (-x[1], x[0])):
        print(f"  {impact:<9} {rule:<32} {n}")
    if args.json:
        Path(args.json).write_text(json.dumps(report, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
