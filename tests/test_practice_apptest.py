"""The practice hub under AppTest: exercises and the mixed quiz are recorded, review cards
and myths follow their schedule, import refuses bad files and keeps good progress, forget
asks first. (The browser's localStorage is covered by tests/browser/test_practice.py.)"""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from lessons.practice import logic
from runtime import local_store
from teaching import exercises
from teaching import progress as pg
from tests.apptest_helpers import alert_text, open_lesson
from text.i18n import load_content, load_quiz

PAGE = "lessons/practice/page.py"
EN = load_content("practice", "en")


def run(params: dict[str, str] | None = None) -> AppTest:
    return open_lesson(PAGE, {"lang": "en", **(params or {})})


def progress(at: AppTest) -> pg.Progress:
    return at.session_state[local_store._STATE].progress


def text(at: AppTest) -> str:
    return "\n".join(str(m.value) for m in at.markdown)


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_opens_with_every_section(lang):
    at = open_lesson(PAGE, {"lang": lang})
    c = load_content("practice", lang)
    page = text(at)
    for key in ("core_idea", "exercise", "predict", "cards", "myths", "quiz", "progress",
                "data"):
        assert c[key]["heading"] in page
    assert not at.error and not at.warning
    assert progress(at).is_empty


def _wrong_value(ex: exercises.Exercise) -> tuple[str, float]:
    for mistake, values in exercises.mistake_values(ex).items():
        for value in values:
            if exercises.check(ex, f"{value:.4f}").mistake == mistake:
                return mistake, value
    raise AssertionError("no diagnosable mistake")


def test_exercise_from_the_link_wrong_then_right_is_recorded():
    at = run({"m": "precision", "s": "7"})
    ex = exercises.generate("precision", 7, lang="en")
    mistake, wrong = _wrong_value(ex)
    box = f"px-{ex.metric}-{ex.seed}-compute-{ex.metric}-{ex.seed}"
    at.text_input(key=f"{box}-typed").set_value(f"{wrong:.4f}")
    at.button(key=f"FormSubmitter:{box}-form-{exercises.texts('en')['labels']['check']}").click()
    at.run()
    assert at.error, "a wrong answer gets a red, targeted message"
    stats = progress(at).exercises["precision"]
    assert (stats.attempts, stats.correct, dict(stats.mistakes)) == (1, 0, {mistake: 1})
    at.run()  # a rerun does not count the same submission again
    assert progress(at).exercises["precision"].attempts == 1
    at.text_input(key=f"{box}-typed").set_value(f"{ex.answer:.4f}")
    at.button(key=f"FormSubmitter:{box}-form-{exercises.texts('en')['labels']['check']}").click()
    at.run()
    stats = progress(at).exercises["precision"]
    assert (stats.attempts, stats.correct, stats.streak) == (2, 1, 1)
    assert "1/2" in text(at)  # the progress table


def test_practise_next_picks_the_weakest_metric_and_a_new_seed():
    at = run({"m": "precision", "s": "7"})
    at.session_state[local_store._STATE].progress = pg.record_exercise(
        pg.Progress(), "ap", False, 1)
    at.button(key="px-next").click().run()
    assert at.query_params["m"] == "ap" and at.query_params["s"] != "7"
    assert not at.exception


def test_mixed_quiz_wrong_then_right_is_recorded():
    at = run()
    item = next(i for _, i in logic.quiz_pool("en") if i["kind"] == "choice")
    at.session_state["pq-round"] = [item["id"]]
    at.run()
    key = f"mz-pq-{item['id']}"
    right = next(n for n, o in enumerate(item["options"]) if o.get("correct"))
    wrong = next(n for n, o in enumerate(item["options"]) if not o.get("correct"))
    at.radio(key=f"{key}-pick").set_value(wrong).run()
    at.button(key=f"{key}-check").click().run()
    assert progress(at).quiz[item["id"]].right is False
    at.radio(key=f"{key}-pick").set_value(right).run()
    at.button(key=f"{key}-check").click().run()
    answer = progress(at).quiz[item["id"]]
    assert (answer.right, answer.tries, answer.first_right, answer.answer) == (
        True, 2, False, str(right))
    assert "You have answered 1 question, 1 of them right" in text(at)


def test_mixed_quiz_numeric_item_is_recorded_once_per_answer():
    at = run()
    item = next(i for _, i in logic.quiz_pool("en") if i["kind"] == "numeric")
    at.session_state["pq-round"] = [item["id"]]
    at.run()
    key = f"mz-pq-{item['id']}"
    at.text_input(key=f"{key}-typed").set_value(str(item["answer"]))
    at.button(key=f"FormSubmitter:{key}-form-Check").click().run()
    at.run()
    assert progress(at).quiz[item["id"]].tries == 1 and progress(at).quiz[item["id"]].right


def _lesson_quiz_script():
    from ui.quiz import quiz

    quiz("recall_precision")


def test_lesson_quiz_is_unchanged_without_a_recorder():
    """A lesson's own quiz (no recorder passed) still checks answers, with its old keys."""
    at = AppTest.from_function(_lesson_quiz_script, default_timeout=30)
    at.run()
    item = next(i for i in load_quiz("recall_precision", "ar") if i["kind"] == "choice")
    key = f"mz-quiz-{item['id']}"
    right = next(n for n, o in enumerate(item["options"]) if o.get("correct"))
    at.radio(key=f"{key}-pick").set_value(right).run()
    at.button(key=f"{key}-check").click().run()
    assert at.success and not at.exception


def test_cards_again_comes_back_good_goes_away():
    at = run()
    first = logic.cards("en")[0]
    at.button(key="pc-show").click().run()
    assert first.back.strip()[:30] in text(at)
    at.button(key="pc-again").click().run()
    p = progress(at)
    assert p.cards[first.id].box == 1 and p.cards[first.id].lapses == 1
    deck = [c.id for c in logic.cards("en")]
    assert pg.due_cards(p, deck, logic.today(None))[-1] == first.id  # back later this session
    at.button(key="pc-show").click().run()
    at.button(key="pc-good").click().run()
    second = logic.cards("en")[1]
    assert progress(at).cards[second.id].box == 1  # the second card was reviewed next


def test_myth_deck_records_and_moves_on():
    at = run()
    at.button(key="pm-knew").click().run()
    myth = logic.myths("en")[0]
    assert progress(at).myths[myth.id].right == 1
    assert "Seen 1 of" in text(at)
    at.button(key="pm-next").click().run()
    assert logic.myths("en")[1].myth in text(at)


def _upload(at: AppTest, name: str, data: bytes) -> None:
    at.file_uploader(key="pd-import").set_value((name, data, "application/json"))
    at.run()


def _some_progress() -> pg.Progress:
    p = pg.record_exercise(pg.Progress(), "recall", True, 100)
    p = pg.record_quiz(p, "rp-x", "1", True, 100)
    return pg.record_myth(p, logic.myths("en")[0].id, True, 100)


def test_import_a_good_file_merges_it():
    at = run()
    at.session_state[local_store._STATE].progress = pg.record_exercise(
        pg.Progress(), "ap", False, 50)
    _upload(at, "mine.json", pg.to_json(_some_progress()).encode())
    p = progress(at)
    assert set(p.exercises) == {"ap", "recall"} and "rp-x" in p.quiz
    # what changed, not what the file held: 1 metric of 1 (recall), 1 answer, 1 belief
    assert "Added or updated from the file: 1 metric, 1 quiz answer, 0 cards and 1 belief" \
        in alert_text(at)
    at.run()  # the same uploaded file is not imported twice
    assert progress(at) == p


def test_importing_what_you_already_have_says_nothing_changed():
    """The file's records are each as old as or older than the session's: the merge keeps the
    session's, and the message says so instead of counting the file's records as added."""
    at = run()
    newer = pg.record_exercise(_some_progress(), "recall", True, 200)
    at.session_state[local_store._STATE].progress = newer
    _upload(at, "old.json", pg.to_json(_some_progress()).encode())
    assert progress(at) == newer
    assert EN["data"]["labels"]["imported_nothing"] in alert_text(at)


@pytest.mark.parametrize(("data", "key"), [
    (b"\x00\x01garbage", "not_json"),
    (b'{"name": "package", "version": "1.0"}', "foreign"),
    (json.dumps({**json.loads(pg.to_json(pg.Progress())), "version": 9}).encode(),
     "newer_version"),
    (pg.to_json(pg.Progress()).replace('"cards":{}', '"cards":[]').encode(), "invalid"),
    (b" " * (pg.MAX_BYTES + 10), "too_large"),
])
def test_a_bad_file_is_refused_and_progress_kept(data, key):
    at = run()
    good = _some_progress()
    at.session_state[local_store._STATE].progress = good
    _upload(at, "bad.json", data)
    assert EN["data"]["errors"][key] in alert_text(at)
    assert progress(at) == good
    assert not at.exception


def test_a_bad_file_in_arabic_gets_the_arabic_message():
    at = open_lesson(PAGE, {"lang": "ar"})
    _upload(at, "bad.json", b"[1, 2]")
    assert load_content("practice", "ar")["data"]["errors"]["foreign"] in alert_text(at)


def test_forget_asks_first_and_cancel_keeps_everything():
    at = run()
    at.session_state[local_store._STATE].progress = _some_progress()
    at.run()
    at.button(key="pd-forget-ask").click().run()
    assert EN["data"]["labels"]["forget_confirm"] in alert_text(at)
    assert not progress(at).is_empty
    at.button(key="pd-forget-no").click().run()
    assert not progress(at).is_empty
    at.button(key="pd-forget-ask").click().run()
    at.button(key="pd-forget-yes").click().run()
    assert progress(at).is_empty
    assert EN["data"]["labels"]["forgotten"] in alert_text(at)


def test_what_the_browser_had_is_merged_and_storage_problems_are_shown():
    at = run()
    store = at.session_state[local_store._STATE]
    store.progress = pg.record_exercise(pg.Progress(), "ap", True, 500)
    stored = pg.to_json(pg.record_exercise(pg.Progress(), "rr", True, 400))
    # What the component's "loaded" trigger does when the browser hands over its value.
    local_store.receive(store, "ok", stored)
    at.run()
    assert set(progress(at).exercises) == {"ap", "rr"}
    assert store.text is not None and "ap" in store.text  # the merged record goes back
    local_store.receive(store, "ok", "{broken")
    at.run()
    assert "could not be read" in alert_text(at)
    assert set(progress(at).exercises) == {"ap", "rr"}
    # "Forget my progress" in another tab: what this tab still holds must not come back.
    local_store.receive(store, "ok", pg.to_json(pg.forget(10**9)))
    at.run()
    assert progress(at).is_empty and progress(at).forgotten_at == 10**9
    # ... but the same file imported afterwards (older records) is merged as usual
    local_store.receive(store, "ok", stored)
    at.run()
    assert set(progress(at).exercises) == {"rr"}
    local_store.receive(store, "unavailable", "")
    at.run()
    assert "does not let Mizan save" in alert_text(at)


@pytest.mark.parametrize("params", [{"m": "nope"}, {"s": "-1"}, {"p": "x" * 5000},
                                    {"m": "<script>alert(1)</script>"}])
def test_a_bad_link_falls_back_with_a_message(params):
    at = run(params)
    assert at.warning and not at.exception
    assert exercises.texts("en")["labels"]["your_answer"] in [t.label for t in at.text_input]


@pytest.mark.parametrize("params", [{"lang": "ar", "digits": "arab"}, {"present": "1"},
                                    {"m": "faithfulness", "s": "42", "lang": "ar"}])
def test_other_views_open_cleanly(params):
    at = open_lesson(PAGE, params)
    assert not at.exception and not at.error


def test_nothing_is_handed_to_the_browser_before_it_was_read():
    at = run({"m": "precision", "s": "7"})
    store = at.session_state[local_store._STATE]
    at.button(key="pm-knew").click().run()  # progress made before the browser answered
    assert not progress(at).is_empty
    assert (store.status, store.text, store.rev) == ("pending", None, 0)  # nothing to write
    local_store.receive(store, "empty", "")  # the browser had nothing
    at.run()
    assert store.rev == 1 and pg.from_json(store.text) == progress(at)
    at.run()
    assert store.rev == 1  # unchanged progress: no new write


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_unreadable_stored_progress_names_its_reason_without_asking_for_a_file(lang):
    """The browser's stored progress (no file was chosen) gets its own short reasons."""
    content = load_content("practice", lang)["data"]
    assert set(content["stored_errors"]) == set(content["errors"])
    at = open_lesson(PAGE, {"lang": lang})
    at.session_state[local_store._STATE].status = "refused"
    at.session_state[local_store._STATE].error = "not_json"
    at.run()
    text = alert_text(at)
    assert content["stored_errors"]["not_json"] in text
    assert content["errors"]["not_json"] not in text
    assert not at.exception


def test_the_review_list_counts_every_quiz_question_answered_wrong():
    """Eight wrong quiz answers and an exercise to work on: the list keeps its first five
    entries, but its quiz line says 8, not the four quiz entries left in it."""
    at = run()
    p = pg.record_exercise(pg.Progress(), "recall", False, 100)
    for n, (_, item) in enumerate(logic.quiz_pool("en")[:8]):
        p = pg.record_quiz(p, item["id"], "x", False, 200 + n)
    at.session_state[local_store._STATE].progress = p
    at.run()
    assert "Quiz questions you got wrong last time: **8**." in text(at)
