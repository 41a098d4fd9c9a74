"""The live classroom hardened (issue 17), on SQLite and PostgreSQL: the instructor key kept only
as a hash (and existing sessions migrated), resuming and rotating it, the limits (joins,
wrong codes, answer pacing, joining lock, removal, idle expiry) and the database timeouts.

Time-based limits run on a fake clock handed to the service, so nothing here sleeps for them.
"""

# ruff: noqa: F811  (the fixtures imported from tests.live_pg are parameters here)
from __future__ import annotations

import os
import signal
import threading
import time

import pytest
from sqlalchemy import select, text

from live import db, limits
from live.errors import DatabaseUnavailable
from live.limits import ClientBudget, Limits
from live.models import LiveParticipant, LiveSession
from live.service import LiveError, LiveService, QuestionSpec, hash_key
from tests import live_pg
from tests.live_pg import db_url, pg_cluster  # noqa: F401 (shared fixtures)


class Clock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def engine(db_url):
    eng = db.make_engine(db_url)
    db.upgrade(eng)
    yield eng
    eng.dispose()


@pytest.fixture
def clock():
    return Clock()


def make(engine, clock, **limit_values) -> LiveService:
    return LiveService(engine, Limits(**limit_values), clock=clock)


def refused(key: str, action) -> None:
    with pytest.raises(LiveError) as err:
        action()
    assert err.value.key == key


SPEC = QuestionSpec("choice", "better", "A", options=[{"value": "A"}, {"value": "B"}])


# --- the instructor key ---------------------------------------------------------------------------


def test_only_a_hash_of_the_key_is_stored_and_it_can_be_rotated(engine, clock):
    svc = make(engine, clock)
    created = svc.create_session()
    with db.read(engine) as conn:
        stored = conn.execute(select(LiveSession.__table__)).mappings().one()
    assert created.host_token not in {str(v) for v in stored.values()}
    assert stored["host_key_hash"] == hash_key(created.host_token)
    assert svc.is_host(created.code, created.host_token)
    assert svc.resume_host(created.code.lower(), created.host_token) == created.code

    new = svc.rotate_key(created.code, created.host_token)
    assert new != created.host_token and len(new) == 32
    refused("not_host", lambda: svc.push_question(created.code, created.host_token, SPEC))
    refused("not_host", lambda: svc.resume_host(created.code, created.host_token))
    assert svc.push_question(created.code, new, SPEC)
    assert svc.resume_host(created.code, new) == created.code

    svc.close_session(created.code, new)
    refused("session_closed", lambda: svc.resume_host(created.code, new))
    refused("session_closed", lambda: svc.push_question(created.code, new, SPEC))
    assert "answer" in svc.export_csv(created.code, new)  # the export still works afterwards


def test_migration_hashes_existing_keys_and_their_sessions_keep_working(db_url):
    eng = db.make_engine(db_url)
    db.upgrade(eng, "0001")
    key = "0123456789abcdef0123456789abcdef"
    with eng.begin() as conn:
        conn.execute(text(
            "INSERT INTO live_sessions (code, host_token, lesson, status, version, "
            "state_version, created_at) VALUES ('OLDKEY', :key, 'x', 'open', 0, 0, "
            "CURRENT_TIMESTAMP)"), {"key": key})
        sid = conn.scalar(text("SELECT id FROM live_sessions"))
        people = [("Sára", "sára"), ("Sara", "sara"), ("ＡＬＩ", "ａｌｉ"), (None, None)]
        for i, (nick, nick_key) in enumerate(people):
            conn.execute(text(
                "INSERT INTO live_participants (session_id, token, nickname, nickname_key, "
                "anon_label, joined_at) VALUES (:sid, :tok, :nick, :nk, :label, "
                "CURRENT_TIMESTAMP)"),
                {"sid": sid, "tok": f"{i:032x}", "nick": nick, "nk": nick_key,
                 "label": f"#{i + 1}"})
    db.upgrade(eng)
    svc = LiveService(eng)
    assert svc.is_host("OLDKEY", key) and svc.resume_host("OLDKEY", key) == "OLDKEY"
    assert svc.poll("OLDKEY").status == "open"  # idle time counts from the migration
    with db.read(eng) as conn:
        assert key not in str(conn.execute(select(LiveSession.__table__)).all())
        keys = dict(conn.execute(select(LiveParticipant.nickname,
                                        LiveParticipant.nickname_key)).all())
    # old look-alikes both stay (the one whose new key is taken keeps its old one)
    assert keys == {"Sára": "sára", "Sara": "sara", "ＡＬＩ": "ali", None: None}
    assert svc.participant("OLDKEY", f"{1:032x}").label == "Sara"
    refused("nickname_taken", lambda: svc.join("OLDKEY", "Ali"))
    refused("nickname_taken", lambda: svc.join("OLDKEY", "SARA"))
    eng.dispose()


# --- joining ------------------------------------------------------------------------------------


def test_a_client_that_tries_wrong_codes_is_refused_for_the_window(engine, clock):
    svc = make(engine, clock, client_wrong_codes=3, client_joins_per_minute=100)
    created = svc.create_session()
    ended = svc.create_session()
    svc.close_session(ended.code, ended.host_token)
    # unknown and ended codes: the same refusal, and each spends one of the client's tries
    for code in ("ZZZZZZ", ended.code, "YYYYYY"):
        refused("unknown_session", lambda code=code: svc.join(code, client="guesser"))
    refused("too_many_wrong_codes", lambda: svc.join(created.code, client="guesser"))
    refused("too_many_wrong_codes", lambda: svc.resume_host(created.code, created.host_token,
                                                            client="guesser"))
    assert svc.join(created.code, "real", client="someone-else").label == "real"
    # wrong instructor keys count the same way
    for _ in range(3):
        refused("not_host", lambda: svc.resume_host(created.code, "f" * 32, client="k"))
    refused("too_many_wrong_codes", lambda: svc.resume_host(created.code, created.host_token,
                                                            client="k"))


def test_join_attempts_per_client_and_joins_per_session_are_limited(engine, clock):
    svc = make(engine, clock, client_joins_per_minute=2, joins_per_minute=4)
    created = svc.create_session()
    svc.join(created.code, "a1", client="a")
    refused("nickname_taken", lambda: svc.join(created.code, "A1", client="a"))  # counts too
    refused("join_too_often", lambda: svc.join(created.code, "a2", client="a"))
    for i in range(3):
        svc.join(created.code, client=f"c{i}")
    refused("session_join_busy", lambda: svc.join(created.code, client="d"))
    clock.advance(61)  # a minute later, both windows have passed (the client's is monotonic)
    assert svc.join(created.code, client="d").anonymous


def test_client_budget_forgets_old_events_and_keeps_bounded_memory():
    budget = ClientBudget(2, 10.0, max_keys=3)
    budget.spend("x", now=0)
    budget.spend("x", now=1)
    assert budget.exhausted("x", now=5) and not budget.exhausted("x", now=10.5)
    for key in "abcd":
        budget.spend(key, now=20)
    assert len(budget._events) == 3


def test_the_registered_client_provider_budgets_calls_without_client_argument(engine, clock,
                                                                              monkeypatch):
    svc = make(engine, clock, client_wrong_codes=1)
    created = svc.create_session()
    monkeypatch.setattr(limits, "client_provider", lambda: "browser-1")
    refused("unknown_session", lambda: svc.join("ZZZZZZ"))
    refused("too_many_wrong_codes", lambda: svc.join(created.code))
    monkeypatch.setattr(limits, "client_provider", lambda: 1 / 0)  # no context: no budget
    assert svc.join(created.code).anonymous


def test_the_instructor_locks_joining_and_removes_a_participant(engine, clock):
    svc = make(engine, clock, answers_per_second=1000)
    created = svc.create_session()
    troll = svc.join(created.code, "troll")
    ok = svc.join(created.code, "ok")
    qid = svc.push_question(created.code, created.host_token, SPEC)
    svc.answer(created.code, troll.token, qid, "B")
    svc.answer(created.code, ok.token, qid, "A")
    svc.set_joining(created.code, created.host_token, locked=True)
    assert svc.poll(created.code).joining_locked
    refused("joining_locked", lambda: svc.join(created.code, "late"))
    clock.advance(1)
    svc.answer(created.code, ok.token, qid, "B")  # joined students go on answering

    members = svc.members(created.code, created.host_token)
    assert [m.label for m in members] == ["ok", "troll"]
    svc.remove_participant(created.code, created.host_token,
                           next(m.id for m in members if m.label == "troll"))
    refused("participant_unknown", lambda: svc.remove_participant(
        created.code, created.host_token, members[1].id))
    refused("removed", lambda: svc.answer(created.code, troll.token, qid, "A"))
    assert svc.participant(created.code, troll.token) is None
    assert svc.roster(created.code) == (1, ["ok"])
    tally = svc.tally(qid)
    assert (tally.answered, tally.participants) == (1, 1)

    svc.set_joining(created.code, created.host_token, locked=False)
    refused("nickname_taken", lambda: svc.join(created.code, "Troll"))  # the name stays taken
    assert svc.join(created.code).label == "#3"  # numbers are never reused


def test_a_session_idle_too_long_is_over_for_everyone(engine, clock):
    svc = make(engine, clock, idle_minutes=30, answers_per_second=1000)
    created = svc.create_session()
    student = svc.join(created.code, "s")
    qid = svc.push_question(created.code, created.host_token, SPEC)
    clock.advance(29 * 60)
    svc.answer(created.code, student.token, qid, "A")  # activity: the clock restarts
    clock.advance(29 * 60)
    assert svc.poll(created.code).status == "open"
    assert created.code in svc.open_sessions()
    clock.advance(2 * 60)
    assert svc.poll(created.code).status == "closed"
    assert svc.session_exists(created.code) == "closed"
    assert created.code not in svc.open_sessions()
    refused("session_closed", lambda: svc.answer(created.code, student.token, qid, "B"))
    refused("unknown_session", lambda: svc.join(created.code, "late"))
    refused("session_closed", lambda: svc.push_question(created.code, created.host_token, SPEC))
    refused("session_closed", lambda: svc.resume_host(created.code, created.host_token))
    assert svc.poll(created.code).status == "closed"  # the refused writes did not revive it
    assert svc.my_answer(qid, student.token) == "A"


def test_answers_are_paced_but_a_resend_of_the_same_answer_is_confirmed(engine, clock):
    svc = make(engine, clock, answers_per_second=2)
    created = svc.create_session()
    student = svc.join(created.code, "s")
    qid = svc.push_question(created.code, created.host_token, SPEC)
    assert svc.answer(created.code, student.token, qid, "A").previous is None
    version = svc.poll(created.code).version
    clock.advance(0.1)
    again = svc.answer(created.code, student.token, qid, "A")  # resent after a reconnect
    assert (again.value, again.previous) == ("A", "A")
    refused("answer_too_fast", lambda: svc.answer(created.code, student.token, qid, "B"))
    assert svc.my_answer(qid, student.token) == "A"
    clock.advance(0.5)
    assert svc.answer(created.code, student.token, qid, "B").previous == "A"
    assert svc.poll(created.code).version > version


@pytest.mark.parametrize(("values", "message"), [
    ({"MIZAN_LIVE_ANSWERS_PER_SECOND": "0"}, "MIZAN_LIVE_ANSWERS_PER_SECOND"),
    ({"MIZAN_LIVE_JOINS_PER_MINUTE": "many"}, "MIZAN_LIVE_JOINS_PER_MINUTE"),
    ({"MIZAN_LIVE_IDLE_MINUTES": "-5"}, "MIZAN_LIVE_IDLE_MINUTES"),
])
def test_bad_limit_settings_fail_loudly(values, message):
    with pytest.raises(ValueError, match=message):
        limits.from_env(values)


def test_limit_settings_from_the_environment():
    got = limits.from_env({"MIZAN_LIVE_JOINS_PER_MINUTE": "120",
                           "MIZAN_LIVE_IDLE_MINUTES": "45",
                           "MIZAN_LIVE_ANSWERS_PER_SECOND": "0.5",
                           "MIZAN_LIVE_MAX_PARTICIPANTS": ""})
    assert (got.joins_per_minute, got.idle_s, got.answer_interval_s, got.max_participants) == (
        120, 2700.0, 2.0, 2000)


# --- a database that does not answer --------------------------------------------------------------

BOUND_S = 1.0


def test_a_locked_session_row_gives_database_unavailable_within_the_bound(db_url, clock):
    """Another connection holds the session row (as a frozen process mid-transaction would):
    a write waits no longer than the statement timeout, then says the database is away."""
    eng = db.make_engine(db_url, statement_timeout=BOUND_S)
    db.upgrade(eng)
    svc = make(eng, clock)
    created = svc.create_session()
    holder = db.make_engine(db_url)
    with db.write(holder) as conn:
        conn.execute(text("UPDATE live_sessions SET version = version + 1"))
        t0 = time.monotonic()
        with pytest.raises(DatabaseUnavailable) as err:
            svc.join(created.code, "waits")
        took = time.monotonic() - t0
    assert err.value.key == "database"
    assert BOUND_S * 0.8 <= took < BOUND_S + 2.0, took
    assert svc.join(created.code, "after").label == "after"  # released: all is well again
    holder.dispose()
    eng.dispose()


def test_a_stopped_or_frozen_postgresql_gives_database_unavailable_within_the_bound(clock):
    if live_pg.server_bin() is None:
        pytest.skip("PostgreSQL server binaries not installed")
    cluster = live_pg.start_cluster()
    try:
        eng = db.make_engine(cluster.url, connect_timeout=2, statement_timeout=BOUND_S)
        db.upgrade(eng)
        svc = make(eng, clock)
        created = svc.create_session()
        pid = int((cluster.folder / "data" / "postmaster.pid").read_text().split()[0])
        # frozen: the server accepts the TCP connection (the kernel does) and never answers
        eng.dispose()
        os.kill(pid, signal.SIGSTOP)
        try:
            t0 = time.monotonic()
            with pytest.raises(DatabaseUnavailable):
                svc.poll(created.code)
            frozen_s = time.monotonic() - t0
        finally:
            os.kill(pid, signal.SIGCONT)
        assert frozen_s < 2 + 2.0, frozen_s
        assert svc.poll(created.code).status == "open"  # back as soon as it answers
        cluster_stop = threading.Thread(target=cluster.stop)
        cluster_stop.start()
        cluster_stop.join(60)
        t0 = time.monotonic()
        with pytest.raises(DatabaseUnavailable):
            svc.answer(created.code, "0" * 32, 1, "A")
        assert time.monotonic() - t0 < 2 + 2.0
        eng.dispose()
    finally:
        cluster.stop()


# --- every refusal has a message in both languages -------------------------------------------


def test_every_refusal_the_service_can_raise_has_a_message_in_both_languages():
    import re
    import tomllib
    from pathlib import Path

    import live.service

    source = Path(live.service.__file__).read_text(encoding="utf-8")
    keys = set(re.findall(r'LiveError\("([a-z_]+)"\)', source))
    keys |= set(re.findall(r'return "(nickname_[a-z_]+)"', source)) | {"database"}
    assert {"removed", "joining_locked", "answer_too_fast", "too_many_wrong_codes",
            "nickname_reserved", "nickname_invisible"} <= keys
    folder = Path(live.service.__file__).parent
    catalogs = {lang: tomllib.loads((folder / f"messages.{lang}.toml").read_text("utf-8"))
                for lang in ("ar", "en")}
    for lang, catalog in catalogs.items():
        assert keys <= set(catalog["error"]), (lang, keys - set(catalog["error"]))
        assert all(value.strip() for value in catalog["error"].values())
    assert set(catalogs["ar"]["error"]) == set(catalogs["en"]["error"])
    assert set(catalogs["ar"]["ui"]) == set(catalogs["en"]["ui"])
