"""The live-classroom storage, the same suite against SQLite and PostgreSQL.

PostgreSQL is a throwaway cluster started from Debian's server binaries (tests/live_pg.py);
each test gets a fresh database in it. Concurrency tests use real separate processes, each
with its own engine, answering the same question at the same moment.
"""

# ruff: noqa: F811  (the fixtures imported from tests.live_pg are parameters here)
from __future__ import annotations

import csv
import io
import math
import multiprocessing
import sys
import time
import types

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import func, inspect, select

from live import db
from live.models import Base, LiveAnswer, LiveParticipant
from live.service import LiveError, LiveService, QuestionSpec, normalise_code
from metrics import binary, graded
from tests import live_pg
from tests.live_pg import db_url, pg_cluster, svc  # noqa: F401 (shared fixtures)

RANKING = ["d7", "d2", "d9", "d4", "d1"]
QRELS = {"d2": 1, "d4": 1}
GRADED = {"d7": 3, "d2": 2, "d9": 3, "d1": 1, "d8": 3}  # d8 judged, never retrieved


def recall_spec(k: int = 3) -> QuestionSpec:
    right = binary.recall(RANKING, QRELS, k)
    return QuestionSpec("numeric", "metric", f"{right:.4f}", measure="recall",
                        scenario={"ranking": RANKING, "qrels": QRELS, "k": k})


def choice_spec() -> QuestionSpec:
    return QuestionSpec("choice", "better", "A", options=[
        {"value": "A"}, {"value": "B", "mistake": "hits_only"}, {"value": "tie"}])


# --- backends ----------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _unpaced(monkeypatch):
    """These tests (and their worker processes, which inherit the environment) answer many
    times a second on purpose; the pacing has its own tests in test_live_limits.py."""
    monkeypatch.setenv("MIZAN_LIVE_ANSWERS_PER_SECOND", "100000")


@pytest.fixture
def room(svc):
    """An open session with two students and an open recall@3 question."""
    created = svc.create_session("recall_precision")
    ali = svc.join(created.code, "Ali")
    anon = svc.join(created.code)
    qid = svc.push_question(created.code, created.host_token, recall_spec())
    return created, ali, anon, qid


def rows(svc: LiveService, qid: int) -> list[tuple]:
    with db.read(svc.engine) as conn:
        return conn.execute(select(LiveAnswer.participant_id, LiveAnswer.value,
                                   LiveAnswer.revisions)
                            .where(LiveAnswer.question_id == qid)).all()


# --- schema ------------------------------------------------------------------------------------


def test_migrations_build_exactly_the_models_and_are_idempotent(svc):
    with svc.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == []
    db.upgrade(svc.engine)  # a second start changes nothing
    names = set(inspect(svc.engine).get_table_names())
    assert {"live_sessions", "live_questions", "live_participants", "live_answers",
            "alembic_version"} <= names
    from alembic import command

    cfg = db.alembic_config(svc.engine.url.render_as_string(hide_password=False))
    with svc.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "base")
    assert "live_answers" not in inspect(svc.engine).get_table_names()
    db.upgrade(svc.engine)
    assert "live_answers" in inspect(svc.engine).get_table_names()


def test_sqlite_file_is_in_wal_mode_with_a_busy_timeout(tmp_path, monkeypatch):
    monkeypatch.delenv("MIZAN_DATABASE_URL", raising=False)
    monkeypatch.setenv("MIZAN_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("MIZAN_DB_STATEMENT_TIMEOUT_S", "7.5")
    url = db.database_url()
    assert url == f"sqlite:///{tmp_path / 'data' / 'mizan.sqlite3'}"
    engine = db.make_engine(url)
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 7500
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    engine.dispose()
    assert (tmp_path / "data" / "mizan.sqlite3").is_file()


def test_postgres_urls_go_to_psycopg3(monkeypatch):
    monkeypatch.setenv("MIZAN_DATABASE_URL", "postgresql://u:p%40ss@db.example:5433/mizan")
    assert db.database_url() == "postgresql+psycopg://u:p%40ss@db.example:5433/mizan"


# --- sessions and joining ----------------------------------------------------------------------


def test_codes_are_short_unambiguous_and_typed_forgivingly(svc):
    created = svc.create_session()
    assert len(created.code) == 6 and not set(created.code) & set("01OIL")
    spaced = f" {created.code[:3].lower()}-{created.code[3:].lower()} "
    assert normalise_code(spaced) == created.code
    assert svc.session_exists(spaced) == "open"
    joined = svc.join(spaced, "Mona")
    assert joined.label == "Mona" and not joined.anonymous
    assert normalise_code("٢ab ٣") == "2AB3"


def test_unknown_and_closed_sessions_refuse_to_join_with_one_message(svc):
    with pytest.raises(LiveError) as err:
        svc.join("ZZZZZZ", "x")
    assert err.value.key == "unknown_session"
    created = svc.create_session()
    svc.close_session(created.code, created.host_token)
    with pytest.raises(LiveError) as err:
        svc.join(created.code, "late")
    assert err.value.key == "unknown_session"  # no oracle: closed reads like unknown
    assert created.code not in svc.open_sessions()


def test_nicknames_are_labels_unique_per_session_and_stored_verbatim(svc):
    created = svc.create_session()
    html = '<b onclick=x>hi</b>'
    assert svc.join(created.code, html).label == html  # stored as typed, escaped on display
    assert svc.join(created.code, "  سارة  ").label == "سارة"
    assert svc.join(created.code, "Ali\u00a0\u3000 Baba").label == "Ali Baba"  # one space
    svc.join(created.code, "Sara")
    # look-alikes of a taken nickname: case, full width, spaces, accents, tashkeel, tatweel
    for taken in ("سارة", "سـارَة", " SARA ", "sara", "ＳＡＲＡ", "S a r a", "Sára", "AliBaba"):
        with pytest.raises(LiveError) as err:
            svc.join(created.code, taken)
        assert err.value.key == "nickname_taken", taken
    with pytest.raises(LiveError) as err:
        svc.join(created.code, "x" * 25)
    assert err.value.key == "nickname_too_long"
    for invisible in ("Sa\u200bra", "سارة\u202e", "\u200f\u202e", "\u2066x\u2069",
                      "a\u3164", "\u2800", "x\ufeff", "A\u180ei"):
        with pytest.raises(LiveError) as err:
            svc.join(created.code, invisible)
        assert err.value.key == "nickname_invisible", ascii(invisible)
    for number in ("#1", "# 12", "＃３", "#١", "♯7", "#2b"):  # reads as an anonymous student
        with pytest.raises(LiveError) as err:
            svc.join(created.code, number)
        assert err.value.key == "nickname_reserved", number
    with pytest.raises(LiveError) as err:
        svc.join(created.code, "\u0301\u0640")  # a lone accent and tatweel: nothing to see
    assert err.value.key == "nickname_invalid"
    assert svc.join(created.code, "C#1 fan").label == "C#1 fan"  # '#' inside a name is fine
    first, second = svc.join(created.code, "   "), svc.join(created.code)
    assert first.anonymous and second.anonymous and first.label != second.label
    assert first.token != second.token
    assert svc.participant(created.code, first.token) == first
    assert svc.participant("ZZZZZZ", first.token) is None


# --- answering ---------------------------------------------------------------------------------


def test_an_answer_is_stored_once_and_changed_until_the_question_closes(svc, room):
    created, ali, anon, qid = room
    assert svc.answer(created.code, ali.token, qid, "0.33").previous is None
    again = svc.answer(created.code, ali.token, qid, "1/3")
    assert again.previous == "0.33" and again.value == "0.3333"
    svc.answer(created.code, anon.token, qid, "٠٫٥")
    assert sorted((v, r) for _, v, r in rows(svc, qid)) == [("0.3333", 2), ("0.5", 1)]
    assert svc.my_answer(qid, ali.token) == "0.3333"
    svc.close_question(created.code, created.host_token, qid)
    with pytest.raises(LiveError) as err:
        svc.answer(created.code, ali.token, qid, "0.5")
    assert err.value.key == "question_closed"
    assert svc.my_answer(qid, ali.token) == "0.3333"


@pytest.mark.parametrize(("value", "key"), [
    ("", "answer_empty"), ("   ", "answer_empty"), ("9" * 65, "answer_too_long"),
    ("half", "answer_not_number"), ("inf", "answer_not_number"), ("nan", "answer_not_number"),
    ("1e9", "answer_not_number"), ("<b>0.5</b>", "answer_not_number"),
])
def test_bad_answers_are_refused_and_nothing_is_written(svc, room, value, key):
    created, ali, _, qid = room
    before = svc.poll(created.code)
    with pytest.raises(LiveError) as err:
        svc.answer(created.code, ali.token, qid, value)
    assert err.value.key == key
    assert rows(svc, qid) == []
    assert svc.poll(created.code) == before  # the refused write was rolled back entirely


def test_answers_to_the_wrong_place_are_refused(svc, room):
    created, ali, _, qid = room
    other = svc.create_session()
    stranger = svc.join(other.code, "Ali")  # same nickname, another session
    other_q = svc.push_question(other.code, other.host_token, choice_spec())
    cases = [
        (created.code, stranger.token, qid, "not_joined"),
        (created.code, "f" * 32, qid, "not_joined"),
        (created.code, ali.token, other_q, "question_unknown"),
        (created.code, ali.token, 999_999, "question_unknown"),
        ("ZZZZZZ", ali.token, qid, "unknown_session"),
        (other.code, stranger.token, other_q, None),
    ]
    for code, token, question, key in cases:
        if key is None:
            with pytest.raises(LiveError) as err:
                svc.answer(code, token, question, "C")
            assert err.value.key == "answer_not_option"
            continue
        with pytest.raises(LiveError) as err:
            svc.answer(code, token, question, "0.5")
        assert err.value.key == key
    assert rows(svc, qid) == [] and rows(svc, other_q) == []


def test_pushing_a_question_closes_the_previous_one(svc, room):
    created, ali, _, qid = room
    svc.answer(created.code, ali.token, qid, "0.5")
    second = svc.push_question(created.code, created.host_token, choice_spec())
    assert svc.question(qid).status == "closed"
    assert svc.current_question(created.code).id == second
    with pytest.raises(LiveError) as err:
        svc.answer(created.code, ali.token, qid, "0.4")
    assert err.value.key == "question_closed"
    svc.answer(created.code, ali.token, second, "B")
    assert svc.question(second).position == 2


def test_only_the_host_controls_the_session(svc, room):
    created, ali, _, qid = room
    wrong = "0" * 32
    ali_id = next(m.id for m in svc.members(created.code, created.host_token)
                  if m.label == "Ali")
    for action in (lambda: svc.push_question(created.code, wrong, choice_spec()),
                   lambda: svc.close_question(created.code, wrong, qid),
                   lambda: svc.reveal(created.code, wrong, qid),
                   lambda: svc.close_session(created.code, wrong),
                   lambda: svc.export_csv(created.code, wrong),
                   lambda: svc.rotate_key(created.code, wrong),
                   lambda: svc.set_joining(created.code, wrong, locked=True),
                   lambda: svc.members(created.code, wrong),
                   lambda: svc.remove_participant(created.code, wrong, ali_id),
                   lambda: svc.resume_host(created.code, wrong),
                   lambda: svc.resume_host("ZZZZZZ", created.host_token)):
        with pytest.raises(LiveError) as err:
            action()
        assert err.value.key == "not_host"
    assert svc.question(qid).is_open and not svc.question(qid).revealed
    assert svc.participant(created.code, ali.token) is not None
    assert not svc.poll(created.code).joining_locked
    with pytest.raises(LiveError) as err:
        svc.push_question(created.code, created.host_token,
                          QuestionSpec("choice", "x", "Z", options=[{"value": "A"}]))
    assert err.value.key == "bad_question"


# --- the tally ---------------------------------------------------------------------------------


def test_tally_finds_the_most_common_wrong_answer_and_its_misconception(svc, room):
    created, ali, anon, qid = room
    more = [svc.join(created.code, f"s{i}") for i in range(4)]
    # recall@3 = 1/2; 1/3 divides by k (the precision formula), 1/1 only by retrieved relevant
    answers = ["0.33", "0.333", "1/3", "0.5", "1", "0.5"]
    for student, value in zip([ali, anon, *more], answers, strict=True):
        svc.answer(created.code, student.token, qid, value)
    tally = svc.tally(qid)
    assert tally.answered == 6 and tally.participants == 6
    assert tally.n_correct == 2 and tally.correct == "0.50"
    assert tally.distribution == [("0.33", 3), ("0.50", 2), ("1.00", 1)]
    assert tally.top_wrong == "0.33" and tally.top_wrong_count == 3
    assert tally.mistake == "recall_divided_by_k"


def test_tally_of_ndcg_names_the_ideal_from_retrieved_mistake(svc):
    created = svc.create_session()
    k = 5
    right = graded.ndcg(RANKING, GRADED, k)
    spec = QuestionSpec("numeric", "metric", f"{right:.4f}", measure="ndcg",
                        scenario={"ranking": RANKING, "qrels": GRADED, "k": k})
    qid = svc.push_question(created.code, created.host_token, spec)
    grades = [GRADED.get(d, 0) for d in RANKING]
    dcg = graded.dcg(RANKING, GRADED, k)
    from_retrieved = dcg / sum(g / math.log2(i + 1)
                               for i, g in enumerate(sorted(grades, reverse=True), 1))
    for i, value in enumerate([from_retrieved, from_retrieved, right]):
        student = svc.join(created.code, f"n{i}")
        svc.answer(created.code, student.token, qid, f"{value:.3f}")
    tally = svc.tally(qid)
    assert tally.n_correct == 1 and tally.mistake == "ideal_from_retrieved"


def test_choice_tally_keeps_option_order_and_the_option_mistake(svc):
    created = svc.create_session()
    qid = svc.push_question(created.code, created.host_token, choice_spec())
    for i, value in enumerate(["B", "B", "A", "B"]):
        svc.answer(created.code, svc.join(created.code, f"c{i}").token, qid, value)
    tally = svc.tally(qid)
    assert tally.distribution == [("A", 1), ("B", 3), ("tie", 0)]
    assert (tally.top_wrong, tally.mistake, tally.n_correct) == ("B", "hits_only", 1)
    svc.reveal(created.code, created.host_token, qid)
    q = svc.question(qid)
    assert q.revealed and q.status == "closed"


def test_poll_counts_every_change_and_the_phones_counter_only_question_changes(svc, room):
    created, ali, _, qid = room
    first = svc.poll(created.code)
    svc.answer(created.code, ali.token, qid, "0.5")
    after_answer = svc.poll(created.code)
    assert after_answer.version == first.version + 1
    assert after_answer.state_version == first.state_version
    svc.close_question(created.code, created.host_token, qid)
    closed = svc.poll(created.code)
    assert closed.state_version == first.state_version + 1 and closed.question_id == qid
    assert svc.poll(created.code, max_age=60) == closed  # cached
    svc.reveal(created.code, created.host_token, qid)
    assert svc.poll(created.code, max_age=60) == closed  # still the cached one
    assert svc.poll(created.code).state_version == closed.state_version + 1
    assert svc.poll("ZZZZZZ") is None


def test_export_csv_has_every_answer_and_neutralises_formulas(svc, room):
    created, ali, anon, qid = room
    evil = svc.join(created.code, '=HYPERLINK("//x","y")')
    arabic = svc.join(created.code, "ليلى")
    for student, value in [(ali, "0.5"), (anon, "0.33"), (evil, "0.5"), (arabic, "0.5")]:
        svc.answer(created.code, student.token, qid, value)
    svc.answer(created.code, anon.token, qid, "0.3")
    table = list(csv.DictReader(io.StringIO(svc.export_csv(created.code, created.host_token))))
    assert len(table) == 4
    by_nick = {row["nickname"]: row for row in table}
    assert by_nick["'=HYPERLINK(\"//x\",\"y\")"]["is_correct"] == "1"
    assert by_nick["ليلى"]["answer"] == "0.5"
    assert by_nick[""]["answer"] == "0.3" and by_nick[""]["revisions"] == "2"
    assert by_nick[""]["is_correct"] == "0"
    assert {row["session"] for row in table} == {created.code}
    assert all(row["answered_at"].endswith("+00:00") for row in table)


# --- several processes at once -----------------------------------------------------------------

PROCESSES = 4
PER_PROCESS = 15
ROUNDS = 3


def _run_workers(db_url, created, qid, tokens, during=None, until_refused=False):
    ctx = multiprocessing.get_context("fork")
    start, results = ctx.Event(), ctx.Queue()
    chunks = [tokens[i::PROCESSES] for i in range(PROCESSES)]
    procs = [ctx.Process(target=live_pg.answer_worker,
                         args=(db_url, created.code, qid, chunk, ROUNDS, start, results,
                               until_refused))
             for chunk in chunks]
    for proc in procs:
        proc.start()
    start.set()
    if during:
        during()
    outcomes = [results.get(timeout=120) for _ in procs]
    for proc in procs:
        proc.join(30)
        assert proc.exitcode == 0
    return [item for chunk in outcomes for item in chunk]


def test_concurrent_writers_store_every_answer_exactly_once(svc, db_url):
    created = svc.create_session()
    tokens = [svc.join(created.code, f"p{i}").token for i in range(PROCESSES * PER_PROCESS)]
    qid = svc.push_question(created.code, created.host_token, QuestionSpec(
        "choice", "x", "0", options=[{"value": "0"}, {"value": "1"}, {"value": "2"}]))
    before = svc.poll(created.code).version
    outcomes = _run_workers(db_url, created, qid, tokens)
    refused = [value for _, value in outcomes if value.startswith("refused")]
    assert not refused, refused
    last = dict(outcomes)  # each worker's later answers come later in its list
    stored = rows(svc, qid)
    assert len(stored) == len(tokens) == len(last)
    with db.read(svc.engine) as conn:
        ids = dict(conn.execute(select(LiveParticipant.token, LiveParticipant.id)).all())
    by_pid = {pid: (value, revisions) for pid, value, revisions in stored}
    for token, value in last.items():
        assert by_pid[ids[token]] == (value, ROUNDS)
    assert svc.tally(qid).answered == len(tokens)
    assert svc.poll(created.code).version == before + len(tokens) * ROUNDS


def test_closing_while_students_answer_keeps_exactly_the_accepted_answers(svc, db_url):
    created = svc.create_session()
    tokens = [svc.join(created.code, f"q{i}").token for i in range(PROCESSES * PER_PROCESS)]
    qid = svc.push_question(created.code, created.host_token, QuestionSpec(
        "choice", "x", "0", options=[{"value": "0"}, {"value": "1"}, {"value": "2"}]))

    def close_midway():
        deadline = time.monotonic() + 30
        while svc.tally(qid).answered < len(tokens) // 3 and time.monotonic() < deadline:
            time.sleep(0.005)
        svc.close_question(created.code, created.host_token, qid)

    outcomes = _run_workers(db_url, created, qid, tokens, during=close_midway,
                            until_refused=True)
    accepted: dict[str, str] = {}
    refused = 0
    for token, value in outcomes:
        if value.startswith("refused"):
            assert value == "refused:question_closed"
            refused += 1
        else:
            accepted[token] = value
    assert refused > 0 and accepted
    with db.read(svc.engine) as conn:
        stored = dict(conn.execute(
            select(LiveParticipant.token, LiveAnswer.value)
            .join(LiveAnswer, LiveAnswer.participant_id == LiveParticipant.id)
            .where(LiveAnswer.question_id == qid)).all())
        count = conn.scalar(select(func.count()).select_from(LiveAnswer)
                            .where(LiveAnswer.question_id == qid))
    assert count == len(stored) == len(accepted)
    assert stored == accepted  # the last accepted value of each student, nothing after close


def test_a_restarted_process_finds_every_open_session(svc, db_url, monkeypatch):
    opened = [svc.create_session(f"l{i}") for i in range(3)]
    student = svc.join(opened[0].code, "r")
    qid = svc.push_question(opened[0].code, opened[0].host_token, recall_spec())
    svc.answer(opened[0].code, student.token, qid, "0.5")
    svc.close_session(opened[2].code, opened[2].host_token)
    svc.engine.dispose()  # this process lets go of every connection

    ctx = multiprocessing.get_context("spawn")  # a fresh interpreter: nothing shared
    # An AppTest earlier in this process leaves a page script as __main__, and a spawned child
    # re-runs __main__ (/retrieve's would load its model first): the child needs none of it.
    monkeypatch.setitem(sys.modules, "__main__", types.ModuleType("__main__"))
    results = ctx.Queue()
    proc = ctx.Process(target=live_pg.restart_worker, args=(db_url, results))
    proc.start()
    found = results.get(timeout=120)
    proc.join(30)
    assert proc.exitcode == 0
    assert set(found) >= {opened[0].code, opened[1].code}
    assert opened[2].code not in found
    assert found[opened[0].code] == (qid, "open", 1)
    assert found[opened[1].code] == (None, None, 0)
    # and the student can go on answering through a new engine
    fresh = LiveService(db.make_engine(db_url))
    assert fresh.answer(opened[0].code, student.token, qid, "0.4").previous == "0.5"
    fresh.engine.dispose()
