"""A tiny app around the ranking editor, driven by tests/browser/test_ranking_editor.py.

Query params: ?mode=binary|grade  &dir=rtl|ltr (rtl shows Arabic labels, ltr English)
&n=5..40 (list length)  &max=3|5 (grades)  &ro=1 (read-only relevance)
&wdir=auto (the widget inherits the page's direction instead of being told it).
Stable hooks for tests: containers keyed demo_order / demo_rels / demo_number / demo_message.
"""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

import streamlit as st

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from ui.ranking_editor import ranking_editor  # noqa: E402

LABELS = {
    "ar": {
        "rank": "المرتبة",
        "relevant": "ذو صلة",
        "not_relevant": "غير ذي صلة",
        "grade": "الدرجة",
        "move_up": "انقل إلى أعلى",
        "move_down": "انقل إلى أسفل",
        "drag_handle": "اسحب لإعادة الترتيب",
        "moved_to": "نُقل {id} إلى المرتبة {rank}",
        "list": "الترتيب",
        "keyboard_hint": "Alt مع السهم لأعلى أو لأسفل ينقل العنصر",
    },
    "en": {
        "rank": "Rank",
        "relevant": "Relevant",
        "not_relevant": "Not relevant",
        "grade": "Grade",
        "move_up": "Move up",
        "move_down": "Move down",
        "drag_handle": "Drag to reorder",
        "moved_to": "{id} moved to rank {rank}",
        "list": "Ranking",
        "keyboard_hint": "Alt+Up or Alt+Down moves the item",
    },
}
UI = {
    "ar": {
        "title": "محرّر الترتيب",
        "reset": "إعادة الضبط",
        "reverse": "اعكس",
        "shuffle": "اخلط",
        "new_id": "معرّف عنصر جديد",
        "add": "أضف",
        "first_rel": "مرتبة أول مستند ذي صلة",
        "dcg": "DCG@5",
        "empty": "اكتب معرّفًا أولًا.",
        "duplicate": "هذا المعرّف موجود.",
    },
    "en": {
        "title": "Ranking editor",
        "reset": "Reset",
        "reverse": "Reverse",
        "shuffle": "Shuffle",
        "new_id": "New item id",
        "add": "Add",
        "first_rel": "Rank of the first relevant document",
        "dcg": "DCG@5",
        "empty": "Type an id first.",
        "duplicate": "That id is already in the list.",
    },
}
TITLES = {"d7": "RAG evaluation", "d2": "Recall@k", "d9": "تقييم الاسترجاع", "d4": "", "d1": ""}

mode = st.query_params.get("mode", "binary")
mode = mode if mode in ("binary", "grade") else "binary"
direction = st.query_params.get("dir", "rtl")
direction = direction if direction in ("rtl", "ltr") else "rtl"
try:
    size = min(max(int(st.query_params.get("n", 5)), 5), 40)  # ?n=20: a long list
except ValueError:
    size = 5
max_grade = 5 if st.query_params.get("max") == "5" else 3  # ?max=5: grades 0..5
read_only = st.query_params.get("ro") == "1"  # ?ro=1: relevance shown, not editable
# ?wdir=auto: the widget inherits the page's direction instead of being told it.
widget_direction = "auto" if st.query_params.get("wdir") == "auto" else direction
lang = "ar" if direction == "rtl" else "en"
ui = UI[lang]

st.set_page_config(page_title="ranking demo", layout="centered")
if direction == "rtl":
    # The demo's stand-in for the app shell's RTL styling (app.py owns the real one).
    st.html(
        "<style>.stMainBlockContainer{direction:rtl}"
        ".stMainBlockContainer p{text-align:right}</style>"
    )


def seed() -> list[dict]:
    ids = ["d7", "d2", "d9", "d4", "d1"] + [f"d{10 + i}" for i in range(size - 5)]
    rels = ([0, 1, 0, 1, 0] if mode == "binary" else [3, 2, 3, 0, 1]) + [0] * (size - 5)
    return [{"id": i, "title": TITLES.get(i, ""), "rel": r} for i, r in zip(ids, rels, strict=True)]


if st.session_state.get("demo_mode") != (mode, size):
    st.session_state.demo_mode = (mode, size)
    st.session_state.ranking = seed()
    st.session_state.shuffles = 0


def reset() -> None:
    st.session_state.ranking = seed()


def reverse() -> None:
    st.session_state.ranking = list(reversed(st.session_state.ranking))


def shuffle() -> None:
    st.session_state.shuffles += 1
    items = list(st.session_state.ranking)
    random.Random(st.session_state.shuffles).shuffle(items)
    st.session_state.ranking = items


def add() -> None:
    new_id = st.session_state.new_id.strip()
    ids = {str(it["id"]) for it in st.session_state.ranking}
    if not new_id:
        st.session_state.message = ui["empty"]
    elif new_id in ids:
        st.session_state.message = ui["duplicate"]
    else:
        new_item = {"id": new_id, "title": "", "rel": 0}
        st.session_state.ranking = [*st.session_state.ranking, new_item]
        st.session_state.message = ""
        st.session_state.new_id = ""


st.subheader(ui["title"])
cols = st.columns(3)
cols[0].button(ui["reset"], key="reset", on_click=reset)
cols[1].button(ui["reverse"], key="reverse", on_click=reverse)
cols[2].button(ui["shuffle"], key="shuffle", on_click=shuffle)


@st.fragment
def editor() -> None:
    st.session_state.ranking = ranking_editor(
        st.session_state.ranking,
        key="demo",
        mode=mode,
        max_grade=max_grade,
        labels=LABELS[lang],
        direction=widget_direction,
        editable_relevance=not read_only,
    )
    items = st.session_state.ranking
    with st.container(key="demo_order"):
        st.code(" ".join(str(it["id"]) for it in items), language=None)
    with st.container(key="demo_rels"):
        st.code(" ".join(f"{it['id']}:{it['rel']}" for it in items), language=None)
    if mode == "binary":
        first = next((i for i, it in enumerate(items, 1) if it["rel"] >= 1), 0)
        label, value = ui["first_rel"], str(first)
    else:
        dcg = sum(it["rel"] / math.log2(i + 1) for i, it in enumerate(items[:5], 1))
        label, value = ui["dcg"], f"{dcg:.4f}"
    st.caption(label)
    with st.container(key="demo_number"):
        st.code(value, language=None)


editor()

with st.form("add_form", clear_on_submit=False, border=False):
    st.text_input(ui["new_id"], key="new_id")
    st.form_submit_button(ui["add"], on_click=add)
with st.container(key="demo_message"):
    if st.session_state.get("message"):
        st.warning(st.session_state.message)
