"""Five runs x five measures compared, from TREC files to the tables a paper prints.

    python bench/bench_compare.py                 # 5 runs of 7,000 queries x 1,000 docs
    python bench/bench_compare.py --small         # 500 queries x 1,000 docs, a quick check
    python bench/bench_compare.py --repeat 3      # best time of 3 fresh processes

The library part of the lab's "compare runs" page (issue 20; the page's target is results on
screen in <= 20 s and <= 3 GB on 2 cores): ``bench/make_data.py --variants`` writes the base run
(tag ``bm25``) and four re-scored runs of the same size. In a fresh child process, stage by stage:

1. **read**: ``metrics.read_run`` x 5 + ``read_qrels``; names from the run tags (``run_name``);
2. **evaluate**: ``metrics.evaluate`` x 5 on P@10, R@100, RR@10, AP, nDCG@10;
3. **compare**: ``metrics.compare_runs`` against ``bm25``: 4 comparisons x 5 measures = 20, each
   with the paired t-test, the randomization test (``--resamples``, default 10,000 sign
   patterns), the bootstrap interval (as many resamples), Holm over the 20, markers;
4. **report**: the table as Markdown, LaTeX and CSV, and each run's per-query table in
   ``trec_eval -q`` format (5 x 7,000 x 5 lines);
5. **fuse** (apart, not part of the page's first screen): RRF of two runs, then evaluated.

Times are wall seconds and CPU seconds (all threads) per stage. Memory: the child's peak resident
set (``ru_maxrss`` from ``os.wait4``), and per stage the peak reached during it (the kernel's
high-water mark, reset before each stage through ``/proc/self/clear_refs``) and what the
process held when the stage began. The page cache is warmed first.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

MEASURES = ["P@10", "R@100", "RR@10", "AP", "nDCG@10"]
STAGES = ["read", "evaluate", "compare", "report", "fuse"]


def _status(field: str) -> float:
    """A /proc/self/status memory field in MB (VmRSS, VmHWM)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _reset_peak() -> None:
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")   # resets VmHWM to the current RSS


def child(paths: list[str], qrels_path: str, resamples: int) -> dict:
    import metrics
    from metrics import report
    from metrics.compare import run_name, unique_names

    out: dict[str, dict] = {}
    held: dict[str, object] = {}

    def stage(name, task):
        _reset_peak()
        before = _status("VmRSS")
        wall, cpu = time.perf_counter(), time.process_time()
        held[name] = task()
        out[name] = {"seconds": time.perf_counter() - wall, "cpu": time.process_time() - cpu,
                     "rss_before_mb": before, "peak_mb": _status("VmHWM")}

    def read():
        names = []
        for p in paths:
            with open(p, "rb") as f:
                names.append(run_name(p, f.read(1 << 16)))
        names = unique_names(names)
        runs = {n: metrics.read_run(p, max_bytes=None) for n, p in zip(names, paths, strict=True)}
        return runs, metrics.read_qrels(qrels_path, max_bytes=None)

    stage("read", read)
    runs, qrels = held["read"]
    stage("evaluate", lambda: {n: metrics.evaluate(r, qrels, MEASURES) for n, r in runs.items()})
    tables = held["evaluate"]
    baseline = next(iter(tables))
    stage("compare", lambda: metrics.compare_runs(tables, MEASURES, baseline=baseline,
                                                  n_resamples=resamples))
    cmp = held["compare"]

    def write():
        texts = [report.markdown_table(cmp), report.latex_table(cmp), report.csv_table(cmp)]
        texts += [report.trec_eval_q(t, run_name=n) for n, t in tables.items()]
        return sum(len(t) for t in texts)

    stage("report", write)
    names = list(runs)
    stage("fuse", lambda: metrics.evaluate(metrics.fuse([runs[names[0]], runs[names[1]]]),
                                           qrels, MEASURES).mean())
    out["table"] = report.markdown_table(cmp)
    out["tests"] = cmp.tests[["run", "measure", "delta", "ci_low", "ci_high", "p_t",
                              "p_randomization", "p_adjusted", "significant"]].to_dict("list")
    out["queries"] = cmp.n_queries
    out["rows"] = {n: len(r) for n, r in runs.items()}
    out["fused_means"] = held["fuse"].to_dict()
    return out


def spawn(paths: list[Path], qrels: Path, resamples: int) -> dict:
    cmd = [sys.executable, __file__, "--child", json.dumps({
        "paths": [str(p) for p in paths], "qrels": str(qrels), "resamples": resamples})]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    text = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if status:
        raise SystemExit(f"child failed ({status})")
    result = json.loads(text)
    result["process_peak_mb"] = usage.ru_maxrss / 1024
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--small", action="store_true", help="500 queries instead of 7,000")
    ap.add_argument("--repeat", type=int, default=1, help="fresh processes; best time reported")
    ap.add_argument("--resamples", type=int, default=10_000,
                    help="randomization sign patterns and bootstrap resamples")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args, _ = ap.parse_known_args()       # run_all.py passes every benchmark's arguments on
    if args.child:
        spec = json.loads(args.child)
        print(json.dumps(child(spec["paths"], spec["qrels"], spec["resamples"])))
        return

    import make_data

    n_q = 500 if args.small else 7000
    run, qrels = make_data.make(n_q, 1000)
    paths = [run, *make_data.make_variants(n_q, 1000)]
    for p in [*paths, qrels]:                      # warm the page cache
        with open(p, "rb") as f:
            while f.read(1 << 24):
                pass
    print(f"load average {os.getloadavg()[0]:.1f}; {len(paths)} runs of {n_q:,} queries x 1,000"
          f" documents ({sum(p.stat().st_size for p in paths) / 1e6:,.0f} MB); measures "
          f"{', '.join(MEASURES)}; {args.resamples:,} resamples", flush=True)
    results = [spawn(paths, qrels, args.resamples) for _ in range(args.repeat)]
    best = {s: min((r[s] for r in results), key=lambda x: x["seconds"]) for s in STAGES}
    print()
    print("| stage | seconds | CPU s | RSS at start, MB | peak during, MB |")
    print("|---|---:|---:|---:|---:|")
    for s in STAGES:
        b = best[s]
        print(f"| {s} | {b['seconds']:.2f} | {b['cpu']:.2f} | {b['rss_before_mb']:,.0f} | "
              f"{max(r[s]['peak_mb'] for r in results):,.0f} |")
    page = sum(best[s]["seconds"] for s in ("read", "evaluate", "compare", "report"))
    peak = max(max(r[s]["peak_mb"] for s in STAGES[:4]) for r in results)
    print(f"\nread + evaluate + compare + report: {page:.2f} s, peak {peak:,.0f} MB "
          f"(target for the whole page: <= 20 s, <= 3,072 MB); whole child process peak "
          f"{max(r['process_peak_mb'] for r in results):,.0f} MB")
    print(f"compare alone: {best['compare']['seconds']:.2f} s "
          f"({best['compare']['cpu']:.2f} CPU s) for {len(results[0]['tests']['run'])} "
          f"comparisons over {results[0]['queries']:,} queries")
    print()
    print(results[0]["table"])
    tests = results[0]["tests"]
    print("| run | measure | delta | 95% CI | p (t) | p (rand.) | p Holm | sig. |")
    print("|---|---|---:|---|---:|---:|---:|:-:|")
    for i in range(len(tests["run"])):
        print(f"| {tests['run'][i]} | {tests['measure'][i]} | {tests['delta'][i]:+.4f} | "
              f"[{tests['ci_low'][i]:+.4f}, {tests['ci_high'][i]:+.4f}] | "
              f"{tests['p_t'][i]:.2g} | {tests['p_randomization'][i]:.2g} | "
              f"{tests['p_adjusted'][i]:.2g} | {'yes' if tests['significant'][i] else 'no'} |")


if __name__ == "__main__":
    main()
