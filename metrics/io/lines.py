"""Finding the lines of a file's problems.

The fast parses never track lines; when a check fails, the rows at fault are mapped back to
physical lines here (``\\n``, ``\\r\\n`` and a lone ``\\r`` each end one; pyarrow skips empty
lines, so parsed rows are the non-empty lines in order). A file that pyarrow refuses is parsed
again on one thread, all as text, to list every malformed row at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from metrics.errors import MAX_PROBLEMS, FormatError
from metrics.io.common import DELIMS, Problems, clip


def line_end(data: bytes, pos: int) -> tuple[int, int]:
    """End of the line starting at ``pos`` and the start of the next one."""
    lf, cr = data.find(b"\n", pos), data.find(b"\r", pos)
    if lf < 0 and cr < 0:
        return len(data), len(data)
    if cr < 0 or (0 <= lf < cr):
        return lf, lf + 1
    return cr, cr + (2 if data[cr + 1:cr + 2] == b"\n" else 1)


def offset_of_line(data: bytes, line: int) -> int:
    """Byte offset where 1-based ``line`` starts (``len(data)`` past the end)."""
    pos = 0
    for _ in range(line - 1):
        pos = line_end(data, pos)[1]
    return pos


def line_of_offset(data: bytes, offset: int) -> int:
    """1-based line number of the byte at ``offset`` (LF, CRLF and CR end lines)."""
    before = data[:offset]
    lf = before.count(b"\n")
    if b"\r" not in before:
        return lf + 1
    return lf + before.count(b"\r") - before.count(b"\r\n") + 1


def line_bounds(data: bytes) -> tuple[np.ndarray, np.ndarray]:
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


def row_lines(data: bytes) -> np.ndarray:
    """The 1-based line of every row pyarrow parses from ``data``: its non-empty lines."""
    starts, ends = line_bounds(data)
    return np.flatnonzero(ends > starts) + 1


def rows_to_lines(data: bytes, rows: np.ndarray) -> list[int]:
    """1-based line numbers of parsed rows (pyarrow skips empty lines, so rows != lines)."""
    lines = row_lines(data)
    if not len(lines):
        return [1] * len(rows)
    return lines[np.clip(rows, 0, len(lines) - 1)].tolist()


def blank_lines(data: bytes) -> bytes | None:
    """Comment lines (first non-blank character ``#``) and whitespace-only lines made empty,
    so pyarrow skips them and line numbers stay; None when there are none."""
    out, changed, pos = [], False, 0
    step = 1 << 19
    while pos < len(data):
        end = data.find(b"\n", min(pos + step, len(data)))
        end = len(data) if end < 0 else end + 1
        piece = data[pos:end]
        blanked = _blank_chunk(piece)
        changed |= blanked is not None
        out.append(piece if blanked is None else blanked)
        pos = end
    return b"".join(out) if changed else None


def _blank_chunk(chunk: bytes) -> bytes | None:
    starts, ends = line_bounds(chunk)
    a = np.frombuffer(chunk, np.uint8)
    text = np.flatnonzero(~((a == 32) | (a == 9) | (a == 11) | (a == 12)))
    at = np.searchsorted(text, starts)
    first = np.full(len(starts), len(a))
    inside = at < len(text)
    first[inside] = text[at[inside]]
    blank = first >= ends  # nothing but whitespace (or nothing) before the line's end
    blank |= ~blank & (a[np.minimum(first, len(a) - 1)] == ord("#"))
    blank &= ends > starts
    if not blank.any():
        return None
    keep = np.ones(len(a), bool)
    change = np.zeros(len(a) + 1, np.int32)
    np.add.at(change, starts[blank], 1)
    np.add.at(change, ends[blank], -1)
    keep[np.cumsum(change)[:-1] > 0] = False
    return a[keep].tobytes()


def raise_utf8(data: bytes, line_offset: int = 0) -> None:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as err:
        bad = err.object[err.start:err.start + 1]
        raise FormatError("not_utf8", line=line_of_offset(data, err.start) + line_offset,
                          byte=f"0x{bad[0]:02x}" if bad else "?") from None


@dataclass
class TextRows:
    """A file parsed as text with the malformed rows left out (each one already reported)."""

    table: object            # pyarrow Table of the wanted columns, as large_string
    lines: np.ndarray        # 1-based line of each of its rows
    data: bytes              # what was parsed: the file, or its start up to the last problem


def parse_as_text(data: bytes, parse: Callable, kind: str, delim: str, n_columns: int,
                  problems: Problems, *, line_offset: int = 0) -> TextRows:
    """Parse ``data`` on one thread, every column as text, reporting each malformed row (wrong
    column count, another separator, a qrels line in a run ...) to ``problems``.

    ``parse(buffer, handler)`` parses with pyarrow's ``invalid_row_handler``. After
    ``MAX_PROBLEMS`` malformed rows the parse stops, and only the lines before the last of them
    are parsed again (for their values): a file wrong on every line costs no more than one
    that is wrong 20 times."""
    import pyarrow as pa

    invalid: list = []

    def handler(row) -> str:  # row.number: 1-based among the non-empty lines (one thread)
        invalid.append((row.number, row.text or "", row.actual_columns))
        return "error" if len(invalid) > MAX_PROBLEMS else "skip"

    def run(buffer: bytes):
        invalid.clear()
        try:
            return parse(pa.py_buffer(buffer), handler)
        except pa.ArrowInvalid as err:
            if "invalid UTF8" in str(err):
                raise_utf8(buffer, line_offset)
            if len(invalid) <= MAX_PROBLEMS:
                raise FormatError("unknown_format", detail=clip(str(err))) from None
            return None

    table = run(data)
    if table is None:  # too many malformed rows: parse the file up to the 20th of them
        problems.more = True
        starts, ends = line_bounds(data)
        nonempty = np.flatnonzero(ends > starts)
        last = nonempty[invalid[MAX_PROBLEMS - 1][0] - 1]
        data = data[:ends[last]]
        table = run(data)
    lines = row_lines(data)
    for number, text, found in invalid:
        line = int(lines[number - 1]) + line_offset if number else None
        _malformed(problems, line, text, found, kind, delim, n_columns)
    skipped = np.array([number - 1 for number, _, _ in invalid if number], np.int64)
    return TextRows(table, np.delete(lines, skipped) + line_offset, data)


def _malformed(problems: Problems, line: int | None, text: str, found: int, kind: str,
               delim: str, expected: int) -> None:
    """The problem with one row that does not have the expected columns."""
    if delim == "trec":
        for other in (",", ";", "|"):
            if other in text and len(text.split(other)) == expected:
                problems.add("mixed_separators", line, expected="space", found=DELIMS[other])
                return
        found = len(text.split())
        if kind == "run" and found == 4:
            problems.add("looks_like_qrels", line, found=4)
            return
        if kind == "qrels" and found == 6:
            problems.add("looks_like_run", line, found=6)
            return
    else:
        for other in ("\t", ",", ";", "|"):
            if other != delim and other in text and len(text.split(other)) == expected:
                problems.add("mixed_separators", line, expected=DELIMS[delim],
                             found=DELIMS[other])
                return
    problems.add("wrong_column_count", line, expected=expected, found=found)
