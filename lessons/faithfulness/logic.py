"""Lesson 4's plain functions: run both checkers and arrange their results for display.

No Streamlit here. All judging is done by ``metrics.faithfulness``; this module only limits the
input, picks an example and builds the highlighted HTML (every piece of typed text escaped).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from metrics import faithfulness
from text.bidi import escape_html, strip_bidi_controls

MAX_CHARS = 20_000          # a text area holds at most this much (a long paste is cut here)
MAX_SHOWN = 40              # sentences drawn one by one; the score still covers them all
DEFAULT_THRESHOLD = 0.6
EXAMPLES = ("ar", "en")
# The "try this" edits of each example (their texts: the example's ``[[example.edits]]``; their
# labels and notes: ``[try_it.edit_labels.<ex>]``, ``[try_it.edit_notes.<ex>]``). Each example
# gets edits that break the crude check in its own language: English has no diacritics.
EDITS = {
    "ar": ("diacritics", "digits", "negate", "other_lang"),
    "en": ("plural", "digits", "negate", "arabic_word"),
}
ALL_EDITS = ("none", *dict.fromkeys(e for edits in EDITS.values() for e in edits))
VERDICTS = ("supported", "unsupported", "check", "not_scored")


def clip(text: object) -> str:
    """Typed text as the checkers see it: a string, bidi controls removed, at most MAX_CHARS."""
    return strip_bidi_controls(str(text or ""))[:MAX_CHARS]


def example_texts(example: Mapping, edit: str) -> tuple[str, str]:
    """(source, answer) of a content file's ``[example]`` table with one "try this" edit
    (KeyError if the example has no such edit)."""
    if edit == "none":
        answer = example["answer"]
    else:
        answers = {e["id"]: e["answer"] for e in example["edits"]}
        if edit not in answers:
            raise KeyError(edit)
        answer = answers[edit]
    return example["source"].strip(), answer.strip()


def changed_sentences(example: Mapping, edit: str) -> list[int]:
    """Indexes of the answer sentences an edit changed (compared with the original answer)."""
    _, original = example_texts(example, "none")
    _, edited = example_texts(example, edit)
    before = [original[a:b] for a, b in faithfulness.split_sentences(original)]
    after = [edited[a:b] for a, b in faithfulness.split_sentences(edited)]
    return [i for i, text in enumerate(after) if i >= len(before) or text != before[i]]


@dataclass(frozen=True)
class Result:
    report: faithfulness.Report
    crude: list[faithfulness.CrudeRow]


def run(source: str, answer: str, threshold: float) -> Result:
    source, answer = clip(source), clip(answer)
    return Result(faithfulness.check(answer, source, threshold),
                  faithfulness.crude_check(answer, source, threshold))


def percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}".replace("%", " %")


def highlighted_html(sentence: faithfulness.Sentence) -> str:
    """The sentence with matched words in <mark class="mz-hit"> and unmatched ones in
    <mark class="mz-miss">, built from the checker's character spans. Every piece of the
    sentence is escaped; the block is ``dir="auto"`` so it lays out in its own direction."""
    words = sorted([(w, "mz-hit") for w in sentence.matched]
                   + [(w, "mz-miss") for w in sentence.unmatched], key=lambda p: p[0].start)
    out, pos = [], sentence.start
    for word, cls in words:
        if word.start < pos:            # overlapping spans cannot happen; never draw twice
            continue
        out.append(escape_html(_src(sentence, pos, word.start)))
        out.append(f'<mark class="{cls}">{escape_html(_src(sentence, word.start, word.end))}'
                   "</mark>")
        pos = word.end
    out.append(escape_html(_src(sentence, pos, sentence.end)))
    return f'<div class="mz-sentence" dir="auto">{"".join(out)}</div>'


def _src(sentence: faithfulness.Sentence, start: int, end: int) -> str:
    """A slice of the answer, taken from the sentence's own text (spans are answer offsets)."""
    return sentence.text[start - sentence.start:end - sentence.start]


_STRONG = re.compile(r"(?P<rtl>[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc])|[A-Za-z\u00c0-\u024f]")


def text_direction(text: str) -> str | None:
    """"rtl" or "ltr" by the first strong letter (as ``dir="auto"`` decides); None if none."""
    m = _STRONG.search(text)
    return None if m is None else "rtl" if m.group("rtl") else "ltr"


def bar_html(support: float | None, verdict: str) -> str:
    width = 0 if support is None else round(support * 100)
    return (f'<div class="mz-bar" dir="ltr" role="img" aria-label="{percent(support)}">'
            f'<div class="mz-bar-fill mz-v-{verdict}" style="width:{width}%"></div></div>')


def counts(report: faithfulness.Report) -> dict[str, int]:
    c = {v: 0 for v in VERDICTS}
    for s in report.sentences:
        c[s.verdict] += 1
    return c


# ------------------------------------------------------------------ the exercise
def exercise_item(items: list[Mapping], seed: int) -> Mapping:
    """One item of the content file's exercise bank, chosen by the seed."""
    return items[seed % len(items)]


def exercise_verdict(item: Mapping, source: str) -> str:
    """What the checker says about the item's answer sentence (the expected answer)."""
    return faithfulness.check(item["answer"], source).sentences[0].verdict


def exercise_reason(sentence: faithfulness.Sentence) -> str:
    """Why the checker judged an exercise sentence as it did: a key of ``[exercise.reveal]``."""
    if sentence.verdict == "check":
        return ("number" if "number_not_in_source" in sentence.warnings
                else "negation" if "negation_differs" in sentence.warnings else "name")
    return "supported" if sentence.verdict == "supported" else "unsupported"


def exercise_feedback(picked: str, expected: str, sentence: faithfulness.Sentence) -> str:
    """A feedback key of ``[exercise.feedback]`` aimed at the likely mistake."""
    if picked == expected:
        return "correct"
    if expected == "check" and "number_not_in_source" in sentence.warnings:
        return "missed_number"
    if expected == "check" and "negation_differs" in sentence.warnings:
        return "missed_negation"
    if expected == "check":
        return "missed_name"
    if picked == "supported":
        return "fooled_by_topic"
    return "too_strict"
