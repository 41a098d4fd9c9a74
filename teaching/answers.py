"""Reading a number a learner typed, in either language's habits."""

from __future__ import annotations

import math
import re
from fractions import Fraction

from text.bidi import ARABIC_INDIC_DIGITS, EASTERN_ARABIC_INDIC_DIGITS

__all__ = ["parse_number", "western_digits"]

# Both Arabic digit sets to Western digits: the one table every typed number goes through.
_DIGITS = str.maketrans(ARABIC_INDIC_DIGITS + EASTERN_ARABIC_INDIC_DIGITS, "0123456789" * 2)
_SEPARATORS = str.maketrans({"٫": ".", "،": ",", "٪": "%", "÷": "/", "−": "-"})
_NUMBER = re.compile(r"[-+]?(\d+(\.\d*)?|\.\d+)")


def western_digits(text: str) -> str:
    """``"K7Q٢"`` → ``"K7Q2"``: Arabic-Indic and Eastern Arabic-Indic digits as Western digits."""
    return text.translate(_DIGITS)


def parse_number(text: str) -> float | None:
    """``0.5``, ``.5``, ``0,5``, ``٠٫٥``, ``1/2``, ``50%`` → 0.5; anything else → None."""
    if not isinstance(text, str):
        return None
    cleaned = western_digits(text.strip()).translate(_SEPARATORS).replace(" ", "")
    if not cleaned or len(cleaned) > 40:
        return None
    percent = cleaned.endswith("%")
    cleaned = cleaned.rstrip("%")
    if re.fullmatch(r"[-+]?\d+,\d+", cleaned):
        cleaned = cleaned.replace(",", ".")
    try:
        if "/" in cleaned:
            top, bottom = cleaned.split("/", 1)
            if not (_NUMBER.fullmatch(top) and _NUMBER.fullmatch(bottom)):
                return None
            value = float(Fraction(top) / Fraction(bottom))
        elif _NUMBER.fullmatch(cleaned):
            value = float(cleaned)
        else:
            return None
    except (ValueError, ZeroDivisionError):
        return None
    if not math.isfinite(value):
        return None
    return value / 100 if percent else value
