"""Agreement of ``metrics.faithfulness.check`` with human verdicts, by kind and language.

    .venv/bin/python scripts/faithfulness_agreement.py dev [--misses]   # tuning set
    .venv/bin/python scripts/faithfulness_agreement.py heldout          # aggregates only
    .venv/bin/python scripts/faithfulness_agreement.py old              # the 35-item set
    .venv/bin/python scripts/faithfulness_agreement.py probe_dev [--misses]  # the hard probe set
    .venv/bin/python scripts/faithfulness_agreement.py probe_heldout    # aggregates only

The held-out splits print aggregate agreement only (counts and Wilson 95 % intervals); it never
prints an item, so it cannot be tuned on. ``--misses`` is refused for it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from metrics.faithfulness_agreement import (  # noqa: E402
    LABELLED_SETS,
    agreement_table,
    human_verdict,
    item_verdict,
    load_items,
)

FILES = LABELLED_SETS


def load(split: str) -> list[dict]:
    return load_items(FILES[split])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("split", choices=sorted(FILES))
    ap.add_argument("--misses", action="store_true", help="list disagreements (not held-out)")
    args = ap.parse_args(argv)
    if args.misses and args.split.endswith("heldout"):
        ap.error("a held-out split prints aggregates only")
    items = load(args.split)
    verdicts = [item_verdict(i["sentence"], i["source"]) for i in items]
    table = agreement_table(items, verdicts)
    langs = sorted({lang for _, lang in table if lang != "all"})
    kinds = [*sorted({k for k, _ in table if k != "all"}), "all"]
    print(f"{args.split}: {len(items)} items; agree/n = share [Wilson 95 %]")
    print(f"{'kind':12}" + "".join(f"{h:>28}" for h in [*langs, "all"]))
    for kind in kinds:
        row = [str(table[(kind, lang)]) if (kind, lang) in table else "-"
               for lang in [*langs, "all"]]
        print(f"{kind:12}" + "".join(f"{c:>28}" for c in row))
    if args.misses:
        print()
        for item, got in zip(items, verdicts, strict=True):
            if got != human_verdict(item):
                print(f"MISS {item.get('id', item['kind'])}: human {human_verdict(item)}, "
                      f"checker {got}\n   {item['sentence']}")


if __name__ == "__main__":
    main()
