"""Fresh process, end to end: Mizan's default API against pytrec_eval with its own parsers.

    python bench/bench_fresh.py                 # 7,000 queries x 1,000 docs, 7 rounds
    python bench/bench_fresh.py --small         # 500 queries x 1,000 docs
    python bench/bench_fresh.py --repeat 11
    python bench/bench_fresh.py --quiet 20      # each run waits for a quiet moment (Linux PSI)
    python bench/bench_fresh.py --quiet 20 --patience 120   # ... but at most 2 minutes

Each run is a new Python process that imports the library, reads the TREC run and qrels files
and computes P@10, R@100, RR@10, AP and nDCG@10 for every query, and nothing else:

    mizan        metrics.read_run(path), metrics.read_qrels(path), metrics.evaluate(run, qrels,
                 [...]) - the default API, no arguments beyond the paths and the measures
    pytrec_eval  pytrec_eval.parse_run / parse_qrel on the open files, then
                 RelevanceEvaluator(qrels, {P.10, recall.100, recip_rank, map,
                 ndcg_cut.10}).evaluate(run) (trec_eval has no RR@10; recip_rank costs the same)

The parent times each process from spawn to exit (interpreter start and imports included) and
reads its CPU time and peak resident memory from ``os.wait4``. The two alternate round by round,
so whatever else runs on the (shared) machine weighs on both alike; the ratio of the medians is
the number to quote. The page cache is warmed first.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

PROGRAMS = {
    "mizan": (
        "import sys, metrics\n"
        "run = metrics.read_run(sys.argv[1])\n"
        "qrels = metrics.read_qrels(sys.argv[2])\n"
        "table = metrics.evaluate(run, qrels, ['P@10', 'R@100', 'RR@10', 'AP', 'nDCG@10'])\n"
        "assert len(table) > 0\n"
    ),
    "pytrec_eval": (
        "import sys, pytrec_eval\n"
        "with open(sys.argv[1]) as f:\n"
        "    run = pytrec_eval.parse_run(f)\n"
        "with open(sys.argv[2]) as f:\n"
        "    qrels = pytrec_eval.parse_qrel(f)\n"
        "evaluator = pytrec_eval.RelevanceEvaluator(\n"
        "    qrels, {'P.10', 'recall.100', 'recip_rank', 'map', 'ndcg_cut.10'})\n"
        "result = evaluator.evaluate(run)\n"
        "assert len(result) > 0\n"
    ),
}


def cpu_pressure() -> float | None:
    """Linux PSI: the share of the last 10 s in which some task waited for a CPU (None if the
    kernel does not report it)."""
    try:
        with open("/proc/pressure/cpu") as f:
            return float(f.readline().split()[1].split("=")[1])
    except (OSError, IndexError, ValueError):
        return None


def wait_for_quiet(limit: float | None, patience: float = 900) -> float | None:
    """Wait (at most ``patience`` seconds) until CPU pressure is below ``limit`` percent; the
    pressure then."""
    deadline = time.monotonic() + patience
    while limit is not None and time.monotonic() < deadline:
        pressure = cpu_pressure()
        if pressure is None or pressure < limit:
            return pressure
        time.sleep(2)
    return cpu_pressure()


def once(name: str, run: Path, qrels: Path) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", PROGRAMS[name], str(run), str(qrels)],
                            env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{name} exited with {proc.returncode}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
            "peak_mb": usage.ru_maxrss / 1024}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--small", action="store_true", help="500 queries instead of 7,000")
    ap.add_argument("--repeat", type=int, default=7, help="rounds (each runs both once)")
    ap.add_argument("--quiet", type=float, default=None, metavar="PCT",
                    help="before each run, wait until CPU pressure (PSI, some avg10) is below "
                         "PCT percent (at most 15 min): on a shared machine, both contestants "
                         "then run in its quieter moments")
    ap.add_argument("--patience", type=float, default=900, metavar="S",
                    help="with --quiet: wait at most S seconds before each run (default 900)")
    args, _ = ap.parse_known_args()  # run_all.py passes every benchmark's arguments on

    import make_data

    run, qrels = make_data.make(500 if args.small else 7000, 1000)
    for path in (run, qrels):  # warm the page cache
        with open(path, "rb") as f:
            while f.read(1 << 24):
                pass
    print(f"run {run.name} {run.stat().st_size / 1e6:.0f} MB, qrels {qrels.name}; "
          f"python {sys.version.split()[0]}, {os.cpu_count()} cores, {args.repeat} rounds, "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    times: dict[str, list[dict[str, float]]] = {name: [] for name in PROGRAMS}
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even when started with "&"
    try:
        for i in range(args.repeat):
            done = {}
            for name in (PROGRAMS if i % 2 == 0 else reversed(PROGRAMS)):
                pressure = wait_for_quiet(args.quiet, args.patience)
                done[name] = {**once(name, run, qrels), "pressure": pressure or 0.0}
            for name, t in done.items():
                times[name].append(t)
            print(f"  round {i + 1}: " + ", ".join(
                f"{n} {t[-1]['wall']:.2f} s (CPU pressure {t[-1]['pressure']:.0f} %)"
                for n, t in times.items()), flush=True)
    except KeyboardInterrupt:  # Ctrl-C or kill -INT: the table of the rounds completed so far
        if not times["mizan"]:
            raise
        print(f"  interrupted: {len(times['mizan'])} complete rounds", flush=True)

    def stat(name: str, key: str, how=statistics.median) -> float:
        return how(t[key] for t in times[name])

    print("\n| fresh process, end to end | best s | median s | median CPU s | peak MB | "
          "CPU pressure at start, median / max % |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in PROGRAMS:
        print(f"| {name} | {stat(name, 'wall', min):.2f} | {stat(name, 'wall'):.2f} | "
              f"{stat(name, 'cpu'):.2f} | {stat(name, 'peak_mb', max):.0f} | "
              f"{stat(name, 'pressure'):.0f} / {stat(name, 'pressure', max):.0f} |")
    ratio = stat("pytrec_eval", "wall") / stat("mizan", "wall")
    best = stat("pytrec_eval", "wall", min) / stat("mizan", "wall", min)
    cpu = stat("pytrec_eval", "cpu") / stat("mizan", "cpu")
    print(f"\npytrec_eval / mizan: {ratio:.2f}x (medians), {best:.2f}x (bests), "
          f"{cpu:.2f}x (CPU seconds); load average at the end {os.getloadavg()[0]:.1f}")
    memory = stat("mizan", "peak_mb", max) < stat("pytrec_eval", "peak_mb", min)
    print(f"targets: {'PASS' if ratio >= 5 else 'FAIL'} >= 5x faster (medians), "
          f"{'PASS' if memory else 'FAIL'} less peak memory")


if __name__ == "__main__":
    main()
