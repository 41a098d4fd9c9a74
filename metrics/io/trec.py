"""TREC format: whitespace-separated columns, no header, as trec_eval 10.0 reads them.

Run: ``qid Q0 docno rank score tag``; fields after the sixth are ignored. Qrels: ``qid iter
docno grade``, exactly four. A line whose first non-blank character is ``#`` is a comment.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from metrics._dependencies import while_pandas_loads
from metrics._hashing import in_parallel
from metrics.errors import FormatError
from metrics.io.common import BLOCK, WS, Problems, memory_pool
from metrics.io.finish import convert, finish, query_codes
from metrics.io.lines import parse_as_text, row_lines
from metrics.io.source import Source, reason

if TYPE_CHECKING:  # pandas loads only when the DataFrame is built
    import pandas as pd

_SPACE, _LF, _HASH = 32, 10, 35


def read_trec(src: Source, kind: str, head: bytes) -> pd.DataFrame:
    n_fields = 6 if kind == "run" else 4
    names = [f"f{i}" for i in range(n_fields)]
    value_col = "f4" if kind == "run" else "f3"
    wanted = {"f0": pa.large_string(), "f2": pa.large_string(),
              value_col: pa.float64() if kind == "run" else pa.large_string()}
    lines = head.splitlines()[:-1] or head.splitlines()
    has_tab = any(b"\t" in ln for ln in lines)
    has_space = any(b" " in ln.strip(WS) for ln in lines)
    clean = not (has_tab and has_space) and not any(
        ln != ln.strip(WS) or b"  " in ln or b"\t\t" in ln for ln in lines if ln)
    delim = "\t" if has_tab and not has_space else " "

    def parse(buffer, delim: str, columns: dict = wanted, threads: bool = True,
              handler=None) -> pa.Table:
        return pacsv.read_csv(
            buffer,
            read_options=pacsv.ReadOptions(column_names=names, use_threads=threads,
                                           block_size=BLOCK),
            parse_options=pacsv.ParseOptions(delimiter=delim, quote_char=False,
                                             double_quote=False, invalid_row_handler=handler),
            convert_options=pacsv.ConvertOptions(
                column_types=columns, include_columns=list(columns), null_values=[],
                strings_can_be_null=False, quoted_strings_can_be_null=False),
            memory_pool=memory_pool(),
        )

    table = None
    body: bytes | None = None
    if clean:  # the fast path: pyarrow straight from the file (or the bytes)

        def parse_clean() -> pa.Table:
            if src.path is not None:
                with pa.OSFile(src.path, "r") as stream:
                    return parse(stream, delim)
            return parse(pa.py_buffer(src.data()), delim)

        try:  # in a fresh process pandas loads meanwhile: both cores work
            table = while_pandas_loads(parse_clean)
        except OSError as err:
            raise FormatError("unreadable_file", path=str(src.path), reason=reason(err)) from None
        except pa.ArrowException:
            table = None
    codes = scores = None
    if table is not None:
        import pyarrow.compute as pc  # loaded by now (see metrics.io.finish)

        codes, scores = _codes_and_scores(table, value_col if kind == "run" else None)
        if pc.any(pc.starts_with(codes[1], "#")).as_py():
            table = codes = scores = None  # comment lines that happened to have the right fields
        else:
            table = table.drop_columns(["f0"])  # the codes replace the ids' text
    problems = Problems()
    if table is None:  # irregular whitespace, comments, extra fields, or errors to locate
        body = normalise(src.body(), n_fields if kind == "run" else None)
        try:
            table = parse(pa.py_buffer(body), " ")
        except pa.ArrowException:
            return _read_with_problems(body, kind, names, value_col, parse, problems)
    if table.num_rows == 0:
        raise FormatError("no_rows")
    query = table.column("f0") if codes is None else None
    doc, raw = table.column("f2"), table.column(value_col)
    del table
    memory_pool().release_unused()  # parse buffers back to the OS: lower peak RSS
    if src.path is not None and body is None:  # NUL bytes in ids (the head was checked)
        _check_nul(src, doc, codes[1])

    def lines_of(rows: np.ndarray) -> list[int]:
        return row_lines(body if body is not None else src.body())[rows].tolist()

    if kind == "run":
        values = scores if scores is not None else raw.to_numpy()
        del raw  # the Arrow copy of the scores goes before the duplicate check
    else:
        values = _placeholder(convert(raw.combine_chunks(), kind, False, lines_of, problems,
                                      "grade"), len(raw), kind)
    return finish(kind, query, doc, values, lines_of, problems, codes=codes)


def _codes_and_scores(table: pa.Table, score_column: str | None):
    """The query codes (``query_codes``) and, given its column, the scores as one numpy array,
    on two cores."""
    tasks = [functools.partial(query_codes, table.column("f0"))]
    if score_column is not None:
        tasks.append(table.column(score_column).to_numpy)
    codes, *scores = in_parallel(tasks)
    return codes, (scores[0] if scores else None)


def _read_with_problems(body: bytes, kind: str, names: list[str], value_col: str, parse,
                        problems: Problems) -> pd.DataFrame:
    """A file pyarrow refused: read it all as text and report every problem at once."""
    as_text = {"f0": pa.large_string(), "f2": pa.large_string(), value_col: pa.large_string()}
    rows = parse_as_text(body, lambda b, h: parse(b, " ", as_text, False, h), kind, "trec",
                         len(names), problems)
    table = rows.table

    def lines_of(positions: np.ndarray) -> list[int]:
        return rows.lines[positions].tolist()

    column = "score" if kind == "run" else "grade"
    values = _placeholder(convert(table.column(value_col).combine_chunks(), kind, False,
                                  lines_of, problems, column), table.num_rows, kind)
    if table.num_rows == 0 and not problems.found:
        raise FormatError("no_rows")
    return finish(kind, table.column("f0"), table.column("f2"), values, lines_of, problems)


def _placeholder(values: np.ndarray | None, n: int, kind: str) -> np.ndarray:
    """The converted values, or zeros standing in for them while the other checks run (the
    problems already found are raised at the end)."""
    if values is not None:
        return values
    return np.zeros(n, np.float64 if kind == "run" else np.int64)


def _check_nul(src: Source, *columns: pa.ChunkedArray | pa.Array) -> None:
    for column in columns:
        for chunk in getattr(column, "chunks", [column]):
            buf = chunk.buffers()[2]
            if buf is not None and buf.size and np.frombuffer(buf, np.uint8).min() == 0:
                src.body()  # raises binary_file with the line


def normalise(data: bytes, max_fields: int | None) -> bytes:
    """One space between fields, none at either end of a line; CRLF and CR become LF; lines
    that are blank or comments become empty (pyarrow skips them); with ``max_fields``, the
    fields after that many are dropped. Line numbers do not change."""
    out = []
    step = 1 << 19  # small pieces: numpy reuses its buffers (fresh pages are slow)
    pos = 0
    while pos < len(data):
        end = data.find(b"\n", min(pos + step, len(data)))
        end = len(data) if end < 0 else end + 1
        out.append(_normalise_chunk(data[pos:end], max_fields))
        pos = end
    return b"".join(out)


def _normalise_chunk(chunk: bytes, max_fields: int | None) -> bytes:
    a = np.frombuffer(chunk, np.uint8)
    cr = a == 13
    before_lf = np.zeros_like(cr)
    before_lf[:-1] = a[1:] == 10
    b = a.copy()
    b[cr & ~before_lf] = _LF
    ws = (b == 32) | (b == 9) | (b == 11) | (b == 12) | (cr & before_lf)
    nl = b == _LF
    tok = ~(ws | nl)
    after_tok = np.zeros_like(tok)
    after_tok[1:] = tok[:-1]
    b[ws] = _SPACE
    c = b[tok | nl | (ws & after_tok)]
    sp = c == _SPACE
    last = np.ones_like(sp)
    last[:-1] = c[1:] == _LF
    c = c[~(sp & last)]
    if (b"#" not in chunk and max_fields is None) or not len(c):
        return c.tobytes()
    # Per line: is it a comment, and how many spaces (field breaks) up to each byte.
    nl = c == _LF
    start = np.empty(len(c), bool)
    start[0] = True
    start[1:] = nl[:-1]
    line = np.cumsum(start) - 1
    keep = nl.copy()
    body = ~(c[start] == _HASH)[line]
    if max_fields is not None:
        spaces = np.cumsum(c == _SPACE)
        before = (spaces - (c == _SPACE))[start]
        body &= (spaces - before[line]) < max_fields
    keep |= body
    return c[keep].tobytes()
