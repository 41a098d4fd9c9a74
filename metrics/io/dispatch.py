"""Dispatch: which reader a file goes to, decided from its first content line."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa

from metrics.errors import FormatError
from metrics.io.common import ALIASES, DELIMS, HEAD, clip
from metrics.io.jsonfile import read_json
from metrics.io.sniff import (
    check_encoding,
    find_header,
    first_line,
    looks_like_name,
    other_trec_eval_file,
    role_of,
    split_header,
)
from metrics.io.source import Source
from metrics.io.trec import read_trec

if TYPE_CHECKING:  # pandas loads only when the DataFrame is built
    import pandas as pd


def read(source, kind: str, max_bytes: int | None) -> pd.DataFrame:
    try:
        return dispatch(Source(source, max_bytes), kind)
    except (FormatError, TypeError):
        raise
    except (ValueError, ArithmeticError, LookupError, UnicodeError, pa.ArrowException,
            RecursionError, MemoryError) as err:
        # A file this module failed to foresee: still a clear message, never a traceback.
        raise FormatError("unknown_format",
                          detail=clip(f"internal: {type(err).__name__}: {err}")) from err


def dispatch(src: Source, kind: str) -> pd.DataFrame:
    head = check_encoding(src)
    if src.path is None:
        src.data()  # NUL check of the whole input (memchr)
    number, first, comments = first_line(head)
    if not first and len(src.head()) >= HEAD:  # a long head of blanks or comments: look on
        number, first, comments = first_line(src.body())
    if not first and comments:
        raise FormatError("no_rows")
    if not first:
        raise FormatError("empty_file")
    text = first.decode("utf-8", "replace").strip()
    expected = 6 if kind == "run" else 4
    if text[:1] in ("{", "[") and not comments:
        try:
            return read_json(src, kind)
        except FormatError as err:  # a TREC file whose first query id starts with { or [
            if err.key != "bad_json" or len(text.split()) != expected:
                raise
    header = find_header(text)
    if header is not None:
        from metrics.io.delimited import read_delimited  # (loads pyarrow.compute)

        return read_delimited(src, kind, header, number)
    fields = text.split()
    other = other_trec_eval_file(fields)
    if other is not None:
        raise FormatError(other, line=number, found=len(fields))
    if len(fields) < expected:
        for delim in ("\t", ",", ";", "|"):
            parts = split_header(text, delim) if delim in text else []
            if len(parts) < 2:
                continue
            if all(looks_like_name(p) for p in parts):  # a header, but not of ids
                roles = {role_of(p) for p in parts}
                missing = "query_id" if "query_id" not in roles else "doc_id"
                raise FormatError("missing_column", line=number, column=missing,
                                  found=[p.strip() for p in parts],
                                  accepted=list(ALIASES[missing]))
            if delim != "\t":
                raise FormatError("no_header", line=number, delimiter=DELIMS[delim])
    if kind == "run" and len(fields) == 4:
        raise FormatError("looks_like_qrels", line=number, found=4)
    if kind == "qrels" and len(fields) == 6:
        raise FormatError("looks_like_run", line=number, found=6)
    return read_trec(src, kind, head)

