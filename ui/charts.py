"""Charts as plain Vega-Lite dicts: the one place for the schema, the palette, the chart text in
Arabic and the inline-data trick. Pure Python (no Streamlit), so lesson ``logic`` builds specs
with it and tests read them.

Why plain dicts: building a spec with Altair costs ~90 ms a rerun; a dict costs nothing, and
``st.vega_lite_chart`` draws it. Why :func:`inline`: Streamlit converts a *top-level*
``data.values`` to an Arrow table on every rerun (a few ms a chart); rows inside a layer travel
as JSON, which for a few dozen rows is far cheaper.

Colours are named by their role in :data:`PALETTE` (a later accessibility pass changes them here
and only here). Axes stay left to right in both languages; :func:`text` isolates an Arabic
title so Vega, which draws text itself, keeps its words in order.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from text import bidi
from text.i18n import current_lang

__all__ = ["PALETTE", "SCHEMA", "inline", "legend", "png", "scale", "spec", "svg", "text"]

SCHEMA = "https://vega.github.io/schema/vega-lite/v5.json"

PALETTE: Mapping[str, str] = MappingProxyType({
    "good": "#1b7f5f",          # right, better, the first relevant document
    "good_light": "#7fc8a9",    # relevant
    "bad": "#c0392b",           # worse, a regression
    "neutral": "#9aa3ad",       # the same, a tie, a series to compare against
    "muted": "#c9ced6",         # not relevant, not counted
    "accent": "#2f6fde",        # the measure being taught
    "accent_light": "#b9cdf3",  # what it is made from (the gain before its discount)
    "zone": "#e9ecf1",          # the background of the part that does not count
    "rule": "#5b6472",          # a zero line
    "label": "#5f6b7a",         # text drawn on a chart (a "k = 5" marker)
    "run_a": "#1f6f5c",         # the lab's two runs
    "run_b": "#c27c0e",
})


def spec(height: int, **parts: Any) -> dict[str, Any]:
    """A chart: the schema, its height, no frame around the plot, and ``parts``."""
    return {"$schema": SCHEMA, "height": height, **parts,
            "config": {"view": {"stroke": None}}}


def inline(chart: dict[str, Any]) -> dict[str, Any]:
    """Move the top-level ``data``, ``encoding`` and ``layer`` into one layer (see the module
    doc: rows inside a layer are not converted to Arrow on every rerun)."""
    inner = {key: chart.pop(key) for key in ("data", "encoding", "layer") if key in chart}
    return {**chart, "layer": [inner]}


def legend(**changes: Any) -> dict[str, Any]:
    """A one-row legend above the plot (every chart of a page lines its plots up)."""
    return {"orient": "top", "columns": 2, "labelLimit": 220, "symbolSize": 80, **changes}


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
