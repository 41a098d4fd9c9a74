"""The Arabic and English texts say the same numbers.

Every number written in an Arabic text appears in its English twin (the same key of the other
language's file, or the ``.en`` twin of an ``.ar`` key), and back. Numbers are compared as
written with Western digits (``d7``, ``recall@3``, ``0.67``, ``5,000`` all count). A number one
language writes in words is an exception, listed below with its reason: there is no other way
past this test.
"""

from __future__ import annotations

import re

import pytest

from tests.content_files import twins
from text.bidi import to_arabic_digits

NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_TO_WESTERN = str.maketrans("٠١٢٣٤٥٦٧٨٩٫٬", "0123456789.,")

# (where, number): why one side writes it differently (or not at all).
EXCEPTIONS: dict[tuple[str, str], str] = {}
# Files another helper is rewriting, with the reason; a test fails once one has no difference
# left (then delete it).
PENDING: dict[str, str] = {}  # none left


def numbers(text: str) -> set[str]:
    return set(NUMBER.findall(text.translate(_TO_WESTERN)))


def test_numbers_reads_both_digit_styles():
    assert numbers("recall@3 = 1/2 = 0.5، و5,000 ريال") == {"3", "1", "2", "0.5", "5,000"}
    assert numbers(to_arabic_digits("0.25")) == {"0.25"}


def _differences(*, pending: bool = False) -> list[str]:
    """Numbers in one language only: outside the pending files, or (``pending``) inside them."""
    out = []
    for where, ar, en in twins():
        if any(where.startswith(path) for path in PENDING) != pending:
            continue
        only_ar, only_en = numbers(ar) - numbers(en), numbers(en) - numbers(ar)
        for number in sorted(only_ar):
            if (where, number) not in EXCEPTIONS:
                out.append(f"{where}: {number} in Arabic only")
        for number in sorted(only_en):
            if (where, number) not in EXCEPTIONS:
                out.append(f"{where}: {number} in English only")
    return out


def test_every_number_is_in_both_languages():
    assert _differences() == []


@pytest.mark.parametrize("path", sorted(PENDING))
def test_every_pending_file_still_differs(path: str):
    assert any(d.startswith(path) for d in _differences(pending=True)), (
        f"{path} has no difference left: delete its PENDING entry")


@pytest.mark.parametrize(("key", "reason"), sorted(EXCEPTIONS.items()))
def test_every_exception_is_still_needed(key: tuple[str, str], reason: str):
    """An exception that no longer matches a difference is removed, not kept."""
    where, number = key
    texts = {w: (ar, en) for w, ar, en in twins()}
    assert where in texts, f"{where} no longer exists"
    ar, en = texts[where]
    assert (number in numbers(ar)) != (number in numbers(en)), f"{key}: {reason}"
