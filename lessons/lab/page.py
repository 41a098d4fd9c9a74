"""The lab (/lab): upload judgments and up to ten runs; per-query measures, one table of every
run against a baseline with corrected significance markers, reports, fusion, charts and
"explain this number" links into the lessons.

Thin page: text from content.<lang>.toml, everything else from ``logic``. Loaded files and
computed results live in session state, keyed by the files' content hash and the settings,
so a rerun (sorting, searching, picking a query) never reads or computes again, and a bad
upload never replaces a file already loaded.
"""

from __future__ import annotations

from collections import OrderedDict

import streamlit as st

from lessons.lab import logic
from metrics.compare import MAX_RUNS, unique_names
from metrics.errors import MAX_PROBLEMS, FormatError, MetricError
from metrics.registry import REGISTRY, parse
from runtime import catalog
from text.bidi import escape_html
from text.i18n import Markup, current_lang, fill, list_and, load_content
from ui import charts, layout, tables

FOLDER = "lab"
QRELS, RUNS, SEEN, PROBLEMS, CACHE, PASTE = ("lab.qrels", "lab.runs", "lab.seen",
                                             "lab.problems", "lab.cache", "lab.paste")
PREFER, COUNTER, FUSION_NOTE = "lab.prefer", "lab.counter", "lab.fusion"

c = load_content(FOLDER)
lang = current_lang()
inputs, sets, res, cmp_text, expl, fus = (c["inputs"], c["settings"], c["results"],
                                          c["compare"], c["explain"], c["fusion"])
qrels_box: dict[str, logic.Loaded] = st.session_state.setdefault(QRELS, {})
runs: OrderedDict[str, logic.Loaded] = st.session_state.setdefault(RUNS, OrderedDict())
seen: set[str] = st.session_state.setdefault(SEEN, set())
problems: dict[str, tuple[str, list[str], bool]] = st.session_state.setdefault(PROBLEMS, {})
cache: OrderedDict = st.session_state.setdefault(CACHE, OrderedDict())


def messages(err: FormatError | MetricError) -> tuple[list[str], bool]:
    return logic.error_messages(err, c["format_errors"], c["format_words"], c["metric_errors"])


def message(err: FormatError | MetricError) -> str:
    return logic.error_message(err, c["format_errors"], c["format_words"], c["metric_errors"])


def name_key(slot: str) -> str:
    return f"lab-name-{slot}"


def new_slot() -> str:
    """A slot no run has (the examples' runs come with r1, r2)."""
    while True:
        st.session_state[COUNTER] = st.session_state.get(COUNTER, 0) + 1
        slot = f"r{st.session_state[COUNTER]}"
        if slot not in runs:
            return slot


def add_run(loaded: logic.Loaded) -> None:
    """Add a run under a new slot, its name (editable) its tag, kept apart from the others."""
    taken = [run_names().get(s, r.tag) for s, r in runs.items()]
    name = unique_names([*taken, loaded.tag])[-1]
    slot = loaded.slot if loaded.slot not in runs else new_slot()
    runs[slot] = logic.Loaded(slot, loaded.name, loaded.digest, loaded.size, loaded.frame,
                              loaded.tag)
    st.session_state[name_key(slot)] = name


def run_names() -> dict[str, str]:
    """slot -> the run's name as the user left it (its tag when the box is empty)."""
    out = {}
    for slot, run in runs.items():
        typed = str(st.session_state.get(name_key(slot), "") or "").strip()
        out[slot] = typed or run.tag
    return out


# --- loading ----------------------------------------------------------------------------------


def read(where: str, slot: str, name: str, data, *, pasted: bool = False) -> logic.Loaded | None:
    """Read one file; on failure list every problem under ``where`` and return None."""
    with st.spinner(fill(inputs["reading"], {"name": name})):
        try:
            if pasted:
                loaded = logic.load_text(slot, data, name)
            else:
                raw = data.getvalue() if hasattr(data, "getvalue") else data
                loaded = logic.load(slot, name, raw)
        except (FormatError, MetricError) as err:
            problems[where] = (name, *messages(err))
            return None
    problems.pop(where, None)
    return loaded


def read_run(name: str, data, *, pasted: bool = False) -> None:
    if len(runs) >= MAX_RUNS:
        problems["runs"] = (name, [message(MetricError("run_count", found=len(runs) + 1,
                                                       limit=MAX_RUNS))], False)
        return
    loaded = read("runs", new_slot(), name, data, pasted=pasted)
    if loaded is not None:
        add_run(loaded)


def use_example(key: str) -> None:
    loaded = logic.load_example(key)
    qrels_box.clear()
    runs.clear()
    problems.clear()
    qrels_box["qrels"] = loaded.pop(logic.QRELS)
    for run in loaded.values():
        add_run(run)
    # Show the measure the example's lesson is about: the pickers are re-created with it.
    st.session_state[PREFER] = next(e.measure for e in logic.EXAMPLES if e.key == key)
    for widget in ("lab-chart-measure", "lab-explain-query", "lab-baseline", "lab-pair"):
        st.session_state.pop(widget, None)


def remove(slot: str) -> None:
    if slot == logic.QRELS:
        qrels_box.clear()
    runs.pop(slot, None)
    problems.pop(slot, None)


def request_paste(slot: str) -> None:
    st.session_state[PASTE] = slot


def show_problems(where: str) -> None:
    if where not in problems:
        return
    name, lines, truncated = problems[where]
    text = fill(inputs["problems_in"], {"name": name, "n": len(lines)}) + "\n\n" + "\n".join(
        f"- {line}" for line in lines)
    if truncated:
        text += "\n\n" + fill(inputs["more_problems"], {"limit": MAX_PROBLEMS})
    with st.container(key=f"lab-problems-{where}"):
        st.error(layout.label(text), icon=":material/error:")


def paste_box(slot: str) -> bool:
    """A paste area with its button; True once when the button was pressed."""
    with st.expander(inputs["paste"]):
        st.text_area(inputs["paste"], key=f"lab-paste-{slot}", height=110,
                     placeholder=inputs[f"paste_placeholder_{slot}"],
                     label_visibility="collapsed")
        st.button(inputs["paste_use"], key=f"lab-paste-use-{slot}", on_click=request_paste,
                  args=(slot,))
    if st.session_state.get(PASTE) == slot:
        del st.session_state[PASTE]
        return True
    return False


def qrels_slot() -> None:
    with st.container(border=True, key="lab-slot-qrels"):
        layout.markdown(f"**{inputs['qrels']}**")
        upload = st.file_uploader(inputs["upload"], key="lab-up-qrels",
                                  max_upload_size=logic.UPLOAD_LIMIT_MB)
        if upload is not None and upload.file_id not in seen:
            seen.add(upload.file_id)
            loaded = read("qrels", logic.QRELS, upload.name, upload)
            if loaded is not None:
                qrels_box["qrels"] = loaded
        if paste_box("qrels"):
            loaded = read("qrels", logic.QRELS, inputs["pasted_name"],
                          st.session_state.get("lab-paste-qrels", ""), pasted=True)
            if loaded is not None:
                qrels_box["qrels"] = loaded
        show_problems("qrels")
        loaded = qrels_box.get("qrels")
        if loaded is None:
            st.caption(layout.label(inputs["nothing"]))
            return
        if "qrels" in problems:
            st.caption(layout.label(fill(inputs["kept"], {"name": loaded.name})))
        layout.markdown(inputs["in_use"], {"name": loaded.name,
                                           "rows": Markup(f"{loaded.rows:,}"),
                                           "queries": Markup(f"{loaded.queries:,}")})
        st.button(inputs["remove"], key="lab-remove-qrels", on_click=remove,
                  args=(logic.QRELS,), icon=":material/delete:")


def runs_slot() -> None:
    with st.container(border=True, key="lab-slot-runs"):
        layout.markdown(f"**{fill(inputs['runs'], {'limit': MAX_RUNS})}**")
        uploads = st.file_uploader(inputs["upload_runs"], key="lab-up-runs",
                                   accept_multiple_files=True,
                                   max_upload_size=logic.UPLOAD_LIMIT_MB)
        for upload in uploads or []:
            if upload.file_id not in seen:
                seen.add(upload.file_id)
                read_run(upload.name, upload)
        if paste_box("runs"):
            read_run(inputs["pasted_name"], st.session_state.get("lab-paste-runs", ""),
                     pasted=True)
        show_problems("runs")
        if not runs:
            st.caption(layout.label(inputs["nothing"]))
            return
        if "runs" in problems:
            st.caption(layout.label(inputs["kept_runs"]))
        for i, (slot, run) in enumerate(runs.items()):
            with st.container(key=f"lab-run-{slot}"):
                cols = st.columns([3, 4, 2], vertical_alignment="bottom")
                cols[0].text_input(layout.label(fill(inputs["run_name"],
                                                     {"letter": logic.LETTERS[i]})),
                                   key=name_key(slot), help=inputs["run_name_help"])
                with cols[1]:
                    layout.markdown(inputs["run_in_use"], {
                        "name": run.name, "rows": Markup(f"{run.rows:,}"),
                        "queries": Markup(f"{run.queries:,}")})
                    if run.size == 0:   # a fused run has no file of its own: offer one
                        name = run_names()[slot]
                        st.download_button(
                            fus["download"], lambda r=run, n=name: logic.fused_file(r, n),
                            file_name=f"{logic.LETTERS[i]}_fused.trec", mime="text/plain",
                            key=f"lab-dl-fused-{slot}", on_click="ignore",
                            icon=":material/download:")
                cols[2].button(inputs["remove"], key=f"lab-remove-{slot}", on_click=remove,
                               args=(slot,), icon=":material/delete:")


@layout.friendly_errors("lab.inputs")
def inputs_section() -> None:
    layout.section(c, "inputs")
    layout.markdown(f"**{inputs['examples_heading']}**")
    cols = st.columns(2)
    for col, example in zip(cols, logic.EXAMPLES, strict=True):
        number = catalog.number_of(example.lesson)
        col.button(fill(inputs[f"example_{example.key}"], {"lesson": number}),
                   key=f"lab-example-{example.key}",
                   on_click=use_example, args=(example.key,), icon=":material/science:",
                   width="stretch")
    cols = st.columns([2, 3])
    with cols[0]:
        qrels_slot()
    with cols[1]:
        runs_slot()
    st.caption(layout.label(fill(inputs["limit"], {"limit": logic.UPLOAD_LIMIT_MB})))


# --- settings ---------------------------------------------------------------------------------


@layout.friendly_errors("lab.settings")
def settings_section() -> logic.Settings | None:
    layout.section(c, "settings")
    names = st.multiselect(layout.label(sets["measures"]), logic.PICKABLE,
                           default=list(logic.DEFAULT_MEASURES), key="lab-measures")
    typed_text = st.text_input(layout.label(sets["typed"]), key="lab-typed",
                               placeholder=sets["typed_placeholder"], help=sets["typed_help"])
    typed, bad = logic.parse_measures(typed_text)
    if bad:
        with st.container(key="lab-typed-problems"):
            st.warning(layout.label("\n".join(f"- {message(err)}" for err in bad)))
    typed_cutoffs = st.multiselect(layout.label(sets["cutoffs"]), logic.CUTOFFS,
                                   default=list(logic.DEFAULT_CUTOFFS), accept_new_options=True,
                                   placeholder=sets["cutoffs_placeholder"], key="lab-cutoffs")
    cutoffs = []
    for value in typed_cutoffs:
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
    if not names and not typed:
        st.warning(layout.label(sets["need_measure"]))
        return None
    if not cutoffs and any(REGISTRY[n].cutoff == "required" for n in names):
        st.warning(layout.label(sets["need_cutoff"]))
        return None
    settings = logic.Settings(tuple(names), tuple(cutoffs), bool(full), int(rel), gain, missing,
                              tuple(typed))
    shown = list(dict.fromkeys([*names, *(parse(t).measure.name for t in typed)]))
    with st.expander(layout.label(sets["formulas"])), st.container(key="lab-formulas"):
        for name in shown:
            m = REGISTRY[name]
            layout.markdown(f"**{name}** — {m.description[lang]}")
            st.latex(m.formula)
            layout.markdown(m.legend[lang])
            said = c["conventions"].get(name, {})
            if said:
                layout.markdown("\n".join(f"- **{c['convention_names'][tool]}**: {text}"
                                          for tool, text in said.items()))
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


def number_columns(table, helps: dict[str, str] | None = None) -> dict:
    fmt = f"%.{logic.DECIMALS}f"
    return {col: st.column_config.NumberColumn(col, format=fmt, help=(helps or {}).get(col))
            for col in table.columns}


# no "duplicates" row: the lab refuses a file that lists a document twice for a query, so
# metrics.evaluate never has one to drop here
COUNT_ROWS = ("queries", "missing", "unjudged", "no_relevant", "ties")


def counts_table(named: dict[str, logic.Loaded], results: dict[str, logic.Result]) -> None:
    """The counts every policy affected, one row per run (always shown)."""
    n = {name: logic.counts(results[name].table) for name in named}
    values = {name: {"queries": x.queries, "missing": len(x.missing),
                     "unjudged": len(x.unjudged), "no_relevant": len(x.no_relevant),
                     "ties": x.tied_pairs} for name, x in n.items()}
    counts = tables.table(
        ["", *(res[row] for row in COUNT_ROWS)],
        [[escape_html(name), *(Markup(f"{values[name][row]:,}") for row in COUNT_ROWS)]
         for name in named], align=["left", *["right"] * len(COUNT_ROWS)])
    with st.container(key="lab-counts"):
        layout.markdown(counts)
    for i, (name, run) in enumerate(named.items()):
        notes_for(name, run, results[name].table, n[name], first=i == 0)


def notes_for(run_name: str, run: logic.Loaded, table, n: logic.Counts, *, first: bool) -> None:
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
    if n.no_relevant and first:
        st.info(layout.label(fill(res["no_relevant_note"], {
            "n": len(n.no_relevant), "list": shorten(n.no_relevant)})))
    if n.tied_pairs:
        st.info(layout.label(fill(res["ties_note"], {"run": run_name, "n": n.tied_pairs})))


def chart_downloads(spec: dict, title: str, stem: str, key: str) -> None:
    """SVG and PNG of ``spec``, drawn with ``title`` above it (it names measure and runs)."""
    drawn = logic.titled(spec, title)
    cols = st.columns(2)
    cols[0].download_button(res["download_svg"], lambda: charts.svg(drawn),
                            file_name=f"{stem}.svg", mime="image/svg+xml", key=f"{key}-svg",
                            on_click="ignore", icon=":material/download:")
    cols[1].download_button(res["download_png"], lambda: charts.png(drawn),
                            file_name=f"{stem}.png", mime="image/png", key=f"{key}-png",
                            on_click="ignore", icon=":material/download:")


def chart_labels(a: str = "A", b: str = "B") -> dict[str, str]:
    words = {"queries": res["chart_queries"], "run": res["run"], "better": cmp_text["better"],
             "same": cmp_text["same"], "worse": cmp_text["worse"], "query": cmp_text["query"],
             "position": cmp_text["position"], "delta": cmp_text["delta"],
             "recall": res["recall"], "precision": res["precision"]}
    out = {key: charts.text(logic.plain(text, {"a": a, "b": b})) for key, text in words.items()}
    return {**out, "a": charts.text(a), "b": charts.text(b)}


def measure_header(measure: str) -> Markup:
    """A column header that shows the measure's description and formula on hover."""
    tip = escape_html(logic.formula_help(measure, lang))
    return Markup(f'<span class="lab-measure" title="{tip}">{escape_html(measure)}</span>')


@layout.friendly_errors("lab.results")
def results_section(settings: logic.Settings | None) -> None:
    layout.section(c, "results", body=False)
    qrels = qrels_box.get("qrels")
    if qrels is None or not runs or settings is None:
        st.info(layout.label(res["waiting"]))
        return
    names = run_names()
    if len(set(names.values())) < len(names):
        st.warning(layout.label(res["duplicate_names"]))
    named = named_runs()
    keys = {name: logic.result_key(run, qrels, settings) for name, run in named.items()}
    results: dict[str, logic.Result] = {}
    try:
        with st.spinner(res["computing"]):
            for name, run in named.items():
                results[name] = cached(keys[name],
                                       lambda r=run: logic.evaluate(r, qrels, settings))
    except (MetricError, FormatError) as err:
        st.error(layout.label(fill(res["error"], {"message": Markup(message(err))})))
        return
    tables_ = {name: r.table for name, r in results.items()}
    counts_table(named, results)

    measures = list(next(iter(tables_.values())).columns)
    comparison = None
    layout.markdown(f"**{res['mean']}**")
    if len(named) >= 2:
        cols = st.columns(2)
        baseline = cols[0].selectbox(layout.label(cmp_text["baseline"]), list(named),
                                     key="lab-baseline", help=cmp_text["baseline_help"])
        test = cols[1].radio(layout.label(cmp_text["test"]), logic.TESTS, key="lab-test",
                             format_func=lambda t: cmp_text[f"test_{t}"], horizontal=True)
        key = logic.compare_key([keys[n] for n in named], list(named), baseline, test)
        with st.spinner(res["comparing"]):
            comparison = cached(key, lambda: logic.compare(tables_, baseline, test))
    judged = logic.judged_table(results)
    k = next(iter(results.values())).k
    header = ["", res["run"], *(measure_header(m) for m in measures),
              fill(res["judged_col"], {"k": k}), fill(res["unjudged_col"], {"k": k})]
    means = logic.mean_table(tables_)
    summary = tables.table(header, [[Markup(cell) for cell in row] for row in logic.summary_rows(
        list(named), means, judged, comparison)],
        align=["left", "left", *["right"] * (len(measures) + 2)])
    with st.container(key="lab-mean"):
        layout.markdown(summary)
    st.caption(layout.label(res["hover"]))
    if comparison is not None:
        with st.container(key="lab-note"):
            layout.markdown(logic_note(comparison))
    low = logic.poorly_judged(results)
    if low:
        st.warning(layout.label(fill(res["judged_warning"], {
            "k": k, "runs": list_and(low), "share": round(100 * logic.JUDGED_WARN)})))
    if comparison is not None:
        intervals_table(comparison)
        report_downloads(comparison, tables_)
    else:
        st.download_button(res["download_q"], logic.trec_eval_q(tables_),
                           file_name="per_query.trec_eval.txt", mime="text/plain",
                           key="lab-dl-q", on_click="ignore", icon=":material/download:")

    layout.markdown(f"**{res['per_query']}**")
    search = st.text_input(layout.label(res["search"]), key="lab-search",
                           placeholder=res["search_placeholder"])
    table = logic.per_query_table(tables_, search)
    total = len(logic.per_query_table(tables_)) if search.strip() else len(table)
    with st.container(key="lab-per-query"):
        st.dataframe(table, column_config=number_columns(table), width="stretch",
                     height=320 if len(table) > 8 else "auto")
    st.caption(layout.label(fill(res["per_query_caption"], {"shown": len(table),
                                                            "total": total})))
    st.download_button(res["download_csv"], lambda: logic.per_query_csv(
        logic.per_query_table(tables_)), file_name="per_query.csv", mime="text/csv",
        key="lab-csv", on_click="ignore", icon=":material/download:")

    with st.container(key="lab-measure-picker"):
        measure = st.selectbox(
            layout.label(res["chart_measure"]), measures, key="lab-chart-measure",
            index=logic.preferred_index(measures, st.session_state.get(PREFER)),
            help=res["chart_measure_help"])
    layout.markdown(f"**{res['distribution']}**")
    spec = logic.histogram_chart(tables_, measure, chart_labels())
    st.vega_lite_chart(spec, width="stretch", key="lab-hist")
    chart_downloads(spec, fill(res["distribution_title"], {"measure": measure,
                                                          "runs": list_and(named)}),
                    "distribution", "lab-hist")
    pr_section(named, qrels, settings)

    pair_view = None
    if comparison is not None:
        pair_view = pair_section(comparison, measure)
    explain_section(named, qrels, tables_, measure, pair_view)
    if len(named) >= 2:
        fusion_section(named)


def logic_note(cmp) -> str:
    """What the markers mean, in the page's language (``metrics.report.note``'s sentences)."""
    from metrics import report

    return cmp_text["markers"] + "\n\n" + report.note(cmp, logic.note_words(c["report_note"]))


def intervals_table(cmp) -> None:
    layout.markdown(f"**{fill(cmp_text['intervals'], {'baseline': cmp.baseline})}**")
    shown = logic.tests_table(cmp).rename(columns={
        col: cmp_text[f"col_{col}"] for col in ("run", "measure", "delta", "ci_low", "ci_high",
                                                 "p_t", "p_randomization", "wins", "ties",
                                                 "losses")})
    fmt = f"%.{logic.DECIMALS}f"
    config = {cmp_text[f"col_{col}"]: st.column_config.NumberColumn(format=fmt)
              for col in ("delta", "ci_low", "ci_high", "p_t", "p_randomization")}
    with st.container(key="lab-intervals"):
        st.dataframe(shown, hide_index=True, width="stretch", column_config=config,
                     height=320 if len(shown) > 8 else "auto")
    st.caption(layout.label(fill(cmp_text["intervals_caption"], {
        "confidence": round(100 * cmp.confidence), "m": len(cmp.tests)})))


def report_downloads(cmp, tables_) -> None:
    layout.markdown(f"**{res['reports']}**")
    files = logic.report_files(cmp, logic.note_words(c["report_note"]), res["latex_caption"],
                               lang, res["latex_caption_local"])
    cols = st.columns(4)
    for col, (kind, (file_name, mime, text)) in zip(cols, files.items(), strict=False):
        col.download_button(res[f"download_{kind}"], text, file_name=file_name, mime=mime,
                            key=f"lab-dl-{kind}", on_click="ignore",
                            icon=":material/download:", width="stretch")
    cols[3].download_button(res["download_q"], lambda: logic.trec_eval_q(tables_),
                            file_name="per_query.trec_eval.txt", mime="text/plain",
                            key="lab-dl-q", on_click="ignore", icon=":material/download:",
                            width="stretch")
    st.caption(layout.label(res["reports_caption"]))


def pr_section(named, qrels, settings) -> None:
    layout.markdown(f"**{res['pr']}**")
    if not st.toggle(layout.label(res["pr_show"]), key="lab-pr"):
        return
    key = ("pr", tuple(r.digest for r in named.values()), tuple(named), qrels.digest,
           settings.rel, settings.missing)
    with st.spinner(res["computing"]):
        curves = cached(key, lambda: logic.pr_curves(named, qrels, settings))
    queries = [str(q) for q in next(iter(curves.values())).index]
    mean = res["pr_mean"]
    query = st.selectbox(layout.label(res["pr_query"]), [mean, *queries], key="lab-pr-query")
    chosen = None if query == mean else query
    spec = logic.pr_chart(curves, chart_labels(), chosen)
    st.vega_lite_chart(spec, width="stretch", key="lab-pr-chart")
    title = fill(res["pr_title"], {"runs": list_and(named),
                                   "which": query})
    chart_downloads(spec, title, "precision_recall", "lab-pr")


def pair_section(cmp, measure: str):
    others = [r for r in cmp.runs if r != cmp.baseline]
    layout.section(c, "compare")
    run = st.selectbox(layout.label(cmp_text["pair"]), others, key="lab-pair")
    a, b = cmp.baseline, run
    view = logic.pair(cmp, run, measure)
    names = {"a": a, "b": b}
    layout.metric_row([
        (logic.plain(cmp_text["wins"], names), view.wins), (cmp_text["ties"], view.ties),
        (logic.plain(cmp_text["losses"], names), view.losses),
        (logic.plain(cmp_text["mean_of"], {"run": a}), logic.num(view.mean_a)),
        (logic.plain(cmp_text["mean_of"], {"run": b}), logic.num(view.mean_b)),
        (logic.plain(cmp_text["mean_delta"], names), logic.signed(view.mean_delta)),
        (logic.plain(cmp_text["ci"], {"confidence": round(100 * view.confidence)}),
         f"[{logic.signed(view.ci_low)}, {logic.signed(view.ci_high)}]"),
        (cmp_text["p_t"], logic.p_text(view.p_ttest)),
        (cmp_text["p_rand"], logic.p_text(view.p_randomization)),
    ])
    words = logic.compare_words(view)
    # the t-test has no p when every query moved by the same amount (no spread)
    t_answer = Markup(fill(cmp_text["t_answers" if view.p_ttest is not None else "t_no_answer"],
                           words))
    layout.markdown(cmp_text["words"], {**words, **names, "t_answer": t_answer})
    verdict = logic.compare_verdict(view, logic.adjusted_p(cmp, run, measure))
    shown = fill(cmp_text[verdict], names)
    if verdict.startswith("clear") and not view.regressions.empty:
        shown += " " + fill(cmp_text["still_regressions"], names)   # only when some got worse
    (st.success if verdict.startswith("clear") else st.info)(layout.label(shown))

    layout.markdown(f"**{fill(cmp_text['regressions'], names)}**")
    regressions = view.regressions
    if regressions.empty:
        st.caption(layout.label(fill(cmp_text["no_regressions"], names)))
    else:
        shown = delta_table(regressions, a, b).drop(columns="")
        with st.container(key="lab-regressions"):
            st.dataframe(shown, width="stretch", height=320 if len(shown) > 8 else "auto",
                         column_config=number_columns(shown))
    layout.markdown(f"**{fill(cmp_text['chart'], names)}**")
    spec = logic.delta_chart(view, chart_labels(a, b))
    st.vega_lite_chart(spec, width="stretch", key="lab-deltas")
    chart_downloads(spec, fill(cmp_text["chart_title"], {**names, "measure": measure}),
                    "differences", "lab-deltas")
    with st.expander(layout.label(cmp_text["all_deltas"])):
        ordered = delta_table(logic.ordered_deltas(view), a, b)
        st.dataframe(ordered, width="stretch", height=320 if len(ordered) > 8 else "auto",
                     column_config=number_columns(ordered.drop(columns="")))
    return view, a, b


def delta_table(table, a: str, b: str):
    """Per-query deltas for display: run names as columns, the outcome in the page's words."""
    names = {"a": a, "b": b}
    words = {"win": logic.plain(cmp_text["better"], names), "tie": cmp_text["same"],
             "loss": logic.plain(cmp_text["worse"], names)}
    return logic.delta_display(table, words, a, b)


def explain_section(named, qrels, tables_, measure: str, pair_view) -> None:
    layout.section(c, "explain")
    first = next(iter(tables_.values()))
    queries = [str(q) for q in first.index]
    if pair_view is not None and not pair_view[0].regressions.empty:
        worst = [str(q) for q in pair_view[0].regressions.index]
        queries = worst + [q for q in queries if q not in set(worst)]
    if not queries:
        return
    query = st.selectbox(layout.label(expl["query"]), queries, key="lab-explain-query")
    shown = [pair_view[1], pair_view[2]] if pair_view is not None else list(named)[:2]
    values = " · ".join(f"{name}: {logic.num(float(tables_[name].loc[query, measure]))}"
                        for name in shown if query in tables_[name].index)
    layout.markdown(expl["value"], {"measure": measure, "query": query, "values": values})
    rankings = {name: logic.ranking_of(named[name].frame, query) for name in shown}
    grades = logic.judgments_of(qrels.frame, query)
    links = logic.explain_links(measure, query, rankings, grades, lang)
    for i, (name, link) in enumerate(links):
        with st.container(key=f"lab-explain-link-{i}"):
            lesson_name = expl[f"lesson_{link.lesson}"]
            text = fill(expl["open"] if name is None else expl["open_run"],
                        {"lesson": lesson_name, "run": name or ""})
            st.page_link(link.script, label=layout.label(text),
                         icon=":material/open_in_new:", query_params=link.params)
            for note in link.notes:
                st.caption(layout.label(fill(expl[note], {"shown": link.shown, "query": query,
                                                          "k": parse(measure).k or "",
                                                          "measure": measure})))


def named_runs() -> dict[str, logic.Loaded]:
    """name -> run, the names as the user left them, told apart when two are equal."""
    names = run_names()
    unique = unique_names(list(names.values()))
    return {name: runs[slot] for slot, name in zip(names, unique, strict=True)}


def fuse_now() -> None:
    """The form's callback: runs before the page is drawn, so the new run's name box can be
    set (a widget's value cannot change once it is drawn)."""
    named = named_runs()
    parts = [p for p in st.session_state.get("lab-fuse-runs", []) if p in named]
    method = st.session_state.get("lab-fuse-method", "rrf")
    norm = st.session_state.get("lab-fuse-norm", "min-max")
    if len(parts) < 2:
        st.session_state[FUSION_NOTE] = ("warning",
                                         message(MetricError("fusion_runs", found=len(parts))))
        return
    if len(runs) >= MAX_RUNS:
        st.session_state[FUSION_NOTE] = ("warning", message(MetricError(
            "run_count", found=len(runs) + 1, limit=MAX_RUNS)))
        return
    try:
        fused = logic.fuse({p: named[p] for p in parts}, method, norm, new_slot())
    except (MetricError, FormatError) as err:
        st.session_state[FUSION_NOTE] = ("error", message(err))
        return
    if any(r.digest == fused.digest for r in runs.values()):
        st.session_state[FUSION_NOTE] = ("info", fus["already"])
        return
    add_run(fused)


@layout.friendly_errors("lab.fusion")
def fusion_section(named) -> None:
    layout.section(c, "fusion")
    with st.form("lab-fusion", border=True):
        st.multiselect(layout.label(fus["runs"]), list(named), default=list(named)[:2],
                       key="lab-fuse-runs")
        cols = st.columns(2)
        cols[0].radio(layout.label(fus["method"]), logic.FUSION_METHODS, key="lab-fuse-method",
                      format_func=lambda m: fus[f"method_{m}"])
        cols[1].radio(layout.label(fus["norm"]), logic.FUSION_NORMS, key="lab-fuse-norm",
                      format_func=lambda n: fus[f"norm_{n}"], help=fus["norm_help"])
        st.form_submit_button(fus["make"], icon=":material/merge:", key="lab-fuse-make",
                              on_click=fuse_now)
    note = st.session_state.pop(FUSION_NOTE, None)
    if note is not None:
        kind, text = note
        getattr(st, kind)(layout.label(text))


layout.lesson_css("lab")
layout.lesson_header(c)
layout.section(c, "intro", values={"limit": logic.UPLOAD_LIMIT_MB, "runs": MAX_RUNS})
inputs_section()
chosen_settings = settings_section()
results_section(chosen_settings)
