"""The exceptions the metrics package raises on bad input.

``FormatError`` for files (raised by ``metrics.io``; the keys are below), ``MetricError`` for
bad arguments to a measure (keys listed where they are raised). Both carry ``.key`` (a stable
message key the app translates), ``.line`` (the 1-based line in the file, or None) and
``.params`` (the values the message needs); ``str(err)`` is a plain English message.

A file is checked in one pass: ``FormatError.problems`` lists every problem found, in line
order, at most ``MAX_PROBLEMS`` (``.truncated`` says there were more); the error itself is the
first of them (its ``.key``, ``.line`` and ``.params``), and ``str(err)`` has one line per
problem. Problems with the file as a whole (empty, binary, not UTF-8, not a run at all) come
alone.

Lines are physical lines: ``\\n``, ``\\r\\n`` and a lone ``\\r`` each end one, blank lines count,
a UTF-8 byte-order mark does not. JSON values have no line (JSON Lines records do).
Separator names: "space", "tab", "comma", "semicolon", "pipe".

FormatError keys and their params (plain ``str``/``int``/``list`` values):

======================  ===========================================================================
key                     params
======================  ===========================================================================
empty_file              -- (nothing but whitespace)
no_rows                 -- (a header, or an empty JSON object, but no data rows)
too_large               size (bytes; a lower bound for streams), limit (bytes)
too_large_unzipped      limit (bytes): a gzip file whose text is longer than the limit
unreadable_file         path, reason (the OS's English text)
no_such_file            path (a ``str`` that is neither an existing file nor text: the message
                        suggests ``io.StringIO(text)``)
binary_file             kind: "zip" (also .xlsx/.docx), "pdf", "gzip", "image" or "binary"
utf16                   encoding: "UTF-16 LE" or "UTF-16 BE"
not_utf8                byte (the first bad byte, e.g. "0xe3"); encoding="UTF-32" for UTF-32
unknown_format          detail (English; "internal: ..." marks a case this module missed)
bad_json                detail (the JSON parser's English message), column
json_structure          expected, found, query_id (when known)
wrong_column_count      expected, found
mixed_separators        expected, found (separator names)
looks_like_qrels        found (column count or header names): a qrels file given as a run
looks_like_run          found: a run file given as qrels
looks_like_prefs        found (column count): a trec_eval preferences file
                        (qid ujg ujsubg docno rel_level), not a run or qrels
looks_like_zscores      found (column count): a trec_eval z-scores file
                        (qid measure mean stddev), not a run or qrels
no_header               delimiter: comma/semicolon/pipe-separated rows without a header row
missing_column          column ("query_id", "doc_id", "score", "grade"), found (header), accepted
empty_id                column ("query_id" or "doc_id")
non_numeric_score       value, column ("score" or "rank"); query_id for JSON
nan_score               value ("nan", "inf", "-inf"), column
non_integer_grade       value; query_id for JSON
duplicate_doc           first_line (None for JSON), query_id, doc_id; line = the second copy
======================  ===========================================================================
"""

from __future__ import annotations

from typing import Any

MAX_PROBLEMS = 20

MESSAGES: dict[str, str] = {
    "empty_file": "The file is empty.",
    "no_rows": "The file has no data rows.",
    "too_large": "The file is too large ({size} bytes; the limit is {limit} bytes).",
    "too_large_unzipped": "Uncompressed, the file is more than {limit} bytes of text.",
    "unreadable_file": "The file {path} could not be read: {reason}.",
    "no_such_file": (
        "No such file: {path!r}. To read text rather than a file, pass io.StringIO(text)."
    ),
    "binary_file": "This is not a text file (it looks like {kind} data).",
    "utf16": "The file is encoded as {encoding}; save it as UTF-8.",
    "not_utf8": "The file is not valid UTF-8 (byte {byte}); save it as UTF-8.",
    "unknown_format": "The file format was not recognised: {detail}.",
    "bad_json": "The JSON is not valid: {detail}.",
    "json_structure": "Unexpected JSON structure: expected {expected}, found {found}.",
    "wrong_column_count": "Expected {expected} columns, found {found}.",
    "mixed_separators": "This line is separated by {found} but the file uses {expected}.",
    "looks_like_qrels": "This looks like a relevance judgments (qrels) file, not a run.",
    "looks_like_run": "This looks like a run file, not relevance judgments (qrels).",
    "looks_like_prefs": (
        "This looks like a trec_eval preferences file (query, judgment group, subgroup, "
        "document, preference level), not a run or relevance judgments."
    ),
    "looks_like_zscores": (
        "This looks like a trec_eval z-scores file (query, measure, mean, standard deviation), "
        "not a run or relevance judgments."
    ),
    "no_header": "Rows separated by {delimiter} need a header row naming the columns.",
    "missing_column": "No {column} column was found (accepted names: {accepted}).",
    "empty_id": "The {column} is empty.",
    "non_numeric_score": "The {column} {value!r} is not a number.",
    "nan_score": "The {column} {value} is not a finite number.",
    "non_integer_grade": "The relevance grade {value!r} is not an integer.",
    "duplicate_doc": (
        "Document {doc_id!r} appears twice for query {query_id!r} (first on line {first_line})."
    ),
}


def _rebuild(cls: type, key: str, line: int | None, params: dict[str, Any],
             others: tuple = (), truncated: bool = False) -> _KeyedError:
    err = cls(key, line, **params)
    if others:
        err.problems = [err, *(cls(k, ln, **p) for k, ln, p in others)]
        err.truncated = truncated
    return err


class _KeyedError(ValueError):
    """``.key`` (stable message key), ``.line`` (1-based or None), ``.params`` (message values)."""

    def __init__(self, key: str, line: int | None = None, **params: Any) -> None:
        self.key = key
        self.line = line
        self.params = params
        super().__init__(self.message())

    def message(self) -> str:
        detail = ", ".join(f"{name}={value}" for name, value in self.params.items())
        where = f"line {self.line}: " if self.line is not None else ""
        return f"{where}{self.key.replace('_', ' ')}" + (f" ({detail})" if detail else "")

    def __str__(self) -> str:
        return self.message()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.key!r}, line={self.line!r}, **{self.params!r})"

    def __reduce__(self):  # keep key/line/params through pickling (multiprocessing, caches)
        return _rebuild, (type(self), self.key, self.line, self.params)


class FormatError(_KeyedError):
    """A run or judgments file that cannot be read (wrong columns, bad values, binary, ...).

    ``problems``: every problem found in the file, this one first (see the module docstring)."""

    def __init__(self, key: str, line: int | None = None, **params: Any) -> None:
        self.problems: list[FormatError] = [self]
        self.truncated = False
        super().__init__(key, line, **params)

    @classmethod
    def of(cls, problems: list[FormatError], truncated: bool = False) -> FormatError:
        """One error for several problems, sorted by line (problems without a line first)."""
        ordered = sorted(problems, key=lambda e: (e.line is not None, e.line or 0))
        first = ordered[0]
        first.problems = ordered[:MAX_PROBLEMS]
        first.truncated = truncated or len(ordered) > MAX_PROBLEMS
        return first

    def __str__(self) -> str:
        text = "\n".join(p.message() for p in self.problems)
        return text + ("\n(and more problems not listed)" if self.truncated else "")

    def __reduce__(self):
        others = tuple((p.key, p.line, p.params) for p in self.problems[1:])
        return _rebuild, (type(self), self.key, self.line, self.params, others, self.truncated)

    def message(self) -> str:
        """English message with the line number, e.g. ``line 3: Expected 6 columns, found 5.``"""
        template = MESSAGES.get(self.key)
        if self.key == "duplicate_doc" and self.params.get("first_line") is None:
            template = "Document {doc_id!r} appears more than once for query {query_id!r}."
        if template is None:
            return super().message()
        shown = {k: ", ".join(map(str, v)) if isinstance(v, (list, tuple)) else v
                 for k, v in self.params.items()}
        try:
            text = template.format(**shown)
        except (KeyError, IndexError, ValueError):
            text = f"{template} {self.params}" if self.params else template
        return f"line {self.line}: {text}" if self.line is not None else text


class MetricError(_KeyedError):
    """A bad argument to a measure: k < 1, a non-integer grade, an unknown measure, NaN scores."""

    def message(self) -> str:
        if self.key == "unknown_measure":
            close = self.params.get("close") or []
            hint = f" Did you mean {', '.join(close)}?" if close else ""
            return (f"Unknown measure {self.params.get('measure')!r}.{hint} "
                    f"Known measures: {self.params.get('valid')}.")
        return super().message()
