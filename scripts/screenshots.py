"""Screenshots of Mizan's pages in Arabic and English, laptop and phone widths.

    .venv/bin/python scripts/screenshots.py http://localhost:8501 recall-precision [more paths]
        [--out /tmp/mizan-shots] [--query "k=5"]

Writes <path>-<lang>-<width>.png (full page) for lang in ar, en and width in 1280, 390, and
prints any browser console error. Look at every one of them.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from playwright.sync_api import sync_playwright

NO_SKELETON_JS = "!document.querySelector('[data-testid=stSkeleton]')"
HEIGHT_JS = "document.querySelector('[data-testid=stMainBlockContainer]').scrollHeight + 200"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def shoot(base: str, paths: list[str], out: Path, query: str, widths=(1280, 390)) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        for path in paths:
            for lang in ("ar", "en"):
                for width in widths:
                    page = browser.new_page(viewport={"width": width, "height": 900})
                    page.on("console", lambda m: m.type == "error" and print("console:", m.text))
                    url = f"{base}/{path}?lang={lang}" + (f"&{query}" if query else "")
                    page.goto(url)
                    page.wait_for_selector("[data-testid='stMainBlockContainer']", timeout=30000)
                    page.wait_for_function(NO_SKELETON_JS)
                    page.wait_for_timeout(3000)
                    height = page.evaluate(HEIGHT_JS)
                    page.set_viewport_size({"width": width, "height": min(int(height) + 50, 16000)})
                    page.wait_for_timeout(1200)
                    name = out / f"{path or 'home'}-{lang}-{width}.png"
                    page.screenshot(path=str(name), full_page=True)
                    print(name)
                    page.close()
        browser.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("base")
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--out", default="/tmp/mizan-shots")
    parser.add_argument("--query", default="")
    a = parser.parse_args()
    shoot(a.base.rstrip("/"), a.paths, Path(a.out), a.query)
