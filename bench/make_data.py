"""Deterministic synthetic TREC run + qrels for the benchmarks.

    python bench/make_data.py            # 7,000 queries x 1,000 docs (~250 MB run)
    python bench/make_data.py --small    # 500 queries x 1,000 docs
    python bench/make_data.py --variants # also four re-scored runs (bench_compare.py)

Files are cached in bench/data/ (gitignored) and only rebuilt when missing.

What the data looks like (chosen to resemble an MS MARCO-style BM25 run):
- query ids are numeric strings ("1048585"), so a reader that turns ids into numbers is caught;
- doc ids look like ``doc123456`` and come from a collection of 1,000,000 documents;
- per query 1,000 distinct docs, scores descending with steps drawn so that ~5 % of adjacent
  scores tie after rounding to 3 decimals; within a tie the file order is random (so a tool
  that keeps file order instead of trec_eval's doc-id-descending tie break shows up);
- ranks 1..1000 in file order; the tag is ``bm25``; single spaces, LF line ends;
- qrels: per query ~4 relevant docs (grades 1-3), 75 % of them retrieved (mostly near the top),
  the rest judged but not retrieved; ~12 judged non-relevant docs (grade 0) from the top 100;
  about 1 % of judgments have grade -1; 2 % of queries have no relevant document; 20 run
  queries have no judgments at all.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

DATA = Path(__file__).resolve().parent / "data"
COLLECTION = 1_000_000
SEED = 20240607


def paths(n_queries: int, n_docs: int) -> tuple[Path, Path]:
    stem = f"{n_queries}x{n_docs}"
    return DATA / f"run_{stem}.trec", DATA / f"qrels_{stem}.trec"


def _write(table: pa.Table, path: Path) -> None:
    tmp = path.with_suffix(".tmp")
    opts = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    pacsv.write_csv(table, tmp, write_options=opts)
    tmp.replace(path)


def make(n_queries: int = 7000, n_docs: int = 1000, force: bool = False) -> tuple[Path, Path]:
    run_path, qrels_path = paths(n_queries, n_docs)
    if run_path.exists() and qrels_path.exists() and not force:
        return run_path, qrels_path
    DATA.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(SEED)

    qids = np.sort(rng.choice(np.arange(2, 1_200_000), size=n_queries, replace=False))
    # Docs: n_docs distinct per query.
    docs = np.empty((n_queries, n_docs), dtype=np.int64)
    for i in range(n_queries):
        docs[i] = rng.choice(COLLECTION, size=n_docs, replace=False)
    # Scores: descending, rounded to 3 decimals -> some exact ties.
    top = rng.uniform(15.0, 35.0, size=(n_queries, 1))
    steps = rng.exponential(0.012, size=(n_queries, n_docs))
    steps[:, 0] = 0.0
    scores = np.round(top - np.cumsum(steps, axis=1), 3)
    ranks = np.tile(np.arange(1, n_docs + 1, dtype=np.int64), n_queries)

    run = pa.table(
        {
            "qid": pa.array(np.repeat(qids, n_docs).astype(str)),
            "q0": pa.array(np.full(n_queries * n_docs, "Q0")),
            "docno": pa.array(np.char.add("doc", docs.ravel().astype(str))),
            "rank": pa.array(ranks),
            "score": pa.array(scores.ravel()),
            "tag": pa.array(np.full(n_queries * n_docs, "bm25")),
        }
    )
    _write(run, run_path)

    # Qrels.
    q_rows, d_rows, g_rows = [], [], []
    unjudged_queries = set(rng.choice(n_queries, size=min(20, n_queries // 10), replace=False))
    for i in range(n_queries):
        if i in unjudged_queries:
            continue
        n_rel = 0 if rng.random() < 0.02 else 1 + rng.poisson(3)
        n_in_run = rng.binomial(n_rel, 0.75)
        # Retrieved relevant docs: log-uniform rank, so most sit near the top.
        pos = np.unique(np.exp(rng.uniform(0, np.log(n_docs), size=n_in_run)).astype(int) - 1)
        rel_docs = list(docs[i, pos])
        extra = rng.choice(COLLECTION, size=n_rel - len(pos), replace=False) + COLLECTION
        rel_docs += list(extra)
        grades = list(rng.choice([1, 2, 3], size=len(rel_docs), p=[0.5, 0.3, 0.2]))
        nonrel_pos = np.setdiff1d(rng.choice(min(100, n_docs), size=12, replace=False), pos)
        rel_docs += list(docs[i, nonrel_pos])
        grades += [0] * len(nonrel_pos)
        grades = np.array(grades, dtype=np.int64)
        grades[rng.random(len(grades)) < 0.01] = -1
        q_rows += [qids[i]] * len(rel_docs)
        d_rows += rel_docs
        g_rows += list(grades)
    qrels = pa.table(
        {
            "qid": pa.array(np.array(q_rows).astype(str)),
            "iter": pa.array(np.zeros(len(q_rows), dtype=np.int64)),
            "docno": pa.array(np.char.add("doc", np.array(d_rows).astype(str))),
            "grade": pa.array(np.array(g_rows, dtype=np.int64)),
        }
    )
    _write(qrels, qrels_path)
    return run_path, qrels_path


# The other systems of bench_compare.py: the same documents, re-scored. (tag, score noise sd,
# boost of judged-relevant documents): one better than bm25, three worse by degrees.
VARIANTS = (("rel_boost", 0.05, 0.15), ("noise_small", 0.05, 0.0), ("noise_large", 0.3, 0.0),
            ("noise_boost", 0.3, 0.3))


def variant_paths(n_queries: int, n_docs: int) -> list[Path]:
    stem = f"{n_queries}x{n_docs}"
    return [DATA / f"run_{stem}_{tag}.trec" for tag, _, _ in VARIANTS]


def make_variants(n_queries: int = 7000, n_docs: int = 1000, force: bool = False) -> list[Path]:
    """Four more runs of the same size, written once like the base run: each query's 1,000
    documents re-scored as score + noise (+ a boost when judged relevant), rounded to 3
    decimals, written in rank order with the variant's name as the run tag."""
    out = variant_paths(n_queries, n_docs)
    if all(p.exists() for p in out) and not force:
        return out
    run_path, qrels_path = make(n_queries, n_docs)
    opts = pacsv.ReadOptions(column_names=["qid", "q0", "docno", "rank", "score", "tag"])
    parse = pacsv.ParseOptions(delimiter=" ")
    run = pacsv.read_csv(run_path, read_options=opts, parse_options=parse,
                         convert_options=pacsv.ConvertOptions(
                             column_types={"qid": pa.string(), "docno": pa.string()}))
    qrels = pacsv.read_csv(qrels_path, read_options=pacsv.ReadOptions(
        column_names=["qid", "iter", "docno", "grade"]), parse_options=parse,
        convert_options=pacsv.ConvertOptions(column_types={"qid": pa.string(),
                                                           "docno": pa.string()}))
    relevant = qrels.filter(pc.greater(qrels["grade"], 0))
    keys = pc.binary_join_element_wise(run["qid"], run["docno"], "\t")
    rel_keys = pc.binary_join_element_wise(relevant["qid"], relevant["docno"], "\t")
    is_rel = pc.is_in(keys, value_set=rel_keys).to_numpy(zero_copy_only=False)
    qid_codes = pc.dictionary_encode(run["qid"]).combine_chunks().indices.to_numpy()
    base = run["score"].to_numpy()
    for i, ((tag, noise, boost), path) in enumerate(zip(VARIANTS, out, strict=True)):
        rng = np.random.default_rng(SEED + 1 + i)
        scores = np.round(base + rng.normal(0.0, noise, len(base)) + boost * is_rel, 3)
        order = np.lexsort((-scores, qid_codes))   # queries stay in file order (codes)
        ranks = np.tile(np.arange(1, n_docs + 1, dtype=np.int64), n_queries)
        table = pa.table({
            "qid": run["qid"].take(order), "q0": run["q0"].take(order),
            "docno": run["docno"].take(order), "rank": pa.array(ranks),
            "score": pa.array(scores[order]),
            "tag": pa.array(np.full(len(scores), tag)),
        })
        _write(table, path)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--small", action="store_true", help="500 queries instead of 7,000")
    ap.add_argument("--force", action="store_true", help="rebuild even if cached")
    ap.add_argument("--variants", action="store_true",
                    help="also the four re-scored runs bench_compare.py compares")
    args = ap.parse_args()
    n_q = 500 if args.small else 7000
    paths = list(make(n_q, 1000, force=args.force))
    if args.variants:
        paths += make_variants(n_q, 1000, force=args.force)
    for p in paths:
        print(p, f"{p.stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
