"""Counted nouns agree with their numbers (text/plural.py, text/plurals.toml, CLDR via Babel).

* every noun of the forms table renders for 0 to 120 with the form of the category Babel gives;
* the categories are CLDR's (a few known values, so a table keyed wrongly cannot pass);
* ``fill`` turns ``{{n|noun}}`` into the number and its noun, in both languages;
* every content file: each ``{{x|noun}}`` names a noun of the table, no counted noun still
  follows a bare ``{{x}}``, and a number written in the text agrees with the noun after it.
"""

from __future__ import annotations

import re

import pytest

from tests.content_files import arabic_texts, english_texts
from text import plural
from text.i18n import fill

NOUNS = {lang: sorted(table) for lang, table in plural.forms().items()}
AR_NOUNS, EN_NOUNS = NOUNS["ar"], NOUNS["en"]


def test_the_categories_are_cldr():
    """Babel's Arabic categories (a table keyed to the wrong category would fail below)."""
    expected = {0: "zero", 1: "one", 2: "two", 3: "few", 10: "few", 11: "many", 99: "many",
                100: "other", 101: "other", 102: "other", 103: "few", 111: "many", 120: "many"}
    assert {n: plural.category(n, "ar") for n in expected} == expected
    assert [plural.category(n, "en") for n in (0, 1, 2, 21)] == ["other", "one", "other", "other"]


@pytest.mark.parametrize("noun", AR_NOUNS)
def test_every_arabic_noun_for_0_to_120(noun: str):
    table = plural.forms()["ar"][noun]
    assert set(table) >= set(plural.CATEGORIES), f"{noun}: a category has no form"
    for case in (None, *plural.CASES):
        for n in range(121):
            category = plural.category(n, "ar")
            shown = plural.counted(n, noun, case)
            form = {**table, **table.get(case or "", {})}[category]
            assert shown == form.replace("{n}", str(n))
            # one and two are said in words (سؤال واحد، سؤالان); every other form shows the digits
            assert (str(n) in shown) == (category not in ("one", "two")), (noun, n, shown)
    # the grammar of each range, on the head noun: 3-10 plural, 11-99 accusative, 100 genitive
    few, many, other = (plural.counted(n, noun).split(" ", 2)[1] for n in (3, 11, 100))
    assert many.endswith(("ًا", "ً")), f"{noun}: 11 takes the accusative singular, not {many}"
    assert other != many and other != few, f"{noun}: 100 takes the genitive singular"


@pytest.mark.parametrize("noun", EN_NOUNS)
def test_every_english_noun_for_0_to_120(noun: str):
    for n in range(121):
        shown = plural.counted(n, noun)
        assert shown.startswith(f"{n} ")
        assert (shown == f"{n} {noun}") == (n == 1)


@pytest.mark.parametrize(("template", "n", "shown"), [
    ("{{n|سؤال}}", 3, "3 أسئلة"), ("{{n|سؤال}}", 11, "11 سؤالًا"), ("{{n|سؤال}}", 100, "100 سؤال"),
    ("{{n|سؤال}}", 1, "سؤال واحد"), ("من {{n|سؤال|مجرور}}", 2, "من سؤالين"),
    ("بقيت {{n|خانة}}", 2, "بقيت خانتان"), ("{{ n | question }}", 1, "1 question"),
    ("{{n|question}}", 5, "5 questions"),
])
def test_fill_counts_nouns(template: str, n: int, shown: str):
    assert fill(template, {"n": n}) == shown


def test_fill_refuses_to_count_a_word_and_an_unknown_noun():
    with pytest.raises(TypeError):
        fill("{{n|سؤال}}", {"n": "three"})
    with pytest.raises(KeyError):
        fill("{{n|nonsense}}", {"n": 3})
    with pytest.raises(KeyError):
        fill("{{n|سؤال|nominative}}", {"n": 3})


# --- the content files -------------------------------------------------------------------------

COUNTED = re.compile(r"\{\{\s*\w+\s*\|\s*([^{}|]+?)\s*(?:\|\s*([^{}|]+?)\s*)?\}\}")
BARE = re.compile(r"\{\{\s*\w+\s*\}\}")
TEXTS = [*arabic_texts(), *english_texts()]


def _forms_after_a_number(lang: str) -> dict[str, str]:
    """Each noun phrase that may follow a written number -> its noun (from the table)."""
    out = {}
    for noun, table in plural.forms()[lang].items():
        for category in ("zero", "few", "many", "other"):
            if category in table:
                out[table[category].replace("{n}", "").strip()] = noun
    return out


def test_every_counted_noun_is_in_the_table():
    unknown = [f"{where}: {m.group(1)}" for where, text in TEXTS
               for m in COUNTED.finditer(text) if (m.group(1) not in plural.forms()["ar"]
               and m.group(1) not in plural.forms()["en"])
               or (m.group(2) and m.group(2) not in plural.CASES)]
    assert unknown == []


def test_every_noun_of_the_table_is_used():
    used = {m.group(1) for _, text in TEXTS for m in COUNTED.finditer(text)}
    assert sorted(set(AR_NOUNS + EN_NOUNS) - used) == []


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_no_counted_noun_after_a_bare_placeholder(lang: str):
    """``{{n}} أسئلة`` would be wrong for 11 and up: it must be ``{{n|سؤال}}``."""
    phrases = sorted(_forms_after_a_number(lang), key=len, reverse=True)
    after = re.compile(r"\{\{\s*\w+\s*\}\}[ \u00a0\u200f]+(" + "|".join(map(re.escape, phrases))
                       + r")(?![\w\u064b-\u0652])")
    texts = arabic_texts() if lang == "ar" else english_texts()
    found = [f"{where}: …{text[m.start():m.end() + 5]}…" for where, text in texts
             for m in after.finditer(text)]
    assert found == []


def _bare(text: str) -> str:
    """Without short vowels and tanween: «خانةً» and «خانة» are both right after 11."""
    return re.sub("[\u064b-\u0652]", "", text)


def test_a_written_number_agrees_with_its_noun():
    """«11 أسئلة» and «5 سؤالًا» are wrong wherever they are written by hand. (After «أول» the
    number is part of "the top n" and the noun is what follows it: «غاب عن أول 3 مستند ذهبي».)"""
    phrases = _forms_after_a_number("ar")
    pattern = re.compile(r"(?<![\w.,/\-−])(?<!أول )(\d+)[ \u00a0]+("
                         + "|".join(map(re.escape, sorted(phrases, key=len, reverse=True)))
                         + r")(?![\w\u064b-\u0652])")
    wrong = []
    for where, text in arabic_texts():
        for m in pattern.finditer(text):
            n, phrase = int(m.group(1)), m.group(2)
            want = plural.counted(n, phrases[phrase])
            if _bare(want) != _bare(f"{n} {phrase}") and n > 2:
                wrong.append(f"{where}: «{m.group(0)}» should be «{want}»")
    assert wrong == []


