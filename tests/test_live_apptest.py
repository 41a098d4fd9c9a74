"""/live under AppTest: one instructor and several students, each a separate app session, all
sharing one real SQLite database (a temporary MIZAN_DATA_DIR)."""

from __future__ import annotations

import csv
import io
import re

import pytest
from streamlit.testing.v1 import AppTest

from lessons.live import logic
from live.service import service
from teaching import mistakes
from tests.apptest_helpers import alert_text as raw_alerts
from tests.apptest_helpers import open_lesson
from text.i18n import load_content

PAGE = "lessons/live/page.py"
EN = load_content("live", "en")


@pytest.fixture(autouse=True)
def _own_database(tmp_path, monkeypatch):
    monkeypatch.delenv("MIZAN_DATABASE_URL", raising=False)
    monkeypatch.setenv("MIZAN_DATA_DIR", str(tmp_path))
    # AppTest clicks faster than a person: the answer pacing has its own tests
    # (test_live_limits.py)
    monkeypatch.setenv("MIZAN_LIVE_ANSWERS_PER_SECOND", "100000")


def alert_text(at: AppTest) -> str:
    """The alerts as read: without Markdown's backslash escapes of typed values."""
    return re.sub(r"\\(.)", r"\1", raw_alerts(at))


def text(at: AppTest) -> str:
    return "\n".join(str(m.value) for m in at.markdown)


def be_instructor(at: AppTest) -> None:
    """The role switch: AppTest sets a segmented control by its shown label."""
    role = at.segmented_control(key="live-role")
    role.set_value(role.options[1]).run()
    assert at.session_state["live-role"] == "instructor"


def instructor(lang: str = "en") -> AppTest:
    at = open_lesson(PAGE, {"lang": lang})
    be_instructor(at)
    at.button(key="live-start").click().run()
    assert not at.exception
    return at


def host_of(at: AppTest) -> tuple[str, str]:
    host = at.session_state["live-host"]
    return host["code"], host["key"]


def student(code: str, nickname: str = "", lang: str = "en") -> AppTest:
    at = open_lesson(PAGE, {"lang": lang, "join": code})
    assert at.text_input(key="live-join-code").value == code  # filled from the QR link
    at.text_input(key="live-join-nick").input(nickname)
    at.button(key="FormSubmitter:live-join-form-" + EN["join"]["button"]).click().run()
    assert not at.exception
    return at


def send(at: AppTest, qid: int, value: str) -> None:
    widget = at.text_input(key=f"live-ans-{qid}") if any(
        w.key == f"live-ans-{qid}" for w in at.text_input) else at.radio(key=f"live-ans-{qid}")
    (widget.input(value) if hasattr(widget, "input") else widget.set_value(value))
    at.button(key=f"live-send-{qid}").click().run()
    assert not at.exception


def test_instructor_starts_a_session_with_a_code_and_pushes_a_question():
    at = instructor()
    code, key = host_of(at)
    assert len(code) == 6 and code in text(at)
    assert EN["screen"]["waiting"] in alert_text(at)
    at.button(key="live-push").click().run()
    assert "Question 1 is live." in alert_text(at)
    q = service().current_question(code)
    assert q.template == "value_numeric" and q.measure == "recall" and q.correct == "0.5000"
    assert "**recall@3**" in text(at) and "0 of 0 answered" in text(at)
    assert key not in text(at).split(EN["host"]["host_key"])[0]  # the key is not projected


def test_students_answer_change_and_see_the_reveal_with_the_misconception():
    host = instructor()
    code, _ = host_of(host)
    host.button(key="live-push").click().run()
    qid = service().current_question(code).id
    ali, mona, anon = student(code, "Ali"), student(code, "Mona"), student(code)
    for at in (ali, mona, anon):
        assert "What is **recall@3** for this ranking?" in text(at)
    send(ali, qid, "0.5")
    assert "Your answer 0.5 is in." in alert_text(ali)
    send(mona, qid, "1/3")
    send(anon, qid, "٠٫٣٣")                         # Arabic-Indic digits are read too
    send(anon, qid, "0.33")
    assert "You already gave this answer: 0.33." in alert_text(anon)
    send(mona, qid, "0.333")
    assert "Changed from 0.3333 to 0.333." in alert_text(mona)
    send(ali, qid, "half")
    assert EN["error"]["answer_not_number"] in alert_text(ali)
    assert service().my_answer(qid, ali.session_state["live-me"]["token"]) == "0.5"

    host.run()
    assert "3 of 3 answered" in text(host)
    assert len(host.get("vega_lite_chart")) == 1
    host.button(key="live-reveal").click().run()
    shown = alert_text(host)
    assert "Right answer: 0.50 — 33% of the class got it." in shown
    assert "Most common wrong answer: 0.33 (chosen by 2)." in shown
    assert mistakes.text("recall_divided_by_k", "misconception", "en") in shown

    ali.run()
    mona.run()
    assert "The right answer is 0.50. You got it." in alert_text(ali)
    assert "The right answer is 0.50." in alert_text(mona)
    assert not any(w.key == f"live-ans-{qid}" for w in mona.text_input)  # no form once closed


def test_choice_questions_and_which_system_is_better():
    host = instructor()
    code, _ = host_of(host)
    host.selectbox(key="live-template").set_value("better").run()
    host.selectbox(key="live-measure").set_value("rr").run()
    host.button(key="live-push").click().run()
    q = service().current_question(code)
    assert (q.template, q.correct) == ("better", "A")
    students = [student(code, f"s{i}") for i in range(3)]
    assert "Which system is better by **RR@5**?" in text(students[0])
    for at, pick in zip(students, ["B", "B", "A"], strict=True):
        send(at, q.id, pick)
    host.button(key="live-reveal").click().run()
    shown = alert_text(host)
    assert "Right answer: System A — 33% of the class got it." in shown
    assert "Most common wrong answer: System B (chosen by 2)." in shown
    assert mistakes.text("judged_by_recall", "misconception", "en") in shown


def test_closed_question_and_closed_or_unknown_session_give_clear_messages():
    host = instructor()
    code, _ = host_of(host)
    host.button(key="live-push").click().run()
    qid = service().current_question(code).id
    late = student(code, "Late")
    host.button(key="live-close").click().run()
    # the student's screen still shows the form until its next poll: the send is refused
    send(late, qid, "0.5")
    assert EN["error"]["question_closed"] in alert_text(late)
    late.run()
    assert EN["student"]["closed"] in alert_text(late)

    nobody = open_lesson(PAGE, {"lang": "en", "join": "ZZZ999"})
    nobody.button(key="FormSubmitter:live-join-form-Join").click().run()
    assert EN["error"]["unknown_session"] in alert_text(nobody)
    assert "live-me" not in nobody.session_state

    host.button(key="live-end").click().run()
    assert EN["host"]["ended"] in alert_text(host)
    again = open_lesson(PAGE, {"lang": "en", "join": code})
    again.button(key="FormSubmitter:live-join-form-Join").click().run()
    # an ended session reads like an unknown code: typing codes tells nothing (issue 17)
    assert EN["error"]["unknown_session"] in alert_text(again)


def test_hostile_nicknames_are_refused_or_shown_escaped():
    host = instructor()
    code, _ = host_of(host)
    long_one = open_lesson(PAGE, {"lang": "en", "join": code})
    long_one.text_input(key="live-join-nick").input("x" * 40)
    long_one.button(key="FormSubmitter:live-join-form-Join").click().run()
    assert EN["error"]["nickname_too_long"] in alert_text(long_one)
    student(code, "<b>bold</b>")
    taken = open_lesson(PAGE, {"lang": "en", "join": code})
    taken.text_input(key="live-join-nick").input("<B>BOLD</B>")
    taken.button(key="FormSubmitter:live-join-form-Join").click().run()
    assert EN["error"]["nickname_taken"] in alert_text(taken)
    host.run()
    roster = "\n".join(str(h.proto.body) for h in host.get("html"))
    assert "&lt;b&gt;bold&lt;/b&gt;" in roster and "<b>bold</b>" not in roster


def test_arabic_projector_and_resume_with_the_instructor_key():
    host = instructor("ar")
    code, key = host_of(host)
    ar = load_content("live", "ar")
    assert 'dir="rtl" lang="ar"' in text(host)
    assert ar["screen"]["waiting"] in alert_text(host)
    fresh = open_lesson(PAGE, {"lang": "ar"})
    be_instructor(fresh)
    fresh.text_input(key="live-resume-code").input(code.lower())
    fresh.text_input(key="live-resume-key").input("wrong")
    next(b for b in fresh.button if b.key.startswith("FormSubmitter:live-resume")).click().run()
    assert ar["error"]["not_host"] in alert_text(fresh)
    fresh.text_input(key="live-resume-key").input(key)
    next(b for b in fresh.button if b.key.startswith("FormSubmitter:live-resume")).click().run()
    assert fresh.session_state["live-host"]["code"] == code


def test_export_has_one_row_per_student_answer():
    host = instructor()
    code, key = host_of(host)
    host.button(key="live-push").click().run()
    qid = service().current_question(code).id
    for name, value in [("A", "0.5"), ("=cmd|x", "0.2")]:
        send(student(code, name), qid, value)
    rows = list(csv.DictReader(io.StringIO(service().export_csv(code, key))))
    assert [(r["nickname"], r["answer"], r["is_correct"]) for r in rows] == [
        ("A", "0.5", "1"), ("'=cmd|x", "0.2", "0")]
    assert logic.SCENARIOS["binary"].k == 3


def test_a_reload_keeps_the_participant_and_shows_the_stored_answer():
    host = instructor()
    code, _ = host_of(host)
    host.button(key="live-push").click().run()
    qid = service().current_question(code).id
    ali = student(code, "Ali")
    token = ali.session_state["live-me"]["token"]
    assert ali.query_params["me"] == token and ali.query_params["join"] == code
    send(ali, qid, "0.5")
    assert "Your answer 0.5 is in." in alert_text(ali)

    # the phone reloads: a new browser session with the address the page left behind
    again = open_lesson(PAGE, {"lang": "en", "join": code, "me": token})
    assert again.session_state["live-me"] == {"code": code, "token": token, "label": "Ali"}
    assert "You joined session" in alert_text(again) and "Ali" in alert_text(again)
    assert "Your answer: 0.5" in alert_text(again)      # read back from the database
    assert not any(w.key == "live-join-nick" for w in again.text_input)
    send(again, qid, "0.33")
    assert "Changed from 0.5 to 0.33." in alert_text(again)
    assert service().tally(qid).answered == 1          # still one participant, one answer

    again.button(key="live-leave").click().run()
    assert "me" not in again.query_params and "live-me" not in again.session_state


def test_a_foreign_or_malformed_token_in_the_address_asks_to_join():
    host = instructor()
    code, _ = host_of(host)
    for bad in ("0" * 32, "<script>", "x" * 500):
        at = open_lesson(PAGE, {"lang": "en", "join": code, "me": bad})
        assert "live-me" not in at.session_state
        assert "me" not in at.query_params
        assert any(w.key == "live-join-nick" for w in at.text_input)
    other = instructor()
    other_code, _ = host_of(other)
    token = student(other_code, "Zed").session_state["live-me"]["token"]
    at = open_lesson(PAGE, {"lang": "en", "join": code, "me": token})  # another session's
    assert "live-me" not in at.session_state


def test_the_confirmation_is_drawn_from_the_stored_answer_on_every_poll():
    host = instructor()
    code, _ = host_of(host)
    host.button(key="live-push").click().run()
    qid = service().current_question(code).id
    mona = student(code, "Mona")
    send(mona, qid, "1/3")
    assert "Your answer 0.3333 is in." in alert_text(mona)
    # the one-time message is gone (as if its draw never reached the phone): the next poll
    # still confirms, from what is stored
    mona.session_state["live-student"].pop("message")
    mona.run()
    assert "Your answer: 0.3333" in alert_text(mona)


def test_instructor_pushes_a_generated_exercise_by_its_number():
    """The same measure and seed as a lesson's or /practice's exercise: the same case, asked live,
    and a student's wrong number is diagnosed with the catalogue's mistake."""
    from teaching import exercises

    at = instructor()
    code, _ = host_of(at)
    at.selectbox(key="live-sc-value_numeric").set_value("exercise").run()
    at.selectbox(key="live-measure").set_value("ndcg").run()
    at.number_input(key="live-seed").set_value(12).run()
    ex = exercises.generate("ndcg", 12)
    at.button(key="live-push").click().run()
    assert not at.exception and "Question 1 is live." in alert_text(at)
    q = service().current_question(code)
    assert q.measure == "ndcg" and q.correct == f"{ex.answer:.4f}"
    assert q.scenario == {"ranking": list(ex.ranking), "qrels": dict(ex.judgments), "k": ex.k}
    assert q.tolerance == ex.tolerance
