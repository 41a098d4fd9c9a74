"""Faithfulness checking for Arabic and English answers: is each answer sentence in the sources?

Method (lexical, offline, pure Python)::

    report = check(answer, sources, threshold=0.6)   # sources: a string or a list of strings

1. Split the answer and every source into sentences on ``. ! ? ؟ ! ؛ ۔`` and newlines. A full
   stop splits only when followed by a space or the end, so decimals (0.6, ٠٫٦) survive, and
   not after a known abbreviation (e.g., i.e., Dr., Mr., U.S., single initials).
2. Tokenise, keeping Arabic, Latin words and numbers; every token keeps its character span in
   the answer (``answer[w.start:w.end] == w.text``).
3. Normalise each token: strip diacritics and tatweel; أ إ آ ٱ → ا, ؤ → و, ئ → ي, ة → ه,
   ى → ي; Persian letters (ک ی گ …) → Arabic; both digit sets → 0-9; Latin lower-cased.
4. Light stemming: Arabic prefixes (ال وال بال كال فال لل, و ف, ب ل ك) and suffixes (ات ان ون
   ين ها هم كم نا ه ي ك …) with length guards; English plurals (days → day, policies → policy).
5. Numbers written in words or digits, in either language, become one value: واحد وعشرون =
   21 = ٢١ = twenty-one; عشرة = عشر = ten = 10.
6. Drop only the short stop-word list below (``STOP_WORDS``). It never holds a negator
   (``NEGATORS``), a number or a modal (يمكن, may, can, must).
7. Per answer sentence, ``support`` = share of its content words found in the single best
   source sentence (the ``evidence``). ``support >= threshold`` would be "supported"; any warning
   turns that into "check": ``number_not_in_source`` (a number found in no source),
   ``negation_differs`` (the sentence and its evidence disagree on being negated),
   ``name_not_in_source`` (a capitalised Latin word found in no source). Below the threshold:
   "unsupported". No content word: "not_scored", left out of ``report.score``.

Honest limits: this is word matching, not understanding.
- A true paraphrase (different words, same meaning) scores low: "unsupported" is a false alarm.
  Arabic synonyms, broken plurals (يوم/أيام) and English/Arabic across languages never match.
- A claim pieced together from two source sentences is scored against one sentence at a time,
  so it looks unsupported; and a sentence that reuses the source's words in a new, false
  relation ("leave requests carry over ten days") can still look supported.
- Negation is seen only through a list of negator words (ما is also "what", so it can raise a
  false ``negation_differs``); antonyms (allowed/forbidden) are invisible. Arabic names cannot
  be told from other words, so only Latin capitalised names are checked.
- Light stemming over- and under-strips. Production systems judge each claim with a language
  model calibrated against human labels; this checker is a teaching tool and a cheap first pass.

``crude_check`` reproduces the source lesson's crude method exactly, for teaching only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = [
    "NEGATORS", "STOP_WORDS", "CrudeRow", "Report", "Sentence", "Word", "check", "crude_check",
    "normalize", "split_sentences", "stem",
]

# ---------------------------------------------------------------- the visible word lists
def _ws(text: str) -> list[str]:
    return text.split()


# Stop-words: function words only. Never a negator, a number or a modal.
STOP_WORDS = frozenset(_ws("""
في من على الى عن مع هذا هذه ذلك تلك هنا هناك التي الذي الذين اللذان اللتان هو هي هم هن انت
انتم نحن انا ان كان كانت يكون تكون قد ثم او كل بعض عند اذا حتى لك له لها لهم لكم لنا لي به بها
بهم فيه فيها منه منها عليه عليها اليه اليها عنه عنها مثل بين ايضا اي وهو وهي ذو ذات
the a an of to in on at for by with from and or but is are was were be been being am this that
these those it its you your yours we our they their them he she his her him i me my as into
than then there here so such also do does did has have had which who whom what
""")) | frozenset(_ws("""
شكرا سؤالك لسؤالك مرحبا حسنا اهلا اتمنى يسعدني بالتوفيق
thanks thank hello hi please hope helps help glad ok okay sure great
"""))   # second line: courtesy words, so "شكرًا لسؤالك!" makes no claim
NEGATORS = frozenset(_ws("""
لا لم لن ليس ليست لست لسنا ليسوا ما غير بدون دون ولا فلا ولم ولن وليس ولست
not no never none nor without cannot neither nobody nothing
"""))
MODALS = frozenset(_ws("يمكن يجب may can must might could should shall will would"))
assert not (STOP_WORDS & (NEGATORS | MODALS))

ABBREVIATIONS = frozenset(
    _ws("e.g i.e etc vs dr mr mrs ms prof st jr sr no fig approx u.s u.k u.n a.m p.m inc ltd co")
)

# ---------------------------------------------------------------- normalisation
_DIACRITICS = re.compile("[\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed\u0640]")
_CHARMAP = str.maketrans({
    "أ": "ا", "إ": "ا", "آ": "ا", "ٱ": "ا", "ؤ": "و", "ئ": "ي", "ة": "ه", "ى": "ي",
    "ک": "ك", "ی": "ي", "ې": "ي", "ۍ": "ي", "ێ": "ي", "ە": "ه", "ہ": "ه", "ۀ": "ه", "ھ": "ه",
    "گ": "ك", "پ": "ب", "چ": "ج", "ژ": "ز", "ڤ": "ف", "ڨ": "ق",
    **{chr(0x0660 + i): str(i) for i in range(10)},
    **{chr(0x06F0 + i): str(i) for i in range(10)},
    "٫": ".", "٬": "",
})


def normalize(text: str) -> str:
    """Strip diacritics and tatweel, unify letter variants and digits, lower-case Latin."""
    return _DIACRITICS.sub("", text).translate(_CHARMAP).lower()


_AR_PREFIXES_AL = ("وبال", "وكال", "فبال", "ولل", "فلل", "وال", "فال", "بال", "كال", "لل", "ال")
_AR_SUFFIXES = ("كما", "هما", "تما", "ات", "ان", "ون", "ين", "يه", "ها", "هم", "هن", "كم", "كن",
                "نا", "تم", "وا", "ه", "ي", "ك", "ا")


_STOP = frozenset(normalize(w) for w in STOP_WORDS)
_NEG = frozenset(normalize(w) for w in NEGATORS)
assert not (_STOP & (_NEG | {normalize(w) for w in MODALS}))


def _strip_prefixes(w: str) -> str:
    for p in _AR_PREFIXES_AL:
        if w.startswith(p) and len(w) - len(p) >= 2:
            return w[len(p):]
    if w[:1] in ("و", "ف") and len(w) >= 4:
        w = w[1:]
        for p in ("بال", "كال", "لل", "ال"):
            if w.startswith(p) and len(w) - len(p) >= 2:
                return w[len(p):]
    if w[:1] in ("ب", "ل", "ك") and len(w) >= 5:
        w = w[1:]
    return w


def stem(word: str) -> str:
    """Light stem of one normalised token (Arabic affixes, English plurals)."""
    if not word:
        return word
    if "a" <= word[0] <= "z":
        w = word[:-2] if word.endswith(("'s", "’s")) else word
        if w.endswith("ies") and len(w) > 4:
            return w[:-3] + "y"
        if w.endswith(("sses", "shes", "ches", "xes")):
            return w[:-2]
        if w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) > 3:
            return w[:-1]
        return w
    if not ("\u0621" <= word[0] <= "\u06ff"):
        return word
    w = _strip_prefixes(word)
    for _ in range(2):
        for s in _AR_SUFFIXES:
            if w.endswith(s) and len(w) - len(s) >= 3:
                w = w[: -len(s)]
                break
        else:
            break
    return w


# ---------------------------------------------------------------- numbers
_AR_UNITS = {
    "واحد": 1, "واحده": 1, "احد": 1, "اثنان": 2, "اثنين": 2, "اثنتان": 2, "اثنتين": 2,
    "اثنا": 2, "اثني": 2, "اثنتا": 2, "اثنتي": 2, "ثلاث": 3, "ثلاثه": 3, "اربع": 4, "اربعه": 4,
    "خمس": 5, "خمسه": 5, "ست": 6, "سته": 6, "سبع": 7, "سبعه": 7, "ثمان": 8, "ثماني": 8,
    "ثمانيه": 8, "تسع": 9, "تسعه": 9, "عشر": 10, "عشره": 10,
}
_AR_TENS = {"عشرون": 20, "عشرين": 20, "ثلاثون": 30, "ثلاثين": 30, "اربعون": 40, "اربعين": 40,
            "خمسون": 50, "خمسين": 50, "ستون": 60, "ستين": 60, "سبعون": 70, "سبعين": 70,
            "ثمانون": 80, "ثمانين": 80, "تسعون": 90, "تسعين": 90}
_AR_BIG = {"مائه": 100, "مئه": 100, "مائتان": 200, "مئتان": 200, "مائتين": 200, "مئتين": 200,
           "الف": 1000, "الفان": 2000, "الفين": 2000, "الاف": 1000, "مليون": 10**6}
for _name, _v in (("ثلاث", 3), ("اربع", 4), ("خمس", 5), ("ست", 6), ("سبع", 7), ("ثمان", 8),
                  ("تسع", 9)):
    _AR_BIG[_name + "مائه"] = _AR_BIG[_name + "مئه"] = _v * 100
for _name, _v in (("ثالث", 3), ("رابع", 4), ("خامس", 5), ("سادس", 6), ("سابع", 7),
                  ("ثامن", 8), ("تاسع", 9), ("عاشر", 10)):   # ordinals: الساعة الخامسة = 5
    _AR_UNITS[_name] = _AR_UNITS[_name + "ه"] = _v
_EN = {w: i for i, w in enumerate(_ws(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"))}
_EN.update({w: 10 * i for i, w in enumerate(
    _ws("twenty thirty forty fifty sixty seventy eighty ninety"), start=2)})
_EN.update({"hundred": 100, "thousand": 1000, "million": 10**6})
_NUMBER_WORDS = {**_AR_UNITS, **_AR_TENS, **_AR_BIG, **_EN}
_MULTIPLIERS = {100, 1000, 10**6}
_DIGITS = re.compile(r"^\d+(?:[.,]\d+)*$")


def _number_word(norm: str) -> int | None:
    if norm in _NUMBER_WORDS:
        return _NUMBER_WORDS[norm]
    if norm[:1] in ("و", "ف") and norm[1:] in _NUMBER_WORDS:
        return _NUMBER_WORDS[norm[1:]]
    for p in ("وال", "ال"):
        if norm.startswith(p) and norm[len(p):] in _NUMBER_WORDS:
            return _NUMBER_WORDS[norm[len(p):]]
    return None


def _digits_value(norm: str) -> float | None:
    if not _DIGITS.match(norm):
        return None
    parts = norm.replace(",", ".").split(".") if "," in norm else norm.split(".")
    if "," in norm and all(len(p) == 3 for p in norm.split(",")[1:]):   # 1,000 = thousands
        return float(norm.replace(",", ""))
    try:
        return float(".".join([parts[0], "".join(parts[1:])]) if len(parts) > 1 else parts[0])
    except ValueError:
        return None


def _continues(last: int, v: int, prev_token: str, norm: str) -> bool:
    """Does number word ``v`` continue the number phrase ending in ``last``?"""
    arabic = "\u0621" <= norm[:1] <= "\u06ff"
    prev_arabic = "\u0621" <= prev_token[:1] <= "\u06ff"
    if v in _MULTIPLIERS:
        return last < v
    if last in _MULTIPLIERS:
        return v < last
    if arabic and prev_arabic:
        if norm[:1] == "و":                       # واحد وعشرون, مائة وخمسون
            return last < 10 and 20 <= v <= 90
        return last < 10 and v == 10              # ثلاثة عشر
    if not arabic and not prev_arabic:            # twenty-one
        return 20 <= last <= 90 and last % 10 == 0 and 0 < v < 10
    return False


def _combine(values: list[int]) -> float:
    total = current = 0
    for v in values:
        if v in _MULTIPLIERS:
            if v == 100 and 0 < current < 100:
                current *= 100
            else:
                total += (current or 1) * v
                current = 0
        else:
            current += v
    return float(total + current)


def _num_key(value: float) -> str:
    return "#" + (str(int(value)) if value == int(value) else repr(value))


# ---------------------------------------------------------------- tokens and sentences
_TOKEN = re.compile(
    r"[0-9\u0660-\u0669\u06f0-\u06f9]+(?:[.,\u066b\u066c][0-9\u0660-\u0669\u06f0-\u06f9]+)*"
    r"|[A-Za-z\u00c0-\u024f]+(?:['’][A-Za-z]+)?"
    r"|[\u0621-\u065f\u0670-\u06d3\u06d5-\u06ed\u06fa-\u06ff\u0640]+"
)


@dataclass(frozen=True)
class Word:
    """A content unit of a sentence: a word or a whole number phrase, with its span."""

    text: str
    start: int
    end: int
    key: str          # what is compared: a stem, or "#21" for a number
    kind: str         # "word" | "number" | "negator"


def _units(text: str, offset: int = 0) -> list[Word]:
    """Content units of a sentence (stop-words dropped, number phrases merged)."""
    raw = [(m.group(), m.start() + offset, m.end() + offset) for m in _TOKEN.finditer(text)]
    units: list[Word] = []
    i = 0
    while i < len(raw):
        tok, s, e = raw[i]
        norm = normalize(tok)
        dv = _digits_value(norm)
        if dv is not None:
            units.append(Word(tok, s, e, _num_key(dv), "number"))
            i += 1
            continue
        nv = _number_word(norm)
        if nv is not None:
            values, j, end = [nv], i + 1, e
            while j < len(raw):
                nxt = normalize(raw[j][0])
                if nxt == "and" and j + 1 < len(raw) and _number_word(normalize(raw[j + 1][0])):
                    j += 1
                    continue
                v = _number_word(nxt)
                if v is None or not _continues(values[-1], v, raw[j - 1][0], nxt):
                    break
                values.append(v)
                end = raw[j][2]
                j += 1
            span_text = text[s - offset:end - offset]
            units.append(Word(span_text, s, end, _num_key(_combine(values)), "number"))
            i = j
            continue
        i += 1
        if norm in _NEG or norm.endswith(("n't", "n’t")):
            base = {"can't": "can", "won't": "will", "can’t": "can", "won’t": "will"}.get(norm)
            units.append(Word(tok, s, e, "¬" + (base or norm), "negator"))
            continue
        bare = norm[1:] if norm[:1] in ("و", "ف") and len(norm) > 2 else norm
        if (norm in _STOP or bare in _STOP or _strip_prefixes(norm) in _STOP
                or (len(norm) == 1 and norm.isascii())):
            continue
        units.append(Word(tok, s, e, stem(norm), "word"))
    return units


_TERMINATORS = re.compile(r"[.!?؟!؛۔…\n]+")


def split_sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) spans of the sentences of ``text``, stripped, terminators included."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _TERMINATORS.finditer(text):
        if m.group() == ".":
            nxt = text[m.end():m.end() + 1]
            if nxt and not nxt.isspace() and nxt not in "\"')]»”’":
                continue            # 0.6, e.g, a URL: no space after the stop
            before = re.search(r"[A-Za-z.]+$", text[start:m.start()])
            if before:
                word = before.group().lower()
                if word in ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
                    continue
        spans.append((start, m.end()))
        start = m.end()
    spans.append((start, len(text)))
    out = []
    for s, e in spans:
        seg = text[s:e]
        ls = len(seg) - len(seg.lstrip())
        rs = len(seg.rstrip())
        if rs > ls:
            out.append((s + ls, s + rs))
    return out


# ---------------------------------------------------------------- the checker
@dataclass
class Sentence:
    text: str
    start: int
    end: int
    support: float | None
    verdict: str                       # supported | unsupported | check | not_scored
    matched: list[Word] = field(default_factory=list)
    unmatched: list[Word] = field(default_factory=list)
    evidence: str | None = None        # the best supporting source sentence
    warnings: list[str] = field(default_factory=list)


@dataclass
class Report:
    sentences: list[Sentence]
    score: float | None                # supported / scored; None when nothing was scored
    threshold: float


@dataclass
class _SourceSentence:
    text: str
    keys: frozenset[str]
    negated: bool


def _prepare(sources: str | list[str]):
    if isinstance(sources, str):
        sources = [sources]
    sents: list[_SourceSentence] = []
    all_keys: set[str] = set()
    for src in sources:
        for s, e in split_sentences(src):
            units = _units(src[s:e])
            keys = frozenset(u.key for u in units)
            all_keys |= keys
            sents.append(_SourceSentence(src[s:e], keys, any(u.kind == "negator" for u in units)))
    return sents, all_keys


def check(answer: str, sources: str | list[str], threshold: float = 0.6) -> Report:
    """Check each sentence of ``answer`` against ``sources`` (see the module docstring)."""
    src_sents, all_keys = _prepare(sources)
    out: list[Sentence] = []
    for s, e in split_sentences(answer):
        units = _units(answer[s:e], offset=s)
        if not units:
            out.append(Sentence(answer[s:e], s, e, None, "not_scored"))
            continue
        best, best_support = None, -1.0
        for ss in src_sents:
            support = sum(u.key in ss.keys for u in units) / len(units)
            if support > best_support:
                best, best_support = ss, support
        keys = best.keys if best else frozenset()
        matched = [u for u in units if u.key in keys]
        unmatched = [u for u in units if u.key not in keys]
        support = len(matched) / len(units)
        warnings: list[str] = []
        if any(u.kind == "number" and u.key not in all_keys for u in units):
            warnings.append("number_not_in_source")
        negated = any(u.kind == "negator" for u in units)
        if best is not None and best_support > 0 and negated != best.negated:
            warnings.append("negation_differs")
        first = units[0].start == s + (len(answer[s:e]) - len(answer[s:e].lstrip()))
        for k, u in enumerate(units):
            if (u.kind == "word" and u.text[:1].isupper() and u.text[:1].isascii()
                    and u.key not in all_keys and not (k == 0 and first and not u.text.isupper())):
                warnings.append("name_not_in_source")
                break
        verdict = ("check" if warnings else "supported") if support >= threshold else "unsupported"
        out.append(Sentence(answer[s:e], s, e, support, verdict, matched, unmatched,
                            best.text if best and matched else None, warnings))
    scored = [x for x in out if x.verdict != "not_scored"]
    score = sum(x.verdict == "supported" for x in scored) / len(scored) if scored else None
    return Report(out, score, threshold)


# ---------------------------------------------------------------- the lesson's crude check
@dataclass
class CrudeRow:
    sentence: str
    support: float | None   # None where the original code divides by zero
    verdict: str            # "supported" | "unsupported" | "error: ZeroDivisionError"


def crude_check(answer: str, source: str, threshold: float = 0.6) -> list[CrudeRow]:
    """The source lesson's crude check, reproduced exactly — for teaching only.

    Words are runs of ``[ء-ي]+`` (so diacritics split a word and Latin is ignored); sentences
    are ``answer.split(".")``; support is the share of a sentence's distinct words found in the
    source. Where the original would raise ZeroDivisionError (a sentence with no Arabic word),
    the row says so instead of crashing the page.
    """
    def words(t: str) -> set[str]:
        return set(re.findall(r"[ء-ي]+", t))

    src_words = words(source)
    rows = []
    for sentence in filter(None, (s.strip() for s in answer.split("."))):
        w = words(sentence)
        if not w:
            rows.append(CrudeRow(sentence, None, "error: ZeroDivisionError"))
            continue
        support = len(w & src_words) / len(w)
        rows.append(CrudeRow(sentence, support, "supported" if support >= threshold
                             else "unsupported"))
    return rows
