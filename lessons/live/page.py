"""/live: the instructor pushes a question about a lesson's ranking, students answer from their
phones, the projector shows the spread, the right answer and the most common misconception.

A thin page: the instructor's view (``instructor``), the projector (``projector``) and the
phone (``phone``) are their own modules; questions are built by ``logic`` (numbers from
``metrics``) and stored by ``live.service`` (SQLite or PostgreSQL). What the browser keeps
(the instructor's session, the phone's participant) is in ``kept``.
"""

from __future__ import annotations

import streamlit as st

from lessons.live import instructor, kept, phone, texts
from ui import layout, share

ROLE, ROLE_CHOSEN = "live-role", "live-role-chosen"

share.keep_private(phone.OLD_ME_PARAM)   # an old link's participant token is nobody's to share


def _chosen() -> None:
    st.session_state[ROLE_CHOSEN] = True


def role() -> str:
    """Student or instructor. The instructor role comes by itself when this session hosts or
    the browser keeps a session it started (after a reload), unless the address is a join
    link or the role was picked by hand."""
    if not st.session_state.get(ROLE_CHOSEN) and "join" not in st.query_params and (
            instructor.HOST in st.session_state or instructor.stored_pair()):
        st.session_state[ROLE] = "instructor"
    st.session_state.setdefault(ROLE, "student")
    r = texts.c()["role"]
    return st.segmented_control(layout.label(r["label"]), ["student", "instructor"], key=ROLE,
                                required=True, format_func=lambda v: r[v], on_change=_chosen)


@layout.friendly_errors("live.page")
def main() -> None:
    layout.lesson_css("live")
    c = texts.c()
    running = instructor.HOST in st.session_state or phone.ME in st.session_state
    layout.lesson_header({**c, "summary": ""} if running else c)
    picked = role()
    # what the browser keeps, read (and written) at one fixed place of every full run
    if picked == "instructor" or "join" not in st.query_params:
        kept.get(kept.HOST).draw("live-store-host", hand_over=not layout.is_presenting())
    if picked == "student":
        kept.get(kept.PHONE).draw("live-store-me")
        phone.view()
    else:
        instructor.view()


main()
