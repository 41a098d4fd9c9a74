"""Lesson 6: where does my RAG system fail? A guided diagnosis in four checked steps.

Thin page: text and the scenario from content.<lang>.toml, numbers from ``metrics`` via
``logic``, widgets from the ``ui`` and ``runtime`` packages. The walkthrough and the exercise
are fragments; the step, the learner's answers and which steps were checked all live in the URL.
"""

from __future__ import annotations

from fractions import Fraction

import streamlit as st

from lessons.diagnose import logic
from runtime import state
from teaching import mistakes
from teaching.answers import parse_number
from text.i18n import (
    Markup,
    clause_separator,
    fill,
    fmt_num,
    list_separator,
    load_content,
)
from ui import layout, tables
from ui.code_path import code_path
from ui.layout import code_list
from ui.quiz import quiz

FOLDER = "diagnose"

c = load_content(FOLDER)
labels = c["try_it"]["labels"]
SC = logic.scenario(c)
N_Q = len(SC.questions)


def _groups_field(sizes: list[int]) -> state.Field:
    return state.Field(tuple(frozenset() for _ in sizes),
                       lambda raw: logic.parse_groups(raw, len(sizes), sizes),
                       logic.encode_groups)


FIELDS = {
    "st": state.int_field(1, lo=1, hi=len(logic.STEPS)),
    "ck": state.Field(frozenset(), lambda raw: logic.parse_set(raw, len(logic.STEPS)),
                      logic.encode_set),
    "l": _groups_field([len(SC.docs)] * N_Q),
    "f": state.Field(frozenset(), lambda raw: logic.parse_set(raw, N_Q), logic.encode_set),
    "u": _groups_field([len(q.sentences) for q in SC.questions]),
    "x": state.choice_field("", ("", *logic.FIXES)),
}
EXERCISE_FIELDS = {"ex": state.int_field(1, lo=0, hi=logic.MAX_SEED)}





def _reveal(key: str, draw) -> None:
    """Feedback that gives the answer key away: behind "reveal" in the presenter view."""
    if layout.is_presenting():
        layout.answer_block(key, draw)
    else:
        draw()


# --- callbacks ----------------------------------------------------------------------------------


def _on_step(s: state.UrlState) -> None:
    chosen = st.session_state.get(s.key("st"))
    if not chosen:
        return
    if chosen > logic.reached(s["ck"]):
        st.session_state["dg-locked"] = logic.reached(s["ck"])
        st.session_state[s.key("st")] = s["st"]
    else:
        s.set(st=chosen)


def _check(s: state.UrlState, step: int) -> None:
    s.set(ck=s["ck"] | {step})


def _next(s: state.UrlState, step: int) -> None:
    s.set(st=step + 1)
    st.session_state[s.key("st")] = step + 1


def _set_group(s: state.UrlState, field: str, index: int, key: str) -> None:
    groups = list(s[field])
    groups[index] = frozenset(st.session_state.get(key) or ())
    s.set(**{field: tuple(groups)})


def _set_value(s: state.UrlState, field: str, key: str) -> None:
    value = st.session_state.get(key)
    s.set(**{field: frozenset(value or ()) if field == "f" else (value or "")})


def _synced(key: str, value) -> str:
    """Put the URL's value into a widget's session state before the widget is drawn."""
    if st.session_state.get(key) != value:
        st.session_state[key] = value
    return key


# --- the steps ----------------------------------------------------------------------------------


def _step_footer(s: state.UrlState, step: int, *, checked: bool, ready: bool = True) -> None:
    cols = st.columns(2)
    cols[0].button(labels["check"], key=f"dg-check-{step}", on_click=_check, args=(s, step),
                   icon=":material/task_alt:", width="stretch", type="primary",
                   disabled=not ready)
    if checked and step < len(logic.STEPS):
        cols[1].button(labels["next"], key=f"dg-next-{step}", on_click=_next, args=(s, step),
                       icon=layout.next_icon(), width="stretch")


def step1(s: state.UrlState) -> None:
    words = c["try_it"]["step1"]
    layout.markdown(words["body"])
    with st.expander(layout.label(words["corpus"]), expanded=True):
        layout.markdown("\n".join(f"- `{d.id}` **{d.title}**: {d.text}" for d in SC.docs))
    options = list(range(1, len(SC.docs) + 1))
    names = {n: f"{d.id} · {layout.label(d.title)}" for n, d in enumerate(SC.docs, start=1)}
    for i, q in enumerate(SC.questions):
        with st.container(border=True, key=f"dg-label-{q.id}"):
            layout.markdown(f"**{q.id}** · {q.text}")
            key = _synced(s.key(f"l{i}"), sorted(s["l"][i]))
            st.pills(layout.label(words["pick"]), options, selection_mode="multi",
                     format_func=names.__getitem__, key=key, on_change=_set_group,
                     args=(s, "l", i, key))
    checked = 1 in s["ck"]
    if checked:
        _reveal("dg-step1", lambda: _label_feedback(s, words))
    _step_footer(s, 1, checked=checked)


def _label_feedback(s: state.UrlState, words: dict) -> None:
    checks = logic.check_labels(SC, s["l"])
    right = sum(ch.right for ch in checks)
    if right == len(checks):
        st.success(layout.label(words["all_right"]))
    else:
        st.warning(layout.label(fill(words["some_wrong"], {"right": right,
                                                           "total": len(checks)})))
    lines = []
    for ch, q in zip(checks, SC.questions, strict=True):
        if ch.right:
            lines.append(f"- ✓ **{q.id}**: {words['right']}")
            continue
        parts = []
        if ch.missing:   # "also answered by" only once the learner marked one that answers it
            found_some = len(ch.missing) < len(q.golden)
            parts.append(fill(words["missing" if found_some else "missing_all"],
                              {"ids": code_list(ch.missing)}))
        for doc in ch.extra:
            parts.append(fill(words["extra"], {"id": code_list([doc])})
                         + (f" ({q.traps[doc]})" if doc in q.traps else ""))
        lines.append(f"- ✗ **{q.id}**: " + clause_separator().join(parts))
    layout.markdown("\n".join(lines))


def _ranking(ranking, golden=()) -> str:
    """A ranking as one left-to-right code span, golden documents starred: `d4 d3★ d8`."""
    return "`" + " ".join(d + ("★" if d in golden else "") for d in ranking) + "`"


def _rankings_table() -> str:
    return tables.table(
        [labels["question"], fill(labels["top_k"], {"k": SC.k}), labels["golden"]],
        [[Markup(q.id), Markup(_ranking(q.retrieved[:SC.k], q.golden)), code_list(q.golden)]
         for q in SC.questions])


def step2(s: state.UrlState) -> None:
    words = c["try_it"]["step2"]
    layout.markdown(words["body"])
    layout.markdown(_rankings_table())
    key = _synced(s.key("f"), sorted(s["f"]))
    st.pills(layout.label(words["pick"]), list(range(1, N_Q + 1)), selection_mode="multi",
             format_func=lambda n: SC.questions[n - 1].id, key=key, on_change=_set_value,
             args=(s, "f", key))
    checked = 2 in s["ck"]
    if checked:
        _reveal("dg-step2", lambda: _retrieval_feedback(s, words))
    _step_footer(s, 2, checked=checked)


def _retrieval_feedback(s: state.UrlState, words: dict) -> None:
    check = logic.check_failing(SC, s["f"])
    table = logic.retrieval_table(SC)
    if check.right:
        st.success(layout.label(fill(words["right"], {"ids": code_list(sorted(table.failing))})))
    else:
        if check.missed:
            st.error(layout.label(fill(words["missed"], {"ids": code_list(check.missed)})))
        if check.extra:
            st.error(layout.label(fill(words["extra"], {"ids": code_list(check.extra)})))
    k = table.k
    layout.metric_row([(fill(labels["mean_recall"], {"k": k}), fmt_num(table.mean_recall, 2)),
                       (fill(labels["mrr"], {"k": k}), fmt_num(table.mrr, 2))])
    rows = []
    for r in table.rows:
        status = (f"**✗ {fill(words['status_failed'], {'ids': code_list(r.missing)})}**" if r.failed
                  else f"✓ {words['status_ok']}")
        name = f"**{r.question}**" if r.failed else r.question
        rows.append([Markup(name), Markup(fmt_num(r.recall, 2)), Markup(fmt_num(r.rr, 2)),
                     Markup(status)])
    rows.append([Markup(labels["mean"]), tables.bold(Markup(fmt_num(table.mean_recall, 2))),
                 tables.bold(Markup(fmt_num(table.mrr, 2))), Markup("")])
    layout.markdown(tables.table([labels["question"], fill(labels["recall"], {"k": k}),
                                  fill(labels["rr"], {"k": k}), labels["status"]], rows))
    layout.markdown(words["after"], {"mean_recall": round(table.mean_recall, 2),
                                     "mrr": round(table.mrr, 2)})
    if tuple(s["l"]) != logic.answer_key_labels(SC) and 1 in s["ck"]:
        mine = logic.retrieval_table(SC, logic.qrels_of(SC, s["l"]))
        st.info(layout.label(fill(words["your_labels"], {"recall": round(mine.mean_recall, 2),
                                                         "mrr": round(mine.mrr, 2)})))


def step3(s: state.UrlState) -> None:
    words = c["try_it"]["step3"]
    layout.markdown(words["body"])
    for i, q in enumerate(SC.questions):
        with st.container(border=True, key=f"dg-faith-{q.id}"):
            received = "\n".join(
                f"- `{d}`" + (f" ★ {labels['golden_mark']}" if d in q.golden else "")
                + f": {SC.doc(d).text}" for d in q.retrieved[:SC.k])
            sentences = "\n".join(f"{n}. {x.text}" for n, x in enumerate(q.sentences, start=1))
            layout.markdown(f"**{q.id}** · {q.text}\n\n**{words['received']}**\n\n{received}"
                            f"\n\n**{words['answer']}**\n\n{sentences}")
            key = _synced(s.key(f"u{i}"), sorted(s["u"][i]))
            st.pills(layout.label(words["pick"]), list(range(1, len(q.sentences) + 1)),
                     selection_mode="multi", key=key, on_change=_set_group,
                     args=(s, "u", i, key))
    checked = 3 in s["ck"]
    if checked:
        _reveal("dg-step3", lambda: _faith_feedback(s, words))
    _step_footer(s, 3, checked=checked)


def _faith_feedback(s: state.UrlState, words: dict) -> None:
    wrong = [(qid, ns) for qid, ns in logic.check_support(SC, s["u"]) if ns]
    if not wrong:
        st.success(layout.label(words["all_right"]))
    else:
        lines = []
        for qid, numbers in wrong:
            q = next(x for x in SC.questions if x.id == qid)
            for n in numbers:
                lines.append(f"- ✗ **{qid}**{list_separator()}{fill(words['wrong'], {'n': n})}: "
                             f"{q.sentences[n - 1].note}")
        st.error(layout.label(words["some_wrong"]))
        layout.markdown("\n".join(lines))
    table = logic.faithfulness_table(SC)
    layout.metric_row([(labels["faith_all"], fmt_num(table.mean_all, 2)),
                       (labels["faith_ok"], fmt_num(table.mean_retrieved, 2)),
                       (labels["faith_failed"], fmt_num(table.mean_failed, 2))])
    layout.markdown(tables.table(
        [labels["question"], labels["supported"], labels["faithfulness"], labels["status"]],
        [[Markup(r.question), Markup(f"{r.supported} / {r.sentences}"),
          Markup(fmt_num(r.faithfulness, 2)),
          Markup(f"✓ {labels['ok']}" if r.retrieval_ok else f"**✗ {labels['failed']}**")]
         for r in table.rows]))
    layout.markdown(words["after"], {"mean_all": round(table.mean_all, 2),
                                     "mean_ok": round(table.mean_retrieved, 2),
                                     "mean_failed": round(table.mean_failed, 2)})


def step4(s: state.UrlState) -> None:
    words = c["try_it"]["step4"]
    layout.markdown(words["body"])
    fixes = {f: layout.label(c["try_it"]["fixes"][f]) for f in logic.FIXES}
    key = _synced(s.key("x"), s["x"] or None)
    st.radio(layout.label(words["pick"]), logic.FIXES, index=None, key=key,
             format_func=fixes.__getitem__, on_change=_set_value, args=(s, "x", key))
    checked = 4 in s["ck"] and bool(s["x"])
    if checked:
        _reveal("dg-step4", lambda: _fix_feedback(s, words))
    _step_footer(s, 4, checked=checked, ready=bool(s["x"]))


def _fix_feedback(s: state.UrlState, words: dict) -> None:
    right = s["x"] == logic.RIGHT_FIX
    (st.success if right else st.error)(layout.label(c["try_it"]["fix_feedback"][s["x"]]))
    if right:
        layout.markdown(words["summary"])


STEP_DRAW = {1: step1, 2: step2, 3: step3, 4: step4}


@st.fragment
@layout.friendly_errors("diagnose.try_it")
def walkthrough() -> None:
    s = state.url_state(FOLDER, FIELDS)
    open_to = logic.reached(s["ck"])
    if s["st"] > open_to:                 # a link to a step whose earlier steps aren't checked
        st.info(layout.label(fill(labels["locked"], {"n": open_to})))
        s.set(st=open_to)
    names = c["try_it"]["step_names"]

    step_names = {n: ("✓ " if n in s["ck"] else "" if n <= open_to else "🔒 ")
                  + f"{n} · {layout.label(names[f's{n}'])}" for n in logic.STEPS}
    key = _synced(s.key("st"), s["st"])
    st.pills(layout.label(labels["steps"]), list(logic.STEPS), required=True, key=key,
             format_func=step_names.__getitem__, on_change=_on_step, args=(s,))
    locked = st.session_state.pop("dg-locked", None)
    if locked:
        st.info(layout.label(fill(labels["locked"], {"n": locked})))
    step = s["st"]
    with st.container(key=f"dg-step-{step}"):
        layout.markdown(f"### {c['try_it'][f'step{step}']['title']}")
        STEP_DRAW[step](s)
    st.button(labels["restart"], key="dg-restart", on_click=s.reset,
              icon=":material/restart_alt:")


# --- the exercise -------------------------------------------------------------------------------


@st.fragment
@layout.friendly_errors("diagnose.exercise")
def exercise() -> None:
    s = state.url_state(FOLDER + "_exercise", EXERCISE_FIELDS)
    words = c["exercise"]["labels"]
    feedback = c["exercise"]["feedback"]
    layout.new_exercise_button(s, words["new"], key="dg-ex-new")
    ex = logic.retrieval_exercise(s["ex"])
    layout.markdown(tables.table(
        [words["question"], words["golden"], words["top_k"]],
        [[Markup(q), code_list(gold), Markup(_ranking(ranking))]
         for q, gold, ranking in zip(ex.ids, ex.golden, ex.rankings, strict=True)]))
    # thirds as fractions: 0.67 + 0.33 shown would not add up to the 4-decimal mean beside it
    recalls = [fmt_num(r, 2, digits="latn") if round(r, 2) == r
               else str(Fraction(r).limit_denominator(12)) for r in ex.recalls]
    values = {"answer": round(ex.answer, 4), "ids": code_list(sorted(ex.failing)),
              "recalls": Markup(" + ".join(recalls)),
              "per_question": Markup(list_separator().join(f"{q} = {r}"
                                               for q, r in zip(ex.ids, recalls, strict=True)))}

    key = f"dg-ex-{ex.seed}"
    layout.markdown(f"**{c['exercise']['question_failing']}**")
    with st.form(key + "-failing-form", border=False):
        st.pills(layout.label(words["pick"]), ex.ids, selection_mode="multi",
                 key=key + "-failing")
        if st.form_submit_button(words["check"]):
            st.session_state[key + "-failing-checked"] = list(
                st.session_state.get(key + "-failing") or [])
    picked = st.session_state.get(key + "-failing-checked")
    if picked is not None:
        slips = ex.failing_feedback(picked)
        if not slips:
            st.success(layout.label(fill(feedback["failing_right"], values)))
        for q, mistake in slips:
            facts = ex.facts(q)
            st.error(layout.label(fill(feedback[mistake],
                                       {**facts, "missing": code_list(facts["missing"])})))

    layout.markdown(f"**{c['exercise']['question_mean']}**")
    typed = layout.answer_form(key, words["answer"], words["answer_placeholder"],
                               words["check"])
    if typed is not None:
        value = parse_number(typed)
        verdict = "not_a_number" if value is None else ex.check_mean(value)
        text = mistakes.text(verdict, "feedback") or feedback[verdict]   # a catalogue mistake?
        layout.verdict_message(verdict, fill(text, values))
    layout.answer_block(key + "-solution", feedback["solution"], values, label=words["solution"])


# --- the page -----------------------------------------------------------------------------------

layout.lesson_header(c, FOLDER, sections=layout.INTERACTIVE_FIRST)
with layout.section(c, "try_it"):      # its text sets the scene: it stays above the steps
    walkthrough()
layout.section(c, "core_idea")
layout.section(c, "worked_example",
               values={name: round(v, 2) for name, v in logic.worked_values(SC).items()})
code_path(c)
layout.myths(c)
with layout.section(c, "exercise"):
    exercise()
layout.flashcards(c)
with layout.section(c, "quiz"):
    quiz(FOLDER)
