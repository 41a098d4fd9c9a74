"""The names trec_eval and ir_measures users write: each one is one registry measure."""

from __future__ import annotations

import pytest

import metrics
from metrics import MetricError

# name as written -> (registry measure, cutoff or recall level)
TREC_EVAL = {
    "map": ("AP", None), "P_5": ("P", 5), "P.5": ("P", 5), "recall_100": ("R", 100),
    "recip_rank": ("RR", None), "ndcg": ("nDCG", None), "ndcg_cut_10": ("nDCG", 10),
    "map_cut_10": ("AP", 10), "success_5": ("HitRate", 5), "Rprec": ("Rprec", None),
    "num_q": ("NumQ", None), "bpref": ("Bpref", None), "num_ret": ("NumRet", None),
    "num_rel": ("NumRel", None), "num_rel_ret": ("NumRelRet", None),
    "iprec_at_recall_0.50": ("IPrec", 0.5), "iprec_at_recall_0.00": ("IPrec", 0.0),
    "iprec_at_recall_1.00": ("IPrec", 1.0), "ndcg_cut.20": ("nDCG", 20),
}
IR_MEASURES = {
    "AP": ("AP", None), "AP@10": ("AP", 10), "nDCG@10": ("nDCG", 10), "RR": ("RR", None),
    "RR@10": ("RR", 10), "R@100": ("R", 100), "P@5": ("P", 5), "Success@5": ("HitRate", 5),
    "Judged@10": ("Judged", 10), "Rprec": ("Rprec", None), "Bpref": ("Bpref", None),
    "NumRet": ("NumRet", None), "NumRel": ("NumRel", None), "NumRelRet": ("NumRelRet", None),
    "IPrec@0.5": ("IPrec", 0.5), "MRR": ("RR", None), "MRR@10": ("RR", 10), "MAP": ("AP", None),
    "NumQ": ("NumQ", None), "Precision@5": ("P", 5), "Recall@100": ("R", 100),
    "NDCG@10": ("nDCG", 10),
}
RUN = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0, "d": 0.5}, "q2": {"x": 1.0, "y": 0.5},
       "q3": {"m": 2.0}}
QRELS = {"q1": {"a": 1, "c": 2, "z": 1, "b": 0}, "q2": {"y": 1, "w": 0}, "q3": {"k": 3},
         "q4": {"n": 1}}


@pytest.mark.parametrize(("text", "expected"), [*TREC_EVAL.items(), *IR_MEASURES.items()])
def test_each_name_is_one_registry_measure(text, expected):
    spec = metrics.parse(text)
    assert (spec.name, spec.k) == expected
    assert spec.text == text
    assert dict(spec.params) == {p: metrics.registry.PARAMETERS[p][0]
                                 for p in spec.measure.params}  # the defaults


def test_columns_are_named_as_written_and_equal_the_registry_measure():
    names = list(dict.fromkeys([*TREC_EVAL, *IR_MEASURES]))
    table = metrics.evaluate(RUN, QRELS, names)
    assert list(table.columns) == names
    for name in names:
        spec = metrics.parse(name)
        canonical = metrics.evaluate(RUN, QRELS, [spec.canonical()])[spec.canonical()]
        assert table[name].tolist() == canonical.tolist(), name


def test_mean_names_hold_per_query_values():
    """MRR, MAP and map are the means of RR and AP: their columns hold the per-query values,
    and the summary row (or the column's mean) is the MRR or MAP."""
    table = metrics.evaluate(RUN, QRELS, ["MRR@10", "RR@10", "MAP", "map", "AP"])
    assert table["MRR@10"].tolist() == table["RR@10"].tolist()
    assert table["MAP"].tolist() == table["map"].tolist() == table["AP"].tolist()
    summary = metrics.summarize(table)
    assert summary["MRR@10"] == pytest.approx(table["RR@10"].mean())
    assert metrics.REGISTRY["RR"].names["ir_measures"] == ("RR", "MRR")
    assert "MRR" in metrics.REGISTRY["RR"].description["en"]


def test_every_declared_name_parses_to_its_measure():
    for measure in metrics.REGISTRY.values():
        for names in measure.names.values():
            for name in names:
                text = name.replace("{k}", "0.5" if measure.at == "recall" else "7")
                if measure.cutoff == "required" and "{k}" not in name:
                    text += "@0.5" if measure.at == "recall" else "@7"
                assert metrics.parse(text).measure is measure, text


@pytest.mark.parametrize(("text", "close"), [
    ("nDGC@10", "nDCG"), ("ndcg_cut10", "ndcg_cut_k"), ("recip_rnak", "recip_rank"),
    ("Bperf", "Bpref"), ("sucess_5", "success_k"), ("MAPP", "map"),
])
def test_an_unknown_name_lists_the_close_matches(text, close):
    with pytest.raises(MetricError) as info:
        metrics.parse(text)
    assert info.value.key == "unknown_measure"
    assert close in info.value.params["close"], info.value.params["close"]
    assert close in str(info.value)


@pytest.mark.parametrize("text", ["recip_rank_10", "map_cut", "P_", "P_0", "ndcg_cut_x",
                                  "iprec_at_recall_1.5", "NumRet@5", "Judged@0"])
def test_malformed_names_are_refused(text):
    with pytest.raises(MetricError):
        metrics.parse(text)


def test_rel_applies_where_a_measure_has_a_threshold():
    table = metrics.evaluate(RUN, QRELS, ["P_5", "P(rel=1)@5", "ndcg", "num_rel", "Judged@10"],
                             rel=2)
    default = metrics.evaluate(RUN, QRELS, ["P(rel=2)@5", "P@5", "ndcg", "NumRel(rel=2)",
                                            "Judged@10"])
    assert table.to_numpy().tolist() == default.to_numpy().tolist()
    with pytest.raises(MetricError):
        metrics.evaluate(RUN, QRELS, ["P_5"], rel=0)


def test_summary_row():
    table = metrics.evaluate(RUN, QRELS, ["map", "num_ret", "num_rel", "num_q", "P_5"])
    summary = metrics.summarize(table)
    assert summary.queries == 4 and summary.missing_queries == ("q4",)
    assert summary["num_ret"] == 7 and summary["num_rel"] == 6 and summary["num_q"] == 4
    assert summary["map"] == pytest.approx(table["map"].mean())
    assert 'missing="zero", as trec_eval -c' in summary.policy
    text = str(summary)
    assert "num_ret  all  7" in text.replace("   ", "  ") or "num_ret" in text
    assert text.count("num_q") == 1  # the NumQ column is the query count
    frame = summary.to_frame()
    assert list(frame.index) == ["all"] and frame.loc["all", "num_q"] == 4
    skipped = metrics.summarize(metrics.evaluate(RUN, QRELS, ["map"], missing="skip"))
    assert skipped.queries == 3 and skipped.missing_queries == ("q4",)
    assert "left out" in skipped.policy and "9.0.8" in skipped.policy
    by_hand = metrics.summarize(table.reset_index().set_index("query_id").drop(columns="P_5"))
    assert by_hand.queries == 4
    import pandas as pd

    plain = metrics.summarize(pd.DataFrame({"AP": [0.5, 1.0]}))
    assert plain["AP"] == 0.75 and "not known" in plain.policy
