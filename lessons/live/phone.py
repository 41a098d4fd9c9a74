"""The phone: join with the code on the projector, then the question box.

The box is the phone's own timed fragment (:func:`box`): every poll reads one cached integer
(``service.poll``), re-reads the question only when the session's state moved and the
stored answer only when anything moved, and redraws the box — a handful of small elements —
from what is stored. So a new question needs no page rerun, a change made from another
device shows on the next poll, and the confirmation of an answer cannot be lost with one
message (under load Streamlit may drop the messages of a run that finished just as the next
poll arrived: see ``deploy/README.md``).

The participant is kept in the browser (``kept.PHONE``), never in the address: a reload or
a reconnect to another process finds it again, and a shared link carries no identity. An
answer the server did not confirm (the database away) stays pending — in the session and in
the browser — marked "not saved", and is sent again on the next poll or after a reconnect
(the same value resent is never refused and never stored twice).
"""

from __future__ import annotations

import contextlib
import json
import logging
import random
import re
import time

import streamlit as st
from sqlalchemy.exc import SQLAlchemyError

from lessons.live import kept, logic, screen, texts
from lessons.live.texts import option_label
from live.errors import DatabaseUnavailable, LiveError
from live.service import Question, normalise_code, service
from text.i18n import Markup, fill
from ui import layout

ME, CACHE, PENDING = "live-me", "live-student", "live-pending"
EVERY_S = 2.0               # many phones: a poll reads a 1 s cache and redraws a small box
JITTER_S = 0.3
POLL_MAX_AGE_S = 1.0
OLD_ME_PARAM = "me"         # links made before issue 17 carried the token: read once, dropped
TOKEN_RE = re.compile(r"[0-9a-f]{32}")
ANSWER_MAX_CHARS = 64
_LOG = logging.getLogger(__name__)


# --- what the browser keeps ---------------------------------------------------------------------


def identity_text(me: dict, pending: tuple[int, str] | None = None) -> str:
    return json.dumps({"code": me["code"], "token": me["token"],
                       "pending": list(pending) if pending else None}, ensure_ascii=False)


def read_identity(text: str) -> tuple[str, str, tuple[int, str] | None] | None:
    """``(code, token, pending)`` from the browser's value; None for nothing or junk."""
    try:
        data = json.loads(text) if text else None
        code, token = normalise_code(data["code"]), str(data["token"])
        pending = data.get("pending")
        pending = (int(pending[0]), str(pending[1])[:ANSWER_MAX_CHARS]) if pending else None
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        return None
    return (code, token, pending) if code and TOKEN_RE.fullmatch(token) else None


def _keep(me: dict | None) -> None:
    """What the browser should hold: this participant and its unconfirmed answer, or nothing."""
    kept.get(kept.PHONE).want(identity_text(me, st.session_state.get(PENDING)) if me else "")


def _set_pending(pending: tuple[int, str] | None, *, in_browser: bool) -> None:
    if pending:
        st.session_state[PENDING] = pending
    else:
        st.session_state.pop(PENDING, None)
    if in_browser or not pending:
        _keep(st.session_state.get(ME))


# --- joining ------------------------------------------------------------------------------------


def _become(code: str, token: str, label: str) -> dict:
    me = {"code": code, "token": token, "label": label}
    st.session_state[ME] = me
    st.session_state.pop(CACHE, None)
    return me


def restore() -> dict | None:
    """The participant this browser already is: from an old link's ``me=`` (read once,
    removed from the address) or from what the browser keeps. A token the service does not
    know there (removed, another session's, junk) is forgotten."""
    store = kept.get(kept.PHONE)
    if OLD_ME_PARAM in st.query_params:
        st.session_state["live-old-me"] = str(st.query_params.get(OLD_ME_PARAM, ""))[:64]
        del st.query_params[OLD_ME_PARAM]
        st.rerun()  # the address changed: the shell's share panel is drawn again without it
    old = st.session_state.pop("live-old-me", None)
    if old is not None:
        found = (normalise_code(st.query_params.get("join", "")), old, None)
    else:
        found = read_identity(store.value) if store.status == "ok" else None
    if found is None:
        return None
    code, token, pending = found
    try:
        joined = svc_participant(code, token)
    except SQLAlchemyError:
        st.session_state["live-restore-down"] = True
        if old is not None:
            st.session_state["live-old-me"] = old
        return None  # kept: tried again on the next run
    st.session_state.pop("live-restore-down", None)
    if joined is None:
        if not old:
            store.want("")
        return None
    me = _become(code, token, joined.label)
    if pending:
        st.session_state[PENDING] = pending
    _keep(me)
    return me


def svc_participant(code: str, token: str):
    if not (code and TOKEN_RE.fullmatch(token)):
        return None
    return service().participant(code, token)


def _join() -> None:
    code = normalise_code(st.session_state.get("live-join-code", ""))
    nickname = st.session_state.get("live-join-nick", "")
    if not code:
        st.session_state["live-join-error"] = "code_empty"
        return
    try:
        joined = service().join(code, nickname)
    except LiveError as err:
        st.session_state["live-join-error"] = err.key
        return
    except SQLAlchemyError:
        _LOG.exception("database error on join")
        st.session_state["live-join-error"] = "database"
        return
    st.session_state.pop("live-join-error", None)
    st.session_state.pop(PENDING, None)
    _keep(_become(code, joined.token, joined.label))
    st.query_params["join"] = code


def _leave() -> None:
    for key in (ME, CACHE, PENDING):
        st.session_state.pop(key, None)
    _keep(None)


def join_form() -> None:
    c = texts.c()
    j = c["join"]
    layout.markdown(f"## {j['heading']}\n\n{j['body']}")
    if st.session_state.get("live-restore-down"):
        st.session_state["live-restore-at"] = time.monotonic()
        st.fragment(run_every=EVERY_S)(_wait_for_database)()
    with st.form("live-join-form", border=False):
        # the code from the QR link as the box's default (not written into the session
        # state: the browser's first reply would overwrite that with an empty box)
        # no max_chars on these boxes: Streamlit drops a longer paste without a word, while
        # the service says what is wrong (nickname_too_long, unknown_session)
        st.text_input(layout.label(j["code"]), key="live-join-code",
                      value=normalise_code(st.query_params.get("join", "")),
                      placeholder=j["code_placeholder"])
        st.text_input(layout.label(j["nickname"]), key="live-join-nick",
                      placeholder=j["nickname_placeholder"])
        st.form_submit_button(j["button"], on_click=_join, type="primary")
    problem = st.session_state.get("live-join-error")
    if problem:
        st.error(layout.label(texts.error(problem)), icon=":material/block:")


def _wait_for_database() -> None:
    """The browser holds a participant but the database did not answer: say so, and try
    again every few seconds (a full run: the restore runs there)."""
    st.warning(layout.label(texts.ui("database_down")), icon=":material/cloud_off:")
    if time.monotonic() - st.session_state.get("live-restore-at", 0.0) > EVERY_S / 2:
        st.rerun(scope="app")


def view() -> None:
    """The student's page: the join form, or the joined phone's question box."""
    me = st.session_state.get(ME) or restore()
    if not me:
        join_form()
        return
    j = texts.c()["join"]
    st.success(layout.label(fill(j["joined"], {"code": Markup(f"`{me['code']}`"),
                                                 "name": me["label"]})))
    st.fragment(run_every=every())(box)(me["code"], me["token"])
    st.button(j["leave"], on_click=_leave, key="live-leave", icon=":material/logout:")


def every() -> float:
    """This phone's poll interval: the mean, spread by up to ±JITTER_S so phones that joined
    in the same second (the whole class scanning one QR code) drift apart."""
    if "live-every" not in st.session_state:
        st.session_state["live-every"] = round(EVERY_S + random.uniform(-JITTER_S, JITTER_S), 2)
    return float(st.session_state["live-every"])


# --- the question box (the timed fragment) ------------------------------------------------------


def refresh(cache: dict, code: str, token: str) -> None:
    """Bring ``cache`` up to date: the poll's cached counters, the question only when the
    session's state moved (and then whether this participant is still in), this phone's
    stored answer only when anything moved (every answer moves ``version``: a change made
    from another device is read on the next poll). Raises ``DatabaseUnavailable``; the cache
    then keeps what it had."""
    svc = service()
    poll = svc.poll(code, max_age=POLL_MAX_AGE_S)
    if poll is None or poll.status != "open":
        cache.update(code=code, open=False)
        return
    if cache.get("sv") != poll.state_version or cache.get("code") != code:
        q = svc.current_question(code)
        removed = svc.participant(code, token) is None
        cache.update(sv=poll.state_version, code=code, q=q, removed=removed, answer_v=None)
    cache["open"] = True
    q = cache.get("q")
    if q is not None and cache.get("answer_v") != poll.version:
        cache.update(mine=svc.my_answer(q.id, token), answer_v=poll.version)


def _confirm(q: Question, cache: dict, result, key: str | None = None) -> None:
    cache.update(mine=result.value, answer_v=None)
    shown = {"answer": option_label(q, result.value)}
    if key is None:
        key = ("saved" if result.previous is None else
               "unchanged" if result.previous == result.value else "changed")
    if key == "changed":
        shown["before"] = option_label(q, result.previous)
    cache["message"] = (q.id, "success" if key != "unchanged" else "info", key, shown,
                        result.value)


def _refused(q: Question, cache: dict, key: str) -> None:
    cache["message"] = (q.id, "error", key, {}, None)
    if key in ("question_closed", "question_unknown"):
        cache["sv"] = -1  # stale: the next draw re-reads the question
    if key == "removed":
        cache["removed"] = True


def send(q: Question, code: str, token: str) -> None:
    """The Send button: the answer is pending until the service confirms it."""
    typed = st.session_state.get(f"live-ans-{q.id}")
    value = "" if typed is None else str(typed)
    cache = st.session_state.setdefault(CACHE, {})
    _set_pending((q.id, value), in_browser=False)
    try:
        result = service().answer(code, token, q.id, value)
    except DatabaseUnavailable:
        _not_saved(q, cache)
        return
    except LiveError as err:
        _set_pending(None, in_browser=True)
        _refused(q, cache, err.key)
        return
    except SQLAlchemyError:
        _LOG.exception("database error on answer")
        _not_saved(q, cache)
        return
    _set_pending(None, in_browser=True)
    _confirm(q, cache, result)


def _not_saved(q: Question, cache: dict) -> None:
    """Keep the answer in the browser too (a reconnect may land on another process)."""
    _set_pending(st.session_state.get(PENDING), in_browser=True)
    cache["message"] = (q.id, "warning", "not_saved", {}, None)


def resend(cache: dict, code: str, token: str) -> None:
    """A pending answer goes again once the service answers (after a database outage, or in
    the new session a reconnect opened). Safe: the same value is never stored twice."""
    pending = st.session_state.get(PENDING)
    q: Question | None = cache.get("q")
    if not pending or q is None:
        return
    qid, value = pending
    if q.id != qid or not q.is_open:
        _set_pending(None, in_browser=True)
        cache["message"] = (qid, "error", "question_closed", {}, None)
        return
    try:
        result = service().answer(code, token, qid, value)
    except LiveError as err:
        if isinstance(err, DatabaseUnavailable):
            raise
        _set_pending(None, in_browser=True)
        _refused(q, cache, err.key)
        return
    _set_pending(None, in_browser=True)
    _confirm(q, cache, result, "saved_after_retry")


@layout.friendly_errors("live.student")
def box(code: str, token: str) -> None:
    """The question box: what is stored, drawn again on every poll."""
    cache = st.session_state.setdefault(CACHE, {})
    down = False
    try:
        refresh(cache, code, token)
        if cache.get("open") and not cache.get("removed"):
            resend(cache, code, token)
    except SQLAlchemyError as err:
        if not isinstance(err, DatabaseUnavailable):
            _LOG.exception("database error in live.student")
        down = True
    if down:
        st.warning(layout.label(texts.ui("database_down")), icon=":material/cloud_off:")
    draw(cache, code, token, down=down)
    if kept.get(kept.PHONE).needs_run():
        st.rerun(scope="app")  # the browser's copy is drawn (and read back) in full runs


def draw(cache: dict, code: str, token: str, *, down: bool = False) -> None:
    s = texts.c()["student"]
    if cache.get("removed"):
        st.error(layout.label(texts.error("removed")), icon=":material/person_remove:")
        return
    q: Question | None = cache.get("q")
    if not cache.get("open") and not (down and q is not None):
        if not down:
            st.info(layout.label(texts.error("session_closed")), icon=":material/event_busy:")
        return
    if q is None:
        st.info(layout.label(s["waiting"]), icon=":material/hourglass_top:")
        return
    screen.question(q, heading_level=4)
    mine = cache.get("mine")
    if q.is_open:
        with st.form(f"live-form-{q.id}", border=True):
            if q.kind == "choice":
                labels = {str(o["value"]): option_label(q, str(o["value"])) for o in q.options}
                values = list(labels)
                st.radio(layout.label(s["answer"]), values, key=f"live-ans-{q.id}",
                         index=values.index(mine) if mine in values else None,
                         format_func=labels.__getitem__)
            else:
                st.text_input(layout.label(s["answer"]), key=f"live-ans-{q.id}",
                              placeholder=s["placeholder"])   # too long: answer_too_long
            # a fixed key: the label may change, the button (and a pending click) stays
            st.form_submit_button(s["change"] if mine else s["send"], type="primary",
                                  key=f"live-send-{q.id}", on_click=send,
                                  args=(q, code, token))
    _message(q, cache, mine)
    if not q.is_open:
        st.info(layout.label(s["closed"]), icon=":material/lock:")
    if q.revealed:
        right = option_label(q, q.correct if q.kind == "choice"
                             else logic.fmt(float(q.correct)))
        if mine is None:
            st.info(layout.label(fill(s["wrong"], {"answer": right}) + " " + s["none"]))
        else:
            got_it = is_right(q, mine)
            (st.success if got_it else st.warning)(layout.label(
                fill(s["right" if got_it else "wrong"], {"answer": right})))


def _message(q: Question, cache: dict, mine: str | None) -> None:
    """The answer's state: "not saved" while pending, the confirmation of this phone's last
    send while it is still what is stored and the question open, else the stored answer."""
    s = texts.c()["student"]
    message = cache.get("message")
    message = message if message and message[0] == q.id else None
    pending = st.session_state.get(PENDING)
    if pending and pending[0] == q.id:
        st.warning(layout.label(texts.ui("not_saved")), icon=":material/sync_problem:")
        message = None
    elif message and message[1] == "error":
        st.error(layout.label(texts.error(message[2])), icon=":material/block:")
        message = None
    elif message and (message[4] != mine or not q.is_open):
        message = None   # changed since (another device), or closed: say what is stored
    if message:
        _, kind, key, values, _ = message
        text = (texts.ui(key, values) if key == "saved_after_retry" else fill(s[key], values))
        {"success": st.success, "info": st.info}[kind](layout.label(text))
    elif mine is not None:
        st.success(layout.label(fill(s["yours"], {"answer": option_label(q, mine)})),
                   icon=":material/check:")


def is_right(q: Question, mine: str) -> bool:
    if q.kind == "choice":
        return mine == q.correct
    with contextlib.suppress(ValueError):
        return abs(float(mine) - float(q.correct)) <= q.tolerance + 1e-9
    return False
