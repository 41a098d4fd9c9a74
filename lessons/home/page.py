"""Home (/): the lessons in order as cards (each opens with its link), what Mizan is and how a
lesson works."""

import streamlit as st

from runtime import catalog
from text.i18n import current_lang, load_content, t
from ui import layout

content = load_content("home")
lang = current_lang()


def card(entry: catalog.Entry) -> None:
    """One lesson: its link first ("Lesson n · short title", a 44 px tap target), then its
    one-line summary from the lesson's own content file."""
    lesson = load_content(entry.folder, lang)
    number = catalog.lesson_number(entry)
    name = lesson.get("nav_title") or lesson.get("title", entry.url_path)
    # Number and name isolated apart: one isolate around "3 · MRR" would read backwards.
    text = layout.label(name)
    if number:
        text = f"{layout.label(t('lesson.number', n=number))} · {text}"
    with st.container(border=True, key=f"mz-card-{entry.url_path}"):
        st.page_link(entry.script, label=text, icon=entry.icon)
        if lesson.get("summary"):
            layout.markdown(lesson["summary"])


def cards(entries: list[catalog.Entry]) -> None:
    # Row by row, so that on a phone (columns stack) the lessons still come in order.
    per_row = 3 if layout.is_presenting() else 2
    for start in range(0, len(entries), per_row):
        row = st.columns(per_row)
        for column, entry in zip(row, entries[start : start + per_row], strict=False):
            with column:
                card(entry)


# The lessons come first (a phone's first screen holds their links); what Mizan is and how a
# lesson works follow.
layout.lesson_header(content)
available = catalog.available()
lessons = [e for e in available if e.kind == "lesson"]
tools = [e for e in available if e.kind == "tool"]
if lessons:
    layout.section(content, "lessons")
    cards(lessons)
layout.section(content, "intro")
layout.section(content, "how")
if tools:
    layout.section(content, "tools")
    cards(tools)
layout.section(content, "teachers")
