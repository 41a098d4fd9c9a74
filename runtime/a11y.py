"""The page's language, direction and Streamlit's own accessible names, set in the browser.

Streamlit 1.67 writes ``<html lang="en">`` with no ``dir`` on every page and names its own
controls in English ("Main menu", "Collapse sidebar", "Open", "Remove d7"…), in
``aria-label`` attributes no stylesheet can change. :func:`page_semantics` mounts a tiny
``st.components.v2`` component (JS in ``a11y/``, draws nothing) that, in the browser:

* sets ``<html lang dir>`` to the page's language;
* replaces Streamlit's English names by the page language's — ``[streamlit_names]`` in
  ``text/strings/<lang>.toml``: the English file holds Streamlit's exact words (what to
  find), the other language what to say instead; ``*`` stands for a variable part
  ("Remove *"). On an English page the originals come back;
* names the elements whose English text ``assets/css/rtl.css`` redraws in Arabic;
* makes a table or formula that scrolls sideways reachable by keyboard, with a name;
* closes the sidebar after a page is chosen in it when it covers the page (narrow screens).

The page title is set in Python (``shell.page_title``); nothing here changes Streamlit itself.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from text.i18n import direction, strings, t

__all__ = ["LABELLED", "name_pairs", "page_semantics"]

_ASSETS = Path(__file__).with_name("a11y")
# Streamlit's sidebar becomes an overlay at its "md" breakpoint and below.
OVERLAY_MAX_PX = 768

# Elements whose visible English text assets/css/rtl.css hides and redraws in Arabic: their
# accessible name is set to the same words ([streamlit_ui] key of the drawn text).
LABELLED: tuple[tuple[str, str], ...] = (
    ("a[data-testid=stSkipToContent]", "skip_to_content"),
    ("[data-testid=stFileUploaderDropzone] button", "upload"),
)

_COMPONENT = st.components.v2.component(
    "mizan.page_semantics",
    html='<div class="mz-a11y" hidden></div>',
    js=(_ASSETS / "a11y.js").read_text(encoding="utf-8"),
)


def name_pairs(lang: str) -> tuple[list[list[str]], list[list[str]]]:
    """``(exact, patterns)``: [Streamlit's English name, the name in ``lang``] pairs, the
    ones with a ``*`` (a variable part) apart. Empty for English."""
    if lang == "en":
        return [], []
    english, local = strings("streamlit_names", "en"), strings("streamlit_names", lang)
    pairs = [[english[key], local[key]] for key in english if local.get(key)]
    return ([p for p in pairs if "*" not in p[0]], [p for p in pairs if "*" in p[0]])


def page_semantics(lang: str, own_lang: dict[str, str]) -> None:
    """Mount the component (once per full run, from the shell). ``own_lang``: sidebar button
    texts in a language of their own (``{"English": "en"}``), marked with it."""
    exact, patterns = name_pairs(lang)
    drawn = strings("streamlit_ui", lang)
    labelled = [[selector, drawn[key]] for selector, key in LABELLED] if lang != "en" else []
    with st.container(key="mz-a11y"):
        _COMPONENT(
            key="mz-page-semantics",
            data={
                "lang": lang,
                "dir": direction(lang),
                "names": exact,
                "patterns": patterns,
                "labelled": labelled,
                "own_lang": [[text, code] for text, code in own_lang.items() if code != lang],
                "landmarks": [[".st-key-mz-nav", "navigation", t("nav.pages", lang=lang)]],
                "scroll_name": t("a11y.scroll_region", lang=lang),
                "overlay_max": OVERLAY_MAX_PX,
            },
            width="stretch",
            height=0,
        )
