"""The app shell behind ``app.py``: settings, styling, navigation, sidebar, presenter bar.

Per full rerun it costs a few milliseconds (cached files, a handful of widgets); reruns of
an ``st.fragment`` inside a page do not run it at all.
"""

from __future__ import annotations

import functools
from pathlib import Path

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from live import limits
from runtime import a11y, catalog, local_store, state
from text import bidi
from text.i18n import STRINGS_DIR, load_content, strings, t
from ui import charts, layout, scroll, share

__all__ = ["run"]

ROOT = Path(__file__).resolve().parents[1]
CSS_DIR = ROOT / "assets" / "css"

LANG_NAMES = {"ar": "العربية", "en": "English"}

charts.use_presenting(layout.is_presenting)  # chart text grows in the presenter view


def css_string(text: str) -> str:
    """``text`` as a double-quoted CSS string that cannot end the string or the <style>.

    Quotes, backslashes, angle brackets, ampersands and control characters become
    6-digit hex escapes (no terminating space needed); everything else stays as is.
    """
    out = []
    for char in text:
        if char in '"\\<>&' or ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\{ord(char):06X}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def ui_text_variables(lang: str) -> str:
    """``:root`` custom properties ``--mz-ui-<key>`` from the ``[streamlit_ui]`` strings.

    rtl.css redraws Streamlit's own English interface text (uploader, input hints, main
    menu…) with ``content: var(--mz-ui-…)``; base.css uses one in both languages (the
    uploader's size line).
    """
    table = strings("streamlit_ui", lang)
    lines = [f"  --mz-ui-{key.replace('_', '-')}: {css_string(str(value))};"
             for key, value in sorted(table.items())]
    return ":root {\n" + "\n".join(lines) + "\n}"


@functools.lru_cache(maxsize=16)
def _css(parts: tuple[str, ...], _mtimes: tuple[int, ...], lang: str) -> str:
    text = "\n".join((CSS_DIR / f"{name}.css").read_text(encoding="utf-8") for name in parts)
    text = ui_text_variables(lang) + "\n" + text
    return f"<style>\n{text}\n</style>"


def inject_css(lang: str, present: bool) -> None:
    """Base CSS, plus the RTL layer in Arabic and the large-type layer when presenting."""
    parts = ("base",) + (("rtl",) if lang == "ar" else ()) + (("present",) if present else ())
    files = [CSS_DIR / f"{p}.css" for p in parts] + [STRINGS_DIR / f"{lang}.toml"]
    mtimes = tuple(path.stat().st_mtime_ns for path in files)
    st.html(_css(parts, mtimes, lang))


def page_title(entry: catalog.Entry, lang: str) -> str:
    content = load_content(entry.folder, lang)
    return content.get("nav_title") or content.get("title") or entry.url_path


def document_title(entry: catalog.Entry, lang: str) -> str:
    """The browser tab's title, in the page's language: the home page's own title, else
    "<page> · <app name>" (each tab says which page it is, WCAG 2.4.2)."""
    if entry.kind == "home":
        return load_content(entry.folder, lang).get("title") or t("app.name", lang=lang)
    return f"{page_title(entry, lang)} · {t('app.name', lang=lang)}"


def build_pages(lang: str) -> dict[str, list]:
    """``st.navigation`` input: home, then the lessons, then practice and lab."""
    home = st.Page(
        catalog.HOME.script,
        title=page_title(catalog.HOME, lang) or t("nav.home"),
        icon=catalog.HOME.icon,
        default=True,
    )
    sections: dict[str, list] = {"": [home]}
    for entry in catalog.available():
        page = st.Page(
            entry.script, title=page_title(entry, lang), icon=entry.icon, url_path=entry.url_path
        )
        label = t("nav.lessons") if entry.kind == "lesson" else t("nav.tools")
        sections.setdefault(label, []).append(page)
    return sections


def entry_of(page) -> catalog.Entry:
    """The catalogue entry behind a ``st.Page`` (home for the default page)."""
    by_path = {entry.url_path: entry for entry in catalog.available()}
    return by_path.get(page.url_path, catalog.HOME)


def page_links(sections: dict[str, list]) -> None:
    """The sidebar's navigation: our own links (``st.navigation`` is hidden). Streamlit's
    sidebar navigation puts ``<li>`` inside a ``<div>`` (invalid list markup); page links keep
    its look, URLs and in-app page switches. A section's name is a label above its links;
    runtime/a11y.js makes the container a named navigation landmark."""
    with st.container(key="mz-nav", gap=None):
        for label, pages in sections.items():
            if label:
                st.html(f'<p class="mz-nav-section">{bidi.escape_html(label)}</p>')
            for page in pages:
                st.page_link(page, label=page.title, icon=page.icon, width="stretch")


def _on_lang() -> None:
    choice = st.session_state.get("_mz_lang_switch")
    if choice:
        state.request_global("lang", choice)


def _on_digits() -> None:
    choice = st.session_state.get("_mz_digits_switch")
    if choice:
        state.request_global("digits", choice)


_TO_TOP = "_mz_present_switched"   # the presenter view was switched: open it at the top


def _set_present(on: bool) -> None:
    state.request_global("present", "1" if on else "0")
    st.session_state[_TO_TOP] = st.session_state.get(_TO_TOP, 0) + 1


def language_controls(settings: state.GlobalSettings) -> None:
    st.session_state["_mz_lang_switch"] = settings.lang
    st.segmented_control(
        t("settings.language"),
        options=list(LANG_NAMES),
        format_func=LANG_NAMES.__getitem__,
        key="_mz_lang_switch",
        on_change=_on_lang,
        required=True,
    )
    if settings.lang == "ar":
        st.session_state["_mz_digits_switch"] = settings.digits
        st.segmented_control(
            t("settings.digits"),
            options=["latn", "arab"],
            format_func=lambda d: t(f"settings.digits_{d}"),
            key="_mz_digits_switch",
            on_change=_on_digits,
            required=True,
            help=t("settings.digits_help"),
        )


def sidebar(settings: state.GlobalSettings, sections: dict[str, list]) -> None:
    with st.sidebar:
        page_links(sections)
        st.divider()
        language_controls(settings)
        st.button(
            t("present.enter"),
            icon=":material/co_present:",
            help=t("present.enter_help"),
            on_click=_set_present,
            args=(True,),
            key="_mz_present_on",
        )
        # Drawn only while open (a rerun opens it): closed, its three elements would still be
        # in the page, and the browser redraws every element of the page several times per
        # rerun, a fragment's included.
        with st.expander(t("share.heading"), icon=":material/share:", key="_mz_share_open",
                         on_change="rerun") as panel:
            if panel.open:
                share.share_panel(key="mz-share-sidebar")


def presenter_bar() -> None:
    with st.container(key="mz-presenter-bar", horizontal=True):
        st.button(
            t("present.exit"),
            icon=":material/close_fullscreen:",
            on_click=_set_present,
            args=(False,),
            key="_mz_present_off",
        )
        with st.popover(t("share.heading"), icon=":material/qr_code_2:"):
            share.share_panel(key="mz-share-present")


def browser_session() -> str | None:
    """The client the live classroom budgets (join attempts, wrong codes): this browser
    tab's Streamlit session (``live`` itself knows nothing of Streamlit)."""
    ctx = get_script_run_ctx()
    return ctx.session_id if ctx else None


limits.client_provider = browser_session


def run() -> None:
    """Everything ``app.py`` does, in order."""
    st.set_page_config(
        page_icon=str(ROOT / "assets" / "mizan-icon.png"),
        layout="wide",
        initial_sidebar_state="auto",
    )
    settings = state.global_settings()
    st.session_state[layout.PRESENT_STATE] = settings.present
    inject_css(settings.lang, settings.present)
    sections = build_pages(settings.lang)
    page = st.navigation(sections, position="top" if settings.present else "hidden")
    if settings.needs_rerun:
        st.rerun()  # a bad value in the link was reset: run again with the clean value
    state.note_page(page.url_path)
    st.set_page_config(page_title=document_title(entry_of(page), settings.lang))
    a11y.page_semantics(settings.lang, {name: code for code, name in LANG_NAMES.items()})
    for message in state.pop_flash():
        st.warning(message, icon=":material/link_off:")
    if settings.present:
        presenter_bar()
    else:
        sidebar(settings, sections)
    if st.session_state.get(_TO_TOP):
        scroll.to_top(key=f"mz-top-{st.session_state[_TO_TOP]}")
    local_store.begin_run()
    with layout.friendly_errors("page"):
        page.run()
    local_store.persist(when_unsaved=True)  # a lesson quiz answered: save it in the browser
