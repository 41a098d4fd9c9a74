"""Reading runs and relevance judgments (qrels) from files: TREC, CSV/TSV, JSON.

    read_run(source, *, max_bytes=None)   -> DataFrame (query_id, doc_id, score)
    read_qrels(source, *, max_bytes=None) -> DataFrame (query_id, doc_id, grade)
    read_text(source, *, max_bytes=None)  -> str (any UTF-8 text, refused as a run is refused)

``source``: a path (``str`` or ``os.PathLike``), ``bytes``/``bytearray``/``memoryview``, or a
binary or text file-like object (Streamlit's ``UploadedFile`` is a ``BytesIO``). A ``str`` that
contains a line break or starts with ``{`` or ``[`` is taken as the file's text, not a path; any
other ``str`` names a file (one that does not exist gets ``no_such_file``, whose message says to
pass ``io.StringIO(text)`` for a single line of text).

``max_bytes``: no limit unless given: a file of any size that fits in memory is read. A server
taking uploads passes one (the lab passes its own; ``DEFAULT_MAX_BYTES`` is a suggestion); it
applies to the file's size, to what is read from a file-like object and to gzip's output.

Formats, detected from the content (never from the file name):

- TREC run: ``qid Q0 docno rank score tag``, separated by any spaces/tabs; fields after the sixth
  are ignored, as trec_eval does (``rank``, ``Q0`` and ``tag`` are not used either: the score is
  what ranks). TREC qrels: ``qid iter docno grade``, exactly four fields.
- Comment lines, as trec_eval 10.0 reads them: a line whose first non-blank character is ``#``
  (in every text format; trec_eval 10.0 needs the ``#`` in the very first column of a qrels
  line). A ``#`` anywhere else is data: ``CR#93E-1860`` is a document id, and
  ``# qid iter docno rel`` is a comment, not a header.
- CSV / TSV (``,`` ``\\t`` ``;`` ``|``) with a header row; column names are matched
  case-insensitively with common aliases (see ``ALIASES``). A run without a score column but
  with a ``rank`` column gets ``score = -rank``. Decimal commas are accepted with ``;``, ``\\t``
  or ``|`` separators.
- JSON: ``{qid: {doc: score}}`` / ``{qid: {doc: grade}}``; ``{qid: [doc, ...]}`` (a run in rank
  order, scored n..1; for qrels each listed doc gets grade 1); or a list of records (also JSON
  Lines) with the CSV column names.
- UTF-8 with or without a byte-order mark, LF / CRLF / CR line ends, blank lines anywhere,
  gzip-compressed files.
- trec_eval's other inputs, a preferences file (``-R prefs``) or a z-scores file (``-Z``), are
  recognised and refused with a message that says so.

What comes back (dtypes are part of the API):

- ``query_id``: ``category`` whose categories are the distinct ids as pandas ``str``, sorted by
  code point (trec_eval's ``strcmp`` order), so ``.cat.codes`` are ready-made query numbers and
  ``sort_values("query_id")`` sorts like strings. Compares with plain strings as usual
  (``df.query_id == "q1"``); ``.astype(str)`` gives plain strings.
- ``doc_id``: pandas ``str`` dtype (``pd.StringDtype("pyarrow", na_value=nan)``, the pandas 3
  default), the Arrow ``large_string`` chunks straight from the parser (no copy).
- ``score``: ``float64``, always finite. ``grade``: ``int64`` (negative grades kept).
- Ids are never converted to numbers: ``007`` stays ``"007"``.
- Rows in file order, a ``RangeIndex``; no (query_id, doc_id) pair repeats.

Everything wrong with the content raises ``metrics.errors.FormatError`` (keys listed there):
every problem found in one pass (up to 20, each with its 1-based line, in ``err.problems``;
the error itself is the first). Nothing else escapes for any bytes or text. A source of an
unsupported Python type raises ``TypeError`` (a programming error, not a bad file).

Speed: a clean TREC file (single spaces or single tabs) is streamed from disk by pyarrow's
multi-threaded CSV reader straight into Arrow columns (the query column dictionary-encoded per
block); validation is vectorized (finite scores; repeated pairs through a 64-bit hash of each
doc id, sorted per query in a queries x docs matrix; ``evaluate`` reuses the hashes for this
very frame); line numbers are worked out only once a check has failed. Irregular whitespace,
comments and extra run fields go through a numpy pass first; a file pyarrow refuses is read
again as text on one thread to list its problems. Modules: ``source`` (the bytes), ``sniff``
(encoding, header, kind of file), ``dispatch``, ``trec``, ``delimited``, ``jsonfile``,
``lines`` (line numbers of problems), ``finish`` (shared checks and the DataFrame).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from metrics.errors import FormatError
from metrics.io.common import ALIASES, DEFAULT_MAX_BYTES, WS
from metrics.io.dispatch import read
from metrics.io.lines import raise_utf8
from metrics.io.sniff import check_encoding
from metrics.io.source import Source

if TYPE_CHECKING:  # pandas loads only when the DataFrame is built
    import pandas as pd

__all__ = ["ALIASES", "DEFAULT_MAX_BYTES", "read_qrels", "read_run", "read_text"]


def read_run(source, *, max_bytes: int | None = None) -> pd.DataFrame:
    """A run as a DataFrame ``(query_id, doc_id, score: float64)``, in file order.

    ``source``: a path, bytes, or a file-like object (see ``metrics.io``); ``max_bytes``: no
    limit unless given. Raises ``FormatError`` listing every problem found."""
    return read(source, "run", max_bytes)


def read_qrels(source, *, max_bytes: int | None = None) -> pd.DataFrame:
    """Judgments as a DataFrame ``(query_id, doc_id, grade: int64)``, in file order.

    ``source``: a path, bytes, or a file-like object (see ``metrics.io``); ``max_bytes``: no
    limit unless given. Raises ``FormatError`` listing every problem found."""
    return read(source, "qrels", max_bytes)


def read_text(source, *, max_bytes: int | None = None) -> str:
    """Any UTF-8 text file (BOM dropped, line ends kept), refused as the readers refuse a run:
    ``too_large``, ``unreadable_file``, ``binary_file``, ``utf16``, ``not_utf8`` (with its
    line), ``empty_file``. Used for uploaded corpora (``retrieval.upload``)."""
    src = Source(source, max_bytes)
    check_encoding(src)
    body = src.body()
    raise_utf8(body)
    if not body.strip(WS):
        raise FormatError("empty_file")
    return body.decode("utf-8")
