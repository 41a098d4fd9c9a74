"""Open a page scrolled to one of its parts, once: a link's ``?at=ranking`` (:data:`KEY`,
:data:`RANKING`) lands a lesson opened by the lab's "explain this number" on its ranking.

Streamlit 1.67 cannot do this by itself: ``st.page_link`` carries no ``#fragment``, every
``st.query_params`` write drops the fragment from the address (streamlit#9664), and the
browser's own jump to a fragment happens before Streamlit has drawn the page (on first load it
does not happen at all, streamlit#11551). So the page asks for it: :func:`land` mounts a tiny
``st.components.v2`` component (no iframe; JS in ``scroll/``, draws nothing) that waits for
the element, scrolls it just under the sticky parts at the top, follows it while the page
above it is still being drawn, and stops for good at the reader's first scroll, tap or key.

The constants import nothing: the lab's plain functions write the key into their links.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

__all__ = ["KEY", "RANKING", "land", "to_top"]

KEY = "at"              # the URL key: which part of the page to open on
RANKING = "ranking"     # its value for a lesson's ranking


@cache
def _component():
    import streamlit as st

    return st.components.v2.component(
        "mizan.scroll_into_view",
        html='<div class="mz-land" hidden></div>',
        js=(Path(__file__).with_name("scroll") / "scroll.js").read_text(encoding="utf-8"))


def land(where: str, selector: str, *, key: str, covered_by: str | None = None) -> None:
    """When the URL asks for ``where`` (``?at=<where>``), scroll the first element matching
    ``selector`` to the top of the view, once per mounting (a rerun keeps the component
    mounted: it does not scroll again). ``covered_by``: a sticky element over the top of the
    page (a lesson's metrics strip) to land below."""
    import streamlit as st

    if st.query_params.get(KEY) != where:
        return
    _mount(selector, key=key, covered_by=covered_by)


def to_top(*, key: str) -> None:
    """Scroll the page to its top once (a new ``key`` scrolls again): the presenter view
    switched on from a button low on the page must open on its first screen, not where
    the page happened to be."""
    _mount("[data-testid=stMainBlockContainer]", key=key)


def _mount(selector: str, *, key: str, covered_by: str | None = None) -> None:
    import streamlit as st

    # hidden (base.css): no gap in the page; one container per use (a page opened at its
    # ranking and the presenter view switched on use two in one run)
    with st.container(key=f"mz-land-{key}"):
        _component()(key=key, data={"selector": selector, "covered_by": covered_by or ""},
                     width="stretch", height=0)
