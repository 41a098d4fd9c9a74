"""The lab (/lab): upload judgments and one or two runs; per-query metrics, distributions, a fair
comparison and "explain this number" links into the lessons.

Thin page: text from content.<lang>.toml, everything else from ``logic``. Loaded files and
computed results live in session state, keyed by the files' content hash and the settings,
so a rerun (sorting, searching, picking a query) never reads or computes again, and a bad
upload never replaces a file already loaded.
"""

from __future__ import annotations

from collections import OrderedDict

import streamlit as st

from lessons.lab import logic
from metrics.errors import FormatError, MetricError
from metrics.registry import REGISTRY
from runtime import catalog
from text.i18n import Markup, current_lang, fill, fmt_num, load_content
from ui import charts, layout, tables

FOLDER = "lab"
FILES, SEEN, PROBLEMS, CACHE, PASTE = "lab.files", "lab.seen", "lab.problems", "lab.cache", \
    "lab.paste"
PREFER = "lab.prefer"
RUN_LABELS = {"a": "A", "b": "B"}

c = load_content(FOLDER)
lang = current_lang()
inputs, sets, res, cmp_text, expl = (c["inputs"], c["settings"], c["results"], c["compare"],
                                     c["explain"])
files: dict[str, logic.Loaded] = st.session_state.setdefault(FILES, {})
seen: dict[str, str] = st.session_state.setdefault(SEEN, {})
problems: dict[str, tuple[str, str]] = st.session_state.setdefault(PROBLEMS, {})
cache: OrderedDict = st.session_state.setdefault(CACHE, OrderedDict())


def message(err: FormatError | MetricError) -> str:
    return logic.error_message(err, c["format_errors"], c["format_words"])


# --- loading ----------------------------------------------------------------------------------


def read_into(slot: str, name: str, data, *, pasted: bool = False) -> None:
    """Read one file into ``slot`` with a progress indicator; on failure keep what was there."""
    with st.status(fill(inputs["reading"], {"name": name}), expanded=False) as status:
        try:
            if pasted:
                loaded = logic.load_text(slot, data)
            else:
                raw = data.getvalue() if hasattr(data, "getvalue") else data
                loaded = logic.load(slot, name, raw)
        except (FormatError, MetricError) as err:
            problems[slot] = (name, message(err))
            status.update(label=fill(inputs["read_failed"], {"name": name}), state="error")
            return
        files[slot] = loaded
        problems.pop(slot, None)
        status.update(label=fill(inputs["read_done"], {"name": name}), state="complete")


def use_example(key: str) -> None:
    loaded = logic.load_example(key)
    files.clear()
    files.update(loaded)
    problems.clear()
    # Show the measure the example's lesson is about: the pickers are re-created with it.
    st.session_state[PREFER] = next(e.measure for e in logic.EXAMPLES if e.key == key)
    for widget in ("lab-chart-measure", "lab-explain-measure", "lab-explain-query"):
        st.session_state.pop(widget, None)


def remove(slot: str) -> None:
    files.pop(slot, None)
    problems.pop(slot, None)


def request_paste(slot: str) -> None:
    st.session_state[PASTE] = slot


def slot_box(slot: str) -> None:
    with st.container(border=True, key=f"lab-slot-{slot}"):
        layout.markdown(f"**{inputs[slot]}**")
        upload = st.file_uploader(inputs["upload"], key=f"lab-up-{slot}",
                                  max_upload_size=logic.UPLOAD_LIMIT_MB)
        if upload is not None and seen.get(slot) != upload.file_id:
            seen[slot] = upload.file_id
            read_into(slot, upload.name, upload)
        with st.expander(inputs["paste"]):
            st.text_area(inputs["paste"], key=f"lab-paste-{slot}", height=110,
                         placeholder=inputs["paste_placeholder"], label_visibility="collapsed")
            st.button(inputs["paste_use"], key=f"lab-paste-use-{slot}", on_click=request_paste,
                      args=(slot,))
        if st.session_state.get(PASTE) == slot:
            del st.session_state[PASTE]
            read_into(slot, "pasted", st.session_state.get(f"lab-paste-{slot}", ""), pasted=True)
        if slot in problems:
            name, text = problems[slot]
            st.error(layout.label(_problem(name, text)), icon=":material/error:")
            if slot in files:
                st.caption(layout.label(fill(inputs["kept"], {"name": files[slot].name})))
        loaded = files.get(slot)
        if loaded is None:
            st.caption(layout.label(inputs["nothing"]))
        else:
            layout.markdown(inputs["in_use"], {"name": loaded.name,
                                               "rows": Markup(f"{loaded.rows:,}"),
                                               "queries": Markup(f"{loaded.queries:,}")})
            st.button(inputs["remove"], key=f"lab-remove-{slot}", on_click=remove, args=(slot,),
                      icon=":material/delete:")


def _problem(name: str, text: str) -> str:
    return fill(inputs["problem_in"], {"name": name, "message": Markup(text)})


@layout.friendly_errors("lab.inputs")
def inputs_section() -> None:
    layout.section(c, "inputs")
    layout.markdown(f"**{inputs['examples_heading']}**")
    cols = st.columns(2)
    for col, example in zip(cols, logic.EXAMPLES, strict=True):
        number = catalog.number_of(logic.lesson_for(example.measure).FOLDER)
        col.button(fill(inputs[f"example_{example.key}"], {"lesson": number}),
                   key=f"lab-example-{example.key}",
                   on_click=use_example, args=(example.key,), icon=":material/science:",
                   width="stretch")
    layout.markdown(inputs["example_note"])
    cols = st.columns(3)
    for col, slot in zip(cols, logic.SLOTS, strict=True):
        with col:
            slot_box(slot)
    st.caption(layout.label(fill(inputs["limit"], {"limit": logic.UPLOAD_LIMIT_MB})))


# --- settings ---------------------------------------------------------------------------------


@layout.friendly_errors("lab.settings")
def settings_section() -> logic.Settings | None:
    layout.section(c, "settings")
    names = st.multiselect(layout.label(sets["measures"]), logic.PICKABLE,
                           default=list(logic.DEFAULT_MEASURES), key="lab-measures")
    typed = st.multiselect(layout.label(sets["cutoffs"]), logic.CUTOFFS,
                           default=list(logic.DEFAULT_CUTOFFS), accept_new_options=True,
                           placeholder=sets["cutoffs_placeholder"], key="lab-cutoffs")
    cutoffs = []
    for value in typed:
        k = logic.parse_cutoff(value)
        if k is None:
            st.warning(layout.label(fill(sets["bad_cutoff"], {"value": str(value)})))
        else:
            cutoffs.append(k)
    full = st.toggle(layout.label(sets["full"]), key="lab-full")
    cols = st.columns(2)
    rel = cols[0].number_input(layout.label(sets["rel"]), min_value=1, max_value=99, value=1,
                               step=1, help=sets["rel_help"], key="lab-rel")
    gain = cols[1].radio(layout.label(sets["gain"]), logic.GAINS, key="lab-gain",
                         format_func=lambda g: sets[f"gain_{g}"])
    missing = st.radio(layout.label(sets["missing"]), logic.MISSING, key="lab-missing",
                       format_func=lambda m: sets[f"missing_{m}"])
    if not names:
        st.warning(layout.label(sets["need_measure"]))
        return None
    if not cutoffs and any(REGISTRY[n].cutoff == "required" for n in names):
        st.warning(layout.label(sets["need_cutoff"]))
        return None
    settings = logic.Settings(tuple(names), tuple(cutoffs), bool(full), int(rel), gain, missing)
    with st.expander(layout.label(sets["formulas"])), st.container(key="lab-formulas"):
        for name in names:
            m = REGISTRY[name]
            layout.markdown(f"**{name}** — {m.description[lang]}")
            st.latex(m.formula)
            layout.markdown("\n".join(
                f"- **{c['convention_names'][tool]}**: {c['conventions'][name][tool]}"
                for tool in m.conventions))
    return settings


# --- results ----------------------------------------------------------------------------------


def cached(key: tuple, compute):
    if key in cache:
        cache.move_to_end(key)
        return cache[key]
    value = compute()
    cache[key] = value
    while len(cache) > logic.RESULTS_KEPT:
        cache.popitem(last=False)
    return value


def shorten(ids: list[str]) -> str:
    shown = ", ".join(ids[:logic.LIST_SHOWN])
    return shown + (" …" if len(ids) > logic.LIST_SHOWN else "")


def number_columns(table) -> dict:
    return {col: st.column_config.NumberColumn(col, format="%.4f")
            for col in table.columns}


COUNT_ROWS = ("queries", "missing", "unjudged", "no_relevant", "ties", "duplicates")


def counts_table(runs, results) -> None:
    """The counts every policy affected, one column per run (always shown)."""
    n = {label: logic.counts(results[label]) for label in runs}
    values = {label: {"queries": x.queries, "missing": len(x.missing),
                      "unjudged": len(x.unjudged), "no_relevant": len(x.no_relevant),
                      "ties": x.tied_pairs, "duplicates": x.duplicates} for label, x in n.items()}
    counts = tables.table(
        ["", *(f"**{label}**" for label in runs)],
        [[Markup(res[row]), *(Markup(f"{values[label][row]:,}") for label in runs)]
         for row in COUNT_ROWS], align=["left", *["right"] * len(runs)])
    with st.container(key="lab-counts"):
        layout.markdown(counts)
    for label, run in runs.items():
        notes_for(f"{label} ({run.name})", run, results[label], n[label])


def notes_for(run_name: str, run: logic.Loaded, table, n: logic.Counts) -> None:
    if len(n.unjudged) and len(n.unjudged) >= run.queries:
        st.error(layout.label(fill(res["no_common"], {"run": run_name})))
    elif n.unjudged:
        st.warning(layout.label(fill(res["unjudged_warning"], {
            "run": run_name, "n": len(n.unjudged), "list": shorten(n.unjudged)})))
    if n.missing:
        policy = res["missing_zero"] if table.attrs["policy"]["missing"] == "scored 0" \
            else res["missing_skip"]
        st.info(layout.label(fill(res["missing_note"], {
            "run": run_name, "n": len(n.missing), "policy": policy,
            "list": shorten(n.missing)})))
    if n.no_relevant and run.slot == "a":
        st.info(layout.label(fill(res["no_relevant_note"], {
            "n": len(n.no_relevant), "list": shorten(n.no_relevant)})))
    if n.tied_pairs:
        st.info(layout.label(fill(res["ties_note"], {"run": run_name, "n": n.tied_pairs})))


def chart_downloads(spec: dict, stem: str, key: str) -> None:
    cols = st.columns(2)
    cols[0].download_button(res["download_svg"], lambda: charts.svg(spec),
                            file_name=f"{stem}.svg", mime="image/svg+xml", key=f"{key}-svg",
                            on_click="ignore", icon=":material/download:")
    cols[1].download_button(res["download_png"], lambda: charts.png(spec),
                            file_name=f"{stem}.png", mime="image/png", key=f"{key}-png",
                            on_click="ignore", icon=":material/download:")


def chart_labels() -> dict[str, str]:
    words = {"queries": res["chart_queries"], "run": res["run"], "better": cmp_text["better"],
             "same": cmp_text["same"], "worse": cmp_text["worse"], "query": cmp_text["query"],
             "position": cmp_text["position"], "delta": cmp_text["delta"]}
    return {key: charts.text(text) for key, text in words.items()}


@layout.friendly_errors("lab.results")
def results_section(settings: logic.Settings | None) -> None:
    layout.section(c, "results", body=False)
    qrels = files.get("qrels")
    runs = {RUN_LABELS[s]: files[s] for s in ("a", "b") if s in files}
    if qrels is None or not runs or settings is None:
        st.info(layout.label(res["waiting"]))
        return
    keys = {label: logic.result_key(run, qrels, settings) for label, run in runs.items()}
    results = {label: cache[key] for label, key in keys.items() if key in cache}
    if len(results) < len(runs):
        with st.status(res["computing"], expanded=False) as status:
            try:
                for label, run in runs.items():
                    results[label] = cached(keys[label],
                                            lambda r=run: logic.evaluate(r, qrels, settings))
            except (MetricError, FormatError) as err:
                status.update(label=res["computing"], state="error")
                st.error(layout.label(fill(res["error"], {"message": str(err)})))
                return
            status.update(label=res["computed"], state="complete")
    results = {label: results[label] for label in runs}

    counts_table(runs, results)

    layout.markdown(f"**{res['mean']}**")
    mean = logic.mean_table(results)
    with st.container(key="lab-mean"):
        st.dataframe(mean, column_config=number_columns(mean), width="stretch")

    layout.markdown(f"**{res['per_query']}**")
    search = st.text_input(layout.label(res["search"]), key="lab-search",
                           placeholder=res["search_placeholder"])
    table = logic.per_query_table(results, search)
    total = len(logic.per_query_table(results)) if search.strip() else len(table)
    with st.container(key="lab-per-query"):
        st.dataframe(table, column_config=number_columns(table), width="stretch",
                     height=320 if len(table) > 8 else "auto")
    st.caption(layout.label(fill(res["per_query_caption"], {"shown": len(table),
                                                            "total": total})))
    st.download_button(res["download_csv"], lambda: logic.per_query_csv(
        logic.per_query_table(results)), file_name="per_query.csv", mime="text/csv",
        key="lab-csv", on_click="ignore", icon=":material/download:")

    measures = list(next(iter(results.values())).columns)
    measure = st.selectbox(layout.label(res["chart_measure"]), measures, key="lab-chart-measure",
                           index=logic.preferred_index(measures, st.session_state.get(PREFER)))
    layout.markdown(f"**{res['distribution']}**")
    spec = logic.histogram_chart(results, measure, chart_labels())
    st.vega_lite_chart(spec, width="stretch", key="lab-hist")
    chart_downloads(spec, "distribution", "lab-hist")

    comparison = None
    if len(runs) == 2:
        comparison = compare_section(runs, qrels, measure, settings)
    explain_section(runs, qrels, results, measure, comparison)


def compare_section(runs, qrels, measure: str, settings: logic.Settings):
    layout.section(c, "compare")
    a, b = runs["A"], runs["B"]
    key = logic.compare_key(a, b, qrels, measure, settings.missing)
    comparison = cached(key, lambda: logic.compare(a, b, qrels, measure, settings.missing))
    layout.metric_row([
        (cmp_text["wins"], comparison.wins), (cmp_text["ties"], comparison.ties),
        (cmp_text["losses"], comparison.losses),
        (cmp_text["mean_a"], fmt_num(comparison.mean_a, 4)),
        (cmp_text["mean_b"], fmt_num(comparison.mean_b, 4)),
        (cmp_text["mean_delta"], logic.signed(comparison.mean_delta, 4)),
        (cmp_text["ci"], f"[{logic.signed(comparison.ci_low, 3)}, "
                         f"{logic.signed(comparison.ci_high, 3)}]"),
        (cmp_text["p_t"], logic.p_text(comparison.p_ttest)),
        (cmp_text["p_rand"], logic.p_text(comparison.p_randomization)),
    ])
    layout.markdown(cmp_text["words"], logic.compare_words(comparison))
    verdict = logic.compare_verdict(comparison)
    (st.success if verdict == "clear" else st.info)(layout.label(cmp_text[verdict]))

    layout.markdown(f"**{cmp_text['regressions']}**")
    regressions = comparison.regressions
    if regressions.empty:
        st.caption(layout.label(cmp_text["no_regressions"]))
    else:
        shown = delta_table(regressions).drop(columns="")   # all "B worse"
        with st.container(key="lab-regressions"):
            st.dataframe(shown, width="stretch", height=320 if len(shown) > 8 else "auto",
                         column_config=number_columns(shown[["A", "B", "B − A"]]))
    layout.markdown(f"**{cmp_text['chart']}**")
    spec = logic.delta_chart(comparison, chart_labels())
    st.vega_lite_chart(spec, width="stretch", key="lab-deltas")
    chart_downloads(spec, "differences", "lab-deltas")
    with st.expander(layout.label(cmp_text["all_deltas"])):
        ordered = delta_table(logic.ordered_deltas(comparison))
        st.dataframe(ordered, width="stretch", height=320 if len(ordered) > 8 else "auto",
                     column_config=number_columns(ordered[["A", "B", "B − A"]]))
    return comparison


def delta_table(table):
    """Per-query deltas for display: run names as columns, the outcome in the page's words."""
    words = {"win": cmp_text["better"], "tie": cmp_text["same"], "loss": cmp_text["worse"]}
    return logic.delta_display(table, words)


def explain_section(runs, qrels, results, measure: str, comparison) -> None:
    layout.section(c, "explain")
    first = next(iter(results.values()))
    queries = [str(q) for q in first.index]
    if comparison is not None and not comparison.regressions.empty:
        worst = [str(q) for q in comparison.regressions.index]
        queries = worst + [q for q in queries if q not in set(worst)]
    if not queries:
        return
    cols = st.columns(2)
    query = cols[0].selectbox(layout.label(expl["query"]), queries, key="lab-explain-query")
    measures = list(first.columns)
    chosen = cols[1].selectbox(layout.label(expl["measure"]), measures,
                               index=measures.index(measure), key="lab-explain-measure")
    values = " · ".join(f"{label}: {fmt_num(float(t.loc[query, chosen]), 4)}"
                        for label, t in results.items() if query in t.index)
    layout.markdown(expl["value"], {"measure": chosen, "query": query, "values": values})
    rankings = {label: logic.ranking_of(run.frame, query) for label, run in runs.items()}
    grades = logic.judgments_of(qrels.frame, query)
    link = logic.explain(chosen, query, rankings, grades)
    lesson_name = expl[f"lesson_{link.lesson}"]
    st.page_link(link.script, label=layout.label(fill(expl["open"], {"lesson": lesson_name})),
                 icon=":material/open_in_new:", query_params=link.params)
    for note in link.notes:
        st.caption(layout.label(fill(expl[note], {"shown": link.shown, "query": query})
                                if "{{" in expl[note] else expl[note]))


layout.lesson_css("lab")
layout.lesson_header(c)
layout.section(c, "intro", values={"limit": logic.UPLOAD_LIMIT_MB})
inputs_section()
chosen_settings = settings_section()
results_section(chosen_settings)
