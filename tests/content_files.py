"""Every content file's texts, for the tests that read all of them (glossary, plurals, parity).

The content files: each lesson's ``content.<lang>.toml`` and ``quiz.toml`` (``.ar`` / ``.en``
keys), ``teaching/*.<lang>.toml`` (mistakes, exercises), ``teaching/faithfulness_cases.toml``
(``ar*`` / ``en*`` keys), the UI strings ``text/strings/<lang>.toml``, the measures'
descriptions in ``metrics/measures.toml`` and their names in ``teaching/measures.toml``. A text
is known by where it is: ``file:dotted.key``.
Twins are the Arabic and English texts at the same place.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LANGS = ("ar", "en")

Text = tuple[str, str]            # (where, text)
Twin = tuple[str, str, str]       # (where, arabic, english)


def _load(path: Path) -> dict[str, Any]:
    with path.open("rb") as fh:
        return tomllib.load(fh)


def _leaves(tree: Any, path: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(tree, Mapping):
        for key, value in tree.items():
            yield from _leaves(value, f"{path}.{key}" if path else str(key))
    elif isinstance(tree, list):
        for i, value in enumerate(tree):
            yield from _leaves(value, f"{path}[{i}]")
    elif isinstance(tree, str):
        yield path, tree


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def paired_files() -> list[tuple[Path, Path]]:
    """(Arabic file, English file) for the files that hold one language each."""
    pairs = []
    for ar in sorted(ROOT.glob("lessons/*/content.ar.toml")) + sorted(
            ROOT.glob("teaching/*.ar.toml")) + [ROOT / "text" / "strings" / "ar.toml"]:
        en = ar.with_name(ar.name.replace(".ar.", ".en.")) if ar.name != "ar.toml" \
            else ar.with_name("en.toml")
        if en.exists():
            pairs.append((ar, en))
    return pairs


def _suffixed_files() -> list[Path]:
    """Files that hold both languages, each text under a key ending in ``ar`` / ``en``."""
    return [*sorted(ROOT.glob("lessons/*/quiz.toml")), ROOT / "metrics" / "measures.toml",
            ROOT / "teaching" / "measures.toml", ROOT / "teaching" / "faithfulness_cases.toml"]


def _lang_of_key(key: str) -> str | None:
    """``question.ar`` → ``ar``; ``ar_neg`` → ``ar``; anything else → None."""
    last = key.rsplit(".", 1)[-1]
    head = last.split("_", 1)[0]
    return head if head in LANGS else None


@lru_cache(maxsize=1)
def twins() -> tuple[Twin, ...]:
    """Every Arabic text with its English twin (same file and key, or the same key in the
    other language's file)."""
    out: list[Twin] = []
    for ar_path, en_path in paired_files():
        en = dict(_leaves(_load(en_path)))
        for key, text in _leaves(_load(ar_path)):
            if key in en:
                out.append((f"{_rel(ar_path)}:{key}", text, en[key]))
    for path in _suffixed_files():
        leaves = dict(_leaves(_load(path)))
        for key, text in leaves.items():
            if _lang_of_key(key) != "ar":
                continue
            head, last = key.rsplit(".", 1) if "." in key else ("", key)
            other = (f"{head}." if head else "") + "en" + last[2:]
            if other in leaves:
                out.append((f"{_rel(path)}:{key}", text, leaves[other]))
    return tuple(out)


@lru_cache(maxsize=2)
def _texts(lang: str) -> tuple[Text, ...]:
    out: list[Text] = []
    for pair in paired_files():
        path = pair[LANGS.index(lang)]
        out += [(f"{_rel(path)}:{key}", text) for key, text in _leaves(_load(path))]
    for path in _suffixed_files():
        out += [(f"{_rel(path)}:{key}", text) for key, text in _leaves(_load(path))
                if _lang_of_key(key) == lang]
    return tuple(out)


def arabic_texts() -> tuple[Text, ...]:
    """Every Arabic text of every content file."""
    return _texts("ar")


def english_texts() -> tuple[Text, ...]:
    """Every English text of every content file."""
    return _texts("en")
