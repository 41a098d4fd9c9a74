"""The practice hub (/practice): generated exercises, predict-then-reveal, review cards with a
Leitner schedule, myth or fact, a mixed quiz from every lesson, the progress view, and the
learner's data (export, import, forget).

Progress lives in session state (``local_store``) and is written to the browser's
``localStorage`` by ``local_store.persist()`` at the very end of each run, so it stores what
this run recorded. No fragments here: every interaction records progress, and the store
must see it in the same run.
"""

from __future__ import annotations

import random
import time

import streamlit as st

from lessons.practice import logic
from runtime import local_store, state
from teaching import progress as pg
from teaching.exercises import MAX_SEED, PRACTICE_METRICS, generate, predict_exercise
from teaching.exercises import texts as exercise_texts
from text.i18n import Markup, current_lang, fill, load_content
from ui import exercise_panel, layout
from ui.quiz import quiz_item

FOLDER = "practice"
FIELDS = exercise_panel.PRACTICE_FIELDS
TABLE_METRICS = (*PRACTICE_METRICS, "predict")

c = load_content(FOLDER)
lang = current_lang()
names = exercise_texts(lang)["names"]      # each measure's name, from teaching


def now() -> int:
    return int(time.time())


def today():
    try:
        zone = st.context.timezone
    except Exception:  # no browser (AppTest)
        zone = None
    return logic.today(zone)


def lesson_title(folder: str) -> Markup:
    """A lesson's short title (trusted content: inserted as Markdown, not escaped)."""
    lesson = load_content(folder, lang)
    return Markup(lesson.get("nav_title") or lesson.get("title", folder))


def note(text: str, values: dict | None = None) -> None:
    """A small line of text in the page's direction (Latin runs isolated, digits localized)."""
    st.markdown(layout.prose_html(text, values, cls="mz-prose mz-small"), unsafe_allow_html=True)


def record(update) -> None:
    """Apply ``update(progress) -> progress`` to this session's progress."""
    local_store.save(update(local_store.current()))


# --- storage note ---------------------------------------------------------------------------


def storage_note() -> None:
    """A warning when progress cannot be kept in this browser. Always one element (an empty
    slot when all is well), so a note appearing never shifts the widgets below it."""
    words = c["data"]["labels"]
    s = local_store.store()
    slot = st.empty()
    if s.status == "unavailable":
        slot.warning(layout.label(words["unavailable"]), icon=":material/no_encryption:")
    elif s.write_failed:
        slot.warning(layout.label(words["write_failed"]), icon=":material/save:")
    elif s.status == "refused":
        reason = c["data"]["stored_errors"].get(s.error, s.error)
        slot.warning(layout.label(fill(words["refused"], {"reason": Markup(reason)})),
                   icon=":material/warning:")


# --- exercises -----------------------------------------------------------------------------


def _practise_next(s: state.UrlState) -> None:
    metric = pg.next_metric(local_store.current(), PRACTICE_METRICS)
    st.session_state[s.key("m")] = metric  # the select box shows the new choice
    s.set(m=metric)
    state.new_seed(s, "s")


def _streak_line(metric: str) -> None:
    stats = local_store.current().exercises.get(metric)
    if stats is None:
        return
    words = c["exercise"]["labels"]
    text = words["mastered"] if stats.mastered else words["streak"]
    note(text, {"name": Markup(names[metric]), "streak": stats.streak})


@layout.friendly_errors("practice.exercise")
def exercises(s: state.UrlState) -> None:
    words = c["exercise"]["labels"]
    panel = exercise_texts(lang)["labels"]
    shown = exercise_panel.measure_names(PRACTICE_METRICS)
    # One row that wraps (columns would stack into three rows on a phone).
    with st.container(horizontal=True, vertical_alignment="bottom", key="px-pick"):
        chosen = st.selectbox(panel["metric"], PRACTICE_METRICS,
                              index=PRACTICE_METRICS.index(s["m"]),
                              format_func=shown.__getitem__, key=s.key("m"))
        s.set(m=chosen)
        layout.new_exercise_button(s, panel["new"], key="px-new", field="s", width="content")
        st.button(words["next"], on_click=_practise_next, args=(s,), help=words["next_help"],
                  icon=":material/trending_up:", key="px-next", width="content")
    ex = generate(s["m"], s["s"], lang=lang)
    with st.container(border=True, key="px-box"):
        attempt = exercise_panel.show(ex, key=f"px-{ex.metric}-{ex.seed}")
    exercise_panel.record(ex, attempt)
    _streak_line(ex.metric)
    note(words["link"])


@layout.friendly_errors("practice.predict")
def predict(s: state.UrlState) -> None:
    ex = predict_exercise(s["p"])
    with st.container(border=True, key="pp-box"):
        attempt = exercise_panel.show(ex, key=f"pp-{ex.seed}")
    exercise_panel.record(ex, attempt)
    layout.new_exercise_button(s, c["predict"]["labels"]["new"], key="pp-new", field="p")


# --- review cards ----------------------------------------------------------------------------

_CARD_SHOWN = "pc-shown"


def _review(card_id: str, grade: str) -> None:
    day = today()
    record(lambda p: pg.review_card(p, card_id, grade, day, now())[0])
    st.session_state.pop(_CARD_SHOWN, None)


@layout.friendly_errors("practice.cards")
def review_cards() -> None:
    words = c["cards"]["labels"]
    deck = {card.id: card for card in logic.cards(lang)}
    p = local_store.current()
    due = pg.due_cards(p, list(deck), today())
    if not due:
        upcoming = min((p.cards[i].due for i in deck if i in p.cards), default="")
        st.info(layout.label(fill(words["none_due"], {"day": upcoming})),
                icon=":material/event_available:")
        return
    new = sum(1 for i in due if i not in p.cards)
    layout.markdown(fill(words["due"], {"due": len(due), "new": new}))
    card = deck[due[0]]
    state_now = p.cards.get(card.id)
    with st.container(border=True, key="pc-card"):
        tag = fill(words["from_lesson"], {"lesson": lesson_title(card.folder)})
        if state_now is not None:
            tag += " · " + fill(words["box"], {"box": state_now.box})
        note(tag)
        layout.markdown(f"### {card.front}")
        if st.session_state.get(_CARD_SHOWN) != card.id:
            st.button(words["show"], key="pc-show", icon=":material/flip:",
                      on_click=st.session_state.__setitem__, args=(_CARD_SHOWN, card.id))
            return
        layout.markdown(card.back)
        cols = st.columns(3)
        for col, grade, icon in zip(cols, pg.GRADES, (":material/replay:", ":material/timer:",
                                                      ":material/check:"), strict=True):
            col.button(words[grade], key=f"pc-{grade}", help=words[f"{grade}_help"], icon=icon,
                       on_click=_review, args=(card.id, grade), width="stretch")


# --- myths -------------------------------------------------------------------------------------

_MYTH_NOW = "pm-current"
_MYTH_ANSWERED = "pm-answered"


def _answer_myth(myth_id: str, knew: bool) -> None:
    record(lambda p: pg.record_myth(p, myth_id, knew, now()))
    st.session_state[_MYTH_ANSWERED] = myth_id


def _next_myth() -> None:
    st.session_state.pop(_MYTH_NOW, None)
    st.session_state.pop(_MYTH_ANSWERED, None)


@layout.friendly_errors("practice.myths")
def myth_deck() -> None:
    words = c["myths"]["labels"]
    deck = logic.myths(lang)
    by_id = {m.id: m for m in deck}
    p = local_store.current()
    if st.session_state.get(_MYTH_NOW) not in by_id:
        # Never seen first (in lesson order), then the ones believed most, oldest first.
        def rank(m: logic.Myth):
            stats = p.myths.get(m.id)
            return (0, 0, 0) if stats is None else (1, stats.right / stats.seen, stats.last)
        st.session_state[_MYTH_NOW] = min(deck, key=rank).id
    myth = by_id[st.session_state[_MYTH_NOW]]
    seen = [m for m in deck if m.id in p.myths]
    knew = sum(1 for m in seen if p.myths[m.id].right)
    layout.markdown(fill(words["seen"], {"seen": len(seen), "total": len(deck), "knew": knew}))
    if len(seen) == len(deck):
        note(words["all_seen"])
    with st.container(border=True, key="pm-card"):
        note(words["claim"] + " · " + lesson_title(myth.folder))
        layout.markdown(f"**{myth.myth}**")
        if st.session_state.get(_MYTH_ANSWERED) != myth.id:
            cols = st.columns(2)
            cols[0].button(words["believed"], key="pm-believed", width="stretch",
                           on_click=_answer_myth, args=(myth.id, False))
            cols[1].button(words["knew"], key="pm-knew", width="stretch",
                           on_click=_answer_myth, args=(myth.id, True))
            return
        layout.markdown(f"✓ {myth.fact}")
        st.button(words["next"], key="pm-next", icon=layout.next_icon(), on_click=_next_myth)


# --- mixed quiz ---------------------------------------------------------------------------------

_QUIZ_ROUND = "pq-round"


def _record_quiz(item_id: str, answer: str, right: bool) -> None:
    record(lambda p: pg.record_quiz(p, item_id, answer, right, now()))


def _new_round(ids: list[str]) -> None:
    st.session_state[_QUIZ_ROUND] = logic.quiz_round(local_store.current(), ids,
                                                     random.randrange(MAX_SEED))


@layout.friendly_errors("practice.quiz")
def mixed_quiz() -> None:
    words = c["quiz"]["labels"]
    pool = logic.quiz_pool(lang)
    items = {item["id"]: (folder, item) for folder, item in pool}
    ids = list(items)
    if not all(i in items for i in st.session_state.get(_QUIZ_ROUND, [None])):
        _new_round(ids)
    p = local_store.current()
    known = [i for i in ids if i in p.quiz]
    layout.markdown(fill(words["score" if known else "score_none"], {
        "right": sum(p.quiz[i].right for i in known), "answered": len(known), "total": len(ids)}))
    for number, item_id in enumerate(st.session_state[_QUIZ_ROUND], start=1):
        folder, item = items[item_id]
        note(words["from_lesson"], {"lesson": lesson_title(folder)})
        quiz_item(item, number, key=f"mz-pq-{item_id}", on_answer=_record_quiz)
    st.button(words["new_round"], on_click=_new_round, args=(ids,), icon=":material/refresh:",
              key="pq-new")


# --- progress view ------------------------------------------------------------------------------


@layout.friendly_errors("practice.progress")
def progress_view() -> None:
    words = c["progress"]["labels"]
    p = local_store.current()
    quiz_ids = [item["id"] for _, item in logic.quiz_pool(lang)]
    card_ids = [card.id for card in logic.cards(lang)]
    myth_ids = [m.id for m in logic.myths(lang)]
    s = pg.summary(p, PRACTICE_METRICS, quiz_ids, card_ids, myth_ids, today())
    layout.metric_row([
        (words["mastered_count"], f"{s.metrics_mastered} / {s.metrics_total}"),
        (words["quiz_score"], f"{s.quiz_right} / {s.quiz_answered}"),
        (words["cards_due"], str(s.cards_due + s.cards_new)),
        (words["myths_seen"], f"{s.myths_seen} / {s.myths_total}"),
    ])
    layout.markdown(f"**{words['next_heading']}**")
    lines = []
    wrong_quiz = s.quiz_answered - s.quiz_right   # all of them, not the few the list keeps
    for kind, value in s.review_next:
        if kind == "metric":
            lines.append(fill(words["next_metric"], {"name": logic_name(value)}))
        elif kind == "cards":
            lines.append(fill(words["next_cards"], {"n": int(value)}))
    if wrong_quiz:
        lines.append(fill(words["next_quiz"], {"n": wrong_quiz}))
    layout.markdown("\n".join(f"- {line}" for line in lines) if lines else words["nothing"])
    layout.markdown(logic.mastery_table(p, TABLE_METRICS, names, words))


def logic_name(metric: str) -> Markup:
    return Markup(names.get(metric, metric))


# --- your data ----------------------------------------------------------------------------------

_FORGET = "pd-forget"
_IMPORTED = "pd-imported"  # {file_id: ("ok", counts) | ("error", key)}


def _forget() -> None:
    local_store.save(pg.forget(now()))
    for key in (_FORGET, _QUIZ_ROUND, _CARD_SHOWN, _MYTH_NOW, _MYTH_ANSWERED):
        st.session_state.pop(key, None)
    for key in [k for k in st.session_state if str(k).startswith("mz-pq-")
                and str(k).endswith(("-checked", "-reported"))]:
        del st.session_state[key]  # the quiz verdicts on screen go with the progress
    st.session_state["pd-forgotten"] = True


def _import(upload) -> tuple[str, object]:
    if upload.size > pg.MAX_BYTES:
        return "error", "too_large"
    try:
        incoming = pg.from_json(upload.getvalue())
    except pg.ProgressError as err:
        return "error", err.key
    changes = pg.merge_changes(local_store.current(), incoming)
    record(lambda p: pg.merge(p, incoming))
    return "ok", changes


def _on_upload() -> None:
    """Import before the script runs, so the whole page shows the merged progress."""
    upload = st.session_state.get("pd-import")
    if upload is not None:
        done = st.session_state.setdefault(_IMPORTED, {})
        if upload.file_id not in done:  # each uploaded file is imported once
            done[upload.file_id] = _import(upload)


@layout.friendly_errors("practice.data")
def your_data() -> None:
    words = c["data"]["labels"]
    p = local_store.current()
    st.download_button(words["export"], data=pg.to_json(p, saved_at=now()),
                       file_name=f"mizan-progress-{today().isoformat()}.json",
                       mime="application/json", icon=":material/download:", key="pd-export")
    upload = st.file_uploader(words["import"], type=["json"], key="pd-import",
                              max_upload_size=1, on_change=_on_upload)
    note(words["import_help"])              # under the box: a tooltip never opens on a phone
    if upload is not None:
        _on_upload()  # no-op when the callback already imported this file
        verdict, detail = st.session_state[_IMPORTED][upload.file_id]
        if verdict == "ok":
            key = "imported" if any(detail.values()) else "imported_nothing"
            st.success(layout.label(fill(words[key], detail)), icon=":material/upload_file:")
        else:
            st.error(layout.label(c["data"]["errors"][detail]), icon=":material/block:")
    if st.session_state.pop("pd-forgotten", False):
        st.success(layout.label(words["forgotten"]))
    if not st.session_state.get(_FORGET):
        st.button(words["forget"], icon=":material/delete_forever:", key="pd-forget-ask",
                  on_click=st.session_state.__setitem__, args=(_FORGET, True))
        return
    st.warning(layout.label(words["forget_confirm"]), icon=":material/warning:")
    cols = st.columns(2)
    cols[0].button(words["forget_yes"], type="primary", key="pd-forget-yes", on_click=_forget,
                   width="stretch")
    cols[1].button(words["cancel"], key="pd-forget-no", width="stretch",
                   on_click=st.session_state.pop, args=(_FORGET, None))


# --- the page -----------------------------------------------------------------------------------

slot = st.container()  # the store is mounted here last, once this run recorded everything
url = state.url_state(FOLDER, FIELDS)
# The exercises first: the page opens on something to do; how practice works comes after.
SECTIONS = ("exercise", "predict", "cards", "myths", "quiz", "core_idea", "progress", "data")
layout.lesson_header(c, sections=SECTIONS)
storage_note()
with layout.section(c, "exercise"):
    exercises(url)
with layout.section(c, "predict"):
    predict(url)
with layout.section(c, "cards"):
    review_cards()
with layout.section(c, "myths"):
    myth_deck()
with layout.section(c, "quiz"):
    mixed_quiz()
layout.section(c, "core_idea")
with layout.section(c, "progress", body=False):
    progress_view()
with layout.section(c, "data"):
    your_data()
with slot:
    local_store.persist()
