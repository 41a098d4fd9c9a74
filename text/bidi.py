"""Bidirectional text, digits and escaping: pure functions, no Streamlit.

Why this exists. Inside an Arabic (right-to-left) paragraph the Unicode bidi algorithm
reorders neutral characters (spaces, ``/ = ( ) . ,``) around numbers and Latin words, so
``1/log2(3)`` shows as ``log2(3)/1`` and ``recall@3 = 1 / 2 = 0.5`` falls apart. The fix
the W3C recommends is to *isolate* each opposite-direction run: wrap it in
LEFT-TO-RIGHT ISOLATE (U+2066) … POP DIRECTIONAL ISOLATE (U+2069). An isolate is laid
out as one unit in its own direction and never reorders what is around it. (The
popular Streamlit RTL snippets use CSS ``unicode-bidi: bidi-override`` instead, which
reverses every Latin word and number: never use it.)

Main entry points

* :func:`isolate_latin` – for Arabic Markdown: wrap each run of Latin letters, digits
  and math (``recall@3 = 1 / 2 = 0.5``, ``1/log2(3)``, ``{d2, d4}``) in an LTR isolate.
  Code spans, ``$math$``, HTML tags, link targets, list markers and fenced code are
  left alone (CSS keeps code and math LTR).
* :func:`isolate_arabic` – the mirror image for English prose that quotes Arabic.
* :func:`localize_digits` – with ``digits="arab"``, numbers standing in prose become
  Arabic-Indic (``0.5`` → ``٠٫٥``); a run that contains Latin letters (a formula such
  as ``recall@3 = 1/2``, an id such as ``d7``) keeps Western digits so it stays
  consistent. :func:`to_arabic_digits` converts a bare number string.
* :func:`ltr` / :func:`rtl` – wrap one short plain-text fragment (a widget label, a
  chart title) in an isolate.

Escaping user input — the rule: **every string a user can type (text inputs, uploaded
files, URL parameters, ids in a shared link) passes through** :func:`escape_html`
**before it goes into HTML, or** :func:`escape_markdown` **before it goes into
Markdown** (``st.markdown``, widget labels, :func:`text.i18n.fill`, which
escapes string values for you). :func:`user_text_html` does both jobs for one value
and adds ``dir="auto"`` so typed Arabic or English shows in its own direction.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

__all__ = [
    "FSI",
    "LRI",
    "PDI",
    "RLI",
    "escape_html",
    "escape_markdown",
    "isolate",
    "isolate_arabic",
    "isolate_latin",
    "localize_digits",
    "ltr",
    "rtl",
    "strip_bidi_controls",
    "to_arabic_digits",
    "user_text_html",
]

LRI = "\u2066"  # LEFT-TO-RIGHT ISOLATE
RLI = "\u2067"  # RIGHT-TO-LEFT ISOLATE
FSI = "\u2068"  # FIRST STRONG ISOLATE
PDI = "\u2069"  # POP DIRECTIONAL ISOLATE

# Bidi controls a user could paste to scramble what others see (Trojan-Source style).
_BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")

# The digits of the two Arabic numbering systems, 0 to 9: the one place they are written.
ARABIC_INDIC_DIGITS = "٠١٢٣٤٥٦٧٨٩"           # Arabic (CLDR "arab")
EASTERN_ARABIC_INDIC_DIGITS = "۰۱۲۳۴۵۶۷۸۹"   # Persian and Urdu keyboards (CLDR "arabext")
_ARABIC_INDIC = str.maketrans("0123456789", ARABIC_INDIC_DIGITS)
_ARABIC_DECIMAL = "\u066b"  # ARABIC DECIMAL SEPARATOR ٫
_ARABIC_THOUSANDS = "\u066c"  # ARABIC THOUSANDS SEPARATOR ٬
# a comma with one to three digits before it and groups of exactly three after: 5,000 and
# 100,000, not a list such as 1,2,3 or 10,20
_THOUSANDS_COMMA = re.compile(r"(?<![\d,])(\d{1,3}(?:,\d{3})+)(?![\d,])")

# Protected segments are swapped for private-use placeholders while runs are found.
# "Atoms" (inline code, inline math) may sit inside a Latin run; "walls" (HTML tags,
# link targets, list markers) stop a run.
_ATOM = "\ue000"
_WALL = "\ue001"
_SEG = re.compile(
    r"(?P<atom>\u2068[^\u2069\n]*\u2069|`+[^`\n]*?`+|\$\$[^$]+?\$\$|\$[^$\n]+?\$|&[A-Za-z0-9#]+;|\\[!-/:-@\[-`{-~])"
    r"|(?P<wall>\]\([^)\n]*\)|<[A-Za-z/!][^>\n]*>)"
)
_LINE_PREFIX = re.compile(
    r"^(?P<p>[ \t]*(?:(?:>[ \t]?)+)?(?:#{1,6}[ \t]|[-*+][ \t]|\d{1,9}[.)][ \t])?)"
)
_FENCE = re.compile(r"^[ \t]*(```|~~~)")

_L = r"A-Za-z0-9\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"  # Latin letters, accents, digits (not × ÷)
_A = _ATOM
_RUN_START = rf"(?:[{_L}{_A}]|[(\{{√∑](?=[ ]?[{_L}{_A}])|[-−+](?=[0-9]))"
# A colon or semicolon followed by a space is prose punctuation ("R: recall@3 = 1/2"), not part of
# a formula: it ends the run, so a label and the value after it keep their right-to-left order.
_RUN_INNER = rf"(?:[{_L}{_A} @._/=+\-−×÷·⋅≈≤≥≠<>%^'’,()\{{\}}√∑*!#&~?…]|[:;](?!\s))"
_RUN_END = rf"[{_L}{_A})\}}%'’]"  # never "*": a closing ** must stay outside
_LATIN_RUN = re.compile(rf"{_RUN_START}(?:{_RUN_INNER}*{_RUN_END})?")
_LATIN_LETTER = re.compile(r"[A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f]")

_AR = r"\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufeff"
_ARABIC_RUN = re.compile(rf"[{_AR}](?:[{_AR}\u064b-\u065f ،؛؟\-]*[{_AR}])?")

_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def escape_html(text: object) -> str:
    """Escape a value for HTML text or a quoted attribute (``& < > " '``)."""
    return html.escape(str(text), quote=True)


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=^])")


def escape_markdown(text: object) -> str:
    """Escape a value so Markdown shows it literally: no links, emphasis, HTML or math.

    Backslash-escapes Markdown's punctuation, turns ``<``/``>``/``&`` into entities (so
    even ``unsafe_allow_html`` output cannot contain a tag made of user text) and
    removes bidi control characters. Newlines become spaces (a typed value is inline).
    """
    text = strip_bidi_controls(str(text)).replace("\r", " ").replace("\n", " ")
    text = text.replace("&", "&amp;")
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return text.replace("\\<", "&lt;").replace("\\>", "&gt;")


def user_text_html(text: object, *, tag: str = "span") -> str:
    """Typed text as safe inline HTML in its own direction: ``<span dir="auto">…</span>``."""
    if tag not in {"span", "bdi", "div", "p"}:
        raise ValueError(f"unsupported tag {tag!r}")
    return f'<{tag} dir="auto">{escape_html(strip_bidi_controls(str(text)))}</{tag}>'


def strip_bidi_controls(text: str) -> str:
    """Remove explicit bidi controls (embeddings, overrides, isolates, marks)."""
    return _BIDI_CONTROLS.sub("", text)


def ltr(text: str) -> str:
    """Wrap plain text in an LTR isolate (for labels and titles, not Markdown blocks)."""
    return f"{LRI}{text}{PDI}" if text else text


def rtl(text: str) -> str:
    """Wrap plain text in an RTL isolate."""
    return f"{RLI}{text}{PDI}" if text else text


def to_arabic_digits(text: str) -> str:
    """``"0.5"`` → ``"٠٫٥"``: Western digits to Arabic-Indic, decimal point to ``٫``, and a
    thousands comma to ``٬`` (``"5,000"`` → ``"٥٬٠٠٠"``; a Latin comma among Arabic-Indic
    digits is wrong)."""
    text = _THOUSANDS_COMMA.sub(lambda m: m.group(1).replace(",", _ARABIC_THOUSANDS), text)
    return re.sub(r"(?<=\d)\.(?=\d)", _ARABIC_DECIMAL, text).translate(_ARABIC_INDIC)


def _protect(line: str) -> tuple[str, list[str]]:
    saved: list[str] = []

    def keep(match: re.Match[str]) -> str:
        saved.append(match.group(0))
        return _ATOM if match.lastgroup == "atom" else _WALL

    return _SEG.sub(keep, line), saved


def _restore(line: str, saved: list[str]) -> str:
    it = iter(saved)
    return re.sub(f"[{_ATOM}{_WALL}]", lambda _m: next(it), line)


def _map_lines(text: str, fn: Callable[[str], str]) -> str:
    """Apply ``fn`` to the body of each Markdown line outside fenced code blocks."""
    out: list[str] = []
    fenced = False
    for line in text.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
            out.append(line)
            continue
        if fenced:
            out.append(line)
            continue
        prefix = _LINE_PREFIX.match(line).group("p")  # type: ignore[union-attr]
        body, saved = _protect(line[len(prefix) :])
        out.append(prefix + _restore(fn(body), saved))
    return "\n".join(out)


def isolate_latin(text: str, *, digits: str = "latn") -> str:
    """Wrap each Latin/number/formula run of Arabic Markdown in an LTR isolate.

    ``digits="arab"`` also turns numbers that stand alone (a run with no Latin letter
    and no code) into Arabic-Indic digits. Idempotent: text that already holds isolates
    is returned unchanged.
    """
    if not text or LRI in text:
        return text

    def wrap(match: re.Match[str]) -> str:
        run, tail = _balance(match.group(0))
        head = ""
        while run and run[0] in "({" and run.count(run[0]) > run.count(_CLOSE[run[0]]):
            head, run = head + run[0], run[1:]
        if not run:
            return head + tail
        if digits == "arab" and _ATOM not in run and not _LATIN_LETTER.search(run):
            run = to_arabic_digits(run)
        return f"{head}{LRI}{run}{PDI}{tail}"

    return _map_lines(text, lambda body: _LATIN_RUN.sub(wrap, body))


_CLOSE = {"(": ")", "{": "}"}


def _balance(run: str) -> tuple[str, str]:
    """Move closing brackets that close nothing inside the run out of it: ``4)`` → ``4``, ``)``."""
    tail = ""
    while (
        run and run[-1] in ")}" and run.count(run[-1]) > run.count("(" if run[-1] == ")" else "{")
    ):
        body = run[:-1].rstrip()
        run, tail = body, run[len(body) :] + tail
    return run, tail


def isolate_arabic(text: str) -> str:
    """Wrap each Arabic run of English Markdown in an RTL isolate (idempotent)."""
    if not text or RLI in text:
        return text
    return _map_lines(text, lambda body: _ARABIC_RUN.sub(lambda m: f"{RLI}{m.group(0)}{PDI}", body))


def isolate(text: str, lang: str, *, digits: str = "latn") -> str:
    """:func:`isolate_latin` for Arabic, :func:`isolate_arabic` for any other language."""
    return isolate_latin(text, digits=digits) if lang == "ar" else isolate_arabic(text)


def localize_digits(text: str, digits: str) -> str:
    """Arabic-Indic digits for numbers standing alone in ``text`` when ``digits="arab"``.

    Numbers glued to Latin letters (``d7``, ``recall@3``, ``log2``) are left alone.
    For plain strings such as widget labels; Markdown goes through :func:`isolate_latin`.
    """
    if digits != "arab" or not text:
        return text
    return re.sub(
        r"(?<![A-Za-z@_\d.,])\d{1,3}(?:,\d{3})+(?![A-Za-z_\d@,])"   # 5,000
        r"|(?<![A-Za-z@_\d.])\d+(?:\.\d+)?(?![A-Za-z_\d@])",
        lambda m: to_arabic_digits(m.group(0)),
        text,
    )
