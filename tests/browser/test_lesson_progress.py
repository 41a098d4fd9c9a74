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


def test_lesson_exercise_answer_is_saved_like_practice(page, app_url):
    """A lesson's "try it yourself" runs in a fragment; its answer still reaches the browser's
    storage (the panel asks for a full run, after which the shell saves progress)."""
    from teaching import exercises

    ex = exercises.generate("ndcg", 5)
    page.goto(f"{app_url}/ndcg?lang=en&exm=ndcg&ex=5")
    box = page.locator(".st-key-mz-sec-exercise [data-testid=stTextInputField]")
    expect(box).to_be_visible(timeout=30_000)
    box.fill(f"{ex.answer:.2f}")
    box.press("Enter")
    expect(page.locator(".st-key-mz-sec-exercise [data-testid=stAlertContentSuccess]")
           ).to_be_visible(timeout=20_000)
    page.wait_for_function(
        f"(localStorage.getItem('{STORAGE_KEY}') || '').includes('ndcg')", timeout=20_000)
    saved = json.loads(page.evaluate(f"localStorage.getItem('{STORAGE_KEY}')"))
    assert saved["exercises"]["ndcg"]["attempts"] == 1
    assert saved["exercises"]["ndcg"]["correct"] == 1
