"""Where a measure's denominator can be 0, its registry formula states the value it takes, and
that value is what ``metrics`` returns and what trec_eval (pytrec_eval) prints (issue #14, R4).

The formulas in ``metrics/measures.toml`` are shown in the lab (its formulas panel and a result
column's hover text), on Arabic pages too, so in symbols only: each states its zero case as the
last line of a ``cases``, ``0 & R = 0`` (the value, then its condition).
"""

from __future__ import annotations

import re

import pytest

import metrics

pytrec_eval = pytest.importorskip("pytrec_eval")

# A stated zero case, "V & condition", and its value V: the last line of a cases environment.
VALUE = re.compile(r"(\d+) & ")
STATED = re.compile(r"\\\\ " + VALUE.pattern + r"[^&]*?\\end\{cases\}")

# (measure as written, ranking, judgments, the zero case as its formula states it, trec_eval's
# name of the same value or None)
NO_RELEVANT = {"a": 0, "b": 0}          # R = 0: judged, none relevant
NONE_IN_TOP_3 = {"a": 1, "b": 0}        # relevant "a" ranked 4th
CASES = [
    ("R@3", ["a", "x", "b"], NO_RELEVANT, r"0 & R = 0", "recall_3"),
    ("F1@3", ["b", "x", "y", "a"], NONE_IN_TOP_3,
     r"0 & \mathrm{P@}k + \mathrm{R@}k = 0", None),
    ("AP", ["a", "x", "b"], NO_RELEVANT, r"0 & N = 0", "map"),
    ("AP@3", ["a", "x", "b"], NO_RELEVANT, r"0 & N = 0", "map_cut_3"),
    ("AP(norm=retrieved)@3", ["b", "x", "y", "a"], NONE_IN_TOP_3, r"0 & N = 0", None),
    ("AP(norm=min_k_R)@3", ["a", "x", "b"], NO_RELEVANT, r"0 & N = 0", None),
    ("Rprec", ["a", "x", "b"], NO_RELEVANT, r"0 & R = 0", "Rprec"),
    ("nDCG@3", ["a", "x", "b"], NO_RELEVANT, r"0 & \mathrm{IDCG@}k = 0",
     "ndcg_cut_3"),
    ("Bpref", ["a", "x", "b"], NO_RELEVANT, r"0 & R = 0", "bpref"),
    ("Judged@3", [], NO_RELEVANT, r"0 & \mathrm{Ret} = \varnothing", None),
    ("IPrec@1.0", ["a", "x", "y"], {"a": 1, "c": 1, "d": 1},
     r"0 & I = \varnothing", "iprec_at_recall_1.00"),
    ("IPrec@0.5", ["a", "x", "b"], NO_RELEVANT, r"0 & I = \varnothing",
     "iprec_at_recall_0.50"),
]

# Formulas with a division or a max whose denominator or set can never be empty.
NEVER_ZERO = {"P": "k >= 1", "RR": "1/r_1 only when a relevant document is in the top k",
              "DCG": "log2(i + 1) >= 1", "IDCG": "log2(i + 1) >= 1"}


def trec_eval(name: str, ranking: list[str], qrels: dict[str, int]) -> float:
    """What trec_eval 9.0.8 (pytrec_eval) gives the one query ``q``."""
    head, _, cutoff = name.rpartition("_")
    asked = (f"{head}.{cutoff}" if cutoff.isdigit()        # recall_3 is asked as recall.3
             else head if name.startswith("iprec") else name)   # all 11 recall levels
    evaluator = pytrec_eval.RelevanceEvaluator({"q": qrels}, {asked})
    run = {"q": {doc: float(len(ranking) - i) for i, doc in enumerate(ranking)}}
    return evaluator.evaluate(run)["q"][name]


@pytest.mark.parametrize(("text", "ranking", "qrels", "stated", "trec_name"), CASES)
def test_the_stated_zero_case_is_what_metrics_returns(text, ranking, qrels, stated, trec_name):
    spec = metrics.parse(text)
    formula = spec.measure.formula
    assert "\\\\ " + stated + r"\end{cases}" in formula, (spec.name, formula)
    value = float(VALUE.match(stated).group(1))
    assert spec(ranking, qrels) == value
    if trec_name is not None and ranking:
        assert trec_eval(trec_name, ranking, qrels) == value


def test_bpref_counts_each_relevant_document_whole_when_nothing_is_judged_non_relevant():
    """N = 0 makes bpref's fraction 0/0: each term t_r is 1, as trec_eval adds 1 when no judged
    non-relevant document ranks above r."""
    assert r"t_r = \begin{cases}" in metrics.REGISTRY["Bpref"].formula
    assert r"\\ 1 & N = 0\end{cases}" in metrics.REGISTRY["Bpref"].formula
    ranking, qrels = ["x", "a", "y"], {"a": 1, "c": 1}   # 1 of R = 2 retrieved, N = 0
    assert metrics.parse("Bpref")(ranking, qrels) == 0.5 == trec_eval("bpref", ranking, qrels)


def test_every_formula_that_can_divide_by_zero_states_its_value():
    covered = {metrics.parse(text).name for text, *_ in CASES}
    for name, measure in metrics.REGISTRY.items():
        formula = measure.formula
        if any(op in formula for op in (r"\frac", r"\max", r"\mathrm{P@}R")):
            assert name in covered or name in NEVER_ZERO, (name, formula)
        if name in covered:
            assert STATED.search(formula), (name, formula)
