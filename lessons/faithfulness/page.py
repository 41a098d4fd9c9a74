"""Lesson 4: faithfulness — each answer sentence checked against the sources, two ways.

Thin page: text and example texts from content.<lang>.toml, verdicts from
``metrics.faithfulness`` via ``logic``. The interactive and the exercise are fragments.

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
from text.i18n import current_lang, direction, fill, fmt_num, load_content, t
from ui import layout
from ui.quiz import quiz

FOLDER = "faithfulness"
FIELDS = {
    "t": state.float_field(logic.DEFAULT_THRESHOLD, lo=0.0, hi=1.0),
    "ex": state.choice_field("ar", logic.EXAMPLES),
    "e": state.choice_field("none", logic.ALL_EDITS),
}
EXERCISE_FIELDS = {"q": state.int_field(0, lo=0, hi=10_000)}

c = load_content(FOLDER)
labels = c["try_it"]["labels"]


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


def _sentence_html(i: int, sent) -> str:
    verdicts, warnings = c["try_it"]["verdicts"], c["try_it"]["warnings"]
    lang = current_lang()
    head = (f'<div class="mz-verdict mz-v-{sent.verdict}"><span dir="ltr">{i}</span> · '
            f"{escape_html(verdicts[sent.verdict])} · "
            f'<bdi dir="ltr" class="mz-support">{logic.percent(sent.support)}</bdi></div>')
    evidence = ""
    if sent.evidence:
        # Evidence in the page's direction runs on after the label; in the other direction
        # it gets its own line, so it wraps and aligns as its own language does.
        inline = logic.text_direction(sent.evidence) in (None, direction())
        tag = "span" if inline else "div"
        evidence = (f'<div class="mz-evidence">{escape_html(labels["evidence"])}:'
                    f'{" " if inline else ""}<{tag} dir="auto">{escape_html(sent.evidence)}'
                    f"</{tag}></div>")
    elif sent.verdict != "not_scored":
        evidence = f'<div class="mz-evidence">{escape_html(labels["no_evidence"])}</div>'
    warns = "".join(f'<div class="mz-warning">⚠ {escape_html(isolate(warnings[w], lang))}</div>'
                    for w in sent.warnings)
    return (f'<div class="mz-claim" dir="{direction()}" lang="{lang}">{head}'
            f"{logic.bar_html(sent.support, sent.verdict)}{logic.highlighted_html(sent)}"
            f"{evidence}{warns}</div>")


@st.fragment
@layout.friendly_errors("faithfulness.try_it")
def interactive() -> None:
    s = state.url_state(FOLDER, FIELDS)
    ex_names = {"ar": labels["example_ar"], "en": labels["example_en"]}
    ex = st.radio(layout.label(labels["example"]), logic.EXAMPLES, index=logic.EXAMPLES.index(
        s["ex"]), format_func=ex_names.__getitem__, horizontal=True, key=s.key("ex"))
    if s.set(ex=ex):
        s.set(e="none")
    edits = ("none", *logic.EDITS[s["ex"]])
    if s["e"] not in edits:         # a link with another example's edit (e.g. ?ex=en&e=diacritics)
        st.warning(t("url.bad_value", name="e"), icon=":material/link_off:")
        s.set(e="none")
    edit_labels = {"none": labels["edit_none"], **c["try_it"]["edit_labels"][s["ex"]]}
    layout.markdown(f"**{labels['try_this']}**")
    cols = st.columns(len(edits))
    for col, edit in zip(cols, edits, strict=True):
        col.button(layout.label(edit_labels[edit]), key=f"fa-edit-{edit}", on_click=_choose,
                   args=(s, s["ex"], edit), width="stretch",
                   type="primary" if s["e"] == edit else "secondary")
    if s["e"] != "none":            # what this edit shows, in the page's language
        st.info(layout.label(c["try_it"]["edit_notes"][s["ex"]][s["e"]]),
                icon=":material/lightbulb:")

    default_source, default_answer = logic.example_texts(_examples(s["ex"]), s["e"])
    # The text areas' keys carry the example and edit: choosing one loads its texts afresh.
    # What the learner types stays in session state only (not in the URL).
    tag = f"{s.key('txt')}.{s['ex']}.{s['e']}"
    source = st.text_area(layout.label(labels["source"]), value=default_source, height=120,
                          max_chars=logic.MAX_CHARS, key=f"fa-src.{tag}")
    answer = st.text_area(layout.label(labels["answer"]), value=default_answer, height=120,
                          max_chars=logic.MAX_CHARS, key=f"fa-ans.{tag}")
    threshold = st.slider(layout.label(labels["threshold"]), 0.0, 1.0, value=s["t"], step=0.05,
                          key=s.key("t"))
    s.set(t=round(threshold, 2))

    result = logic.run(source, answer, s["t"])
    report = result.report
    if not report.sentences:
        st.info(labels["empty"])
        return
    crude_scored = [r for r in result.crude if r.support is not None]
    crude_score = (sum(r.verdict == "supported" for r in crude_scored) / len(crude_scored)
                   if crude_scored else None)
    n = logic.counts(report)
    scored = len(report.sentences) - n["not_scored"]
    layout.metric_row([
        (labels["score"], "—" if report.score is None else fmt_num(report.score, 2)),
        (labels["supported_count"], f"{n['supported']} / {scored}"),
        (labels["crude_score"], "—" if crude_score is None else fmt_num(crude_score, 2)),
    ])
    if report.score is None:
        st.info(labels["no_score"])

    left, right = st.columns(2)
    with left:
        layout.markdown(f"**{labels['crude_heading']}**")
        st.markdown(_crude_html(result), unsafe_allow_html=True)
    with right:
        layout.markdown(f"**{labels['better_heading']}**")
        layout.markdown(labels["legend"])
        shown = report.sentences[:logic.MAX_SHOWN]
        st.markdown("".join(_sentence_html(i, x) for i, x in enumerate(shown, start=1)),
                    unsafe_allow_html=True)
    if max(len(report.sentences), len(result.crude)) > logic.MAX_SHOWN:     # both columns
        st.caption(layout.label(fill(labels["too_many"], {
            "n": logic.MAX_SHOWN, "total": len(report.sentences)})))
    if len(answer) > 2_000:
        st.caption(layout.label(labels["long_text"]))


def _new_item(s: state.UrlState, n_items: int) -> None:
    """Another item, never the one on screen."""
    s.set(q=(s["q"] + random.randrange(1, n_items)) % 10_000)


def _exercise_reveal(source: str, answer: str) -> None:
    """The checker's verdict on the exercise sentence, why, and its highlighted words."""
    sent = logic.run(source, answer, logic.DEFAULT_THRESHOLD).report.sentences[0]
    reveal = c["exercise"]["reveal"]
    layout.markdown(reveal["verdict"], {"verdict": c["try_it"]["verdicts"][sent.verdict]})
    layout.markdown(reveal[logic.exercise_reason(sent)])
    st.markdown(_sentence_html(1, sent), unsafe_allow_html=True)


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
    new_item = {"key": "fa-ex-new", "on_click": _new_item, "args": (s, len(items)),
                "icon": ":material/casino:"}
    if layout.is_presenting():      # the class thinks first; the answer waits behind "reveal"
        st.button(words["new"], **new_item)
        layout.answer_block(key, lambda: _exercise_reveal(source, item["answer"]))
        return
    verdicts = c["try_it"]["verdicts"]
    options = ("supported", "unsupported", "check")
    picked = st.radio(layout.label(words["pick"]), options, index=None,
                      format_func=verdicts.__getitem__, key=f"{key}-pick")
    row = st.container(horizontal=True)
    checked = row.button(words["check"], key="fa-ex-check", disabled=picked is None)
    row.button(words["new"], **new_item)
    if checked and picked:
        sent = logic.run(source, item["answer"], logic.DEFAULT_THRESHOLD).report.sentences[0]
        verdict = logic.exercise_feedback(picked, sent.verdict, sent)
        show = st.success if verdict == "correct" else st.error
        show(layout.label(c["exercise"]["feedback"][verdict]))
        st.markdown(_sentence_html(1, sent), unsafe_allow_html=True)


def worked_values() -> dict[str, object]:
    ar = _examples("ar")
    result = logic.run(ar["source"], ar["answer"], logic.DEFAULT_THRESHOLD)
    values = {f"crude_{i}": logic.percent(r.support) for i, r in enumerate(result.crude, 1)}
    values["score"] = round(result.report.score, 2)
    return values


layout.lesson_css("faithfulness")
layout.lesson_header(c, FOLDER)
layout.section(c, "core_idea")
layout.section(c, "worked_example", values=worked_values())
with layout.section(c, "try_it"):
    interactive()
    with st.expander(layout.label(c["try_it"]["limits"]["heading"])):
        layout.markdown(c["try_it"]["limits"]["body"])
layout.section(c, "faithful_correct")
layout.myths(c)
with layout.section(c, "exercise"):
    exercise()
layout.flashcards(c)
with layout.section(c, "quiz"):
    quiz(FOLDER)
