"""The progress record: recording, the Leitner scheduler, mastery, merge, strict JSON."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from teaching import progress as pg
from teaching.progress import Progress, ProgressError

DAY = dt.date(2026, 11, 30)
NOW = 1_800_000_000
METRICS = ("recall", "precision", "rr", "ap", "ndcg")


# --- recording -------------------------------------------------------------------------------


def test_exercise_streak_mastery_and_mistakes():
    p = Progress()
    p = pg.record_exercise(p, "recall", False, NOW, "divided_by_k")
    for i in range(2):
        p = pg.record_exercise(p, "recall", True, NOW + i + 1)
    s = p.exercises["recall"]
    assert (s.attempts, s.correct, s.streak, s.best, s.mastered) == (3, 2, 2, 2, False)
    p = pg.record_exercise(p, "recall", True, NOW + 5)
    assert p.exercises["recall"].mastered  # three right in a row
    p = pg.record_exercise(p, "recall", False, NOW + 6, "divided_by_k")
    s = p.exercises["recall"]
    assert (s.streak, s.best, s.mastered, s.mistakes) == (0, 3, False, {"divided_by_k": 2})


def test_quiz_wrong_then_right_is_two_tries_not_first_right():
    p = pg.record_quiz(Progress(), "rp-1", "2", False, NOW)
    p = pg.record_quiz(p, "rp-1", "0", True, NOW + 1)
    assert p.quiz["rp-1"] == pg.QuizAnswer("0", True, 2, False, NOW + 1)


def test_records_are_immutable_and_ids_checked():
    p = Progress()
    q = pg.record_myth(p, "rp.abc", True, NOW)
    assert p.is_empty and not q.is_empty
    with pytest.raises(ValueError):
        pg.record_quiz(p, "<script>", "1", True, NOW)
    with pytest.raises(ValueError):
        pg.review_card(p, "c1", "easy", DAY, NOW)


# --- scheduler -------------------------------------------------------------------------------


def test_leitner_intervals():
    p, due = pg.review_card(Progress(), "c", "good", DAY, NOW)
    assert due == "2026-12-01" and p.cards["c"].box == 1
    p, due = pg.review_card(p, "c", "good", DAY, NOW + 1)
    assert due == "2026-12-03" and p.cards["c"].box == 2
    p, due = pg.review_card(p, "c", "hard", DAY, NOW + 2)
    assert due == "2026-12-01" and p.cards["c"].box == 2  # half of 3 days, at least one
    p, due = pg.review_card(p, "c", "again", DAY, NOW + 3)
    assert due == DAY.isoformat() and p.cards["c"].box == 1 and p.cards["c"].lapses == 1


def test_a_forgotten_card_comes_back_in_the_same_session_after_the_others():
    ids = ["a", "b", "c"]
    p = Progress()
    assert pg.due_cards(p, ids, DAY) == ["a", "b", "c"]
    p, _ = pg.review_card(p, "a", "again", DAY, NOW)
    assert pg.due_cards(p, ids, DAY) == ["b", "c", "a"]
    p, _ = pg.review_card(p, "b", "good", DAY, NOW + 1)
    assert pg.due_cards(p, ids, DAY) == ["c", "a"]
    # the next day: the overdue card first, then the new one, then the one due that day
    assert pg.due_cards(p, ids, DAY + dt.timedelta(days=1)) == ["a", "c", "b"]


grades = st.lists(st.sampled_from(pg.GRADES), min_size=1, max_size=30)


@given(grades, st.integers(0, 400))
def test_scheduler_invariants(sequence, start_offset):
    """Whatever the reviews: box in 1–5; "again" is due today; anything else is due later;
    a card is due again at the latest after the longest interval; a card reviewed "good"
    enough times reaches the last box."""
    today = DAY + dt.timedelta(days=start_offset)
    p = Progress()
    for n, grade in enumerate(sequence):
        p, due = pg.review_card(p, "c", grade, today, NOW + n)
        state = p.cards["c"]
        assert 1 <= state.box <= len(pg.BOX_DAYS)
        days = (dt.date.fromisoformat(due) - today).days
        assert (days == 0) if grade == "again" else (1 <= days <= max(pg.BOX_DAYS))
        assert ("c" in pg.due_cards(p, ["c"], today)) == (grade == "again")
        assert "c" in pg.due_cards(p, ["c"], today + dt.timedelta(days=max(pg.BOX_DAYS)))
    assert p.cards["c"].reviews == len(sequence)
    assert p.cards["c"].lapses == sequence.count("again")
    for n in range(len(pg.BOX_DAYS)):
        p, _ = pg.review_card(p, "c", "good", today, NOW + 100 + n)
    assert p.cards["c"].box == len(pg.BOX_DAYS)


# --- views -----------------------------------------------------------------------------------


def test_next_metric_weakest_then_new_then_oldest_mastered():
    p = Progress()
    assert pg.next_metric(p, METRICS) == "recall"
    p = pg.record_exercise(p, "recall", True, NOW)
    p = pg.record_exercise(p, "rr", False, NOW + 1)
    assert pg.next_metric(p, METRICS) == "rr"  # started, streak 0
    p = pg.record_exercise(p, "rr", True, NOW + 2)
    assert pg.next_metric(p, METRICS) == "rr"  # same streak, a lower share right
    for metric in METRICS:
        for i in range(3):
            p = pg.record_exercise(p, metric, True, NOW + 10 + i + 10 * METRICS.index(metric))
    assert all(r.mastered for r in pg.mastery(p, METRICS))
    assert pg.next_metric(p, METRICS) == "recall"  # all mastered: the one seen longest ago


def test_summary_counts_and_review_list():
    p = pg.record_quiz(Progress(), "q1", "1", False, NOW)
    p = pg.record_quiz(p, "q2", "0", True, NOW)
    p, _ = pg.review_card(p, "c1", "again", DAY, NOW)
    p = pg.record_myth(p, "m1", False, NOW)
    s = pg.summary(p, METRICS, ["q1", "q2", "q3"], ["c1", "c2"], ["m1", "m2"], DAY)
    assert (s.quiz_right, s.quiz_answered, s.quiz_total) == (1, 2, 3)
    assert (s.cards_due, s.cards_new, s.myths_seen, s.myths_total) == (1, 1, 1, 2)
    assert s.review_next == (("metric", "recall"), ("cards", "1"), ("quiz", "q1"))


# --- JSON ------------------------------------------------------------------------------------

ids = st.from_regex(r"[a-z][a-z0-9_.\-]{0,20}", fullmatch=True)
times = st.integers(0, 2**34)


@st.composite
def progresses(draw) -> Progress:
    p = Progress()
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["ex", "quiz", "card", "myth", "forget"]))
        now = draw(times)
        if kind == "forget":
            p = pg.forget(now)
        elif kind == "ex":
            p = pg.record_exercise(p, draw(st.sampled_from(METRICS)), draw(st.booleans()), now,
                                   draw(st.sampled_from([None, "divided_by_k", "last_hit"])))
        elif kind == "quiz":
            p = pg.record_quiz(p, draw(ids), draw(st.text(max_size=50)), draw(st.booleans()),
                               now)
        elif kind == "card":
            day = DAY + dt.timedelta(days=draw(st.integers(-500, 500)))
            p, _ = pg.review_card(p, draw(ids), draw(st.sampled_from(pg.GRADES)), day, now)
        else:
            p = pg.record_myth(p, draw(ids), draw(st.booleans()), now)
    return p


@given(progresses())
@settings(suppress_health_check=[HealthCheck.too_slow])
def test_json_round_trip(p):
    text = pg.to_json(p, saved_at=NOW)
    assert pg.from_json(text) == p
    assert pg.from_json(text.encode("utf-8")) == p
    assert pg.to_json(pg.from_json(text), saved_at=NOW) == text


@given(progresses(), progresses(), progresses())
@settings(suppress_health_check=[HealthCheck.too_slow], max_examples=60)
def test_merge_is_commutative_associative_idempotent(a, b, c):
    assert pg.merge(a, b) == pg.merge(b, a)
    assert pg.merge(pg.merge(a, b), c) == pg.merge(a, pg.merge(b, c))
    assert pg.merge(a, a) == a
    assert pg.merge(a, Progress()) == a


def test_merge_keeps_the_newer_record():
    old = pg.record_quiz(Progress(), "q", "1", False, NOW)
    new = pg.record_quiz(Progress(), "q", "0", True, NOW + 10)
    assert pg.merge(new, old).quiz["q"].right and pg.merge(old, new).quiz["q"].right


GOOD = pg.to_json(pg.record_quiz(Progress(), "q", "1", True, NOW), saved_at=NOW)


def _doc(**changes):
    doc = json.loads(GOOD)
    doc.update(changes)
    return json.dumps(doc)


@pytest.mark.parametrize(("text", "key"), [
    ("", "not_json"),
    ("{not json", "not_json"),
    (b"\xff\xfe\x00garbage", "not_json"),
    ('{"app": "mizan", "kind": "progress", "version": NaN}', "not_json"),
    ("[1, 2, 3]", "foreign"),
    ("null", "foreign"),
    ('{"name": "my-package", "version": "1.0.0"}', "foreign"),
    (_doc(app="anki"), "foreign"),
    (_doc(version=2), "newer_version"),
    (_doc(version="1"), "invalid"),
    (_doc(version=True), "invalid"),
    (_doc(quiz={"q": {"answer": "1", "right": "yes", "tries": 1, "first_right": True,
                      "last": 0}}), "invalid"),
    (_doc(quiz={"<b>": {"answer": "1", "right": True, "tries": 1, "first_right": True,
                        "last": 0}}), "invalid"),
    (_doc(cards={"c": {"box": 9, "due": "2026-01-01", "reviews": 1, "lapses": 0,
                       "last": 0}}), "invalid"),
    (_doc(cards={"c": {"box": 1, "due": "2026-02-30", "reviews": 1, "lapses": 0,
                       "last": 0}}), "invalid"),
    (_doc(exercises={"recall": {"attempts": 1, "correct": 5, "streak": 0, "best": 0,
                                "last": 0, "mistakes": {}}}), "invalid"),
    (_doc(myths=[]), "invalid"),
    (_doc(extra=1), "invalid"),
    ("[" * 150_000 + "]" * 150_000, "too_large"),
    ("[" * 50_000 + "]" * 50_000, "not_json"),  # nesting too deep for the parser
    (" " * (pg.MAX_BYTES + 1), "too_large"),
])
def test_bad_files_are_refused_with_a_reason(text, key):
    with pytest.raises(ProgressError) as err:
        pg.from_json(text)
    assert err.value.key == key


@given(st.one_of(st.text(max_size=300), st.binary(max_size=300),
                 st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                              lambda kids: st.lists(kids, max_size=4)
                              | st.dictionaries(st.text(max_size=8), kids, max_size=4),
                              max_leaves=20).map(json.dumps)))
def test_garbage_is_always_refused_cleanly(garbage):
    """Anything that is not a Mizan progress file raises ProgressError, nothing else."""
    with pytest.raises(ProgressError):
        pg.from_json(garbage)


@given(progresses(), st.data())
@settings(suppress_health_check=[HealthCheck.too_slow], max_examples=80)
def test_a_damaged_file_is_refused_or_still_valid(p, data):
    """Flip one value anywhere in a good file: it is refused cleanly or reads back as a
    valid record that writes out again (never a crash, never half-read)."""
    doc = json.loads(pg.to_json(p))
    paths = []

    def walk(node, path):
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, (*path, k))
        paths.append(path)

    walk(doc, ())
    path = data.draw(st.sampled_from(paths))
    value = data.draw(st.one_of(st.none(), st.booleans(), st.integers(-5, 2**62),
                                st.text(max_size=5), st.lists(st.integers(), max_size=2)))
    if not path:
        doc = value
    else:
        node = doc
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value
    try:
        back = pg.from_json(json.dumps(doc))
    except ProgressError:
        return
    assert pg.from_json(pg.to_json(back)) == back


def test_merge_changes_counts_what_the_merge_adds_or_replaces():
    mine = pg.record_exercise(pg.Progress(), "ap", True, 100)
    theirs = pg.record_exercise(pg.record_exercise(pg.Progress(), "ap", True, 50), "rr",
                                False, 60)
    assert pg.merge_changes(mine, theirs) == {"exercises": 1, "quiz": 0, "cards": 0, "myths": 0}
    later = pg.record_exercise(pg.Progress(), "ap", False, 300)
    assert pg.merge_changes(mine, later)["exercises"] == 1       # a more recent record
    assert pg.merge_changes(mine, mine) == {"exercises": 0, "quiz": 0, "cards": 0, "myths": 0}
