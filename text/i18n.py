"""Languages, UI strings, lesson content files and number formatting.

Two kinds of text, two places (see ``lessons/README.md``):

* short UI strings (buttons, labels, messages) live in ``text/strings/ar.toml``
  and ``en.toml``, nested tables addressed with dotted keys: ``t("share.copy")``;
  ``{param}`` placeholders are filled by ``t(key, param=value)``;
* long lesson text lives in each lesson's ``content.<lang>.toml``:
  ``load_content(folder, lang)`` returns the parsed dict; ``fill(text, values)`` replaces
  ``{{name}}`` placeholders (numbers are formatted, strings are escaped for Markdown).

The current language and digit style are set by the shell (``app.py``) at the top of
every run, in the session that :mod:`runtime.state` hands to :func:`use_session`, and read
here with :func:`current_lang` / :func:`current_digits`; plain Python gets the defaults.
Files are parsed once and re-read only when their modification time changes, so a teacher's
edit shows on the next rerun without a restart and a rerun costs one ``stat`` per file.
"""

from __future__ import annotations

import math
import numbers
import re
import tomllib
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from babel.lists import format_list

from text import bidi, plural

__all__ = [
    "DEFAULT_DIGITS",
    "DEFAULT_LANG",
    "DIGITS",
    "LANGS",
    "LESSONS_DIR",
    "Markup",
    "clause_separator",
    "content_path",
    "current_digits",
    "current_lang",
    "direction",
    "fill",
    "fmt_num",
    "load_content",
    "load_quiz",
    "load_strings",
    "strings",
    "t",
    "use_session",
]

LANGS: tuple[str, ...] = ("ar", "en")
DEFAULT_LANG = "ar"
DIGITS: tuple[str, ...] = ("latn", "arab")  # CLDR numbering-system ids
DEFAULT_DIGITS = "latn"

LESSONS_DIR = Path(__file__).resolve().parents[1] / "lessons"
STRINGS_DIR = Path(__file__).resolve().with_name("strings")

# Session-state keys written by the shell (runtime/shell.py) on every run.
LANG_STATE = "_mz_lang"
DIGITS_STATE = "_mz_digits"

# {{name}}; or {{name|noun}} / {{name|noun|case}}: a number and its noun in agreement (text.plural)
_PLACEHOLDER = re.compile(
    r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\|\s*([^{}|]+?)\s*(?:\|\s*([^{}|]+?)\s*)?)?\}\}")


class Markup(str):
    """A string already safe as Markdown: :func:`fill` inserts it without escaping."""


# How this run's settings are read: the runtime hands over the session (runtime/state.py calls
# use_session); text itself knows nothing of Streamlit. Unset in plain Python: the defaults.
_session: Callable[[str, str], str] | None = None


def use_session(read: Callable[[str, str], str] | None) -> None:
    """Read the language and digit style from ``read(key, default)`` (a session's state)."""
    global _session
    _session = read


def _session_get(key: str, default: str) -> str:
    if _session is None:
        return default
    try:
        return _session(key, default)
    except Exception:  # no session (plain Python, tests): the defaults
        return default


def current_lang() -> str:
    """``"ar"`` or ``"en"``: the language of this run (default Arabic)."""
    lang = _session_get(LANG_STATE, DEFAULT_LANG)
    return lang if lang in LANGS else DEFAULT_LANG


def list_separator(lang: str | None = None) -> str:
    """The list separator of a language: the Arabic comma "، " keeps each item in place in RTL."""
    return "، " if (lang or current_lang()) == "ar" else ", "


def list_and(items, lang: str | None = None) -> str:
    """``items`` as one list with the language's "and" before the last (CLDR's list patterns,
    through Babel): "a, b, and c"; Arabic «أ وب وج». Markup items stay markup: the patterns
    hold no HTML."""
    items = list(items)
    joined = format_list([str(i) for i in items], style="standard",
                         locale=lang or current_lang()) if items else ""
    return Markup(joined) if items and all(isinstance(i, Markup) for i in items) else joined


def clause_separator(lang: str | None = None) -> str:
    """The separator between clauses of one line: the Arabic semicolon "؛ " in Arabic."""
    return "؛ " if (lang or current_lang()) == "ar" else "; "


def current_digits() -> str:
    """``"latn"`` (0123, default) or ``"arab"`` (٠١٢٣). Arabic-Indic only applies to Arabic."""
    if current_lang() != "ar":
        return "latn"
    digits = _session_get(DIGITS_STATE, DEFAULT_DIGITS)
    return digits if digits in DIGITS else DEFAULT_DIGITS


def direction(lang: str | None = None) -> str:
    """``"rtl"`` for Arabic, ``"ltr"`` otherwise."""
    return "rtl" if (lang or current_lang()) == "ar" else "ltr"


# --- files -------------------------------------------------------------------------


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime_ns
    except FileNotFoundError:
        return -1.0


@lru_cache(maxsize=256)
def _parse_toml(path: Path, _mtime_ns: float) -> dict[str, Any]:
    if _mtime_ns < 0:
        return {}
    with path.open("rb") as fh:
        return tomllib.load(fh)


def read_toml(path: Path) -> dict[str, Any]:
    """Parsed TOML, cached per (path, mtime). The dict is shared: never mutate it."""
    return _parse_toml(path, _mtime(path))


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(_flatten(value, f"{name}."))
        else:
            flat[name] = value
    return flat


@lru_cache(maxsize=8)
def _flat_strings(lang: str, _mtime_ns: float) -> dict[str, Any]:
    return _flatten(read_toml(STRINGS_DIR / f"{lang}.toml"))


def load_strings(lang: str | None = None) -> dict[str, Any]:
    """The UI catalogue of ``lang`` flattened to dotted keys (``{"share.copy": "…"}``)."""
    lang = lang or current_lang()
    path = STRINGS_DIR / f"{lang}.toml"
    return _flat_strings(lang, _mtime(path))


def strings(section: str, lang: str | None = None) -> dict[str, str]:
    """One table of the UI catalogue as a plain dict, e.g. ``strings("ranking")``."""
    lang = lang or current_lang()
    table = read_toml(STRINGS_DIR / f"{lang}.toml")
    for part in section.split("."):
        table = table.get(part, {}) if isinstance(table, Mapping) else {}
    return dict(table) if isinstance(table, Mapping) else {}


def t(key: str, /, *, lang: str | None = None, **params: Any) -> str:
    """The UI string ``key`` in the current language, with ``{param}`` filled.

    Numbers in ``params`` are formatted with :func:`fmt_num` (Arabic-Indic digits when
    chosen); ``{{param|noun}}`` is a counted noun, as in :func:`fill` (``{{n|قيمة أخرى}}``).
    A missing key returns the key itself (and ``tests/test_i18n.py`` fails), so a
    typo never crashes a page. The result is plain text: safe for widget labels and
    Markdown as long as string params are not user-typed (escape those first).
    """
    lang = lang or current_lang()
    text = load_strings(lang).get(key)
    if not isinstance(text, str):
        text = load_strings(DEFAULT_LANG).get(key, key) if lang != DEFAULT_LANG else key
        if not isinstance(text, str):
            return key
    if not params:
        return text
    digits = current_digits() if lang == "ar" else "latn"
    shown = {
        name: fmt_num(value, digits=digits) if _is_number(value) else value
        for name, value in params.items()
    }
    def counted(match: re.Match[str]) -> str:
        value = params.get(match.group(1))
        if not _is_number(value) or match.group(2) is None:
            return match.group(0)
        return plural.counted(value, match.group(2), match.group(3),
                              number=shown[match.group(1)])

    text = _PLACEHOLDER.sub(counted, text)
    try:
        return text.format_map(shown)
    except (KeyError, IndexError, ValueError):
        return text


def content_path(folder: str, lang: str) -> Path:
    """``lessons/<folder>/content.<lang>.toml``."""
    return LESSONS_DIR / folder / f"content.{lang}.toml"


def load_content(folder: str, lang: str | None = None) -> dict[str, Any]:
    """The parsed ``content.<lang>.toml`` of a lesson folder (empty dict if missing).

    Cached per file modification time; shared between sessions: never mutate it.
    """
    if not re.fullmatch(r"[a-z0-9_]+", folder):
        raise ValueError(f"bad lesson folder name {folder!r}")
    return read_toml(content_path(folder, lang or current_lang()))


def load_quiz(folder: str, lang: str | None = None) -> list[dict[str, Any]]:
    """The lesson's ``quiz.toml`` items with the texts of ``lang`` picked out.

    Each item: ``{"id", "kind", "question", "options": [{"text", "correct", "why"}]}`` for
    ``kind="choice"``; ``{"id", "kind", "question", "answer", "tolerance", "why"}`` for
    ``kind="numeric"``.
    """
    lang = lang or current_lang()

    def pick(value: Any) -> Any:
        if isinstance(value, Mapping) and set(value) >= set(LANGS):
            return value[lang]
        if isinstance(value, Mapping):
            return {k: pick(v) for k, v in value.items()}
        if isinstance(value, list):
            return [pick(v) for v in value]
        return value

    return [pick(item) for item in read_toml(LESSONS_DIR / folder / "quiz.toml").get("items", [])]


# --- numbers and placeholders ------------------------------------------------------


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def fmt_num(value: Any, decimals: int | None = None, *, digits: str | None = None) -> str:
    """Format a number for display: ``fmt_num(0.5)`` → ``"0.5"``, ``fmt_num(1/3, 2)`` → ``"0.33"``.

    ``decimals=None`` keeps up to 4 decimals and drops trailing zeros (but keeps one:
    ``1.0``); ints stay ints. ``digits`` defaults to :func:`current_digits`; with
    ``"arab"`` the result uses Arabic-Indic digits and ``٫``. NaN/inf show as ``—``/``∞``.
    """
    digits = digits or current_digits()
    if isinstance(value, bool) or not _is_number(value):
        return str(value)
    if isinstance(value, numbers.Integral):
        text = str(int(value))
    else:
        x = float(value)
        if math.isnan(x):
            return "—"
        if math.isinf(x):
            return "∞" if x > 0 else "-∞"
        if decimals is None:
            text = f"{x:.4f}".rstrip("0")
            text = text + "0" if text.endswith(".") else text
        else:
            text = f"{x:.{decimals}f}"
        if text.startswith("-") and float(text) == 0:
            text = text[1:]
    return bidi.to_arabic_digits(text) if digits == "arab" else text



def fmt_size(n_bytes: object, unit: str, *, round_up: bool = False) -> str:
    """A file size in megabytes, in the words of ``unit`` (``"{{n}} MB"``, «{{n}} ميغابايت»):
    ``"2 MB"``, ``"2.3 MB"``, one decimal at most and none when whole. ``round_up``: the size of
    a file over a limit (2.01 MB shows as 2.1, never as the limit itself). Anything that is not
    a number of bytes as it is."""
    try:
        megabytes = int(n_bytes) / (1024 * 1024)   # type: ignore[call-overload]
    except (TypeError, ValueError):
        return str(n_bytes)
    tenths = math.ceil(megabytes * 10 - 1e-9) if round_up else round(megabytes * 10)
    return fill(unit, {"n": tenths // 10 if tenths % 10 == 0 else tenths / 10})


def fmt_signed(value: float, decimals: int) -> str:
    """A difference with its sign: ``fmt_signed(0.25, 3)`` → ``"+0.250"``; a difference that
    rounds to zero has none (``"0.000"``). Western digits (localized when rendered)."""
    text = f"{value:+.{decimals}f}"
    return text[1:] if float(text) == 0 else text


def fmt_p(p: float | None, decimals: int) -> str:
    """A p-value: ``"0.043"``, ``"< 0.001"`` below what ``decimals`` can show, ``"—"`` when
    there is none (``None`` or NaN)."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "—"
    floor = 10.0 ** -decimals
    return f"< {floor:.{decimals}f}" if p < floor else f"{p:.{decimals}f}"

def fill(text: str, values: Mapping[str, Any] | None = None, *, decimals: int | None = None) -> str:
    """Replace ``{{name}}`` placeholders in lesson Markdown.

    ``{{name|noun}}`` (``{{name|noun|case}}``) is a counted noun: the number and the noun in the
    form the language's plural rules ask for (:func:`text.plural.counted`, CLDR via Babel):
    ``fill("{{n|سؤال}}", {"n": 11})`` → ``"11 سؤالًا"``.

    Numbers are formatted with ``fmt_num(value, decimals, digits="latn")`` (digits are
    localized later, when the text is rendered); :class:`Markup` values go in as they
    are; any other value is converted to ``str``, escaped for Markdown and wrapped in a
    first-strong isolate (its own direction), so a string a user typed can never inject
    links, HTML or formatting, nor scramble the sentence. A placeholder with no value
    raises ``KeyError`` (the tests fill every placeholder of every lesson).
    """
    if not values:
        if _PLACEHOLDER.search(text):
            raise KeyError(f"no values for placeholders {placeholders(text)}")
        return text

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            raise KeyError(f"no value for placeholder {{{{{name}}}}}")
        value = values[name]
        if match.group(2):  # a counted noun: the number and the noun's form for it
            return _counted(name, value, match.group(2), match.group(3))
        if isinstance(value, Markup):
            return str(value)
        if _is_number(value):
            return fmt_num(value, decimals, digits="latn")
        # Escaped, and isolated with its own direction (like dir="auto") so typed Arabic
        # or English never reorders the sentence around it.
        return f"{bidi.FSI}{bidi.escape_markdown(value)}{bidi.PDI}"

    return _PLACEHOLDER.sub(one, text)


_FORMATTED_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+|\d+")


def _counted(name: str, value: Any, noun: str, case: str | None) -> str:
    """``{{name|noun}}``: a number, or a number already formatted as text (``Markup("12,345")``,
    shown as it is), with the noun in the form its plural category asks for."""
    if _is_number(value):
        return plural.counted(value, noun, case, number=fmt_num(value, digits="latn"))
    if isinstance(value, str) and _FORMATTED_NUMBER.fullmatch(value.strip()):
        return plural.counted(int(value.replace(",", "")), noun, case, number=value.strip())
    raise TypeError(f"{{{{{name}|…}}}} counts a noun: it needs a number, not {value!r}")


def placeholders(text: str) -> set[str]:
    """The ``{{name}}`` placeholder names used in ``text`` (``{{n|noun}}`` counts as ``n``)."""
    return {match.group(1) for match in _PLACEHOLDER.finditer(text)}
