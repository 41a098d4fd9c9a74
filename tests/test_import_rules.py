"""Who may import whom (read from the source, every import statement, at any depth):

* ``metrics``, ``teaching`` and ``text`` never import Streamlit, ``ui``, ``runtime`` or
  ``lessons`` — they are plain Python a notebook, a test or another front end can use;
* ``live`` (the classroom's storage) imports no lesson;
* a lesson imports another lesson only through that lesson's ``link`` module, and a ``link``
  module is plain Python too (the lab builds links with it without a page running).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.apptest_helpers import ROOT

UI_AND_RUNTIME = ("streamlit", "ui", "runtime", "lessons")


def imports(path: Path) -> Iterator[tuple[int, str]]:
    """Every module ``path`` imports: ``import a.b`` → a.b; ``from a import b`` → a.b."""
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                yield node.lineno, f"{node.module}.{alias.name}"


def under(name: str, *packages: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def modules(package: str) -> list[Path]:
    found = sorted((ROOT / package).rglob("*.py"))
    assert found, package
    return found


@pytest.mark.parametrize("package", ["metrics", "teaching", "text"])
def test_plain_packages_know_nothing_of_the_app(package):
    bad = [f"{p.relative_to(ROOT)}:{line}: {name}" for p in modules(package)
           for line, name in imports(p) if under(name, *UI_AND_RUNTIME)]
    assert bad == []


def test_live_imports_no_lesson():
    bad = [f"{p.relative_to(ROOT)}:{line}: {name}" for p in modules("live")
           for line, name in imports(p) if under(name, "lessons")]
    assert bad == []


def test_a_lesson_reaches_another_only_through_its_link():
    bad = []
    for path in modules("lessons"):
        own = path.relative_to(ROOT / "lessons").parts[0]
        for line, name in imports(path):
            parts = name.split(".")
            if parts[0] != "lessons" or len(parts) < 2 or parts[1] == own:
                continue
            if parts[2:3] != ["link"]:
                bad.append(f"{path.relative_to(ROOT)}:{line}: {name}")
    assert bad == []


def test_link_modules_are_plain_python():
    links = sorted(ROOT.glob("lessons/*/link.py"))
    assert {p.parent.name for p in links} >= {"recall_precision", "mrr", "ndcg"}
    bad = [f"{p.relative_to(ROOT)}:{line}: {name}" for p in links for line, name in imports(p)
           if under(name, "streamlit", "ui", "runtime.state", "runtime.shell",
                  "runtime.local_store")
           or (under(name, "lessons") and not name.startswith(f"lessons.{p.parent.name}."))]
    assert bad == []
    url_codec = [name for _, name in imports(ROOT / "runtime" / "url_codec.py")]
    assert not [n for n in url_codec if under(n, *UI_AND_RUNTIME)]


def test_the_rules_see_a_violation(tmp_path):
    """The checker itself: an import inside a function still counts, in both forms."""
    sample = tmp_path / "sample.py"
    sample.write_text("def f():\n    import streamlit as st\n    from lessons.mrr import logic\n")
    assert [name for _, name in imports(sample)] == ["streamlit", "lessons.mrr.logic"]
    assert under("lessons.ndcg.logic", "lessons") and not under("lessonsx", "lessons")
