"""Lesson 3: MRR, AP and comparing two systems on the seed's five questions.

Thin page: text from content.<lang>.toml, numbers from ``metrics`` via ``logic``, widgets from
the ``ui`` and ``runtime`` packages. The interactive, the counter-example and the exercise are
fragments, so a drag reruns only the part it belongs to.
"""

from __future__ import annotations

import dataclasses

import streamlit as st

from lessons.mrr import link, logic
from runtime import catalog, state
from text.bidi import escape_markdown
from text.i18n import Markup, direction, fill, fmt_num, load_content, strings
from ui import charts, exercise_panel, layout, scroll, tables
from ui.code_path import code_path
from ui.quiz import quiz
from ui.ranking_editor import ranking_editor

FOLDER = "mrr"
RUN_PARAM = {system: link.KEYS[system] for system in link.SYSTEMS}   # its URL key


FIELDS = link.FIELDS        # the URL keys another page may open this lesson with
COUNTER_FIELDS = {
    "cq": state.choice_field("q3", logic.COUNTER_QUESTIONS),
    "cb": state.Field(logic.COUNTER_B, logic.parse_counter, logic.encode_runs),
}

c = load_content(FOLDER)
RETRIEVE = catalog.entry("retrieve")   # "see it for real": /retrieve
labels = c["try_it"]["labels"]


def num(x: float | None, decimals: int = 2) -> Markup:
    """A number for lesson Markdown (digits are localized when the text is rendered)."""
    return Markup("—" if x is None else fmt_num(x, decimals, digits="latn"))


def p_value(p: float | None, *, relation: bool = False) -> Markup:
    """``0.431`` (or ``= 0.431`` with ``relation``, to follow a "p" in the text); ``< 0.001``."""
    if p is None:
        return Markup("—")
    if p < 0.001:
        return Markup("< 0.001")
    return Markup(("= " if relation else "") + fmt_num(p, 3, digits="latn"))


def code(docs) -> Markup:
    """Doc ids as inline code, each in its own span (a reader's ids may hold anything)."""
    return Markup(" ".join(tables.code(d) for d in docs) if docs else "—")


def code_set(docs) -> Markup:
    return Markup(f"`{{{', '.join(docs)}}}`")


def scenario(s: state.UrlState) -> logic.Scenario:
    return logic.Scenario(golden=s["g"], vector=s["v"], hybrid=s["h"], k=s["k"], norm=s["n"],
                          on=s["m"])


def _sync(key: str, docs) -> None:
    """Give a keyed multi-select widget the current documents (only when they differ)."""
    if key not in st.session_state or set(st.session_state[key] or ()) != set(docs):
        st.session_state[key] = list(docs)


def _set_golden(s: state.UrlState, qi: int, key: str) -> None:
    chosen = [d for d in st.session_state.get(key) or () if d in logic.POOL]
    if not chosen:
        st.session_state["mrr-flash"] = "golden_empty"
        st.session_state[key] = list(s["g"][qi])
        return
    s.set(g=logic.replace(s["g"], qi, logic.golden_set(chosen)))


def _set_returned(s: state.UrlState, system: str, qi: int, key: str) -> None:
    param = RUN_PARAM[system]
    chosen = [d for d in st.session_state.get(key) or () if d in logic.POOL]
    if not chosen:
        st.session_state["mrr-flash"] = "returned_empty"
        st.session_state[key] = list(s[param][qi])
        return
    s.set(**{param: logic.replace(s[param], qi, logic.edit_returned(s[param][qi], chosen))})


def _chart_labels(a: str = "vector", b: str = "hybrid", axis: str | None = None) -> dict:
    words = {"question": labels["question"], "delta_axis": axis or labels["delta_axis"],
             "better": labels["better"], "same": labels["same"], "worse": labels["worse"]}
    return {**{key: charts.text(text) for key, text in words.items()}, "a": a, "b": b}


@dataclasses.dataclass(frozen=True)
class Names:
    """What the page calls the question, the systems and the documents: the lesson's own names,
    or the reader's (``link.Labels``: one question of hers, opened from the lab)."""

    own: link.Labels | None = None

    @property
    def pool(self) -> tuple[str, ...]:
        return logic.POOL if self.own is None else self.own.pool

    def doc(self, slot: str) -> str:
        return slot if self.own is None else self.own.doc(slot)

    def system(self, system: str) -> str:
        return system if self.own is None else self.own.systems[logic.SYSTEMS.index(system)]

    def question(self, q: str) -> str:
        return q if self.own is None else self.own.question


def _names(s: state.UrlState) -> Names:
    """The page's names for this scenario; a link whose parts do not fit together is said so
    and replaced by the lesson's own five questions."""
    try:
        return Names(link.one_question(s.values))
    except ValueError:
        st.warning(layout.label(labels["own_bad"]), icon=":material/link_off:")
        s.reset()
        return Names()


@st.fragment
@layout.friendly_errors("mrr.try_it")
def interactive() -> None:
    s = state.url_state(FOLDER, FIELDS)
    names = _names(s)
    strip = st.empty()                      # the numbers, above the lists that feed them

    # --- one question: both rankings and the golden set --------------------------------------
    if names.own is None:
        q = st.segmented_control(layout.label(labels["question"]), logic.QUESTIONS,
                                 required=True, default=s["q"], key=s.key("q"))
        s.set(q=q or s["q"])
        qi = logic.QUESTIONS.index(s["q"])
    else:
        qi = 0
    question = logic.QUESTIONS[qi]
    shown_q = names.question(question)
    golden = s["g"][qi]
    rk_labels = strings("ranking")
    for col, system in zip(layout.columns_for(2), logic.SYSTEMS, strict=True):
        with col, st.container(key=f"mrr-col-{system}"):
            param = RUN_PARAM[system]
            if names.own is None:
                layout.markdown(f"#### {tables.code(system)}")
            else:   # her run's name: text, not code (a monospace face breaks Arabic joining)
                layout.markdown("#### {{system}}", {"system": names.system(system)})
            ranking = s[param][qi]
            # the editor shows (and gives back) the names; the scenario keeps the slots
            slot_of = {names.doc(d): d for d in names.pool}
            items = [{"id": names.doc(d), "rel": int(d in golden)} for d in ranking]
            edited = ranking_editor(items, key=f"mrr-{system}", labels=rk_labels, mode="binary",
                                    direction=direction(), editable_relevance=False,
                                    covered_by=".mz-strip")
            new = tuple(slot_of[item["id"]] for item in edited)
            if new != ranking:
                s.set(**{param: logic.replace(s[param], qi, new)})
            key = s.key(f"{param}{qi}")
            _sync(key, s[param][qi])
            # Toggles, not a multi-select: each a 44 px target (a tag's remove cross is 15 px).
            st.pills(layout.label(fill(labels["returned"], {"system": names.system(system)})),
                     names.pool, selection_mode="multi", key=key, on_change=_set_returned,
                     args=(s, system, qi, key), format_func=lambda d: escape_markdown(
                         names.doc(d)))

    # The golden set under the rankings it marks (its callback has run before this script).
    gkey = s.key(f"g{qi}")
    _sync(gkey, s["g"][qi])
    st.pills(layout.label(fill(labels["golden"], {"q": shown_q})), names.pool,
             selection_mode="multi", key=gkey, on_change=_set_golden, args=(s, qi, gkey),
             format_func=lambda d: escape_markdown(names.doc(d)))
    st.caption(layout.label(labels["golden_help"]))     # a tooltip never opens on a phone
    flash = st.session_state.pop("mrr-flash", None)
    if flash:
        st.warning(layout.label(labels[flash]))

    k_box, norm_box = st.columns(2, gap="medium")
    k = k_box.slider(layout.label(labels["k"]), 1, len(logic.POOL), value=s["k"],
                     key=s.key("k"))
    s.set(k=k)
    shown = {n: layout.label(labels[f"norm_{n}"]) for n in logic.NORMS}   # formatted this run
    norm = norm_box.radio(layout.label(labels["norm"]), logic.NORMS,
                          index=logic.NORMS.index(s["n"]), format_func=shown.__getitem__,
                          key=s.key("n"))
    s.set(n=norm)
    st.button(labels["reset"], on_click=s.reset, icon=":material/restart_alt:", key="mrr-reset")

    sc = scenario(s)
    rows = logic.question_rows(sc)
    row = rows[qi]
    avg = logic.means(sc, rows)
    # This question's numbers for each system (then MRR over the five questions: one question
    # of the reader's own has no mean to show).
    layout.metrics_strip(FOLDER, [
        (names.system(system), [
            *(layout.measure(m, row.values[system, m], ident=f"{question}.{m}",
                             k=sc.k) for m in logic.MEAN_ORDER),
            *([layout.measure("rr", avg[system]["rr"], mean=True, k=sc.k)] if names.own is None
              else [])])
        for system in logic.SYSTEMS], corner=shown_q, where=strip)

    # --- AP step by step -----------------------------------------------------------------------
    layout.markdown(f"#### {labels['ap_heading']}", {"q": shown_q})
    system = st.segmented_control(layout.label(labels["ap_system"]), logic.SYSTEMS, required=True,
                                  default=s["s"], key=s.key("s"),
                                  format_func=lambda x: escape_markdown(names.system(x)))
    s.set(s=system or s["s"])
    work = logic.ap_work(row.rankings[s["s"]], golden, sc.k, sc.norm)
    steps = []
    for step in work.steps:
        if step.precision is not None:
            here = f"{step.hits}/{step.rank} = {fmt_num(step.precision, 2, digits='latn')}"
        elif step.relevant and not step.counted:
            here = labels["below_k"]
        else:
            here = "—"
        mark = tables.bold(Markup(labels["relevant"])) if step.relevant else labels["not_relevant"]
        steps.append([step.rank, tables.code(names.doc(step.doc)), Markup(mark), Markup(here)])
    lines = [labels["ap_explain"], "",
             tables.table([labels["rank"], labels["document"], labels["relevant_q"],
                    labels["precision_here"]], steps),
             "", layout.formula(work.formula(logic.measure_label('ap', sc.k))), "", labels["n_is"]]
    if work.missed:
        lines += ["", labels["missed"]]
    with st.container(key="mrr-ap-steps"):
        layout.markdown("\n".join(lines), {"k": sc.k, **work.denominators,
                                           "docs": code([names.doc(d) for d in work.missed])})
    if names.own is not None:
        st.info(layout.label(fill(labels["own_note"], {
            "query": shown_q, "a": names.system("vector"), "b": names.system("hybrid")})),
            icon=":material/science:")
        return

    # --- all five questions ---------------------------------------------------------------------
    means = tables.table(
        [labels["ap_system"], *(logic.mean_label(m, sc.k) for m in logic.MEAN_ORDER)],
        [[tables.code(system), *(tables.bold(num(avg[system][m])) for m in logic.MEAN_ORDER)]
         for system in logic.SYSTEMS])
    with st.container(key="mrr-means"):
        layout.markdown(f"### {labels['all_questions']}\n\n**{labels['means']}**\n\n{means}")

    on = st.segmented_control(layout.label(labels["compare_on"]), logic.COMPARE_ON,
                              required=True, default=s["m"], key=s.key("m"),
                              format_func=lambda m: logic.measure_label(m, sc.k))
    s.set(m=on or s["m"])
    sc = dataclasses.replace(sc, on=s["m"])
    res = logic.comparison(sc)
    cmp = res.cmp
    measure = Markup(logic.measure_label(sc.on, sc.k))
    regs = res.regressions
    with st.container(key="mrr-callout"):
        tally = fill(labels["tally"], {"wins": cmp.wins, "ties": cmp.ties, "losses": cmp.losses,
                                       "n": len(res.deltas), "measure": measure})
        if regs:
            text = [fill(labels["regression"], {"q": Markup(d.question), "measure": measure,
                                                "a": num(d.a), "b": num(d.b),
                                                "delta": Markup(logic.signed(d.delta))})
                    for d in regs]
            if cmp.mean_delta > 0:
                text.append(labels["mean_up_but"])
            st.error(layout.label("\n\n".join([*text, tally])), icon=":material/trending_down:")
        else:
            st.success(layout.label(fill(labels["no_regression"], {"measure": measure})
                                    + "\n\n" + tally), icon=":material/check_circle:")

    verdicts = {"win": f"▲ {labels['better']}", "tie": f"= {labels['same']}",
                "loss": f"**▼ {labels['worse']}**"}
    deltas = tables.table(
        [labels["question"], tables.code("vector"), tables.code("hybrid"), labels["delta"],
         labels["verdict"]],
        [[Markup(d.question), num(d.a), num(d.b), Markup(logic.signed(d.delta)),
          Markup(verdicts[d.outcome])] for d in res.deltas])
    with st.container(key="mrr-table"):
        layout.markdown(f"#### {labels['table_heading']}\n\n"
                        f"**{measure}** · `Δ = {labels['delta_axis']}`\n\n{deltas}")
    layout.chart(logic.deltas_chart(res, _chart_labels()))
    paired_tests(res)

    with st.expander(layout.label(labels["glance"])):
        layout.markdown(tables.table(
            [labels["question"], labels["golden_short"], tables.code("vector"),
             tables.code("hybrid")],
            [[Markup(r.question), code_set(r.golden), code(r.rankings["vector"]),
              code(r.rankings["hybrid"])] for r in rows]))


def paired_tests(res: logic.Compared) -> None:
    words, test = logic.test_words(res), c["try_it"]["test"]
    with st.container(key="mrr-tests"):
        layout.markdown(f"{labels['chart_caption']}\n\n#### {labels['test_heading']}")
        layout.metric_row([
            (labels["p_t"], p_value(words["p_t"])),
            (fill(labels["p_rand"], {"patterns": words["patterns"]}), p_value(words["p_rand"])),
            (labels["mean_delta"], Markup(logic.signed(words["mean_delta"]))),
        ])
        parts = [test["what"]]
        if words["p_t"] is None:
            parts.append(test["no_t"])
        # "about 0 times in 100" would read as "never"
        parts.append(test["p_is"] if words["in_100"] >= 1 else test["p_is_below_1"])
        parts.append(test["rare"] if words["p"] < 0.05 else test["not_rare"])
        zero = test["interval_zero"] if words["ci_has_zero"] else test["interval_no_zero"]
        parts.append(f"{test['interval']} {zero}")
        parts.append(test["five"])
        layout.markdown("\n\n".join(parts), {
            "mean_delta": Markup(logic.signed(words["mean_delta"])),
            "p": p_value(words["p"], relation=True),
            "test": test["t_name" if words["p_test"] == "t" else "rand_name"],
            "in_100": words["in_100"], "low": Markup(logic.signed(words["ci_low"])),
            "high": Markup(logic.signed(words["ci_high"])), "n": words["n"],
            "patterns": words["patterns"]})


# --- the counter-example (myth: a higher mean is better for most users) ------------------------


@st.fragment
@layout.friendly_errors("mrr.counter")
def counter_example() -> None:
    s = state.url_state(FOLDER + "_counter", COUNTER_FIELDS)
    cc = c["myths"]["counter"]
    with st.container(border=True, key="mrr-counter"):
        layout.markdown(f"### {cc['heading']}")  # under the myths' h2
        layout.markdown(cc["body"])
        q = st.segmented_control(layout.label(cc["question"]), logic.COUNTER_QUESTIONS,
                                 required=True, default=s["cq"], key=s.key("cq"))
        s.set(cq=q or s["cq"])
        qi = logic.COUNTER_QUESTIONS.index(s["cq"])
        golden = logic.COUNTER_GOLDEN[qi]
        a_rank = logic.COUNTER_A[qi]
        layout.markdown(cc["relevant"], {"doc": code(golden)})
        layout.markdown(cc["a_returns"], {
            "ranking": code(a_rank), "rr": num(logic.value("rr", a_rank, golden, 4))})
        layout.markdown(f"**{cc['b_returns']}**")
        items = [{"id": d, "rel": int(d in golden)} for d in s["cb"][qi]]
        edited = ranking_editor(items, key="mrr-counter-b", labels=strings("ranking"),
                                mode="binary", direction=direction(), editable_relevance=False)
        new = tuple(item["id"] for item in edited)
        if new != s["cb"][qi]:
            s.set(cb=logic.replace(s["cb"], qi, new))
        res = logic.counter_comparison(s["cb"])
        cmp, n = res.cmp, len(res.deltas)
        layout.metric_row([(cc["mean_a"], fmt_num(cmp.mean_a, 2)),
                           (cc["mean_b"], fmt_num(cmp.mean_b, 2)),
                           (cc["worse_count"], f"{fmt_num(cmp.losses)} / {fmt_num(n)}")])
        verdict = logic.counter_verdict(res)
        text = layout.label(fill(cc[f"verdict_{verdict}"], {"losses": cmp.losses, "n": n}))
        {"hidden": st.warning, "higher": st.info, "clean": st.success,
         "lower": st.info}[verdict](text)
        layout.chart(logic.deltas_chart(res, _chart_labels("A", "B", "B − A")))
        st.button(cc["reset"], on_click=s.reset, icon=":material/restart_alt:",
                  key="mrr-counter-reset")


# --- the page ----------------------------------------------------------------------------------

layout.lesson_header(c, FOLDER, sections=layout.INTERACTIVE_FIRST)
with layout.section(c, "try_it", body=False):
    interactive()
    scroll.land(scroll.RANKING, ".st-key-mrr-col-vector", key="mrr-land", covered_by=".mz-strip")
    with st.expander(layout.label(c["interactive"]["things_to_try"]), icon=":material/explore:"):
        layout.markdown(c["try_it"]["body"])
layout.section(c, "core_idea")
worked = logic.worked_values()
layout.section(c, "worked_example", values={
    name: (p_value(v, relation=True) if name.startswith("p_") else Markup(logic.signed(v))
           if name.startswith("d_") else num(v))
    for name, v in worked.items()})
st.page_link(RETRIEVE.script, label=layout.label(c["see_it_for_real"]["link"]),
             icon=RETRIEVE.icon)
code_path(c)
with layout.myths(c):
    counter_example()
with layout.section(c, "exercise"):
    exercise_panel.lesson_exercise(FOLDER, logic.EXERCISES)
layout.flashcards(c)
with layout.section(c, "quiz"):
    quiz(FOLDER)
