"""Embed the bundled handbook's passages into assets/corpus/embeddings.npz.

    .venv/bin/python scripts/embed_corpus.py [--workers 2]

Run it after every change to assets/corpus/handbook.toml (a test fails while the stored vectors
do not match the passages' texts). Passages are embedded as ``Passage.indexed_text`` (title, then
text) with the ``passage:`` prefix, each read whole, by the app's one engine
(``dense.embed_passages``: ``retrieval.encoder``, which embeds the questions and an upload's
passages too), so a rerun on unchanged texts writes the same vectors; see
``retrieval.embeddings`` for the file's layout.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from retrieval import dense, embeddings
from retrieval.corpus import load_handbook


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=embeddings.EMBEDDINGS_PATH)
    args = parser.parse_args()
    corpora = load_handbook()
    vectors = {}
    for lang, corpus in corpora.items():
        start = time.perf_counter()
        vectors[lang] = dense.embed_passages(corpus.indexed_texts, workers=args.workers)
        print(f"{lang}: {len(corpus)} passages in {time.perf_counter() - start:.1f} s")
    embeddings.save(args.out, vectors, corpora)
    for corpus in corpora.values():  # read back through the app's own check
        embeddings.vectors_for(corpus, args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
