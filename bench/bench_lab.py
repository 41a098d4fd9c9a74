"""The lab in a real browser against ``metrics`` alone, on the 7,000-query x 1,000-document run.

    python bench/bench_lab.py              # 7,000 x 1,000 (the run is 249 MB as text)
    python bench/bench_lab.py --small      # 500 x 1,000, a quick check

In one process run:

(1) ``metrics.read_run`` + ``read_qrels`` + ``metrics.evaluate`` alone, with the lab's default
    measures (P@10, R@10, RR@10, AP@10, nDCG@10), on the same files the browser uploads; best of
    ``--repeat``. Also on the uncompressed run, for reference.
(2) ``streamlit run app.py`` in a child process and Debian's Chromium (Playwright): open /lab,
    upload the judgments, then time from ``set_input_files`` of the run to the mean and
    per-query tables being visible (the upload, reading, evaluating and drawing every result
    of the page). A fresh server for each of ``--repeat`` trials, so the peak memory is one
    user's upload; the highest peak is reported.

The run as text is above the lab's 200 MB upload limit, so it is uploaded gzip-compressed
(71 MB; ``bench/data/run_<n>x1000.trec.gz``, written once, deterministic); the lab reads
``.gz`` files. Prints both times, their ratio (target <= 2x) and the server process's peak
resident memory (``VmHWM`` from /proc/<pid>/status; target < 1.5 GB).
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def gzipped(path: Path) -> Path:
    out = path.with_name(path.name + ".gz")
    if not out.exists():
        tmp = out.with_suffix(".tmp")
        with path.open("rb") as src, open(tmp, "wb") as raw, \
                gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=1, mtime=0) as dst:
            shutil.copyfileobj(src, dst, 1 << 22)
        tmp.replace(out)
    return out


def alone(run: Path, qrels: Path, repeat: int) -> tuple[float, dict[str, float]]:
    """(best seconds, split of that call) for read_run + read_qrels + evaluate."""
    import metrics
    from lessons.lab import logic
    from metrics.io import read_qrels, read_run

    measures = logic.measure_strings(logic.Settings())
    best, split = float("inf"), {}
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = read_run(run, max_bytes=logic.READ_LIMIT)
        t1 = time.perf_counter()
        q = read_qrels(qrels, max_bytes=logic.READ_LIMIT)
        t2 = time.perf_counter()
        metrics.evaluate(r, q, measures)
        t3 = time.perf_counter()
        if t3 - t0 < best:
            best, split = t3 - t0, {"read_run": t1 - t0, "read_qrels": t2 - t1,
                                    "evaluate": t3 - t2}
        del r, q
    return best, split


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, log: Path) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"),
           "--server.headless=true", "--server.address=127.0.0.1", f"--server.port={port}",
           "--browser.gatherUsageStats=false", "--global.developmentMode=false"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError(log.read_text())


def status_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def in_browser(run: Path, qrels: Path) -> tuple[float, int, int]:
    """One upload on a fresh server: (seconds from set_input_files to the tables, server
    VmHWM kB, server VmRSS kB at the end)."""
    from playwright.sync_api import sync_playwright

    port = free_port()
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"bench_lab_{port}.log"
    server = start_server(port, log)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium",
                                         args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(300_000)
            page.goto(f"http://127.0.0.1:{port}/lab?lang=en")
            page.locator(".st-key-lab-up-qrels input[type=file]").wait_for(state="attached")
            page.locator(".st-key-lab-up-qrels input[type=file]").set_input_files(str(qrels))
            page.locator(".st-key-lab-remove-qrels").wait_for()
            t0 = time.perf_counter()
            page.locator(".st-key-lab-up-runs input[type=file]").set_input_files(str(run))
            page.locator(".st-key-lab-mean table").wait_for(state="visible")
            page.locator(".st-key-lab-per-query [data-testid=stDataFrame]").wait_for(
                state="visible")
            seconds = time.perf_counter() - t0
            browser.close()
        return seconds, status_kb(server.pid, "VmHWM"), status_kb(server.pid, "VmRSS")
    finally:
        server.terminate()
        server.wait(timeout=20)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--small", action="store_true", help="500 queries instead of 7,000")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    from make_data import make

    n = 500 if args.small else 7000
    run_txt, qrels = make(n, 1000)
    run_gz = gzipped(run_txt)
    print(f"run {run_txt.stat().st_size / 1e6:.0f} MB as text, "
          f"{run_gz.stat().st_size / 1e6:.0f} MB gzip; qrels {qrels.stat().st_size / 1e6:.1f} MB")
    for path in (run_txt, run_gz, qrels):  # warm the page cache
        path.read_bytes()

    base_gz, split_gz = alone(run_gz, qrels, args.repeat)
    base_txt, split_txt = alone(run_txt, qrels, args.repeat)
    fmt = lambda s: ", ".join(f"{k} {v:.2f} s" for k, v in s.items())  # noqa: E731
    print(f"(1) metrics alone, gzip run:  {base_gz:.2f} s  ({fmt(split_gz)})")
    print(f"    metrics alone, text run:  {base_txt:.2f} s  ({fmt(split_txt)})")

    trials = [in_browser(run_gz, qrels) for _ in range(args.repeat)]
    times = [t for t, _, _ in trials]
    peak_kb = max(p for _, p, _ in trials)
    now_kb = trials[times.index(min(times))][2]
    best = min(times)
    print(f"(2) /lab in Chromium, upload -> results table: best {best:.2f} s "
          f"(all: {', '.join(f'{t:.2f}' for t in times)})")
    print(f"ratio (2) / (1) gzip: {best / base_gz:.2f}x   (target <= 2x); "
          f"vs the text run: {best / base_txt:.2f}x")
    print(f"server peak memory VmHWM {peak_kb / 1024:.0f} MB (highest of the trials; target "
          f"< 1,536 MB); VmRSS after the best trial {now_kb / 1024:.0f} MB")


if __name__ == "__main__":
    main()
