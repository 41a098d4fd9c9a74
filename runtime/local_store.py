"""Progress kept in the browser's ``localStorage``: no account, survives a reload and a
browser restart on the same device.

Two layers:

* :func:`local_store` — a tiny ``st.components.v2`` component (JS in ``local_store/``) that
  draws nothing. When it mounts it **reads** the stored text and sends it to Python (a
  ``loaded`` trigger: ``{"status": "ok"|"empty"|"unavailable", "text"}``); it **writes**
  the text Python passes whenever Python's ``rev`` goes up. It never writes the revision
  it was mounted with, and Python sends no text at all before something was read, so the
  first render can never wipe saved progress. It also reports changes made by another tab
  of the same browser (the ``storage`` event).
* the progress session (:func:`current`, :func:`save`, :func:`persist`): the
  :class:`~teaching.progress.Progress` lives in ``st.session_state`` once loaded.
  What the browser had is *merged* with what this session already did (newest record
  wins, see ``progress.merge``), so an answer given in the first second is never lost.
  Exception: a "forget my progress" newer than this session's progress (made in another
  tab) replaces it instead. A stored value that cannot be read (damaged, or written by a
  newer Mizan) is never silently overwritten: it is copied to ``<key>.unreadable`` before
  the first write.

Page usage (``persist`` last, so it writes what this run recorded)::

    p = local_store.current()                   # Progress (empty until loaded)
    local_store.save(progress.record_quiz(p, ...))   # in callbacks or in the script
    ...
    local_store.persist()                       # at the very end of the page

Under ``AppTest`` components do not run: the page works on session progress only.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import streamlit as st

from teaching import progress as pg

__all__ = ["STORAGE_KEY", "Store", "begin_run", "current", "local_store", "persist",
           "record_quiz", "save", "session_key", "store"]

STORAGE_KEY = "mizan.progress.v1"
_STATE = "_mz_progress_store"
_PERSISTED = "_mz_progress_persisted"  # set when persist() ran in this script run
_WIDGET = "mz-local-store"   # + this session's nonce (see _widget)
_NONCE = "_mz_store_nonce"
_ASSETS = Path(__file__).with_name("local_store")

_COMPONENT = st.components.v2.component(
    "mizan.local_store",
    html='<div class="ls-root" hidden></div>',
    js=(_ASSETS / "local_store.js").read_text(encoding="utf-8"),
)


def local_store(storage_key: str, text: str | None, rev: int, *, key: str,
                backup: bool = False, on_loaded=None, on_write_failed=None) -> Any:
    """Mount the component (see the module doc). ``text=None``: write nothing."""
    return _COMPONENT(
        key=key,
        data={"storage_key": storage_key, "rev": rev, "text": text, "backup": backup},
        on_loaded_change=on_loaded or (lambda: None),
        on_write_failed_change=on_write_failed or (lambda: None),
        width="stretch",
        height=0,
    )


@dataclass
class Store:
    progress: pg.Progress = field(default_factory=pg.Progress)
    status: str = "pending"  # pending | ok | empty | unavailable | refused
    error: str = ""  # ProgressError key of a refused stored value
    rev: int = 0  # goes up whenever the text to store changes
    text: str | None = None  # the JSON last handed to the browser
    write_failed: bool = False
    loads: int = 0  # values received from the browser (tests, diagnostics)

    @property
    def loaded(self) -> bool:
        return self.status != "pending"

    @property
    def saving(self) -> bool:
        """True when progress is being kept in this browser."""
        return self.status in ("ok", "empty", "refused") and not self.write_failed


def store() -> Store:
    if _STATE not in st.session_state:
        st.session_state[_STATE] = Store()
    return st.session_state[_STATE]


def current() -> pg.Progress:
    return store().progress


def save(new: pg.Progress) -> None:
    """Replace this session's progress (written to the browser by :func:`persist`)."""
    store().progress = new


def _text(p: pg.Progress) -> str:
    # saved_at is derived from the records, so the same progress is always the same text
    # (another tab writing the same value fires no storage event: no ping-pong).
    latest = max([p.forgotten_at, *(r.last for sec in (p.exercises, p.quiz, p.cards, p.myths)
                                     for r in sec.values())])
    return pg.to_json(p, saved_at=latest)


def receive(s: Store, status: str, text: str) -> None:
    """What the browser read (the component's ``loaded`` trigger; tests call it directly).

    The browser's value is merged into this session's progress; if the result differs from
    what the browser holds, the next :func:`persist` writes it (a new revision)."""
    s.loads += 1
    if status == "unavailable":
        s.status = "unavailable"
        return
    if status == "empty" or not text:
        s.status = "empty" if s.status == "pending" else s.status
        s.text = None
        return
    try:
        stored = pg.from_json(text)
    except pg.ProgressError as err:
        s.status, s.error = "refused", err.key
        s.text = None
        return
    s.status, s.error = "ok", ""
    if stored.forgotten_at > s.progress.forgotten_at:
        # "Forget my progress" was chosen (in another tab) after this session began: what
        # this session still holds must not come back.
        s.progress = stored
    else:
        s.progress = pg.merge(stored, s.progress)
    if _text(s.progress) != text:
        s.text = None


def session_key(base: str) -> str:
    """An element key for the bridge, new in every session: after a reconnect to another
    process (one hung, died or restarted) the browser would keep an element with the old
    session's key, which had read already — the new session would never learn what the
    browser holds. Every user of :func:`local_store` keys its element with this."""
    if _NONCE not in st.session_state:
        st.session_state[_NONCE] = secrets.token_hex(4)
    return f"{base}-{st.session_state[_NONCE]}"


def _widget() -> str:
    return session_key(_WIDGET)


def _on_loaded() -> None:
    value = st.session_state.get(_widget())
    event = value.get("loaded") if isinstance(value, Mapping) else None
    if isinstance(event, dict) and event.get("status") in ("ok", "empty", "unavailable"):
        text = event.get("text")
        receive(store(), event["status"], text if isinstance(text, str) else "")


def _on_write_failed() -> None:
    store().write_failed = True


def record_quiz(item_id: str, answer: str, right: bool) -> None:
    """A lesson quiz answer, kept in this session's progress (saved at the end of the run)."""
    save(pg.record_quiz(current(), item_id, answer, right, int(time.time())))


def _unsaved(s: Store) -> bool:
    if s.status == "unavailable":
        return False
    if not s.loaded:
        return s.progress != pg.Progress()
    return s.text is None or _text(s.progress) != s.text


def begin_run() -> None:
    """Called by the shell before a page runs (see :func:`persist`'s ``when_unsaved``)."""
    st.session_state[_PERSISTED] = False


def persist(*, when_unsaved: bool = False) -> None:
    """Mount the store; hand it the current progress when it changed. Call once, last.

    ``when_unsaved=True`` (the shell, after every page): do nothing if the page already
    called ``persist`` in this run, or if this session has nothing the browser lacks — so
    a lesson page costs no browser round trip until the learner answers something there."""
    if when_unsaved and (st.session_state.get(_PERSISTED) or not _unsaved(store())):
        return
    st.session_state[_PERSISTED] = True
    s = store()
    if s.loaded and s.status != "unavailable":
        text = _text(s.progress)
        if text != s.text:
            s.text = text
            s.rev += 1
    local_store(STORAGE_KEY, s.text if s.loaded else None, s.rev, key=_widget(),
                backup=s.status == "refused", on_loaded=_on_loaded,
                on_write_failed=_on_write_failed)
