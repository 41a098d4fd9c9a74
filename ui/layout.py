"""Page building blocks: every lesson page is a short script of these calls.

Rendering rule: **all lesson text goes through** :func:`markdown` (or a helper built on
it). It fills ``{{placeholders}}``, isolates Latin runs in Arabic (and Arabic runs in
English) so formulas never reverse, localizes digits, and wraps the block in
``<div dir="rtl|ltr" lang="ar|en" class="mz-prose">``. Content files are trusted
Markdown; strings a user typed must be passed as ``values`` (escaped for you) or through
``bidi.escape_markdown`` / ``bidi.escape_html`` first — never concatenated into the text.

The seven lesson sections, in this fixed order (the keys of ``content.<lang>.toml``)::

    core_idea · worked_example · try_it · myths · exercise · cards · quiz

Example page::

    from ui import layout
    from runtime import state
    from text.i18n import load_content, t

    c = load_content("recall_precision")
    layout.lesson_header(c)                       # title, summary, section links
    layout.section(c, "core_idea")
    layout.section(c, "worked_example", values=worked_values())
    with layout.section(c, "try_it"):
        interactive()                              # an @st.fragment
    layout.myths(c)
    with layout.section(c, "exercise"):
        exercise()
    layout.flashcards(c)
    with layout.section(c, "quiz"):
        quiz()
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import ContextDecorator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from runtime import catalog, state
from teaching import measures
from text import bidi
from text.i18n import (
    Markup,
    current_digits,
    current_lang,
    direction,
    fill,
    fmt_num,
    list_separator,
    t,
)

__all__ = [
    "INTERACTIVE_FIRST",
    "PRESENT_STATE",
    "SECTION_ORDER",
    "Metric",
    "answer_block",
    "chart",
    "columns_for",
    "flashcards",
    "formula",
    "friendly_errors",
    "is_presenting",
    "label",
    "lesson_header",
    "markdown",
    "metric_card",
    "metric_row",
    "metrics_strip",
    "myths",
    "presented_chart",
    "prose_html",
    "section",
    "section_anchor",
]

_LOG = logging.getLogger("mizan")

SECTION_ORDER: tuple[str, ...] = (
    "core_idea",
    "worked_example",
    "try_it",
    "myths",
    "exercise",
    "cards",
    "quiz",
)
# A lesson that opens on its interactive: the live part first, then the explanation.
INTERACTIVE_FIRST: tuple[str, ...] = (
    "try_it",
    "core_idea",
    "worked_example",
    "myths",
    "exercise",
    "cards",
    "quiz",
)
PRESENT_STATE = "_mz_present"  # set by the shell on every run


def is_presenting() -> bool:
    """True in the presenter view (``?present=1``)."""
    return bool(st.session_state.get(PRESENT_STATE, False))


def section_anchor(key: str) -> str:
    """The HTML id of a section heading: ``"core_idea"`` → ``"mz-core-idea"``."""
    return "mz-" + key.replace("_", "-")


# --- text ---------------------------------------------------------------------------------


def prose_html(
    text: str,
    values: Mapping[str, Any] | None = None,
    *,
    lang: str | None = None,
    cls: str = "mz-prose",
) -> str:
    """The Markdown string :func:`markdown` renders (for callers that batch several blocks)."""
    lang = lang or current_lang()
    if values is not None or "{{" in text:
        text = fill(text, values)
    text = bidi.isolate(text, lang, digits=current_digits() if lang == "ar" else "latn")
    # Blank lines around the body let Markdown parse it inside the HTML block.
    return f'<div class="{cls}" dir="{direction(lang)}" lang="{lang}">\n\n{text}\n\n</div>'


def markdown(
    text: str,
    values: Mapping[str, Any] | None = None,
    *,
    lang: str | None = None,
    where: DeltaGenerator | None = None,
) -> DeltaGenerator:
    """Render trusted lesson Markdown in the page's language and direction.

    ``values`` fill ``{{name}}`` placeholders (numbers formatted; strings escaped, so a
    user's text can be passed here safely). ``where`` is a container (default: current).
    """
    target = where if where is not None else st
    return target.markdown(prose_html(text, values, lang=lang), unsafe_allow_html=True)


def label(text: str) -> str:
    """A widget label (or expander/tab title) with Latin runs isolated in Arabic.

    ``st.slider(layout.label(t("rp.k_label")), ...)`` keeps ``k``, ``recall@k`` and
    numbers in place inside an Arabic label. Trusted text only (labels are Markdown).
    """
    lang = current_lang()
    return bidi.isolate(text, lang, digits=current_digits() if lang == "ar" else "latn")


def _heading_html(text: str, key: str, lang: str, level: int = 2) -> str:
    text = bidi.isolate(bidi.escape_html(text), lang, digits=current_digits())
    return (
        f'<div class="mz-prose" dir="{direction(lang)}" lang="{lang}">'
        # Streamlit replaces a heading's id with a slug of its text; a span keeps ours.
        f'<span id="{section_anchor(key)}" class="mz-anchor"></span>'
        f'<h{level} class="mz-heading">{text}</h{level}></div>'
    )


# --- lesson structure ----------------------------------------------------------------------


def lesson_header(
    content: Mapping[str, Any],
    folder: str | None = None,
    *,
    sections: Sequence[str] = SECTION_ORDER,
) -> None:
    """Title (h1), above it "Lesson n" when ``folder`` is a numbered lesson of the catalogue,
    then the section chips (``sections`` in the order the page draws them, those with a
    heading; in the presenter view too) and the lead: ``interactive.lead`` (the core idea in
    two or three sentences, for a page that opens on its interactive) or else the summary."""
    lesson_css("lesson")
    number = catalog.number_of(folder) if folder else None
    lang = current_lang()
    title = bidi.isolate(bidi.escape_html(content.get("title", "")), lang, digits=current_digits())
    kicker = ""
    if number is not None:
        kicker = f'<p class="mz-kicker">{bidi.escape_html(t("lesson.number", n=number))}</p>'
    links = [
        f'<a href="#{section_anchor(key)}">'
        f"{bidi.isolate(bidi.escape_html(content[key]['heading']), lang)}</a>"
        for key in sections
        if isinstance(content.get(key), Mapping) and content[key].get("heading")
    ]
    nav = ""
    if links:
        nav = (
            f'<nav class="mz-toc" aria-label="{bidi.escape_html(t("lesson.contents"))}">'
            + " ".join(links)
            + "</nav>"
        )
    st.markdown(
        f'<div class="mz-prose mz-header" dir="{direction(lang)}" lang="{lang}">{kicker}'
        f'<h1 class="mz-title">{title}</h1>{nav}</div>',
        unsafe_allow_html=True,
    )
    lead = content.get("interactive", {}).get("lead") or content.get("summary", "")
    if lead:
        st.markdown(prose_html(lead.strip(), lang=lang, cls="mz-prose mz-lead"),
                    unsafe_allow_html=True)


def section(
    content: Mapping[str, Any],
    key: str,
    values: Mapping[str, Any] | None = None,
    *,
    body: bool = True,
) -> DeltaGenerator:
    """Heading + body Markdown of ``content[key]``; returns its container for ``with``.

    ``with layout.section(c, "try_it"): ...`` puts the interactive part under the text.
    The container has the CSS class ``st-key-mz-sec-<key>``.
    """
    lang = current_lang()
    part = content.get(key, {})
    box = st.container(key=f"mz-sec-{key}")
    if part.get("heading"):
        box.markdown(_heading_html(part["heading"], key, lang), unsafe_allow_html=True)
    if body and part.get("body"):
        markdown(part["body"], values, where=box)
    return box


def myths(content: Mapping[str, Any], key: str = "myths") -> DeltaGenerator:
    """The myth-vs-fact section: each item as a card, the myth labelled ✗, the fact ✓."""
    box = section(content, key)
    lang = current_lang()
    myth_tag, fact_tag = bidi.escape_html(t("lesson.myth")), bidi.escape_html(t("lesson.fact"))
    for i, item in enumerate(content.get(key, {}).get("items", [])):
        myth = bidi.isolate(bidi.escape_html(item.get("myth", "")), lang, digits=current_digits())
        with box.container(border=True, key=f"mz-myth-{i}"):
            st.markdown(
                f'<div class="mz-prose mz-myth" dir="{direction(lang)}" lang="{lang}">'
                f'<p><span class="mz-tag mz-tag-myth">✗ {myth_tag}:</span> {myth}</p></div>',
                unsafe_allow_html=True,
            )
            st.markdown(
                prose_html(item.get("fact", "").strip(), lang=lang, cls="mz-prose mz-fact").replace(
                    "\n\n", f'\n\n<span class="mz-tag mz-tag-fact">✓ {fact_tag}:</span> ', 1
                ),
                unsafe_allow_html=True,
            )
    return box


def flashcards(content: Mapping[str, Any], key: str = "cards") -> DeltaGenerator:
    """Quick-review cards: the front as an expander label, the back inside."""
    box = section(content, key)
    lang = current_lang()
    for item in content.get(key, {}).get("items", []):
        front = bidi.isolate(item.get("front", ""), lang, digits=current_digits())
        with box.expander(front):
            markdown(item.get("back", ""))
    return box


def answer_block(
    key: str,
    body: str | Callable[[], None],
    values: Mapping[str, Any] | None = None,
    *,
    label: str | None = None,
) -> None:
    """Content hidden until asked for.

    Presenter view: a "reveal" toggle (off at first, so the class can think). Normal view:
    an expander. ``body`` is lesson Markdown (rendered with :func:`markdown`) or a
    function that draws anything.
    """

    def draw() -> None:
        if callable(body):
            body()
        else:
            markdown(body, values)

    if is_presenting():
        shown = st.toggle(label or t("present.reveal"), key=f"mz-reveal-{key}")
        if shown:
            with st.container(key=f"mz-answer-{key}"):
                draw()
    else:
        with st.expander(label or t("answer.show")):
            draw()


# --- metrics --------------------------------------------------------------------------------


def _card_html(label: str, value: Any, formula: str | None, decimals: int | None, lang: str) -> str:
    shown = fmt_num(value, decimals) if not isinstance(value, str) else value
    label_html = bidi.isolate(bidi.escape_html(label), lang, digits=current_digits())
    formula_html = (
        f'<div class="mz-metric-formula" dir="ltr">{bidi.escape_html(formula)}</div>'
        if formula
        else ""
    )
    return (
        '<div class="mz-metric">'
        f'<div class="mz-metric-label">{label_html}</div>'
        f'<div class="mz-metric-value"><bdi dir="ltr">{bidi.escape_html(shown)}</bdi></div>'
        f"{formula_html}</div>"
    )


def metric_card(
    label: str, value: Any, formula: str | None = None, *, decimals: int | None = None
) -> DeltaGenerator:
    """One metric: label (page direction), value (big, LTR), optional formula (LTR, small).

    ``value``: a number (formatted with ``fmt_num``, Arabic-Indic digits if chosen) or a
    ready string. ``formula``: plain text such as ``"recall@3 = 1 / 2 = 0.5"``.
    """
    return metric_row([(label, value, formula)], decimals=decimals)


def metric_row(
    cards: Iterable[tuple[str, Any] | tuple[str, Any, str | None]], *, decimals: int | None = None
) -> DeltaGenerator:
    """Several metric cards in one wrapping row (one element: cheap, phone-friendly)."""
    lang = current_lang()
    html_cards = []
    for card in cards:
        label, value, formula = (*tuple(card), None)[:3]
        html_cards.append(_card_html(label, value, formula, decimals, lang))
    cards_html = "".join(html_cards)
    return st.markdown(
        f'<div class="mz-metrics" dir="{direction(lang)}" lang="{lang}">{cards_html}</div>',
        unsafe_allow_html=True,
    )


@dataclass(frozen=True)
class Metric:
    """One number of a metrics strip. ``key`` identifies it across edits (its change is shown
    against the value it had under the same key); ``name`` is the measure in words in the
    page's language, ``symbol`` its Latin symbol (``"recall@3"``)."""

    key: str
    name: str
    symbol: str
    value: float | None
    decimals: int = 2


def measure(key: str, value: float | None, *, k: int | None = None, mean: bool = False,
            decimals: int | None = None, ident: str | None = None) -> Metric:
    """A :class:`Metric` named from the one place measure names live (``teaching.measures``):
    ``measure("recall", 0.5, k=3)`` is «الاستدعاء recall@3» on an Arabic page; its decimals
    come from there too unless given (a question's HitRate is ``1``, not ``1.00``)."""
    places = measures.decimals(key, mean=mean) if decimals is None else decimals
    return Metric(ident or key, measures.words(key, current_lang(), mean=mean),
                  measures.name(key, k, mean=mean), value, places)


def _strip_state(key: str, values: dict[str, str]) -> dict[str, Any]:
    """Remember the last two different sets of values: what each number was before the last
    change, which numbers that change touched, and how many changes there have been."""
    memory = st.session_state.setdefault(f"mz-strip-{key}", {"values": values, "before": {},
                                                                "changed": (), "seq": 0})
    if memory["values"] != values:
        before = memory["values"]
        memory.update(before=before, values=values, seq=memory["seq"] + 1,
                      changed=tuple(k for k, v in values.items() if k in before
                                    and before[k] != v))
    return memory


def metrics_strip(key: str, groups: Sequence[tuple[str | None, Sequence[Metric]]], *,
                  corner: str = "", where: Any = None) -> None:
    """The numbers of an interactive in one strip that stays in view (sticky) while the
    learner drags, edits or moves k. Each number that the last edit changed shows the change
    (``0.50 → 1.00``) and is marked for a moment (a static mark under reduced motion).

    ``groups``: ``[(None, [Metric, ...])]`` for one row of cards (lesson 2), or one row per
    system, ``[("vector", [...]), ("hybrid", [...])]``, with the same measures in each: a small
    table whose head names the measures once and whose top corner shows ``corner`` (lesson 3:
    the question). ``where``: a placeholder drawn earlier (``st.empty()``), so the strip can
    sit above the editor that feeds it."""
    lang = current_lang()
    shown = {f"{label or ''}|{m.key}": fmt_num(m.value, m.decimals) if m.value is not None
             else "—" for label, row in groups for m in row}
    memory = _strip_state(key, shown)
    before, changed = memory["before"], set(memory["changed"])
    flash = f"mz-flash-{memory['seq'] % 2}"
    table = any(label is not None for label, _ in groups)
    rows, spoken = [], []
    if table and groups:
        head = [f'<div class="mz-strip-group">{_isolated(corner, lang)}</div>']
        head += [f'<div class="mz-strip-name">{_metric_name_html(m)}</div>' for m in groups[0][1]]
        rows.append(_strip_row(head, len(groups[0][1]), "mz-strip-head", hidden=True))
    for label, row in groups:
        cells = [f'<div class="mz-strip-group">{_isolated(label, lang)}</div>'] if table else []
        for m in row:
            ident = f"{label or ''}|{m.key}"
            now = shown[ident]
            change, cls = "&nbsp;", "mz-metric mz-strip-cell"
            if ident in changed:
                change = (f'<bdi dir="ltr">{bidi.escape_html(before[ident])} → '
                          f"{bidi.escape_html(now)}</bdi>")
                cls += f" mz-changed {flash}"
                spoken.append(f"{label + ' ' if label else ''}{m.symbol}: {before[ident]} → {now}")
            label_cls = "mz-metric-label mz-sr" if table else "mz-metric-label"
            group = f"{bidi.escape_html(label)} " if table and label else ""
            cells.append(
                f'<div class="{cls}" data-key="{bidi.escape_html(m.key)}">'
                f'<div class="{label_cls}">{group}{_metric_name_html(m)}</div>'
                f'<div class="mz-metric-value"><bdi dir="ltr">{bidi.escape_html(now)}</bdi></div>'
                f'<div class="mz-metric-change">{change}</div></div>')
        rows.append(_strip_row(cells, len(row), "mz-strip-grouped" if table else ""))
    status = bidi.escape_html("; ".join(spoken))
    # the row names' column fits their longest word (a run name such as "dense_v2" broke in
    # two on a phone), up to 12 characters; longer words still break
    longest = max((len(w) for name in (corner, *(label for label, _ in groups))
                   for w in (name or "").split()), default=0)
    width = f' style="--mz-label-ch: {min(max(longest, 6), 12)}"' if table else ""
    html = (f'<div class="mz-strip" dir="{direction(lang)}" lang="{lang}" role="group"{width} '
            f'aria-label="{bidi.escape_html(t("lesson.numbers"))}">{"".join(rows)}'
            f'<span class="mz-sr" role="status" aria-live="polite">{status}</span></div>')
    (where if where is not None else st).markdown(html, unsafe_allow_html=True)


def _isolated(text: str | None, lang: str) -> str:
    return bidi.isolate(bidi.escape_html(text or ""), lang, digits=current_digits())


def _metric_name_html(m: Metric) -> str:
    # A phone's narrow card may break "precision@3" before its "@k", nowhere else.
    symbol = bidi.escape_html(m.symbol).replace("@", "<wbr>@")
    return (f'<span class="mz-metric-name">{bidi.escape_html(m.name)}</span> '
            f'<bdi class="mz-metric-symbol" dir="ltr">{symbol}</bdi>')


def _strip_row(cells: Sequence[str], n: int, cls: str, *, hidden: bool = False) -> str:
    aria = ' aria-hidden="true"' if hidden else ""
    return (f'<div class="mz-strip-row {cls}" style="--mz-cells: {n}"{aria}>'
            + "".join(cells) + "</div>")


def formula(text: str) -> str:
    """A formula with the learner's numbers as lesson Markdown that stands on its own line,
    left to right (never wrapping into a zig-zag inside an Arabic line). Put it on a line of
    its own or after ``<br>``; ``text`` is trusted (built from numbers and ids)."""
    return f'<span class="mz-formula" dir="ltr">`{text}`</span>'


# --- errors ----------------------------------------------------------------------------------


class friendly_errors(ContextDecorator):
    """Catch any unexpected exception, log it, show ``t("error.unexpected")`` instead.

    As a context manager (``with friendly_errors(): ...``) or a decorator (also on an
    ``@st.fragment`` function: put it *under* ``@st.fragment``). Streamlit's own control
    flow (``st.rerun``, ``st.stop``, page switches) is not an ``Exception`` and passes.
    """

    def __init__(self, where: str = "") -> None:
        self.where = where

    def __enter__(self) -> friendly_errors:
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc is None or not isinstance(exc, Exception):
            return False
        _LOG.exception("unexpected error%s", f" in {self.where}" if self.where else "")
        with contextlib.suppress(Exception):
            st.error(t("error.unexpected"), icon=":material/error:")
        return True


def columns_for(n: int, *, presenting: bool | None = None) -> Sequence[DeltaGenerator]:
    """``n`` equal columns (one column in the presenter view, where type is large)."""
    presenting = is_presenting() if presenting is None else presenting
    return [st.container()] * n if presenting else st.columns(n)


# --- charts -----------------------------------------------------------------------------------

PRESENT_CHART_PX = 20          # chart text readable from the back of a room
_PRESENT_CHART_CONFIG = {
    "axis": {"labelFontSize": PRESENT_CHART_PX, "titleFontSize": PRESENT_CHART_PX + 2},
    "legend": {"labelFontSize": PRESENT_CHART_PX, "titleFontSize": PRESENT_CHART_PX,
               "symbolSize": 160, "labelLimit": 0},
    "text": {"fontSize": PRESENT_CHART_PX},
    "title": {"fontSize": PRESENT_CHART_PX + 4},
}


def presented_chart(spec: Any) -> Any:
    """A Vega-Lite spec for the projector: every text at least :data:`PRESENT_CHART_PX` px and
    legends whole (no label limit). Marks and legends that set their own size or limit are
    changed too, since their own setting wins over the config."""
    if isinstance(spec, list):
        return [presented_chart(part) for part in spec]
    if not isinstance(spec, dict):
        return spec
    out = {key: presented_chart(value) for key, value in spec.items()}
    if out.get("type") == "text" and "fontSize" in out:                 # a text mark
        out["fontSize"] = max(out["fontSize"], PRESENT_CHART_PX)
    if isinstance(out.get("legend"), dict):
        out["legend"] = {**out["legend"], "labelLimit": 0}
    if "$schema" in out:                                                # the top level
        config = dict(out.get("config", {}))
        for part, sizes in _PRESENT_CHART_CONFIG.items():
            config[part] = {**config.get(part, {}), **sizes}
        out["config"] = config
    return out


def chart(spec: dict[str, Any]) -> None:
    """A Vega-Lite chart the page's width (larger text in the presenter view)."""
    st.vega_lite_chart(presented_chart(spec) if is_presenting() else spec, width="stretch")


# --- answers ----------------------------------------------------------------------------------


def answer_form(key: str, box_label: str, placeholder: str, check: str) -> str | None:
    """A text box with a "check" button (Enter submits too). Returns the text last checked, or
    None before the first check; the verdict shown under it survives other widgets' reruns.
    Widget keys: ``<key>-form``, ``<key>-typed``; the checked text lives in ``<key>-checked``."""
    # The box and its button on one row, on a phone too (columns would stack).
    with st.form(f"{key}-form", border=False), st.container(
            horizontal=True, vertical_alignment="bottom", key=f"{key}-row"):
        st.text_input(box_label, key=f"{key}-typed", placeholder=placeholder)
        if st.form_submit_button(check):
            st.session_state[f"{key}-checked"] = st.session_state.get(f"{key}-typed", "")
    checked = st.session_state.get(f"{key}-checked")
    if checked is not None and not checked.strip():
        # "check" on an empty box: ask for an answer (not "can't read that number")
        st.info(label(t("answer.type_first")), icon=":material/edit:")
        return None
    return checked


def new_exercise_button(s: state.UrlState, text: str, *, key: str, field: str = "ex",
                        where: Any = st, **kwargs: Any) -> None:
    """The dice button that draws a fresh exercise (a new seed in ``field`` of URL state)."""
    where.button(text, on_click=state.new_seed, args=(s, field), icon=":material/casino:",
                 key=key, **kwargs)


def code_list(ids: Iterable[str]) -> Markup:
    """Ids as inline code joined by the page language's list separator (``،`` in Arabic)."""
    return Markup(list_separator().join(f"`{i}`" for i in ids) or "—")


def next_icon() -> str:
    """A "next" icon that points the way the page reads: left in Arabic."""
    return ":material/arrow_back:" if current_lang() == "ar" else ":material/arrow_forward:"


def verdict_message(verdict: str, text: str) -> None:
    """Feedback on a typed answer: green when ``verdict == "correct"``, amber when the answer
    could not be read (``"not_a_number"``), red for a (diagnosed) mistake."""
    show = {"correct": st.success, "not_a_number": st.warning}.get(verdict, st.error)
    show(label(text))


@functools.lru_cache(maxsize=16)
def _css_file(name: str) -> str:
    path = Path(__file__).resolve().parents[1] / "assets" / "css" / f"{name}.css"
    return f"<style>\n{path.read_text(encoding='utf-8')}\n</style>"


def lesson_css(name: str) -> None:
    """A lesson's own stylesheet, ``assets/css/<name>.css`` (CSS lives in assets, not in
    Python strings). It must not contain ``<``: Streamlit's sanitizer drops such a style."""
    st.html(_css_file(name))
