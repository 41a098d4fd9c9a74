"""The Arabic and English texts say the same numbers.

Every number written in an Arabic text appears in its English twin (the same key of the other
language's file, or the ``.en`` twin of an ``.ar`` key), and back. Numbers are compared as
written with Western digits (``d7``, ``recall@3``, ``0.67``, ``5,000`` all count). A number one
language writes in words is an exception, listed below with its reason: there is no other way
past this test.
"""

from __future__ import annotations

import re

from tests.content_files import twins
from text.bidi import to_arabic_digits

NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_TO_WESTERN = str.maketrans("٠١٢٣٤٥٦٧٨٩٫٬", "0123456789.,")



def numbers(text: str) -> set[str]:
    return set(NUMBER.findall(text.translate(_TO_WESTERN)))


def test_numbers_reads_both_digit_styles():
    assert numbers("recall@3 = 1/2 = 0.5، و5,000 ريال") == {"3", "1", "2", "0.5", "5,000"}
    assert numbers(to_arabic_digits("0.25")) == {"0.25"}


def _differences() -> list[str]:
    """Numbers in one language only (no exceptions: a number one side needs, the other says)."""
    out = []
    for where, ar, en in twins():
        out += [f"{where}: {n} in Arabic only" for n in sorted(numbers(ar) - numbers(en))]
        out += [f"{where}: {n} in English only" for n in sorted(numbers(en) - numbers(ar))]
    return out


def test_every_number_is_in_both_languages():
    assert _differences() == []
