"""Counted nouns: a number and its noun in the form the language's grammar asks for.

Arabic agrees a noun with the number before it in six ways (CLDR's plural categories, as
Babel computes them: ``Locale("ar").plural_form``): «سؤال واحد»، «سؤالان»، «3 أسئلة»،
«11 سؤالًا»، «100 سؤال». English has two (``1 question``, ``2 questions``). The forms of each
noun are written once, in ``text/plurals.toml``; the rule that picks a form is Babel's (CLDR),
never one written here.

In content templates the syntax is ``{{n|سؤال}}`` (or ``{{n|question}}``): :func:`text.i18n.fill`
puts the number ``n`` and its noun in the right form. A third part names a grammatical case when
the form depends on it (the dual and «واحد»): ``{{n|سؤال|مجرور}}`` after a preposition
(«من سؤالين»), ``{{n|سؤال|منصوب}}`` as an object («تجاوزتَ سؤالين»); the default is nominative.
Pure Python, no Streamlit.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from babel import Locale

__all__ = ["CASES", "CATEGORIES", "FORMS_PATH", "category", "counted", "forms", "language_of"]

FORMS_PATH = Path(__file__).resolve().with_name("plurals.toml")
CATEGORIES: tuple[str, ...] = ("zero", "one", "two", "few", "many", "other")
# nominative (the default), accusative, genitive
CASES: tuple[str, ...] = ("مرفوع", "منصوب", "مجرور")


@lru_cache(maxsize=4)
def _rule(lang: str):
    return Locale.parse(lang).plural_form


def category(n: float, lang: str) -> str:
    """CLDR's plural category of ``n`` in ``lang`` (Babel): ``category(11, "ar") == "many"``."""
    return _rule(lang)(n)


@lru_cache(maxsize=2)
def _load(_mtime_ns: int) -> dict[str, dict[str, Any]]:
    with FORMS_PATH.open("rb") as fh:
        return tomllib.load(fh)


def forms() -> dict[str, dict[str, Any]]:
    """``{lang: {noun: {category: form, case: {category: form}}}}`` from ``plurals.toml``."""
    return _load(FORMS_PATH.stat().st_mtime_ns)


def language_of(noun: str) -> str:
    """The language whose table holds ``noun`` (``KeyError`` if none does)."""
    for lang, table in forms().items():
        if noun in table:
            return lang
    raise KeyError(f"no plural forms for the noun {noun!r} in {FORMS_PATH.name}")


def counted(n: float, noun: str, case: str | None = None, *, number: str | None = None) -> str:
    """``n`` with ``noun`` in the form its category asks for: ``counted(3, "سؤال")`` →
    ``"3 أسئلة"``; ``counted(2, "سؤال", "مجرور")`` → ``"سؤالين"``; ``counted(1, "question")`` →
    ``"1 question"``. ``number`` is how ``n`` is written (default ``str(n)``)."""
    lang = language_of(noun)
    table: Mapping[str, Any] = forms()[lang][noun]
    if case not in (None, "", CASES[0]):
        if case not in CASES:
            raise KeyError(f"unknown grammatical case {case!r} (one of {', '.join(CASES)})")
        table = {**table, **table.get(case, {})}
    form = table[category(n, lang)]
    return form.replace("{n}", str(n) if number is None else number)
