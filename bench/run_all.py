"""Run every benchmark in bench/ (files named bench_*.py), one after the other.

    python bench/run_all.py            # full size
    python bench/run_all.py --small    # quick: every argument is passed on to each benchmark

Exits non-zero if any benchmark fails.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    failed = []
    for script in sorted(HERE.glob("bench_*.py")):
        print(f"=== {script.name} {' '.join(sys.argv[1:])}", flush=True)
        code = subprocess.call([sys.executable, str(script), *sys.argv[1:]])
        if code:
            failed.append(script.name)
    if failed:
        print(f"failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
