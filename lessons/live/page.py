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
ROLES = ("student", "instructor")
LAST_ROLE = "live-role-last"

share.keep_private(phone.OLD_ME_PARAM)   # an old link's participant token is nobody's to share


def _chosen() -> None:
    st.session_state[ROLE_CHOSEN] = True


def current_role() -> str:
    """Student or instructor. The instructor role comes by itself when this session hosts, or
    when the browser keeps a session it started (a reload, a reconnect) and the address is not
    a join link — unless the role was picked by hand."""
    if instructor.HOST in st.session_state:
        if not st.session_state.get(ROLE_CHOSEN) or ROLE not in st.session_state:
            st.session_state[ROLE] = "instructor"
    elif phone.ME in st.session_state:
        st.session_state[ROLE] = "student"
    elif (not st.session_state.get(ROLE_CHOSEN) and "join" not in st.query_params
          and instructor.stored_pair()):
        st.session_state[ROLE] = "instructor"
    role = st.session_state.get(ROLE)
    if role not in ROLES:
        # none yet, or no value from the browser: under load the role switch has come back
        # from a form's submission with nothing selected (CI, reproduced at load ~5). Keep the
        # role this session last had — a student's join form, never the instructor's controls
        # by default
        st.session_state[ROLE] = role = st.session_state.get(LAST_ROLE, "student")
    st.session_state[LAST_ROLE] = role
    return role


def on_the_room_screen() -> bool:
    """The projector, or a joined phone: no title, no role switch (presenter view, or leaving
    the session, brings them back)."""
    hosting = instructor.HOST in st.session_state
    return (hosting and layout.is_presenting()) or (phone.ME in st.session_state
                                                    and not hosting)


def role_switch() -> None:
    r = texts.c()["role"]
    st.segmented_control(layout.label(r["label"]), list(ROLES), key=ROLE,
                         required=True, format_func=lambda v: r[v], on_change=_chosen)


@layout.friendly_errors("live.page")
def main() -> None:
    layout.lesson_css("live")
    picked = current_role()
    # what the browser keeps: read (and written) first, at fixed places of every full run,
    # so that joining or resuming never moves (and so remounts) the element
    if picked == "student":
        kept.get(kept.PHONE).draw("live-store-me")
    if picked == "instructor" or "join" not in st.query_params:
        kept.get(kept.HOST).draw("live-store-host", hand_over=not layout.is_presenting())
    if picked == "instructor" or (not st.session_state.get(ROLE_CHOSEN)
                                  and "join" not in st.query_params):
        instructor.auto_resume()
        picked = current_role()
    if not on_the_room_screen():
        c = texts.c()
        layout.lesson_header({**c, "summary": ""} if instructor.HOST in st.session_state
                             else c)
        role_switch()
    if picked == "student":
        phone.view()
    else:
        instructor.view()


main()
