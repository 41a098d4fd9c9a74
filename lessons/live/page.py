"""/live: the instructor pushes a question about a lesson's ranking, students answer from their
phones, the projector shows the spread, the right answer and the most common misconception.

Thin page: questions are built by ``logic`` (numbers from ``metrics``), stored by
``live.service`` (SQLite or PostgreSQL). Both screens refresh with ``st.fragment(run_every=…)``
that first reads one integer (``service.poll``) and queries the rest only when it moved.
On a phone that fragment *is* the question box: every poll redraws the box (a handful of small
elements) from what is stored, so a new question needs no page rerun, and the confirmation of
an answer cannot be lost with one message (under load Streamlit may drop the messages of a run
that finished just as the next poll arrived: see ``deploy/README.md``). A phone keeps its
participant across a reload through its own address (``?join=CODE&me=TOKEN``).
"""

from __future__ import annotations

import contextlib
import logging
import random
import re
from collections.abc import Iterator

import streamlit as st
from sqlalchemy.exc import SQLAlchemyError

from lessons.live import logic
from live.models import NICKNAME_MAX
from live.service import LiveError, LiveService, Question, normalise_code, service
from runtime import catalog, state
from teaching import exercises, measures, mistakes
from teaching.exercises import MAX_SEED
from text import bidi
from text.i18n import Markup, current_lang, direction, fill, load_content
from ui import layout, share, tables

FOLDER = "live"
HOST, ME = "live-host", "live-me"
PROJECTOR_CACHE, STUDENT_CACHE = "live-projector", "live-student"
PROJECTOR_EVERY_S = 1.0     # one browser: poll often
STUDENT_EVERY_S = 2.0       # many phones: a poll reads a 1 s cache and redraws a small box
STUDENT_JITTER_S = 0.3
STUDENT_POLL_MAX_AGE_S = 1.0
ME_PARAM = "me"             # the participant token in the student's address (see _restore)
TOKEN_RE = re.compile(r"[0-9a-f]{32}")

c = load_content(FOLDER)
_LOG = logging.getLogger(__name__)


# --- small helpers ------------------------------------------------------------------------------


def svc() -> LiveService:
    return service()


@contextlib.contextmanager
def guarded(where: str) -> Iterator[None]:
    """A refused action → its translated message; the database out of reach → one message."""
    try:
        yield
    except LiveError as err:
        st.error(layout.label(c["error"].get(err.key, c["error"]["bad_question"])),
                 icon=":material/block:")
    except SQLAlchemyError:
        _LOG.exception("database error in %s", where)
        st.error(layout.label(c["error"]["database"]), icon=":material/cloud_off:")


def error_text(key: str) -> str:
    return c["error"].get(key, c["error"]["bad_question"])


def option_label(q: Question, value: str) -> str:
    if q.template in ("predict_swap", "better"):
        return c["options"].get(value, value)
    return value


def prompt_text(q_template: str, scenario: dict, measure: str | None) -> str:
    k = int(scenario.get("k", 1))
    values = {"measure": Markup(f"**{logic.measure_name(measure, k)}**") if measure else ""}
    if q_template == "predict_swap":
        i, j = scenario.get("swap", (1, 2))
        values.update(i=int(i), j=int(j))
    return fill(c["prompt"][q_template], values)


def ranking_table(ranking: list[str], qrels: dict, k: int) -> str:
    """A Markdown table of the ranking (ids are escaped: a custom ranking is typed text)."""
    s = c["screen"]
    graded = max(qrels.values(), default=0) > 1
    return tables.table(
        [s["rank"], s["document"], s["grade" if graded else "relevant"]],
        [[tables.bold(row["rank"]) if row["in_k"] else row["rank"], tables.code(row["id"]),
          row["grade"] if graded else Markup("✓" if row["grade"] >= 1 else "✗")]
         for row in logic.ranking_rows(ranking, qrels, k)])


def scenario_notes(scenario: dict) -> str:
    ranking, qrels, k = scenario["ranking"], scenario.get("qrels", {}), int(scenario["k"])
    missed = logic.unretrieved(ranking, qrels)
    notes = [fill(c["screen"]["cutoff"], {"k": k})]
    if missed:
        notes.append(fill(c["screen"]["unretrieved"], {"ids": layout.code_list(missed)}))
    return "  \n".join(notes)


def show_scenario(template: str, scenario: dict, heading: str = "") -> None:
    """The ranking(s) a question is about; ``heading`` (the prompt) goes in the same element:
    a phone redraws this on every poll, so fewer elements is less work for everyone."""
    ranking, qrels, k = scenario["ranking"], scenario.get("qrels", {}), int(scenario["k"])
    s = c["screen"]
    if not (template == "better" and scenario.get("other")):
        layout.markdown("\n\n".join(part for part in (
            heading, ranking_table(ranking, qrels, k), scenario_notes(scenario)) if part))
        return
    if heading:
        layout.markdown(heading)
    left, right = st.columns(2)
    with left:
        layout.markdown(f"**{s['system_a']}**\n\n" + ranking_table(ranking, qrels, k))
    with right:
        layout.markdown(f"**{s['system_b']}**\n\n" + ranking_table(scenario["other"], qrels, k))
    layout.markdown(scenario_notes(scenario))


# --- student ------------------------------------------------------------------------------------


def _restore() -> dict | None:
    """A reload keeps the phone's identity: after joining, the page's own address carries the
    participant token (``?join=CODE&me=TOKEN``), so a reload finds the same participant
    (and their answer) instead of asking to join again under a nickname now "taken"."""
    token = str(st.query_params.get(ME_PARAM, ""))
    code = normalise_code(st.query_params.get("join", ""))
    if not token:
        return None
    try:
        joined = svc().participant(code, token) if TOKEN_RE.fullmatch(token) and code else None
    except SQLAlchemyError:
        return None  # the address stays: the next run tries again
    if joined is None:  # a mistyped or foreign address, or another session's token
        del st.query_params[ME_PARAM]
        return None
    me = {"code": code, "token": token, "label": joined.label}
    st.session_state[ME] = me
    st.session_state.pop(STUDENT_CACHE, None)
    return me


def _join() -> None:
    code = normalise_code(st.session_state.get("live-join-code", ""))
    nickname = st.session_state.get("live-join-nick", "")
    try:
        joined = svc().join(code, nickname)
    except LiveError as err:
        st.session_state["live-join-error"] = err.key
        return
    except SQLAlchemyError:
        st.session_state["live-join-error"] = "database"
        return
    st.session_state.pop("live-join-error", None)
    st.session_state[ME] = {"code": code, "token": joined.token, "label": joined.label}
    st.session_state.pop(STUDENT_CACHE, None)
    st.query_params["join"] = code
    st.query_params[ME_PARAM] = joined.token


def _leave() -> None:
    st.session_state.pop(ME, None)
    st.session_state.pop(STUDENT_CACHE, None)
    if ME_PARAM in st.query_params:
        del st.query_params[ME_PARAM]


def student_view() -> None:
    me = st.session_state.get(ME) or _restore()
    j = c["join"]
    if not me:
        layout.markdown(f"## {j['heading']}\n\n{j['body']}")  # under the page's h1
        code_from_link = normalise_code(st.query_params.get("join", ""))
        if code_from_link and "live-join-code" not in st.session_state:
            st.session_state["live-join-code"] = code_from_link
        with st.form("live-join-form", border=False):
            st.text_input(layout.label(j["code"]), key="live-join-code", max_chars=12,
                          placeholder=j["code_placeholder"])
            st.text_input(layout.label(j["nickname"]), key="live-join-nick",
                          max_chars=NICKNAME_MAX * 3, placeholder=j["nickname_placeholder"])
            st.form_submit_button(j["button"], on_click=_join, type="primary")
        problem = st.session_state.get("live-join-error")
        if problem:
            st.error(layout.label(error_text(problem)), icon=":material/block:")
        return
    st.success(layout.label(fill(j["joined"], {"code": Markup(f"`{me['code']}`"),
                                                 "name": me["label"]})))
    student_live(me["code"], me["token"])
    st.button(j["leave"], on_click=_leave, key="live-leave", icon=":material/logout:")


def _send(q: Question, code: str, token: str) -> None:
    key = f"live-ans-{q.id}"
    typed = st.session_state.get(key)
    cache = st.session_state.setdefault(STUDENT_CACHE, {})
    try:
        result = svc().answer(code, token, q.id, "" if typed is None else str(typed))
    except LiveError as err:
        cache["message"] = (q.id, "error", err.key, {})
        if err.key in ("question_closed", "question_unknown"):
            cache["sv"] = -1  # stale: the next draw re-reads the question
        return
    except SQLAlchemyError:
        cache["message"] = (q.id, "error", "database", {})
        return
    cache["mine"] = result.value
    shown = {"answer": option_label(q, result.value)}
    if result.previous is None:
        cache["message"] = (q.id, "success", "saved", shown)
    elif result.previous == result.value:
        cache["message"] = (q.id, "info", "unchanged", shown)
    else:
        cache["message"] = (q.id, "success", "changed",
                            {**shown, "before": option_label(q, result.previous)})


def refresh_student(code: str, token: str) -> dict | None:
    """The question this phone shows, re-read only when the session's state counter moved
    (one cached integer per poll otherwise)."""
    poll = svc().poll(code, max_age=STUDENT_POLL_MAX_AGE_S)
    cache = st.session_state.setdefault(STUDENT_CACHE, {})
    if poll is None or poll.status != "open":
        cache.update(sv=None, code=code, open=False)
        return None
    if cache.get("sv") != poll.state_version or cache.get("code") != code:
        q = svc().current_question(code)
        cache.update(sv=poll.state_version, code=code, q=q, open=True,
                     mine=svc().my_answer(q.id, token) if q else None)
    return cache


def student_every() -> float:
    """This phone's poll interval: the mean, spread by up to ±STUDENT_JITTER_S so phones that
    joined in the same second (the whole class scanning one QR code) drift apart."""
    if "live-every" not in st.session_state:
        st.session_state["live-every"] = round(STUDENT_EVERY_S + random.uniform(
            -STUDENT_JITTER_S, STUDENT_JITTER_S), 2)
    return float(st.session_state["live-every"])


def student_live(code: str, token: str) -> None:
    """The question box is its own timed fragment: a poll redraws only the box (a few small
    elements), so a pushed question reaches each phone in its next poll without rerunning
    the page, and what the box shows (the confirmation included) always comes from the
    stored state, never from a one-time event that a lost message could swallow."""
    st.fragment(run_every=student_every())(student_panel)(code, token)


@layout.friendly_errors("live.student")
def student_panel(code: str, token: str) -> None:
    with guarded("live.student"):
        cache = refresh_student(code, token)
        if cache is None:
            st.info(layout.label(error_text("session_closed")), icon=":material/event_busy:")
        else:
            student_question(cache, code, token)


def student_question(cache: dict, code: str, token: str) -> None:
    q: Question | None = cache.get("q")
    s = c["student"]
    if q is None:
        st.info(layout.label(s["waiting"]), icon=":material/hourglass_top:")
        return
    show_scenario(q.template, q.scenario,
                  heading=f"#### {prompt_text(q.template, q.scenario, q.measure)}")
    mine = cache.get("mine")
    if q.is_open:
        with st.form(f"live-form-{q.id}", border=True):
            if q.kind == "choice":
                values = [str(o["value"]) for o in q.options]
                st.radio(layout.label(s["answer"]), values, key=f"live-ans-{q.id}",
                         index=values.index(mine) if mine in values else None,
                         format_func=lambda v: option_label(q, v))
            else:
                st.text_input(layout.label(s["answer"]), key=f"live-ans-{q.id}", max_chars=64,
                              placeholder=s["placeholder"])
            # a fixed key: the label may change, the button (and a pending click) stays
            st.form_submit_button(s["change"] if mine else s["send"], type="primary",
                                  key=f"live-send-{q.id}",
                                  on_click=_send, args=(q, code, token))
    message = cache.get("message")
    message = message if message and message[0] == q.id else None
    if message:
        _, kind, key, values = message
        text = error_text(key) if kind == "error" else fill(s[key], values)
        {"error": st.error, "success": st.success, "info": st.info}[kind](layout.label(text))
    if mine is not None and (message is None or message[1] == "error"):
        st.success(layout.label(fill(s["yours"], {"answer": option_label(q, mine)})),
                   icon=":material/check:")
    if not q.is_open:
        st.info(layout.label(s["closed"]), icon=":material/lock:")
    if q.revealed:
        right = option_label(q, q.correct if q.kind == "choice" else logic.fmt(float(q.correct)))
        if mine is None:
            st.info(layout.label(fill(s["wrong"], {"answer": right}) + " " + s["none"]))
        else:
            got_it = _student_right(q, mine)
            (st.success if got_it else st.warning)(layout.label(
                fill(s["right" if got_it else "wrong"], {"answer": right})))


def _student_right(q: Question, mine: str) -> bool:
    if q.kind == "choice":
        return mine == q.correct
    try:
        return abs(float(mine) - float(q.correct)) <= q.tolerance + 1e-9
    except ValueError:
        return False


# --- instructor ---------------------------------------------------------------------------------


def _start() -> None:
    try:
        created = svc().create_session("live")
    except (LiveError, SQLAlchemyError):
        st.session_state["live-host-error"] = "database"
        return
    st.session_state[HOST] = {"code": created.code, "key": created.host_token}
    st.session_state.pop(PROJECTOR_CACHE, None)


def _resume() -> None:
    code = normalise_code(st.session_state.get("live-resume-code", ""))
    key = str(st.session_state.get("live-resume-key", "")).strip()[:64]
    try:
        status = svc().session_exists(code)
        ok = status is not None and svc().is_host(code, key)
    except SQLAlchemyError:
        st.session_state["live-host-error"] = "database"
        return
    if status is None:
        st.session_state["live-host-error"] = "unknown_session"
    elif status != "open":
        st.session_state["live-host-error"] = "session_closed"
    elif not ok:
        st.session_state["live-host-error"] = "not_host"
    else:
        st.session_state.pop("live-host-error", None)
        st.session_state[HOST] = {"code": code, "key": key}
        st.session_state.pop(PROJECTOR_CACHE, None)


def _end(code: str, key: str) -> None:
    with contextlib.suppress(LiveError, SQLAlchemyError):
        svc().close_session(code, key)
    st.session_state.pop(HOST, None)
    st.session_state.pop(PROJECTOR_CACHE, None)
    st.session_state["live-host-error"] = "ended"


def host_view() -> None:
    host = st.session_state.get(HOST)
    h = c["host"]
    problem = st.session_state.pop("live-host-error", None)
    if problem == "ended":
        st.info(layout.label(h["ended"]), icon=":material/event_busy:")
    elif problem:
        st.error(layout.label(error_text(problem)), icon=":material/block:")
    if not host:
        layout.markdown(f"## {h['heading']}\n\n{h['body']}")  # under the page's h1
        st.button(h["start"], on_click=_start, type="primary", key="live-start",
                  icon=":material/play_arrow:")
        with st.expander(layout.label(h["resume_heading"])):
            layout.markdown(h["resume_body"])
            with st.form("live-resume-form", border=False):
                st.text_input(layout.label(c["join"]["code"]), key="live-resume-code",
                              max_chars=12)
                st.text_input(layout.label(h["host_key"]), key="live-resume-key",
                              max_chars=64, type="password")
                st.form_submit_button(h["resume"], on_click=_resume)
        return
    code, key = host["code"], host["key"]
    if layout.is_presenting():  # the projector: code and QR beside the results
        left, right = st.columns([1, 2], gap="large")
        with left:
            join_panel(code, key)
        with right:
            projector(code, key)
        with st.expander(layout.label(c["compose"]["heading"])):
            composer(code, key)
    else:
        left, right = st.columns([2, 3], gap="large")
        with left:
            join_panel(code, key)
            composer(code, key)
        with right:
            projector(code, key)
    st.button(h["end"], on_click=_end, args=(code, key), key="live-end",
              icon=":material/stop_circle:")


def join_link(code: str) -> str:
    try:
        base = st.context.url or ""
    except Exception:  # AppTest has no browser address
        base = ""
    if not base:
        return ""
    lang = "" if current_lang() == "ar" else f"&lang={current_lang()}"
    return f"{base}?join={code}{lang}"


def join_panel(code: str, key: str) -> None:
    lang = current_lang()
    link = join_link(code)
    qr = share.qr_svg(link, scale=6) if link else ""
    st.markdown(
        f'<div class="mz-live-join" dir="{direction(lang)}" lang="{lang}">'
        f'<p class="mz-small">{bidi.escape_html(c["host"]["code_caption"])}</p>'
        f'<div class="mz-live-code" dir="ltr">{bidi.escape_html(code)}</div>'
        + (f'<figure class="mz-qr">{qr}</figure>'
           f'<p class="mz-small mz-live-link" dir="ltr">{bidi.escape_html(link)}</p>'
           if qr else "")
        + "</div>", unsafe_allow_html=True)
    with st.expander(layout.label(c["host"]["host_key"]), icon=":material/key:"):
        layout.markdown(fill(c["host"]["key_note"], {"key": Markup(f"`{key}`")}))


# --- composing a question -----------------------------------------------------------------------


def _custom_scenario() -> logic.Scenario | None:
    cp = c["compose"]
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
    """A scenario's name in the composer, with the number the catalogue gives its lesson."""
    folder = logic.SCENARIO_LESSONS.get(key)
    number = catalog.number_of(folder) if folder else None
    return fill(c["compose"]["scenarios"][key], {"lesson": number or ""})


def composer(code: str, key: str) -> None:
    cp = c["compose"]
    layout.markdown(f"#### {cp['heading']}")
    template = st.selectbox(layout.label(cp["template"]), logic.TEMPLATES, key="live-template",
                            format_func=lambda t: cp["templates"][t])
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
            st.warning(layout.label(error_text("bad_question")))
            return
        cols = st.columns(2)
        i = cols[0].number_input(layout.label(cp["swap_i"]), 1, n, value=min(2, n - 1),
                                 key="live-swap-i")
        j = cols[1].number_input(layout.label(cp["swap_j"]), 1, n, value=n, key="live-swap-j")
        swap = (min(i, j), max(i, j))
    if measures.family(measure) == "graded" and max(sc.qrels.values(), default=0) <= 1:
        st.info(layout.label(cp["ndcg_needs_grades"]), icon=":material/info:")
    try:
        spec = logic.build(template, sc, measure, swap)
    except (ValueError, KeyError, ZeroDivisionError):
        st.warning(layout.label(error_text("bad_question")), icon=":material/warning:")
        return
    with st.expander(layout.label(cp["preview"])):
        layout.markdown(f"#### {prompt_text(spec.template, dict(spec.scenario), spec.measure)}")
        show_scenario(spec.template, dict(spec.scenario))
    if st.button(cp["push"], type="primary", key="live-push", icon=":material/send:"):
        with guarded("live.push"):
            svc().push_question(code, key, spec)
            q = svc().current_question(code)
            st.session_state.pop(PROJECTOR_CACHE, None)
            st.success(layout.label(fill(cp["pushed"], {"n": q.position if q else 1})))


# --- the projector ------------------------------------------------------------------------------


def _act(action: str, code: str, key: str, qid: int) -> None:
    try:
        getattr(svc(), action)(code, key, qid)
    except LiveError as err:
        st.session_state["live-projector-error"] = err.key
    except SQLAlchemyError:
        st.session_state["live-projector-error"] = "database"


@st.fragment(run_every=PROJECTOR_EVERY_S)
@layout.friendly_errors("live.projector")
def projector(code: str, key: str) -> None:
    with guarded("live.projector"):
        poll = svc().poll(code)
        if poll is None or poll.status != "open":
            st.info(layout.label(c["host"]["ended"]), icon=":material/event_busy:")
            return
        cache = st.session_state.setdefault(PROJECTOR_CACHE, {})
        if cache.get("version") != poll.version:  # something changed: query the rest once
            q = svc().question(poll.question_id) if poll.question_id else None
            cache.update(version=poll.version, question=q,
                         tally=svc().tally(q.id) if q else None,
                         roster=svc().roster(code, 40))
        draw_projector(cache, code, key)


def draw_projector(cache: dict, code: str, key: str) -> None:
    s = c["screen"]
    q: Question | None = cache["question"]
    tally = cache["tally"]
    joined, names = cache["roster"]
    problem = st.session_state.pop("live-projector-error", None)
    if problem:
        st.error(layout.label(error_text(problem)), icon=":material/block:")
    if q is None:
        st.info(layout.label(s["waiting"]), icon=":material/hourglass_top:")
        roster(names)
        return
    layout.markdown(f"#### {prompt_text(q.template, q.scenario, q.measure)}")
    layout.markdown("### " + fill(s["answered"], {"answered": tally.answered,
                                                  "participants": tally.participants}))
    if tally.answered:
        labels = {str(o["value"]): option_label(q, str(o["value"])) for o in q.options}
        st.vega_lite_chart(logic.distribution_chart(
            tally, {"answer": s["chart_answer"], "count": s["chart_count"]},
            revealed=q.revealed, option_labels=labels), width="stretch")
    else:
        st.caption(layout.label(s["no_answers"]))
    st.caption(layout.label(s["open"] if q.is_open else s["closed"]))
    row = st.container(horizontal=True)
    if q.is_open:
        row.button(s["close"], key="live-close", icon=":material/lock:",
                   on_click=_act, args=("close_question", code, key, q.id))
    if not q.revealed:
        row.button(s["reveal"], key="live-reveal", icon=":material/visibility:",
                   type="primary", on_click=_act, args=("reveal", code, key, q.id))
    row.download_button(
        s["export"], data=lambda: svc().export_csv(code, key).encode("utf-8-sig"),
        file_name=f"mizan-live-{code}.csv", mime="text/csv", on_click="ignore",
        key="live-export", icon=":material/download:")
    if q.revealed:
        reveal_panel(q, tally)
    with st.expander(layout.label(c["screen"]["ranking"])):
        show_scenario(q.template, q.scenario)
    roster(names, joined)


def reveal_panel(q: Question, tally) -> None:
    s = c["screen"]
    labels = {str(o["value"]): option_label(q, str(o["value"])) for o in q.options}
    share_txt = Markup(bidi.ltr(f"{round(100 * logic.share_of_correct(tally))}%"))
    st.success(layout.label(fill(s["right_answer"], {
        "answer": labels.get(tally.correct, tally.correct), "share": share_txt})),
        icon=":material/check_circle:")
    if tally.top_wrong is None:
        st.info(layout.label(s["no_wrong"]))
        return
    text = fill(s["top_wrong"], {"answer": labels.get(tally.top_wrong, tally.top_wrong),
                                 "n": tally.top_wrong_count})
    misconception = mistakes.text(tally.mistake, "misconception") if tally.mistake else None
    if misconception:
        text += "\n\n" + misconception
    st.warning(layout.label(text), icon=":material/psychology_alt:")


def roster(names: list[str], joined: int | None = None) -> None:
    """Who joined, newest first: typed nicknames, escaped and in their own direction."""
    if not names:
        return
    s = c["screen"]
    layout.markdown(fill(s["joined"], {"n": joined if joined is not None else len(names)}))
    chips = "".join(f"<li>{bidi.user_text_html(name)}</li>" for name in names)
    st.html(f'<ul class="mz-live-roster" dir="{direction()}" lang="{current_lang()}">'
            f"{chips}</ul>")


# --- page ---------------------------------------------------------------------------------------


@layout.friendly_errors("live.page")
def main() -> None:
    layout.lesson_css("live")
    layout.lesson_header(c)
    r = c["role"]
    if "live-role" not in st.session_state:
        st.session_state["live-role"] = ("instructor" if HOST in st.session_state
                                         and "join" not in st.query_params else "student")
    role = st.segmented_control(layout.label(r["label"]), ["student", "instructor"],
                                key="live-role", required=True,
                                format_func=lambda v: r[v])
    if role == "instructor":
        host_view()
    else:
        student_view()


main()
