"""Lesson 4: faithfulness — each answer sentence checked against the sources, claim by claim.

Thin page: text and example texts from content.<lang>.toml, verdicts from
``metrics.faithfulness`` via ``logic``. The interactive comes first (the core idea is the
summary above it): a compact score line that stays in view, the answer, and each sentence as
the checker saw it; the example, the "try this" edits, the source and the threshold follow.
The interactive and the exercise are fragments.

URL state stays small: the threshold (``t``), the example (``ex``) and the "try this" edit
(``e``). Text the learner types (up to 20,000 characters) lives in session state only — it is
never written to the URL, so a long paste cannot make a broken link.
"""

from __future__ import annotations

import random

import streamlit as st

from lessons.faithfulness import logic
from runtime import state
from text.bidi import escape_html, isolate
from text.i18n import current_lang, direction, fill, load_content, t
from ui import layout, tables
from ui.code_path import code_path
from ui.quiz import quiz

FOLDER = "faithfulness"
FIELDS = {
    "t": state.float_field(logic.DEFAULT_THRESHOLD, lo=0.0, hi=1.0),
    "ex": state.choice_field("ar", logic.EXAMPLES),
    "e": state.choice_field("none", logic.ALL_EDITS),
}
EXERCISE_FIELDS = {"q": state.int_field(0, lo=0, hi=10_000)}
PREVIOUS_SCORE = "fa-previous-score"     # the score before the last edit (session only)
PREVIOUS_CARDS = "fa-previous-cards"    # (each card's verdict and support, changes so far)
ATTEMPTS = "fa-ex-attempts"              # (item on screen, verdicts checked on it so far)
SOLUTION_ASKED = "fa-ex-solution"        # the item whose solution the learner asked for

c = load_content(FOLDER)
labels = c["try_it"]["labels"]
card = logic.Card(c["try_it"], current_lang())


def _examples(lang: str) -> dict:
    return load_content(FOLDER, lang)["example"]


def _choose(s: state.UrlState, ex: str, edit: str) -> None:
    s.set(ex=ex, e=edit)


def _crude_html(result: logic.Result) -> str:
    rows = []
    for i, row in enumerate(result.crude[:logic.MAX_SHOWN], start=1):   # as many as drawn right
        verdict = (labels["crude_error"] if row.support is None
                   else c["try_it"]["verdicts"][row.verdict])
        rows.append(f'<tr><td dir="ltr">{i}</td><td dir="auto">{escape_html(row.sentence)}</td>'
                    f'<td dir="ltr" class="mz-crude-pct">{logic.percent(row.support)}</td>'
                    f"<td>{escape_html(isolate(verdict, current_lang()))}</td></tr>")
    head = "".join(f"<th>{escape_html(labels[k])}</th>"
                   for k in ("sentence_no", "sentence", "support", "verdict"))
    return (f'<table class="mz-crude" dir="{direction()}"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def _pick_example(s: state.UrlState) -> None:
    _choose(s, st.session_state[s.key("ex")], "none")


def _edit_note(ex: str, edit: str) -> str:
    """What an edit shows, in the page's language, quoting the checkers' own numbers."""
    return fill(c["try_it"]["edit_notes"][ex][edit], logic.edit_values(_examples(ex), edit))


@st.fragment
@layout.friendly_errors("faithfulness.try_it")
def interactive() -> None:
    s = state.url_state(FOLDER, FIELDS)
    if s["e"] not in ("none", *logic.EDITS[s["ex"]]):   # another example's edit (?ex=en&e=…)
        st.warning(t("url.bad_value", name="e"), icon=":material/link_off:")
        s.set(e="none")
    # Drawn top to bottom: the score line, the answer beside its verdicts (stacked on a
    # phone: the answer, then the verdicts), the crude check, then the controls. The verdicts
    # need the controls' values, so their boxes are filled last.
    strip = st.container(key="fa-strip")
    default_source, default_answer = logic.example_texts(_examples(s["ex"]), s["e"])
    # The text areas' keys carry the example and edit: choosing one loads its texts afresh.
    # What the learner types stays in session state only (not in the URL).
    tag = f"{s.key('txt')}.{s['ex']}.{s['e']}"
    # Side by side on a laptop and a projector alike (the verdicts on the first screen);
    # stacked on a phone.
    left, right = st.columns([2, 3])
    answer = left.container(key="fa-answer").text_area(
        layout.label(labels["answer"]), value=default_answer,
        height=130 if layout.is_presenting() else 190,     # the projector: verdicts in view
        key=f"fa-ans.{tag}")   # no max_chars: Streamlit drops a longer paste without a word
    cut_note(answer, left)
    boxes = Boxes(strip, right.container(key="fa-verdicts"), st.container(key="fa-crude"))
    source, threshold = controls(s, tag, default_source)
    boxes.fill(logic.run(source, answer, threshold), answer)


def cut_note(text: str, where) -> None:
    """A pasted text longer than the checkers read: say where it is cut."""
    if len(text or "") > logic.MAX_CHARS:
        # grouped as prose writes it: "20,000" («٢٠٬٠٠٠» with Arabic-Indic digits)
        where.caption(layout.label(fill(labels["text_cut"], {"n": f"{logic.MAX_CHARS:,}"})))


def controls(s: state.UrlState, tag: str, default_source: str) -> tuple[str, float]:
    """The "try this" edits, the example, the source and the threshold: (source, threshold)."""
    layout.markdown(c["try_it"]["body"])
    edits = ("none", *logic.EDITS[s["ex"]])
    edit_labels = {"none": labels["edit_none"], **c["try_it"]["edit_labels"][s["ex"]]}
    layout.markdown(f"**{labels['try_this']}**")
    row = st.container(horizontal=True, key="fa-edits")
    for edit in edits:
        row.button(layout.label(edit_labels[edit]), key=f"fa-edit-{edit}", on_click=_choose,
                   args=(s, s["ex"], edit), type="primary" if s["e"] == edit else "secondary")
    if s["e"] != "none":            # what this edit shows, in the page's language
        st.info(layout.label(_edit_note(s["ex"], s["e"])), icon=":material/lightbulb:")
    ex_names = {"ar": labels["example_ar"], "en": labels["example_en"]}
    # A callback, so the answer drawn above already belongs to the example chosen.
    st.radio(layout.label(labels["example"]), logic.EXAMPLES, index=logic.EXAMPLES.index(
        s["ex"]), format_func=ex_names.__getitem__, horizontal=True, key=s.key("ex"),
        on_change=_pick_example, args=(s,))
    source = st.text_area(layout.label(labels["source"]), value=default_source, height=110,
                          key=f"fa-src.{tag}")
    cut_note(source, st)
    threshold = st.slider(layout.label(labels["threshold"]), 0.0, 1.0, value=s["t"], step=0.05,
                          key=s.key("t"))
    s.set(t=round(threshold, 2))
    return source, s["t"]


class Boxes:
    """Where the results go: the score line, the checker's verdicts, the crude check."""

    def __init__(self, strip, verdicts, crude) -> None:
        self.strip, self.verdicts, self.crude = strip, verdicts, crude

    def fill(self, result: logic.Result, answer: str) -> None:
        report = result.report
        previous = st.session_state.get(PREVIOUS_SCORE)
        st.session_state[PREVIOUS_SCORE] = report.score
        self.strip.markdown(logic.strip_html(result, c["try_it"], current_lang(), previous),
                            unsafe_allow_html=True)
        with self.verdicts:
            layout.markdown(f"**{labels['better_heading']}**")
            if not report.sentences:
                st.info(labels["empty"])
                return
            if report.score is None:
                st.info(labels["no_score"])
            # The cards the last edit changed glow for a moment (two class names in turn,
            # so that the next change restarts the glow; a still outline under reduced motion).
            states = logic.card_states(report)
            before, seq = st.session_state.get(PREVIOUS_CARDS, (None, 0))
            changed = logic.changed_cards(before, states)
            seq += bool(changed)
            st.session_state[PREVIOUS_CARDS] = (states, seq)
            mark = f"mz-fa-changed mz-fa-flash-{seq % 2}"
            shown = report.sentences[:logic.MAX_SHOWN]
            st.markdown("".join(card.sentence(i, x, mark if i - 1 in changed else "")
                                for i, x in enumerate(shown, start=1)), unsafe_allow_html=True)
            st.caption(layout.label(labels["legend"]))
        with self.crude:
            layout.markdown(f"**{labels['crude_heading']}**")
            st.markdown(_crude_html(result), unsafe_allow_html=True)
            if max(len(report.sentences), len(result.crude)) > logic.MAX_SHOWN:
                st.caption(layout.label(fill(labels["too_many"], {
                    "n": logic.MAX_SHOWN, "total": len(report.sentences)})))
            if len(answer) > 2_000:
                st.caption(layout.label(labels["long_text"]))


def core_idea() -> None:
    """The core idea in full, with one compound sentence split into claims by the checker."""
    layout.section(c, "core_idea")
    lang = current_lang()
    source, answer = logic.example_texts(_examples(lang), "compound")
    sent = logic.run(source, answer, logic.DEFAULT_THRESHOLD).report.sentences[0]
    st.markdown(card.sentence(1, sent), unsafe_allow_html=True)
    layout.markdown(c["core_idea"]["split_note"])
    layout.markdown(c["core_idea"]["judge"])


def checker_agreement() -> None:
    """How often the checker agrees with people, by kind (computed once per process)."""
    part = c["checker"]
    layout.section(c, "checker", body=False)
    found = logic.measured_agreement()
    if found is None:
        st.info(layout.label(part["missing"]))
        return
    kinds = part["kinds"]
    layout.markdown(part["body"], logic.agreement_values(found, kinds))
    layout.markdown(tables.table(
        [part["kind"], part["lang_ar"], part["lang_en"], part["lang_all"]],
        logic.agreement_rows(found, kinds, part["total"])))
    st.caption(layout.label(part["caption"]))
    layout.markdown(part["limits"])


def _new_item(s: state.UrlState, n_items: int, key: str) -> None:
    """Another item, never the one on screen, with nothing picked or checked yet."""
    for name in (f"{key}-pick", ATTEMPTS, SOLUTION_ASKED):
        st.session_state.pop(name, None)
    s.set(q=(s["q"] + random.randrange(1, n_items)) % 10_000)


def _why(sent) -> dict[str, str]:
    """The ``{{why}}`` of a "check" verdict: the text of the first warning the checker raised."""
    reason = logic.exercise_reason(sent)
    return {"why": c["try_it"]["warnings"].get(reason, "")}


def _exercise_reveal(source: str, answer: str) -> None:
    """The checker's verdict on the exercise sentence, why, and what it saw."""
    sent = logic.run(source, answer, logic.DEFAULT_THRESHOLD).report.sentences[0]
    reveal = c["exercise"]["reveal"]
    layout.markdown(reveal["verdict"], {"verdict": c["try_it"]["verdicts"][sent.verdict]})
    reason = "check" if sent.verdict == "check" else logic.exercise_reason(sent)
    layout.markdown(fill(reveal[reason], _why(sent)) if reason == "check" else reveal[reason])
    st.markdown(card.sentence(1, sent), unsafe_allow_html=True)


def _attempts(key: str) -> list[str]:
    """The verdicts checked so far on the item on screen (session only)."""
    item, picks = st.session_state.get(ATTEMPTS, ("", []))
    return picks if item == key else []


def _check(key: str) -> None:
    picked = st.session_state.get(f"{key}-pick")
    if picked:
        st.session_state[ATTEMPTS] = (key, [*_attempts(key), picked])


def _show_solution(key: str) -> None:
    st.session_state[SOLUTION_ASKED] = key


@st.fragment
@layout.friendly_errors("faithfulness.exercise")
def exercise() -> None:
    s = state.url_state(FOLDER + "_exercise", EXERCISE_FIELDS)
    words = c["exercise"]["labels"]
    source = c["example"]["source"].strip()
    items = c["exercise"]["items"]
    item = logic.exercise_item(items, s["q"])
    layout.markdown(f"**{words['source']}:** {{{{source}}}}\n\n"
                    f"**{words['sentence']}:** {{{{sentence}}}}",
                    {"source": source, "sentence": item["answer"]})
    key = f"fa-ex-{s['q'] % len(items)}"
    new_item = {"key": "fa-ex-new", "on_click": _new_item, "args": (s, len(items), key),
                "icon": ":material/casino:"}
    if layout.is_presenting():      # the class thinks first; the answer waits behind "reveal"
        st.button(words["new"], **new_item)
        layout.answer_block(key, lambda: _exercise_reveal(source, item["answer"]))
        return
    verdict_names = c["try_it"]["verdicts"]
    options = ("supported", "unsupported", "check")
    picked = st.radio(layout.label(words["pick"]), options, index=None,
                      format_func=verdict_names.__getitem__, key=f"{key}-pick")
    row = st.container(horizontal=True)
    row.button(words["check"], key="fa-ex-check", disabled=picked is None, on_click=_check,
               args=(key,))
    row.button(words["new"], **new_item)
    picks = _attempts(key)
    if not picks and st.session_state.get(SOLUTION_ASKED) != key:
        return
    sent = logic.run(source, item["answer"], logic.DEFAULT_THRESHOLD).report.sentences[0]
    step = logic.exercise_step(picks, sent.verdict, st.session_state.get(SOLUTION_ASKED) == key)
    if step == "hint":      # a first wrong answer: the mistake named, the verdict kept back
        st.warning(layout.label(c["exercise"]["hints"][logic.exercise_hint(picks[-1],
                                                                           sent.verdict)]))
        st.button(words["show"], key="fa-ex-show", on_click=_show_solution, args=(key,),
                  icon=":material/visibility:")
        return
    if step == "correct":
        st.success(layout.label(c["exercise"]["feedback"]["correct"]))
    else:                   # the solution: the mistake explained, then the checker's verdict
        mistake = logic.exercise_feedback(picks[-1], sent.verdict, sent)
        st.error(layout.label(fill(c["exercise"]["feedback"][mistake], _why(sent))))
        layout.markdown(c["exercise"]["reveal"]["verdict"],
                        {"verdict": c["try_it"]["verdicts"][sent.verdict]})
    st.markdown(card.sentence(1, sent), unsafe_allow_html=True)


def worked_values() -> dict[str, object]:
    ar = _examples("ar")
    result = logic.run(ar["source"], ar["answer"], logic.DEFAULT_THRESHOLD)
    values: dict[str, object] = {
        f"crude_{i}": logic.percent(r.support) for i, r in enumerate(result.crude, 1)}
    values |= {f"careful_{i}": logic.percent(x.support)
               for i, x in enumerate(result.report.sentences, 1)}
    values["score"] = round(result.report.score, 2)
    return values


layout.lesson_css("faithfulness")
layout.lesson_header(c, FOLDER, sections=layout.INTERACTIVE_FIRST)
with layout.section(c, "try_it", body=False):
    interactive()
core_idea()
values = worked_values()
with layout.section(c, "worked_example", values=values):
    code_path(c)            # the crude check in Python, run on this example
checker_agreement()
layout.section(c, "faithful_correct")
layout.myths(c)
with layout.section(c, "exercise"):
    exercise()
layout.flashcards(c)
with layout.section(c, "quiz"):
    quiz(FOLDER)
