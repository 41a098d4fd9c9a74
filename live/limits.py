"""How much one client, one participant and one session may do, and how long a quiet session
lives. Every number comes from an environment variable (read once per process, see
:func:`from_env`); the defaults fit a class of a few hundred phones, including a class whose
phones all reach the server from one address (a school's NAT), because nothing here is keyed
on an address: a *client* is one browser session (one websocket), a *participant* one joined
student, a *session* one class.

=====================================  =======  ==============================================
variable                               default  what it bounds
=====================================  =======  ==============================================
MIZAN_LIVE_JOINS_PER_MINUTE            1000     joins into one session in any 60 s
MIZAN_LIVE_CLIENT_JOINS_PER_MINUTE     10       join attempts by one client in any 60 s
MIZAN_LIVE_CLIENT_WRONG_CODES          10       unknown/closed codes or wrong instructor keys
                                                one client may try in any 10 min (then every
                                                attempt is refused until the window passes)
MIZAN_LIVE_ANSWERS_PER_SECOND          2        answers one participant may send per second
                                                (the same answer again is never refused)
MIZAN_LIVE_IDLE_MINUTES                180      a session with no join, answer or instructor
                                                action for this long is over
MIZAN_LIVE_MAX_PARTICIPANTS            2000     participants in one session
=====================================  =======  ==============================================
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields

__all__ = ["ClientBudget", "Limits", "client_provider", "current_client", "from_env"]

GUESS_WINDOW_S = 600.0


@dataclass(frozen=True)
class Limits:
    joins_per_minute: int = 1000
    client_joins_per_minute: int = 10
    client_wrong_codes: int = 10
    answers_per_second: float = 2.0
    idle_minutes: float = 180.0
    max_participants: int = 2000

    @property
    def answer_interval_s(self) -> float:
        return 1.0 / self.answers_per_second

    @property
    def idle_s(self) -> float:
        return 60.0 * self.idle_minutes


ENV = {
    "joins_per_minute": "MIZAN_LIVE_JOINS_PER_MINUTE",
    "client_joins_per_minute": "MIZAN_LIVE_CLIENT_JOINS_PER_MINUTE",
    "client_wrong_codes": "MIZAN_LIVE_CLIENT_WRONG_CODES",
    "answers_per_second": "MIZAN_LIVE_ANSWERS_PER_SECOND",
    "idle_minutes": "MIZAN_LIVE_IDLE_MINUTES",
    "max_participants": "MIZAN_LIVE_MAX_PARTICIPANTS",
}


def from_env(env: Mapping[str, str] | None = None) -> Limits:
    """The limits set in ``env`` (default ``os.environ``); unset or empty → the default.
    A value that is not a positive number raises ``ValueError`` naming the variable: a
    misconfigured server should fail at start (``deploy/run.sh`` checks), not mid-class."""
    env = os.environ if env is None else env
    values: dict[str, float | int] = {}
    for f in fields(Limits):
        raw = str(env.get(ENV[f.name], "")).strip()
        if not raw:
            continue
        cast = int if f.type in (int, "int") else float
        try:
            value = cast(raw)
        except ValueError:
            value = 0
        if not value > 0:
            raise ValueError(f"{ENV[f.name]} must be a positive number, not {raw!r}")
        values[f.name] = value
    return Limits(**values)


class ClientBudget:
    """At most ``limit`` events per ``window_s`` for each key, in this process. Memory stays
    bounded: beyond ``max_keys`` keys the least recently used are forgotten (a flood of fresh
    keys cannot grow it; nginx bounds how fast new clients arrive)."""

    def __init__(self, limit: int, window_s: float, max_keys: int = 50_000) -> None:
        self.limit, self.window_s, self.max_keys = int(limit), float(window_s), max_keys
        self._events: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def _recent(self, key: str, now: float) -> deque[float]:
        events = self._events.get(key)
        if events is None:
            events = self._events[key] = deque()
            while len(self._events) > self.max_keys:
                self._events.popitem(last=False)
        else:
            self._events.move_to_end(key)
        while events and events[0] <= now - self.window_s:
            events.popleft()
        return events

    def exhausted(self, key: str, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        with self._lock:
            return len(self._recent(key, now)) >= self.limit

    def spend(self, key: str, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        with self._lock:
            self._recent(key, now).append(now)


# Who is calling: the app registers a function that names the current browser session
# (app.py: Streamlit's session id), so every service call is budgeted per client without
# each page passing it; an explicit ``client=`` argument wins. None: no per-client budget.
client_provider: Callable[[], str | None] | None = None


def current_client() -> str | None:
    provider = client_provider
    if provider is None:
        return None
    try:
        return provider()
    except Exception:  # no client context (a test, a script): no per-client budget
        return None
