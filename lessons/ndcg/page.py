"""Lesson 5: graded relevance — DCG@k, IDCG@k and nDCG@k on a graded ranking the learner edits.

Thin page: text from content.<lang>.toml, numbers from ``metrics`` via ``logic``, widgets from
the ``ui`` and ``runtime`` packages. The interactive, its step table and the exercise are
fragments, so a drag or a typed cell reruns only them.
"""

from __future__ import annotations

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from lessons.ndcg import link, logic
from runtime import state
from teaching import mistakes
from text.i18n import Markup, direction, fill, fmt_num, load_content, strings
from ui import charts, exercise_panel, layout, scroll, tables
from ui.code_path import code_path
from ui.quiz import quiz
from ui.ranking_editor import add_problem, ranking_editor, reordered

FOLDER = "ndcg"

FIELDS = link.FIELDS        # the URL keys another page may open this lesson with
TYPED = "nd-steps-typed"        # the learner's step-table entries: {(rank, column): text}
ROUND = "nd-steps-round"        # bumped to clear the table's own edit state

c = load_content(FOLDER)
labels = c["try_it"]["labels"]


def scenario(s: state.UrlState) -> logic.Scenario:
    return logic.Scenario(ranking=s["r"], unretrieved=s["x"], k=s["k"],
                          gain=logic.GAINS[s["g"]], ideal=logic.IDEALS[s["i"]])


def _repair(s: state.UrlState) -> None:
    """A link may combine valid fields inconsistently: keep everything, fix the combination."""
    ids = {d for d, _ in s["r"]}
    if any(d in ids for d, _ in s["x"]):
        s.set(x=tuple(item for item in s["x"] if item[0] not in ids))
    if s["s"] == "3" and any(g > 3 for _, g in (*s["r"], *s["x"])):
        s.set(s="5")                       # never lose a grade the learner gave


# --- callbacks --------------------------------------------------------------------------------


def _set_order(s: state.UrlState, how: str) -> None:
    s.set(r=reordered(s["r"], how))


def _set_scale(s: state.UrlState, key: str) -> None:
    scale = st.session_state.get(key, s["s"])
    if scale not in logic.SCALES:
        return
    top = int(scale)
    s.set(s=scale, r=tuple((d, min(g, top)) for d, g in s["r"]),
          x=tuple((d, min(g, top)) for d, g in s["x"]))


def _add_missed(s: state.UrlState, doc: str | None = None, grade: int | None = None) -> None:
    typed = doc if doc is not None else st.session_state.get("nd-new-doc", "").strip()
    grade = grade if grade is not None else st.session_state.get("nd-new-grade", 3)
    in_ranking = {d for d, _ in s["r"]}
    missed = {d for d, _ in s["x"]}
    problem = add_problem(typed, max_chars=logic.MAX_ID_CHARS, taken=missed,
                          full=len(missed) >= logic.MAX_DOCS, in_ranking=in_ranking)
    st.session_state["nd-add-problem"] = problem
    if problem is None:
        s.set(x=(*s["x"], (typed, min(int(grade), int(s["s"])))))
        if doc is None:
            st.session_state["nd-new-doc"] = ""


def _retrieve(s: state.UrlState, doc: str) -> None:
    """Put a judged, unretrieved document at the end of the ranking."""
    grade = dict(s["x"]).get(doc)
    if grade is None:
        return
    if len(s["r"]) >= logic.MAX_DOCS:
        st.session_state["nd-add-problem"] = "err_ranking_full"
        return
    s.set(r=(*s["r"], (doc, grade)), x=tuple(item for item in s["x"] if item[0] != doc))


def _forget(s: state.UrlState, doc: str) -> None:
    s.set(x=tuple(item for item in s["x"] if item[0] != doc))


# --- the interactive ------------------------------------------------------------------------


def _order_buttons(s: state.UrlState) -> None:
    with st.container(horizontal=True, width="content", key="nd-order-buttons"):
        st.button(labels["reset"], on_click=s.reset, icon=":material/restart_alt:",
                  key="nd-reset")
        st.button(labels["ideal_order"], on_click=_set_order, args=(s, "ideal"),
                  icon=":material/vertical_align_top:", key="nd-ideal")
        st.button(labels["shuffle"], on_click=_set_order, args=(s, "shuffle"),
                  icon=":material/shuffle:", key="nd-shuffle")


def _switches(s: state.UrlState, gain_box: DeltaGenerator, ideal_box: DeltaGenerator) -> None:
    """Gain and ideal ordering. While every judged document is in the ranking the two ideals
    agree: say so, and offer the judged document the system missed."""
    names, who = c["try_it"]["switches"], c["try_it"]["who"]
    shown = {f"{kind}_{v}": layout.label(names[f"{kind}_{v}"])
             for kind, options in (("gain", logic.GAINS), ("ideal", logic.IDEALS)) for v in options}
    # On a projector: each switch on one line, without the small print (it would push the
    # switches off the screen that holds the list and the numbers).
    presenting = layout.is_presenting()

    def captions(kind: str, options) -> list[str] | None:
        return None if presenting else [layout.label(who[f"{kind}_{v}"]) for v in options]

    gain = gain_box.radio(
        layout.label(names["gain"]), tuple(logic.GAINS), index=tuple(logic.GAINS).index(s["g"]),
        format_func=lambda v: shown["gain_" + v], captions=captions("gain", logic.GAINS),
        key=s.key("g"))
    with ideal_box:
        ideal = st.radio(
            layout.label(names["ideal"]), tuple(logic.IDEALS),
            index=tuple(logic.IDEALS).index(s["i"]),
            format_func=lambda v: shown["ideal_" + v], captions=captions("ideal", logic.IDEALS),
            key=s.key("i"))
        if not s["x"]:
            with st.container(key="nd-ideal-same"):
                layout.markdown(c["interactive"]["ideal_same"])
                _add_example_button(s)
    s.set(g=gain, i=ideal)


def _add_example_button(s: state.UrlState) -> None:
    doc, grade = logic.EXAMPLE_MISSED
    st.button(layout.label(fill(labels["add_example"], {"id": doc, "grade": grade})),
              on_click=_add_missed, args=(s, doc, grade), key="nd-add-example",
              icon=":material/playlist_add:")


def _set_scale_radio(s: state.UrlState) -> None:
    scale_key = s.key("s")
    # Labels are formatted here, in this run's language (a format_func reading the language
    # later, e.g. under AppTest, would format them differently).
    scales = {v: layout.label(labels["scale_" + v]) for v in logic.SCALES}
    st.radio(layout.label(labels["scale"]), logic.SCALES, index=logic.SCALES.index(s["s"]),
             format_func=scales.__getitem__, horizontal=True,
             key=scale_key, on_change=_set_scale, args=(s, scale_key))


@st.fragment
@layout.friendly_errors("ndcg.try_it")
def interactive() -> None:
    s = state.url_state(FOLDER, FIELDS)
    _repair(s)
    strip = st.empty()                     # the numbers, above the list that feeds them
    titles = c["try_it"]["docs"]
    items = [{"id": d, "rel": g, "title": titles.get(d, "")} for d, g in s["r"]]
    with st.container(key="nd-ranking-box"):            # what the lab's links land on
        edited = ranking_editor(items, key="nd-ranking", labels=strings("ranking"),
                                mode="grade", max_grade=int(s["s"]), direction=direction(),
                                covered_by=".mz-strip")
    s.set(r=tuple((item["id"], int(item["rel"])) for item in edited))
    k_box, gain_box, ideal_box = st.columns(3, gap="medium")
    n = len(s["r"])
    if n > 1:
        k = k_box.slider(layout.label(labels["k"]), 1, n, value=min(s["k"], n),
                         key=f"{s.key('k')}.{n}")
        s.set(k=k)
    _switches(s, gain_box, ideal_box)
    with st.container(horizontal=True, vertical_alignment="center", key="nd-more-controls"):
        _order_buttons(s)
        _set_scale_radio(s)

    sc = scenario(s)
    t = logic.totals(sc)
    layout.metrics_strip(FOLDER, [(None, [
        layout.measure("dcg", t.dcg, k=t.k, decimals=4),
        layout.measure("idcg", t.idcg, k=t.k, decimals=4),
        layout.measure("ndcg", t.ndcg, k=t.k, decimals=4)])], where=strip)
    f = logic.formulas(sc)
    rules = c["try_it"]["rules"]
    source = rules["ideal_" + s["i"]]
    layout.markdown(
        f"- **DCG@{t.k}** — {rules['dcg_' + s['g']]}<br>{layout.formula(f['dcg'])}\n"
        f"- **IDCG@{t.k}** — {source} `{logic.grades_text(t.ideal_grades)}`<br>"
        f"{layout.formula(f['idcg'])}\n"
        f"- **nDCG@{t.k}** — {rules['ndcg']}<br>{layout.formula(f['ndcg'])}")

    missed_box(s, sc)
    draw_charts(sc)
    why_k(sc)
    with st.container(key="nd-steps-box"):
        steps()


def missed_box(s: state.UrlState, sc: logic.Scenario) -> None:
    with st.container(border=True, key="nd-missed"):
        layout.markdown(f"**{labels['missed_heading']}**\n\n{labels['missed_help']}")
        missed = list(s["x"])
        for doc, grade in missed:
            row = st.columns([3, 2, 2], vertical_alignment="center")
            with row[0]:
                layout.markdown(labels["missed_item"], {"id": doc, "grade": grade})
            row[1].button(labels["retrieve"], on_click=_retrieve, args=(s, doc),
                          key=f"nd-retrieve-{doc}", icon=":material/login:", width="stretch")
            row[2].button(labels["forget"], on_click=_forget, args=(s, doc),
                          key=f"nd-forget-{doc}", icon=":material/delete:", width="stretch")
        if missed and s["i"] == "ret":
            st.info(layout.label(labels["missed_ignored"]), icon=":material/visibility_off:")
        elif logic.missing_in_ideal(sc) and s["i"] == "jud":
            st.info(layout.label(labels["missed_counted"]), icon=":material/visibility:")
        with st.expander(layout.label(labels["judge_another"])):
            cols = st.columns([3, 2], vertical_alignment="bottom")
            # no max_chars: Streamlit drops a longer paste without a word; add_problem says why
            cols[0].text_input(layout.label(labels["new_doc"]), key="nd-new-doc",
                               placeholder=labels["new_doc_placeholder"])
            top = int(s["s"])
            if st.session_state.get("nd-new-grade") not in range(top + 1):
                st.session_state["nd-new-grade"] = min(3, top)
            cols[1].selectbox(layout.label(labels["new_grade"]), range(top + 1),
                              key="nd-new-grade")
            st.button(labels["add"], on_click=_add_missed, args=(s,), key="nd-add",
                      icon=":material/add:")
        problem = st.session_state.pop("nd-add-problem", None)
        if problem:
            st.warning(layout.label(fill(labels[problem], {"max_docs": logic.MAX_DOCS})))


def _chart_labels() -> dict[str, str]:
    words = c["try_it"]["chart"]
    return {key: charts.text(text) for key, text in words.items()}


def draw_charts(sc: logic.Scenario) -> None:
    words = _chart_labels()
    titles = c["try_it"]["chart_titles"]
    top = layout.columns_for(2)
    with top[0]:
        layout.markdown(f"**{titles['discount']}**")
        layout.chart(logic.discount_chart(sc, words))
    with top[1]:
        layout.markdown(f"**{titles['gain']}**")
        layout.chart(logic.gain_chart(sc, words))
    layout.markdown(titles["caption_top"])
    bottom = layout.columns_for(2)
    with bottom[0]:
        layout.markdown(f"**{titles['cumulative']}**")
        layout.chart(logic.cumulative_chart(sc, words))
    with bottom[1]:
        layout.markdown(f"**{titles['ndcg']}**")
        layout.chart(logic.ndcg_chart(sc, words))


def why_k(sc: logic.Scenario) -> None:
    why = c["try_it"]["why_k"]
    rows = logic.by_k(sc)
    def cell(text: str, current: bool) -> Markup:   # the row of the k in use, in bold
        return tables.bold(Markup(text)) if current else Markup(text)

    by_k = tables.table(["k", "DCG@k", "IDCG@k", "nDCG@k"], [
        [cell(text, t.k == sc.depth)
         for text in (str(t.k), fmt_num(t.dcg, 4), fmt_num(t.idcg, 4), fmt_num(t.ndcg, 4))]
        for t in rows])
    first, last = rows[0], rows[-1]
    layout.markdown(f"**{why['heading']}**\n\n{why['body']}\n\n{by_k}",
                    {"dcg_first": logic.tidy(first.dcg), "dcg_last": logic.tidy(last.dcg),
                     "n": last.k})


# --- the step table ----------------------------------------------------------------------------


def _merge_edits(key: str, faded: tuple[str, ...]) -> None:
    """Copy the table's own edit state (positional: row = rank - 1) into our store."""
    edits = st.session_state.get(key)
    store = st.session_state.setdefault(TYPED, {})
    if not isinstance(edits, dict):
        return
    for row, cells in (edits.get("edited_rows") or {}).items():
        try:
            rank = int(row) + 1
        except (TypeError, ValueError):
            continue
        for column, value in (cells or {}).items():
            if column in faded:
                store[(rank, column)] = "" if value is None else str(value)[:40]


def _set_fade(s: state.UrlState, level: int) -> None:
    s.set(f=max(0, min(level, logic.MAX_FADE)))


def _clear_steps() -> None:
    st.session_state[TYPED] = {}
    st.session_state[ROUND] = st.session_state.get(ROUND, 0) + 1


@st.fragment
@layout.friendly_errors("ndcg.steps")
def steps() -> None:
    s = state.url_state(FOLDER, FIELDS)
    sc = scenario(s)
    words = c["try_it"]["steps"]
    heads, short = words["columns"], words["short"]
    level = s["f"]
    faded = logic.faded_columns(level)
    key = f"nd-steps-{level}-{st.session_state.get(ROUND, 0)}"
    _merge_edits(key, faded)
    typed = st.session_state.setdefault(TYPED, {})
    rows = logic.step_rows(sc)
    checks = logic.check_steps(rows, typed, faded, sc.gain)

    layout.markdown(f"**{words['heading']}**\n\n{words['body']}")
    data: dict[str, list[str]] = {name: [] for name in logic.STEP_TABLE}
    for row in rows:
        data["rank"].append(str(row.rank))
        data["doc"].append(row.doc)
        data["grade"].append(str(row.grade))
        for column in (*logic.STEP_COLUMNS, "idcg"):
            if column in faded:
                data[column].append(typed.get((row.rank, column), ""))
            else:
                data[column].append(logic.num(getattr(row, column),
                                              None if column == "gain" else 4))
        data["check"].append(logic.row_mark(checks, row.rank, faded, short))
    if not faded:
        # Fully worked: a plain table (an editor with nothing to edit costs ~10 ms a rerun).
        names = [n for n in data if n != "check"]
        layout.markdown(tables.table(   # ids are typed text (escaped), the numbers are ours
            [heads[n] for n in names],
            [[data[n][i] if n == "doc" else Markup(data[n][i]) for n in names]
             for i in range(len(rows))]))
    else:
        config = {
            name: st.column_config.TextColumn(heads[name], disabled=name not in faded,
                                              width=logic.STEP_WIDTHS[name])
            for name in data
        }
        st.data_editor(data, key=key, column_config=config, hide_index=True, num_rows="fixed",
                       width="stretch")

    hints = words["hints"]
    wrong = [(cell, check) for cell, check in checks.items() if check.status in
             ("wrong", "unreadable")]
    for (rank, column), check in wrong[:3]:
        row = rows[rank - 1]
        values = {"rank": rank, "column": short[column], "grade": row.grade,
                  "typed": typed.get((rank, column), ""), "expected": round(check.expected, 4),
                  "next": rank + 1, "idcg": round(row.idcg, 4),
                  "idcg_k": round(rows[-1].idcg, 4), "k": rows[-1].rank}
        text = (mistakes.text(check.hint, "hint") if check.status == "wrong" and check.hint
                else hints["unreadable" if check.status == "unreadable" else "generic_" + column])
        st.error(layout.label(fill(text, values)), icon=":material/close:")

    if level == 0:
        layout.markdown(words["start"])
        cols = st.columns(2)
        cols[0].button(layout.label(fill(words["fade_first"],
                                         {"column": heads[logic.FADE_ORDER[0]]})),
                       on_click=_set_fade, args=(s, 1), key="nd-fade-start",
                       icon=":material/edit:", width="stretch")
        return
    cols = st.columns(2)
    if logic.all_right(checks):
        if level < logic.MAX_FADE:
            st.success(layout.label(words["column_done"]), icon=":material/check:")
            cols[0].button(layout.label(fill(words["fade_next"],
                                             {"column": heads[logic.FADE_ORDER[level]]})),
                           on_click=_set_fade, args=(s, level + 1), key="nd-fade-next",
                           icon=":material/edit:", width="stretch")
        else:
            st.success(layout.label(words["all_done"]), icon=":material/celebration:")
    else:
        left = sum(check.status != "right" for check in checks.values())
        layout.markdown(words["to_fill"], {"left": left})
    cols[1].button(labels["worked_again"], on_click=_set_fade, args=(s, 0),
                   key="nd-fade-reset", icon=":material/visibility:", width="stretch")
    if typed:
        st.button(labels["clear_entries"], on_click=_clear_steps, key="nd-steps-clear",
                  icon=":material/backspace:")


layout.lesson_header(c, FOLDER, sections=layout.INTERACTIVE_FIRST)
with layout.section(c, "try_it", body=False):
    interactive()
    scroll.land(scroll.RANKING, ".st-key-nd-ranking-box", key="nd-land", covered_by=".mz-strip")
    with st.expander(layout.label(c["interactive"]["things_to_try"]), icon=":material/explore:"):
        layout.markdown(c["try_it"]["body"])
layout.section(c, "core_idea")
layout.section(c, "worked_example", values=logic.worked_values())
code_path(c)
layout.myths(c)
with layout.section(c, "exercise"):
    exercise_panel.lesson_exercise(FOLDER, logic.EXERCISES)
layout.flashcards(c)
with layout.section(c, "quiz"):
    quiz(FOLDER)
