"""Your own corpus: an uploaded text, Markdown or CSV file cut into passages.

    corpus = parse_upload(data, "policies.md", Chunking("sentences", 3))

What a document is, by format (documents never share a passage):

- ``.txt``: every paragraph (lines between blank lines) is a document.
- ``.md``: every heading starts a document (the heading is its title; text before the first
  heading is a document without a title); its paragraphs are separated by blank lines.
- ``.csv`` / ``.tsv``: a header row naming a text column (``TEXT_COLUMNS``); every row is a unit
  with, optionally, its ``id``, its ``title`` and the ``doc`` it belongs to (rows with the same
  doc are chunks of one document). The separator is the most frequent of ``, ; tab |`` in the
  header (tab for ``.tsv``). Rows with an empty text are skipped and listed.

Chunking: ``"paragraph"`` makes one passage of every paragraph (of every CSV row);
``"sentences"`` cuts every paragraph into passages of ``size`` sentences (Arabic and English
terminators; ``metrics.faithfulness.split_sentences``). A passage never spans two paragraphs.

Ids: a unit (a .txt paragraph, a .md section, a CSV row) is ``d01``, ``d02``, ... (or its CSV
id); when it makes several passages they are ``d01.1``, ``d01.2``, ... and their document is
the unit (or its CSV doc). Every passage keeps the line it starts on.

Bad files raise ``metrics.errors.FormatError`` from ``metrics.io.read_text`` (``too_large``,
``binary_file``, ``utf16``, ``not_utf8``, ``empty_file``) or ``retrieval.errors.CorpusError``
(a ``FormatError`` too): ``unsupported_file``, ``missing_column``, ``wrong_column_count``,
``empty_id``, ``bad_id``, ``duplicate_id``, ``no_rows``, ``unknown_format`` (csv's own
errors, such as a cell over its size limit), ``no_passages``, ``too_many_passages``.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import PurePath

from metrics.faithfulness import split_sentences
from metrics.io import read_text
from retrieval.corpus import Corpus, Passage
from retrieval.errors import CorpusError

__all__ = [
    "EXTENSIONS", "MAX_BYTES", "MAX_PASSAGES", "TEXT_COLUMNS", "Chunking", "Upload",
    "parse_upload",
]

MAX_BYTES = 2 * 1024 * 1024
MAX_PASSAGES = 1000
EXTENSIONS = {".txt": "text", ".text": "text", ".md": "markdown", ".markdown": "markdown",
              ".csv": "csv", ".tsv": "csv"}
MODES = ("paragraph", "sentences")

# CSV header names (compared lower-cased, spaces and dashes as "_"), by role.
TEXT_COLUMNS = ("text", "passage", "content", "body", "chunk", "نص", "النص", "المحتوى",
                "الفقرة", "المقطع")
ID_COLUMNS = ("id", "passage_id", "pid", "doc_id", "docid", "docno", "معرف", "المعرف")
DOC_COLUMNS = ("doc", "document", "source", "المستند", "الوثيقة", "المصدر")
TITLE_COLUMNS = ("title", "heading", "العنوان")

_LINE_END = re.compile(r"\r\n|\r|\n")
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")


@dataclass(frozen=True)
class Chunking:
    mode: str = "paragraph"    # "paragraph" or "sentences"
    size: int = 3              # sentences per passage (mode "sentences")

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, not {self.mode!r}")
        if not isinstance(self.size, int) or self.size < 1:
            raise ValueError(f"size must be an integer >= 1, not {self.size!r}")


@dataclass(frozen=True)
class Upload:
    corpus: Corpus
    kind: str                                   # "text", "markdown" or "csv"
    skipped_lines: tuple[int, ...] = ()         # CSV rows with an empty text


@dataclass
class _Unit:
    """A .txt paragraph, a .md section or a CSV row: what gets one id."""
    id: str | None
    title: str = ""
    doc: str = ""
    paragraphs: list[tuple[int, str]] = field(default_factory=list)   # (first line, text)


def parse_upload(data: bytes, filename: str, chunking: Chunking = Chunking(), *,
                 max_bytes: int = MAX_BYTES, max_passages: int = MAX_PASSAGES) -> Upload:
    """Cut the uploaded file into passages (see the module docstring)."""
    kind = EXTENSIONS.get(PurePath(filename).suffix.lower())
    if kind is None:
        raise CorpusError("unsupported_file", name=PurePath(filename).name,
                          accepted=sorted(EXTENSIONS))
    text = read_text(bytes(data), max_bytes=max_bytes)
    skipped: list[int] = []
    if kind == "csv":
        tab = PurePath(filename).suffix.lower() == ".tsv"
        units = _csv_units(text, "\t" if tab else None, skipped)
    else:
        units = _blocks(text, markdown=kind == "markdown")
    passages = _chunk(units, chunking)
    if not passages:
        raise CorpusError("no_passages")
    if len(passages) > max_passages:
        raise CorpusError("too_many_passages", line=passages[max_passages].line,
                          count=len(passages), limit=max_passages)
    return Upload(Corpus(tuple(passages), name=PurePath(filename).name), kind, tuple(skipped))


def _blocks(text: str, *, markdown: bool) -> list[_Unit]:
    """.txt: a unit per paragraph; .md: a unit per heading section, its paragraphs inside."""
    sections = [_Unit(None)]
    lines: list[str] = []
    start = 1
    for number, line in enumerate([*_LINE_END.split(text), ""], start=1):
        heading = _HEADING.match(line) if markdown else None
        if line.strip() and not heading:
            start = start if lines else number
            lines.append(line.strip())
            continue
        if lines:
            sections[-1].paragraphs.append((start, "\n".join(lines)))
            lines = []
        if heading:
            sections.append(_Unit(None, title=heading.group(1).strip()))
    if markdown:
        return [unit for unit in sections if unit.paragraphs]
    return [_Unit(None, paragraphs=[paragraph]) for paragraph in sections[0].paragraphs]


def _column_role(name: str) -> str | None:
    name = re.sub(r"[\s-]+", "_", name.strip().strip("\ufeff").lower())
    for role, names in (("text", TEXT_COLUMNS), ("id", ID_COLUMNS), ("doc", DOC_COLUMNS),
                        ("title", TITLE_COLUMNS)):
        if name in names:
            return role
    return None


def _csv_units(text: str, delimiter: str | None, skipped: list[int]) -> list[_Unit]:
    rows = csv.reader(io.StringIO(text, newline=""),
                      delimiter=delimiter or _delimiter(text), strict=False)
    header: list[str] | None = None
    roles: dict[str, int] = {}
    units: list[_Unit] = []
    line = 1                          # the first line of the record about to be read
    for row in _records(rows):
        first, line = line, rows.line_num + 1
        if not any(cell.strip() for cell in row):
            continue
        if header is None:
            header = row
            for column, name in enumerate(row):
                roles.setdefault(_column_role(name) or "", column)
            if "text" not in roles:
                raise CorpusError("missing_column", line=first, column="text",
                                  found=[c.strip() for c in row], accepted=list(TEXT_COLUMNS))
            continue
        if len(row) != len(header):
            raise CorpusError("wrong_column_count", line=first, expected=len(header),
                              found=len(row))
        value = {role: row[column].strip() for role, column in roles.items() if role}
        if not value["text"]:
            skipped.append(first)
            continue
        for role in ("id", "doc"):
            if role in value and not value[role]:
                raise CorpusError("empty_id", line=first, column=role)
            if any(c.isspace() for c in value.get(role, "")):
                raise CorpusError("bad_id", line=first, id=value[role])
        units.append(_Unit(value.get("id"), value.get("title", ""), value.get("doc", ""),
                           [(first, value["text"])]))
    if header is None:
        raise CorpusError("empty_file")
    if not units and not skipped:
        raise CorpusError("no_rows")
    return units


def _records(rows):
    """The reader's rows; its own errors (a cell over csv's field size limit) as keyed ones."""
    try:
        yield from rows
    except csv.Error as err:
        raise CorpusError("unknown_format", line=rows.line_num, detail=str(err)) from None


def _delimiter(text: str) -> str:
    """The most frequent of , ; tab | in the first non-blank line. A header without any is one
    column: NUL then never splits a row (``read_text`` refuses files containing NUL)."""
    first = next((line for line in _LINE_END.split(text) if line.strip()), "")
    best = max(",;\t|", key=lambda d: (first.count(d), d == ","))
    return best if best in first else "\0"


def _chunk(units: list[_Unit], chunking: Chunking) -> list[Passage]:
    width = max(2, len(str(len(units))))
    passages: list[Passage] = []
    for number, unit in enumerate(units, start=1):
        uid = unit.id or f"d{number:0{width}d}"
        pieces = [piece for line, text in unit.paragraphs
                  for piece in _pieces(line, text, chunking)]
        for n, (line, text) in enumerate(pieces, start=1):
            pid = uid if len(pieces) == 1 else f"{uid}.{n}"
            passages.append(Passage(pid, text, doc=unit.doc or uid, title=unit.title, line=line))
    return passages


def _pieces(line: int, text: str, chunking: Chunking) -> list[tuple[int, str]]:
    """(first line, text) of the passages of one paragraph."""
    if chunking.mode == "paragraph":
        return [(line, text)]
    spans = split_sentences(text)
    out = []
    for i in range(0, len(spans), chunking.size):
        group = spans[i:i + chunking.size]
        start, end = group[0][0], group[-1][1]
        out.append((line + text.count("\n", 0, start), text[start:end]))
    return out
