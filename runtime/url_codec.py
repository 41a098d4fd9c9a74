"""A page's URL fields and the compact ranking encoding: pure Python, no Streamlit.

A :class:`Field` is one query parameter: its default, a parser that raises on a bad value and
a serializer. Lesson ``link`` modules declare their fields with these, so the page reading a
link and the page writing one (the lab, home) use the same parsers. :mod:`runtime.state` binds
fields to ``st.query_params``.

Compact rankings: :func:`encode_ranking` / :func:`decode_ranking` turn
``[("d7", 0), ("d2", 1)]`` into ``d7.0-d2.1`` (ids escaped as ``~XX`` UTF-8 hex for any
character outside ``A-Za-z0-9_``; 20 items with grades ≈ 120 characters).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["MAX_PARAM_CHARS", "Field", "bool_field", "choice_field", "decode_ranking",
           "encode_ranking", "float_field", "int_field", "ranking_field"]

MAX_PARAM_CHARS = 4000  # longer values are rejected before parsing


# --- fields ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Field:
    """One URL field: its default, ``parse(str) -> value`` (raises on bad input) and
    ``serialize(value) -> str``. Values must be comparable with ``==`` (use tuples)."""

    default: Any
    parse: Callable[[str], Any]
    serialize: Callable[[Any], str] = str


def int_field(default: int, *, lo: int, hi: int) -> Field:
    def parse(raw: str) -> int:
        if not re.fullmatch(r"-?\d{1,9}", raw):
            raise ValueError(raw)
        value = int(raw)
        if not lo <= value <= hi:
            raise ValueError(raw)
        return value

    return Field(default, parse, str)


def float_field(default: float, *, lo: float, hi: float) -> Field:
    def parse(raw: str) -> float:
        if len(raw) > 32:
            raise ValueError(raw)
        value = float(raw)
        if not (math.isfinite(value) and lo <= value <= hi):
            raise ValueError(raw)
        return value

    return Field(default, parse, lambda v: f"{v:g}")


def choice_field(default: str, options: Sequence[str]) -> Field:
    allowed = tuple(options)

    def parse(raw: str) -> str:
        if raw not in allowed:
            raise ValueError(raw)
        return raw

    return Field(default, parse, str)


def bool_field(default: bool) -> Field:
    def parse(raw: str) -> bool:
        if raw not in ("0", "1"):
            raise ValueError(raw)
        return raw == "1"

    return Field(default, parse, lambda v: "1" if v else "0")


def ranking_field(
    default: Iterable[tuple[str, int]],
    *,
    grades: Iterable[int] | None = (0, 1),
    min_items: int = 1,
    max_items: int = 50,
) -> Field:
    """A ranking with grades as a tuple of ``(id, grade)`` pairs, e.g. ``d7.0-d2.1``.

    ``grades`` is the set of allowed grades (``None``: any int 0–9); ids must be unique.
    """
    allowed = None if grades is None else frozenset(grades)

    def parse(raw: str) -> tuple[tuple[str, int], ...]:
        items = decode_ranking(raw, max_items=max_items)
        if len(items) < min_items:
            raise ValueError("too few items")
        out = []
        for doc_id, grade in items:
            if grade is None or (allowed is not None and grade not in allowed):
                raise ValueError(f"bad grade for {doc_id!r}")
            out.append((doc_id, grade))
        return tuple(out)

    return Field(tuple((str(d), int(g)) for d, g in default), parse, encode_ranking)


# --- ranking encoding ------------------------------------------------------------------

_SAFE_ID_CHAR = re.compile(r"[A-Za-z0-9_]")


def _escape_id(doc_id: str) -> str:
    return "".join(
        ch if _SAFE_ID_CHAR.fullmatch(ch) else "".join(f"~{b:02X}" for b in ch.encode("utf-8"))
        for ch in doc_id
    )


def _unescape_id(text: str) -> str:
    if not re.fullmatch(r"(?:[A-Za-z0-9_]|~[0-9A-Fa-f]{2})+", text):
        raise ValueError(f"bad id {text!r}")
    raw = bytearray()
    i = 0
    while i < len(text):
        if text[i] == "~":
            raw.append(int(text[i + 1 : i + 3], 16))
            i += 3
        else:
            raw.extend(text[i].encode("ascii"))
            i += 1
    return raw.decode("utf-8")  # UnicodeDecodeError is a ValueError


def encode_ranking(items: Iterable[tuple[str, int | None] | str]) -> str:
    """``[("d7", 0), ("d2", 1)]`` → ``"d7.0-d2.1"``; plain ids (no grade) → ``"d7-d2"``.

    Only URL-unreserved characters are produced, so the browser shows it unchanged.
    """
    parts = []
    for item in items:
        doc_id, grade = (item, None) if isinstance(item, str) else item
        doc_id = str(doc_id)
        if not doc_id:
            raise ValueError("empty id")
        parts.append(_escape_id(doc_id) + ("" if grade is None else f".{int(grade)}"))
    return "-".join(parts)


def decode_ranking(
    text: str, *, max_items: int = 50, max_id_chars: int = 100
) -> list[tuple[str, int | None]]:
    """Inverse of :func:`encode_ranking`. Raises ``ValueError`` on anything malformed:
    bad characters, empty or over-long ids, duplicate ids, grades outside 0–99, too many."""
    if len(text) > MAX_PARAM_CHARS:
        raise ValueError("too long")
    if text == "":
        return []
    out: list[tuple[str, int | None]] = []
    seen: set[str] = set()
    parts = text.split("-")
    if len(parts) > max_items:
        raise ValueError("too many items")
    for part in parts:
        enc, dot, grade_text = part.partition(".")
        grade: int | None = None
        if dot:
            if not re.fullmatch(r"\d{1,2}", grade_text):
                raise ValueError(f"bad grade {grade_text!r}")
            grade = int(grade_text)
        doc_id = _unescape_id(enc)
        if len(doc_id) > max_id_chars or doc_id in seen:
            raise ValueError(f"bad or duplicate id {doc_id!r}")
        seen.add(doc_id)
        out.append((doc_id, grade))
    return out
