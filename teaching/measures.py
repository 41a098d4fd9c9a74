"""The measures Mizan teaches, declared once in ``measures.toml``: key, label, family.

``MEASURES["ndcg"].key`` is what progress, URLs and live questions store; ``name("ndcg", 5)`` is
``"nDCG@5"``, how every page writes it; ``registry`` names the ``metrics`` measure behind it.
Pure Python, no Streamlit.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

__all__ = ["FAMILIES", "MEASURES", "Measure", "decimals", "family", "keys", "name", "words"]

FAMILIES = ("binary", "ap", "mrr", "graded", "faithfulness")
DEFAULT_TOLERANCE = 0.005


@dataclass(frozen=True)
class Measure:
    key: str                      # storage id and URL value, e.g. "ndcg"
    label: str                    # how pages name it, e.g. "nDCG"
    family: str                   # which generator makes its exercises (FAMILIES)
    tolerance: float              # how far a typed answer may be from the right one
    headline: frozenset[str]      # mistakes each of its exercises must be able to show
    registry: str | None = None   # the metrics registry measure behind it ("nDCG")
    mean_label: str | None = None  # the name of its mean over questions ("MRR" for RR)
    # its name in words by language («الاستدعاء»), and its mean's ("Mean reciprocal rank")
    words: Mapping[str, str] = field(default_factory=dict, hash=False)
    mean_words: Mapping[str, str] = field(default_factory=dict, hash=False)
    whole: bool = False           # one question's value is a whole number (HitRate: 0 or 1)

    def name(self, k: int | None = None, *, mean: bool = False) -> str:
        """``"nDCG@5"``; ``"MAP@3"`` for AP's mean; ``"MRR"``: the label, ``@k`` when given."""
        label = (self.mean_label or self.label) if mean else self.label
        return label if k is None else f"{label}@{k}"


def _load() -> dict[str, Measure]:
    declared = tomllib.loads(Path(__file__).with_name("measures.toml").read_text("utf-8"))
    out = {}
    for key, spec in declared.items():
        if spec["family"] not in FAMILIES:
            raise ValueError(f"measure {key!r}: unknown family {spec['family']!r}")
        out[key] = Measure(key, spec["label"], spec["family"],
                           float(spec.get("tolerance", DEFAULT_TOLERANCE)),
                           frozenset(spec["headline"]), spec.get("registry"),
                           spec.get("mean_label"), MappingProxyType(dict(spec.get("name", {}))),
                           MappingProxyType(dict(spec.get("mean_name", {}))),
                           bool(spec.get("whole", False)))
    return out


MEASURES: Mapping[str, Measure] = MappingProxyType(_load())


def keys(*families: str) -> tuple[str, ...]:
    """The measure keys of these families (all of them when none is given), in file order."""
    return tuple(m.key for m in MEASURES.values() if not families or m.family in families)


def family(key: str) -> str:
    return MEASURES[key].family


def name(key: str, k: int | None = None, *, mean: bool = False) -> str:
    """How a page writes measure ``key``: ``name("precision", 3)`` → ``"precision@3"``."""
    return MEASURES[key].name(k, mean=mean)


def decimals(key: str, *, mean: bool = False) -> int:
    """How many decimals a page shows of one value of measure ``key``: none for a question's
    HitRate (a hit or not: ``1``, not ``1.00``), two otherwise and for every mean."""
    return 0 if MEASURES[key].whole and not mean else 2


def words(key: str, lang: str, *, mean: bool = False) -> str:
    """Measure ``key``'s name in words in ``lang`` («الاستدعاء», "Recall"), written beside its
    label; ``mean``: the name of its mean over questions when it has one ("Mean reciprocal
    rank"). English when ``lang`` has none."""
    m = MEASURES[key]
    table = m.mean_words if mean and m.mean_words else m.words
    return table.get(lang) or table.get("en", "")
