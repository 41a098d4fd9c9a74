"""Lesson 4's plain functions: run both checkers and arrange what they saw for display.

No Streamlit here. All judging is done by ``metrics.faithfulness``; this module limits the
input, picks an example, builds the HTML of each sentence as the checker saw it (its claims,
words found and not found, the equivalences used, the warnings: every piece of typed text
escaped), reads the checker's measured agreement with people, and explains the exercise.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from metrics import faithfulness
from metrics import faithfulness_agreement as agreement
from text.bidi import escape_html, isolate, strip_bidi_controls
from text.i18n import Markup, fill, list_separator

MAX_CHARS = 20_000          # a text area holds at most this much (a long paste is cut here)
MAX_SHOWN = 40              # sentences drawn one by one; the score still covers them all
DEFAULT_THRESHOLD = 0.6
EXAMPLES = ("ar", "en")
# The "try this" edits of each example (their texts: the example's ``[[example.edits]]``; their
# labels and notes: ``[try_it.edit_labels.<ex>]``, ``[try_it.edit_notes.<ex>]``). Each example
# gets edits that break the crude check in its own language (English has no diacritics), then
# a paraphrase and a compound sentence the careful checker reads claim by claim.
EDITS = {
    "ar": ("diacritics", "digits", "negate", "other_lang", "paraphrase", "compound"),
    "en": ("plural", "digits", "negate", "arabic_word", "paraphrase", "compound"),
}
ALL_EDITS = ("none", *dict.fromkeys(e for edits in EDITS.values() for e in edits))
VERDICTS = ("supported", "unsupported", "check", "not_scored")
# The agreement table's rows, in the order the lesson explains them (the labelled sets' kinds).
KINDS = ("verbatim", "paraphrase", "no_claim", "negated", "wrong_value", "pieced", "compound",
         "invented")


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

    @property
    def crude_score(self) -> float | None:
        """The crude check's share of supported sentences; None when it has none: no sentence,
        or one it stops on (no Arabic word: the program on the page divides by zero and
        prints no score, so the strip shows none either; round 55)."""
        rows = self.crude
        if not rows or any(r.support is None for r in rows):
            return None
        return sum(r.verdict == "supported" for r in rows) / len(rows)


def run(source: str, answer: str, threshold: float) -> Result:
    source, answer = clip(source), clip(answer)
    return Result(faithfulness.check(answer, source, threshold),
                  faithfulness.crude_check(answer, source, threshold))


def edit_values(example: Mapping, edit: str, threshold: float = DEFAULT_THRESHOLD
                ) -> dict[str, str]:
    """What an edit's note quotes, from the checkers themselves: the changed sentence's crude
    support (``crude``), the careful checker's support (``careful``) and its content words
    found / all (``found``, ``words``)."""
    i = changed_sentences(example, edit)[0]
    result = run(*example_texts(example, edit), threshold)
    sent = result.report.sentences[i]
    found, words = _counts(sent)
    return {"crude": percent(result.crude[i].support), "careful": percent(sent.support),
            "found": str(found), "words": str(words)}


def _counts(part) -> tuple[int, int]:
    """Content words found and in all (a number phrase counts once)."""
    found = len(_distinct(w for w in part.matched if w.kind != "negator"))
    return found, found + len(_distinct(w for w in part.unmatched if w.kind != "negator"))


def percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}".replace("%", " %")


def counts(report: faithfulness.Report) -> dict[str, int]:
    c = {v: 0 for v in VERDICTS}
    for s in report.sentences:
        c[s.verdict] += 1
    return c


# ------------------------------------------------------------------ what the checker saw
def _distinct(words) -> list[faithfulness.Word]:
    """Words in order, one per span (a dual such as يومين is a number and a noun: one span)."""
    seen: dict[tuple[int, int], faithfulness.Word] = {}
    for w in words:
        seen.setdefault((w.start, w.end), w)
    return sorted(seen.values(), key=lambda w: w.start)


def highlighted_html(part) -> str:
    """A sentence or a claim with matched words in <mark class="mz-hit"> and unmatched ones
    in <mark class="mz-miss">, built from the checker's character spans. Every piece of the
    text is escaped; the block is ``dir="auto"`` so it lays out in its own direction."""
    words = sorted([(w, "mz-hit") for w in part.matched]
                   + [(w, "mz-miss") for w in part.unmatched], key=lambda p: p[0].start)
    out, pos = [], part.start
    for word, cls in words:
        if word.start < pos:            # one span, two units (يومين: 2 + يوم): draw it once
            continue
        out.append(escape_html(_src(part, pos, word.start)))
        out.append(f'<mark class="{cls}">{escape_html(_src(part, word.start, word.end))}'
                   "</mark>")
        pos = word.end
    out.append(escape_html(_src(part, pos, part.end)))
    return f'<div class="mz-sentence" dir="auto">{"".join(out)}</div>'


def _src(part, start: int, end: int) -> str:
    """A slice of the answer, taken from the part's own text (spans are answer offsets)."""
    return part.text[start - part.start:end - part.start]


_STRONG = re.compile(r"(?P<rtl>[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc])|[A-Za-z\u00c0-\u024f]")


def text_direction(text: str) -> str | None:
    """"rtl" or "ltr" by the first strong letter (as ``dir="auto"`` decides); None if none."""
    m = _STRONG.search(text)
    return None if m is None else "rtl" if m.group("rtl") else "ltr"


def bar_html(support: float | None, verdict: str) -> str:
    width = 0 if support is None else round(support * 100)
    return (f'<div class="mz-bar" dir="ltr" role="img" aria-label="{percent(support)}">'
            f'<div class="mz-bar-fill mz-v-{verdict}" style="width:{width}%"></div></div>')


@dataclass(frozen=True)
class Reading:
    """One match that is not letter for letter, as the page explains it."""

    answer: str       # the answer's word
    source: str       # the source's word it was read as
    rule: str         # "group" | "opposite" | "number" | "stem" | "root"
    detail: str       # the group's name, or the number's value; "" otherwise


_RULES = {"same number": "number", "same stem": "stem", "same root letters": "root"}


def readings(claim: faithfulness.Claim) -> list[Reading]:
    """The equivalences the checker used for one claim (each answer → source pair once)."""
    values = {w.text: w.key[1:] for w in claim.matched if w.kind == "number"}
    out: dict[tuple[str, str], Reading] = {}
    for e in claim.equivalences:
        if e.via.startswith(("group: ", "opposite: ")):
            rule, detail = e.via.split(": ", 1)
        else:
            rule = _RULES[e.via]
            detail = values.get(e.answer, "") if rule == "number" else ""
        out.setdefault((e.answer, e.source), Reading(e.answer, e.source, rule, detail))
    return list(out.values())


def deciding_claim(sentence: faithfulness.Sentence) -> int | None:
    """The number (from 1) of the claim whose verdict the sentence took, when it was not
    supported; None when every claim is supported or nothing was scored."""
    if sentence.verdict in ("supported", "not_scored"):
        return None
    return next(n for n, c in enumerate(sentence.claims, start=1)
                if c.verdict == sentence.verdict)


def card_states(report: faithfulness.Report) -> tuple[tuple[str, str], ...]:
    """What a sentence card shows at a glance, per sentence: (verdict, support)."""
    return tuple((x.verdict, percent(x.support)) for x in report.sentences[:MAX_SHOWN])


def changed_cards(before: Sequence[tuple[str, str]] | None,
                  now: Sequence[tuple[str, str]]) -> set[int]:
    """Indexes of the cards the last edit changed (a new verdict or support, or a new
    sentence); none on the first drawing."""
    if before is None:
        return set()
    return {i for i, state in enumerate(now) if i >= len(before) or before[i] != state}


@functools.lru_cache(maxsize=256)
def _label_html(template: str, lang: str) -> str:
    """A content label as HTML (the same few labels on every edit: built once)."""
    return isolate(escape_html(template), lang)


class Card:
    """Builds the HTML of answer sentences as the checker saw them, in one language.

    ``text`` is the content file's ``[try_it]`` table (verdicts, warnings, labels, rules)."""

    def __init__(self, text: Mapping, lang: str) -> None:
        self.text, self.lang = text, lang
        self.dir = "rtl" if lang == "ar" else "ltr"
        self.words = text["labels"]

    def _t(self, key: str, values: Mapping[str, str] | None = None) -> str:
        return self._html(self.words[key], values)

    def _html(self, template: str, values: Mapping[str, str] | None = None) -> str:
        """Trusted text as HTML: escaped, placeholders filled with ready HTML, then its Latin
        (or Arabic) runs isolated (tags are left alone)."""
        if not values:
            return _label_html(template, self.lang)
        html = fill(escape_html(template), {k: Markup(v) for k, v in values.items()})
        return isolate(html, self.lang)

    def _head(self, number: str, verdict: str, support: float | None, cls: str,
              extra: str = "") -> str:
        return (f'<div class="{cls} mz-v-{verdict}"><span dir="ltr">{number}</span> · '
                f"{escape_html(self.text['verdicts'][verdict])} · "
                f'<bdi dir="ltr" class="mz-support">{percent(support)}</bdi>{extra}</div>')

    def sentence(self, number: int, sent: faithfulness.Sentence, mark: str = "") -> str:
        """One answer sentence: its verdict and support, then its claims (one or several),
        each with its words, evidence, equivalences, borrowed words and warnings. ``mark``:
        extra classes (a card the last edit changed)."""
        head = (self._head(str(number), sent.verdict, sent.support, "mz-verdict")
                + bar_html(sent.support, sent.verdict))
        if len(sent.claims) <= 1:
            body = highlighted_html(sent) + "".join(self._details(c) for c in sent.claims)
        else:
            decides = deciding_claim(sent)
            intro = (self._t("split_all_supported") if decides is None
                     else self._t("split", {"claim": f'<bdi dir="ltr">{number}.{decides}</bdi>'}))
            parts = "".join(self._claim(number, n, c, n == decides)
                            for n, c in enumerate(sent.claims, start=1))
            body = f'<div class="mz-split">{intro}</div><ol class="mz-parts">{parts}</ol>'
        cls = f"mz-claim {mark}".strip()
        return f'<div class="{cls}" dir="{self.dir}" lang="{self.lang}">{head}{body}</div>'

    def _claim(self, number: int, n: int, claim: faithfulness.Claim, decides: bool) -> str:
        mark = f' <span class="mz-decides">{self._t("decides")}</span>' if decides else ""
        cls = "mz-part mz-part-decides" if decides else "mz-part"
        head = self._head(f"{number}.{n}", claim.verdict, claim.support, "mz-part-head", mark)
        return f'<li class="{cls}">{head}{highlighted_html(claim)}{self._details(claim)}</li>'

    def _details(self, claim: faithfulness.Claim) -> str:
        if claim.verdict == "not_scored":
            return ""
        out = []
        if claim.evidence:
            # Evidence in the page's direction runs on after the label; in the other
            # direction it gets its own line, so it wraps and aligns as its own language does.
            inline = text_direction(claim.evidence) in (None, self.dir)
            tag = "span" if inline else "div"
            out.append(f'<div class="mz-evidence">{self._t("evidence")}:{" " if inline else ""}'
                       f'<{tag} dir="auto">{escape_html(claim.evidence)}</{tag}></div>')
        else:
            out.append(f'<div class="mz-evidence">{self._t("no_evidence")}</div>')
        shown = readings(claim)
        if shown:
            items = "; ".join(self._reading(r) for r in shown)
            out.append(f'<div class="mz-readings">{self._t("read_as")}: {items}</div>')
        elsewhere = _distinct(claim.elsewhere)
        if elsewhere:
            listed = list_separator(self.lang).join(
                f'<bdi dir="auto">{escape_html(w.text)}</bdi>' for w in elsewhere)
            out.append(f'<div class="mz-elsewhere">{self._t("elsewhere")}: {listed}</div>')
        warnings = self.text["warnings"]
        out += [f'<div class="mz-warning">⚠ {self._html(warnings[w])}</div>'
                for w in claim.warnings]
        return "".join(out)

    def _reading(self, r: Reading) -> str:
        arrow = self.words["arrow"]
        detail = {"detail": f'<bdi dir="auto">{escape_html(r.detail)}</bdi>'} if r.detail else None
        why_html = self._html(self.text["rules"][r.rule], detail)
        return (f'<span class="mz-reading"><bdi dir="auto">{escape_html(r.answer)}</bdi> '
                f'{arrow} <bdi dir="auto">{escape_html(r.source)}</bdi> ({why_html})</span>')


def strip_html(result: Result, text: Mapping, lang: str, previous: float | None) -> str:
    """The compact line that stays in view while editing: the checker's faithfulness as
    supported ÷ scored (and what it was before the last edit), and the crude check's score."""
    report, words = result.report, text["labels"]
    n = counts(report)
    scored = len(report.sentences) - n["not_scored"]

    def num(value: float | None) -> str:
        return "—" if value is None else f"{value:.2f}"

    change = ""
    if previous is not None and report.score is not None and abs(previous - report.score) > 1e-9:
        change = f'<span class="mz-was">{num(previous)} → </span>'
    ratio = f" = {n['supported']} ÷ {scored}" if scored else ""
    # the crude program stops on a sentence with no Arabic word: "—", and why on hover
    crashed = (f' title="{escape_html(words["crude_error"])}"'
               if any(r.support is None for r in result.crude) else "")
    share = escape_html(isolate(words["supported_count"], lang))
    items = [
        (words["score"], f'<bdi dir="ltr" class="mz-score" title="{share}">{change}'
                         f"<b>{num(report.score)}</b>{ratio}</bdi>"),
        (words["crude_score"], f'<bdi dir="ltr"{crashed}>{num(result.crude_score)}</bdi>'),
    ]
    spans = "".join(f'<span class="mz-fa-strip-item">{escape_html(isolate(label, lang))} {value}'
                    "</span>" for label, value in items)
    return (f'<div class="mz-fa-strip" dir="{"rtl" if lang == "ar" else "ltr"}" lang="{lang}" '
            f'role="status">{spans}</div>')


# ------------------------------------------------------------------ agreement with people
@dataclass(frozen=True)
class Agreement:
    """The checker's agreement with human labels on the labelled sets: ``tables[split]`` maps
    (kind, lang) to a :class:`metrics.faithfulness_agreement.Cell` (see that module)."""

    tables: Mapping[str, Mapping[tuple[str, str], agreement.Cell]]

    def lowest_kind(self, split: str = "heldout") -> str:
        table = self.tables[split]
        return min(KINDS, key=lambda k: (table[(k, "all")].share, KINDS.index(k)))


@functools.cache
def measured_agreement() -> Agreement | None:
    """Agreement on the development and held-out sets, computed once per process (~0.2 s;
    never during an edit). None when the labelled files are missing or unreadable."""
    try:
        return Agreement({split: agreement.agreement_table(
            agreement.load_items(agreement.LABELLED_SETS[split])) for split in ("heldout", "dev")})
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return None


def cell_text(cell: agreement.Cell, interval: bool = False) -> str:
    """``13/16`` or ``13/16 = 0.81 [0.57, 0.93]`` (agree/n, share, Wilson 95 % interval)."""
    if not interval:
        return f"{cell.agree}/{cell.n}"
    lo, hi = cell.interval
    return f"{cell.agree}/{cell.n} = {cell.share:.2f} [{lo:.2f}, {hi:.2f}]"


def agreement_rows(found: Agreement, kind_names: Mapping[str, str], total: str,
                   split: str = "heldout") -> list[list[object]]:
    """Rows of the agreement table: kind, Arabic, English, both with its interval."""
    table = found.tables[split]
    rows = [[kind_names[k], cell_text(table[(k, "ar")]), cell_text(table[(k, "en")]),
             cell_text(table[(k, "all")], interval=True)] for k in KINDS]
    rows.append([total, cell_text(table[("all", "ar")]), cell_text(table[("all", "en")]),
                 cell_text(table[("all", "all")], interval=True)])
    return rows


def agreement_values(found: Agreement, kind_names: Mapping[str, str]) -> dict[str, object]:
    """The numbers the section's prose quotes (placeholders of ``[checker]``)."""
    held, dev = found.tables["heldout"], found.tables["dev"]
    low = found.lowest_kind()
    return {
        "held_agree": held[("all", "all")].agree, "held_n": held[("all", "all")].n,
        "held_share": round(held[("all", "all")].share, 2),
        "dev_agree": dev[("all", "all")].agree, "dev_n": dev[("all", "all")].n,
        "dev_share": round(dev[("all", "all")].share, 2),
        "lowest_kind": Markup(kind_names[low]), "lowest": round(held[(low, "all")].share, 2),
    }


# ------------------------------------------------------------------ the exercise
def exercise_item(items: Sequence[Mapping], seed: int) -> Mapping:
    """One item of the content file's exercise bank, chosen by the seed."""
    return items[seed % len(items)]


def exercise_verdict(item: Mapping, source: str) -> str:
    """What the checker says about the item's answer sentence (the expected answer)."""
    return faithfulness.check(item["answer"], source).sentences[0].verdict


def exercise_reason(sentence: faithfulness.Sentence) -> str:
    """Why the checker judged an exercise sentence as it did: "supported", "unsupported", or
    for "check" the first warning it raised (a key of ``faithfulness.WARNINGS``, whose text
    is ``[try_it.warnings]``)."""
    if sentence.verdict == "check":
        return sentence.reasons[0]
    return "supported" if sentence.verdict == "supported" else "unsupported"


def exercise_step(picks: Sequence[str], expected: str, solution_asked: bool = False) -> str:
    """What the exercise shows after the learner's checks so far (``picks``, in order):
    "correct" when the last pick is the checker's verdict; "hint" after a first wrong pick
    (the mistake named, the answer kept back); "solution" after a second wrong pick or when
    the learner asks for it; "" before any check."""
    if picks and picks[-1] == expected:
        return "correct"
    if solution_asked or sum(p != expected for p in picks) >= 2:
        return "solution"
    return "hint" if picks else ""


def exercise_hint(picked: str, expected: str) -> str:
    """A key of ``[exercise.hints]``: the learner's wrong pick and the checker's verdict."""
    return f"{picked}_for_{expected}"


def exercise_feedback(picked: str, expected: str, sentence: faithfulness.Sentence) -> str:
    """A feedback key of ``[exercise.feedback]`` aimed at the likely mistake (``missed_check``
    quotes the warning: :func:`exercise_reason`)."""
    if picked == expected:
        return "correct"
    if expected == "check":
        return "missed_check"
    if expected == "unsupported":
        return "fooled_by_topic"
    return "too_strict"
