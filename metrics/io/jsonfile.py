"""JSON: ``{qid: {doc: value}}``, ``{qid: [doc, ...]}``, a list of records, or JSON Lines."""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from metrics.errors import FormatError
from metrics.io.common import ALIASES, Problems, clip
from metrics.io.finish import finish
from metrics.io.lines import line_of_offset
from metrics.io.sniff import role_of
from metrics.io.source import Source, byte_of

if TYPE_CHECKING:  # pandas loads only when the DataFrame is built
    import pandas as pd


class _Obj(list):
    """A JSON object kept as its list of (key, value) pairs, duplicates included."""


def read_json(src: Source, kind: str) -> pd.DataFrame:
    body = src.body()
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as err:
        raise FormatError("not_utf8", line=line_of_offset(body, err.start),
                          byte=byte_of(err)) from None
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

    def lines_of(rows: np.ndarray) -> list[int | None]:
        return [row_lines[r] for r in rows] if row_lines is not None else [None] * len(rows)

    return finish(kind, query, doc, value_array, lines_of, Problems())


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
            raise FormatError("non_numeric_score", value=clip(json.dumps(value)), column=column,
                              query_id=query_id)
        try:
            number = float(value)
        except (TypeError, ValueError, OverflowError):
            raise FormatError("non_numeric_score", value=clip(value), column=column,
                              query_id=query_id) from None
        return number
    if isinstance(value, bool) or value is None or isinstance(value, (_Obj, list)):
        raise FormatError("non_integer_grade", value=clip(json.dumps(value)), query_id=query_id)
    if isinstance(value, int):
        if abs(value) >= 2**63:
            raise FormatError("non_integer_grade", value=clip(value), query_id=query_id)
        return value
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        raise FormatError("non_integer_grade", value=clip(value), query_id=query_id) from None
    if not math.isfinite(number) or not number.is_integer() or abs(number) >= 2**53:
        raise FormatError("non_integer_grade", value=clip(value), query_id=query_id)
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
        role = role_of(str(key))
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

