"""The code a lesson shows is right: it runs, prints what it says, and agrees with ``metrics``.

Each lesson's ``[code]`` table (``ui.code_path``) holds a short Python program. For every lesson
that has one:

* the Arabic and the English programs are the same program: only their comments differ, and the
  printed results (``# → …`` comments) are the same;
* the program runs, and prints exactly the lines its ``# → …`` comments show, in order;
* every number it prints equals what ``metrics`` computes on the lesson's example (``EXPECTED``),
  to the decimals printed.

A new lesson with a ``[code]`` part adds its numbers to ``EXPECTED`` (lesson 4's word-overlap
check: the numbers of its example from ``metrics.faithfulness``), and this test covers it.
"""

from __future__ import annotations

import contextlib
import io
import re
import tokenize
from collections.abc import Callable

import pytest

import metrics
from lessons.diagnose import logic as diagnose
from metrics import faithfulness
from metrics.support import supported_share
from teaching import scenarios
from text.i18n import LANGS, LESSONS_DIR, load_content

OUTPUT = re.compile(r"#\s*→\s*(.*)$")
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _seed_vector():
    mrr = scenarios.MRR
    golden = {q: dict.fromkeys(g, 1) for q, g in zip(mrr.questions, mrr.golden, strict=True)}
    runs = {name: {q: list(r) for q, r in zip(mrr.questions, run, strict=True)}
            for name, run in mrr.runs.items()}
    return golden, runs


def _two_stages() -> list[float]:
    golden, ranking, bad_day = {"d3"}, ["d3", "d8", "d1"], ["d8", "d1", "d9"]
    return [metrics.recall(ranking, golden, 3), metrics.reciprocal_rank(ranking, golden, 3),
            supported_share([True, True, False]), metrics.recall(bad_day, golden, 3),
            supported_share([False])]


def _recall_precision() -> list[float]:
    r, q = list(scenarios.RECALL_PRECISION.ranking), set(scenarios.RECALL_PRECISION.relevant)
    return [metrics.recall(r, q, 3), metrics.recall(r, q, 5), metrics.precision(r, q, 3),
            metrics.hit_rate(r, q, 3), metrics.f1(r, q, 3), metrics.reciprocal_rank(r, q, 3),
            metrics.r_precision(r, q)]


def _mrr() -> list[float]:
    golden, runs = _seed_vector()
    means = []
    for name in ("vector", "hybrid"):
        table = metrics.evaluate(runs[name], golden, ["R@3", "RR@3", "AP@3"]).mean()
        means += [table["R@3"], table["RR@3"], table["AP@3"]]
    deltas = metrics.compare(runs["vector"], runs["hybrid"], golden, "RR@3").per_query
    return means + [v for q in golden for v in (int(q[1:]), float(deltas.loc[q, "delta"]))]


def _ndcg() -> list[float]:
    ranking = ["d3", "d8", "d1", "d6", "d5"]
    grades = dict(zip(ranking, [3, 2, 3, 0, 1], strict=True))
    judged = {**grades, "d2": 3}
    return [metrics.dcg(ranking, grades, 5), metrics.idcg(ranking, grades, 5, ideal="retrieved"),
            metrics.ndcg(ranking, grades, 5, ideal="retrieved"), metrics.idcg(ranking, judged, 5),
            metrics.ndcg(ranking, judged, 5)]


def _diagnose() -> list[float]:
    sc = diagnose.scenario(load_content("diagnose", "en"))
    table = metrics.evaluate(sc.run, sc.qrels, ["R@3", "RR@3"])
    rows = [v for q in sc.run for v in (int(q[1:]), table.at[q, "R@3"], table.at[q, "RR@3"])]
    faith = diagnose.faithfulness_table(sc)
    return [*rows, table["R@3"].mean(), table["RR@3"].mean(), faith.mean_all,
            faith.mean_retrieved, faith.mean_failed]


def _faithfulness() -> list[float]:
    ex = load_content("faithfulness", "ar")["example"]
    crude = faithfulness.crude_check(ex["answer"].strip(), ex["source"].strip())
    return [*[v for n, r in enumerate(crude, 1) for v in (n, r.support)],
            sum(r.verdict == "supported" for r in crude) / len(crude)]


# The numbers each lesson's program prints, in order, computed by metrics on the same example
# (a question id such as q3 prints as its number).
EXPECTED: dict[str, Callable[[], list[float]]] = {
    "two_stages": _two_stages,
    "recall_precision": _recall_precision,
    "mrr": _mrr,
    "ndcg": _ndcg,
    "diagnose": _diagnose,
    "faithfulness": _faithfulness,
}

LESSONS = sorted(d.name for d in LESSONS_DIR.iterdir()
                 if (d / "content.en.toml").exists() and "code" in load_content(d.name, "en"))


def program(folder: str, lang: str) -> str:
    return load_content(folder, lang)["code"]["python"]


def without_comments(code: str) -> list[str]:
    """The program's tokens, comments left out (what runs, whatever the language)."""
    tokens = tokenize.generate_tokens(io.StringIO(code).readline)
    return [t.string for t in tokens if t.type not in (tokenize.COMMENT, tokenize.NL)]


def shown_output(code: str) -> list[str]:
    """What the ``# → …`` comments say the program prints, in order."""
    return [m.group(1).strip() for line in code.splitlines() if (m := OUTPUT.search(line))]


def printed(code: str) -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<lesson code>", "exec"), {"__name__": "lesson_code"})
    return out.getvalue().splitlines()


def test_every_lesson_with_code_has_its_expected_numbers():
    assert set(LESSONS) == set(EXPECTED), "add the lesson's numbers to EXPECTED"
    assert {"two_stages", "recall_precision", "mrr", "ndcg", "diagnose"} <= set(LESSONS)


@pytest.mark.parametrize("folder", LESSONS)
def test_both_languages_show_the_same_program(folder: str):
    ar, en = (program(folder, lang) for lang in LANGS)
    assert without_comments(ar) == without_comments(en)
    assert shown_output(ar) == shown_output(en)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("folder", LESSONS)
def test_the_program_prints_what_it_shows(folder: str, lang: str):
    code = program(folder, lang)
    assert shown_output(code), "show the output with # → comments"
    assert printed(code) == shown_output(code)


@pytest.mark.parametrize("folder", LESSONS)
def test_the_printed_numbers_are_the_metrics_numbers(folder: str):
    lines = printed(program(folder, "en"))
    numbers = [float(n) for line in lines for n in NUMBER.findall(line)]
    expected = EXPECTED[folder]()
    assert len(numbers) == len(expected), (numbers, expected)
    for shown, right in zip(numbers, expected, strict=True):
        decimals = 4
        text = f"{shown}"
        if "." in text:
            decimals = len(text.split(".")[1])
        assert round(right, decimals) == pytest.approx(shown, abs=10 ** -decimals / 2 + 1e-12), (
            shown, right)


def test_a_wrong_program_is_caught():
    wrong = "print(1 / 3)  # → 0.5\n"
    assert printed(wrong) != shown_output(wrong)
