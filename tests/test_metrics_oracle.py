"""Every measure against trec_eval (pytrec_eval) on thousands of generated queries.

The generated queries have tied scores, graded and negative judgments, judged documents that were
never retrieved, queries without relevant documents, and queries missing from the run.
"""

from __future__ import annotations

import math
import random

import pytest

import metrics

pytrec_eval = pytest.importorskip("pytrec_eval")

CUTOFFS = (1, 2, 3, 5, 10)
TOL = 1e-9


def _make_queries(seed: int, n_queries: int):
    rng = random.Random(seed)
    run, qrels = {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        pool = [f"d{rng.randrange(60)}" for _ in range(rng.randrange(1, 25))]
        pool += [rng.choice(["doc-α", "Z9", "a_b", "00", "d-1"]) for _ in range(rng.randrange(3))]
        pool = list(dict.fromkeys(pool))
        tie_heavy = rng.random() < 0.4
        if rng.random() < 0.93:  # some queries are missing from the run
            retrieved = rng.sample(pool, rng.randrange(1, len(pool) + 1))
            run[qid] = {d: float(rng.randrange(4)) if tie_heavy else rng.uniform(-5, 5)
                        for d in retrieved}
        judged = rng.sample(pool, rng.randrange(1, len(pool) + 1))
        qrels[qid] = {d: rng.choice([-1, 0, 0, 1, 1, 2, 3, 4]) for d in judged}
    # Run queries without judgments are ignored by both.
    run["unjudged"] = {"d1": 1.0}
    return run, qrels


def _oracle(run, qrels, names, rel=1):
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(names), relevance_level=rel)
    return evaluator.evaluate(run)


def _ranked(scores: dict[str, float]) -> list[str]:
    """trec_eval's order: score descending, then doc id descending."""
    return [d for d, _ in sorted(scores.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)]


PAIRS = (
    [(f"P@{k}", f"P_{k}") for k in CUTOFFS]
    + [(f"R@{k}", f"recall_{k}") for k in CUTOFFS]
    + [(f"HitRate@{k}", f"success_{k}") for k in (1, 5, 10)]
    + [(f"AP@{k}", f"map_cut_{k}") for k in CUTOFFS]
    + [(f"nDCG@{k}", f"ndcg_cut_{k}") for k in CUTOFFS]
    + [("RR", "recip_rank"), ("AP", "map"), ("Rprec", "Rprec"), ("nDCG", "ndcg")]
    + [("Bpref", "bpref"), ("NumRet", "num_ret"), ("NumRel", "num_rel"),
       ("NumRelRet", "num_rel_ret")]
    + [(f"IPrec@{r / 10:.1f}", f"iprec_at_recall_{r / 10:.2f}") for r in range(11)]
)
# Measures without a relevance threshold: trec_eval's ndcg ignores -l, and so does Mizan's nDCG.
NO_REL = ("nDCG", "NumRet")


@pytest.fixture(scope="module")
def generated():
    return _make_queries(seed=2026, n_queries=3000)


@pytest.mark.parametrize("rel", [1, 2])
def test_evaluate_matches_trec_eval(generated, rel):
    run, qrels = generated
    ours_names = [m if rel == 1 or m.startswith(NO_REL) else _with_rel(m, rel) for m, _ in PAIRS]
    ours = metrics.evaluate(run, qrels, ours_names, missing="skip").to_dict("index")
    oracle = _oracle(run, qrels, [t for _, t in PAIRS], rel)
    assert set(ours) == set(oracle)
    mismatches = [
        (q, ours_name, ours[q][ours_name], oracle[q][trec])
        for q in oracle
        for ours_name, (_, trec) in zip(ours_names, PAIRS, strict=True)
        if not math.isclose(ours[q][ours_name], oracle[q][trec], abs_tol=TOL)
    ]
    assert mismatches == []
    # F1@k from trec_eval's own P_k and recall_k.
    f1_names = [_with_rel(f"F1@{k}", rel) for k in CUTOFFS]
    f1 = metrics.evaluate(run, qrels, f1_names, missing="skip").to_dict("index")
    for q in oracle:
        for k in CUTOFFS:
            p, r = oracle[q][f"P_{k}"], oracle[q][f"recall_{k}"]
            expected = 2 * p * r / (p + r) if p + r else 0.0
            assert math.isclose(f1[q][_with_rel(f"F1@{k}", rel)], expected, abs_tol=TOL)


@pytest.mark.parametrize("rel", [1, 2, 3])
def test_trec_eval_names_and_rel_like_trec_eval_l(generated, rel):
    """``evaluate(..., rel=N)`` with trec_eval's own names is ``trec_eval -l N``: every column
    equals pytrec_eval's value of the same name (nDCG ignoring the threshold, as trec_eval's
    ndcg does), and equals the measures written with ``(rel=N)`` one by one."""
    run, qrels = generated
    trec_names = [t for _, t in PAIRS]
    ours = metrics.evaluate(run, qrels, trec_names, missing="skip", rel=rel)
    oracle = _oracle(run, qrels, trec_names, rel)
    assert list(ours.columns) == trec_names
    values = ours.to_dict("index")
    mismatches = [(q, t, values[q][t], oracle[q][t]) for q in oracle for t in trec_names
                  if not math.isclose(values[q][t], oracle[q][t], abs_tol=TOL)]
    assert mismatches == []
    one_by_one = [m if m.startswith(NO_REL) else _with_rel(m, rel) for m, _ in PAIRS]
    explicit = metrics.evaluate(run, qrels, one_by_one, missing="skip")
    assert (explicit.to_numpy() == ours.to_numpy()).all()
    # A threshold written in the measure wins over rel=.
    wins = metrics.evaluate(run, qrels, ["P(rel=1)@5"], missing="skip", rel=rel)
    assert wins["P(rel=1)@5"].tolist() == metrics.evaluate(run, qrels, ["P@5"],
                                                           missing="skip")["P@5"].tolist()


def _judged_share(scores: dict[str, float], judged: dict[str, int], k: int | None) -> float:
    """Judged@k written out from ir_measures' JudgedEvaluator (any judgment counts, divided by
    min(k, retrieved)), with trec_eval's order for equal scores."""
    ranked = _ranked(scores)
    top = ranked if k is None else ranked[:k]
    return sum(d in judged for d in top) / len(top) if top else 0.0


def test_judged_matches_its_definition(generated):
    run, qrels = generated
    names = ["Judged", "Judged@1", "Judged@3", "Judged@10"]
    table = metrics.evaluate(run, qrels, names).to_dict("index")
    for q, row in table.items():
        for name in names:
            k = int(name.split("@")[1]) if "@" in name else None
            assert math.isclose(row[name], _judged_share(run.get(q, {}), qrels[q], k),
                                abs_tol=TOL), (q, name)


def test_judged_on_ir_measures_own_example():
    """The example of ir_measures' tests/test_judged.py (no tied scores)."""
    qrels = {"0": {"D0": 0, "D1": 1, "D2": 1, "D3": 2, "D4": 0},
             "1": {"D0": 1, "D3": 2, "D5": 2}}
    run = {"0": {"D0": 0.8, "D2": 0.7, "D1": 0.3, "D3": 0.4, "D4": 0.1},
           "1": {"D1": 0.8, "D3": 0.7, "D4": 0.3, "D2": 0.4}}
    table = metrics.evaluate(run, qrels, ["Judged", "Judged@1000", "Judged@10", "Judged@3",
                                          "Judged@1"])
    assert table.loc["0"].tolist() == [1.0, 1.0, 1.0, 1.0, 1.0]
    assert table.loc["1"].tolist() == [0.25, 0.25, 0.25, pytest.approx(1 / 3), 0.0]


def _with_rel(measure: str, rel: int) -> str:
    if rel == 1:
        return measure
    name, at, k = measure.partition("@")
    return f"{name}(rel={rel}){at}{k}"


def test_single_ranking_functions_match_trec_eval(generated):
    run, qrels = generated
    oracle = _oracle(run, qrels, [t for _, t in PAIRS])
    functions = {
        "P": metrics.precision, "R": metrics.recall, "HitRate": metrics.hit_rate,
    }
    for q, values in oracle.items():
        ranking, judged = _ranked(run[q]), qrels[q]
        for k in CUTOFFS:
            for name, fn in functions.items():
                trec = {"P": f"P_{k}", "R": f"recall_{k}", "HitRate": f"success_{k}"}[name]
                if trec in values:
                    assert math.isclose(fn(ranking, judged, k), values[trec], abs_tol=TOL)
            assert math.isclose(metrics.average_precision(ranking, judged, k),
                                values[f"map_cut_{k}"], abs_tol=TOL)
            assert math.isclose(metrics.ndcg(ranking, judged, k), values[f"ndcg_cut_{k}"],
                                abs_tol=TOL)
        assert math.isclose(metrics.reciprocal_rank(ranking, judged), values["recip_rank"],
                            abs_tol=TOL)
        assert math.isclose(metrics.average_precision(ranking, judged), values["map"],
                            abs_tol=TOL)
        assert math.isclose(metrics.r_precision(ranking, judged), values["Rprec"], abs_tol=TOL)
        assert math.isclose(metrics.ndcg(ranking, judged), values["ndcg"], abs_tol=TOL)


def test_iprec_takes_trec_eval_s_floating_point_threshold():
    """0.7 × 3 + 0.9 is 2.9999999999999996 in double precision: trec_eval needs 2 relevant
    documents at level 0.7 when R = 3, not 3 (recall 2/3 counts as reaching 0.7)."""
    qrels = {"q": {"a": 1, "b": 1, "c": 1}}
    order = ["a", "x", "b", "y", "z", "w", "c"]
    run = {"q": {d: float(len(order) - i) for i, d in enumerate(order)}}
    oracle = _oracle(run, qrels, ["iprec_at_recall"])["q"]["iprec_at_recall_0.70"]
    assert math.isclose(oracle, 2 / 3, abs_tol=TOL)
    assert math.isclose(metrics.interpolated_precision(order, qrels["q"], 0.7), oracle,
                        abs_tol=TOL)


VARIANTS = [
    "RR@1", "RR@3", "RR@10", "AP(norm=retrieved)", "AP(norm=retrieved)@3", "AP(norm=min_k_R)@3",
    "AP(norm=min_k_R)", "DCG@3", "DCG", "DCG(gain=exponential)@5", "IDCG@3",
    "IDCG(ideal=retrieved)@3", "nDCG(gain=exponential)@5", "nDCG(ideal=retrieved)@5",
    "nDCG(gain=exponential,ideal=retrieved)@10", "F1@3", "P(rel=3)@5", "RR(rel=2)@5",
    "Bpref", "Bpref(rel=2)", "Judged", "Judged@3", "IPrec@0.25", "IPrec(rel=2)@0.5", "NumRet",
    "NumRel", "NumRelRet(rel=3)", "NumQ",
]


def test_batch_and_single_ranking_agree_on_variants(generated):
    """The conventions trec_eval does not have: the fast kernel equals the plain definition."""
    run, qrels = generated
    table = metrics.evaluate(run, qrels, VARIANTS).to_dict("index")
    specs = [metrics.parse(text) for text in VARIANTS]
    for q, row in table.items():
        ranking = _ranked(run.get(q, {}))
        for spec in specs:
            assert math.isclose(row[spec.text], spec(ranking, qrels[q]), abs_tol=TOL), (q, spec)


def test_run_files_in_rank_order_take_the_fast_path_and_agree(generated, tmp_path):
    """A TREC file already in rank order (the usual case) is not re-sorted; its ties, written in
    any document order, still rank by document id descending, as trec_eval does."""
    run, qrels = generated
    rng = random.Random(5)
    lines = []
    for qid, scores in run.items():
        docs = list(scores)
        rng.shuffle(docs)                                  # ties in arbitrary order
        docs.sort(key=lambda d: -scores[d])                # stable: grouped, score descending
        lines += [f"{qid} Q0 {d} {i} {scores[d]!r} sys" for i, d in enumerate(docs, 1)]
    qrel_lines = [f"{q} 0 {d} {g}" for q, judged in qrels.items() for d, g in judged.items()]
    (tmp_path / "run.trec").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "qrels.trec").write_text("\n".join(qrel_lines) + "\n", encoding="utf-8")
    names = [m for m, _ in PAIRS] + VARIANTS
    from_files = metrics.evaluate(metrics.read_run(tmp_path / "run.trec"),
                                  metrics.read_qrels(tmp_path / "qrels.trec"), names)
    from_dicts = metrics.evaluate(run, qrels, names)
    assert from_files.attrs["duplicates_dropped"] == 0
    assert from_files.index.tolist() == from_dicts.index.tolist()
    assert (from_files.to_numpy() - from_dicts.to_numpy()).__abs__().max() <= TOL
