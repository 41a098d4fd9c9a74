"""Reading runs and relevance judgments (qrels) from files: TREC, CSV/TSV, JSON.

    read_run(source, *, max_bytes=DEFAULT_MAX_BYTES)   -> DataFrame (query_id, doc_id, score)
    read_qrels(source, *, max_bytes=DEFAULT_MAX_BYTES) -> DataFrame (query_id, doc_id, grade)

``source``: a path (``str`` or ``os.PathLike``), ``bytes``/``bytearray``/``memoryview``, or a
binary or text file-like object (Streamlit's ``UploadedFile`` is a ``BytesIO``). A ``str`` that
contains a line break or starts with ``{`` or ``[`` is taken as the file's text, not a path.

Formats, detected from the content (never from the file name):

- TREC run: ``qid Q0 docno rank score tag`` (6 columns separated by any spaces/tabs; ``rank``,
  ``Q0`` and ``tag`` are not used: the score is what ranks). TREC qrels: ``qid iter docno grade``.
- CSV / TSV (``,`` ``\\t`` ``;`` ``|``) with a header row; column names are matched
  case-insensitively with common aliases (see ``ALIASES``). A run without a score column but
  with a ``rank`` column gets ``score = -rank``. Decimal commas are accepted with ``;``, ``\\t``
  or ``|`` separators.
- JSON: ``{qid: {doc: score}}`` / ``{qid: {doc: grade}}``; ``{qid: [doc, ...]}`` (a run in rank
  order, scored n..1; for qrels each listed doc gets grade 1); or a list of records (also JSON
  Lines) with the CSV column names.
- UTF-8 with or without a byte-order mark, LF / CRLF / CR line ends, blank lines anywhere,
  gzip-compressed files.

What comes back (dtypes are part of the API):

- ``query_id``: ``category`` whose categories are the distinct ids as pandas ``str``, sorted by
  code point (trec_eval's ``strcmp`` order), so ``.cat.codes`` are ready-made query numbers and
  ``sort_values("query_id")`` sorts like strings. Compares with plain strings as usual
  (``df.query_id == "q1"``); ``.astype(str)`` gives plain strings.
- ``doc_id``: pandas ``str`` dtype (``pd.StringDtype("pyarrow", na_value=nan)``, the pandas 3
  default), the Arrow ``large_string`` chunks straight from the parser (no copy).
- ``score``: ``float64``, always finite. ``grade``: ``int64`` (negative grades kept).
- Ids are never converted to numbers: ``007`` stays ``"007"``.
- Rows in file order, a ``RangeIndex``. ``df.attrs["unique_pairs"]`` holds the row count for
  which "no (query_id, doc_id) pair repeats" was checked; a frame derived from this one (a
  filter, a ``pd.concat`` of two runs, which keeps equal attrs) must not trust it unless
  ``len(df)`` still matches and no rows were added.

Everything wrong with the content raises ``metrics.errors.FormatError`` (keys listed there) with
the 1-based line number where one applies; nothing else escapes for any bytes or text. A source
of an unsupported Python type raises ``TypeError`` (a programming error, not a bad file).

Speed: a clean TREC file (single spaces or single tabs) is streamed from disk by pyarrow's
multi-threaded CSV reader straight into Arrow columns (the query column dictionary-encoded per
block); validation is vectorized (finite scores; duplicate pairs through a 64-bit hash of each
doc id, sorted per query in a queries x docs matrix); line numbers are worked out only once a
check has failed. Irregular whitespace (several spaces, mixed tabs, blanks at either end of a
line, whitespace-only lines) goes through a numpy whitespace squeeze first (about 3x slower).
7,000 queries x 1,000 docs (250 MB): about 0.6 s and 400 MB above the interpreter on 2 cores
(see bench/README.md).
"""

from __future__ import annotations

import codecs
import csv
import json
import math
import os
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from metrics.errors import FormatError

__all__ = ["ALIASES", "DEFAULT_MAX_BYTES", "read_qrels", "read_run", "read_text"]

DEFAULT_MAX_BYTES = 200 * 1024 * 1024

# Column role -> accepted header names (compared lower-cased, with spaces and dashes as "_").
ALIASES: dict[str, tuple[str, ...]] = {
    "query_id": ("query_id", "qid", "q_id", "queryid", "topic_id", "topic", "query"),
    "doc_id": ("doc_id", "docid", "docno", "doc_no", "document_id", "doc", "document", "pid"),
    "score": ("score", "sim", "similarity"),
    "rank": ("rank", "position"),
    "grade": ("grade", "relevance", "rel", "label", "judgment", "judgement"),
}

_STR = pd.StringDtype("pyarrow", na_value=np.nan)
_HEAD = 1 << 16
_BLOCK = 1 << 22  # pyarrow's CSV block: fewer, larger chunks than its 1 MB default
_DELIMS = {"\t": "tab", ",": "comma", ";": "semicolon", "|": "pipe", " ": "space"}
_WS = b" \t\x0b\x0c\r\n"
_U64 = np.uint64


# --------------------------------------------------------------------------------------------
# Public API


def read_run(source, *, max_bytes: int | None = DEFAULT_MAX_BYTES) -> pd.DataFrame:
    """A run as a DataFrame ``(query_id: str, doc_id: str, score: float64)``, file order."""
    return _read(source, "run", max_bytes)


def read_qrels(source, *, max_bytes: int | None = DEFAULT_MAX_BYTES) -> pd.DataFrame:
    """Judgments as a DataFrame ``(query_id: str, doc_id: str, grade: int64)``, file order."""
    return _read(source, "qrels", max_bytes)


def read_text(source, *, max_bytes: int | None = DEFAULT_MAX_BYTES) -> str:
    """Any UTF-8 text file (BOM dropped, line ends kept), refused as the readers refuse a run:
    ``too_large``, ``unreadable_file``, ``binary_file``, ``utf16``, ``not_utf8`` (with its
    line), ``empty_file``. Used for uploaded corpora (``retrieval.upload``)."""
    src = _Source(source, max_bytes)
    _check_encoding(src)
    body = src.body()
    _raise_utf8(body)
    if not body.strip(_WS):
        raise FormatError("empty_file")
    return body.decode("utf-8")


# --------------------------------------------------------------------------------------------
# Loading the bytes


class _Source:
    """The input's bytes. A path is kept as a path (the fast TREC parse streams it from disk,
    so the file is never held in memory whole); everything else is bytes."""

    def __init__(self, source, max_bytes: int | None) -> None:
        self.path: str | None = None
        self._data: bytes | None = None
        self._nul_checked = False
        self.bom = 0
        self.max_bytes = max_bytes
        if isinstance(source, os.PathLike) or (isinstance(source, str) and not _is_content(source)):
            self.path = os.fspath(source)
            try:
                size = os.stat(self.path).st_size
            except (OSError, ValueError) as err:
                raise FormatError("unreadable_file", path=str(self.path),
                                  reason=_reason(err)) from None
            self._check_size(size)
        elif isinstance(source, str):
            self._data = source.encode("utf-8", "surrogatepass")
        elif isinstance(source, (bytes, bytearray, memoryview)):
            self._data = bytes(source)
        elif hasattr(source, "read"):
            self._data = self._read_stream(source)
        else:
            raise TypeError(f"expected a path, bytes or a file-like object, not {type(source)}")
        if self._data is not None:
            self._check_size(len(self._data))
        head = self.head()
        if head[:2] == b"\x1f\x8b":
            self._data = _gunzip(self._load(), max_bytes)
            self.path = None
        self.bom = 3 if self.head()[:3] == codecs.BOM_UTF8 else 0

    def _check_size(self, size: int) -> None:
        if self.max_bytes is not None and size > self.max_bytes:
            raise FormatError("too_large", size=int(size), limit=int(self.max_bytes))

    def _read_stream(self, stream) -> bytes:
        try:
            if hasattr(stream, "getvalue"):  # BytesIO, UploadedFile: no copy, any position
                data = stream.getvalue()
            else:
                data = stream.read(-1 if self.max_bytes is None else self.max_bytes + 1)
        except FormatError:
            raise
        except UnicodeDecodeError as err:  # a text stream opened with the wrong encoding
            raise FormatError("not_utf8", byte=_byte(err)) from None
        except (OSError, ValueError) as err:
            raise FormatError("unreadable_file", path=str(getattr(stream, "name", "")),
                              reason=_reason(err)) from None
        if isinstance(data, str):
            return data.encode("utf-8", "surrogatepass")
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"read() returned {type(data).__name__}, not bytes or str")
        return bytes(data)

    def head(self, n: int = _HEAD) -> bytes:
        if self._data is not None:
            return self._data[:n]
        try:
            with open(self.path, "rb") as f:
                return f.read(n)
        except OSError as err:
            raise FormatError("unreadable_file", path=str(self.path), reason=_reason(err)) from None

    def data(self) -> bytes:
        """All the bytes (the BOM included); read from disk on first use for a path. A NUL
        byte anywhere means a binary file."""
        self._load()
        return self._checked()

    def _load(self) -> bytes:
        if self._data is None:
            try:
                with open(self.path, "rb") as f:
                    self._data = f.read()
            except OSError as err:
                raise FormatError("unreadable_file", path=str(self.path),
                                  reason=_reason(err)) from None
            self._check_size(len(self._data))
        return self._data

    def _checked(self) -> bytes:
        if not self._nul_checked:
            self._nul_checked = True
            nul = self._data.find(b"\x00")
            if nul >= 0:
                raise FormatError("binary_file", line=_line_of_offset(self._data[self.bom:],
                                                                      nul - self.bom),
                                  kind="binary")
        return self._data

    def body(self) -> bytes:
        """All the bytes after the BOM."""
        data = self.data()
        return data[self.bom:] if self.bom else data


def _is_content(text: str) -> bool:
    """A ``str`` source is the file's text (not a path) when it has a line break or starts
    like JSON."""
    return "\n" in text or "\r" in text or text.lstrip()[:1] in ("{", "[")


def _reason(err: BaseException) -> str:
    return getattr(err, "strerror", None) or type(err).__name__


def _byte(err: UnicodeDecodeError) -> str:
    bad = err.object[err.start:err.start + 1] if isinstance(err.object, bytes) else b""
    return f"0x{bad[0]:02x}" if bad else "?"


def _gunzip(data: bytes, max_bytes: int | None) -> bytes:
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    limit = 0 if max_bytes is None else max_bytes + 1
    try:
        out = inflater.decompress(data, limit)
    except zlib.error:
        raise FormatError("binary_file", kind="gzip") from None
    if max_bytes is not None and (len(out) > max_bytes or inflater.unconsumed_tail):
        raise FormatError("too_large", size=len(out), limit=int(max_bytes))
    if not inflater.eof:  # cut short (an interrupted download): not the whole file
        raise FormatError("binary_file", kind="gzip")
    return out


# --------------------------------------------------------------------------------------------
# Sniffing: encoding, binary, format


_MAGIC = (
    (b"PK\x03\x04", "zip"), (b"%PDF", "pdf"), (b"\x89PNG", "image"), (b"\xff\xd8\xff", "image"),
    (b"GIF8", "image"), (b"\xd0\xcf\x11\xe0", "binary"), (b"\x1f\x8b", "gzip"),
)


def _check_encoding(src: _Source) -> bytes:
    """Refuse UTF-16/32, binary and non-UTF-8 heads; return the head after the BOM."""
    raw = src.head()
    if raw[:4] in (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE):
        raise FormatError("not_utf8", byte=f"0x{raw[0]:02x}", encoding="UTF-32")
    if raw[:2] == codecs.BOM_UTF16_LE:
        raise FormatError("utf16", encoding="UTF-16 LE")
    if raw[:2] == codecs.BOM_UTF16_BE:
        raise FormatError("utf16", encoding="UTF-16 BE")
    head = raw[src.bom:]
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            raise FormatError("binary_file", kind=kind)
    if b"\x00" in head:
        sample = head[:4096]
        even, odd = sample[0::2], sample[1::2]
        if odd and odd.count(0) > 0.4 * len(odd) and even.count(0) < 0.05 * len(even):
            raise FormatError("utf16", encoding="UTF-16 LE")
        if even and even.count(0) > 0.4 * len(even) and odd.count(0) < 0.05 * len(odd):
            raise FormatError("utf16", encoding="UTF-16 BE")
        raise FormatError("binary_file", line=_line_of_offset(head, head.index(b"\x00")),
                          kind="binary")
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as err:
        if err.start < len(head) - 3 or len(raw) < _HEAD:  # not just a cut multi-byte char
            raise FormatError("not_utf8", line=_line_of_offset(head, err.start),
                              byte=_byte(err)) from None
    return head


def _first_line(head: bytes) -> tuple[int, bytes, int]:
    """(1-based line number, text, byte offset just after it) of the first non-blank line."""
    pos, number = 0, 1
    while pos < len(head):
        end, nxt = _line_end(head, pos)
        line = head[pos:end]
        if line.strip(_WS):
            return number, line, nxt
        pos, number = nxt, number + 1
    return 0, b"", len(head)


def _line_end(data: bytes, pos: int) -> tuple[int, int]:
    """End of the line starting at ``pos`` and the start of the next one."""
    lf, cr = data.find(b"\n", pos), data.find(b"\r", pos)
    if lf < 0 and cr < 0:
        return len(data), len(data)
    if cr < 0 or (0 <= lf < cr):
        return lf, lf + 1
    return cr, cr + (2 if data[cr + 1:cr + 2] == b"\n" else 1)


def _role_of(name: str) -> str | None:
    key = re.sub(r"[\s\-]+", "_", name.strip().strip('"').strip().lower())
    for role, names in ALIASES.items():
        if key in names:
            return role
    return None


def _split_header(line: str, delim: str) -> list[str]:
    if delim == " ":
        return line.split()
    try:
        return next(csv.reader([line], delimiter=delim))
    except (csv.Error, StopIteration):
        return line.split(delim)


@dataclass
class _Header:
    delim: str
    names: list[str]
    roles: dict[str, int]  # role -> column index


def _find_header(line: str) -> _Header | None:
    for delim in ("\t", ",", ";", "|", " "):
        if delim != " " and delim not in line:
            continue
        names = _split_header(line, delim)
        roles: dict[str, int] = {}
        for i, name in enumerate(names):
            role = _role_of(name)
            if role is None:
                continue
            if role not in roles or _rank_alias(role, name) < _rank_alias(role, names[roles[role]]):
                roles[role] = i
        if "query_id" in roles and "doc_id" in roles:
            return _Header(delim, [n.strip() for n in names], roles)
    return None


def _rank_alias(role: str, name: str) -> int:
    key = re.sub(r"[\s\-]+", "_", name.strip().strip('"').strip().lower())
    return ALIASES[role].index(key)


# --------------------------------------------------------------------------------------------
# Dispatch


def _read(source, kind: str, max_bytes: int | None) -> pd.DataFrame:
    try:
        return _dispatch(_Source(source, max_bytes), kind)
    except (FormatError, TypeError):
        raise
    except (ValueError, ArithmeticError, LookupError, UnicodeError, pa.ArrowException,
            RecursionError, MemoryError) as err:
        # A file this module failed to foresee: still a clear message, never a traceback.
        raise FormatError("unknown_format",
                          detail=_clip(f"internal: {type(err).__name__}: {err}")) from err


def _dispatch(src: _Source, kind: str) -> pd.DataFrame:
    head = _check_encoding(src)
    if src.path is None:
        src.data()  # NUL check of the whole input (memchr)
    number, first, _ = _first_line(head)
    if not first:
        if len(src.head()) < _HEAD or not src.body().strip(_WS):
            raise FormatError("empty_file")
        number, first, _ = _first_line(src.body())  # a head of blank lines: look further
    text = first.decode("utf-8", "replace").strip()
    expected = 6 if kind == "run" else 4
    if text[:1] in ("{", "["):
        try:
            return _read_json(src, kind)
        except FormatError as err:  # a TREC file whose first query id starts with { or [
            if err.key != "bad_json" or len(text.split()) != expected:
                raise
    header = _find_header(text)
    if header is not None:
        return _read_delimited(src, kind, header, number)
    fields = text.split()
    if len(fields) < expected:
        for delim in ("\t", ",", ";", "|"):
            parts = _split_header(text, delim) if delim in text else []
            if len(parts) < 2:
                continue
            if all(_looks_like_name(p) for p in parts):  # a header, but not of ids
                roles = {_role_of(p) for p in parts}
                missing = "query_id" if "query_id" not in roles else "doc_id"
                raise FormatError("missing_column", line=number, column=missing,
                                  found=[p.strip() for p in parts],
                                  accepted=list(ALIASES[missing]))
            if delim != "\t":
                raise FormatError("no_header", line=number, delimiter=_DELIMS[delim])
    if len(fields) != expected:
        if kind == "run" and len(fields) == 4:
            raise FormatError("looks_like_qrels", line=number, found=4)
        if kind == "qrels" and len(fields) == 6:
            raise FormatError("looks_like_run", line=number, found=6)
        raise FormatError("wrong_column_count", line=number, expected=expected, found=len(fields))
    return _read_trec(src, kind, head)


def _looks_like_name(token: str) -> bool:
    """A header cell: starts with a letter and is not a number."""
    token = token.strip().strip('"').strip()
    if not token or not (token[0].isalpha() or token[0] == "_"):
        return False
    try:
        float(token)
    except ValueError:
        return token.lower() not in ("q0",)
    return False


# --------------------------------------------------------------------------------------------
# TREC (whitespace separated, no header)


def _read_trec(src: _Source, kind: str, head: bytes) -> pd.DataFrame:
    names = [f"f{i}" for i in range(6 if kind == "run" else 4)]
    value_col = "f4" if kind == "run" else "f3"
    wanted = {"f0": pa.dictionary(pa.int32(), pa.string()), "f2": pa.large_string(),
              value_col: pa.float64() if kind == "run" else pa.large_string()}
    lines = head.splitlines()[:-1] or head.splitlines()
    has_tab = any(b"\t" in ln for ln in lines)
    has_space = any(b" " in ln.strip(_WS) for ln in lines)
    clean = not (has_tab and has_space) and not any(
        ln != ln.strip(_WS) or b"  " in ln or b"\t\t" in ln for ln in lines if ln)
    delim = "\t" if has_tab and not has_space else " "

    def parse(buffer, delim: str, threads: bool = True, handler=None) -> pa.Table:
        return pacsv.read_csv(
            buffer,
            read_options=pacsv.ReadOptions(column_names=names, use_threads=threads,
                                           block_size=_BLOCK),
            parse_options=pacsv.ParseOptions(delimiter=delim, quote_char=False,
                                             double_quote=False, invalid_row_handler=handler),
            convert_options=pacsv.ConvertOptions(
                column_types=wanted, include_columns=list(wanted), null_values=[],
                strings_can_be_null=False, quoted_strings_can_be_null=False),
        )

    table = None
    body: bytes | None = None
    if clean:  # the fast path: pyarrow straight from the file (or the bytes)
        try:
            if src.path is not None:
                with pa.OSFile(src.path, "r") as stream:
                    table = parse(stream, delim)
            else:
                table = parse(pa.py_buffer(src.data()), delim)
        except OSError as err:
            raise FormatError("unreadable_file", path=str(src.path), reason=_reason(err)) from None
        except pa.ArrowException:
            table = None
    if table is None:  # irregular whitespace, or an error to locate: squeeze, parse again
        body = _squeeze_whitespace(src.body())
        try:
            table = parse(pa.py_buffer(body), " ")
        except pa.ArrowException as err:
            _diagnose(body, lambda b, t, h: parse(b, " ", t, h), kind, "trec")
            raise FormatError("unknown_format", detail=_clip(str(err))) from None
    if table.num_rows == 0:
        raise FormatError("no_rows")
    query, doc, raw = table.column("f0"), table.column("f2"), table.column(value_col)
    del table
    pa.default_memory_pool().release_unused()  # parse buffers back to the OS: lower peak RSS
    if src.path is not None and body is None:  # NUL bytes in ids (the head was checked)
        _check_nul(src, query, doc)
    if kind == "run":
        values = raw.to_numpy()
        del raw  # the Arrow copy of the scores goes before the duplicate check
        return _finish(src, kind, query, doc, values, "trec", body)
    grades = _cast_numbers(raw, pa.int64(), " ")
    if isinstance(grades, int):
        data = body if body is not None else src.body()
        raise FormatError("non_integer_grade", line=_rows_to_lines(data, np.array([grades]))[0],
                          value=_clip(raw[grades].as_py()))
    return _finish(src, kind, query, doc, grades, "trec", body)


def _check_nul(src: _Source, *columns: pa.ChunkedArray) -> None:
    for column in columns:
        for chunk in column.chunks:
            if pa.types.is_dictionary(chunk.type):
                chunk = chunk.dictionary
            buf = chunk.buffers()[2]
            if buf is not None and buf.size and np.frombuffer(buf, np.uint8).min() == 0:
                src.body()  # raises binary_file with the line


def _squeeze_whitespace(data: bytes) -> bytes:
    """One space between fields, none at either end of a line; CRLF and CR become LF; lines
    that are blank become empty (so pyarrow skips them). Line numbers do not change."""
    out = []
    step = 1 << 19  # small pieces: numpy reuses its buffers (fresh pages are slow)
    pos = 0
    while pos < len(data):
        end = data.find(b"\n", min(pos + step, len(data)))
        end = len(data) if end < 0 else end + 1
        out.append(_squeeze_chunk(data[pos:end]))
        pos = end
    return b"".join(out)


def _squeeze_chunk(chunk: bytes) -> bytes:
    a = np.frombuffer(chunk, np.uint8)
    cr = a == 13
    before_lf = np.zeros_like(cr)
    before_lf[:-1] = a[1:] == 10
    b = a.copy()
    b[cr & ~before_lf] = 10
    ws = (b == 32) | (b == 9) | (b == 11) | (b == 12) | (cr & before_lf)
    nl = b == 10
    tok = ~(ws | nl)
    after_tok = np.zeros_like(tok)
    after_tok[1:] = tok[:-1]
    b[ws] = 32
    c = b[tok | nl | (ws & after_tok)]
    sp = c == 32
    last = np.ones_like(sp)
    last[:-1] = c[1:] == 10
    return c[~(sp & last)].tobytes()


# --------------------------------------------------------------------------------------------
# CSV / TSV with a header


def _read_delimited(src: _Source, kind: str, header: _Header, header_line: int) -> pd.DataFrame:
    roles = header.roles
    value_role = "score" if kind == "run" else "grade"
    if kind == "run" and "score" not in roles and "rank" not in roles:
        if "grade" in roles:
            raise FormatError("looks_like_qrels", line=header_line, found=header.names)
        raise FormatError("missing_column", line=header_line, column="score",
                          found=header.names, accepted=list(ALIASES["score"] + ALIASES["rank"]))
    if kind == "qrels" and "grade" not in roles:
        if "score" in roles or "rank" in roles:
            raise FormatError("looks_like_run", line=header_line, found=header.names)
        raise FormatError("missing_column", line=header_line, column="grade",
                          found=header.names, accepted=list(ALIASES["grade"]))
    if kind == "run" and "score" not in roles:
        value_role = "rank"
    body = src.body()
    start = _offset_after_line(body, header_line)
    delim = header.delim
    rest = body[start:]
    if delim == " ":
        rest = _squeeze_whitespace(rest)
    names = [f"f{i}" for i in range(len(header.names))]
    cols = {role: f"f{roles[role]}" for role in ("query_id", "doc_id", value_role)}

    def parse(buffer, threads: bool = True, handler=None) -> pa.Table:
        return pacsv.read_csv(
            buffer,
            read_options=pacsv.ReadOptions(column_names=names, use_threads=threads),
            parse_options=pacsv.ParseOptions(
                delimiter=delim, quote_char='"' if delim not in ("\t", " ") else False,
                invalid_row_handler=handler),
            convert_options=pacsv.ConvertOptions(
                column_types=dict.fromkeys(cols.values(), pa.large_string()),
                include_columns=list(dict.fromkeys(cols.values())), null_values=[],
                strings_can_be_null=False, quoted_strings_can_be_null=False),
        )

    if not rest.strip(_WS):  # pyarrow calls a header-only body an "Empty CSV file"
        raise FormatError("no_rows", line=header_line)
    try:
        table = parse(pa.py_buffer(rest))
    except pa.ArrowException as err:
        table = None
        blanked = _blank_whitespace_lines(rest) if "columns" in str(err) else None
        if blanked is not None:
            rest = blanked
            try:
                table = parse(pa.py_buffer(rest))
            except pa.ArrowException as again:
                err = again
        if table is None:
            _diagnose(rest, lambda b, t, h: parse(b, t, h), kind, delim,
                      line_offset=header_line, n_columns=len(names))
            raise FormatError("unknown_format", detail=_clip(str(err))) from None
    if table.num_rows == 0:
        raise FormatError("no_rows", line=header_line)

    def line_of(row: int) -> int:
        return _rows_to_lines(rest, np.array([row]))[0] + header_line

    ids = {}
    for role in ("query_id", "doc_id"):
        arr = pc.utf8_trim_whitespace(table.column(cols[role]))
        empty = pc.equal(pc.binary_length(arr), 0)
        if pc.any(empty).as_py():
            row = int(np.flatnonzero(empty.to_numpy(zero_copy_only=False))[0])
            raise FormatError("empty_id", line=line_of(row), column=role)
        ids[role] = arr
    raw = pc.utf8_trim_whitespace(table.column(cols[value_role])).combine_chunks()
    if kind == "run":
        values = _cast_numbers(raw, pa.float64(), delim)
        if isinstance(values, int):
            raise FormatError("non_numeric_score", line=line_of(values),
                              value=_clip(raw[values].as_py()), column=value_role)
        if value_role == "rank":
            values = -values
    else:
        values = _cast_numbers(raw, pa.int64(), delim)
        if isinstance(values, int):
            raise FormatError("non_integer_grade", line=line_of(values),
                              value=_clip(raw[values].as_py()))
    return _finish(src, kind, ids["query_id"], ids["doc_id"], values, delim, rest,
                   header_line=header_line, value_column=value_role)


def _offset_after_line(data: bytes, line: int) -> int:
    pos = 0
    for _ in range(line):
        pos = _line_end(data, pos)[1]
    return pos


def _blank_whitespace_lines(data: bytes) -> bytes | None:
    """Whitespace-only lines made empty (pyarrow skips empty lines); None if there are none."""
    lines = data.splitlines(keepends=True)
    changed = False
    for i, line in enumerate(lines):
        if line.strip(_WS) == b"" and line.rstrip(b"\r\n") != b"":
            lines[i] = b"\n"
            changed = True
    return b"".join(lines) if changed else None


def _cast_numbers(raw: pa.Array, target: pa.DataType, delim: str) -> np.ndarray | int:
    """Strings to float64 / int64 (integral floats such as "1.0" accepted as grades); the row
    index of the first bad value when they do not all convert."""
    candidates = [raw]
    if delim != ",":  # decimal commas: 0,5
        candidates.append(pc.replace_substring(raw, ",", "."))
    for arr in candidates:
        try:
            if target == pa.int64():
                try:
                    return pc.cast(arr, pa.int64()).to_numpy()
                except pa.ArrowInvalid:
                    as_float = pc.cast(arr, pa.float64()).to_numpy()
                    if np.all(np.isfinite(as_float) & (as_float == np.round(as_float))
                              & (np.abs(as_float) < 2**53)):
                        return as_float.astype(np.int64)
                    raise
            return pc.cast(arr, pa.float64()).to_numpy()
        except pa.ArrowInvalid:
            continue
    if target == pa.int64():
        return _first_bad(raw, _is_integral)
    return _first_bad(raw, lambda a: pc.cast(a, pa.float64()))


def _is_integral(arr: pa.Array) -> None:
    try:
        pc.cast(arr, pa.int64())
    except pa.ArrowInvalid:
        values = pc.cast(arr, pa.float64()).to_numpy()
        if not np.all(np.isfinite(values) & (values == np.round(values))):
            raise


def _first_bad(arr: pa.Array, check: Callable[[pa.Array], object]) -> int:
    """Index of the first element for which ``check`` raises (binary search on slices)."""
    lo, hi = 0, len(arr)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        try:
            check(arr.slice(lo, mid - lo))
        except pa.ArrowInvalid:
            hi = mid
            continue
        lo = mid
    return lo


# --------------------------------------------------------------------------------------------
# Finding the line of a parse error


_ROW = re.compile(r"Row #(\d+)")
_CONVERT = re.compile(r"In CSV column #(\d+): .*conversion error to (\w+): invalid value '(.*)'",
                      re.S)


def _diagnose(data: bytes, parse, kind: str, delim: str, *, line_offset: int = 0,
              n_columns: int | None = None) -> None:
    """Re-parse ``data`` on one thread to find the first bad row, and raise its FormatError."""
    invalid: list = []

    def handler(row) -> str:
        invalid.append(row)
        return "error"

    try:
        parse(pa.py_buffer(data), False, handler)
    except pa.ArrowInvalid as err:
        message = str(err)
    except pa.ArrowException as err:
        raise FormatError("unknown_format", detail=_clip(str(err))) from None
    else:
        return
    row_match = _ROW.search(message)
    line = None
    if row_match:
        line = _rows_to_lines(data, np.array([int(row_match.group(1)) - 1]))[0] + line_offset
    if invalid:
        bad = invalid[0]
        expected = bad.expected_columns if n_columns is None else n_columns
        text = bad.text or ""
        if delim == "trec":
            for other in (",", ";", "|"):
                if other in text and len(text.split(other)) == expected:
                    raise FormatError("mixed_separators", line=line, expected="space",
                                      found=_DELIMS[other])
            fields = len(text.split())
            if kind == "run" and fields == 4:
                raise FormatError("looks_like_qrels", line=line, found=4)
            if kind == "qrels" and fields == 6:
                raise FormatError("looks_like_run", line=line, found=6)
        else:
            for other in ("\t", ",", ";", "|"):
                if other != delim and other in text and len(text.split(other)) == expected:
                    raise FormatError("mixed_separators", line=line, expected=_DELIMS[delim],
                                      found=_DELIMS[other])
            fields = bad.actual_columns
        raise FormatError("wrong_column_count", line=line, expected=expected, found=fields)
    if "invalid UTF8" in message:
        _raise_utf8(data, line_offset)
    conv = _CONVERT.search(message)
    if conv:
        value = conv.group(3)
        if conv.group(2) in ("int64",):
            raise FormatError("non_integer_grade", line=line, value=_clip(value))
        raise FormatError("non_numeric_score", line=line, value=_clip(value), column="score")
    raise FormatError("unknown_format", line=line, detail=_clip(message))


def _raise_utf8(data: bytes, line_offset: int = 0) -> None:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise FormatError("not_utf8", line=_line_of_offset(data, err.start) + line_offset,
                          byte=_byte(err)) from None


def _line_of_offset(data: bytes, offset: int) -> int:
    """1-based line number of the byte at ``offset`` (LF, CRLF and CR end lines)."""
    before = data[:offset]
    lf = before.count(b"\n")
    if b"\r" not in before:
        return lf + 1
    return lf + before.count(b"\r") - before.count(b"\r\n") + 1


def _line_bounds(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """(start, end) byte offsets of every physical line, the terminator excluded."""
    a = np.frombuffer(data, np.uint8)
    if b"\r" in data:
        cr = a == 13
        lf = a == 10
        lf_after_cr = np.zeros_like(lf)
        lf_after_cr[1:] = lf[1:] & cr[:-1]
        term = np.flatnonzero(cr | (lf & ~lf_after_cr))
        size = np.ones(len(term), np.int64)
        crlf = np.zeros(len(term), bool)
        inside = term + 1 < len(a)
        crlf[inside] = cr[term[inside]] & lf[term[inside] + 1]
        size[crlf] = 2
    else:
        term = np.flatnonzero(a == 10)
        size = np.ones(len(term), np.int64)
    starts = np.concatenate(([0], term + size))
    ends = np.concatenate((term, [len(a)]))
    if starts[-1] == len(a):  # nothing after the last terminator
        starts, ends = starts[:-1], ends[:-1]
    return starts, ends


def _rows_to_lines(data: bytes, rows: np.ndarray) -> list[int]:
    """1-based line numbers of parsed rows (pyarrow skips empty lines, so rows != lines)."""
    starts, ends = _line_bounds(data)
    nonempty = np.flatnonzero(ends > starts)
    rows = np.clip(rows, 0, max(len(nonempty) - 1, 0))
    return [int(x) + 1 for x in nonempty[rows]] if len(nonempty) else [1] * len(rows)


def _clip(value: object, width: int = 80) -> str:
    text = str(value)
    return text if len(text) <= width else text[:width - 1] + "…"


# --------------------------------------------------------------------------------------------
# Checks shared by every format, and the result


def _finish(src: _Source, kind: str, query: pa.ChunkedArray, doc: pa.ChunkedArray,
            values: np.ndarray, fmt: str, body: bytes | None, *, header_line: int = 0,
            value_column: str = "score", row_lines: list[int] | None = None) -> pd.DataFrame:
    """Finite scores, no duplicate (query, doc) pair; then the DataFrame."""

    def lines(rows: list[int]) -> list[int | None]:
        if row_lines is not None:
            return [row_lines[r] for r in rows]
        if fmt == "json":
            return [None] * len(rows)
        data = body if body is not None else src.body()
        return [x + header_line for x in _rows_to_lines(data, np.array(rows))]

    if kind == "run":
        values = np.ascontiguousarray(values, dtype=np.float64)
        finite = np.isfinite(values)
        if not finite.all():
            row = int(np.argmin(finite))
            raise FormatError("nan_score", line=lines([row])[0], value=str(values[row]),
                              column=value_column)
    else:
        values = np.ascontiguousarray(values, dtype=np.int64)
    codes, categories, blocks = _query_codes(query)
    del query  # the codes replace the ids' text
    if _maybe_duplicates(codes, blocks, doc):
        pair = _exact_duplicate(codes, categories, doc)
        if pair is not None:
            first, second = pair
            first_line, second_line = lines([first, second])
            raise FormatError("duplicate_doc", line=second_line, first_line=first_line,
                              query_id=_clip(categories[int(codes[second])].as_py()),
                              doc_id=_clip(doc[second].as_py()))
    if not values.flags.writeable:
        values = values.copy()
    names = pd.Index(pd.array(categories, dtype=_STR), dtype=_STR)
    frame = pd.DataFrame({
        "query_id": pd.Categorical.from_codes(codes, categories=names, validate=False),
        "doc_id": pd.array(doc, dtype=_STR),  # zero-copy: the Arrow strings themselves
        "score" if kind == "run" else "grade": values,
    }, copy=False)
    # Checked here: no (query_id, doc_id) pair repeats. The row count guards against frames
    # built from this one (pd.concat keeps identical attrs), see metrics.evaluate.
    frame.attrs["unique_pairs"] = len(frame)
    return frame


def _query_codes(query: pa.ChunkedArray) -> tuple[np.ndarray, pa.Array, np.ndarray | None]:
    """Query ids as codes into their sorted distinct values (code point order, as trec_eval's
    strcmp), from a dictionary-encoded column (the TREC reader asks pyarrow for one: only the
    few distinct ids of each block are stored) or a string column.

    Returns (codes per row, categories, block starts); the block starts are the first row of
    each query when every query's rows sit together (as in any TREC file), else None."""
    if not pa.types.is_dictionary(query.type):
        query = pc.dictionary_encode(query)
    query = query.unify_dictionaries()
    names = query.chunk(0).dictionary
    indices = np.concatenate([c.indices.to_numpy(zero_copy_only=False) for c in query.chunks])
    order = pc.sort_indices(names).to_numpy()
    rank = np.empty(len(order), np.int32 if len(order) >= 2**15 else np.int16)
    rank[order] = np.arange(len(order))
    codes = rank[indices]
    change = np.flatnonzero(codes[1:] != codes[:-1]) + 1
    starts = np.concatenate(([0], change))
    return codes, names.take(pa.array(order)), starts if len(starts) == len(order) else None


_MASKS = np.array([0] + [(1 << (8 * i)) - 1 for i in range(1, 8)] + [2**64 - 1], np.uint64)


def _hash_strings(column: pa.ChunkedArray) -> np.ndarray:
    """A 64-bit hash of every string of a ``large_string`` column: all its bytes, 8 at a time,
    each word through the splitmix64 finaliser. Equal strings get equal hashes."""
    out = np.empty(len(column), np.uint64)
    pos = 0
    for chunk in column.chunks:
        if len(chunk):
            out[pos:pos + len(chunk)] = _hash_chunk(chunk)
        pos += len(chunk)
    return out


def _hash_chunk(arr: pa.Array) -> np.ndarray:
    n = len(arr)
    offsets = np.frombuffer(arr.buffers()[1], np.int64, count=n + 1, offset=8 * arr.offset)
    lo, hi = int(offsets[0]), int(offsets[-1])
    padded = np.zeros(hi - lo + 8, np.uint8)
    if hi > lo:
        padded[:hi - lo] = np.frombuffer(arr.buffers()[2], np.uint8)[lo:hi]
    # Unaligned 8-byte words starting at any byte: one gather reads 8 bytes of every string.
    words = np.ndarray(shape=(len(padded) - 7,), dtype="<u8", buffer=padded, strides=(1,))
    starts = offsets[:-1] - lo
    lens = offsets[1:] - offsets[:-1]
    h = (lens.astype(_U64) + _U64(1)) * _U64(0x9E3779B97F4A7C15)
    rows = None  # None: every row (dense), else the rows still longer than k
    for k in range(0, int(lens.max()), 8):
        # A string's hash depends on its own bytes only: only rows longer than k are mixed.
        active = lens > k
        if rows is None and np.count_nonzero(active) < n // 2:
            rows = np.flatnonzero(active)  # a few long ids: work on those rows only
        if rows is None:
            w = words[np.minimum(starts + k, len(words) - 1)]
            w &= _MASKS[np.clip(lens - k, 0, 8)]
            mixed = _mix(h ^ w)
            if active.all():
                h = mixed
            else:
                np.copyto(h, mixed, where=active)
        else:
            rows = rows[active[rows]]
            w = words[starts[rows] + k] & _MASKS[np.clip(lens[rows] - k, 0, 8)]
            h[rows] = _mix(h[rows] ^ w)
    return h


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser, in place."""
    x ^= x >> _U64(30)
    x *= _U64(0xBF58476D1CE4E5B9)
    x ^= x >> _U64(27)
    x *= _U64(0x94D049BB133111EB)
    x ^= x >> _U64(31)
    return x


def _maybe_duplicates(codes: np.ndarray, starts: np.ndarray | None,
                      doc: pa.ChunkedArray) -> bool:
    """True when two rows may share a (query, doc) pair (equal hashes); exact when False.

    When each query's rows sit together the doc hashes are sorted per query in a
    (queries x longest list) matrix: much faster than one global sort."""
    n = len(codes)
    if n < 2:
        return False
    h = _hash_strings(doc)
    if starts is not None:
        sizes = np.diff(np.append(starts, n))
        width = int(sizes.max())
        if len(starts) * width <= 2 * n + 1024:
            if np.all(sizes == width):
                matrix = h.reshape(len(starts), width)
            else:
                matrix = np.full((len(starts), width), np.iinfo(np.uint64).max, np.uint64)
                block = np.repeat(np.arange(len(starts)), sizes)
                matrix[block, np.arange(n) - starts[block]] = h
            matrix.sort(axis=1)
            same = matrix[:, 1:] == matrix[:, :-1]
            if not np.all(sizes == width):
                same &= np.arange(width - 1)[None, :] < (sizes - 1)[:, None]
            return bool(same.any())
    key = _pair_hash(codes, h)
    key.sort()
    return bool((key[1:] == key[:-1]).any())


def _pair_hash(codes: np.ndarray, doc_hash: np.ndarray) -> np.ndarray:
    return _mix(doc_hash ^ _mix(codes.astype(_U64) + _U64(0x632BE59BD9B4E019)))


def _exact_duplicate(codes: np.ndarray, categories: pa.Array,
                     doc: pa.ChunkedArray) -> tuple[int, int] | None:
    """(first row, second row) of the earliest repeated (query, doc) pair, or None.

    Only rows whose (query, doc) hash repeats are compared as strings."""
    key = _pair_hash(codes, _hash_strings(doc))
    rows = np.flatnonzero(pd.Series(key).duplicated(keep=False).to_numpy())
    seen: dict[tuple[int, str], int] = {}
    best: tuple[int, int] | None = None
    for row, q, d in zip(rows.tolist(), codes[rows].tolist(),
                         doc.take(pa.array(rows)).to_pylist(), strict=True):
        first = seen.setdefault((q, d), row)
        if first != row and (best is None or row < best[1]):
            best = (first, row)
    return best


# --------------------------------------------------------------------------------------------
# JSON


class _Obj(list):
    """A JSON object kept as its list of (key, value) pairs, duplicates included."""


def _read_json(src: _Source, kind: str) -> pd.DataFrame:
    body = src.body()
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as err:
        raise FormatError("not_utf8", line=_line_of_offset(body, err.start),
                          byte=_byte(err)) from None
    record_lines = None
    try:
        data = json.loads(text, object_pairs_hook=_Obj)
    except json.JSONDecodeError as err:
        if err.msg == "Extra data":  # JSON Lines: one record per line
            data, record_lines = _json_lines(text)
        else:
            raise FormatError("bad_json", line=err.lineno, detail=err.msg,
                              column=err.colno) from None
    except RecursionError:
        raise FormatError("bad_json", detail="nested too deeply", column=0) from None
    queries, docs, values, row_lines = _json_rows(data, kind, record_lines)
    if not queries:
        raise FormatError("no_rows")
    query = pa.chunked_array([pa.array(queries, pa.large_string())])
    doc = pa.chunked_array([pa.array(docs, pa.large_string())])
    if kind == "run":
        value_array = np.array(values, dtype=np.float64)
    else:
        value_array = np.array(values, dtype=np.int64)
    return _finish(src, kind, query, doc, value_array, "json", None, row_lines=row_lines)


def _json_lines(text: str) -> tuple[list, list[int]]:
    records, lines = [], []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line, object_pairs_hook=_Obj))
        except json.JSONDecodeError as err:
            raise FormatError("bad_json", line=number, detail=err.msg, column=err.colno) from None
        lines.append(number)
    return records, lines


def _json_type(value: object) -> str:
    if isinstance(value, _Obj):
        return "object"
    if isinstance(value, list):
        return "list"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return "string"


def _json_id(value: object, role: str, query_id: str | None = None) -> str:
    if isinstance(value, str):
        if not value.strip():
            raise FormatError("empty_id", column=role)
        return value.strip()
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise FormatError("json_structure", expected=f"a string {role}", found=_json_type(value),
                      **({"query_id": query_id} if query_id is not None else {}))


def _json_value(value: object, kind: str, query_id: str, column: str = "score"):
    if kind == "run":
        if isinstance(value, bool) or value is None or isinstance(value, (_Obj, list)):
            raise FormatError("non_numeric_score", value=_clip(json.dumps(value)), column=column,
                              query_id=query_id)
        try:
            number = float(value)
        except (TypeError, ValueError, OverflowError):
            raise FormatError("non_numeric_score", value=_clip(value), column=column,
                              query_id=query_id) from None
        return number
    if isinstance(value, bool) or value is None or isinstance(value, (_Obj, list)):
        raise FormatError("non_integer_grade", value=_clip(json.dumps(value)), query_id=query_id)
    if isinstance(value, int):
        if abs(value) >= 2**63:
            raise FormatError("non_integer_grade", value=_clip(value), query_id=query_id)
        return value
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        raise FormatError("non_integer_grade", value=_clip(value), query_id=query_id) from None
    if not math.isfinite(number) or not number.is_integer() or abs(number) >= 2**53:
        raise FormatError("non_integer_grade", value=_clip(value), query_id=query_id)
    return int(number)


def _json_rows(data: object, kind: str,
               record_lines: list[int] | None) -> tuple[list, list, list, list[int] | None]:
    queries: list[str] = []
    docs: list[str] = []
    values: list = []
    if isinstance(data, _Obj):  # {qid: {doc: value}} or {qid: [doc, ...]}
        for qkey, inner in data:
            qid = _json_id(qkey, "query_id")
            if isinstance(inner, _Obj):
                for dkey, value in inner:
                    queries.append(qid)
                    docs.append(_json_id(dkey, "doc_id", qid))
                    values.append(_json_value(value, kind, qid))
            elif isinstance(inner, list):
                for i, dkey in enumerate(inner):
                    queries.append(qid)
                    docs.append(_json_id(dkey, "doc_id", qid))
                    values.append(len(inner) - i if kind == "run" else 1)
            else:
                raise FormatError("json_structure", expected="an object or a list",
                                  found=_json_type(inner), query_id=qid)
        return queries, docs, values, None
    if isinstance(data, list):  # records
        for i, record in enumerate(data):
            try:
                _json_record(record, kind, queries, docs, values)
            except FormatError as err:
                if err.line is None and record_lines is not None:
                    raise FormatError(err.key, record_lines[i], **err.params) from None
                raise
        return queries, docs, values, record_lines
    raise FormatError("json_structure", expected="an object or a list", found=_json_type(data))


def _json_record(record: object, kind: str, queries: list, docs: list, values: list) -> None:
    value_role = "score" if kind == "run" else "grade"
    if not isinstance(record, _Obj):
        raise FormatError("json_structure", expected="an object", found=_json_type(record))
    names = [str(k) for k, _ in record]
    fields: dict[str, object] = {}
    for key, value in record:
        role = _role_of(str(key))
        if role is not None and role not in fields:
            fields[role] = value
    for role in ("query_id", "doc_id"):
        if role not in fields:
            raise FormatError("missing_column", column=role, found=names,
                              accepted=list(ALIASES[role]))
    qid = _json_id(fields["query_id"], "query_id")
    column = value_role
    if value_role not in fields:
        if kind == "run" and "rank" in fields:
            column = "rank"
        elif kind == "run" and "grade" in fields:
            raise FormatError("looks_like_qrels", found=names)
        elif kind == "qrels" and ("score" in fields or "rank" in fields):
            raise FormatError("looks_like_run", found=names)
        else:
            raise FormatError("missing_column", column=value_role, found=names,
                              accepted=list(ALIASES[value_role]))
    value = _json_value(fields[column], kind, qid, column)
    queries.append(qid)
    docs.append(_json_id(fields["doc_id"], "doc_id", qid))
    values.append(-value if column == "rank" else value)
