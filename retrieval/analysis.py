"""Text analysis for BM25: normalise, tokenise, drop function words, stem (Arabic and English).

Per token, by its script, so one analyser serves an Arabic, an English or a mixed corpus:

1. ``metrics.faithfulness.normalize`` (the faithfulness checker's normaliser, reused): strip
   diacritics and tatweel; أ إ آ ٱ → ا, ؤ → و, ئ → ي, ى → ي, ة → ه; both digit sets → 0-9;
   Latin lower-cased.
2. Tokens are runs of letters and digits.
3. Function words (``metrics.faithfulness.STOP_WORDS``: never a negator, a number or a modal)
   are dropped.
4. Arabic tokens: a word-final ه becomes ة again, then Snowball's Arabic stemmer (PyStemmer).
   Why ه → ة: normalising ة to ه (step 1) hides the ending from Snowball, which strips ة but not
   ه (السنوية → سنو, but السنويه → سنويه); mapping every final ه to ة makes "الاجازه" and
   "الإجازة" one stem, and a final pronoun ه (كتابه) is stripped with it. Latin tokens: Snowball
   English (Porter 2). Digits stay as they are ("30").

Known limits of Snowball Arabic that the lessons can show: sound feminine plurals without the
article keep part of the suffix (إجازات → اجازا, but الإجازات → اجاز), a leading س or ت can be
taken for a verb prefix (سيارات → يارا), broken plurals never meet their singular (أيام/يوم).
"""

from __future__ import annotations

import re
import threading

import Stemmer

from metrics.faithfulness import STOP_WORDS, normalize

__all__ = ["script_of", "tokens"]

_TOKEN = re.compile(r"[^\W_]+")
_ARABIC = re.compile("[\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufeff]")
_LATIN = re.compile("[A-Za-z\u00c0-\u024f]")
_FINAL_HA = re.compile("ه$")
_STOP = frozenset(normalize(word) for word in STOP_WORDS)

# PyStemmer's Stemmer objects must not be shared between threads (Streamlit runs each session
# in its own thread): one pair per thread.
_local = threading.local()


def _stemmers() -> tuple[Stemmer.Stemmer, Stemmer.Stemmer]:
    pair = getattr(_local, "stemmers", None)
    if pair is None:
        pair = _local.stemmers = (Stemmer.Stemmer("arabic"), Stemmer.Stemmer("english"))
    return pair


def tokens(text: str) -> list[str]:
    """The BM25 terms of ``text``, in order (repeats kept: BM25 counts them)."""
    arabic, english = _stemmers()
    out: list[str] = []
    for token in _TOKEN.findall(normalize(text)):
        if token in _STOP:
            continue
        if _ARABIC.search(token):
            out.append(arabic.stemWord(_FINAL_HA.sub("ة", token)))
        elif _LATIN.search(token):
            out.append(english.stemWord(token))
        else:
            out.append(token)
    return out


def script_of(text: str) -> str | None:
    """"ar", "en" or "mixed" by the letters of ``text`` (a minority under 20 % is ignored); None
    when it has no letters."""
    arabic = len(_ARABIC.findall(text))
    latin = len(_LATIN.findall(text))
    if not arabic + latin:
        return None
    share = arabic / (arabic + latin)
    return "ar" if share >= 0.8 else "en" if share <= 0.2 else "mixed"
