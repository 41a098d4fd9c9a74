"""State a learner can see lives in the URL, so a copied link reopens exactly that.

Two layers.

**Global settings** — ``?lang=ar|en``, ``?digits=latn|arab``, ``?present=1`` — are handled
by the shell (``app.py`` calls :func:`global_settings` once per run). Each is held by a
hidden ``st.text_input(..., bind="query-params")`` whose key is the parameter name, so
Streamlit itself keeps them in the URL across page switches without an extra browser
history entry. Consequence for page code: **the session-state keys ``lang``, ``digits``
and ``present`` and these URL parameter names are reserved**; read the settings with
``i18n.current_lang()``, ``i18n.current_digits()``, ``layout.is_presenting()``. To
change one from a widget, call :func:`request_global` *in an ``on_change``/``on_click``
callback*. A bad or hostile value is replaced by the default, with a translated message.

**Page scenario** — everything else a page shows (a ranking, relevance, k…) —
:func:`url_state` keeps each field in ``st.query_params`` *and* in session state.
Streamlit clears a page's own query params on page switch (by design since 1.30); when
the learner comes back, the stored scenario is written back into the URL. Rules:

* the URL wins when it carries the field (a shared link, browser back/forward);
* a missing or unreadable field falls back to the stored value, then to the default; an
  unreadable one shows ``t("url.bad_value")`` once — never a traceback;
* the URL is written only when a value really changes, in one ``update()`` (each write is
  one browser history entry); defaults are left out until a field is first changed.

Usage in a page (the fields dict is module-level, built once)::

    FIELDS = {
        "k": state.int_field(3, lo=1, hi=10),
        "r": state.ranking_field(SEED, grades=(0, 1)),   # (("d7", 0), ("d2", 1), ...)
    }
    s = state.url_state("rp", FIELDS)        # top of the page (or of the fragment)
    k = st.slider(t("rp.k"), 1, 10, value=s["k"], key=s.key("k"))
    s.set(k=k)                               # no-op unless k changed

``s.key(name)`` is a widget key that changes whenever the scenario is replaced from
outside (a link, back/forward, ``s.reset()``), so widgets drop their own stale copy and
show the new value — the same trick the ranking editor and sortables need.

**A URL that lags is not a link.** Each URL write reaches the browser a moment after the
rerun that made it, and a widget event sent in that moment carries the older URL (hold
ArrowRight on a slider: the second step's rerun still says the first step's ``k``). On a
rerun of the same page that is not a back/forward navigation, a URL value the page itself
held a moment ago is that echo: the stored value stays, the widget is not re-created (it
would lose the keyboard focus and the step). The shell tells which runs arrive on a page
(:func:`note_page`); a fragment's rerun never does.

The fields themselves and the compact ranking encoding are pure Python, in
:mod:`runtime.url_codec` (re-exported here), so a lesson's ``link`` module can declare them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import streamlit as st

from runtime.url_codec import (
    MAX_PARAM_CHARS,
    Field,
    bool_field,
    choice_field,
    decode_ranking,
    encode_ranking,
    float_field,
    int_field,
    ranking_field,
)
from text import i18n

__all__ = [
    "GLOBAL_PARAMS",
    "RESERVED_PARAMS",
    "Field",
    "GlobalSettings",
    "UrlState",
    "bool_field",
    "choice_field",
    "current_url",
    "decode_ranking",
    "encode_ranking",
    "float_field",
    "global_settings",
    "int_field",
    "ranking_field",
    "request_global",
    "url_state",
]


# name -> (allowed values, default). "" (absent) always means the default.
GLOBAL_PARAMS: dict[str, tuple[tuple[str, ...], str]] = {
    "lang": (i18n.LANGS, i18n.DEFAULT_LANG),
    "digits": (i18n.DIGITS, i18n.DEFAULT_DIGITS),
    "present": (("0", "1"), "0"),
}
RESERVED_PARAMS = frozenset(GLOBAL_PARAMS) | {"embed", "embed_options"}

_FLASH = "_mz_flash"  # messages to show at the top of the next page render
i18n.use_session(lambda key, default: st.session_state.get(key, default))
_STORE = "_mz_url_state"
_PAGE = "_mz_page"  # the url path of the last full run and whether it arrived there
_RECENT = 8  # superseded values kept per field to recognise a lagging URL


# --- global settings (shell) ----------------------------------------------------------


@dataclass(frozen=True)
class GlobalSettings:
    lang: str
    digits: str
    present: bool
    needs_rerun: bool  # a bad value was reset: call st.rerun() after st.navigation()


def global_settings() -> GlobalSettings:
    """Read, validate and bind ``lang``/``digits``/``present``. Call once per run, early.

    Renders three hidden bound text inputs (in a ``st-key-mz-global`` container that CSS
    hides). On the first run of a session the URL seeds them and a bad value cannot be
    replaced in the same run, so the result says ``needs_rerun``: the shell calls
    ``st.rerun()`` after ``st.navigation()`` (keeping the page).
    """
    clean: dict[str, str] = {}
    needs_rerun = False
    for name, (allowed, _default) in GLOBAL_PARAMS.items():
        raw = st.session_state[name] if name in st.session_state else st.query_params.get(name, "")
        if not isinstance(raw, str) or (raw and raw not in allowed):
            _flash(i18n.t("url.bad_value", name=name))
            st.session_state[name] = ""
    with st.container(key="mz-global"):
        for name, (allowed, default) in GLOBAL_PARAMS.items():
            value = st.text_input(name, key=name, bind="query-params", label_visibility="collapsed")
            if value and value not in allowed:
                needs_rerun = True
                value = ""
            clean[name] = value or default
    st.session_state[i18n.LANG_STATE] = clean["lang"]
    st.session_state[i18n.DIGITS_STATE] = clean["digits"]
    return GlobalSettings(clean["lang"], clean["digits"], clean["present"] == "1", needs_rerun)


def request_global(name: str, value: str) -> None:
    """Change a global setting. Only from a widget callback (``on_change``/``on_click``)."""
    allowed, default = GLOBAL_PARAMS[name]
    if value not in allowed:
        raise ValueError(f"{name}={value!r} not in {allowed}")
    st.session_state[name] = "" if value == default else value


def _flash(message: str) -> None:
    flashes = st.session_state.setdefault(_FLASH, [])
    if message not in flashes:
        flashes.append(message)


def pop_flash() -> list[str]:
    """Messages queued by URL validation (the shell shows them as warnings)."""
    return st.session_state.pop(_FLASH, [])


def note_page(url_path: str) -> None:
    """The shell, on every full run: which page this run shows. A run that shows another page
    than the last one arrived on it (a page switch, a link into it, the session's first run)."""
    last = st.session_state.get(_PAGE)
    st.session_state[_PAGE] = {"path": url_path,
                               "arrived": last is None or last["path"] != url_path}


def _arrived() -> bool:
    """Whether this run arrived on the page (True when unknown: the URL then wins, as before)."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

        ctx = get_script_run_ctx(suppress_warning=True)
        if ctx is not None and ctx.fragment_ids_this_run:
            return False  # a fragment's rerun stays on its page
    except Exception:  # internal API moved: decide from the shell's note alone
        pass
    page = st.session_state.get(_PAGE)
    return page is None or bool(page["arrived"])


# --- page state --------------------------------------------------------------------------


class UrlState:
    """The validated scenario of one page (see the module docstring). Read with
    ``s["k"]`` / ``s.values``; change with ``s.set(k=5)``; ``s.reset()``; ``s.key(name)``."""

    def __init__(self, page_key: str, fields: Mapping[str, Field], store: dict[str, Any]):
        self.page_key = page_key
        self.fields = fields
        self._store = store

    @property
    def values(self) -> dict[str, Any]:
        return dict(self._store["values"])

    @property
    def generation(self) -> int:
        """Goes up each time the scenario is replaced from outside the widgets."""
        return self._store["gen"]

    def __getitem__(self, name: str) -> Any:
        return self._store["values"][name]

    def key(self, name: str) -> str:
        """A widget key for ``name`` that changes when the scenario is replaced."""
        return f"{self.page_key}.{name}.{self._store['gen']}"

    def set(self, **changes: Any) -> bool:
        """Store new values and write the changed ones to the URL. Returns True if any changed."""
        unknown = set(changes) - set(self.fields)
        if unknown:
            raise KeyError(f"unknown fields {sorted(unknown)}")
        values = self._store["values"]
        changed = {k: v for k, v in changes.items() if values.get(k) != v}
        if not changed:
            return False
        _remember(self._store, self.fields, changed)
        values.update(changed)
        _write_url({name: self.fields[name].serialize(v) for name, v in changed.items()})
        return True

    def reset(self) -> None:
        """Back to the defaults (widgets re-created through :meth:`key`)."""
        self._store["gen"] += 1
        self.set(**{name: f.default for name, f in self.fields.items()})


def _remember(store: dict[str, Any], fields: Mapping[str, Field],
              changes: Mapping[str, Any]) -> None:
    """Keep the URL form of each value about to be replaced (see "A URL that lags")."""
    recent = store.setdefault("recent", {})
    for name in changes:
        field = fields[name]
        old = store["values"].get(name, field.default)
        # a default is absent from the URL, or written out after a reset
        forms = {"", field.serialize(old)} if old == field.default else {field.serialize(old)}
        past = [v for v in recent.get(name, []) if v not in forms]
        recent[name] = [*past, *sorted(forms)][-_RECENT:]


def _lagging(store: dict[str, Any], fields: Mapping[str, Field], qp: Any) -> bool:
    """True when every field the URL has differently from the store is a value the page itself
    held a moment ago (absent = the default), i.e. the browser has not caught up yet."""
    recent = store.get("recent", {})
    values = store["values"]
    differs = False
    for name, field in fields.items():
        current = values[name]
        shown = "" if current == field.default else field.serialize(current)
        raw = qp.get(name, "") if name in qp else ""
        if raw == shown or (raw and raw == field.serialize(current)):
            continue
        if raw not in recent.get(name, ()):
            return False
        differs = True
    return differs


def _write_url(params: Mapping[str, str]) -> None:
    """One ``st.query_params.update`` with only the params whose value differs."""
    current = st.query_params
    todo = {k: v for k, v in params.items() if current.get(k) != v}
    if todo:
        current.update(todo)


def _is_history_navigation() -> bool:
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

        ctx = get_script_run_ctx(suppress_warning=True)
        return bool(getattr(ctx, "is_history_navigation", False))
    except Exception:  # internal API moved: treat as a normal navigation
        return False


def url_state(page_key: str, fields: Mapping[str, Field]) -> UrlState:
    """The page's scenario: URL (when it has the field) > session > default. See module doc.

    ``page_key`` namespaces the session storage (use the lesson folder name). Field names
    are the URL parameter names: keep them short and not in :data:`RESERVED_PARAMS`.
    """
    bad_names = set(fields) & RESERVED_PARAMS
    if bad_names:
        raise ValueError(f"reserved URL parameter names: {sorted(bad_names)}")
    stores = st.session_state.setdefault(_STORE, {})
    store = stores.get(page_key)
    first_visit = store is None
    if first_visit:
        store = {"values": {n: f.default for n, f in fields.items()}, "gen": 0}
        stores[page_key] = store
    values: dict[str, Any] = store["values"]
    for name, field in fields.items():  # fields added since the session started
        values.setdefault(name, field.default)

    qp = st.query_params
    in_url = [name for name in fields if name in qp]
    history = _is_history_navigation()
    from_url = bool(in_url) or history
    if not first_visit and not history and not _arrived() and _lagging(store, fields, qp):
        # the browser's URL has not caught up with this page's own writes yet: keep ours
        return UrlState(page_key, fields, store)
    if from_url:
        incoming: dict[str, Any] = {}
        repair: dict[str, str] = {}
        for name, field in fields.items():
            if name not in qp:
                incoming[name] = field.default
                continue
            raw = qp.get(name, "")
            try:
                if len(raw) > MAX_PARAM_CHARS:
                    raise ValueError("too long")
                incoming[name] = field.parse(raw)
            except Exception:  # any parser failure is a bad link, never a traceback
                incoming[name] = (
                    values.get(name, field.default) if not first_visit else field.default
                )
                repair[name] = field.serialize(incoming[name])
                st.warning(i18n.t("url.bad_value", name=name), icon=":material/link_off:")
        if incoming != values:
            if not first_visit:
                store["gen"] += 1  # replaced from outside: widgets must drop their copy
            _remember(store, fields, {n: v for n, v in incoming.items() if values.get(n) != v})
            values.clear()
            values.update(incoming)
        if repair:
            _write_url(repair)
    else:
        # Page switch cleared the URL: put the stored scenario back (defaults stay out).
        _write_url({n: f.serialize(values[n]) for n, f in fields.items() if values[n] != f.default})
    return UrlState(page_key, fields, store)


# --- links -------------------------------------------------------------------------------


def new_seed(s: UrlState, field: str = "ex", seeds: int = 10**9) -> None:
    """A fresh exercise: a new random seed in URL state (the link then reproduces it)."""
    s.set(**{field: random.randrange(seeds)})


def current_url() -> str:
    """The full link of what the learner sees: the browser's address (scheme, host, port,
    path — whatever host serves the app) plus the current query params. ``""`` when
    unknown (AppTest)."""
    try:
        base = st.context.url or ""
    except Exception:
        base = ""
    if not base:
        return ""
    params = [(k, v) for k in st.query_params for v in st.query_params.get_all(k) if v != ""]
    return f"{base}?{urlencode(params)}" if params else base
