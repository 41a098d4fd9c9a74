"""The mistake catalogue (teaching/mistakes.py + mistakes.<lang>.toml): every mistake id has
exactly one formula and exactly one text per register per language, and no text or formula for
a mistake id exists anywhere else — not in a lesson's content, not in the UI strings, not as a
rule written again in a page."""

from __future__ import annotations

import ast
import math
import tomllib
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from teaching import mistakes
from tests.apptest_helpers import ROOT
from text.i18n import LANGS, placeholders

CATALOGUE = mistakes.CATALOGUE
# value mistakes that a cell of lesson 5's step table can also show: their cell form is built
# from the same slip (the same rank weight, the same gain, the same division)
SHARED_WITH_CELLS = {"exponential_gain", "discount_log2_i", "discount_log2_i_plus_2",
                     "discount_ln", "no_discount", "ndcg_inverted", "not_normalised"}


def _catalogue_file(lang: str) -> dict:
    return tomllib.loads((ROOT / "teaching" / f"mistakes.{lang}.toml").read_text("utf-8"))


def test_every_mistake_id_has_exactly_one_formula():
    sources = {
        "value": [key for key, _, _ in mistakes._VALUE],
        "questions": [key for key, _ in mistakes._QUESTIONS],
        "sentences": [key for key, _ in mistakes._SENTENCES],
        "verdicts": [key for key, _ in mistakes._VERDICTS],
        "judgement": [key for key, _ in mistakes._judgements()],
        "cell": [key for _, key, _ in mistakes._CELLS if key not in SHARED_WITH_CELLS],
    }
    every = [key for keys in sources.values() for key in keys] + [mistakes.PERCENT,
                                                                   mistakes.OUT_OF_RANGE]
    assert [key for key, n in Counter(every).items() if n > 1] == []
    assert set(every) == set(CATALOGUE)
    for kind, keys in sources.items():
        assert all(CATALOGUE[key].kind == kind for key in keys), kind
    assert all(callable(m.formula) for m in CATALOGUE.values())
    # a value mistake shown by a cell is the same slip in both places, not a second formula
    cells = {key: formula for _, key, formula in mistakes._CELLS}
    assert set(cells) >= SHARED_WITH_CELLS
    assert {key for key, _, _ in mistakes._VALUE} >= SHARED_WITH_CELLS
    for key in ("discount_log2_i", "discount_log2_i_plus_2", "discount_ln"):
        for i in range(2, 9):
            one = [f"x{j}" for j in range(1, i)] + ["hit"]   # one relevant document, at rank i
            dcg = mistakes.MISTAKES["dcg"][key](one, {"hit": 1}, i)
            cell = cells[key](_cell(rank=i))
            assert dcg == pytest.approx(cell) == pytest.approx(mistakes.WEIGHTS[key](i))
    assert cells["exponential_gain"](_cell(grade=3)) == mistakes.MISTAKES["dcg"][
        "exponential_gain"](["a"], {"a": 3}, 1) == 7


def _cell(rank: int = 2, grade: int = 1) -> mistakes.Cell:
    return mistakes.Cell(rank=rank, grade=grade, gain_kind="linear", gain=float(grade),
                         contribution=grade / math.log2(rank + 1), dcg=1.0, idcg=2.0,
                         previous_dcg=0.5, final_idcg=3.0, last=False)


@pytest.mark.parametrize("lang", LANGS)
def test_one_text_per_register_per_language(lang):
    table = _catalogue_file(lang)            # tomllib refuses a key written twice
    assert set(table) == set(CATALOGUE)      # no text without a mistake, no mistake without one
    for key, registers in table.items():
        assert registers and set(registers) <= set(mistakes.REGISTERS), key
        assert all(isinstance(t, str) and t.strip() for t in registers.values()), key
    other = _catalogue_file("en" if lang == "ar" else "ar")
    for key, registers in table.items():
        assert set(registers) == set(other[key]), key
        for register, text in registers.items():
            assert placeholders(text) == placeholders(other[key][register]), (key, register)


def test_each_page_finds_the_register_it_needs():
    cell_ids = {key for _, key, _ in mistakes._CELLS}
    for lang in LANGS:
        for key, m in CATALOGUE.items():
            if m.kind in ("value", "questions", "verdicts", "sentences") or key.startswith(
                    ("predict_", "judged_by_hit_rate", "judged_by_precision")):
                assert mistakes.text(key, "feedback", lang), (key, lang)   # exercise feedback
        # the step table's hints: exactly the slips a cell can show
        assert {k for k in CATALOGUE if mistakes.text(k, "hint", lang)} == cell_ids
        # what a live question's wrong option or wrong number can reveal
        judgements = {k for k, m in CATALOGUE.items() if m.kind == "judgement"
                      and not k.startswith("predict_")}
        assert all(mistakes.text(k, "misconception", lang) for k in judgements)


# --- nowhere else ----------------------------------------------------------------------------


def _keys(table: Mapping, path: str = "") -> Iterator[tuple[str, str]]:
    for key, value in table.items():
        yield f"{path}{key}", key
        if isinstance(value, Mapping):
            yield from _keys(value, f"{path}{key}.")


def _text_files() -> list[Path]:
    files = [*ROOT.glob("lessons/*/content.*.toml"), *ROOT.glob("lessons/*/quiz.toml"),
             *ROOT.glob("text/strings/*.toml"), *ROOT.glob("teaching/exercises.*.toml")]
    assert len(files) > 20
    return files


def test_no_text_for_a_mistake_outside_the_catalogue():
    found = []
    for path in _text_files():
        table = tomllib.loads(path.read_text("utf-8"))
        found += [f"{path.relative_to(ROOT)}: {where}" for where, key in _keys(table)
                  if key in CATALOGUE]
    assert found == []


def _asks_the_catalogue(node: ast.AST | None) -> bool:
    """``mistakes.text("x", …)`` or ``mistakes.CATALOGUE["x"]``: looking an id up is fine."""
    target = node.func if isinstance(node, ast.Call) else (
        node.value if isinstance(node, ast.Subscript) else None)
    while isinstance(target, (ast.Attribute, ast.Subscript)):
        target = target.value
    return isinstance(target, ast.Name) and target.id == "mistakes"


def _string_constants(path: Path) -> Iterator[tuple[int, str]]:
    tree = ast.parse(path.read_text("utf-8"))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and not _asks_the_catalogue(parents.get(node))):
            yield node.lineno, node.value


def test_no_formula_or_text_for_a_mistake_in_the_pages():
    """No page, widget or live module names a mistake id: they ask the catalogue (a page that
    wrote ``"discount_log2_i"`` would be carrying a rule or a text of its own)."""
    code = [p for folder in ("lessons", "ui", "runtime", "live", "text")
            for p in (ROOT / folder).rglob("*.py")]
    found = [f"{p.relative_to(ROOT)}:{line}: {value}" for p in code
             for line, value in _string_constants(p)
             if value in CATALOGUE or value.startswith("judged_by_")]
    assert found == []


# --- an answer no share can be ---------------------------------------------------------------

RANKING, QRELS = ["d1", "d2", "d3", "d4"], {"d2": 1, "d4": 2, "d9": 1}


@pytest.mark.parametrize("measure", [m for m in mistakes.MEASURES if m not in mistakes.UNBOUNDED])
def test_a_share_answered_outside_0_to_1_is_out_of_range(measure):
    for answer in (-0.5, 1.7, 42.0):
        assert mistakes.diagnose(measure, RANKING, QRELS, 4, answer) in (
            "out_of_range", *mistakes.MISTAKES[measure])   # a known slip is named first
    assert mistakes.diagnose(measure, RANKING, QRELS, 4, -0.5) == "out_of_range"


@pytest.mark.parametrize("measure", sorted(mistakes.UNBOUNDED))
def test_dcg_above_1_is_not_out_of_range(measure):
    right = mistakes.MEASURES[measure](RANKING, QRELS, 4)
    assert right > 1
    assert mistakes.diagnose(measure, RANKING, QRELS, 4, right + 0.9) == "wrong_unknown"


def test_a_known_slip_outside_0_to_1_is_named_before_the_range():
    verdicts = ["supported", "supported", "unsupported"]
    assert mistakes.FAITHFULNESS_MISTAKES["faith_count_not_share"](verdicts) == 2
    report = mistakes.Sentences(2, 3, 2, 3)
    assert mistakes.diagnose_sentences(report, 2.0) == "faith_count_not_share"
    assert mistakes.diagnose_sentences(report, 1.5) == "out_of_range"
    assert mistakes.diagnose_mean("mrr", [(RANKING, QRELS)], 3.7) == "out_of_range"


def test_forgetting_the_discount_is_named_before_log2_i_when_they_tie():
    """At k = 2, 1 / log2(2) = 1: "divided by log2(i)" and "no discount" give the same number.
    Round 62: the learner who simply forgot the discount was told of J&K's original formula."""
    from teaching import exercises
    from teaching.cases import Attempt

    # DCG@2 of grades [3, 1]: 3 + 1 / log2(3) = 3.63; with no discount, or with log2(i), 4
    assert mistakes.diagnose("dcg", ["a", "b"], {"a": 3, "b": 1}, 2, 4.0, 1e-4) == "no_discount"
    # what a learner sees: nDCG@2 of practice seed 17 typed without the discount
    ex = exercises.generate("ndcg", 17, lang="en")
    assert ex.k == 2
    assert exercises.check(ex, "0.3333") == Attempt("wrong", 0.3333, "no_discount")
