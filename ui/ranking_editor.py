"""The ranking editor: a ranked list the learner reorders and whose relevance they edit.

Built on ``st.components.v2`` (no iframe); the HTML/CSS/JS live next to this file in
``ranking_editor/`` and are self-written, shipped in the repo, loaded without network.

Usage (the caller owns the list; the widget returns the edited copy)::

    if "ranking" not in st.session_state:
        st.session_state.ranking = [{"id": "d7", "rel": 0}, {"id": "d2", "rel": 1}, ...]
    st.session_state.ranking = ranking_editor(
        st.session_state.ranking, key="rp", labels=strings["ranking"]
    )
    # ... compute metrics from st.session_state.ranking *below* the widget

Python's list is the source of truth:

* Programmatic changes (reset, shuffle, a loaded link) are made by the caller to its list
  **before** the widget is called (use ``on_click=`` callbacks for buttons). Whenever the
  list passed in differs from what the widget last showed, the widget's *version* goes up
  and the browser re-renders from it at once, discarding any local edit not yet applied.
* Each edit in the browser (drag, keys, move buttons, relevance) is shown at once and sent
  as a trigger ``{base: version, seq, items: [[id, rel], ...]}`` carrying the full new
  state. An internal callback applies it before the script runs, so the call returns the
  edited list in the same rerun. An edit made on an outdated version is dropped (Python
  wins), so a drag can never silently undo a reset.
* Every rerun sends the browser ``ack`` (the seq of the last edit Python applied), so the
  browser knows when its optimistic view and Python agree again; until then it ignores
  older data, and it re-sends an edit left unacknowledged for 4 s (Python ignores copies).

Why a return value rather than an ``on_change`` callback: the caller keeps one list, passes
it in and stores what comes back; there is no second copy to keep in step, it works the
same inside ``st.fragment`` and under ``AppTest`` (which cannot drag: set the caller's
list in session state instead), and everything computed below the call sees the edit in
the same rerun.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import streamlit as st

from text.i18n import current_lang

__all__ = ["LABEL_KEYS", "OPTIONAL_LABEL_KEYS", "add_problem", "ranking_editor", "reordered"]

_ASSETS = Path(__file__).with_name("ranking_editor")
_COMPONENT_NAME = "mizan.ranking_editor"
_WIDGET_PREFIX = "mizan-rk-"
_STATE_PREFIX = "mizan-rk-state-"

#: UI strings the caller must supply (from the app's string catalogue).
LABEL_KEYS: tuple[str, ...] = (
    "rank",  # "Rank" - read before the rank number by screen readers
    "relevant",  # toggle text when relevant
    "not_relevant",  # toggle text when not relevant
    "grade",  # "Grade" - name of the grade control
    "move_up",  # ▲ button ("Move up")
    "move_down",  # ▼ button ("Move down")
    "drag_handle",  # tooltip on the rank badge ("Drag to reorder")
    "moved_to",  # live announcement, placeholders {id} and {rank}
)
#: UI strings used when present.
OPTIONAL_LABEL_KEYS: tuple[str, ...] = (
    "list",  # accessible name of the list ("Ranking")
    "keyboard_hint",  # screen-reader description of the keys ("Alt+Up / Alt+Down move")
)

_COMPONENT = st.components.v2.component(
    _COMPONENT_NAME,
    html='<div class="rk-root"></div>',
    css=(_ASSETS / "ranking_editor.css").read_text(encoding="utf-8"),
    js=(_ASSETS / "ranking_editor.js").read_text(encoding="utf-8"),
)

Canon = tuple[tuple[str, int], ...]


def _as_int(value: Any, what: str) -> int:
    if value is None:
        return 0
    if isinstance(value, bool):
        return int(value)
    try:
        as_float = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"ranking_editor: {what} must be an integer, got {value!r}") from None
    if as_float != as_float or as_float != int(as_float):  # NaN or fractional
        raise ValueError(f"ranking_editor: {what} must be an integer, got {value!r}")
    return int(as_float)


def _canon(items: Sequence[Mapping[str, Any]]) -> Canon:
    out = []
    seen: set[str] = set()
    for n, item in enumerate(items):
        if not isinstance(item, Mapping) or "id" not in item:
            raise ValueError(f"ranking_editor: item {n} must be a dict with an 'id'")
        item_id = str(item["id"])
        if item_id in seen:
            raise ValueError(f"ranking_editor: duplicate id {item_id!r}")
        seen.add(item_id)
        out.append((item_id, _as_int(item.get("rel", 0), f"rel of {item_id!r}")))
    return tuple(out)


def _on_edit(key: str) -> None:
    """Runs before the script: stage the browser's edit, or note that it was stale."""
    state = st.session_state.get(_STATE_PREFIX + key)
    if state is None:
        return
    try:
        result = st.session_state[_WIDGET_PREFIX + key]
    except KeyError:
        return
    event = result.get("edit") if isinstance(result, Mapping) else None
    if not isinstance(event, Mapping):
        return
    seq, base, pairs = event.get("seq"), event.get("base"), event.get("items")
    if not isinstance(seq, int) or isinstance(seq, bool) or seq <= state["ack"]:
        return  # superseded or malformed
    state["ack"] = seq
    staged = _validate_edit(pairs, state)
    if base != state["version"] or staged is None:
        # Made on a list Python has since replaced (or garbage): Python wins, and the
        # browser must re-render from Python even if the list did not change again.
        state["staged"] = None
        state["resync"] = True
    else:
        state["staged"] = staged


def _validate_edit(pairs: Any, state: dict[str, Any]) -> Canon | None:
    sent: Canon = state["sent"]
    if not isinstance(pairs, list) or len(pairs) != len(sent):
        return None
    sent_rel = dict(sent)
    top = state["max_rel"]
    out = []
    for pair in pairs:
        if not (isinstance(pair, list) and len(pair) == 2):
            return None
        item_id, rel = pair
        if not isinstance(item_id, str) or item_id not in sent_rel:
            return None
        if not isinstance(rel, int) or isinstance(rel, bool):
            return None
        edited = rel != sent_rel[item_id]  # an edited value must be in range and allowed
        if edited and (not state["editable"] or not 0 <= rel <= top):
            return None
        out.append((item_id, rel))
    if len({item_id for item_id, _ in out}) != len(out):
        return None
    return tuple(out)


def ranking_editor(
    items: Sequence[Mapping[str, Any]],
    *,
    key: str,
    mode: Literal["binary", "grade"] = "binary",
    max_grade: int = 3,
    labels: Mapping[str, str],
    direction: Literal["rtl", "ltr", "auto"] = "rtl",
    editable_relevance: bool = True,
    covered_by: str | None = None,
) -> list[dict[str, Any]]:
    """Show a reorderable ranked list and return it in the learner's order.

    items: list of dicts ``{"id": str, "title": str (optional), "rel": int}``; ids must be
        unique. Other keys are kept as they are.
    key: unique per widget on the page (and not containing ``"__"``).
    mode: ``"binary"`` (relevant / not relevant, ``rel >= 1`` counts as relevant; a toggle
        writes 1 or 0) or ``"grade"`` (0..``max_grade``).
    labels: UI strings, see ``LABEL_KEYS`` (required) and ``OPTIONAL_LABEL_KEYS``.
    direction: ``"rtl"``, ``"ltr"``, or ``"auto"`` (inherit the page's direction).
    editable_relevance: ``False`` shows relevance read-only (reordering still works).
    covered_by: a CSS selector of a sticky element over the top of the page (the lesson's
        metrics strip): a drag scrolls the page when the row reaches its lower edge, and a
        row moved with the keys is scrolled out from under it.

    Returns a new list of new dicts (same shape, learner's order, edited ``rel``). Store it
    back where ``items`` came from; any other change to that list shows at once.
    """
    if not isinstance(key, str) or not key or "__" in key:
        raise ValueError("ranking_editor: key must be a non-empty string without '__'")
    if mode not in ("binary", "grade"):
        raise ValueError(f"ranking_editor: mode must be 'binary' or 'grade', not {mode!r}")
    if direction not in ("rtl", "ltr", "auto"):
        raise ValueError(
            f"ranking_editor: direction must be 'rtl', 'ltr' or 'auto', not {direction!r}"
        )
    max_grade = _as_int(max_grade, "max_grade")
    if mode == "grade" and not 1 <= max_grade <= 10:
        raise ValueError(f"ranking_editor: max_grade must be between 1 and 10, not {max_grade}")
    missing = [k for k in LABEL_KEYS if not labels.get(k)]
    if missing:
        raise ValueError(f"ranking_editor: labels is missing {', '.join(missing)}")

    items = list(items)
    canon = _canon(items)
    state_key = _STATE_PREFIX + key
    state = st.session_state.get(state_key)
    if state is None:
        state = {"version": 0, "ack": 0, "sent": canon, "staged": None, "resync": False}
        st.session_state[state_key] = state
    state["max_rel"] = 1 if mode == "binary" else max_grade
    state["editable"] = bool(editable_relevance)

    if canon != state["sent"]:
        # The caller changed its list (reset, shuffle, a loaded link...): it wins.
        state["version"] += 1
        state["sent"] = canon
        state["staged"] = None
        out = [dict(item) for item in items]
    elif state["staged"] is not None:
        by_id = {str(item["id"]): item for item in items}
        out = []
        for item_id, rel in state["staged"]:
            new = dict(by_id[item_id])
            new["rel"] = rel
            out.append(new)
        state["sent"] = state["staged"]
        state["staged"] = None
    else:
        out = [dict(item) for item in items]
    if state["resync"]:
        state["version"] += 1
        state["resync"] = False

    data = {
        "v": state["version"],
        "ack": state["ack"],
        "mode": mode,
        "max": max_grade if mode == "grade" else 1,
        "dir": None if direction == "auto" else direction,
        "lang": current_lang(),
        "editable": bool(editable_relevance),
        "cover": covered_by or "",
        "labels": {k: str(labels[k]) for k in (*LABEL_KEYS, *OPTIONAL_LABEL_KEYS) if labels.get(k)},
        "items": [
            {"id": item_id, "title": str(item.get("title") or ""), "rel": rel}
            for item, (item_id, rel) in zip(out, state["sent"], strict=True)
        ],
    }
    _COMPONENT(
        key=_WIDGET_PREFIX + key,
        data=data,
        on_edit_change=lambda: _on_edit(key),
        width="stretch",
        height="content",
    )
    return out


# --- what the lessons' buttons around the editor do (plain functions) ---------------------------


def reordered(items: Sequence[tuple[str, int]], how: str) -> tuple[tuple[str, int], ...]:
    """``"ideal"``: the most relevant first (a stable sort by grade, so ties keep their order);
    ``"shuffle"``: a random order."""
    out = list(items)
    if how == "ideal":
        out.sort(key=lambda item: -item[1])
    else:
        random.shuffle(out)
    return tuple(out)


def add_problem(typed: str, *, max_chars: int, taken: Collection[str], full: bool,
                in_ranking: Collection[str] = ()) -> str | None:
    """Why a document id typed to be added cannot be: ``"err_empty"``, ``"err_too_long"``,
    ``"err_in_ranking"`` (it is in the ranking, when the list it goes to is another one),
    ``"err_duplicate"`` (already in ``taken``), ``"err_too_many"`` (``full``); else None.
    Each is a key of the lesson's own labels."""
    if not typed:
        return "err_empty"
    if len(typed) > max_chars:
        return "err_too_long"
    if typed in in_ranking:
        return "err_in_ranking"
    if typed in taken:
        return "err_duplicate"
    return "err_too_many" if full else None
