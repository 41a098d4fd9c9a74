"""Share the current state: a "copy link" button and a QR code, both made on this machine.

The link is built on the server from ``st.context.url`` (the address the browser used, so
it works under any host name or port) plus the current ``st.query_params``; the copy
button is a tiny ``st.components.v2`` component (no iframe, no network) that copies it
with the Clipboard API, falling back to selecting the text (plain-HTTP classroom servers
have no Clipboard API). The QR code is drawn by ``segno`` as SVG. A page names the query
parameters that must never travel in a shared link (``keep_private("me")``: the live
classroom's old participant token); the link, the copy box and the QR code leave them out.
"""

from __future__ import annotations

import functools
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import segno
import streamlit as st

from runtime.state import current_url
from text import bidi
from text.i18n import current_lang, direction, t

__all__ = ["keep_private", "qr_svg", "share_panel", "shareable"]

_PRIVATE: set[str] = set()   # query parameters no shared link may carry (see keep_private)

_HTML = '<div class="mz-copy"></div>'
_CSS = """
.mz-copy { display: flex; gap: .5rem; align-items: stretch; flex-wrap: wrap; }
.mz-copy input {
  flex: 1 1 12rem; min-width: 0; direction: ltr; text-align: left; font: inherit;
  font-size: .85rem; padding: .35rem .5rem; border-radius: .5rem;
  border: 1px solid rgba(49, 51, 63, .2); background: transparent; color: inherit;
}
.mz-copy button {
  font: inherit; padding: .35rem .8rem; border-radius: .5rem; cursor: pointer;
  border: 1px solid rgba(49, 51, 63, .2); background: transparent; color: inherit;
}
.mz-copy button:focus-visible, .mz-copy input:focus-visible { outline: 2px solid #ff4b4b; }
.mz-copy [role=status] { flex-basis: 100%; font-size: .85rem; min-height: 1.2em; }
"""
_JS = """
export default function mountCopyLink(component) {
  const { data, parentElement } = component;
  const root = parentElement.querySelector(".mz-copy");
  if (!root) return undefined;
  root.replaceChildren();
  root.setAttribute("dir", data.dir || "ltr");
  const input = document.createElement("input");
  input.type = "text";
  input.readOnly = true;
  input.value = data.url || window.location.href;
  input.setAttribute("aria-label", data.label || "");
  input.setAttribute("dir", "ltr");
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = data.copy || "Copy";
  const status = document.createElement("span");
  status.setAttribute("role", "status");
  button.addEventListener("click", async () => {
    const text = data.url || window.location.href;
    try {
      await navigator.clipboard.writeText(text);
      status.textContent = data.copied || "";
    } catch (err) {
      input.focus();
      input.select();
      let ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      status.textContent = ok ? (data.copied || "") : (data.failed || "");
    }
  });
  input.addEventListener("focus", () => input.select());
  root.append(input, button, status);
  return undefined;
}
"""

_COPY = st.components.v2.component("mizan.copy_link", html=_HTML, css=_CSS, js=_JS)


def keep_private(*names: str) -> None:
    """Never put these query parameters in a shared link (process-wide, idempotent)."""
    _PRIVATE.update(names)


def shareable(url: str) -> str:
    """``url`` without the private parameters."""
    parts = urlsplit(url)
    if not parts.query or not _PRIVATE:
        return url
    params = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
              if k not in _PRIVATE]
    return urlunsplit(parts._replace(query=urlencode(params)))


@functools.lru_cache(maxsize=64)
def qr_svg(url: str, *, scale: int = 4) -> str:
    """An inline SVG QR code for ``url`` (dark modules on white, quiet zone kept)."""
    qr = segno.make(url, error="m", micro=False)
    return qr.svg_inline(scale=scale, border=2, dark="#111", light="#fff", omitsize=True)


def share_panel(*, key: str = "mz-share", qr: bool = True) -> None:
    """Copy-link box and QR code of the current URL (in the current container)."""
    url = shareable(current_url())
    lang = current_lang()
    st.markdown(
        f'<div class="mz-prose" dir="{direction(lang)}" lang="{lang}"><p class="mz-small">'
        f"{bidi.escape_html(t('share.explain'))}</p></div>",
        unsafe_allow_html=True,
    )
    _COPY(
        key=key,
        data={
            "url": url,
            "dir": direction(lang),
            "label": t("share.link_label"),
            "copy": t("share.copy"),
            "copied": t("share.copied"),
            "failed": t("share.copy_failed"),
        },
    )
    if qr and url:
        caption = bidi.escape_html(t("share.qr_caption"))
        st.markdown(
            f'<figure class="mz-qr" dir="{direction(lang)}" lang="{lang}">{qr_svg(url)}'
            f"<figcaption>{caption}</figcaption></figure>",
            unsafe_allow_html=True,
        )
