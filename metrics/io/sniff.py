"""Sniffing: encoding, binary content, comment lines, the header and what kind of file it is."""

from __future__ import annotations

import codecs
import csv
import re
from dataclasses import dataclass

from metrics.errors import FormatError
from metrics.io.common import ALIASES, HEAD, WS
from metrics.io.lines import line_end, line_of_offset
from metrics.io.source import Source, byte_of

_MAGIC = (
    (b"PK\x03\x04", "zip"), (b"%PDF", "pdf"), (b"\x89PNG", "image"), (b"\xff\xd8\xff", "image"),
    (b"GIF8", "image"), (b"\xd0\xcf\x11\xe0", "binary"), (b"\x1f\x8b", "gzip"),
)


def check_encoding(src: Source) -> bytes:
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
        raise FormatError("binary_file", line=line_of_offset(head, head.index(b"\x00")),
                          kind="binary")
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as err:
        if err.start < len(head) - 3 or len(raw) < HEAD:  # not just a cut multi-byte char
            raise FormatError("not_utf8", line=line_of_offset(head, err.start),
                              byte=byte_of(err)) from None
    return head


def is_comment(line: bytes) -> bool:
    """A comment line, as trec_eval 10.0 skips them: its first non-blank character is ``#``.
    (A ``#`` anywhere else, as in the document id ``CR#93E-1860``, is data.)"""
    return line.lstrip(WS)[:1] == b"#"


def first_line(head: bytes) -> tuple[int, bytes, bool]:
    """(1-based line number, text) of the first line that is neither blank nor a comment, and
    whether a comment came before it; (0, b"", ...) when there is none in ``head``."""
    pos, number, comments = 0, 1, False
    while pos < len(head):
        end, nxt = line_end(head, pos)
        line = head[pos:end]
        if line.strip(WS):
            if not is_comment(line):
                return number, line, comments
            comments = True
        pos, number = nxt, number + 1
    return 0, b"", comments


def role_of(name: str) -> str | None:
    key = _key(name)
    for role, names in ALIASES.items():
        if key in names:
            return role
    return None


def _key(name: str) -> str:
    return re.sub(r"[\s\-]+", "_", name.strip().strip('"').strip().lower())


def split_header(line: str, delim: str) -> list[str]:
    if delim == " ":
        return line.split()
    try:
        return next(csv.reader([line], delimiter=delim))
    except (csv.Error, StopIteration):
        return line.split(delim)


@dataclass
class Header:
    delim: str
    names: list[str]
    roles: dict[str, int]  # role -> column index


def find_header(line: str) -> Header | None:
    for delim in ("\t", ",", ";", "|", " "):
        if delim != " " and delim not in line:
            continue
        names = split_header(line, delim)
        roles: dict[str, int] = {}
        for i, name in enumerate(names):
            role = role_of(name)
            if role is None:
                continue
            if role not in roles or _rank(role, name) < _rank(role, names[roles[role]]):
                roles[role] = i
        if "query_id" in roles and "doc_id" in roles:
            return Header(delim, [n.strip() for n in names], roles)
    return None


def _rank(role: str, name: str) -> int:
    return ALIASES[role].index(_key(name))


def looks_like_name(token: str) -> bool:
    """A header cell: starts with a letter and is not a number."""
    token = token.strip().strip('"').strip()
    if not token or not (token[0].isalpha() or token[0] == "_"):
        return False
    try:
        float(token)
    except ValueError:
        return token.lower() not in ("q0",)
    return False


def _number(token: str) -> float | None:
    try:
        return float(token)
    except ValueError:
        return None


_MEASURE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.]*")


def other_trec_eval_file(fields: list[str]) -> str | None:
    """The key for a trec_eval input that is neither a run nor qrels, from its first line:

    - a z-scores file (``trec_eval -Z``): ``qid measure mean stddev``, e.g.
      ``301 map 0.1212 0.1545``: a measure name where qrels have their iteration, and two
      decimal numbers;
    - a preferences file (``trec_eval -R prefs``): ``qid ujg ujsubg docno rel_level``: five
      fields whose fourth is a document id where a run, missing its tag, has an integer rank.
    """
    if (len(fields) == 4 and _MEASURE_NAME.fullmatch(fields[1]) and fields[1].lower() != "q0"
            and all("." in f and _number(f) is not None for f in fields[2:])):
        return "looks_like_zscores"
    if len(fields) == 5 and _number(fields[4]) is not None and not fields[3].lstrip(
            "+-").isdigit():
        return "looks_like_prefs"
    return None
