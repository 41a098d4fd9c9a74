"""A lesson's second path: the same measure in a few lines of Python, folded away.

Each lesson teaches its idea twice, without code (the interactive) and with code: its content
file holds a ``[code]`` table (``heading``, ``body``, ``python``), the same program in both
languages with its comments in the page's language. A page shows it with one line,
``code_path(c)``. ``tests/test_code_snippets.py`` runs every program on the lesson's example and
checks what it prints against ``metrics``, so the code on screen cannot drift from the numbers
the page computes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from ui import layout

__all__ = ["code_path"]


def code_path(content: Mapping[str, Any]) -> None:
    """The content's ``[code]`` part as an expander: the text, then the program (left to
    right, highlighted as Python). Nothing when the lesson has no ``[code]``."""
    part = content.get("code")
    if not isinstance(part, Mapping) or not part.get("python"):
        return
    with st.expander(layout.label(part["heading"]), icon=":material/code:"):
        if part.get("body"):
            layout.markdown(part["body"])
        st.code(part["python"].strip("\n"), language="python")
