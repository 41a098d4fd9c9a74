"""A quiz answered inside a lesson is saved in the browser and counted on /practice."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

STORAGE_KEY = "mizan.progress.v1"
ITEM = "rp-seed-precision-at-4"


@pytest.fixture(scope="module")
def app_url(streamlit_server) -> str:
    return streamlit_server("app.py", **{"runner.postScriptGC": False})


def test_lesson_quiz_answer_is_saved_and_kept_with_older_progress(page, app_url):
    page.goto(f"{app_url}/recall-precision?lang=en")
    box = page.locator(f".st-key-mz-quiz-{ITEM} input[type=text]")
    expect(box).to_be_visible(timeout=30_000)
    # Progress saved on an earlier visit (a precision exercise on /practice) must survive
    # the lesson's first write.
    page.goto(f"{app_url}/practice?lang=en&m=precision&s=7")
    expect(page.locator(".st-key-px-box input[type=text]")).to_be_visible(timeout=30_000)
    page.locator(".st-key-px-box input[type=text]").fill("0.5")
    page.locator(".st-key-px-box input[type=text]").press("Enter")
    page.wait_for_function(
        f"(localStorage.getItem('{STORAGE_KEY}') || '').includes('precision')")

    page.goto(f"{app_url}/recall-precision?lang=en")
    box = page.locator(f".st-key-mz-quiz-{ITEM} input[type=text]")
    expect(box).to_be_visible(timeout=30_000)
    assert ITEM not in (page.evaluate(f"localStorage.getItem('{STORAGE_KEY}')") or "")
    box.fill("0.5")
    box.press("Enter")
    page.wait_for_function(
        f"(localStorage.getItem('{STORAGE_KEY}') || '').includes('{ITEM}')", timeout=20_000)
    saved = json.loads(page.evaluate(f"localStorage.getItem('{STORAGE_KEY}')"))
    assert saved["quiz"][ITEM]["right"] is True
    assert saved["exercises"]["precision"]["attempts"] == 1   # the earlier progress is kept
