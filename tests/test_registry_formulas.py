"""The registry's formulas are shown on Arabic pages too (the lab's formulas panel, a result
column's hover text), where KaTeX cannot lay Arabic words out inside a formula and English words
would leak into the page: so a formula is written in symbols only, and a legend in each language
says what its symbols are."""

from __future__ import annotations

import re

import pytest

import metrics
from tests.content_files import LANGS

# \text{...}, \textrm{...}, \mbox{...}: where words would hide in LaTeX
TEXT = re.compile(r"\\(?:text[a-z]*|mbox)\{([^{}]*)\}")
MATHRM = re.compile(r"\\mathrm\{([^{}]*)\}")
INLINE_MATH = re.compile(r"\$([^$]+)\$")
ARABIC = re.compile(r"[\u0600-\u06ff]")


def symbols(formula: str) -> set[str]:
    """The names of sets and grades in ``formula`` (``\\mathrm{Rel}``), not of measures
    (``\\mathrm{P@}``, ``\\mathrm{bpref}``)."""
    measures = {name.lower() for name in metrics.REGISTRY}
    return {f"\\mathrm{{{name}}}" for name in MATHRM.findall(formula)
            if not name.endswith("@") and name.lower() not in measures and "\\" not in name}


@pytest.mark.parametrize(("formula", "words"), [
    (r"\mathrm{P@}k = \frac{|\text{relevant in top } k|}{k}", True),
    (r"(0 \text{ if } R = 0)", True),
    (r"\mathrm{R\text{-}prec} = \mathrm{P@}R", False),
    (r"\mathrm{P@}k = \frac{|\mathrm{Rel} \cap \mathrm{Top}_k|}{k}", False),
    (r"\mathrm{the top}_k", True),
])
def test_words_finds_words_in_a_formula(formula, words):
    assert bool(in_words(formula)) == words


def in_words(formula: str) -> list[str]:
    """The words in ``formula``: any letter inside \\text{}, a space inside \\mathrm{}."""
    return ([t for t in TEXT.findall(formula) if re.search(r"[^\W\d_]", t)]
            + [n for n in MATHRM.findall(formula) if " " in n.strip()])


@pytest.mark.parametrize("name", sorted(metrics.REGISTRY))
def test_a_formula_is_written_in_symbols_only(name):
    assert in_words(metrics.REGISTRY[name].formula) == []


@pytest.mark.parametrize("name", sorted(metrics.REGISTRY))
def test_every_formula_has_a_legend_in_each_language_naming_its_symbols(name):
    measure = metrics.REGISTRY[name]
    assert measure.formula
    for lang in LANGS:
        legend = measure.legend.get(lang, "")
        assert legend.strip(), (name, lang)
        math = " ".join(INLINE_MATH.findall(legend))
        assert symbols(measure.formula) <= symbols(math), (name, lang, legend)
        # no equation in a legend: KaTeX breaks a line after "=", which in an Arabic line puts
        # the two sides in the wrong order
        assert not re.search(r"[=<>]|\\[lg]e\b", math), (name, lang, legend)
        # each symbol is inline math, so the page isolates it as one left-to-right run
        assert "\\" not in INLINE_MATH.sub("", legend), (name, lang, legend)
        assert bool(ARABIC.search(legend)) == (lang == "ar"), (name, lang, legend)
