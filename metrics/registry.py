"""The measure registry: every measure declared once, parsed from ir_measures-style strings.

The declarations (family, cutoff rule, parameters, formula, descriptions in Arabic and English,
citation, which tool uses which convention) live in ``measures.toml``; this module binds them to
the implementations and parses strings such as ``P@5``, ``RR@10``, ``AP(norm=min_k_R)@10``,
``nDCG(gain=exponential,ideal=retrieved)@5`` or ``P(rel=2)@5``.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from metrics import binary, graded, rank
from metrics.errors import MetricError

# Parameter name -> (default, allowed values; None means "an integer >= 1").
PARAMETERS: Mapping[str, tuple[object, tuple[str, ...] | None]] = MappingProxyType({
    "rel": (1, None),
    "norm": ("R", rank.AP_NORMS),
    "gain": ("linear", graded.GAINS),
    "ideal": ("judged", graded.IDEALS),
})

_IMPLEMENTATIONS: Mapping[str, Callable[..., float]] = MappingProxyType({
    "HitRate": binary.hit_rate,
    "P": binary.precision,
    "R": binary.recall,
    "F1": binary.f1,
    "RR": rank.reciprocal_rank,
    "AP": rank.average_precision,
    "Rprec": binary.r_precision,
    "DCG": graded.dcg,
    "IDCG": graded.idcg,
    "nDCG": graded.ndcg,
})


@dataclass(frozen=True)
class Measure:
    """One measure as declared in ``measures.toml``."""

    name: str
    family: str                       # "binary" | "rank" | "graded"
    cutoff: str                       # "required" | "optional" | "none"
    params: tuple[str, ...]
    formula: str                      # LaTeX
    description: Mapping[str, str]    # language -> text
    citation: str
    conventions: Mapping[str, str]    # tool -> what it does
    function: Callable[..., float] = field(repr=False, compare=False)


@dataclass(frozen=True)
class MeasureSpec:
    """A parsed measure: which one, its parameters and cutoff, and the text it was written as."""

    measure: Measure
    params: Mapping[str, object]
    k: int | None
    text: str

    @property
    def name(self) -> str:
        return self.measure.name

    def __call__(self, ranking: Sequence[str], qrels) -> float:
        """The value of this measure on one ranking."""
        args = dict(self.params)
        if self.measure.cutoff != "none":
            args["k"] = self.k
        return self.measure.function(ranking, qrels, **args)

    def canonical(self) -> str:
        """The measure with only its non-default parameters, e.g. ``nDCG(gain=exponential)@5``."""
        changed = [f"{n}={v}" for n, v in self.params.items() if v != PARAMETERS[n][0]]
        text = self.name + (f"({','.join(changed)})" if changed else "")
        return text + (f"@{self.k}" if self.k is not None else "")


def _load() -> dict[str, Measure]:
    declared = tomllib.loads((Path(__file__).with_name("measures.toml")).read_text("utf-8"))
    measures = {}
    for name, spec in declared.items():
        measures[name] = Measure(
            name=name, family=spec["family"], cutoff=spec["cutoff"], params=tuple(spec["params"]),
            formula=spec["formula"], description=MappingProxyType(spec["description"]),
            citation=spec["citation"], conventions=MappingProxyType(spec.get("conventions", {})),
            function=_IMPLEMENTATIONS[name])
    return measures


REGISTRY: Mapping[str, Measure] = MappingProxyType(_load())
_BY_LOWER = {name.lower(): m for name, m in REGISTRY.items()}
_SYNTAX = re.compile(r"^\s*([A-Za-z][A-Za-z0-9]*)\s*(?:\(([^()]*)\))?\s*(?:@\s*(\S+))?\s*$")


def _value(measure: str, name: str, raw: str) -> object:
    allowed = PARAMETERS[name][1]
    if allowed is None:
        if not re.fullmatch(r"\d+", raw) or int(raw) < 1:
            raise MetricError("bad_parameter", measure=measure, name=name, value=raw,
                              allowed="an integer >= 1")
        return int(raw)
    if raw not in allowed:
        raise MetricError("bad_parameter", measure=measure, name=name, value=raw,
                          allowed=", ".join(allowed))
    return raw


def parse(text: str) -> MeasureSpec:
    """Parse ``Name(param=value,...)@k``. Unknown names or parameters raise ``MetricError``."""
    if not isinstance(text, str):
        raise MetricError("unknown_measure", measure=repr(text), valid=", ".join(REGISTRY))
    match = _SYNTAX.match(text)
    measure = _BY_LOWER.get(match.group(1).lower()) if match else None
    if measure is None:
        raise MetricError("unknown_measure", measure=text, valid=", ".join(REGISTRY))
    params = {name: PARAMETERS[name][0] for name in measure.params}
    for item in filter(None, (p.strip() for p in (match.group(2) or "").split(","))):
        name, sep, raw = (s.strip() for s in item.partition("="))
        if not sep or name not in measure.params:
            raise MetricError("unknown_parameter", measure=measure.name, name=name,
                              valid=", ".join(measure.params) or "none")
        params[name] = _value(measure.name, name, raw)
    raw_k = match.group(3)
    if raw_k is None:
        if measure.cutoff == "required":
            raise MetricError("cutoff_required", measure=measure.name)
        k = None
    else:
        if measure.cutoff == "none":
            raise MetricError("cutoff_not_allowed", measure=measure.name)
        if not re.fullmatch(r"\d+", raw_k) or int(raw_k) < 1:
            raise MetricError("bad_cutoff", k=raw_k)
        k = int(raw_k)
    return MeasureSpec(measure, MappingProxyType(params), k, text)
