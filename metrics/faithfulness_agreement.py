"""How often ``faithfulness.check`` agrees with human verdicts on a labelled set.

A labelled item is a (source, sentence, verdict) table with ``kind`` and ``lang``; the human
verdict is ``supported``, ``unsupported`` or ``no_claim`` (the older set spells no claim
``not_scored``). The checker judges the item's sentence against the item's source; when it
splits the text into several sentences, the item's verdict is the weakest scored one.

The checker's "check" counts as **not supported**: it refuses to call the sentence supported
and asks a person, and a person reading a "check" sentence against the source finds the claim
the source does not back. So "check" agrees with a human "unsupported" and disagrees with a
human "supported"; it never agrees with "no claim". No other mapping is used.

No Streamlit. ``load_items`` reads a labelled TOML file (``[[items]]`` or the older
``[[item]]``); the table functions take the items.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from metrics import faithfulness

__all__ = ["LABELLED_SETS", "Cell", "agreement_table", "human_verdict", "item_verdict",
           "load_items", "wilson"]

# The labelled sets: ``dev`` (tuned on), ``heldout`` (never tuned on; aggregates only),
# ``old`` (the 35 items written beside the checker) and the harder probe set's two halves,
# ``probe_dev`` and ``probe_heldout`` (openers, negation words, joined claims, modals).
_DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
LABELLED_SETS = {"dev": _DATA / "faithfulness_dev.toml",
                 "heldout": _DATA / "faithfulness_heldout.toml",
                 "old": _DATA / "faithfulness_labelled.toml",
                 "probe_dev": _DATA / "faithfulness_probe_dev.toml",
                 "probe_heldout": _DATA / "faithfulness_probe_heldout.toml"}

_ORDER = {"unsupported": 0, "check": 1, "supported": 2}


def load_items(path: str | Path) -> list[dict]:
    """The items of a labelled TOML file; an item without ``lang`` gets the language of its
    sentence's script (the older 35-item set has none)."""
    data = tomllib.loads(Path(path).read_text("utf-8"))
    items = data.get("items") or data["item"]
    for i in items:
        i.setdefault("lang", "ar" if re.search("[\u0600-\u06ff]", i["sentence"]) else "en")
    return items


def item_verdict(sentence: str, source: str) -> str:
    """The checker's verdict on one labelled item, in the labels' terms:
    ``supported`` | ``unsupported`` (the checker's "unsupported" or "check") | ``no_claim``."""
    scored = [s.verdict for s in faithfulness.check(sentence, source).sentences
              if s.verdict != "not_scored"]
    if not scored:
        return "no_claim"
    weakest = min(scored, key=_ORDER.__getitem__)
    return "supported" if weakest == "supported" else "unsupported"


def human_verdict(item: Mapping) -> str:
    v = item["verdict"]
    return {"not_scored": "no_claim", "check": "unsupported"}.get(v, v)


def wilson(agree: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score 95 % interval of agree / n ((0, 1) when n = 0)."""
    if n == 0:
        return 0.0, 1.0
    p = agree / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class Cell:
    """Agreement on one group of items."""

    agree: int
    n: int

    @property
    def share(self) -> float:
        return self.agree / self.n if self.n else float("nan")

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.agree, self.n)

    def __str__(self) -> str:
        lo, hi = self.interval
        return f"{self.agree}/{self.n} = {self.share:.2f} [{lo:.2f}, {hi:.2f}]"


def agreement_table(items: Sequence[Mapping],
                    verdicts: Iterable[str] | None = None) -> dict[tuple[str, str], Cell]:
    """Agreement by (kind, lang): keys ``(kind, lang)``, ``(kind, "all")``, ``("all", lang)``
    and ``("all", "all")``. ``verdicts``: the checker's verdicts in item order (computed here
    when not given)."""
    if verdicts is None:
        verdicts = [item_verdict(i["sentence"], i["source"]) for i in items]
    hits: dict[tuple[str, str], list[int]] = {}
    for item, got in zip(items, verdicts, strict=True):
        ok = int(got == human_verdict(item))
        for key in ((item["kind"], item["lang"]), (item["kind"], "all"),
                    ("all", item["lang"]), ("all", "all")):
            hits.setdefault(key, []).append(ok)
    return {k: Cell(sum(v), len(v)) for k, v in sorted(hits.items())}
