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
import time
from collections.abc import Mapping
from dataclasses import dataclass

import streamlit as st

from runtime.local_store import local_store, session_key

HOST, PHONE = "mizan-live-host", "mizan-live-me"
MAX_HANDOVERS = 5   # the same value handed over this often unconfirmed: stop (no endless loop)
# After a hand-over, wait this long before mounting the element again to read the value back:
# a full run that follows at once (the phone's fragment runs inline in every full run) would
# otherwise replace the element before the browser applied the write, and the new element
# never writes the revision it mounts with — five hand-overs could be spent in 0.2 s.
SETTLE_S = 1.0
# A mount whose read never came back (a trigger lost while the machine was busy): mount again,
# waiting twice as long each time (up to READ_TIMEOUT_MAX_S): a browser that answers but
# slowly — a loaded machine, seen once in CI at load 14 — must not be remounted forever just
# before its answer arrives (the unmounted element's answer is lost).
READ_TIMEOUT_S = 6.0
READ_TIMEOUT_MAX_S = 48.0


@dataclass
class Kept:
    storage_key: str
    status: str = "pending"      # pending | ok (the browser answered) | unavailable
    stored: str = ""             # what the browser holds ("" for nothing)
    wanted: str | None = None    # what it should hold (None: whatever it holds)
    rev: int = 0
    mount: int = 0
    handed: str | None = None    # handed over and not yet read back
    handed_at: float | None = None
    reading_since: float | None = None   # a mount waiting for the browser's read
    read_misses: int = 0                 # mounts in a row whose read never came back
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
        self.reading_since, self.read_misses = None, 0
        if status == "unavailable":
            self.status = "unavailable"
            return
        self.status = "ok"
        self.stored = text or ""
        self.handed = self.handed_at = None

    def due(self, now: float, *, hand_over: bool = True) -> str | None:
        """What a full run would do now: ``"read"`` (mount again, to read the browser's
        value), ``"hand"`` (hand the wanted value over) or nothing."""
        if self.status == "unavailable":
            return None
        if self.reading_since is not None:
            return "read" if now - self.reading_since >= self.read_timeout else None
        if self.status != "ok" or self.confirmed:
            return None
        if self.handed is not None:
            return "read" if now - (self.handed_at or 0.0) >= SETTLE_S else None
        return "hand" if hand_over and self.handovers < MAX_HANDOVERS else None

    @property
    def read_timeout(self) -> float:
        """How long this mount waits for the browser's read before mounting again."""
        return min(READ_TIMEOUT_S * 2 ** self.read_misses, READ_TIMEOUT_MAX_S)

    def needs_run(self, *, hand_over: bool = True, now: float | None = None) -> bool:
        """A full run now would hand the value over, or read a handed value back."""
        return self.due(time.monotonic() if now is None else now, hand_over=hand_over) is not None

    def step(self, now: float, *, hand_over: bool = True) -> str | None:
        """This full run's move (see :meth:`due`); the text to hand the browser, if any."""
        action = self.due(now, hand_over=hand_over)
        if action == "read":
            if self.reading_since is not None:
                self.read_misses += 1        # this mount's read never came back
            self.mount += 1
            self.handed = self.handed_at = None
            self.reading_since = now
        elif action == "hand":
            self.rev += 1
            self.handovers += 1
            self.handed, self.handed_at = self.wanted, now
            return self.wanted
        elif self.status == "pending" and self.reading_since is None:
            self.reading_since = now         # the first mount reads
        return None

    def draw(self, key: str, *, hand_over: bool = True) -> None:
        """Mount the bridge (it draws nothing). Call once per full run, at a fixed place."""
        text = self.step(time.monotonic(), hand_over=hand_over)
        element = session_key(f"{key}-{self.mount}")   # a new session mounts a new element
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
