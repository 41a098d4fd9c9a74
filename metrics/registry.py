"""The measure registry: every measure declared once, parsed from the names people write.

The declarations (family, cutoff rule, parameters, formula, descriptions in Arabic and English,
citation, which tool does what, and the names trec_eval and ir_measures give it) live in
``measures.toml``; this module binds them to the implementations and parses:

- ir_measures' syntax ``Name(param=value,...)@k``: ``P@5``, ``RR@10``, ``AP(norm=min_k_R)@10``,
  ``nDCG(gain=exponential,ideal=retrieved)@5``, ``P(rel=2)@5``, ``IPrec@0.5`` (for IPrec the
  number after ``@`` is a recall level), with the registry name or any of its
  ``names.ir_measures`` (``MAP``, ``MRR``, ``Success``, ...) or plain trec_eval names
  (``map``, ``recip_rank``, ``ndcg``, ``bpref``, ``num_ret``, ...). Names are matched
  case-insensitively.
- trec_eval's ``names.trec_eval`` templates with a cutoff: ``P_5`` (or ``P.5``, as on
  trec_eval's command line), ``recall_100``, ``ndcg_cut_10``, ``map_cut_10``, ``success_5``,
  ``iprec_at_recall_0.50``.

``MAP``, ``map`` and ``MRR`` are the means of the per-query AP and RR: they parse to ``AP`` and
``RR`` and ``evaluate`` gives the per-query values in a column named as written; the mean of
that column is the MAP or MRR.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType

from metrics import binary, counts, graded, rank
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
    "Bpref": rank.bpref,
    "Judged": binary.judged,
    "IPrec": rank.interpolated_precision,
    "NumRet": counts.num_ret,
    "NumRel": counts.num_rel,
    "NumRelRet": counts.num_rel_ret,
    "NumQ": counts.num_q,
})


@dataclass(frozen=True)
class Measure:
    """One measure as declared in ``measures.toml``."""

    name: str
    family: str                       # "binary" | "rank" | "graded" | "count"
    cutoff: str                       # "required" | "optional" | "none"
    params: tuple[str, ...]
    formula: str                      # LaTeX, in symbols only (no words: the page may be Arabic)
    description: Mapping[str, str]    # language -> text
    citation: str
    conventions: Mapping[str, str]    # tool -> what it does
    function: Callable[..., float] = field(repr=False, compare=False)
    at: str = "rank"                  # what follows "@": "rank" (k >= 1) or "recall" (0..1)
    aggregate: str = "mean"           # over queries: "mean", or "sum" for counts (trec_eval)
    names: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # tool -> its names
    legend: Mapping[str, str] = field(default_factory=dict)  # language -> the formula's symbols


@dataclass(frozen=True)
class MeasureSpec:
    """A parsed measure: which one, its parameters and cutoff, and the text it was written as."""

    measure: Measure
    params: Mapping[str, object]
    k: int | float | None             # a rank cutoff, or for IPrec a recall level
    text: str
    given: frozenset[str] = frozenset()   # the parameters written in ``text``

    @property
    def name(self) -> str:
        return self.measure.name

    def __call__(self, ranking: Sequence[str], qrels) -> float:
        """The value of this measure on one ranking."""
        args = dict(self.params)
        if self.measure.cutoff == "none":
            return self.measure.function(ranking, qrels, **args)
        return self.measure.function(ranking, qrels, self.k, **args)

    def canonical(self) -> str:
        """The measure with only its non-default parameters, e.g. ``nDCG(gain=exponential)@5``."""
        changed = [f"{n}={v}" for n, v in self.params.items() if v != PARAMETERS[n][0]]
        text = self.name + (f"({','.join(changed)})" if changed else "")
        return text + (f"@{self.k}" if self.k is not None else "")

    def with_rel(self, rel: int | None) -> MeasureSpec:
        """This measure with relevance threshold ``rel`` unless the text named one (as
        ``trec_eval -l``: measures without a threshold, such as nDCG, are left alone)."""
        if rel is None or "rel" not in self.params or "rel" in self.given:
            return self
        return replace(self, params=MappingProxyType({**self.params,
                                                     "rel": _value(self.name, "rel", str(rel))}))


def _load() -> dict[str, Measure]:
    declared = tomllib.loads((Path(__file__).with_name("measures.toml")).read_text("utf-8"))
    measures = {}
    for name, spec in declared.items():
        measures[name] = Measure(
            name=name, family=spec["family"], cutoff=spec["cutoff"], params=tuple(spec["params"]),
            formula=spec["formula"], description=MappingProxyType(spec["description"]),
            citation=spec["citation"], conventions=MappingProxyType(spec.get("conventions", {})),
            function=_IMPLEMENTATIONS[name], at=spec.get("at", "rank"),
            aggregate=spec.get("aggregate", "mean"),
            names=MappingProxyType({tool: tuple(n) for tool, n in spec.get("names", {}).items()}),
            legend=MappingProxyType(spec.get("legend", {})))
    return measures


REGISTRY: Mapping[str, Measure] = MappingProxyType(_load())


def _names_and_templates() -> tuple[dict[str, Measure], dict[str, Measure]]:
    """Every name, lower-cased -> its measure; and every trec_eval name with a cutoff, by its
    head (``ndcg_cut`` for ``ndcg_cut_{k}``), lower-cased -> its measure."""
    names: dict[str, Measure] = {}
    templates: dict[str, Measure] = {}
    for measure in REGISTRY.values():
        for alias in (measure.name, *(n for ns in measure.names.values() for n in ns)):
            table, key = names, alias.lower()
            if "{k}" in alias:
                table, key = templates, alias.split("{k}")[0].rstrip("_.").lower()
            other = table.setdefault(key, measure)
            if other is not measure:
                raise ValueError(f"measures.toml: {alias!r} names both {other.name} and "
                                 f"{measure.name}")
    return names, templates


_BY_NAME, _BY_HEAD = _names_and_templates()
_SYNTAX = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]*)\s*(?:\(([^()]*)\))?\s*(?:@\s*(\S+))?\s*$")
# A trec_eval name with a cutoff: its head, "_" (or "." as on trec_eval's command line), k.
_TEMPLATE = re.compile(r"\s*([A-Za-z][A-Za-z0-9_]*?)[_.](\d*\.?\d+|\d+\.)\s*")


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


def _cutoff(measure: Measure, raw: str | None) -> int | float | None:
    if raw is None:
        if measure.cutoff == "required":
            raise MetricError("cutoff_required", measure=measure.name)
        return None
    if measure.cutoff == "none":
        raise MetricError("cutoff_not_allowed", measure=measure.name)
    if measure.at == "recall":
        if not re.fullmatch(r"\d*\.?\d+|\d+\.", raw) or float(raw) > 1:
            raise MetricError("bad_cutoff", k=raw, allowed="a recall level from 0 to 1")
        return float(raw)
    if not re.fullmatch(r"\d+", raw) or int(raw) < 1:
        raise MetricError("bad_cutoff", k=raw)
    return int(raw)


def known_names() -> list[str]:
    """Every name ``parse`` accepts, as written in ``measures.toml`` (``k``: the cutoff)."""
    names = []
    for measure in REGISTRY.values():
        names.append(measure.name)
        names.extend(n.replace("{k}", "k") for ns in measure.names.values() for n in ns)
    return list(dict.fromkeys(names))


def _unknown(text: str) -> MetricError:
    head = re.split(r"[(@]", text.strip(), maxsplit=1)[0].strip()
    candidates: dict[str, str] = {}
    for name in known_names():
        candidates.setdefault(name.lower(), name)
    close = difflib.get_close_matches(head.lower(), list(candidates), n=4, cutoff=0.6)
    return MetricError("unknown_measure", measure=text, close=[candidates[c] for c in close],
                       valid=", ".join(REGISTRY))


def parse(text: str) -> MeasureSpec:
    """Parse a measure name (see the module docstring). Unknown names or parameters raise
    ``MetricError``; an unknown name's error lists the close matches."""
    if not isinstance(text, str):
        raise MetricError("unknown_measure", measure=repr(text), close=[],
                          valid=", ".join(REGISTRY))
    found = _TEMPLATE.fullmatch(text)
    measure = _BY_HEAD.get(found.group(1).lower()) if found else None
    if measure is not None:
        params = {name: PARAMETERS[name][0] for name in measure.params}
        return MeasureSpec(measure, MappingProxyType(params), _cutoff(measure, found.group(2)),
                           text)
    match = _SYNTAX.match(text)
    measure = _BY_NAME.get(match.group(1).lower()) if match else None
    if measure is None:
        raise _unknown(text)
    params = {name: PARAMETERS[name][0] for name in measure.params}
    given = set()
    for item in filter(None, (p.strip() for p in (match.group(2) or "").split(","))):
        name, sep, raw = (s.strip() for s in item.partition("="))
        if not sep or name not in measure.params:
            raise MetricError("unknown_parameter", measure=measure.name, name=name,
                              valid=", ".join(measure.params) or "none")
        params[name] = _value(measure.name, name, raw)
        given.add(name)
    return MeasureSpec(measure, MappingProxyType(params), _cutoff(measure, match.group(3)), text,
                       frozenset(given))
