"""The instructor: start or resume a session, compose and push questions, lock joining,
remove a participant, manage the key, end the session.

The instructor key is kept in this browser (``kept.HOST``), handed over right after it was
made (never in presenter view) and never drawn on the projector: outside presenter view the
instructor can show it on purpose (to run the session from another device) or replace it.
A new session of this browser — a reload, a reconnect to another process, a restarted
server — finds the pair there and resumes by itself (``auto_resume``)."""

from __future__ import annotations

import json
import logging
import time

import streamlit as st
from sqlalchemy.exc import SQLAlchemyError

from lessons.live import kept, logic, projector, screen, texts
from live.errors import DatabaseUnavailable, LiveError
from live.service import normalise_code, service
from runtime import catalog, state
from teaching import exercises, measures
from teaching.exercises import MAX_SEED
from text.i18n import fill
from ui import layout

HOST = "live-host"
ERROR, NOTICE = "live-host-error", "live-host-notice"
RETRY_S = 2.0
KEY_RE_MAX = 64
_LOG = logging.getLogger(__name__)


# --- the key this browser keeps -----------------------------------------------------------------


def pair_text(code: str, key: str) -> str:
    return json.dumps({"code": code, "key": key})


def read_pair(text: str) -> tuple[str, str] | None:
    try:
        data = json.loads(text) if text else None
        code, key = normalise_code(data["code"]), str(data["key"])[:KEY_RE_MAX]
    except (ValueError, TypeError, KeyError):
        return None
    return (code, key) if code and key else None


def stored_pair() -> tuple[str, str] | None:
    store = kept.get(kept.HOST)
    return read_pair(store.value) if store.status == "ok" else None


def _become(code: str, key: str) -> None:
    st.session_state[HOST] = {"code": code, "key": key}
    st.session_state.pop(projector.CACHE, None)
    kept.get(kept.HOST).want(pair_text(code, key))


def _forget() -> None:
    st.session_state.pop(HOST, None)
    st.session_state.pop(projector.CACHE, None)
    kept.get(kept.HOST).want("")


def auto_resume() -> None:
    """No session in this Streamlit session, a pair in the browser: resume it. A refusal
    (another key, an ended session) forgets the pair; an absent database keeps it and tries
    again every few seconds."""
    pair = stored_pair()
    if pair is None or HOST in st.session_state:
        return
    code, key = pair
    try:
        service().resume_host(code, key)
    except DatabaseUnavailable:
        st.session_state["live-host-down-at"] = time.monotonic()
        st.fragment(run_every=RETRY_S)(_wait_for_database)()
        return
    except LiveError as err:
        kept.get(kept.HOST).want("")
        st.session_state[ERROR] = ("resume_failed", err.key)
        return
    except SQLAlchemyError:
        _LOG.exception("database error on resume")
        return
    _become(code, key)
    st.session_state[NOTICE] = ("resumed", code)


def _wait_for_database() -> None:
    st.warning(layout.label(texts.ui("database_down")), icon=":material/cloud_off:")
    if time.monotonic() - st.session_state.get("live-host-down-at", 0.0) > RETRY_S / 2:
        st.rerun(scope="app")


def _host_action(method: str, *args, **kwargs) -> tuple[bool, object]:
    """``service().<method>(...)`` for a button's callback: ``(True, result)``, or ``(False,
    None)`` with the refusal (or the database being away) kept for :func:`messages` to show."""
    try:
        return True, getattr(service(), method)(*args, **kwargs)
    except LiveError as err:
        st.session_state[ERROR] = (None, err.key)
    except SQLAlchemyError:
        st.session_state[ERROR] = (None, "database")
    return False, None


def _start() -> None:
    try:
        created = service().create_session("live")
    except (LiveError, SQLAlchemyError):
        st.session_state[ERROR] = (None, "database")
        return
    _become(created.code, created.host_token)


def _resume() -> None:
    """The resume form (another device): the code and the key typed."""
    code = normalise_code(st.session_state.get("live-resume-code", ""))
    key = str(st.session_state.get("live-resume-key", "")).strip()[:KEY_RE_MAX]
    done, code = _host_action("resume_host", code, key)
    if not done:
        return
    st.session_state.pop(ERROR, None)
    _become(code, key)
    st.session_state[NOTICE] = ("resumed", code)


def _rotate(code: str, key: str) -> None:
    done, new = _host_action("rotate_key", code, key)
    if not done:
        return
    _become(code, new)
    st.session_state.pop("live-show-key", None)
    st.session_state[NOTICE] = ("key_rotated", code)


def _end(code: str, key: str) -> None:
    try:
        service().close_session(code, key)
    except LiveError:
        pass     # already ended, or the key replaced elsewhere: this browser lets go anyway
    except SQLAlchemyError:
        st.session_state[ERROR] = (None, "database")
        return
    _forget()
    st.session_state.pop("live-end-asked", None)
    st.session_state[ERROR] = ("ended", None)


# --- the page -----------------------------------------------------------------------------------


def messages() -> None:
    """One-time notices and refusals of the last action."""
    c = texts.c()
    notice = st.session_state.pop(NOTICE, None)
    if notice:
        words = layout.label(texts.ui(notice[0], {"code": notice[1]}))
        if layout.is_presenting():   # the room's screen: say it without taking its space
            st.toast(words, icon=":material/check_circle:")
        else:
            st.success(words, icon=":material/check_circle:")
    problem = st.session_state.pop(ERROR, None)
    if problem is None:
        return
    intro, key = problem
    if intro == "ended":
        st.info(layout.label(c["host"]["ended"]), icon=":material/event_busy:")
        return
    text = texts.error(key) if key else ""
    if intro:
        text = texts.ui(intro) + (" " + text if text else "")
    st.error(layout.label(text), icon=":material/block:")


def view() -> None:
    messages()
    host = st.session_state.get(HOST)
    if not host:
        start_screen()
        return
    code, key = host["code"], host["key"]
    c = texts.c()
    if layout.is_presenting():   # the projector: the room's view, the controls folded above
        with st.expander(layout.label(c["compose"]["heading"]), icon=":material/edit_note:"):
            composer(code, key)
            class_controls(code, key)
            key_status(presenting=True)
        left, right = st.columns([1, 2], gap="large")
        with left:
            projector.join_panel(code)
        with right:
            projector.projector(code, key)
    else:
        left, right = st.columns([2, 3], gap="large")
        with left:
            composer(code, key)
            class_controls(code, key)
            key_tools(code, key)
        with right:
            projector.join_panel(code)
            projector.projector(code, key)
    end_control(code, key)


def start_screen() -> None:
    h = texts.c()["host"]
    layout.markdown(f"## {h['heading']}\n\n{h['body']}")
    st.button(h["start"], on_click=_start, type="primary", key="live-start",
              icon=":material/play_arrow:")
    with st.expander(layout.label(h["resume_heading"])):
        layout.markdown(h["resume_body"])
        with st.form("live-resume-form", border=False):
            st.text_input(layout.label(texts.c()["join"]["code"]), key="live-resume-code",
                          max_chars=12)
            st.text_input(layout.label(h["host_key"]), key="live-resume-key",
                          max_chars=KEY_RE_MAX, type="password")
            st.form_submit_button(h["resume"], on_click=_resume)


# --- the key, outside presenter view ------------------------------------------------------------


def key_status(*, presenting: bool) -> None:
    """Whether this browser keeps the key (so the session comes back by itself)."""
    store = kept.get(kept.HOST)
    if store.status == "unavailable":
        st.warning(layout.label(texts.ui("key_not_kept")), icon=":material/key_off:")
    elif presenting and store.status == "ok" and not store.confirmed and store.handed is None:
        st.warning(layout.label(texts.ui("key_not_kept_presenting")), icon=":material/key_off:")
    elif store.status == "ok" and store.confirmed:
        st.caption(layout.label(texts.ui("key_kept")))


def key_tools(code: str, key: str) -> None:
    """The instructor's laptop only: show the key on purpose (to resume on another device),
    or replace it (the old one stops working at once)."""
    with st.expander(layout.label(texts.c()["host"]["host_key"]), icon=":material/key:"):
        key_status(presenting=False)
        if st.toggle(layout.label(texts.ui("key_copy")), key="live-show-key"):
            st.code(key, language=None)
        st.button(texts.ui("key_rotate"), key="live-rotate", icon=":material/autorenew:",
                  on_click=_rotate, args=(code, key))


# --- the class: joining and participants --------------------------------------------------------


def _set_lock(code: str, key: str, locked: bool) -> None:
    if not _host_action("set_joining", code, key, locked=locked)[0]:
        return
    st.session_state.setdefault(projector.CACHE, {}).update(locked=locked, version=None)


def _remove(code: str, key: str, member_id: int, label: str) -> None:
    st.session_state.pop("live-remove-asked", None)
    if not _host_action("remove_participant", code, key, member_id)[0]:
        return
    st.session_state.pop(projector.CACHE, None)
    st.session_state["live-removed"] = label


def _ask(what: str, value: object = True) -> None:
    st.session_state[what] = value


def _cancel(what: str) -> None:
    st.session_state.pop(what, None)


def class_controls(code: str, key: str) -> None:
    """Lock joining once the class is in; remove a participant (confirmed first); export."""
    locked = bool(st.session_state.get(projector.CACHE, {}).get("locked"))
    row = st.container(horizontal=True)
    row.button(texts.ui("unlock_joining" if locked else "lock_joining"), key="live-lock",
               icon=":material/lock_open:" if locked else ":material/lock_person:",
               on_click=_set_lock, args=(code, key, not locked))
    with row:
        projector.export_button(code, key)
    with st.expander(layout.label(texts.ui("members")), icon=":material/group:"):
        removed = st.session_state.pop("live-removed", None)
        if removed is not None:
            st.success(layout.label(texts.ui("removed_one", {"name": removed})))
        try:
            members = service().members(code, key)
        except (LiveError, SQLAlchemyError):
            st.warning(layout.label(texts.ui("database_down")), icon=":material/cloud_off:")
            return
        if not members:
            st.caption(layout.label(texts.c()["screen"]["nobody"]))
            return
        labels = {m.id: m.label for m in members}
        picked = st.selectbox(layout.label(texts.ui("members")), list(labels),
                              format_func=labels.__getitem__, key="live-member",
                              label_visibility="collapsed")
        asked = st.session_state.get("live-remove-asked")
        if asked is None or asked not in labels:
            st.button(texts.ui("remove"), key="live-remove", icon=":material/person_remove:",
                      on_click=_ask, args=("live-remove-asked", picked))
            return
        st.warning(layout.label(texts.ui("remove_confirm", {"name": labels[asked]})))
        row = st.container(horizontal=True)
        row.button(texts.ui("remove"), key="live-remove-yes", type="primary",
                   on_click=_remove, args=(code, key, asked, labels[asked]))
        row.button(texts.ui("cancel"), key="live-remove-no", on_click=_cancel,
                   args=("live-remove-asked",))


def end_control(code: str, key: str) -> None:
    """"End the session" stands apart, at the bottom, and asks first."""
    st.divider()
    h = texts.c()["host"]
    if not st.session_state.get("live-end-asked"):
        st.button(h["end"], key="live-end", icon=":material/stop_circle:",
                  on_click=_ask, args=("live-end-asked",))
        return
    st.warning(layout.label(fill(h["end_confirm"], {"code": code})), icon=":material/warning:")
    row = st.container(horizontal=True)
    row.button(h["end_yes"], key="live-end-yes", type="primary", icon=":material/stop_circle:",
               on_click=_end, args=(code, key))
    row.button(texts.ui("cancel"), key="live-end-no", on_click=_cancel,
               args=("live-end-asked",))


# --- composing a question -----------------------------------------------------------------------


def _custom_scenario() -> logic.Scenario | None:
    cp = texts.c()["compose"]
    seed = logic.SCENARIOS["graded"]   # lesson 5's ranking and the judged chunk it missed
    default = state.encode_ranking((d, seed.qrels.get(d, 0)) for d in seed.ranking)
    missed = state.encode_ranking(logic.unretrieved_graded(seed.ranking, seed.qrels))
    typed = st.text_input(layout.label(cp["ranking"]), value=default, key="live-custom-r",
                          help=cp["ranking_help"], max_chars=400)
    extra = st.text_input(layout.label(cp["extra"]), value=missed, key="live-custom-x",
                          max_chars=200)
    try:
        items = state.decode_ranking(typed.strip(), max_items=20, max_id_chars=20)
        more = state.decode_ranking(extra.strip(), max_items=20, max_id_chars=20)
        if not items:
            raise ValueError("empty")
    except ValueError:
        st.warning(layout.label(cp["bad_ranking"]), icon=":material/warning:")
        return None
    qrels = {d: int(g or 0) for d, g in more if (g or 0) > 0}
    qrels.update({d: int(g or 0) for d, g in items})
    return logic.Scenario("custom", tuple(d for d, _ in items), qrels, min(5, len(items)))


def scenario_name(key: str) -> str:
    """A scenario's name in the composer, with the number the catalogue gives its lesson.

    Its Latin runs are isolated: in an Arabic line, "d3 (3)، d8 (2)" would otherwise join into
    one left-to-right run that an Arabic reader meets from its last pair."""
    folder = logic.SCENARIO_LESSONS.get(key)
    number = catalog.number_of(folder) if folder else None
    return layout.label(fill(texts.c()["compose"]["scenarios"][key], {"lesson": number or ""}))


def composer(code: str, key: str) -> None:
    cp = texts.c()["compose"]
    layout.markdown(f"#### {cp['heading']}")
    template = st.selectbox(layout.label(cp["template"]), logic.TEMPLATES, key="live-template",
                            format_func=dict(cp["templates"]).__getitem__)
    choices = (["two_systems"] if template == "better"
               else ["binary", "graded", "exercise", "custom"])
    names = {s: scenario_name(s) for s in choices}   # formatted once, in this run's language
    picked = st.selectbox(layout.label(cp["scenario"]), choices, key=f"live-sc-{template}",
                          format_func=names.__getitem__)
    measure = st.selectbox(layout.label(cp["measure"]), logic.QUESTION_MEASURES,
                           index=logic.QUESTION_MEASURES.index(logic.MEASURES[0]),
                           key="live-measure", format_func=lambda m: logic.measure_name(m, "k"))
    k_key = f"live-k-{picked}"
    if picked == "exercise":   # the same exercise as a lesson's or /practice's with this seed
        seed = st.number_input(layout.label(cp["seed"]), 0, MAX_SEED, value=1, key="live-seed",
                               help=cp["seed_help"])
        sc = logic.exercise_scenario(exercises.generate(measure, int(seed)))
        k_key += f"-{measure}-{seed}"      # a new exercise starts at its own k
    else:
        sc = _custom_scenario() if picked == "custom" else logic.SCENARIOS[picked]
    if sc is None:
        return
    k = st.number_input(layout.label(cp["k"]), 1, max(1, len(sc.ranking)),
                        value=min(sc.k, len(sc.ranking)), key=k_key)
    sc = logic.Scenario(sc.key, sc.ranking, sc.qrels, int(k), sc.other)
    swap = (2, min(5, len(sc.ranking)))
    if template == "predict_swap":
        n = len(sc.ranking)
        if n < 2:
            st.warning(layout.label(texts.error("bad_question")))
            return
        cols = st.columns(2)
        i = cols[0].number_input(layout.label(cp["swap_i"]), 1, n, value=min(2, n - 1),
                                 key="live-swap-i")
        j = cols[1].number_input(layout.label(cp["swap_j"]), 1, n, value=n, key="live-swap-j")
        swap = (min(i, j), max(i, j))
    if measures.family(measure) == "graded" and not logic.is_graded(sc.qrels):
        st.info(layout.label(cp["ndcg_on_binary"]), icon=":material/info:")
    try:
        spec = logic.build(template, sc, measure, swap)
    except (ValueError, KeyError, ZeroDivisionError):
        st.warning(layout.label(texts.error("bad_question")), icon=":material/warning:")
        return
    with st.expander(layout.label(cp["preview"])):
        screen.scenario(spec.template, dict(spec.scenario), spec.measure, heading=(
            f"#### {texts.prompt(spec.template, dict(spec.scenario), spec.measure)}"))
    # a callback, not the button's return value: a click whose run is cut short by the next
    # click (Presenter view, right after Push) still pushes — callbacks run first
    st.button(cp["push"], type="primary", key="live-push", icon=":material/send:",
              on_click=_push, args=(code, key, spec))
    pushed = st.session_state.pop(PUSHED, None)
    if pushed is None:
        return
    outcome, value = pushed
    if outcome == "ok":
        st.success(layout.label(fill(cp["pushed"], {"n": value})))
    else:
        st.error(layout.label(texts.error(value)),
                 icon=":material/cloud_off:" if value == "database" else ":material/block:")


PUSHED = "live-pushed"   # the last push's outcome, shown once under the button


def _push(code: str, key: str, spec) -> None:
    try:
        service().push_question(code, key, spec)
        q = service().current_question(code)
    except LiveError as err:
        st.session_state[PUSHED] = ("error", err.key)
        return
    except SQLAlchemyError:
        _LOG.exception("database error on push")
        st.session_state[PUSHED] = ("error", "database")
        return
    st.session_state.pop(projector.CACHE, None)
    st.session_state[PUSHED] = ("ok", q.position if q else 1)
