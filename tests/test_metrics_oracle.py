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
)


@pytest.fixture(scope="module")
def generated():
    return _make_queries(seed=2026, n_queries=3000)


@pytest.mark.parametrize("rel", [1, 2])
def test_evaluate_matches_trec_eval(generated, rel):
    run, qrels = generated
    ours_names = [m if rel == 1 or m.startswith("nDCG") else _with_rel(m, rel) for m, _ in PAIRS]
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


VARIANTS = [
    "RR@1", "RR@3", "RR@10", "AP(norm=retrieved)", "AP(norm=retrieved)@3", "AP(norm=min_k_R)@3",
    "AP(norm=min_k_R)", "DCG@3", "DCG", "DCG(gain=exponential)@5", "IDCG@3",
    "IDCG(ideal=retrieved)@3", "nDCG(gain=exponential)@5", "nDCG(ideal=retrieved)@5",
    "nDCG(gain=exponential,ideal=retrieved)@10", "F1@3", "P(rel=3)@5", "RR(rel=2)@5",
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
