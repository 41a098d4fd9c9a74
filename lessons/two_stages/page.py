"""Lesson 1: a RAG system's two stages, the number that measures each, and a "which stage
failed?" sorter over small cases.

Thin page: text and cases from content.<lang>.toml, numbers from ``metrics`` via ``logic``,
widgets from the ``ui`` and ``runtime`` packages. The sorter and the exercise are fragments, so
a pick reruns only them.
"""

from __future__ import annotations

import streamlit as st

from lessons.two_stages import logic
from runtime import catalog, state
from teaching import mistakes
from teaching.answers import parse_number
from text.i18n import (
    Markup,
    current_lang,
    fill,
    fmt_num,
    list_separator,
    load_content,
)
from ui import layout, tables
from ui.code_path import code_path
from ui.layout import code_list
from ui.quiz import quiz

FOLDER = "two_stages"

c = load_content(FOLDER)
RETRIEVE = catalog.entry("retrieve")   # "see it for real": /retrieve
labels = c["try_it"]["labels"]
verdict_names = c["try_it"]["verdicts"]
CASES = logic.cases(c)
N_CASES = len(CASES)

FIELDS = {
    "c": state.int_field(1, lo=1, hi=N_CASES),
    "p": state.Field(logic.UNANSWERED * N_CASES, lambda raw: logic.parse_picks(raw, N_CASES)),
}
EXERCISE_FIELDS = {"ex": state.int_field(1, lo=0, hi=logic.MAX_SEED)}





# --- the sorter -------------------------------------------------------------------------------


def _go_to(s: state.UrlState, number: int) -> None:
    s.set(c=number)
    st.session_state[s.key("c")] = number


def _on_case(s: state.UrlState) -> None:
    chosen = st.session_state.get(s.key("c"))
    if chosen:
        s.set(c=chosen)


def _on_pick(s: state.UrlState, index: int, key: str) -> None:
    chosen = st.session_state.get(key)
    if chosen in logic.VERDICTS and logic.pick_of(s["p"], index) is None:
        s.set(p=logic.with_pick(s["p"], index, chosen))


def _case_mark(s: state.UrlState, number: int) -> str:
    picked = logic.pick_of(s["p"], number - 1)
    if picked is None or layout.is_presenting():
        return str(number)
    return f"{number} {'✓' if picked == CASES[number - 1].verdict else '✗'}"


def _verdict_labels() -> dict[str, str]:
    """The four verdicts as widget labels, formatted once per run (a format_func must not
    depend on anything read later)."""
    return {v: layout.label(verdict_names[v]) for v in logic.VERDICTS}


def _draw_case(case: logic.Case) -> None:
    golden = set(case.golden)
    chunks = "\n".join(
        f"{rank}. `{doc}`" + (f" **★ {labels['golden_mark']}**" if doc in golden else "")
        + f" — {text}"
        for rank, (doc, text) in enumerate(case.retrieved, start=1))
    sentences = "\n".join(f"{i}. {s.text}" for i, s in enumerate(case.sentences, start=1))
    layout.markdown(
        f"**{labels['question']}:** {case.question}\n\n"
        f"**{labels['golden']}:** {{{{golden}}}} ({case.golden_note})\n\n"
        f"**{fill(labels['retrieved'], {'k': case.k})}**\n\n{chunks}\n\n"
        f"**{labels['answer']}**\n\n{sentences}",
        {"golden": code_list(case.golden)})


def _verdict(case: logic.Case, picked: str) -> None:
    """The right verdict, the reason, the case's numbers and each sentence's support."""
    right = picked == case.verdict
    text = fill(labels["right" if right else "wrong"],
                {"verdict": verdict_names[case.verdict]})
    (st.success if right else st.error)(layout.label(text))
    n = logic.case_numbers(case)
    layout.metric_row([
        (fill(labels["recall"], {"k": n.k}), fmt_num(n.recall, 2), f"{n.hits} / {n.R}"),
        (fill(labels["rr"], {"k": n.k}), fmt_num(n.rr, 2),
         f"1 / {n.first_rank}" if n.first_rank else "0"),
        (labels["faithfulness"], fmt_num(n.faithfulness, 2), f"{n.supported} / {n.sentences}"),
    ])
    layout.markdown(f"**{labels['reason']}:** {case.reason.strip()}")
    rows = []
    for i, sentence in enumerate(case.sentences, start=1):
        if sentence.support is None:
            mark = f"— {labels['no_claim']}"
        elif sentence.support:
            mark = "✓ " + fill(labels["supported_by"], {"id": Markup(f"`{sentence.support}`")})
        else:
            mark = f"✗ {labels['unsupported']}"
        rows.append(f"{i}. {sentence.text}<br>**{mark}**")
    layout.markdown(f"**{labels['support_heading']}**\n\n" + "\n".join(rows))


@st.fragment
@layout.friendly_errors("two_stages.try_it")
def sorter() -> None:
    s = state.url_state(FOLDER, FIELDS)
    presenting = layout.is_presenting()
    score = logic.score(s["p"], CASES)
    if not presenting:
        key = "all_done" if score.answered == score.total else "score"
        layout.markdown(fill(labels[key], {"right": score.right, "answered": score.answered,
                                           "total": score.total}))
    case_key = s.key("c")
    if st.session_state.get(case_key) != s["c"]:
        st.session_state[case_key] = s["c"]
    marks = {n: _case_mark(s, n) for n in range(1, N_CASES + 1)}
    st.pills(layout.label(labels["cases"]), list(marks), required=True,
             format_func=marks.__getitem__, key=case_key,
             on_change=_on_case, args=(s,))

    index = s["c"] - 1
    case = CASES[index]
    with st.container(border=True, key="ts-case"):
        _draw_case(case)
        picked = logic.pick_of(s["p"], index)
        pick_key = s.key(f"pick-{index}")
        if picked is not None:      # locked: the first choice counts (and survives a link)
            st.session_state[pick_key] = picked
        st.radio(layout.label(labels["pick"]), logic.VERDICTS, index=None,
                 format_func=_verdict_labels().__getitem__, key=pick_key,
                 disabled=picked is not None, on_change=_on_pick, args=(s, index, pick_key))
        if picked is not None:
            if presenting:
                layout.markdown(fill(labels["chosen"], {"verdict": verdict_names[picked]}))
                layout.answer_block(f"ts-case-{case.id}", lambda: _verdict(case, picked))
            else:
                _verdict(case, picked)
    cols = st.columns(2)
    cols[0].button(labels["next"], icon=layout.next_icon(), key="ts-next",
                   on_click=_go_to, args=(s, s["c"] % N_CASES + 1), width="stretch")
    cols[1].button(labels["start_over"], icon=":material/restart_alt:", key="ts-reset",
                   on_click=s.reset, width="stretch")


# --- the exercise -----------------------------------------------------------------------------


@st.fragment
@layout.friendly_errors("two_stages.exercise")
def exercise() -> None:
    s = state.url_state(FOLDER + "_exercise", EXERCISE_FIELDS)
    words = c["exercise"]["labels"]
    feedback = c["exercise"]["feedback"]
    layout.new_exercise_button(s, words["new"], key="ts-ex-new")
    ex = logic.stage_exercise(s["ex"])
    facts = logic.exercise_facts(ex, list_separator())
    golden = set(ex.golden)
    chunks = tables.table(
        [words["rank"], words["chunk"], words["is_golden"]],
        [[i, tables.code(d), Markup(words["yes"] if d in golden else "—")]
         for i, d in enumerate(ex.ranking, start=1)])
    sentences = tables.table(
        [words["sentence"], words["supported_by"]],
        [[Markup(fill(words["sentence_n"], {"n": i})),
          tables.code(d) if d else Markup(words["none"])]
         for i, d in enumerate(ex.supports, start=1)])
    layout.markdown(f"**{words['golden']}:** {{{{golden}}}}", {"golden": code_list(ex.golden)})
    left, right = layout.columns_for(2)
    layout.markdown(f"**{words['retrieved']}**\n\n{chunks}", where=left)
    layout.markdown(f"**{words['answer_support']}**\n\n{sentences}", where=right)
    used = [d for d in ex.golden if d in ex.supports]   # the golden chunks a sentence rests on
    values = {**facts, "missing": code_list(ex.numbers.missing), "golden": code_list(ex.golden),
              "used_golden": code_list(used), "unused": code_list(ex.numbers.unused),
              "verdict": verdict_names[ex.verdict]}

    key = f"ts-ex-{ex.seed}"
    layout.markdown(f"**{c['exercise']['question_stage']}**")
    stage = st.radio(layout.label(c["exercise"]["question_stage"]), logic.VERDICTS, index=None,
                     format_func=_verdict_labels().__getitem__, key=key + "-stage",
                     label_visibility="collapsed")
    if stage is not None:
        verdict = logic.stage_feedback(stage, ex)
        (st.success if verdict == "stage_correct" else st.error)(
            layout.label(fill(feedback[verdict], values)))

    layout.markdown(f"**{c['exercise']['question_faithfulness']}**")
    typed = layout.answer_form(key, words["answer"], words["answer_placeholder"],
                               words["check"])
    if typed is not None:
        value = parse_number(typed)
        verdict = "not_a_number" if value is None else ex.check_faithfulness(value)
        text = mistakes.text(verdict, "feedback") or feedback[verdict]   # a catalogue mistake?
        layout.verdict_message(verdict, fill(text, values))
    layout.answer_block(key + "-solution", feedback["solution"], values,
                        label=words["solution"])


# --- the page ---------------------------------------------------------------------------------

layout.lesson_header(c, FOLDER, sections=layout.INTERACTIVE_FIRST)
with layout.section(c, "try_it", body=False):
    sorter()
    with st.expander(layout.label(c["interactive"]["things_to_try"]), icon=":material/explore:"):
        layout.markdown(c["try_it"]["body"])
with layout.section(c, "core_idea"):
    st.markdown(logic.diagram_svg(c["diagram"], current_lang()), unsafe_allow_html=True)
    layout.markdown(c["core_idea"]["after"])
    st.page_link(RETRIEVE.script, label=layout.label(c["see_it_for_real"]["link"]),
                 icon=RETRIEVE.icon)
layout.section(c, "worked_example",
               values={name: round(v, 2) for name, v in logic.worked_values().items()})
code_path(c)
layout.myths(c)
with layout.section(c, "exercise"):
    exercise()
layout.flashcards(c)
with layout.section(c, "quiz"):
    quiz(FOLDER)
