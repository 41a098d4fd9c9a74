"""One term per concept (text/glossary.toml), enforced on every content file.

* no banned variant in any Arabic or English text of any content file (every lesson's content
  and quiz, teaching/*.toml, text/strings/*.toml, the measures' descriptions);
* on each lesson page, the first text that uses a concept with a gloss holds the gloss
  («نموذج لغوي حَكَم (LLM-as-a-judge)», «التعليمات (prompt)», «الرموز (tokens)», the Arabic
  names beside DCG, IDCG and nDCG);
* the matcher itself: Arabic clitics and short vowels do not hide a variant, and a longer word
  that merely contains one («مرتبة») is not taken for it.
"""

from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from pathlib import Path

import pytest

from tests.content_files import ROOT, arabic_texts, english_texts

GLOSSARY = ROOT / "text" / "glossary.toml"
LETTER = "\u0621-\u064a"
MARKS = re.compile("[\u064b-\u0652\u0640]")   # short vowels, shadda, sukun, tatweel


def _concepts() -> dict:
    with GLOSSARY.open("rb") as fh:
        return tomllib.load(fh)


def _bare(text: str) -> str:
    return MARKS.sub("", text)


def arabic_pattern(phrase: str) -> re.Pattern[str]:
    """Whole words, with optional و/ف, ب/ل/ك and the article (ل + ال → لل), any short vowels."""
    words = _bare(phrase).split()
    first = words[0]
    if first.startswith("ال"):
        head = rf"(?:[وف]?[بك]?ال|[وف]?لل){re.escape(first[2:])}"
    else:
        head = rf"[وف]?[بلك]?(?:ال)?{re.escape(first)}" if not first[0].isascii() \
            else re.escape(first)
    rest = "".join(rf"\s+{re.escape(w)}" for w in words[1:])
    return re.compile(rf"(?<![{LETTER}A-Za-z]){head}{rest}(?![{LETTER}A-Za-z])")


def english_pattern(phrase: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![A-Za-z]){re.escape(phrase)}(?![A-Za-z])", re.IGNORECASE)


@lru_cache(maxsize=1)
def _banned() -> list[tuple[str, str, re.Pattern[str]]]:
    """(concept, lang, pattern) for every banned variant."""
    out = []
    for name, concept in _concepts().items():
        out += [(name, "ar", arabic_pattern(v)) for v in concept.get("ar_banned", [])]
        out += [(name, "ar", re.compile(v)) for v in concept.get("ar_banned_regex", [])]
        out += [(name, "en", english_pattern(v)) for v in concept.get("en_banned", [])]
    return out


def _found(lang: str) -> list[str]:
    """Banned variants in every text of ``lang``."""
    texts = arabic_texts() if lang == "ar" else english_texts()
    found = []
    for where, text in texts:
        plain = _bare(text) if lang == "ar" else text
        for name, pattern_lang, pattern in _banned():
            if pattern_lang == lang and (m := pattern.search(plain)):
                found.append(f"{where}: «{m.group(0)}» ({name}: write "
                             f"«{_concepts()[name][lang]}»)")
    return found


def test_the_matcher():
    rank = arabic_pattern("الرتبة")
    assert rank.search("بالرتبة") and rank.search("للرتبة") and rank.search("والرتبة")
    assert not rank.search("المرتبة") and not arabic_pattern("رتبة").search("مرتبة")
    assert arabic_pattern("الرتبة").search(_bare("بالرُّتبةِ"))  # short vowels hide nothing
    assert arabic_pattern("رتبة").search("برتبة") and arabic_pattern("رتبة").search("رتبة")
    assert arabic_pattern("الكسوب").search("الكسوبَ".replace("َ", ""))
    assert arabic_pattern("اختبار t المزدوج").search("يعطي اختبار t المزدوج قيمة")
    assert english_pattern("source lesson").search("The Source lesson's")
    assert not english_pattern("rank").search("ranks")


def test_the_glossary_declares_both_languages():
    for name, concept in _concepts().items():
        assert "ar" in concept and "en" in concept, name


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_no_banned_variant_in_any_content_file(lang: str):
    assert _found(lang) == []


def _page_texts(lang: str) -> dict[str, list[tuple[str, str]]]:
    """Each page's texts (the lessons, and the tools a link can open directly: /retrieve,
    /lab, /live, /practice), in the order of its content file; its title is a name, not a use
    (the first use glossed is in the page's prose)."""
    texts = arabic_texts() if lang == "ar" else english_texts()
    pages: dict[str, list[tuple[str, str]]] = {}
    for where, text in texts:
        path, key = where.split(":", 1)
        if (path.startswith("lessons/") and Path(path).name.startswith("content.")
                and key not in ("title", "nav_title")):
            pages.setdefault(path, []).append((where, text))
    return pages


# (where, concept): a text that matches a concept's words but is not a first use to gloss.
NOT_A_USE: dict[tuple[str, str], str] = {
    ("lessons/lab/content.ar.toml:settings.typed_help", "ndcg"):
        "a list of measure names as trec_eval and ir_measures spell them; the gloss comes with "
        "the first use in prose (settings.rel_help)",
    **{(f"lessons/retrieve/content.ar.toml:{key}", "tokens"):
       "«رمز» here is a code such as VPN or HR-12 (the exact-terms question kind), not a "
       "model's token; the page glosses tokens where it speaks of them (own.dense_reads)"
       for key in ("intro.body", "kinds.exact.name", "all.reading.other_language")},
}


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_first_use_is_glossed_on_every_page(lang: str):
    missing = []
    for name, concept in _concepts().items():
        gloss = concept.get("first_use", {}).get(lang)
        uses = concept.get(f"{lang}_uses")
        if not gloss or not uses:
            continue
        for texts in _page_texts(lang).values():
            first = next(((w, t) for w, t in texts
                          if re.search(uses, t) and (w, name) not in NOT_A_USE), None)
            if first and gloss not in first[1]:
                missing.append(f"{first[0]}: the first use of {name} needs «{gloss}»")
    assert missing == []
