"""A lesson's own quiz answers count in the learner's progress (saved by the shell)."""

from __future__ import annotations

from runtime import local_store
from teaching import exercises as E
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


def test_lesson_exercise_answers_count_like_practice():
    """A lesson's "try it yourself" records each answer in the learner's progress, by measure,
    exactly as /practice does (and an unreadable answer records nothing)."""
    ex = E.generate("ndcg", 5)
    at = open_lesson("lessons/ndcg/page.py", {"lang": "en", "ex": "5", "exm": "ndcg"})
    box = "ndcg-ex-compute-ndcg-5-typed"
    _submit(at, box, "abc")
    assert "ndcg" not in _progress(at).exercises
    values = next(iter(E.mistake_values(ex).values()))
    _submit(at, box, repr(values[0]))
    stats = _progress(at).exercises["ndcg"]
    assert (stats.attempts, stats.correct, stats.streak) == (1, 0, 0)
    assert stats.mistakes == {E.check(ex, repr(values[0])).mistake: 1}
    at.run()                                   # a rerun does not count the answer again
    assert _progress(at).exercises["ndcg"].attempts == 1
    _submit(at, box, f"{ex.answer:.2f}")
    stats = _progress(at).exercises["ndcg"]
    assert (stats.attempts, stats.correct, stats.streak) == (2, 1, 1)
    assert local_store._unsaved(at.session_state["_mz_progress_store"])   # the shell saves it


def _submit(at, box: str, text: str) -> None:
    at.text_input(key=box).input(text)
    form = box.removesuffix("-typed") + "-form"
    next(b for b in at.button if b.form_id == form).click().run()
    assert not at.exception, [e.value for e in at.exception]
