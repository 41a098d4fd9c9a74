"""Ready HTML as one ``st.components.v2`` element instead of ``st.html``.

``st.html`` hands its markup to the browser's DOMPurify and React on every run; for /retrieve's
three rankings (~30 passages, ~400 elements, a new set with every typed question) that
sanitiser alone was ~19 ms of the browser's main thread a question (bench/README.md,
session 12). This component (no iframe, no shadow root: the page's CSS applies; JS in
``html_view/``) parses the markup in an inert ``<template>``, keeps only a short list of tags
and attributes, and puts it in the page, only when it changed.

The caller escapes every text it puts in the markup (``bidi.escape_html``), exactly as for
``st.html``: the browser's check is a second line of defence, not the first. ``AppTest`` sees
the element as an unknown one; :func:`markup_of` reads its markup back for tests.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

__all__ = ["html_view", "markup_of"]

_COMPONENT = st.components.v2.component(
    "mizan.html_view",
    html='<div class="mz-html-view"></div>',
    js=(Path(__file__).with_name("html_view") / "html_view.js").read_text(encoding="utf-8"),
    isolate_styles=False,
)


def html_view(markup: str, *, key: str) -> None:
    """Draw ``markup`` (already escaped by the caller) as one element; ``key`` keeps the same
    element from run to run, so that only its markup is replaced."""
    # UTF-8 bytes: as JSON, every Arabic letter would travel as a 6-byte \u escape (the
    # rankings' 40 KB of HTML were 86 KB), and be parsed again in the browser
    _COMPONENT(key=key, data=markup.encode("utf-8"), width="stretch", height="content")


def markup_of(element: Any) -> str | None:
    """The markup an ``html_view`` element carries (``AppTest``'s unknown element), or None."""
    proto = getattr(element, "proto", None)
    if proto is None or getattr(proto, "component_name", "") != "mizan.html_view":
        return None
    return proto.bytes.decode("utf-8")
