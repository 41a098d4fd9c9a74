"""/retrieve: real retrievers (BM25, dense, hybrid) on the bundled handbook or an upload.

Three views (``?v=``): one question (rankings, predict then reveal the judgments, judge the
unjudged, measures, links into lessons 2 and 5), all questions (means, per-question deltas,
paired tests, the reading by question kind, TREC files) and your own corpus (upload, chunking,
BM25 at once and the dense index built in the background).

Thin page: text from content.<lang>.toml, numbers from ``logic`` (``retrieval`` + ``metrics``).
Each view is a fragment, and one question's results a fragment inside its view: typing a question,
moving k or judging reruns only that part.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence

import streamlit as st

from lessons.retrieve import logic
from metrics.errors import FormatError
from retrieval import dense
from retrieval.upload import Chunking
from runtime import state
from text import bidi
from text.i18n import (
    Markup,
    current_digits,
    current_lang,
    direction,
    fill,
    fmt_num,
    list_and,
    list_separator,
    load_content,
)
from ui import layout
from ui.html_view import html_view

FOLDER = "retrieve"
JUDGED = "rt.judged"   # {(corpus key, question key): {passage id: grade}}: the learner's grades
OWN = "rt.own"         # the uploaded corpus and what was made of it (see own_state)
VIEWS = ("one", "all", "own")
MEASURE_KEYS = ("R", "RR", "nDCG")

c = load_content(FOLDER)
# The page's language and digits, read once: either changes only through the sidebar, i.e. a
# full rerun, which runs this module again (each read goes through session state: a typed
# question's HTML formats ~150 numbers and labels).
lang = current_lang()
digits = current_digits()
handbook = logic.bundled()
NAMES = c["systems"]["names"]
QUESTION_IDS = tuple(q.id for q in handbook.questions)


def _text_field() -> state.Field:
    def parse(raw: str) -> str:
        if len(raw) > 2 * logic.MAX_QUESTION_CHARS:
            raise ValueError("too long")
        return logic.clean_question(raw)

    return state.Field("", parse, str)


FIELDS = {
    "v": state.choice_field("one", VIEWS),
    "c": state.choice_field(lang, ("ar", "en")),             # corpus language
    "ql": state.choice_field(lang, ("ar", "en")),            # question language (bundled)
    "q": state.choice_field(QUESTION_IDS[0], (*QUESTION_IDS, "own")),
    "t": _text_field(),                                      # the typed question
    "k": state.int_field(logic.DEFAULT_K, lo=1, hi=logic.MAX_K),
    "wb": state.float_field(1.0, lo=0.0, hi=logic.MAX_WEIGHT),
    "wd": state.float_field(1.0, lo=0.0, hi=logic.MAX_WEIGHT),
    "p": state.choice_field("", ("", *logic.SYSTEMS)),     # the learner's prediction
    "j": state.ranking_field((), grades=logic.GRADES, min_items=0,
                             max_items=logic.MAX_LEARNER_JUDGMENTS),
    "ls": state.choice_field("hybrid", logic.SYSTEMS),       # the ranking the links open
    "m": state.choice_field("nDCG", MEASURE_KEYS),
    "cmp": state.choice_field("bm25-dense", tuple(f"{a}-{b}" for a, b in logic.COMPARED)),
}


def num(x: float, decimals: int = 3) -> Markup:
    """A number for ``fill`` (Western digits: the renderer localises them)."""
    return Markup(fmt_num(x, decimals, digits="latn"))


def name(system: str) -> Markup:
    return Markup(NAMES[system])


def judged_store() -> dict:
    return st.session_state.setdefault(JUDGED, {})


def corpus_key(corpus_lang: str) -> str:
    return f"handbook-{corpus_lang}"


def typed_key(text: str) -> str:
    """The store's key of a typed question (the bundled ones are keyed by their id)."""
    return "typed:" + text


def question_key(s: state.UrlState) -> str:
    return s["q"] if s["q"] != "own" else typed_key(s["t"])


def _grades_value(grades: Mapping[str, int]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(grades.items()))[:logic.MAX_LEARNER_JUDGMENTS]


def change_question(s: state.UrlState, **changes) -> None:
    """Change the corpus or the question; the learner's grades follow the question (kept in
    the session for the one left, brought back for the one chosen)."""
    store = judged_store()
    store[corpus_key(s["c"]), question_key(s)] = dict(s["j"])
    values = {**s.values, **changes}
    new_key = (corpus_key(values["c"]), values["q"] if values["q"] != "own"
               else typed_key(values["t"]))
    if new_key != (corpus_key(s["c"]), question_key(s)):
        changes.update(j=_grades_value(store.get(new_key, {})), p="")
    s.set(**changes)


# --- shared pieces ---------------------------------------------------------------------------


def html_block(markup: str) -> None:
    """Ready HTML (everything in it escaped by the caller) as one element. ``st.html`` hands it
    to the browser as it is (DOMPurify, then the DOM; Markdown's HTML parsing cost more). The
    rankings, ~30 passages new with every question, go through ``html_view`` instead (no
    DOMPurify: bench/README.md, session 12); the tables, small and mostly unchanged, stay here."""
    st.html(markup)


def html_table(headers: Sequence[str], rows: Sequence[Sequence[str]], *, key: str,
               numeric: Sequence[int] = (), caption: str = "") -> None:
    """A table as HTML (cells already escaped), scrolling sideways inside a phone's width;
    ``caption``: trusted content text said under it, in the same element (see ``caption_html``)."""
    html_block(table_markup(headers, rows, key=key, numeric=numeric, caption=caption))


def table_markup(headers: Sequence[str], rows: Sequence[Sequence[str]], *, key: str,
                 numeric: Sequence[int] = (), caption: str = "") -> str:
    head = "".join(f"<th>{h}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f'<td class="{"mz-rt-num" if i in numeric else ""}">{cell}</td>'
                         for i, cell in enumerate(row)) + "</tr>" for row in rows)
    table = (f'<div class="mz-rt-table" dir="{direction(lang)}" lang="{lang}" id="{key}">'
             f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>")
    return table + (caption_html(caption) if caption else "")


def caption_html(text: str) -> str:
    """Trusted content text as a caption inside an HTML element. Every element of the question's
    results is redrawn for every question (and each costs the browser a share of every redraw
    of the page): a note under a table is part of the table's element, not one of its own."""
    return (f'<p class="mz-rt-caption" dir="{direction(lang)}" lang="{lang}">'
            f"{cell_text(text)}</p>")


def cell_text(text: str) -> str:
    """Trusted content text in a table cell (escaped, Latin runs isolated in Arabic)."""
    return _isolated(text, lang, digits)


@functools.lru_cache(maxsize=4096)
def _isolated(text: str, text_lang: str, digit_style: str) -> str:
    return bidi.isolate(bidi.escape_html(text), text_lang, digits=digit_style)


def two_widths(long: str, short: str) -> str:
    """A header in full on wide screens and short on phones (CSS shows one of the two)."""
    return (f'<span class="mz-rt-long">{cell_text(long)}</span>'
            f'<span class="mz-rt-short">{cell_text(short)}</span>')


_LINE_BREAK = re.compile("\r\n|[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]")


def text_html(text: str, *, breaks: bool = True) -> str:
    """Untrusted text (an upload, a note) as HTML: escaped, bidi controls dropped, every line
    break (any Unicode one) a <br>, or a space in a one-line place (a title)."""
    escaped = bidi.escape_html(bidi.strip_bidi_controls(str(text)))
    return _LINE_BREAK.sub("<br>" if breaks else " ", escaped)


def cell_num(x: float, decimals: int = 3, *, bold: bool = False) -> str:
    shown = f'<bdi dir="ltr">{bidi.escape_html(fmt_num(x, decimals, digits=digits))}</bdi>'
    return f"<strong>{shown}</strong>" if bold else shown


WEIGHT_PX = 220   # a fusion weight's box beside the k slider


def search_controls(s: state.UrlState, where: str) -> tuple[int, dict[str, float]]:
    """k and the fusion weights (shared by the views)."""
    words = c["controls"]
    # One row that wraps on a phone (one block; columns would be four, each redrawn by the
    # browser with every question); one under another in the presenter view.
    row = st.container(horizontal=not layout.is_presenting())
    weight = "stretch" if layout.is_presenting() else WEIGHT_PX
    k = row.slider(layout.label(words["k"]), 1, logic.MAX_K, value=s["k"],
                   key=s.key(f"k-{where}"), help=words["k_help"])
    wb = row.number_input(layout.label(words["w_bm25"]), 0.0, logic.MAX_WEIGHT,
                          value=float(s["wb"]), step=0.25, key=s.key(f"wb-{where}"),
                          help=words["weights_help"], width=weight)
    wd = row.number_input(layout.label(words["w_dense"]), 0.0, logic.MAX_WEIGHT,
                          value=float(s["wd"]), step=0.25, key=s.key(f"wd-{where}"),
                          help=words["weights_help"], width=weight)
    s.set(k=int(k), wb=float(wb), wd=float(wd))
    return int(k), logic.weights_of(wb, wd)


SCORE_DECIMALS = {"bm25": 2, "dense": 3, "hybrid": 4}


@functools.lru_cache(maxsize=4096)
def passage_text_html(text: str, text_lang: str | None, *, breaks: bool = True) -> str:
    """A passage's text as HTML, Latin runs isolated in Arabic (cached: the same passages come
    back question after question, and isolating ~30 texts costs more than the rest)."""
    html = text_html(text, breaks=breaks)
    return bidi.isolate(html, "ar") if text_lang == "ar" else html


def passage_html(item: logic.Item, system: str, text_lang: str | None, hidden: bool) -> str:
    """One retrieved passage: rank, title, score, its grade (unless hidden), and its text in a
    <details> (the assessor's note inside)."""
    words = c["one"]
    hit, passage = item.hit, item.passage
    if hidden:
        badge, css = "", "mz-rt-hidden"
    elif item.source == "assessor":
        badge, css = fill(words["grade_assessor"], {"grade": item.grade}), f"mz-rt-g{item.grade}"
    elif item.source == "you":
        badge, css = fill(words["grade_you"], {"grade": item.grade}), f"mz-rt-g{item.grade}"
    else:
        badge, css = words["unjudged"], "mz-rt-unjudged"
    text_dir = f'dir="{direction(text_lang)}" lang="{text_lang}"' if text_lang else 'dir="auto"'
    title = passage_text_html(passage.title or passage.id, text_lang, breaks=False)
    body = passage_text_html(passage.text, text_lang)
    note = ""
    if item.note and not hidden:
        note = (f'<p class="mz-rt-note">{bidi.escape_html(words["note"])} '
                f'<span dir="auto">{text_html(item.note, breaks=False)}</span></p>')
    meta = ""
    if badge:
        meta += f'<span class="mz-rt-badge">{cell_text(badge)}</span>'
    if passage.superseded:
        meta += f'<span class="mz-rt-old">{bidi.escape_html(words["superseded"])}</span>'
    score = fmt_num(hit.score, SCORE_DECIMALS[system], digits=digits)
    rank = fmt_num(hit.rank, digits=digits)
    return (f'<li class="mz-rt-item {css}">'
            f'<div class="mz-rt-head"><span class="mz-rt-rank"><bdi>{rank}</bdi>'
            f'</span><span class="mz-rt-title" {text_dir}>{title}</span>'
            f'<span class="mz-rt-score"><bdi dir="ltr">{score}</bdi></span></div>'
            + (f'<div class="mz-rt-meta">{meta}</div>' if meta else "")
            + f'<details><summary><code dir="ltr">{text_html(passage.id, breaks=False)}</code> · '
            f'{bidi.escape_html(words["show_text"])}</summary>'
            f'<p class="mz-rt-text" {text_dir}>{body}</p>{note}</details></li>')


def rankings_html(items: Mapping[str, Sequence[logic.Item]], text_lang: str | None,
                  hidden: bool, *, key: str) -> str:
    """The systems' rankings side by side (one column each; stacked on a phone or a projector)
    as one HTML element: a typed question changes them all, and three columns of three
    elements each cost the server and the browser more than the passages themselves."""
    words = c["one"]
    columns = []
    for system, system_items in items.items():
        head = (f'<p class="mz-rt-colhead"><strong>{cell_text(NAMES[system])}</strong> — '
                f'{cell_text(c["systems"]["about"][system])}</p>')
        if system_items:
            body = (f'<ol class="mz-rt-ranking" aria-label="{bidi.escape_html(NAMES[system])}">'
                    + "".join(passage_html(i, system, text_lang, hidden) for i in system_items)
                    + "</ol>")
        else:
            body = (f'<p class="mz-rt-empty">'
                    f'{cell_text(words.get(f"empty_{system}", words["empty"]))}</p>')
        columns.append(f'<section class="mz-rt-col" data-system="{system}">{head}{body}</section>')
    width = "mz-rt-stacked" if layout.is_presenting() or len(columns) == 1 else "mz-rt-three"
    return (f'<div class="mz-rt-rankings {width}" id="{key}" dir="{direction(lang)}" lang="{lang}">'
            + "".join(columns) + "</div>")


def values_markup(values: Mapping[str, Mapping[str, float]],
                  items: Mapping[str, Sequence[logic.Item]], k: int, key: str,
                  caption: str = "") -> str:
    words = c["one"]
    names = logic.measure_names(k)
    best = {m: logic.best_systems(values, m) for m in names}
    keys = [f"col_{m.split('@')[0]}" for m in names] + ["col_unjudged"]
    headers = [bidi.escape_html(words["system"])] + [
        two_widths(fill(words[key], {"k": k}), fill(words[f"{key}_short"], {"k": k}))
        for key in keys]
    rows = [[bidi.escape_html(NAMES[s])]
            + [cell_num(values[s][m], bold=len(best[m]) < len(values) and s in best[m])
               for m in names]
            + [cell_num(logic.unjudged_count(items[s]), 0)] for s in values]
    return table_markup(headers, rows, key=key, numeric=range(1, len(headers)), caption=caption)


# --- the question panel (bundled or uploaded corpus) -----------------------------------------


_LAST_SEARCH = "rt.last_search"


def search(systems_of, text: str, k: int, weights: Mapping[str, float]):
    """``logic.search``, remembered for the same arguments within the session: the one-question
    view searches before it draws its controls (see ``one_results``) and again, for free, with
    what the controls returned."""
    args = (text, k, tuple(sorted(weights.items())))
    last = st.session_state.get(_LAST_SEARCH)
    if last is not None and last[0] is systems_of and last[1] == args:
        return last[2]
    rankings = logic.search(systems_of, text, k, weights)
    st.session_state[_LAST_SEARCH] = (systems_of, args, rankings)
    return rankings


_LAST_PANEL = "rt.last_panel"


def panel_data(*, key: str, corpus, text: str, text_lang: str | None, k: int,
               weights: Mapping[str, float], assessed: Mapping[str, int],
               mine: Mapping[str, int], notes: Mapping[str, str], systems_of,
               predicted: str | None) -> dict:
    """Everything the question panel shows, computed before its first element and remembered
    for the same arguments (like ``search``): the one-question view computes it before it draws
    its text box and controls, so that all of the run's elements leave in one burst, which the
    browser draws in one go (a pause between two of them costs it a commit and a redraw).
    ``predicted``: the learner's prediction, None where nothing is predicted (an upload)."""
    args = (key, corpus, text, text_lang, k, tuple(sorted(weights.items())),
            tuple(sorted(assessed.items())), tuple(sorted(mine.items())),
            tuple(sorted(notes.items())), predicted, layout.is_presenting(), lang, digits)
    last = st.session_state.get(_LAST_PANEL)
    if last is not None and last[0] is systems_of and last[1] == args:
        return last[2]
    words = c["one"]
    rankings = search(systems_of, text, k, weights)
    items = logic.question_items(rankings, corpus, assessed, mine, notes)
    qrels = logic.combined(assessed, mine)
    systems = tuple(rankings)
    can_predict = predicted is not None and bool(assessed) and len(systems) > 1
    hidden = can_predict and predicted not in systems
    values = logic.question_values(rankings, qrels, k)
    table = ""
    if not hidden:
        # under the table: what "relevant" means here (grade >= 1, superseded rules too) and,
        # when a ranking holds unjudged passages, how they count
        unjudged = any(i.grade is None for its in items.values() for i in its)
        notes_under = [words["relevant_note"]] + ([words["unjudged_note"]] if unjudged else [])
        table = values_markup(values, items, k, key=f"{key}-values", caption=" ".join(notes_under))
    data = {"rankings": rankings, "items": items, "qrels": qrels, "systems": systems,
            "can_predict": can_predict, "hidden": hidden, "values": values, "table": table,
            "markup": rankings_html(items, text_lang, hidden, key=f"{key}-rankings")}
    st.session_state[_LAST_PANEL] = (systems_of, args, data)
    return data


def question_panel(*, key: str, corpus, text: str, text_lang: str | None, k: int,
                   weights: Mapping[str, float], assessed: Mapping[str, int],
                   mine: Mapping[str, int], notes: Mapping[str, str],
                   set_grade: Callable[[str, int | None], None],
                   systems_of, prediction: state.UrlState | None) -> None:
    """Rankings, the prediction (when assessors judged the question), the measures, the
    judging of unjudged passages and the links into the lessons."""
    words = c["one"]
    predicted = prediction["p"] if prediction is not None else None
    data = panel_data(key=key, corpus=corpus, text=text, text_lang=text_lang, k=k,
                      weights=weights, assessed=assessed, mine=mine, notes=notes,
                      systems_of=systems_of, predicted=predicted)
    rankings, items, qrels = data["rankings"], data["items"], data["qrels"]
    systems, hidden, values = data["systems"], data["hidden"], data["values"]

    if hidden:
        with st.container(border=True, key=f"{key}-predict"):
            layout.markdown(words["predict"], {"k": k})
            pick_key = prediction.key("p-pick")

            def predicted_now() -> None:
                if st.session_state.get(pick_key):
                    prediction.set(p=st.session_state[pick_key])

            st.segmented_control(layout.label(words["predict_label"]), systems,
                                 format_func=NAMES.__getitem__, key=pick_key,
                                 on_change=predicted_now)
    if not hidden:
        if data["can_predict"]:
            verdict(values, predicted, k, prediction)
        html_block(data["table"])
        if not any(g >= 1 for g in qrels.values()):
            st.info(layout.label(words["no_relevant"]))

    html_view(data["markup"], key=f"{key}-rankings-view")
    if hidden:
        return
    judge_panel(items, key, set_grade, in_link=prediction is not None)
    links_panel(rankings, qrels, k, prediction, key)


def verdict(values, predicted: str, k: int, s: state.UrlState) -> None:
    words = c["one"]
    measure = f"nDCG@{k}"
    best = logic.best_systems(values, measure)
    names = list_and(Markup(NAMES[b]) for b in best)
    others = list_and(Markup(NAMES[b]) for b in best if b != predicted)
    filled = {"predicted": name(predicted), "best": names, "others": others, "measure": measure,
              "value": num(values[best[0]][measure]),
              "mine": num(values[predicted][measure])}
    if predicted in best and len(best) == 1:
        st.success(layout.label(fill(words["predicted_right"], filled)))
    elif predicted in best:
        st.info(layout.label(fill(words["predicted_tie"], filled)))
    else:
        st.warning(layout.label(fill(words["predicted_wrong" if len(best) == 1
                                           else "predicted_wrong_tie"], filled)))
    st.button(words["hide"], key=f"rt-hide-{s.generation}", icon=":material/visibility_off:",
              on_click=lambda: s.set(p=""))


def judge_panel(items: Mapping[str, Sequence[logic.Item]], key: str,
                set_grade: Callable[[str, int | None], None], *, in_link: bool) -> None:
    """Judging on the spot, in an expander whose pickers are drawn only while it is open
    (``on_change="rerun"``; it stays open from question to question): closed, a new question
    redraws one element instead of five (bench/README.md, session 9; the links panel does the
    same since session 10: 11 deltas a question with both closed, 23 with both drawn).
    ``in_link``: the grades travel in the page's link (the bundled handbook; an uploaded
    corpus cannot)."""
    words = c["judge"]
    candidates = logic.judgeable(items)
    with st.expander(layout.label(words["heading"]), key=f"{key}-judge",
                     icon=":material/rate_review:", on_change="rerun") as panel:
        if not panel.open:
            return
        if not candidates:
            st.caption(layout.label(words["none_left"]))
            return
        layout.markdown(words["body"], {"kept": words["kept" if in_link else "kept_own"]})
        by_id = {item.hit.id: item for item in candidates}

        # The option labels stay fixed (a selectbox keeps the labels it first drew; the
        # passage's grade is said under its text), formatted in this run (a format_func
        # called later, outside the run, would not know the language), the id isolated from
        # the Arabic title around it.
        names = {p: layout.label(f"{item.passage.title or p} ({p})")
                 for p, item in by_id.items()}
        pid = st.selectbox(layout.label(words["passage"]), list(by_id),
                           format_func=names.__getitem__,
                           key=f"{key}-judge-pick")
        item = by_id[pid]
        html_block(f'<div class="mz-rt-judged" dir="auto">{text_html(item.passage.text)}</div>'
                   + caption_html(words["unjudged"] if item.grade is None
                                  else fill(words["yours"], {"grade": item.grade})))
        grade_key = f"{key}-grade-{pid}-{item.grade}"

        def changed() -> None:
            set_grade(pid, st.session_state.get(grade_key))

        st.segmented_control(layout.label(words["grade"]), logic.GRADES,
                             format_func=lambda g: words["grades"][str(g)], key=grade_key,
                             default=item.grade if item.source == "you" else None,
                             on_change=changed, help=words["grade_help"])


def links_panel(rankings, qrels, k: int, s: state.UrlState | None, key: str) -> None:
    """The links into lessons 2 and 5, in an expander drawn like the judging panel: its
    contents only while it is open (closed, a typed question redraws one element instead of
    nine, 11 deltas instead of 19, and builds no links; bench/README.md, session 10). The
    ranking it opens stays in the URL (``ls``) while it is closed."""
    words = c["links"]
    systems = [system for system, hits in rankings.items() if hits]
    if not systems:
        return
    with st.expander(layout.label(words["heading"]), key=f"{key}-links",
                     icon=":material/link:", on_change="rerun") as panel:
        if not panel.open:
            return
        default = s["ls"] if s is not None and s["ls"] in systems else systems[-1]
        system = st.selectbox(layout.label(words["system"]), systems,
                              index=systems.index(default), format_func=NAMES.__getitem__,
                              key=f"{key}-ls")
        if s is not None:
            s.set(ls=system)
        links = logic.lesson_links([h.id for h in rankings[system]], qrels, k)
        shared = [n for n in links["ndcg"].notes if n in links["recall-precision"].notes]
        values = {"k": k, "n": len(rankings[system][:k])}
        cols = st.columns(2)
        for col, (url_path, link) in zip(cols, links.items(), strict=True):
            with col:
                st.page_link(link.script, label=layout.label(words[f"open_{url_path}"]),
                             icon=":material/open_in_new:", query_params=link.params)
                for note in link.notes:
                    if note not in shared:
                        st.caption(layout.label(fill(words[f"note_{note}"], values)))
        for note in shared:
            st.caption(layout.label(fill(words[f"note_{note}"], values)))


# --- view 1: one question --------------------------------------------------------------------


def too_long_note(typed: str) -> None:
    """Say that only the first MAX_QUESTION_CHARS characters of a long question are searched."""
    if len(typed or "") > logic.MAX_QUESTION_CHARS:
        st.caption(layout.label(fill(c["controls"]["typed_too_long"],
                                     {"n": logic.MAX_QUESTION_CHARS})))


def question_label(qid: str, question_lang: str) -> str:
    if qid == "own":
        return c["controls"]["own_option"]
    question = handbook.by_id[qid]
    kind = c["kinds"][question.kind]["short"]
    return f"{qid} · {question.text[question_lang]} ({kind})"


@st.fragment
@layout.friendly_errors("retrieve.one")
def one_question() -> None:
    """The corpus, the question's language and the question; the rest is ``one_results``, a
    fragment of its own: typing a question, moving k or a weight, predicting and judging rerun
    only that part (not these controls, whose list of questions is the page's biggest)."""
    s = state.url_state(FOLDER, FIELDS)
    words = c["controls"]
    store = judged_store()
    store[corpus_key(s["c"]), question_key(s)] = dict(s["j"])

    cols = st.columns([1, 1]) if not layout.is_presenting() else [st.container()] * 2
    corpus_lang = cols[0].segmented_control(
        layout.label(words["corpus"]), ("ar", "en"), format_func=lambda x: words[f"corpus_{x}"],
        default=s["c"], required=True, key=s.key("c"))
    if s["q"] != "own":
        question_lang = cols[1].segmented_control(
            layout.label(words["ask_in"]), ("ar", "en"),
            format_func=lambda x: words[f"lang_{x}"], default=s["ql"], required=True,
            key=s.key("ql"))
    else:
        question_lang = s["ql"]
    qid = st.selectbox(layout.label(words["question"]), (*QUESTION_IDS, "own"),
                       index=(*QUESTION_IDS, "own").index(s["q"]),
                       format_func=lambda q: question_label(q, question_lang), key=s.key("q"))
    change_question(s, c=corpus_lang or s["c"], ql=question_lang or s["ql"], q=qid)
    one_results()


def search_ahead(s: state.UrlState) -> None:
    """The search and the whole question panel (``panel_data``), with the values the controls
    are about to return, before anything is drawn (the question's embedding is its slow part,
    ~20 ms; the rankings' HTML a few ms more): Streamlit's browser side redraws whenever
    elements arrive, so a pause between two of them costs it an extra redraw.
    ``question_panel`` then asks with what the controls did return: the same, remembered.
    A typed question's callback runs it too, before the fragment's first element, while the
    browser redraws the page for the run that starts."""
    now = st.session_state.get
    c_lang = s["c"]
    k = int(now(s.key("k-one"), s["k"]))
    weights = logic.weights_of(now(s.key("wb-one"), s["wb"]), now(s.key("wd-one"), s["wd"]))
    if s["q"] == "own":
        text = logic.clean_question(now(s.key("t"), s["t"]))
        if not text:
            return
        assessed, notes = {}, {}
        if text == s["t"]:
            mine, predicted = dict(s["j"]), s["p"]
        else:   # a new typed question: change_question brings back its own grades, if any
            mine = dict(_grades_value(judged_store().get((corpus_key(c_lang), typed_key(text)),
                                                         {})))
            predicted = ""
    else:
        text = handbook.by_id[s["q"]].text[s["ql"]]
        assessed = handbook.qrels[c_lang].get(s["q"], {})
        notes = question_notes(c_lang, s["q"])
        mine, predicted = dict(s["j"]), s["p"]
    panel_data(key="rt-one", corpus=handbook.retrievers[c_lang].corpus, text=text,
               text_lang=c_lang, k=k, weights=weights, assessed=assessed, mine=mine,
               notes=notes, systems_of=handbook.retrievers[c_lang], predicted=predicted)


def question_notes(corpus_lang: str, qid: str) -> dict[str, str]:
    return {pid: note for (q, pid), note in handbook.notes[corpus_lang].items() if q == qid}


@st.fragment
@layout.friendly_errors("retrieve.one")
def one_results() -> None:
    s = state.url_state(FOLDER, FIELDS)
    words = c["controls"]
    search_ahead(s)
    if s["q"] == "own":
        # no max_chars: Streamlit drops a longer paste without a word; the search cuts it
        raw = st.text_input(layout.label(words["typed"]), value=s["t"], key=s.key("t"),
                            placeholder=words["typed_placeholder"], on_change=search_ahead,
                            args=(s,))
        too_long_note(raw)
        change_question(s, t=logic.clean_question(raw))
    k, weights = search_controls(s, "one")

    if s["q"] == "own":
        text, assessed, notes = s["t"], {}, {}
        if not text:
            st.info(layout.label(words["type_something"]))
            return
    else:
        question = handbook.by_id[s["q"]]
        text = question.text[s["ql"]]
        assessed = handbook.qrels[s["c"]].get(s["q"], {})
        notes = question_notes(s["c"], s["q"])
        layout.markdown(c["one"]["question_kind"],
                        {"kind": Markup(c["kinds"][question.kind]["name"]),
                         "corpus": Markup(words[f"corpus_{s['c']}"])})

    def set_grade(pid: str, grade: int | None) -> None:
        grades = dict(s["j"])
        if grade is None:
            grades.pop(pid, None)
        else:
            grades[pid] = int(grade)
        s.set(j=_grades_value(grades))
        judged_store()[corpus_key(s["c"]), question_key(s)] = grades

    question_panel(key="rt-one", corpus=handbook.retrievers[s["c"]].corpus, text=text,
                   text_lang=s["c"], k=k, weights=weights, assessed=assessed,
                   mine=dict(s["j"]), notes=notes, set_grade=set_grade,
                   systems_of=handbook.retrievers[s["c"]], prediction=s)


# --- view 2: all questions -------------------------------------------------------------------


def learner_for(corpus_lang: str) -> dict[str, dict[str, int]]:
    return {qid: grades for qid, grades in
            logic.learner_qrels(judged_store(), corpus_key(corpus_lang)).items()
            if qid in handbook.by_id}


@st.fragment
@layout.friendly_errors("retrieve.all")
def all_questions() -> None:
    s = state.url_state(FOLDER, FIELDS)
    words = c["all"]
    pairs = tuple(logic.PAIRS)
    current = f"{s['ql']}-{s['c']}"
    chosen = st.segmented_control(layout.label(words["pair"]), pairs,
                                  format_func=lambda p: words["pairs"][p],
                                  default=current if current in pairs else None,
                                  key=s.key("pair"))
    if chosen and chosen != current:
        question_lang, corpus_lang = logic.PAIRS[chosen]
        change_question(s, ql=question_lang, c=corpus_lang)
    pair = f"{s['ql']}-{s['c']}"
    if pair not in logic.PAIRS:
        st.info(layout.label(words["pick_pair"]))
        return
    k, weights = search_controls(s, "all")
    measure_key = st.segmented_control(
        layout.label(words["measure"]), MEASURE_KEYS, default=s["m"], required=True,
        format_func=lambda m: fill(words["measures"][m], {"k": k}), key=s.key("m"))
    s.set(m=measure_key or s["m"])
    learner = learner_for(s["c"])
    with st.spinner(words["computing"]):
        ov = logic.cached_overview(pair, k, tuple(sorted(weights.items())), s["m"],
                                   logic.freeze(learner))
    layout.markdown(words["judgments"], {
        "questions": Markup(str(len(handbook.questions))),
        "mine": Markup(str(sum(len(g) for g in learner.values())))})

    layout.markdown(f"**{fill(words['mean_heading'], {'k': k})}**")
    names = logic.measure_names(k)
    best = {m: ov.table[m].max() for m in names}
    html_table(
        [bidi.escape_html(c["one"]["system"])]
        + [cell_text(fill(c["one"]["col_" + m.split("@")[0]], {"k": k})) for m in names],
        [[bidi.escape_html(NAMES[s_])] + [cell_num(ov.table.loc[s_, m],
                                                   bold=ov.table.loc[s_, m] >= best[m] - 1e-12)
                                          for m in names] for s_ in ov.systems],
        key="rt-all-mean", numeric=range(1, len(names) + 1))
    st.caption(layout.label(fill(words["mean_caption"], {"k": k})))

    if len(ov.systems) > 1:
        comparisons_section(ov, words)
        deltas_section(s, ov, words)
    readings_section(ov, words)
    downloads(ov, pair, weights, learner, words)


def comparisons_section(ov: logic.Overview, words) -> None:
    """One column per pair of systems (B against A), one row per number: fits a phone."""
    layout.markdown(f"**{fill(words['tests_heading'], {'measure': ov.measure})}**")

    def signed(x: float) -> str:
        return f'<bdi dir="ltr">{bidi.escape_html(logic.signed(x))}</bdi>'

    def p_value(p: float | None) -> str:
        return f'<bdi dir="ltr">{bidi.escape_html(logic.p_text(p))}</bdi>'

    rows = {
        "col_wins": lambda cmp: cell_num(cmp.wins, 0),
        "col_ties": lambda cmp: cell_num(cmp.ties, 0),
        "col_losses": lambda cmp: cell_num(cmp.losses, 0),
        "col_mean_a": lambda cmp: cell_num(cmp.mean_a),
        "col_mean_b": lambda cmp: cell_num(cmp.mean_b),
        "col_delta": lambda cmp: signed(cmp.mean_delta),
        "col_ci": lambda cmp: (f'<bdi dir="ltr">[{bidi.escape_html(logic.signed(cmp.ci_low))}, '
                               f'{bidi.escape_html(logic.signed(cmp.ci_high))}]</bdi>'),
        "col_p_t": lambda cmp: p_value(cmp.p_ttest),
        "col_p_rand": lambda cmp: p_value(cmp.p_randomization),
    }
    headers = [cell_text(words["col_pair"])] + [
        cell_text(fill(words["b_vs_a"], {"a": name(a), "b": name(b)}))
        for a, b in ov.comparisons]
    html_table(headers, [[cell_text(words[key])] + [show(cmp) for cmp in ov.comparisons.values()]
                         for key, show in rows.items()],
               key="rt-all-tests", numeric=range(1, len(headers)))
    layout.markdown(words["tests_caption"], {"questions": len(ov.per_question)})


def deltas_section(s: state.UrlState, ov: logic.Overview, words) -> None:
    options = [f"{a}-{b}" for a, b in ov.comparisons]
    if s["cmp"] not in options:
        s.set(cmp=options[0])
    chosen = st.selectbox(layout.label(words["deltas_pair"]), options,
                          index=options.index(s["cmp"]),
                          format_func=lambda o: fill(words["b_vs_a"], {
                              "a": name(o.split("-")[0]), "b": name(o.split("-")[1])}),
                          key=s.key("cmp"))
    s.set(cmp=chosen)
    a, b = chosen.split("-")
    cmp = ov.comparisons[a, b]
    table = logic.ordered_deltas(cmp, handbook.by_id, logic.PAIRS[ov.pair][0])
    heading = fill(words["deltas_heading"], {"measure": ov.measure, "a": name(a), "b": name(b)})
    layout.markdown(f"**{heading}**")
    layout.metric_row([(words["col_wins"], cmp.wins), (words["col_ties"], cmp.ties),
                       (words["col_losses"], cmp.losses)])
    outcome = words["outcomes"]
    question_lang = logic.PAIRS[ov.pair][0]
    rows = [[f"<code>{bidi.escape_html(qid)}</code>",
             cell_text(c["kinds"][row.kind]["short"]) if row.kind else "",
             f'<span dir="{direction(question_lang)}" lang="{question_lang}">'
             f"{bidi.escape_html(row.text)}</span>",
             cell_num(row.a), cell_num(row.b),
             f'<bdi dir="ltr">{bidi.escape_html(logic.signed(row.delta))}</bdi>',
             cell_text(outcome[row.outcome])]
            for qid, row in table.iterrows()]
    html_table([cell_text(h) for h in (words["col_question"], words["col_kind"],
                                       words["col_text"], NAMES[a], NAMES[b],
                                       words["col_delta"], words["col_outcome"])],
               rows, key="rt-all-deltas", numeric=(3, 4, 5))


def readings_section(ov: logic.Overview, words) -> None:
    layout.markdown(f"**{words['reading_heading']}**")
    texts = words["reading"]
    short = c["systems"]["short"]  # as the fixed text of these sentences names them
    lines = []
    for reading in ov.readings:
        values = {}
        for key, value in reading.values.items():
            if key in ("best", "favoured", "other"):
                values[key] = Markup(short[str(value)])
            elif key == "tied":
                values[key] = list_and(Markup(short[s]) for s in value)
            elif key == "kind":
                values[key] = Markup(c["kinds"][str(value)]["name"])
            elif key in ("bm25_wins", "dense_wins", "ties"):
                # counts the texts write their own way ("on 2 questions"; in Arabic a tally,
                # which reads right for 0 and 1 too: «وما تساويا فيه: 0», rounds 51 and 55)
                values[key] = int(value)
            elif key in ("n", "total", "nothing", "wins"):
                values[key] = Markup(str(value))
            elif isinstance(value, float):
                values[key] = num(value)
            else:
                values[key] = Markup(str(value))
        if "n" in reading.values:
            # in parentheses after the kind's name: the nominative («(سؤالان)»)
            values["questions"] = Markup(logic.count_form(
                int(reading.values["n"]), c["counts"]["questions_nom"]))
        if "total" in reading.values:
            values["total_questions"] = Markup(logic.count_form(
                int(reading.values["total"]), c["counts"]["questions_gen"]))
        lines.append("- " + fill(texts[reading.key], values))
    layout.markdown("\n".join(lines))
    layout.markdown(f"**{fill(words['kinds_heading'], {'measure': ov.measure})}**")
    html_table([cell_text(words["col_kind"])] + [bidi.escape_html(NAMES[s]) for s in ov.systems],
               [[cell_text(c["kinds"][kind]["name"])]
                + [cell_num(ov.kinds.loc[kind, s_],
                            bold=ov.kinds.loc[kind, s_] >= ov.kinds.loc[kind].max() - 1e-12)
                   for s_ in ov.systems] for kind in ov.kinds.index],
               key="rt-all-kinds", numeric=range(1, len(ov.systems) + 1))


def downloads(ov: logic.Overview, pair: str, weights, learner, words) -> None:
    layout.markdown(f"**{words['downloads_heading']}**")
    layout.markdown(words["downloads_body"], {"depth": logic.RUN_DEPTH})
    runs = logic.bundled_runs(pair, weights)
    cols = st.columns(len(runs) + 1)
    for col, (system, run) in zip(cols, runs.items(), strict=False):
        col.download_button(fill(words["download_run"], {"system": name(system)}),
                            lambda r=run, s_=system: logic.run_file(r, s_),
                            file_name=f"run-{pair}-{system}.trec", mime="text/plain",
                            key=f"rt-dl-{system}", on_click="ignore", icon=":material/download:")
    qrels = logic.bundled_qrels(logic.PAIRS[pair][1], learner)
    cols[-1].download_button(words["download_qrels"], lambda: logic.qrels_file(qrels),
                             file_name=f"qrels-{logic.PAIRS[pair][1]}.trec", mime="text/plain",
                             key="rt-dl-qrels", on_click="ignore", icon=":material/download:")


# --- view 3: your own corpus -----------------------------------------------------------------


def own_state() -> dict:
    return st.session_state.setdefault(OWN, {"questions": {}, "current": None})


def load_own(own: dict, data: bytes, file_name: str, chunking: Chunking) -> None:
    """Parse and index an upload (or the same file chunked anew); on failure keep what was
    loaded and say why."""
    try:
        upload = logic.parse(data, file_name, chunking)
    except FormatError as err:
        own["problem"] = (file_name, logic.error_message(err, c["errors"], c["error_words"],
                                                       list_separator()))
        return
    old = own.get("job")
    if old is not None:
        old.cancel()
    corpus = upload.corpus
    own.update(data=data, name=file_name, digest=logic.digest(data), chunking=chunking,
               upload=upload, systems=logic.bm25_only(corpus), problem=None, job=None)
    own.setdefault("documents", {})[own_key(own)] = corpus.documents
    if dense.status().available:
        own["job"] = logic.DenseJob(corpus.indexed_texts)


def own_key(own: dict) -> str:
    chunking = own["chunking"]
    return f"own-{own['digest'][:16]}-{chunking.mode}-{chunking.size}"


@layout.friendly_errors("retrieve.own")
def own_corpus() -> None:
    words = c["own"]
    own = own_state()
    with st.container(border=True, key="rt-own-upload"):
        upload = st.file_uploader(layout.label(words["upload"]), key="rt-own-file",
                                  max_upload_size=10)
        cols = st.columns(2)
        mode = cols[0].radio(layout.label(words["chunking"]), ("paragraph", "sentences"),
                             format_func=lambda m: words[f"mode_{m}"], key="rt-own-mode")
        size = cols[1].slider(layout.label(words["size"]), 1, 10, 3, key="rt-own-size",
                              disabled=mode != "sentences")
        chunking = Chunking(mode, int(size))
        if upload is not None and own.get("file_id") != upload.file_id:
            own["file_id"] = upload.file_id
            with st.spinner(fill(words["reading"], {"name": upload.name})):
                load_own(own, upload.getvalue(), upload.name, chunking)
        elif "upload" in own and own.get("chunking") != chunking \
                and own.get("tried") != (own["digest"], chunking):
            own["tried"] = (own["digest"], chunking)
            load_own(own, own["data"], own["name"], chunking)
        st.caption(layout.label(fill(words["limits"], {
            "mb": logic.MAX_BYTES // (1024 * 1024), "passages": 1000})))
        if own.get("problem"):
            file_name, message = own["problem"]
            st.error(layout.label(fill(words["problem"], {"name": file_name,
                                                          "message": Markup(message)})),
                     icon=":material/error:")
            if "upload" in own:
                st.caption(layout.label(fill(words["kept"], {"name": own["name"]})))
    if "upload" not in own:
        st.info(layout.label(words["nothing"]))
        return
    status_section(own)
    if own.get("job") is not None and own["job"].running:
        dense_progress()
    own_questions(own)


def status_section(own: dict) -> None:
    words = c["own"]
    corpus = own["upload"].corpus
    documents = len(set(corpus.documents.values()))
    layout.markdown(words["in_use"], {
        "name": own["name"],
        "passages": Markup(logic.count_form(len(corpus), c["counts"]["passages_nom"])),
        "documents": Markup(logic.count_form(documents, c["counts"]["documents_gen"])),
        "mode": Markup(chunking_text(own["chunking"].mode, own["chunking"].size))})
    skipped = own["upload"].skipped_lines
    if skipped:
        st.caption(layout.label(fill(words["skipped"], {
            "lines": Markup(list_separator().join(fmt_num(n) for n in skipped[:20]))})))
    job = own.get("job")
    if not dense.status().available:
        st.warning(layout.label(dense_reason()))
    elif job is not None and job.error:
        st.warning(layout.label(fill(words["dense_failed"], {"detail": job.error})))
    elif job is not None and not job.running and job.vectors is not None:
        if own["systems"].dense is None:
            own["systems"] = logic.with_dense(own["systems"], job.vectors)
        st.success(layout.label(fill(words["dense_ready"], {
            "seconds": Markup(fmt_num(job.elapsed, 1, digits="latn"))})))
    if job is not None and job.max_tokens is not None and not job.error:
        reads = fill(words["dense_reads"], {"tokens": job.max_tokens})
        if job.vectors is not None and job.cut:
            reads += " " + fill(words["dense_cut"], {"cut": job.cut, "passages": Markup(
                logic.count_form(job.total, c["counts"]["passages_gen"]))})
        elif job.vectors is not None:
            reads += " " + words["dense_cut_none"]
        st.caption(layout.label(reads))


@st.fragment(run_every=1.0)
def dense_progress() -> None:
    """Polls the background dense index while it is built; a full rerun when it is done."""
    words = c["own"]
    own = own_state()
    job = own.get("job")
    if job is None:
        return
    if not job.running:
        st.rerun(scope="app")
    remaining = job.remaining()
    st.progress(job.done / max(1, job.total), text=layout.label(fill(
        words["dense_progress"] if remaining is not None else words["dense_starting"],
        {"done": job.done, "total": job.total,
         "seconds": Markup(fmt_num(remaining or 0, 0, digits="latn"))})))


def own_questions(own: dict) -> None:
    words = c["own"]
    questions: dict[str, str] = own["questions"]
    with st.form("rt-own-add", border=False):
        typed = st.text_input(layout.label(words["add_label"]), key="rt-own-typed",
                              placeholder=words["add_placeholder"])
        too_long_note(typed)
        if st.form_submit_button(words["add"], icon=":material/add:"):
            text = logic.clean_question(typed)
            if text:
                qid = f"u{len(questions) + 1}"
                questions[qid] = text
                own["current"] = qid
    if not questions:
        st.info(layout.label(words["no_questions"]))
        return
    own_question_view()


@st.fragment
@layout.friendly_errors("retrieve.own.question")
def own_question_view() -> None:
    words = c["own"]
    own = own_state()
    questions = own["questions"]
    ids = list(questions)
    current = own["current"] if own["current"] in questions else ids[-1]
    qid = st.selectbox(layout.label(words["question"]), ids, index=ids.index(current),
                       format_func=lambda q: f"{q} · {questions[q]}", key="rt-own-pick")
    own["current"] = qid
    s = state.url_state(FOLDER, FIELDS)
    k, weights = search_controls(s, "own")
    key = (own_key(own), qid)
    mine = judged_store().get(key, {})

    def set_grade(pid: str, grade: int | None) -> None:
        grades = dict(judged_store().get(key, {}))
        if grade is None:
            grades.pop(pid, None)
        else:
            grades[pid] = int(grade)
        judged_store()[key] = grades

    systems = own["systems"]
    question_panel(key="rt-own", corpus=systems.corpus, text=questions[qid], text_lang=None,
                   k=k, weights=weights, assessed={}, mine=mine, notes={},
                   set_grade=set_grade, systems_of=systems, prediction=None)
    chunks_section(own, questions, k, weights)
    own_downloads(own)


def chunks_section(own: dict, questions: Mapping[str, str], k: int, weights) -> None:
    words = c["own"]
    systems = own["systems"]
    qid = own["current"]
    mine = judged_store().get((own_key(own), qid), {})
    layout.markdown(f"**{words['chunks_heading']}**")
    layout.markdown(words["chunks_body"])
    if any(g >= 1 for g in mine.values()):
        document_table(systems, questions[qid], mine, k, weights)
    else:
        st.caption(layout.label(words["chunks_need"]))
    judged = document_judgments(own)
    if not any(g >= 1 for grades in judged.values() for g in grades.values()):
        return
    if st.toggle(layout.label(words["sweep"]), key="rt-own-sweep"):
        asked = {q: questions[q] for q in judged if q in questions}
        table = logic.chunk_sweep(own["data"], own["name"], asked, judged, k)
        html_table([cell_text(words[h]) for h in ("col_chunking", "col_passages",
                                                  "col_per_document", "col_recall")],
                   [[cell_text(chunking_text(row["mode"], row["size"])),
                     cell_num(row["passages"], 0), cell_num(row["per_document"], 1),
                     cell_num(row["recall"])] for _, row in table.iterrows()],
                   key="rt-own-sweep-table", numeric=(1, 2, 3))
        asked_count = logic.count_form(len(asked), c["counts"]["questions_nom"])
        st.caption(layout.label(fill(words["sweep_caption"], {
            "k": k, "questions": Markup(asked_count)})))


def document_table(systems, question: str, mine: Mapping[str, int], k: int, weights) -> None:
    """recall@k of the current question counted by passages and by documents."""
    words = c["own"]
    rankings = logic.search(systems, question, logic.RUN_DEPTH, weights)
    view = logic.document_view(rankings, mine, systems.corpus.documents, k)
    html_table([bidi.escape_html(c["one"]["system"]),
                cell_text(fill(words["by_passages"], {"k": k})),
                cell_text(fill(words["by_documents"], {"k": k}))],
               [[bidi.escape_html(NAMES[s_]), cell_num(v["passages"]), cell_num(v["documents"])]
                for s_, v in view.items()], key="rt-own-docs", numeric=(1, 2))


def document_judgments(own: dict) -> dict[str, dict[str, int]]:
    """The learner's judgments of this file under every chunking tried, as document
    judgments (a document's grade is its best judged chunk's)."""
    prefix = f"own-{own['digest'][:16]}-"
    return logic.merge_document_qrels(
        {key: grades for key, grades in judged_store().items() if key[0].startswith(prefix)},
        own.get("documents", {}))


def chunking_text(mode: str, size: int) -> str:
    if mode == "paragraph":
        return c["own"]["mode_paragraph_short"]
    return fill(c["own"]["mode_sentences_short"], {
        "sentences": Markup(logic.count_form(int(size), c["counts"]["sentences_nom"]))})


def own_downloads(own: dict) -> None:
    words = c["own"]
    key = own_key(own)
    qrels = logic.learner_qrels(judged_store(), key)
    cols = st.columns(2)
    cols[0].download_button(words["download_qrels"], lambda: logic.qrels_file(qrels),
                            file_name="qrels-class.trec", mime="text/plain",
                            key="rt-own-dl-qrels", on_click="ignore", icon=":material/download:",
                            disabled=not qrels)
    systems = own["systems"]
    questions = dict(own["questions"])
    cols[1].download_button(words["download_runs"],
                            lambda: logic.own_runs_file(systems, questions),
                            file_name="runs-class.trec", mime="text/plain", key="rt-own-dl-runs",
                            on_click="ignore", icon=":material/download:")


# --- the page -----------------------------------------------------------------------------------


def dense_reason() -> str:
    status = dense.status()
    return fill(c["dense"][status.reason or "not_installed"], {"detail": status.detail})


def intro_values() -> dict:
    corpus = handbook.retrievers["ar"].corpus
    counts = c["counts"]
    return {
        "passages": Markup(logic.count_form(len(corpus), counts["passages_nom"])),
        "documents": Markup(logic.count_form(len(set(corpus.documents.values())),
                                             counts["documents_gen"])),
        "questions": Markup(logic.count_form(len(handbook.questions), counts["questions_nom"]))}


layout.lesson_css("retrieve")
layout.lesson_header(c)
# The page opens on its interactive, as the lessons do: what runs here is one click away.
with st.expander(layout.label(c["intro"]["heading"]), icon=":material/info:"), \
        st.container(key="mz-sec-intro"):
    layout.markdown(c["intro"]["body"], intro_values())
if not dense.status().available:
    st.warning(layout.label(dense_reason()), icon=":material/warning:")
page_state = state.url_state(FOLDER, FIELDS)
view = st.segmented_control(layout.label(c["views"]["label"]), VIEWS,
                            format_func=lambda v: c["views"][v], default=page_state["v"],
                            required=True, key=page_state.key("v"))
page_state.set(v=view or page_state["v"])
layout.markdown(c["views"][f"{page_state['v']}_about"])
if page_state["v"] == "one":
    one_question()
elif page_state["v"] == "all":
    all_questions()
else:
    own_corpus()
logic.warm_up()  # after the page is drawn: the all-questions rankings, in the background
