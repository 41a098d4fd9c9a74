"""Lesson 2: recall@k, precision@k, HitRate@k, F1@k and RR on one ranking the learner edits.

Thin page: text from content.<lang>.toml, numbers from ``metrics`` via ``logic``, widgets from
the ``ui`` and ``runtime`` packages. The interactive and the exercise are fragments, so a drag
reruns only them.
"""

from __future__ import annotations

import streamlit as st

from lessons.recall_precision import link, logic
from runtime import state
from text.i18n import direction, fill, fmt_num, load_content, strings
from ui import charts, exercise_panel, layout, scroll
from ui.code_path import code_path
from ui.quiz import quiz
from ui.ranking_editor import add_problem, ranking_editor, reordered

FOLDER = "recall_precision"
MAX_ID_CHARS = link.MAX_ID_CHARS

FIELDS = link.FIELDS        # the URL keys another page may open this lesson with
STRIP = ".mz-strip"         # the sticky numbers the ranking editor scrolls clear of

c = load_content(FOLDER)
labels = c["try_it"]["labels"]


def scenario(s: state.UrlState) -> logic.Scenario:
    return logic.Scenario(order=tuple(d for d, _ in s["r"]),
                          relevant=frozenset(d for d, g in s["r"] if g >= 1),
                          unretrieved=tuple(d for d, _ in s["x"]), k=s["k"])


def _set_order(s: state.UrlState, how: str) -> None:
    s.set(r=reordered(s["r"], how))


def _add_document(s: state.UrlState) -> None:
    typed = st.session_state.get("rp-new-doc", "").strip()
    ids = [d for d, _ in s["r"]]
    problem = add_problem(typed, max_chars=MAX_ID_CHARS, taken=ids,
                          full=len(ids) >= logic.MAX_DOCS)
    st.session_state["rp-add-problem"] = problem
    if problem is None:
        s.set(r=(*s["r"], (typed, 0)), x=tuple(i for i in s["x"] if i[0] != typed))
        st.session_state["rp-new-doc"] = ""


def _set_missed(s: state.UrlState, key: str) -> None:
    ids = {d for d, _ in s["r"]}
    chosen = [str(v).strip()[:MAX_ID_CHARS] for v in st.session_state.get(key, [])]
    kept = list(dict.fromkeys(v for v in chosen if v and v not in ids))
    st.session_state["rp-missed-rejected"] = [v for v in chosen if v in ids]
    s.set(x=tuple((d, 1) for d in kept[:logic.MAX_DOCS]))


@st.fragment
@layout.friendly_errors("recall_precision.try_it")
def interactive() -> None:
    s = state.url_state(FOLDER, FIELDS)
    strip = st.empty()                      # the numbers, above the list that feeds them
    left, right = st.columns([3, 2], gap="medium")
    with left, st.container(key="rp-ranking-box"):     # what the lab's links land on
        items = [{"id": d, "rel": g} for d, g in s["r"]]
        edited = ranking_editor(items, key="rp-ranking", labels=strings("ranking"),
                                mode="binary", direction=direction(), covered_by=STRIP)
        s.set(r=tuple((item["id"], int(item["rel"])) for item in edited))
    with right:
        k = st.slider(layout.label(labels["k"]), 1, logic.MAX_DOCS, value=s["k"],
                      key=s.key("k"))
        s.set(k=k)
        with st.container(horizontal=True, key="rp-order-buttons"):
            st.button(labels["reset"], on_click=s.reset, icon=":material/restart_alt:",
                      key="rp-reset")
            st.button(labels["ideal"], on_click=_set_order, args=(s, "ideal"),
                      icon=":material/vertical_align_top:", key="rp-ideal")
            st.button(labels["shuffle"], on_click=_set_order, args=(s, "shuffle"),
                      icon=":material/shuffle:", key="rp-shuffle")

    sc = scenario(s)
    rows = logic.metric_rows(sc)
    # RR too: the strip's RR is cut at k. Recall with nothing judged relevant is 0 ÷ 0: a dash,
    # as the note under the rules says, not trec_eval's 0.
    layout.metrics_strip(FOLDER, [(None, [
        layout.measure(row.key, None if row.denominator == "0" else row.value, k=sc.k)
        for row in rows])], where=strip)
    names, formulas = c["try_it"]["names"], c["try_it"]["formulas"]
    # Each rule in words, then the same rule with the learner's own numbers (LTR, own line).
    layout.markdown("\n".join(
        f"- **{names[row.key]}**: {formulas[row.key]}<br>{_formula(row, sc.k)}" for row in rows),
        logic.counts(sc))
    if not sc.judged:
        st.info(layout.label(labels["recall_undefined"]))
    # a list shorter than k: the empty places are misses, not noise the model reads
    short = len(sc.order) < sc.k
    texts = dict(c["try_it"]["meanings_k1" if sc.k == 1 else "meanings"])
    if short:
        texts["precision"] = c["try_it"]["meanings"]["precision_short"]
    if not sc.judged:                  # "0 of 0 relevant documents; the rest…" says nothing
        texts["recall"] = c["try_it"]["meanings"]["recall_none"]
    meanings = "\n".join(f"- **{names[key]}** — {texts[key]}" for key in logic.MEASURE_KEYS)
    with st.expander(layout.label(labels["meanings_heading"])):
        layout.markdown(meanings, logic.counts(sc))

    layout.markdown(f"**{labels['chart_title']}**")
    layout.chart(logic.position_chart(sc, _chart_words()))
    layout.markdown(labels["chart_caption"])

    with st.expander(layout.label(labels["missed"])):
        layout.markdown(labels["missed_help"])
        key = s.key("x-input")
        missed = [d for d, _ in s["x"]]
        if st.session_state.get(key) != missed:
            st.session_state[key] = missed
        st.multiselect(layout.label(labels["missed"]), options=missed,
                       accept_new_options=True, key=key,
                       on_change=_set_missed, args=(s, key), label_visibility="collapsed",
                       placeholder=labels["new_doc_placeholder"])
        for doc in st.session_state.pop("rp-missed-rejected", []):
            st.warning(layout.label(fill(labels["err_in_ranking"], {"id": doc})))
    with st.expander(layout.label(labels["new_doc"])):
        # no max_chars: Streamlit drops a longer paste without a word; add_problem says why
        st.text_input(layout.label(labels["new_doc"]), key="rp-new-doc",
                      placeholder=labels["new_doc_placeholder"])
        st.button(labels["add"], on_click=_add_document, args=(s,), key="rp-add",
                  icon=":material/add:")
        problem = st.session_state.pop("rp-add-problem", None)
        if problem:
            st.warning(layout.label(fill(labels[problem], {"max_docs": logic.MAX_DOCS})))


def _chart_words() -> dict[str, str]:
    keys = ("counted", "not_counted", "first_hit", "relevant", "not_relevant", "document",
            "rank", "rr_weight")
    return {key: charts.text(labels[key]) for key in keys}


def _formula(row: logic.MetricRow, k: int) -> str:
    """The rule with the learner's numbers; HitRate in words (0 or 1), not in symbols."""
    value = fmt_num(row.value, 2, digits="latn")
    if row.key == "hit_rate":  # 1 or 0, as the text says
        words = c["interactive"][("hit_yes" if row.value else "hit_no")
                                 + ("_k1" if k == 1 else "")]
        return f"{words}{layout.formula(f'{row.label} = {int(row.value)}')}"
    if not row.denominator:                        # RR with no relevant document
        return layout.formula(f"{row.label} = 0")
    if row.denominator == "0":                     # recall with nothing relevant: no value
        return layout.formula(f"{row.label} = 0 / 0")
    return layout.formula(f"{row.label} = {row.numerator} / {row.denominator} = {value}")


layout.lesson_header(c, FOLDER, sections=layout.INTERACTIVE_FIRST)
with layout.section(c, "try_it", body=False):
    interactive()
    scroll.land(scroll.RANKING, ".st-key-rp-ranking-box", key="rp-land", covered_by=STRIP)
    with st.expander(layout.label(c["interactive"]["things_to_try"]), icon=":material/explore:"):
        layout.markdown(c["try_it"]["body"])
layout.section(c, "core_idea")
layout.section(c, "worked_example",
               values={name: round(v, 2) for name, v in logic.worked_values().items()})
code_path(c)
layout.myths(c)
with layout.section(c, "exercise"):
    exercise_panel.lesson_exercise(FOLDER, logic.EXERCISES)
layout.flashcards(c)
with layout.section(c, "quiz"):
    quiz(FOLDER)
