"""Every formula in Arabic prose reads as one left-to-right unit (issue #14, item 21).

Inside a right-to-left paragraph the renderer isolates each Latin/number run
(``text.bidi.isolate_latin``), and the paragraph lays the runs and what is between them out
right to left. A formula is safe only when it is one run: an operator outside the runs, next to
one (``F1@3 = 2 × الدقة … = 0.4``, ``R = كل المستندات``), puts the pieces in the wrong order. So
a formula in Arabic text is written all in symbols (bold around the whole of it), and a rule with
Arabic words in it is written as a sentence («الأمانة نسبة الجمل المدعومة إلى جمل الإجابة
كلها»), never with "=" between the words («الكسب = الدرجة» is «الكسب هو الدرجة نفسها»). Nor may
Arabic words be the left side of an equation whose run starts with a bare number: «في أول {{k}} =
{{retrieved}}» shows the one run «3 = 1», a false equation. This test renders every Arabic text
the way the page does (placeholders become numbers) and finds every operator that touches a run
from outside, every "=" that touches an Arabic word, and every such "number =" run.
"""

from __future__ import annotations

import re

import pytest

from tests.content_files import arabic_texts
from text.bidi import LRI, PDI, isolate_latin

PLACEHOLDER = re.compile(r"\{\{[^{}]*\}\}")
FENCE = re.compile(r"```.*?```", re.S)
OPERATORS = "=÷×≈≤≥+−"
# an operator outside every isolate, next to one (bold marks and spaces may sit between)
LOOSE = re.compile(rf"{PDI}[ *_]*[{OPERATORS}]|[{OPERATORS}][ *_]*{LRI}")
# prose punctuation swallowed into a run: "RR@k**: 1" would read "1 :RR@k" right to left
ISOLATE = re.compile(rf"{LRI}([^{PDI}]*){PDI}")
SWALLOWED = re.compile(r"[:;،]\s|\*\*\s*[:;،.]")
CODE = re.compile(r"`[^`]*`")
ARABIC = "\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufeff"
# "=" with an Arabic word on either side (bold marks and spaces may sit between)
WORDS_EQUAL = re.compile(rf"[{ARABIC}][ *_]*=|=[ *_]*[{ARABIC}]")
# Arabic words, then a run that starts "number =": the words are the equation's left side
NUMBER_EQUALS = re.compile(rf"[{ARABIC}][ *_]*{LRI}\d+(?:\.\d+)? ?=")

# Texts whose "=" is not a symbolic formula (nothing to isolate as one LTR run): where, and
# why. A test fails once an entry no longer matches anything (then delete it).
NOT_FORMULAS: dict[str, str] = {
    "lessons/lab/content.ar.toml:intro.body":
        "«0 = غير ذي صلة، و1 فأكثر = ذو صلة»: a legend, not a formula",
    "lessons/live/content.ar.toml:compose.seed_help":
        "the URL keys «ex=» and «s=», not formulas",
    "lessons/live/content.ar.toml:compose.ranking_help":
        "the URL key «r=», not a formula",
}


def loose(text: str) -> list[str]:
    """Each place in ``text`` where an operator sits outside the isolated runs, next to one."""
    shown = isolate_latin(FENCE.sub("", PLACEHOLDER.sub("7", text)))
    found = [m for rule in (LOOSE, WORDS_EQUAL, NUMBER_EQUALS) for m in rule.finditer(shown)]
    found += [m for m in ISOLATE.finditer(shown) if SWALLOWED.search(CODE.sub("", m.group(1)))]
    return [shown[max(0, m.start() - 25):m.end() + 25].replace(LRI, "[").replace(PDI, "]")
            for m in found]


@pytest.mark.parametrize(("text", "broken"), [
    ("مقياس F1@3 = 2 × الدقة × الاستدعاء ÷ (الدقة + الاستدعاء) = 2 × 1/3 = **0.4**", True),
    ("R = كل المستندات ذات الصلة", True),
    ("فالأمانة = 0.67", True),
    ("الاستدعاء **recall@3 = 1/2 = 0.5**، أي النصف.", False),
    ("المستندات ذات الصلة في أول k ÷ R", False),      # k ÷ R is one run
    ("فالأمانة {{a}}/{{b}} = {{c}}.", False),
    ("والأمانة نسبة الجمل المدعومة إلى جمل الإجابة كلها.", False),
    ("الكسب = الدرجة", True),                           # "=" between Arabic words
    ("خطي: **الكسب = الدرجة**", True),
    ("الكسب هو الدرجة نفسها", False),                    # the same rule as a sentence
    ("وذات الصلة في أول {{k}} = {{n}}، وmin(k, R) = {{m}}.", True),  # shows «في أول 3 = 1»
    ("وعدد ذات الصلة في أول {{k}} هو {{n}}، وmin(k, R) = {{m}}.", False),
    ("عند k = {{k}} تصير الدقة {{p}}.", False),          # the run "k = 3" is a whole equation
    ("**مقلوب المرتبة RR@k**: 1 مقسومًا على المرتبة", False),  # the colon ends the run
    ("القيم `{q: {d: 1}}` في الملف", False),            # code keeps its own colons
])
def test_loose_finds_a_broken_formula(text: str, broken: bool):
    assert bool(loose(text)) == broken


def test_every_formula_in_arabic_text_is_one_run():
    """Prose only: a lesson's program (``code.python``) is shown as code, left to right."""
    found = [f"{where}: …{s}…" for where, text in arabic_texts()
             if where not in NOT_FORMULAS and not where.endswith(".python") for s in loose(text)]
    assert found == []


@pytest.mark.parametrize("where", sorted(NOT_FORMULAS))
def test_every_waiver_is_still_needed(where: str):
    texts = dict(arabic_texts())
    assert where in texts and loose(texts[where]), f"{where}: fixed, delete its waiver"
