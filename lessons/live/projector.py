"""What the room sees: the join panel (code, QR code, link) and the projector — the question,
the live answer count, the reveal and its controls, the ranking the question is about (with
every value needed to answer), the spread of answers, who joined.

The projector is a timed fragment (``EVERY_S``): it reads one integer (``service.poll``) and
queries the rest only when it moved; when the database is away it keeps drawing the last
state it had, under a banner. Nothing here draws the instructor key."""

from __future__ import annotations

import logging

import streamlit as st
from sqlalchemy.exc import SQLAlchemyError

from lessons.live import kept, logic, screen, texts
from lessons.live.texts import option_label
from live.errors import DatabaseUnavailable, LiveError
from live.service import Question, service
from teaching import mistakes
from text import bidi
from text.i18n import Markup, current_lang, direction, fill, fmt_num
from ui import layout, share

CACHE = "live-projector"
ERROR = "live-projector-error"
EVERY_S = 1.0       # one browser: poll often
CHART_HEIGHT = 220
QR_SCALE = 5
_LOG = logging.getLogger(__name__)


# --- the join panel -----------------------------------------------------------------------------


def page_url() -> str:
    try:
        return st.context.url or ""
    except Exception:  # AppTest has no browser address
        return ""


def join_panel(code: str) -> None:
    """Code, QR code and the link, for the room; a warning when the only address known is
    this machine's own (a phone cannot open ``localhost``)."""
    lang = current_lang()
    link = logic.join_link(page_url(), code, lang, logic.network_address())
    qr = share.qr_svg(link.url, scale=QR_SCALE) if link.url else ""
    st.markdown(
        f'<div class="mz-live-join" dir="{direction(lang)}" lang="{lang}">'
        f'<p class="mz-small">{bidi.escape_html(texts.c()["host"]["code_caption"])}</p>'
        f'<div class="mz-live-code" dir="ltr">{bidi.escape_html(code)}</div>'
        + (f'<figure class="mz-qr">{qr}</figure>'
           f'<p class="mz-small mz-live-link" dir="ltr">{bidi.escape_html(link.url)}</p>'
           if qr else "")
        + "</div>", unsafe_allow_html=True)
    if link.only_localhost:
        st.warning(layout.label(texts.c()["host"]["only_localhost"]), icon=":material/wifi_off:")


# --- the projector ------------------------------------------------------------------------------


def act(action: str, code: str, key: str, qid: int) -> None:
    """Close or reveal (a button's callback): a refusal is shown on the next draw."""
    try:
        getattr(service(), action)(code, key, qid)
    except LiveError as err:
        st.session_state[ERROR] = err.key
    except SQLAlchemyError:
        _LOG.exception("database error in live.%s", action)
        st.session_state[ERROR] = "database"


def refresh(cache: dict, code: str) -> None:
    svc = service()
    poll = svc.poll(code)
    if poll is None or poll.status != "open":
        cache.update(ended=True)
        return
    if cache.get("version") != poll.version:  # something changed: query the rest once
        q = svc.question(poll.question_id) if poll.question_id else None
        cache.update(version=poll.version, question=q, tally=svc.tally(q.id) if q else None,
                     roster=svc.roster(code, 40), locked=poll.joining_locked, ended=False)


@st.fragment(run_every=EVERY_S)
@layout.friendly_errors("live.projector")
def projector(code: str, key: str) -> None:
    cache = st.session_state.setdefault(CACHE, {})
    down = False
    try:
        refresh(cache, code)
    except SQLAlchemyError as err:
        if not isinstance(err, DatabaseUnavailable):
            _LOG.exception("database error in live.projector")
        down = True
    draw(cache, code, key, down=down)
    if kept.get(kept.HOST).needs_run(hand_over=not layout.is_presenting()):
        st.rerun(scope="app")  # the browser's copy of the key is written in full runs


def draw(cache: dict, code: str, key: str, *, down: bool = False) -> None:
    c = texts.c()
    s = c["screen"]
    if down:
        st.warning(layout.label(texts.ui("database_down")), icon=":material/cloud_off:")
    problem = st.session_state.pop(ERROR, None)
    if problem:
        st.error(layout.label(texts.error(problem)), icon=":material/block:")
    if cache.get("ended"):
        st.info(layout.label(c["host"]["ended"]), icon=":material/event_busy:")
        return
    if "roster" not in cache:   # nothing read yet (the database away from the start)
        return
    if cache.get("locked"):
        st.info(layout.label(texts.ui("joining_locked")), icon=":material/lock_person:")
    q: Question | None = cache["question"]
    tally = cache["tally"]
    joined, names = cache["roster"]
    if q is None:
        st.info(layout.label(s["waiting"]), icon=":material/hourglass_top:")
        roster(names, joined)
        return
    # the count, the state and the two buttons first: the first screen of the projector
    count = fill(s["answered"], {"answered": tally.answered,
                                 "participants": tally.participants})
    layout.markdown(f"{texts.prompt(q.template, q.scenario, q.measure)}\n\n### {count}")
    st.caption(layout.label(s["open"] if q.is_open else s["closed"]))
    controls(q, code, key)
    if q.revealed:
        reveal_panel(q, tally)
    if tally.answered:
        labels = {str(o["value"]): option_label(q, str(o["value"])) for o in q.options}
        spec = logic.distribution_chart(
            tally, {"answer": s["chart_answer"], "count": s["chart_count"]},
            revealed=q.revealed, option_labels=labels)
        st.vega_lite_chart({**spec, "height": CHART_HEIGHT}, width="stretch")
    else:
        st.caption(layout.label(s["no_answers"]))
    screen.scenario(q.template, q.scenario, q.measure)   # open, with every value it needs
    roster(names, joined)


def controls(q: Question, code: str, key: str) -> None:
    """Reveal and close, right under the count."""
    s = texts.c()["screen"]
    row = st.container(horizontal=True)
    if not q.revealed:
        row.button(s["reveal"], key="live-reveal", icon=":material/visibility:",
                   type="primary", on_click=act, args=("reveal", code, key, q.id))
    if q.is_open:
        row.button(s["close"], key="live-close", icon=":material/lock:",
                   on_click=act, args=("close_question", code, key, q.id))


def export_button(code: str, key: str) -> None:
    st.download_button(
        texts.c()["screen"]["export"],
        data=lambda: service().export_csv(code, key).encode("utf-8-sig"),
        file_name=f"mizan-live-{code}.csv", mime="text/csv", on_click="ignore",
        key="live-export", icon=":material/download:")


def reveal_panel(q: Question, tally) -> None:
    s = texts.c()["screen"]
    labels = {str(o["value"]): option_label(q, str(o["value"])) for o in q.options}
    # "60 %" as every other share on the pages, in the page's digits
    share_txt = Markup(bidi.ltr(f"{fmt_num(round(100 * logic.share_of_correct(tally)))} %"))
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


def roster(names: list[str], joined: int) -> None:
    """Who joined, newest first: typed nicknames, escaped and in their own direction."""
    if not names:
        return
    layout.markdown(fill(texts.c()["screen"]["joined"], {"n": joined}))
    chips = "".join(f"<li>{bidi.user_text_html(name)}</li>" for name in names)
    st.html(f'<ul class="mz-live-roster" dir="{direction()}" lang="{current_lang()}">'
            f"{chips}</ul>")
