"""Home (/): what Mizan is, how a lesson works, and the lessons in order as cards."""

import streamlit as st

from runtime import catalog
from text import bidi
from text.i18n import current_digits, current_lang, direction, load_content, t
from ui import layout

content = load_content("home")
lang = current_lang()


def card(entry: catalog.Entry) -> None:
    """One lesson: number, title and summary from the lesson's own content file, a link."""
    lesson = load_content(entry.folder, lang)
    number = catalog.lesson_number(entry)
    title = bidi.isolate(
        bidi.escape_html(lesson.get("title", entry.url_path)), lang, digits=current_digits()
    )
    kicker = (
        f'<p class="mz-card-num">{bidi.escape_html(t("lesson.number", n=number))}</p>'
        if number
        else ""
    )
    with st.container(border=True, key=f"mz-card-{entry.url_path}"):
        st.markdown(
            f'<div class="mz-prose" dir="{direction(lang)}" lang="{lang}">{kicker}'
            f'<p class="mz-card-title">{title}</p></div>',
            unsafe_allow_html=True,
        )
        if lesson.get("summary"):
            layout.markdown(lesson["summary"])
        st.page_link(
            entry.script,
            label=t("lesson.open") if number else t("lesson.open_tool"),
            icon=entry.icon,
        )


def cards(entries: list[catalog.Entry]) -> None:
    # Row by row, so that on a phone (columns stack) the lessons still come in order.
    per_row = 3 if layout.is_presenting() else 2
    for start in range(0, len(entries), per_row):
        row = st.columns(per_row)
        for column, entry in zip(row, entries[start : start + per_row], strict=False):
            with column:
                card(entry)


layout.lesson_header(content)
layout.section(content, "intro")
layout.section(content, "how")

available = catalog.available()
lessons = [e for e in available if e.kind == "lesson"]
tools = [e for e in available if e.kind == "tool"]
if lessons:
    layout.section(content, "lessons")
    cards(lessons)
if tools:
    layout.section(content, "tools")
    cards(tools)
layout.section(content, "teachers")
