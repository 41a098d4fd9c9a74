"""Charts as plain Vega-Lite dicts: the one place for the schema, the palette, the chart text in
Arabic, the chart's description and the inline-data trick. Pure Python (no Streamlit), so lesson
``logic`` builds specs with it and tests read them.

Why plain dicts: building a spec with Altair costs ~90 ms a rerun; a dict costs nothing, and
``st.vega_lite_chart`` draws it. Why :func:`inline`: Streamlit converts a *top-level*
``data.values`` to an Arrow table on every rerun (a few ms a chart); rows inside a layer travel
as JSON, which for a few dozen rows is far cheaper.

Colours are named by their role in :data:`PALETTE`. Axes stay left to right in both languages;
:func:`text` isolates an Arabic title so Vega, which draws text itself, keeps its words in order.

Accessibility, done here for every chart :func:`spec` builds (WCAG 2.2 AA):

* every colour a mark is drawn in reaches 3:1 against white, and every text colour 4.5:1
  (``tests/test_charts_a11y.py`` computes them); each bar has a dark outline;
* a second cue besides hue: bars coloured by a category also differ by their outline's dash
  pattern, shown in the legend too;
* one description in the page's language (:func:`describe`: what is plotted against what,
  and every value) is the chart's accessible name; Vega's own generated English labels
  ("X-axis titled 'k' for a discrete scale…", one per mark) are switched off;
* Vega's action menu (download, "Copy Vega-Lite spec", "Show data") is off: pages that offer
  a download have their own buttons (the lab);
* in the presenter view (:func:`use_presenting`) chart text is at least 20 px, and legends
  are never cut short.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any

from text import bidi
from text.i18n import current_lang, fmt_num, list_separator, t

__all__ = ["PALETTE", "SCHEMA", "describe", "inline", "legend", "png", "scale", "spec", "svg",
           "text", "use_presenting"]

SCHEMA = "https://vega.github.io/schema/vega-lite/v5.json"

# Contrast against white in brackets: marks need 3:1, text 4.5:1 (WCAG 1.4.11, 1.4.3).
PALETTE: Mapping[str, str] = MappingProxyType({
    "good": "#14694e",          # right, better, the first relevant document (6.6:1)
    "good_light": "#2e9e78",    # relevant (3.3:1)
    "bad": "#c0392b",           # worse, a regression (5.4:1)
    "neutral": "#7d8793",       # the same, a tie, a series to compare against (3.7:1)
    "muted": "#8a939e",         # not relevant, not counted (3.1:1)
    "accent": "#2f6fde",        # the measure being taught (4.7:1)
    "accent_light": "#5b8fe0",  # what it is made from (the gain before its discount) (3.3:1)
    "zone": "#e9ecf1",          # the background of the part that does not count (a backdrop)
    "rule": "#5b6472",          # a zero line (6.0:1)
    "label": "#4f5967",         # text drawn on a chart (a "k = 5" marker) (7.0:1)
    "run_a": "#1f6f5c",         # the lab's two runs (6.0:1, 3.4:1)
    "run_b": "#c27c0e",
    "text": "#31333f",          # axis and legend text (12.6:1; Streamlit's #808495 was 3.7:1)
    "outline": "#3d4450",       # every bar's outline (9.8:1)
})
# Marks drawn in these colours are backdrops, not data: they need no 3:1.
BACKDROPS = frozenset({"zone"})

# The outline dash of each category of a colour-coded bar chart, in domain order: solid,
# dashed, dotted, dash-dot (the second cue besides hue).
DASHES: tuple[list[float], ...] = ([1, 0], [6, 3], [2, 2], [8, 3, 2, 3])
PRESENTER_PX = 20  # the smallest chart text in the presenter view (read from the back row)
MAX_DESCRIBED = 40  # values listed in a chart's description before "and n more"

# How this run knows it is presenting: the shell hands over a reader (the session's flag), as
# text.i18n does for the language. Unset in plain Python: not presenting.
_presenting: Callable[[], bool] | None = None


def use_presenting(read: Callable[[], bool] | None) -> None:
    """Read "is this the presenter view?" from ``read()`` (the runtime passes the session's)."""
    global _presenting
    _presenting = read


def presenting() -> bool:
    try:
        return bool(_presenting and _presenting())
    except Exception:  # no session (plain Python, tests)
        return False


def spec(height: int, **parts: Any) -> dict[str, Any]:
    """A chart: the schema, its height, no frame around the plot, ``parts``, the accessibility
    settings of the module doc and a description (unless ``parts`` brings its own)."""
    big = presenting()
    chart = {"$schema": SCHEMA, "height": height, **parts}
    for layer in _layers(chart):
        _second_cue(layer)
        if big:
            _large_text(layer)
    chart.setdefault("description", describe(chart))
    chart["config"] = _config(big)
    chart["usermeta"] = {"embedOptions": {"actions": False}}
    return chart


def _config(big: bool) -> dict[str, Any]:
    size = PRESENTER_PX if big else 13
    words = {"labelColor": PALETTE["text"], "titleColor": PALETTE["text"],
             "labelFontSize": size, "titleFontSize": size + (2 if big else 0)}
    return {
        "view": {"stroke": None},
        # Vega names every mark and axis itself, in English ("X-axis titled 'k'…", "rank: 1;
        # rr_weight: 1"): hidden from assistive technology; the description says it all.
        "aria": False,
        "axis": {**words, "aria": False, "domainColor": PALETTE["rule"],
                 "tickColor": PALETTE["rule"]},
        "legend": {**words, "aria": False, "labelLimit": 0, "symbolStrokeColor": PALETTE["outline"],
                   **({"symbolSize": 220} if big else {})},
        "title": {"color": PALETTE["text"], "fontSize": size + 4},
        "mark": {"aria": False},
        "bar": {"stroke": PALETTE["outline"], "strokeWidth": 1},
        "text": {"color": PALETTE["text"], "fontSize": size},
    }


def _layers(chart: Mapping[str, Any]) -> Iterable[dict[str, Any]]:
    """The chart itself (when it has a mark) and every layer, at any depth."""
    if "mark" in chart:
        yield chart  # type: ignore[misc]
    for layer in chart.get("layer", ()):
        yield from _layers(layer)


def _mark_type(layer: Mapping[str, Any]) -> str:
    mark = layer.get("mark")
    return mark.get("type", "") if isinstance(mark, Mapping) else str(mark or "")


def _second_cue(layer: dict[str, Any]) -> None:
    """Bars coloured by a category: the same category also sets the outline's dash pattern
    (a legend shared with the colour shows both). Hairline bars (many queries) keep no outline."""
    if _mark_type(layer) != "bar":
        return
    mark = layer["mark"] if isinstance(layer["mark"], Mapping) else {"type": "bar"}
    if isinstance(mark.get("size"), int | float) and mark["size"] < 4:
        layer["mark"] = {**mark, "strokeWidth": 0}
        return
    encoding = layer.get("encoding", {})
    channel = next((encoding[c] for c in ("color", "fill") if "field" in encoding.get(c, {})), None)
    if channel is None or "strokeDash" in encoding or "scale" not in channel:
        return
    domain = list(channel["scale"].get("domain", ()))
    if len(domain) < 2:
        return
    dash = {"field": channel["field"], "type": channel.get("type", "nominal"),
            "scale": {"domain": domain, "range": [DASHES[i % len(DASHES)]
                                                  for i in range(len(domain))]}}
    # Same field and title as the colour: Vega-Lite merges the two into one legend.
    if "title" in channel:
        dash["title"] = channel["title"]
    if "legend" in channel:
        dash["legend"] = channel["legend"]
    layer["encoding"] = {**encoding, "strokeDash": dash}
    layer["mark"] = {**mark, "strokeWidth": max(mark.get("strokeWidth", 1.5), 1.5)}


def _large_text(layer: dict[str, Any]) -> None:
    if _mark_type(layer) == "text":
        mark = layer["mark"] if isinstance(layer["mark"], Mapping) else {"type": "text"}
        layer["mark"] = {**mark, "fontSize": max(mark.get("fontSize", 0), PRESENTER_PX)}
    for channel in layer.get("encoding", {}).values():
        axis = channel.get("axis") if isinstance(channel, Mapping) else None
        if isinstance(axis, Mapping) and "labelFontSize" in axis:
            channel["axis"] = {**axis, "labelFontSize": max(axis["labelFontSize"], PRESENTER_PX)}


# --- the description -------------------------------------------------------------------------


def _plain(value: Any) -> str:
    """A label as a screen reader gets it: no bidi controls (they are for Vega's drawing)."""
    return bidi.strip_bidi_controls(str(value)).strip()


def _title(channel: Mapping[str, Any] | None) -> str:
    if not channel:
        return ""
    title = channel.get("title")
    return _plain(title) if title else _plain(channel.get("field", ""))


def _shown(value: Any, fmt: str = "") -> str:
    """A value as the chart shows it: a tooltip's ``.2f``/``+.3f`` format, else at most two
    decimals (the lessons' rule)."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, float):
        decimals = int(fmt[-2]) if fmt.endswith("f") and fmt[-2:-1].isdigit() else None
        shown = fmt_num(value, decimals, digits="latn") if decimals is not None else (
            fmt_num(round(value, 2), digits="latn"))
        return f"+{shown}" if fmt.startswith("+") and value > 0 else shown
    if isinstance(value, int):
        return fmt_num(value, digits="latn")
    return _plain(value)


def _point(row: Mapping[str, Any], x: Mapping[str, Any], y: Mapping[str, Any],
           tooltip: Any) -> str:
    """One plotted value: its tooltip's fields when it has a tooltip (made to say what a mark
    is), else "x: y"."""
    if isinstance(tooltip, list) and tooltip:
        tips = [tip for tip in tooltip if isinstance(tip, Mapping) and "field" in tip]
        return list_separator().join(
            f"{_title(tip)} {_shown(row.get(tip['field'], ''), tip.get('format', ''))}"
            for tip in tips)
    return t("chart.point", x=_shown(row.get(x["field"], "")), y=_shown(row.get(y["field"], "")))


def describe(chart: Mapping[str, Any]) -> str:
    """The chart in words, in the page's language: for each plotted layer, what is plotted
    against what and every value (up to :data:`MAX_DESCRIBED`), grouped by its category."""
    sentences: list[str] = []
    top_data = chart.get("data", {}).get("values")
    top_enc = chart.get("encoding", {})
    sep = list_separator()
    for layer in _layers(chart):
        kind = _mark_type(layer)
        encoding = {**top_enc, **layer.get("encoding", {})}
        x, y = encoding.get("x", {}), encoding.get("y", {})
        rows = layer.get("data", {}).get("values", top_data)
        if kind not in ("bar", "line", "point", "area") or not rows:
            continue
        if "field" not in x or "field" not in y:
            continue
        # a category is named when the chart names it (in its legend); internal ones are not
        group = next((encoding[c] for c in ("color", "fill")
                      if isinstance(encoding.get(c), Mapping) and "field" in encoding[c]
                      and encoding[c].get("legend", {}) is not None), None)
        datum = next((encoding[c]["datum"] for c in ("color", "fill")
                      if isinstance(encoding.get(c), Mapping) and "datum" in encoding[c]), None)
        head = t("chart.plots", y=_title(y), x=_title(x))
        if datum is not None:
            head = f"{_plain(datum)}: {head}"
        points = []
        for row in rows[:MAX_DESCRIBED]:
            point = _point(row, x, y, encoding.get("tooltip"))
            if group is not None and row.get(group["field"]) not in (None, ""):
                point += f" ({_plain(row[group['field']])})"
            points.append(point)
        more = len(rows) - MAX_DESCRIBED
        tail = sep + t("chart.more", n=more) if more > 0 else ""
        between = "؛ " if current_lang() == "ar" else "; "  # points hold commas themselves
        sentences.append(f"{head}: {between.join(points)}{tail}.")
    intro = t("chart.kind")
    return " ".join([intro, *sentences]) if sentences else intro


# --- the rest ----------------------------------------------------------------------------------


def inline(chart: dict[str, Any]) -> dict[str, Any]:
    """Move the top-level ``data``, ``encoding`` and ``layer`` into one layer (see the module
    doc: rows inside a layer are not converted to Arrow on every rerun)."""
    inner = {key: chart.pop(key) for key in ("data", "encoding", "layer") if key in chart}
    return {**chart, "layer": [inner]}


def legend(**changes: Any) -> dict[str, Any]:
    """A legend above the plot (every chart of a page lines its plots up), never cut short:
    long labels such as "nDCG@k = DCG@k ÷ IDCG@k" take a line each in the presenter view."""
    columns = 1 if presenting() else 2
    return {"orient": "top", "columns": columns, "labelLimit": 0, "symbolSize": 80, **changes}


def scale(colours: Mapping[str, str]) -> dict[str, list[str]]:
    """A colour scale from ``{label: colour}``."""
    return {"domain": list(colours), "range": list(colours.values())}


def text(label: str) -> str:
    """A chart's title, axis or legend label. Vega draws text itself, left to right, so in
    Arabic the whole label is an RTL isolate (its Latin runs isolated LTR inside): without it
    "وزن RR = 1/المرتبة" comes out with its words in the wrong order."""
    if not label or current_lang() != "ar":
        return label
    return bidi.rtl(bidi.isolate_latin(label))


def svg(chart: dict[str, Any]) -> str:
    """The chart drawn on the server (vl-convert: no browser, no network)."""
    import vl_convert

    return vl_convert.vegalite_to_svg(_fixed_width(chart))


def png(chart: dict[str, Any]) -> bytes:
    import vl_convert

    return vl_convert.vegalite_to_png(_fixed_width(chart), scale=2)


def _fixed_width(chart: dict[str, Any]) -> dict[str, Any]:
    # "container" means the page's width, which a server-side drawing does not have.
    return {**chart, "width": 640} if chart.get("width") == "container" else chart
