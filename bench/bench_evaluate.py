"""From TREC files on disk to the per-query table: Mizan against pytrec_eval, ranx, ir_measures.

    python bench/bench_evaluate.py            # 7,000 queries x 1,000 docs (~250 MB run)
    python bench/bench_evaluate.py --small    # 500 queries x 1,000 docs, a quick check

Measures: P@10, R@100, RR@10, AP, nDCG@10 (trec_eval conventions). Every contestant runs in its
own subprocess, from the files on disk to per-query values, ``--repeat`` times (the fastest time
is reported; imports are not timed); its peak resident memory is the child's ``ru_maxrss`` as
returned by ``os.wait4`` for that child alone (``getrusage(RUSAGE_CHILDREN)`` would report the
maximum over all children so far). The page cache is warmed first, so no contestant pays for
the disk.

Contestants:
  (a) mizan parse only   ``metrics.read_run`` on the run file
  (b) mizan              ``read_run`` + ``read_qrels`` + ``metrics.evaluate``
  (c) pytrec_eval        ``parse_run`` + ``parse_qrel`` + ``RelevanceEvaluator.evaluate``
                         (P_10, recall_100, recip_rank, map, ndcg_cut_10). trec_eval has no
                         RR@10 (``recip_rank.10`` is accepted and ignored), so RR@10 is derived
                         from recip_rank afterwards, outside the timing: 1/rank >= 0.1 exactly
                         when rank <= 10, so RR@10 = recip_rank if recip_rank >= 0.1 else 0.
  (d) ranx               ``Qrels.from_file`` + ``Run.from_file`` + ``evaluate(return_mean=False,
                         make_comparable=True)``; the first full call in the process (numba
                         JIT-compiles, or loads from its on-disk cache, for the types it meets)
                         is reported apart as the warm-up, then the warm calls are timed.
                         ``--ranx-cold`` empties numba's cache first: a first-ever compile.
  (e) ir_measures        ``read_trec_qrels`` + ``read_trec_run`` + ``iter_calc`` (all values
                         materialised).

Correctness: the per-query values of (b), (d) and (e) are compared with pytrec_eval's on the
queries both score (pytrec_eval skips queries without judgments or without results).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import pickle
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

MEASURES = ["P@10", "R@100", "RR@10", "AP", "nDCG@10"]
PYTREC = {"P_10": "P@10", "recall_100": "R@100", "recip_rank": "RR", "map": "AP",
          "ndcg_cut_10": "nDCG@10"}
RANX = {"precision@10": "P@10", "recall@100": "R@100", "mrr@10": "RR@10", "map": "AP",
        "ndcg@10": "nDCG@10"}
CONTESTANTS = ["parse", "mizan", "pytrec_eval", "ranx", "ir_measures"]
LABELS = {
    "parse": "(a) mizan: read_run only (parse)",
    "mizan": "(b) mizan: read_run+read_qrels+evaluate",
    "pytrec_eval": "(c) pytrec_eval: parse_run/qrel+evaluate",
    "ranx_warmup": "(d) ranx: first call (incl. numba JIT)",
    "ranx": "(d) ranx: from_file+evaluate (warm)",
    "ir_measures": "(e) ir_measures: read_trec_*+iter_calc",
}


# --------------------------------------------------------------------------------------------
# Children: one contestant each


CPU: list[float] = []  # process CPU seconds (all threads) of each timed call


def _best(task, repeat: int) -> tuple[float, list[float], object]:
    times, result = [], None
    for _ in range(repeat):
        result = None
        gc.collect()
        cpu, start = time.process_time(), time.perf_counter()
        result = task()
        times.append(time.perf_counter() - start)
        CPU.append(time.process_time() - cpu)
    return min(times), times, result


def _dump(columns: dict[str, dict[str, float]], out: str) -> None:
    """Per-query values as ``{measure: {query_id: value}}`` (plain Python: no pandas in the
    reference contestants' processes, so their peak memory is their own)."""
    with open(out, "wb") as f:
        pickle.dump(columns, f)


def child(name: str, run: str, qrels: str, out: str, repeat: int) -> dict:
    info: dict = {}
    t0 = time.perf_counter()
    if name in ("parse", "mizan"):
        import metrics
        from metrics.io import read_qrels, read_run

        info["import_s"] = time.perf_counter() - t0
        if name == "parse":
            best, times, frame = _best(lambda: read_run(run), repeat)
            info["rows"] = len(frame)
            return {**info, "best": best, "times": times}
        parts: dict[str, list[float]] = {"read_run": [], "read_qrels": [], "evaluate": []}

        def task():
            a = time.perf_counter()
            r = read_run(run)
            b = time.perf_counter()
            q = read_qrels(qrels)
            c = time.perf_counter()
            table = metrics.evaluate(r, q, MEASURES)
            d = time.perf_counter()
            for key, value in zip(parts, (b - a, c - b, d - c), strict=True):
                parts[key].append(value)
            return table

        best, times, table = _best(task, repeat)
        index = [str(q) for q in table.index]
        _dump({m: dict(zip(index, table[m].tolist(), strict=True)) for m in MEASURES}, out)
        return {**info, "best": best, "times": times, "parts": parts}

    if name == "pytrec_eval":
        import pytrec_eval

        info["import_s"] = time.perf_counter() - t0

        def task():
            with open(run) as f:
                r = pytrec_eval.parse_run(f)
            with open(qrels) as f:
                q = pytrec_eval.parse_qrel(f)
            evaluator = pytrec_eval.RelevanceEvaluator(
                q, {"P.10", "recall.100", "recip_rank", "map", "ndcg_cut.10"})
            return evaluator.evaluate(r)

        best, times, result = _best(task, repeat)
        columns = {m: {q: v[key] for q, v in result.items()} for key, m in PYTREC.items()}
        # exact: 1/rank >= 1/10 if and only if rank <= 10 (both computed as 1.0 / rank)
        columns["RR@10"] = {q: (v if v >= 0.1 else 0.0) for q, v in columns.pop("RR").items()}
        _dump(columns, out)
        return {**info, "best": best, "times": times}

    if name == "ranx":
        import numpy as np
        from ranx import Qrels, Run, evaluate

        info["import_s"] = time.perf_counter() - t0

        def task():
            q = Qrels.from_file(qrels, kind="trec")
            r = Run.from_file(run, kind="trec")
            scores = evaluate(q, r, list(RANX), return_mean=False, make_comparable=True)
            return r, scores

        # numba compiles for the argument types it meets (the id strings' lengths among
        # them), so a toy warm-up does not warm it: the first full call is the warm-up.
        start = time.perf_counter()
        task()
        info["warmup_s"] = time.perf_counter() - start
        best, times, (r, scores) = _best(task, repeat)
        index = list(r.keys())
        _dump({RANX[m]: dict(zip(index, np.asarray(v).tolist(), strict=True))
               for m, v in scores.items()}, out)
        return {**info, "best": best, "times": times}

    if name == "ir_measures":
        import ir_measures
        from ir_measures import AP, RR, P, R, nDCG

        info["import_s"] = time.perf_counter() - t0
        wanted = [P @ 10, R @ 100, RR @ 10, AP, nDCG @ 10]

        def task():
            q = ir_measures.read_trec_qrels(qrels)
            r = ir_measures.read_trec_run(run)
            return list(ir_measures.iter_calc(wanted, q, r))

        best, times, result = _best(task, repeat)
        names = dict(zip(map(str, wanted), MEASURES, strict=True))
        columns: dict[str, dict[str, float]] = {m: {} for m in MEASURES}
        for metric in result:
            columns[names[str(metric.measure)]][metric.query_id] = metric.value
        _dump(columns, out)
        return {**info, "best": best, "times": times}
    raise SystemExit(f"unknown contestant {name}")


# --------------------------------------------------------------------------------------------
# Parent


def spawn(name: str, run: Path, qrels: Path, out: Path, repeat: int, env: dict) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", name, str(run), str(qrels),
           str(out), str(repeat)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, env=env)
    stdout = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    proc.stdout.close()
    if proc.returncode != 0:
        return {"error": f"exit {proc.returncode}"}
    result = json.loads(stdout.decode().strip().splitlines()[-1])
    result["peak_mb"] = usage.ru_maxrss / 1024  # Linux: kilobytes
    return result


def compare(reference, other) -> dict[str, float]:
    import numpy as np

    shared = reference.index.intersection(other.index)
    out = {}
    for m in MEASURES:
        a = reference.loc[shared, m].to_numpy(float)
        b = other.loc[shared, m].to_numpy(float)
        out[m] = float(np.max(np.abs(a - b))) if len(shared) else float("nan")
    out["queries"] = len(shared)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--small", action="store_true", help="500 queries instead of 7,000")
    ap.add_argument("--repeat", type=int, default=3, help="runs per contestant (best reported)")
    ap.add_argument("--only", default=",".join(CONTESTANTS),
                    help=f"comma-separated subset of {','.join(CONTESTANTS)}")
    ap.add_argument("--ranx-cold", action="store_true",
                    help="empty numba's cache for ranx: time a first-ever JIT compile")
    ap.add_argument("--child", nargs=5, metavar=("NAME", "RUN", "QRELS", "OUT", "REPEAT"),
                    help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        name, run, qrels, out, repeat = args.child
        result = child(name, run, qrels, out, int(repeat))
        result["cpu"] = min(CPU[-int(repeat):])
        print(json.dumps(result))
        return

    import make_data
    import pandas as pd

    n_queries = 500 if args.small else 7000
    run, qrels = make_data.make(n_queries, 1000)
    for path in (run, qrels):  # warm the page cache
        with open(path, "rb") as f:
            while f.read(1 << 24):
                pass
    print(f"run   {run.relative_to(ROOT)}  {run.stat().st_size / 1e6:.0f} MB")
    print(f"qrels {qrels.relative_to(ROOT)}  {qrels.stat().st_size / 1e6:.1f} MB")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, best of {args.repeat}, "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)

    results: dict[str, dict] = {}
    tables: dict[str, pd.DataFrame] = {}
    with tempfile.TemporaryDirectory(prefix="mizan-bench-") as tmp:
        for name in args.only.split(","):
            env = dict(os.environ, PYTHONPATH=str(ROOT))
            if name == "ranx" and args.ranx_cold:
                env["NUMBA_CACHE_DIR"] = str(Path(tmp) / "numba-cache")
            out = Path(tmp) / f"{name}.pkl"
            print(f"  running {name} ...", flush=True)
            results[name] = spawn(name, run, qrels, out, args.repeat, env)
            if out.exists():
                with open(out, "rb") as f:
                    tables[name] = pd.DataFrame(pickle.load(f))[MEASURES]
    report(results, tables, n_queries)


def report(results: dict[str, dict], tables: dict, n_queries: int) -> None:
    ours = results.get("mizan", {}).get("best")
    rows = []
    for name in CONTESTANTS:
        if name not in results:
            continue
        r = results[name]
        if "error" in r:
            rows.append((LABELS[name], r["error"], "", ""))
            continue
        if name == "ranx":
            rows.append((LABELS["ranx_warmup"], f"{r['warmup_s']:.2f}", "", "", ""))
        ratio = f"{r['best'] / ours:.2f}x" if ours else ""
        rows.append((LABELS[name], f"{r['best']:.2f}", ratio, f"{r['cpu']:.2f}",
                     f"{r['peak_mb']:.0f}"))
    width = max(len(row[0]) for row in rows)
    print()
    print(f"{n_queries} queries x 1000 docs: wall seconds (best), ratio to (b), "
          f"CPU seconds (least; all threads), peak RSS of the process")
    print(f"| {'contestant':<{width}} | seconds | vs (b) | CPU s | peak MB |")
    print(f"|{'-' * (width + 2)}|--------:|-------:|------:|--------:|")
    for label, sec, ratio, cpu, mb in rows:
        print(f"| {label:<{width}} | {sec:>7} | {ratio:>6} | {cpu:>5} | {mb:>7} |")
    mizan = results.get("mizan", {})
    if "parts" in mizan:
        parts = ", ".join(f"{k} {min(v):.2f} s" for k, v in mizan["parts"].items())
        print(f"\n(b) split (best of each): {parts}")
    if "pytrec_eval" in tables:
        print("\nmax |value - pytrec_eval| on the queries both score:")
        for name in ("mizan", "ranx", "ir_measures"):
            if name in tables:
                diffs = compare(tables["pytrec_eval"], tables[name])
                text = "  ".join(f"{m} {diffs[m]:.1e}" for m in MEASURES)
                print(f"  {name:<12} ({diffs['queries']} queries)  {text}")
    checks = []
    if ours and "pytrec_eval" in results and "best" in results["pytrec_eval"]:
        pte = results["pytrec_eval"]
        checks.append(("(c) / (b) >= 4", pte["best"] / ours >= 4, f"{pte['best'] / ours:.1f}"))
        checks.append(("peak (b) < peak (c)", mizan["peak_mb"] < pte["peak_mb"],
                       f"{mizan['peak_mb']:.0f} MB vs {pte['peak_mb']:.0f} MB"))
    if ours and "parse" in results and "best" in results["parse"]:
        ratio = ours / results["parse"]["best"]
        checks.append(("(b) / (a) <= 2", ratio <= 2, f"{ratio:.2f}"))
    if checks:
        print("\ntargets:")
        for text, ok, value in checks:
            print(f"  {'PASS' if ok else 'FAIL'}  {text}: {value}")
    print(f"\nmax RSS over all children (RUSAGE_CHILDREN): "
          f"{resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.0f} MB; "
          f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
