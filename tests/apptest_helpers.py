"""What every lesson's AppTest file needs: open a page through the real app, read its alerts."""

from __future__ import annotations

import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

from text import bidi

ROOT = Path(__file__).resolve().parents[1]


def open_lesson(page: str, params: dict[str, str] | None = None, *,
                timeout: float = 60) -> AppTest:
    """Run app.py with ``params`` in the URL, switch to ``page`` and fail on any exception."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    for key, value in (params or {}).items():
        at.query_params[key] = value
    at.run()
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def alert_text(at: AppTest) -> str:
    """Every error, success, warning and info message, without the renderer's bidi isolates."""
    return bidi.strip_bidi_controls(
        "\n".join(str(a.value) for a in [*at.error, *at.success, *at.warning, *at.info]))


_STRIP_CELL = re.compile(r'data-key="([^"]+)">.*?class="mz-metric-value"><bdi dir="ltr">([^<]*)<'
                         r'.*?class="mz-metric-change">(.*?)</div>')


def strip_html(at: AppTest) -> str:
    """The metrics strip's HTML (layout.metrics_strip: one markdown element)."""
    return next(str(m.value) for m in at.markdown if 'class="mz-strip"' in str(m.value))


def strip_values(at: AppTest) -> dict[str, tuple[str, str]]:
    """Each number of the strip by its key: ``{"ndcg": ("0.9724", "")}``, the second part the
    change shown since the last edit (``"0.9724 → 0.9778"``, empty when it did not change).
    Grouped strips (a row per system) repeat keys: the last row wins."""
    return {key: (value, re.sub(r"<[^>]+>|&nbsp;", "", change).strip())
            for key, value, change in _STRIP_CELL.findall(strip_html(at))}
