"""The exercise panel: one generated exercise (:mod:`teaching.exercises`), checked, with its
feedback and working — the same panel in every lesson and in /practice.

A lesson's "try it yourself" is one call (a fragment; its measure and seed live in the URL as
``exm`` and ``ex``, so a link reopens the same exercise)::

    exercise_panel.lesson_exercise("ndcg", ("dcg", "idcg", "ndcg"))

/practice draws its own picker and calls the parts::

    ex = exercises.generate("ndcg", seed, lang=current_lang())
    attempt = exercise_panel.show(ex, key="practice")
    exercise_panel.record(ex, attempt)   # counts in the learner's progress, once per answer

``show`` draws the case (the ranking as a compact table, documents as code, grades visible;
MRR's questions; the faithfulness source and answer), the question and the answer box — on one
phone screen — then the feedback in two steps: a first wrong answer names the mistake and gives
a hint (``first_try_feedback``: no number of the answer), a second one gets the full feedback
and the working. The working is shown at once after a correct answer, and is always one click
away behind "show the solution" (in the presenter view, behind a reveal toggle). A predict
exercise asks up/down/same and a rough size, then reveals before and after the same way.

Session keys start with ``f"{key}-{ex.kind}-{ex.metric}-{ex.seed}"``, so a new exercise under
the same ``key`` starts clean.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st

from runtime import local_store, state
from teaching import progress
from teaching.exercises import (
    FORM_SLIPS,
    MAX_SEED,
    PRACTICE_METRICS,
    PREDICT_DIRECTIONS,
    PREDICT_SIZES,
    Attempt,
    Exercise,
    check,
    check_prediction,
    doc_order,
    feedback,
    feedback_values,
    first_try_feedback,
    pick,
    steps,
    texts,
)
from text.i18n import Markup, current_lang, fill, fmt_num, list_separator
from ui import layout, tables

__all__ = ["PRACTICE_FIELDS", "lesson_exercise", "lesson_fields", "lesson_link",
           "measure_names", "practice_link", "record", "show"]


# --- a lesson's exercise ------------------------------------------------------------------------


# The exercise's place in a link, which reopens the same exercise: /practice's ``m`` (the
# measure) and ``s`` (its seed; ``p`` the predict exercise's), a lesson's ``exm`` and ``ex``.
PRACTICE_FIELDS: dict[str, state.Field] = {
    "m": state.choice_field(PRACTICE_METRICS[0], PRACTICE_METRICS),
    "s": state.int_field(1, lo=0, hi=MAX_SEED),
    "p": state.int_field(1, lo=0, hi=MAX_SEED),
}


def lesson_fields(measures: Sequence[str]) -> dict[str, state.Field]:
    """A lesson exercise's URL fields: ``ex`` (the seed) and ``exm`` (a measure or "any")."""
    return {"ex": state.int_field(1, lo=0, hi=MAX_SEED),
            "exm": state.choice_field("any", ("any", *measures))}


def practice_link(measure: str, seed: int) -> dict[str, str]:
    """The query params that open ``(measure, seed)`` on /practice."""
    return {"m": measure, "s": str(int(seed))}


def lesson_link(choice: str, seed: int) -> dict[str, str]:
    """The query params that open a lesson's exercise on ``choice`` (a measure or "any")."""
    return {"exm": choice, "ex": str(int(seed))}


def measure_names(options: Sequence[str]) -> dict[str, str]:
    """Each measure's name in the page's language (and "any"), formatted for a widget label."""
    words = texts()
    return {m: layout.label(words["labels"]["any"] if m == "any" else words["names"][m])
            for m in options}


@st.fragment
@layout.friendly_errors("exercise")
def lesson_exercise(folder: str, measures: Sequence[str]) -> None:
    """The lesson's "try it yourself": pick a measure (or any), get a new exercise, answer it."""
    s = state.url_state(f"{folder}_exercise", lesson_fields(measures))
    words = texts()["labels"]
    options = ("any", *measures)
    names = measure_names(options)
    # One row, on a phone too (columns would stack): the measure, then the dice.
    with st.container(horizontal=True, vertical_alignment="bottom", key=f"{folder}-ex-pick"):
        chosen = st.selectbox(layout.label(words["metric"]), options,
                              index=options.index(s["exm"]), format_func=names.__getitem__,
                              key=s.key("exm"))
        if s.set(exm=chosen):
            state.new_seed(s)
        layout.new_exercise_button(s, words["new"], key=f"{folder}-ex-new", width="content")
    ex = pick(measures, s["exm"], s["ex"], lang=current_lang())
    if record(ex, show(ex, key=f"{folder}-ex")):
        st.rerun()   # the shell saves progress after a full run, not after a fragment's


def record(ex: Exercise, attempt: Attempt | None) -> bool:
    """Count an answered exercise in the learner's progress (by its measure; predict exercises
    as "predict"). True when something was recorded."""
    if attempt is None or attempt.status not in ("correct", "wrong"):
        return False
    metric = "predict" if ex.kind == "predict" else ex.metric
    local_store.save(progress.record_exercise(local_store.current(), metric,
                                              attempt.status == "correct", int(time.time()),
                                              attempt.mistake))
    return True


def show(ex: Exercise, key: str) -> Attempt | None:
    """Render ``ex``; return the :class:`Attempt` of a submission made in this run, else None."""
    attempt = None
    with layout.friendly_errors("exercise_panel"):
        base = f"{key}-{ex.kind}-{ex.metric}-{ex.seed}"
        words = texts()["labels"]
        with st.container(key=f"mz-ex-{base}"):
            _case(ex, words)
            if ex.kind == "predict":
                attempt = _predict(ex, base, words)
            else:
                attempt = _compute(ex, base, words)
    return attempt


# --- the case ------------------------------------------------------------------------------------


def _case(ex: Exercise, words: Mapping[str, str]) -> None:
    values = feedback_values(ex)
    question = texts()["question"]["predict" if ex.kind == "predict" else ex.metric]
    sep = list_separator()
    if ex.metric == "mrr":
        rows = [[Markup(f"q{n}"), Markup(" ".join(tables.code(d) for d in ranking)),
                 Markup(sep.join(tables.code(d) for d in sorted(relevant, key=doc_order)))]
                for n, (ranking, relevant) in enumerate(ex.questions, start=1)]
        body = tables.table([words["question"], words["ranking"], words["relevant_set"]], rows)
        layout.markdown(f"{body}\n\n**{question}**", values)
        return
    if ex.metric == "faithfulness":
        _faithfulness_case(ex, words, question, values)
        return
    swap = set(ex.swap or ())
    graded = ex.graded or (ex.kind == "predict" and ex.metric == "ndcg")
    grades = ex.qrels
    rows = []
    for i, doc in enumerate(ex.ranking, start=1):
        mark = Markup(f"**{i}** ↕") if i in swap else i
        third = grades.get(doc, 0) if graded else Markup(
            words["relevant"] if doc in ex.relevant else words["not_relevant"])
        rows.append([mark, tables.code(doc), third])
    head = [words["rank"], words["document"], words["grade"] if graded else words["relevant"]]
    text = f"**{words['returned']}:**\n\n" + tables.table(head, rows)
    missed = ex.unretrieved
    if missed:
        label = words["judged_missed"] if graded else words["not_retrieved"]
        shown = sep.join(f"{tables.code(d)} ({g})" if graded else tables.code(d)
                         for d, g in missed)
        text += f"\n\n**{label}:** {shown}"
    layout.markdown(f"{text}\n\n**{question}**", values)


def _faithfulness_case(ex: Exercise, words: Mapping[str, str], question: str,
                       values: dict[str, Any]) -> None:
    # Generated sentences go in as values (escaped, each isolated in its own direction).
    source = {f"s{n}": text for n, text in enumerate(ex.source)}
    answer = {f"a{n}": text for n, (text, _) in enumerate(ex.sentences)}
    lines = [f"**{words['source']}:**", ""]
    lines += ["\n>\n".join(f"> {{{{{name}}}}}" for name in source)]   # one line per sentence
    lines += ["", f"**{words['answer_text']}:**", ""]
    lines += [f"{n}. {{{{{name}}}}}" for n, name in enumerate(answer, start=1)]
    lines += ["", f"**{question}**"]
    layout.markdown("\n".join(lines), {**values, **source, **answer})


# --- compute: type a number ---------------------------------------------------------------


def _record(base: str, attempt: Attempt, typed: str) -> None:
    st.session_state[f"{base}-attempt"] = (typed, attempt)
    if attempt.status == "wrong":
        st.session_state[f"{base}-wrong"] = st.session_state.get(f"{base}-wrong", 0) + 1


def _verdict(ex: Exercise, base: str) -> tuple[Attempt | None, bool]:
    """Show the feedback on the last answer. Returns it, and whether the working is due: after
    a right answer, or a second wrong one (a first wrong answer gets the mistake named and a
    hint, not the number)."""
    last = st.session_state.get(f"{base}-attempt")
    if last is None:
        return None, False
    attempt = last[1]
    full = (attempt.status != "wrong" or attempt.mistake in FORM_SLIPS
            or st.session_state.get(f"{base}-wrong", 0) >= 2)
    text = feedback(ex, attempt) if full else first_try_feedback(ex, attempt)
    layout.verdict_message(attempt.status, text)
    return attempt, full and attempt.status != "not_a_number"


def _compute(ex: Exercise, base: str, words: Mapping[str, str]) -> Attempt | None:
    placeholder = words["placeholder_graded" if ex.metric in ("dcg", "idcg") else "placeholder"]
    typed = layout.answer_form(base, words["your_answer"], placeholder, words["check"])
    new = None
    if typed is not None:
        # answer_form keeps the checked text for later reruns; taking it out here makes a
        # submission count once, while the verdict stays shown from "-attempt".
        st.session_state.pop(f"{base}-checked", None)
        new = check(ex, typed)
        _record(base, new, typed)
    _, due = _verdict(ex, base)
    _solution(ex, base, words, open_now=due)
    return new


def _steps_markdown(ex: Exercise) -> str:
    table = texts()["steps"]
    lines = []
    for n, step in enumerate(steps(ex), start=1):
        text = fill(table[step.key], step.values)
        formula = f"  \n`{step.formula}`" if step.formula else ""
        lines.append(f"{n}. {text}{formula}")
    return "\n".join(lines)


def _solution(ex: Exercise, base: str, words: Mapping[str, str], *, open_now: bool) -> None:
    def draw() -> None:
        layout.markdown(_steps_markdown(ex))

    if open_now and not layout.is_presenting():
        with st.container(key=f"mz-ex-steps-{base}"):
            layout.markdown(f"**{words['steps']}**")
            draw()
    else:
        layout.answer_block(f"{base}-solution", draw, label=words["solution"])


# --- predict: up / down / same, then reveal ------------------------------------------------


def _predict(ex: Exercise, base: str, words: Mapping[str, str]) -> Attempt | None:
    new = None
    with st.form(f"{base}-form", border=False):
        cols = layout.columns_for(2)
        # option labels formatted once this run (the test client replays format_func later)
        names = {o: layout.label(words[o]) for o in (*PREDICT_DIRECTIONS, *PREDICT_SIZES)}
        direction = cols[0].radio(layout.label(words["direction"]), PREDICT_DIRECTIONS,
                                  index=None, format_func=names.__getitem__,
                                  key=f"{base}-direction")
        size = cols[1].radio(layout.label(words["size"]), PREDICT_SIZES, index=None,
                             format_func=names.__getitem__, key=f"{base}-size")
        if st.form_submit_button(words["predict_check"]):
            new = check_prediction(ex, direction, size)
            _record(base, new, f"{direction}:{size}")
    attempt, due = _verdict(ex, base)

    def reveal() -> None:
        v = feedback_values(ex)
        name = str(v["name"])
        layout.metric_row([(f"{name} ({words['before']})", fmt_num(v["before"])),
                           (f"{name} ({words['after']})", fmt_num(v["after"]))])
        layout.markdown(_steps_markdown(ex))

    if due and not layout.is_presenting():
        reveal()
    elif attempt is not None and attempt.status != "not_a_number":
        layout.answer_block(f"{base}-reveal", reveal, label=words["solution"])
    return new
