"""Write the judging pool of the bundled questions (see retrieval.pool) for human judges.

    .venv/bin/python scripts/make_pool.py [--out POOL.toml]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from retrieval.corpus import load_questions  # noqa: E402
from retrieval.engine import load_bundled  # noqa: E402
from retrieval.pool import build_pool, pool_toml  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "POOL.toml")
    args = parser.parse_args()
    handbook = load_bundled()
    questions = load_questions(corpus=handbook["ar"].corpus)
    entries = build_pool(handbook, questions)
    args.out.write_text(pool_toml(entries, handbook), encoding="utf-8")
    sizes = Counter()
    for entry in entries:
        sizes[entry.corpus_lang] += len(entry.passages)
    print(f"wrote {args.out}: {len(questions)} questions, {len(entries)} pools, "
          f"{sum(sizes.values())} passages to judge ({dict(sizes)}), "
          f"{min(len(e.passages) for e in entries)}-{max(len(e.passages) for e in entries)} "
          "a pool")


if __name__ == "__main__":
    main()
