"""The ordered list of Mizan's pages: one line per lesson.

A new lesson is a new folder under ``lessons/`` (``page.py`` + ``content.ar.toml`` +
``content.en.toml`` [+ ``quiz.toml``]) plus one line here. A lesson whose folder has no
``page.py`` yet is simply absent from the navigation and the home page.

The URL paths are part of the product (shared links, QR codes): never rename one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["HOME", "LESSONS", "LESSONS_DIR", "Entry", "available"]

ROOT = Path(__file__).resolve().parents[1]
LESSONS_DIR = ROOT / "lessons"


@dataclass(frozen=True)
class Entry:
    url_path: str  # stable URL path without the slash ("" for home)
    folder: str  # folder under lessons/
    icon: str  # Streamlit material icon
    kind: str = "lesson"  # "lesson" (numbered, in order) | "tool" (practice hub, lab) | "home"
    script_override: str = ""  # tests only (MIZAN_EXTRA_PAGES)

    @property
    def script(self) -> str:
        """The page script path relative to the app's root (for st.Page / st.page_link)."""
        return self.script_override or f"lessons/{self.folder}/page.py"

    @property
    def page_file(self) -> Path:
        return ROOT / self.script

    @property
    def exists(self) -> bool:
        return self.page_file.is_file()


HOME = Entry("", "home", ":material/home:", kind="home")

LESSONS: tuple[Entry, ...] = (
    Entry("two-stages", "two_stages", ":material/alt_route:"),
    Entry("recall-precision", "recall_precision", ":material/checklist:"),
    Entry("mrr", "mrr", ":material/compare_arrows:"),
    Entry("faithfulness", "faithfulness", ":material/fact_check:"),
    Entry("ndcg", "ndcg", ":material/stacked_bar_chart:"),
    Entry("diagnose", "diagnose", ":material/troubleshoot:"),
    # A tool, not a numbered lesson: it has no exercise or quiz, and a number here would
    # renumber lessons 4-6 (their links and the lessons' own "lesson 5" references).
    Entry("retrieve", "retrieve", ":material/manage_search:", kind="tool"),
    Entry("practice", "practice", ":material/school:", kind="tool"),
    Entry("lab", "lab", ":material/science:", kind="tool"),
    Entry("live", "live", ":material/groups:", kind="tool"),
)


def available() -> list[Entry]:
    """The catalogue entries whose ``page.py`` exists, in order (plus test pages, last)."""
    return [entry for entry in LESSONS if entry.exists] + _extra_pages()


def _extra_pages() -> list[Entry]:
    """Test hook: ``MIZAN_EXTRA_PAGES="fixture=tests/apps/shell_fixture_page.py"`` adds
    pages (``url_path=script`` pairs, comma-separated; titled by their url path)."""
    out = []
    for pair in filter(None, os.environ.get("MIZAN_EXTRA_PAGES", "").split(",")):
        url_path, _, script = pair.partition("=")
        entry = Entry(url_path.strip(), "fixture", ":material/science:", "tool", script.strip())
        if entry.exists:
            out.append(entry)
    return out


def lesson_number(entry: Entry) -> int | None:
    """1-based position among the numbered lessons (the PRODUCT.md numbering), or None."""
    numbered = [e for e in LESSONS if e.kind == "lesson"]
    return numbered.index(entry) + 1 if entry in numbered else None


def entry(folder: str) -> Entry:
    """The catalogue entry of the page in ``folder`` (for a ``st.page_link`` to it)."""
    return next(e for e in LESSONS if e.folder == folder)


def number_of(folder: str) -> int | None:
    """The lesson number of the lesson in ``folder`` (None for a tool or an unknown folder)."""
    return next((lesson_number(e) for e in LESSONS if e.folder == folder), None)
