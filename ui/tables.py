"""One way to write a Markdown table, with one escaping rule.

The rule: **a cell can never break its table or inject Markdown.** A :class:`~text.i18n.Markup`
cell is trusted Markdown (the app's own words, bold, code it built) and a number goes in as it
is; any other value — an id, text a user typed or a file held — is escaped
(:func:`text.bidi.escape_markdown`). Use :func:`code` for an id shown as inline code. In every
cell a ``|`` is escaped and a line break becomes a space. Render the result with
``layout.markdown`` (Latin runs isolated, digits localized).

    table([words["rank"], words["document"]], [[1, code("d7")], [2, code("d2")]])
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from text.bidi import escape_markdown, strip_bidi_controls
from text.i18n import Markup

__all__ = ["bold", "code", "table"]

_PIPE = re.compile(r"(?<!\\)\|")   # a pipe not escaped yet
_ALIGN = {"left": "---", "right": "---:", "center": ":---:"}


def code(value: object) -> Markup:
    """An id as inline code: backticks dropped (a code span cannot hold them safely)."""
    text = strip_bidi_controls(str(value)).replace("`", "").replace("\n", " ").strip()
    return Markup(f"`{text}`") if text else Markup("—")


def bold(value: object) -> Markup:
    """A cell in bold (trusted Markdown stays as it is, anything else is escaped)."""
    return Markup(f"**{_cell(value)}**")


def _cell(value: object) -> str:
    # the app's own Markdown, or a number, as it is; anything else escaped
    text = str(value) if isinstance(value, Markup | int | float) else escape_markdown(value)
    return _PIPE.sub(r"\\|", text.replace("\r", " ").replace("\n", " "))


def table(header: Sequence[object], rows: Iterable[Sequence[object]], *,
          align: Sequence[str] | None = None) -> Markup:
    """A Markdown table. Header cells are labels from the content files: trusted, like Markup.
    ``align``: "left" (default), "right" or "center" per column."""
    head = [Markup(h) if isinstance(h, str) else h for h in header]
    rule = [_ALIGN[a] for a in (align or ["left"] * len(head))]
    lines = ["| " + " | ".join(_cell(h) for h in head) + " |", "|" + "|".join(rule) + "|"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return Markup("\n".join(lines))
