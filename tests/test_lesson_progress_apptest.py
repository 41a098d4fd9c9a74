"""A lesson's own quiz answers count in the learner's progress (saved by the shell)."""

from __future__ import annotations

from runtime import local_store
from tests.apptest_helpers import open_lesson

BOX = "mz-quiz-rp-seed-precision-at-4-typed"


def _answer(at, text: str) -> None:
    at.text_input(key=BOX).input(text)
    form = BOX.removesuffix("-typed") + "-form"
    next(b for b in at.button if b.form_id == form).click().run()


def _progress(at):
    return at.session_state["_mz_progress_store"].progress


def test_lesson_quiz_answers_are_recorded_once():
    at = open_lesson("lessons/recall_precision/page.py", {"lang": "en"})
    # Nothing answered yet: nothing to save, so the page mounts no store.
    assert not local_store._unsaved(at.session_state["_mz_progress_store"])
    _answer(at, "0.3")
    answer = _progress(at).quiz["rp-seed-precision-at-4"]
    assert (answer.tries, answer.right) == (1, False)
    at.run()                                   # a rerun does not count the answer again
    assert _progress(at).quiz["rp-seed-precision-at-4"].tries == 1
    _answer(at, "0.5")
    answer = _progress(at).quiz["rp-seed-precision-at-4"]
    assert answer.tries == 2 and answer.right
