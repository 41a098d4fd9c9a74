"""Text catalogues, lesson content pairs, quiz banks, and the pure text helpers.

* every UI string key exists in both languages, with the same ``{param}`` names;
* every lesson folder's ``content.ar.toml`` / ``content.en.toml`` pair has the same keys
  (tables, arrays of tables, their lengths) and the same ``{{placeholder}}`` names;
* every ``quiz.toml`` follows the format in ``lessons/README.md``;
* bidi isolation, digits, escaping, number formatting, ``fill`` and the URL encodings.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from runtime.state import decode_ranking, encode_ranking, ranking_field
from text import bidi
from text.bidi import LRI, PDI, RLI
from text.i18n import LANGS, Markup, fill, fmt_num, list_and, load_strings, placeholders, t

ROOT = Path(__file__).resolve().parents[1]
LESSONS = ROOT / "lessons"
STRINGS = LESSONS / "shared" / "strings"

FORMAT_PARAM = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})")
COUNTED_PARAM = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\|[^{}]+\}\}")  # {{n|noun}}


def ui_params(text: str) -> set[str]:
    return set(FORMAT_PARAM.findall(text)) | set(COUNTED_PARAM.findall(text))


def _lesson_dirs() -> list[Path]:
    return sorted(
        d
        for d in LESSONS.iterdir()
        if d.is_dir() and d.name not in {"shared", "__pycache__"} and not d.name.startswith(".")
    )


def _load(path: Path) -> dict[str, Any]:
    with path.open("rb") as fh:
        return tomllib.load(fh)


def _walk(a: Any, b: Any, path: str = "") -> Iterator[str]:
    """Yield a description of every structural difference between two parsed TOML trees."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        for key in sorted(set(a) | set(b)):
            where = f"{path}.{key}" if path else key
            if key not in b:
                yield f"{where}: only in the first"
            elif key not in a:
                yield f"{where}: only in the second"
            else:
                yield from _walk(a[key], b[key], where)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            yield f"{path}: {len(a)} items vs {len(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            yield from _walk(x, y, f"{path}[{i}]")
    elif isinstance(a, str) and isinstance(b, str):
        if placeholders(a) != placeholders(b):
            yield f"{path}: placeholders {sorted(placeholders(a))} vs {sorted(placeholders(b))}"
    elif type(a) is not type(b):
        yield f"{path}: {type(a).__name__} vs {type(b).__name__}"


# --- UI catalogue --------------------------------------------------------------------------------


def test_ui_strings_have_the_same_keys_in_both_languages():
    ar, en = load_strings("ar"), load_strings("en")
    assert sorted(set(ar) - set(en)) == [], "keys only in ar.toml"
    assert sorted(set(en) - set(ar)) == [], "keys only in en.toml"


def test_ui_strings_have_the_same_params_in_both_languages():
    ar, en = load_strings("ar"), load_strings("en")
    bad = {key: (sorted(ui_params(ar[key])), sorted(ui_params(en[key])))
           for key in ar if key in en and ui_params(ar[key]) != ui_params(en[key])}
    assert bad == {}


@pytest.mark.parametrize(("n", "shown"), [
    (1, "وقيمة أخرى"), (2, "وقيمتان أخريان"), (3, "و3 قيم أخرى"), (11, "و11 قيمةً أخرى"),
    (100, "و100 قيمة أخرى")])
def test_ui_string_counts_its_noun(n: int, shown: str):
    """A UI string's ``{{n|noun}}`` agrees with the number (the chart description's tail)."""
    assert t("chart.more", lang="ar", n=n) == shown
    assert t("chart.more", lang="en", n=n) == f"and {n} more"


def test_ui_strings_are_non_empty_strings():
    for lang in LANGS:
        for key, value in load_strings(lang).items():
            assert isinstance(value, str) and value.strip(), f"{lang}: {key}"


def test_walk_reports_differences():
    """The comparison itself notices a missing key, a list length and a placeholder."""
    a = {"t": "x {{n}}", "s": {"items": [{"q": "1"}, {"q": "2"}]}, "only": "a"}
    b = {"t": "x {{m}}", "s": {"items": [{"q": "1"}]}}
    found = list(_walk(a, b))
    assert any("only" in f for f in found)
    assert any("2 items vs 1" in f for f in found)
    assert any("placeholders" in f for f in found)


# --- lesson content pairs ------------------------------------------------------------------------


@pytest.mark.parametrize("folder", _lesson_dirs(), ids=lambda d: d.name)
def test_lesson_content_pairs_match(folder: Path):
    files = {lang: folder / f"content.{lang}.toml" for lang in LANGS}
    present = {lang for lang, f in files.items() if f.exists()}
    if not present:
        pytest.skip("no content files")
    assert present == set(LANGS), f"{folder.name}: content only in {sorted(present)}"
    ar, en = _load(files["ar"]), _load(files["en"])
    assert list(_walk(ar, en)) == []
    assert ar.get("title") and en.get("title"), "every lesson needs a title"


@pytest.mark.parametrize("folder", _lesson_dirs(), ids=lambda d: d.name)
def test_lesson_page_has_content(folder: Path):
    if (folder / "page.py").exists():
        assert (folder / "content.ar.toml").exists() and (folder / "content.en.toml").exists()


# --- quiz banks ----------------------------------------------------------------------------------


def _texts(item: Mapping[str, Any], key: str, where: str) -> list[str]:
    value = item.get(key)
    problems = []
    if not isinstance(value, Mapping):
        return [f"{where}: {key} must have .ar and .en"]
    for lang in LANGS:
        if not isinstance(value.get(lang), str) or not value[lang].strip():
            problems.append(f"{where}: {key}.{lang} missing or empty")
    return problems


def quiz_problems(bank: Mapping[str, Any]) -> list[str]:
    """Everything wrong with a parsed quiz.toml (empty list: valid)."""
    problems: list[str] = []
    items = bank.get("items")
    if not isinstance(items, list) or not items:
        return ["no [[items]]"]
    seen: set[str] = set()
    for i, item in enumerate(items):
        where = f"items[{i}]"
        item_id = item.get("id")
        if not isinstance(item_id, str) or not re.fullmatch(r"[a-z0-9][a-z0-9-]*", item_id):
            problems.append(f"{where}: id must be a lowercase slug")
        elif item_id in seen:
            problems.append(f"{where}: duplicate id {item_id}")
        else:
            seen.add(item_id)
            where = item_id
        problems += _texts(item, "question", where)
        kind = item.get("kind")
        if kind == "choice":
            options = item.get("options")
            if not isinstance(options, list) or len(options) < 2:
                problems.append(f"{where}: a choice item needs at least 2 options")
                continue
            if not any(opt.get("correct") is True for opt in options):
                problems.append(f"{where}: no option has correct = true")
            for j, opt in enumerate(options):
                problems += _texts(opt, "text", f"{where}.options[{j}]")
                problems += _texts(opt, "why", f"{where}.options[{j}]")
                if not isinstance(opt.get("correct", False), bool):
                    problems.append(f"{where}.options[{j}]: correct must be true/false")
        elif kind == "numeric":
            answer, tolerance = item.get("answer"), item.get("tolerance")
            if not isinstance(answer, int | float) or isinstance(answer, bool):
                problems.append(f"{where}: numeric item needs a number answer")
            if (
                not isinstance(tolerance, int | float)
                or isinstance(tolerance, bool)
                or tolerance < 0
            ):
                problems.append(f"{where}: numeric item needs a tolerance >= 0")
            problems += _texts(item, "why", where)
        else:
            problems.append(f"{where}: kind must be 'choice' or 'numeric', not {kind!r}")
    return problems


QUIZZES = sorted(LESSONS.glob("*/quiz.toml"))


@pytest.mark.parametrize("path", QUIZZES, ids=lambda p: p.parent.name)
def test_quiz_bank_is_valid(path: Path):
    assert quiz_problems(_load(path)) == []


def test_quiz_validator_catches_mistakes():
    bad = {
        "items": [
            {
                "id": "a",
                "kind": "choice",
                "question": {"ar": "س"},
                "options": [{"text": {"ar": "x", "en": "x"}, "correct": False}],
            },
            {"id": "a", "kind": "numeric", "question": {"ar": "س", "en": "q"}, "answer": "1"},
            {"id": "b", "kind": "essay", "question": {"ar": "س", "en": "q"}},
        ]
    }
    found = "\n".join(quiz_problems(bad))
    for expected in (
        "question.en",
        "at least 2 options",
        "duplicate id",
        "number answer",
        "tolerance",
        "kind must be",
    ):
        assert expected in found


# --- bidi and digits -----------------------------------------------------------------------------


def _shown(text: str) -> str:
    return text.replace(LRI, "[").replace(RLI, "{<").replace(PDI, "]")


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("قيمة recall@3 = 1 / 2 = 0.5 هنا", "قيمة [recall@3 = 1 / 2 = 0.5] هنا"),
        ("الخصم 1/log2(3) تقريبًا", "الخصم [1/log2(3)] تقريبًا"),
        ("المجموعة {d2, d4}.", "المجموعة [{d2, d4}]."),
        ("(المرتبتان 2 و4)", "(المرتبتان [2] و[4])"),
        ("هما `d2` و`d4`", "هما [`d2`] و[`d4`]"),
        ("أي أن **R = 2**.", "أي أن **[R = 2]**."),
        ("عند k = 3.**", "عند [k = 3].**"),  # a closing ** never inside an isolate
        ("1. الخطوة الأولى", "1. الخطوة الأولى"),  # list marker untouched
        ("- البند k", "- البند [k]"),
        ("[رابط](https://example.org/a?b=1)", "[رابط](https://example.org/a?b=1)"),
        ("```\nx = 1\n```", "```\nx = 1\n```"),  # fenced code untouched
        ("| 1 | `d7` | لا |", "| [1] | [`d7`] | لا |"),
        ("2 × 1/3 ÷ (5/6)", "[2 × 1/3 ÷ (5/6)]"),
        # a colon-space is prose: a label and the value after it stay two runs
        ("**الاسم RR@k**: 1 مقسومًا", "**الاسم [RR@k]**: [1] مقسومًا"),
        ("الساعة 12:30", "الساعة [12:30]"),
    ],
)
def test_isolate_latin(source: str, expected: str):
    assert _shown(bidi.isolate_latin(source)) == expected


def test_isolate_latin_is_idempotent_and_never_overrides():
    once = bidi.isolate_latin("قيمة recall@3 = 0.5")
    assert bidi.isolate_latin(once) == once
    assert "\u202d" not in once and "\u202e" not in once  # no LRO/RLO (bidi-override)


def test_arabic_digits_only_for_standalone_numbers():
    out = _shown(bidi.isolate_latin("الدرس 5 والقيمة 0.5 و d7 و recall@3 = 1/2", digits="arab"))
    assert out == "الدرس [٥] والقيمة [٠٫٥] و [d7] و [recall@3 = 1/2]"
    assert bidi.localize_digits("سؤال 3 من 10 و d7", "arab") == "سؤال ٣ من ١٠ و d7"
    assert bidi.localize_digits("3 of 10", "latn") == "3 of 10"
    assert bidi.to_arabic_digits("0.25") == "٠٫٢٥"


def test_a_thousands_comma_becomes_the_arabic_separator_but_a_list_comma_stays():
    assert bidi.to_arabic_digits("5,000 و 1,000,000") == "٥٬٠٠٠ و ١٬٠٠٠٬٠٠٠"
    assert bidi.localize_digits("تزيد على 5,000 ريال", "arab") == "تزيد على ٥٬٠٠٠ ريال"
    assert bidi.localize_digits("من 1 إلى 100,000.", "arab") == "من ١ إلى ١٠٠٬٠٠٠."
    assert bidi.localize_digits("الدرجات 1,2,3 و 10,20 و 12,3456", "arab") == (
        "الدرجات ١,٢,٣ و ١٠,٢٠ و ١٢,٣٤٥٦")
    assert _shown(bidi.isolate_latin("تزيد على 5,000 ريال", digits="arab")) == (
        "تزيد على [٥٬٠٠٠] ريال")
    assert bidi.localize_digits("5,000", "latn") == "5,000"


def test_isolate_arabic_in_english():
    assert (
        _shown(bidi.isolate_arabic("The word ميزان means scale")) == "The word {<ميزان] means scale"
    )


def test_escape_helpers_neutralise_markup():
    hostile = "<img src=x onerror=alert(1)> [a](javascript:x) **b** $x$ \u202eevil"
    md = bidi.escape_markdown(hostile)
    assert "<" not in md and ">" not in md and "\u202e" not in md
    assert "\\[a\\]\\(javascript\\:x\\)" in md and "\\*\\*b\\*\\*" in md and "\\$x\\$" in md
    html = bidi.user_text_html(hostile)
    assert html.startswith('<span dir="auto">') and "<img" not in html and "&lt;img" in html


# --- numbers and placeholders --------------------------------------------------------------------


def test_fmt_num():
    assert fmt_num(0.5, digits="latn") == "0.5"
    assert fmt_num(1.0, digits="latn") == "1.0"
    assert fmt_num(1 / 3, 2, digits="latn") == "0.33"
    assert fmt_num(3, digits="latn") == "3"
    assert fmt_num(0.9724, digits="arab") == "٠٫٩٧٢٤"
    assert fmt_num(float("nan"), digits="latn") == "—"
    assert fmt_num(-0.0001, 2, digits="latn") == "0.00"


def test_fill_formats_numbers_escapes_strings_and_requires_values():
    text = "recall@3 = {{r}}, typed: {{u}}, raw: {{m}}"
    out = fill(text, {"r": 0.5, "u": "<b>**x**</b>", "m": Markup("**ok**")})
    assert "recall@3 = 0.5" in out and "**ok**" in out
    assert "<b>" not in out and "\\*\\*x\\*\\*" in out and bidi.FSI in out
    with pytest.raises(KeyError):
        fill(text, {"r": 1})
    assert fill("no placeholders", None) == "no placeholders"
    assert placeholders("a {{x}} b {{ y }} {z}") == {"x", "y"}


# --- URL encodings -------------------------------------------------------------------------------


def test_ranking_round_trip_and_size():
    items = [(f"d{i}", i % 4) for i in range(1, 21)]
    text = encode_ranking(items)
    assert decode_ranking(text) == items
    assert len(text) <= 130
    assert re.fullmatch(r"[A-Za-z0-9_.~-]+", text)


def test_ranking_ids_with_any_characters():
    items = [("doc-1.v2", 1), ("مستند ٣", 0), ("a~b", 2), ("<img>", 0)]
    text = encode_ranking(items)
    assert re.fullmatch(r"[A-Za-z0-9_.~-]+", text)
    assert decode_ranking(text) == items
    assert decode_ranking(encode_ranking(["d7", "d2"])) == [("d7", None), ("d2", None)]


@pytest.mark.parametrize(
    "bad",
    [
        "d1.0-d1.1",
        "d1.x",
        "d1..2",
        "-",
        "d1.0-",
        "~ZZ.1",
        "<img src=x>",
        "d1.123",
        "a" * 5000,
        "~FF~FE.1",
    ],
)
def test_ranking_decode_rejects_malformed(bad: str):
    with pytest.raises(ValueError):
        decode_ranking(bad)


def test_ranking_field_checks_grades():
    field = ranking_field((("d1", 1),), grades=(0, 1))
    assert field.parse("d1.1-d2.0") == (("d1", 1), ("d2", 0))
    for bad in ("d1.2", "d1", ""):
        with pytest.raises(ValueError):
            field.parse(bad)


def test_signed_differences_and_p_values_read_the_same_on_every_page():
    from text.i18n import fmt_p, fmt_signed

    assert [fmt_signed(x, 3) for x in (0.25, -0.1, -0.0001, 0.0)] == [
        "+0.250", "-0.100", "0.000", "0.000"]
    assert fmt_signed(1 / 3, 4) == "+0.3333"
    assert [fmt_p(p, 3) for p in (0.0432, 0.0009, 0.001, None, float("nan"))] == [
        "0.043", "< 0.001", "0.001", "—", "—"]
    assert fmt_p(0.00002, 4) == "< 0.0001"


def test_list_and_joins_with_the_languages_and_and_keeps_markup():
    assert list_and(["BM25", "Dense (e5)"], "en") == "BM25 and Dense (e5)"
    assert list_and(["BM25", "Dense (e5)", "Hybrid (RRF)"], "en") == \
        "BM25, Dense (e5), and Hybrid (RRF)"
    assert list_and(["BM25", "المتجهي (e5)"], "ar") == "BM25 والمتجهي (e5)"
    assert list_and(["one"], "ar") == "one" and list_and([], "en") == ""
    # markup items stay markup (filled as they are); a typed name is escaped by fill
    assert fill("{{x}}", {"x": list_and([Markup("**a**"), Markup("b")], "en")}) == "**a** and b"
    assert fill("{{x}}", {"x": list_and(["<b>", "c"], "en")}) != "<b> and c"


@pytest.mark.parametrize(("n_bytes", "round_up", "en", "ar"), [
    (2 * 2**20, False, "2 MB", "2 ميغابايت"),
    (int(2.3 * 2**20), False, "2.3 MB", "2.3 ميغابايت"),
    (2 * 2**20 + 1, True, "2.1 MB", "2.1 ميغابايت"),     # over a 2 MB limit: not "2 MB"
    (200 * 2**20, True, "200 MB", "200 ميغابايت"),
    ("unknown", False, "unknown", "unknown"),
])
def test_file_sizes_are_megabytes_in_the_pages_words(n_bytes, round_up, en, ar):
    from text.i18n import fmt_size
    assert fmt_size(n_bytes, "{{n}} MB", round_up=round_up) == en
    assert fmt_size(n_bytes, "{{n}} ميغابايت", round_up=round_up) == ar
