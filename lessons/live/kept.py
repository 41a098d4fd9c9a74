"""What this browser keeps for the live classroom in its ``localStorage``, through the app's
bridge (``runtime.local_store.local_store``): the instructor's session (``mizan-live-host``:
code and key) and the phone's participant (``mizan-live-me``: code, token and an answer the
server has not confirmed). A reload, a reconnect to another process or a restarted server
opens a new Streamlit session; the browser still has these, so the page resumes by itself.

The bridge reads when its element mounts (its ``loaded`` event, also fired when another tab
changes the value) and writes the text Python hands it when the revision goes up — never the
revision it mounted with. :class:`Kept` adds a handshake on top: a value is handed over only
while the browser does not hold it yet, then the element is mounted again (a new key) so the
browser reads it back; once it is confirmed, every draw carries no text at all. The
instructor key thus crosses to the browser only right after it was made, and never in
presenter view (``hand_over=False``), and nothing is re-sent on every poll.

The elements are drawn in full runs only (``draw``); a timed fragment that finds work to do
asks for one (``needs_run``). Under ``AppTest`` components do not run: nothing is ever read
or written (``status`` stays ``"pending"``); tests call :meth:`Kept.receive` as the browser
would.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

import streamlit as st

from runtime.local_store import local_store

HOST, PHONE = "mizan-live-host", "mizan-live-me"
MAX_HANDOVERS = 5   # the same value handed over this often unconfirmed: stop (no endless loop)


@dataclass
class Kept:
    storage_key: str
    status: str = "pending"      # pending | ok (the browser answered) | unavailable
    stored: str = ""             # what the browser holds ("" for nothing)
    wanted: str | None = None    # what it should hold (None: whatever it holds)
    rev: int = 0
    mount: int = 0
    handed: str | None = None    # handed over in the last draw: read it back next
    handovers: int = 0

    @property
    def confirmed(self) -> bool:
        return self.wanted is None or self.stored == self.wanted

    @property
    def value(self) -> str:
        """What the browser holds, or is about to."""
        return self.stored if self.wanted is None else self.wanted

    def want(self, text: str) -> None:
        if text != self.wanted:
            self.wanted, self.handovers = text, 0

    def receive(self, status: str, text: str) -> None:
        """What the browser read (the ``loaded`` event; tests call it as a browser would)."""
        if status == "unavailable":
            self.status = "unavailable"
            return
        self.status = "ok"
        self.stored = text or ""
        self.handed = None

    def needs_run(self, *, hand_over: bool = True) -> bool:
        """A full run would hand the value over, or read a handed value back."""
        return (self.status == "ok" and not self.confirmed
                and self.handovers < MAX_HANDOVERS
                and (hand_over or self.handed is not None))

    def draw(self, key: str, *, hand_over: bool = True) -> None:
        """Mount the bridge (it draws nothing). Call once per full run, at a fixed place."""
        text = None
        if self.needs_run(hand_over=hand_over):
            if self.handed is not None:          # read back what was handed over
                self.mount += 1
                self.handed = None
            else:
                self.rev += 1
                self.handovers += 1
                text = self.handed = self.wanted
        element = f"{key}-{self.mount}"
        local_store(self.storage_key, text, self.rev, key=element,
                    on_loaded=functools.partial(_on_loaded, self, element),
                    on_write_failed=functools.partial(self.receive, "unavailable", ""))


def _on_loaded(kept: Kept, element: str) -> None:
    value = st.session_state.get(element)
    event = value.get("loaded") if isinstance(value, Mapping) else None
    if isinstance(event, dict) and event.get("status") in ("ok", "empty", "unavailable"):
        text = event.get("text")
        kept.receive("ok" if event["status"] == "empty" else event["status"],
                     text if isinstance(text, str) else "")


def get(storage_key: str) -> Kept:
    """This session's :class:`Kept` for ``storage_key`` (created on first use)."""
    name = f"live-kept-{storage_key}"
    if name not in st.session_state:
        st.session_state[name] = Kept(storage_key)
    return st.session_state[name]
