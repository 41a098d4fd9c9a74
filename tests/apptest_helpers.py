"""What every lesson's AppTest file needs: open a page through the real app, read its alerts."""

from __future__ import annotations

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
