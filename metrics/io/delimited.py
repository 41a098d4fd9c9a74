"""CSV / TSV (and ``;``, ``|`` or space separated) with a header row naming the columns."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from metrics.errors import MAX_PROBLEMS, FormatError
from metrics.io.common import ALIASES, WS, Problems, memory_pool
from metrics.io.finish import convert, finish
from metrics.io.lines import blank_lines, offset_of_line, parse_as_text, row_lines
from metrics.io.sniff import Header
from metrics.io.source import Source
from metrics.io.trec import normalise

if TYPE_CHECKING:  # pandas loads only when the DataFrame is built
    import pandas as pd


def read_delimited(src: Source, kind: str, header: Header, header_line: int) -> pd.DataFrame:
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
    delim = header.delim
    rest = body[offset_of_line(body, header_line + 1):]
    if delim == " ":
        rest = normalise(rest, None)
    elif b"#" in rest:
        rest = blank_lines(rest) or rest
    names = [f"f{i}" for i in range(len(header.names))]
    cols = {role: f"f{roles[role]}" for role in ("query_id", "doc_id", value_role)}
    as_text = dict.fromkeys(cols.values(), pa.large_string())

    def parse(buffer, threads: bool = True, handler=None) -> pa.Table:
        return pacsv.read_csv(
            buffer,
            read_options=pacsv.ReadOptions(column_names=names, use_threads=threads),
            parse_options=pacsv.ParseOptions(
                delimiter=delim, quote_char='"' if delim not in ("\t", " ") else False,
                invalid_row_handler=handler),
            convert_options=pacsv.ConvertOptions(
                column_types=as_text, include_columns=list(as_text), null_values=[],
                strings_can_be_null=False, quoted_strings_can_be_null=False),
            memory_pool=memory_pool(),
        )

    if not rest.strip(WS):  # pyarrow calls a header-only body an "Empty CSV file"
        raise FormatError("no_rows", line=header_line)
    problems = Problems()
    try:
        table = parse(pa.py_buffer(rest))
        line_numbers = None
    except pa.ArrowException:
        rest = blank_lines(rest) or rest
        try:
            table = parse(pa.py_buffer(rest))
            line_numbers = None
        except pa.ArrowException:
            rows = parse_as_text(rest, lambda b, h: parse(b, False, h), kind, delim, len(names),
                                 problems, line_offset=header_line)
            table, line_numbers = rows.table, rows.lines
    if table.num_rows == 0 and not problems.found:
        raise FormatError("no_rows", line=header_line)

    def lines_of(positions: np.ndarray) -> list[int]:
        nonlocal line_numbers
        if line_numbers is None:
            line_numbers = row_lines(rest) + header_line
        return line_numbers[positions].tolist()

    ids = {}
    for role in ("query_id", "doc_id"):
        arr = pc.utf8_trim_whitespace(table.column(cols[role]))
        empty = np.flatnonzero(pc.equal(pc.binary_length(arr), 0).to_numpy(zero_copy_only=False))
        if len(empty):
            problems.more |= len(empty) > MAX_PROBLEMS
            empty = empty[:MAX_PROBLEMS]
            for line in lines_of(empty):
                problems.add("empty_id", line, column=role)
        ids[role] = arr
    raw = pc.utf8_trim_whitespace(table.column(cols[value_role])).combine_chunks()
    values = convert(raw, kind, delim != ",", lines_of, problems, value_role)
    if values is None:
        values = np.zeros(len(raw), np.float64 if kind == "run" else np.int64)
    elif value_role == "rank":
        values = -values
    return finish(kind, ids["query_id"], ids["doc_id"], values, lines_of, problems,
                  value_column=value_role)
