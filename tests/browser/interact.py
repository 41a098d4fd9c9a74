"""Pointer, touch and keyboard helpers for driving the ranking editor in Chromium.

Used by the widget's own tests and by every lesson page that has a ranking.
"""

from __future__ import annotations

from playwright.sync_api import Page


def item(page: Page, item_id: str):
    return page.locator(f'.rk-item[data-id="{item_id}"]')


def centre(locator) -> tuple[float, float]:
    box = locator.bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def drop_point(page: Page, src: str, dst: str) -> tuple[float, float]:
    """Where to release `src` so that it lands at `dst`'s rank: just past `dst`'s centre."""
    ids = page.locator(".rk-item").evaluate_all("els => els.map(e => e.dataset.id)")
    x, y = centre(item(page, dst))
    return x, y + (6 if ids.index(src) < ids.index(dst) else -6)


def mouse_drag(page: Page, src: str, dst: str, *, grip: str = ".rk-handle", steps: int = 8) -> None:
    page.locator(".rk-root").first.scroll_into_view_if_needed()
    x0, y0 = centre(item(page, src).locator(grip))
    _, y1 = drop_point(page, src, dst)
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(x0, y0 + (3 if y1 > y0 else -3))
    page.mouse.move(x0, y1, steps=steps)
    page.mouse.up()


def touch_drag(page: Page, x0: float, y0: float, x1: float, y1: float, steps: int = 10) -> None:
    """A real touch sequence (touchstart/move/end through Chromium's input pipeline)."""
    cdp = page.context.new_cdp_session(page)
    try:
        start = {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]}
        cdp.send("Input.dispatchTouchEvent", start)
        for i in range(1, steps + 1):
            point = {"x": x0 + (x1 - x0) * i / steps, "y": y0 + (y1 - y0) * i / steps}
            cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    finally:
        cdp.detach()
