"""The lab's run table in a real browser: five 7,000 x 1,000 runs against a baseline (issue 20).

    python bench/bench_lab_runs.py              # five runs of 7,000 queries x 1,000 documents
    python bench/bench_lab_runs.py --small      # 500 queries, a quick check

``streamlit run app.py`` in a child process and Debian's Chromium (Playwright): open /lab,
type the measures P@10 R@100 RR@10 AP nDCG@10 (the picker cleared), upload the judgments, then
time from ``set_input_files`` of the five runs (one upload of five gzip files, 71 MB each) to
the table being on screen with its five rows and the intervals of the 20 comparisons against
the baseline (every run read, evaluated, tested with the t-test, the randomization test and
the bootstrap, Holm over the 20, drawn). Reports the time and the server process's peak
resident memory (``VmHWM``), the targets being <= 20 s and <= 3 GB on 2 cores.

The runs are bench/make_data.py's base run and its four variants (``make_variants``), gzipped
once next to them (``bench_lab.gzipped``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from bench_lab import CHROMIUM_ARGS, free_port, gzipped, start_server, status_kb  # noqa: E402

MEASURES = "P@10 R@100 RR@10 AP nDCG@10"


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process (all its threads), from /proc/<pid>/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def trial(runs: list[Path], qrels: Path) -> tuple[float, int, float, int]:
    """One fresh server: (seconds from the upload of the runs to the table, VmHWM kB, server
    CPU seconds in that time, VmRSS kB once the table is shown)."""
    from playwright.sync_api import sync_playwright

    port = free_port()
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"bench_lab_runs_{port}.log"
    server = start_server(port, log)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium",
                                         args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(600_000)
            page.goto(f"http://127.0.0.1:{port}/lab?lang=en")
            page.locator(".st-key-lab-up-qrels input[type=file]").wait_for(state="attached")
            typed = page.locator(".st-key-lab-typed input")
            typed.fill(MEASURES)
            typed.press("Enter")
            for name in ("P", "R", "RR", "AP", "nDCG"):   # the picker's defaults, removed
                page.locator(f".st-key-lab-measures [aria-label='Remove {name}']").click()
                page.locator(f".st-key-lab-measures [aria-label='Remove {name}']").wait_for(
                    state="detached")
            page.locator(".st-key-lab-up-qrels input[type=file]").set_input_files(str(qrels))
            page.locator(".st-key-lab-remove-qrels").wait_for()
            t0, cpu0 = time.perf_counter(), cpu_seconds(server.pid)
            page.locator(".st-key-lab-up-runs input[type=file]").set_input_files(
                [str(r) for r in runs])
            page.locator(".st-key-lab-mean table tbody tr").nth(len(runs) - 1).wait_for()
            page.locator(".st-key-lab-intervals [data-testid=stDataFrame]").wait_for(
                state="visible")
            seconds = time.perf_counter() - t0
            cpu = cpu_seconds(server.pid) - cpu0
            rss = status_kb(server.pid, "VmRSS")
            header = page.locator(".st-key-lab-mean table thead").inner_text()
            browser.close()
        assert all(m in header for m in MEASURES.split()), header
        return seconds, status_kb(server.pid, "VmHWM"), cpu, rss
    finally:
        server.terminate()
        server.wait(timeout=20)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--small", action="store_true", help="500 queries instead of 7,000")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    from make_data import make, make_variants

    n = 500 if args.small else 7000
    base, qrels = make(n, 1000)
    runs = [gzipped(p) for p in [base, *make_variants(n, 1000)]]
    print(f"{len(runs)} runs, {sum(r.stat().st_size for r in runs) / 1e6:.0f} MB gzip in all; "
          f"qrels {qrels.stat().st_size / 1e6:.1f} MB; measures {MEASURES}")
    for path in (*runs, qrels):  # warm the page cache
        path.read_bytes()
    trials = [trial(runs, qrels) for _ in range(args.repeat)]
    times = [t for t, *_ in trials]
    peak = max(p for _, p, *_ in trials)
    print(f"/lab in Chromium, upload of {len(runs)} runs -> table and intervals on screen: "
          f"best {min(times):.1f} s (all: {', '.join(f'{t:.1f}' for t in times)}; "
          f"target <= 20 s)")
    print(f"server peak memory VmHWM {peak / 1024:,.0f} MB (target <= 3,072 MB); "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"server CPU from the upload to the table: "
          f"{', '.join(f'{c:.1f}' for *_, c, _ in trials)} s; resident once shown: "
          f"{', '.join(f'{r / 1024:,.0f}' for *_, r in trials)} MB")


if __name__ == "__main__":
    main()
