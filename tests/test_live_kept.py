"""The browser-storage handshake of the live classroom (``lessons/live/kept.py``), on a clock
the test controls: a hand-over is read back only once the browser had time to write it, a read
that never came back is tried again, and nothing loops."""

from lessons.live import kept
from lessons.live.kept import MAX_HANDOVERS, READ_TIMEOUT_MAX_S, READ_TIMEOUT_S, SETTLE_S, Kept

VALUE = '{"code": "ABC234", "token": "t"}'


def read_empty(store: Kept, now: float = 0.0) -> Kept:
    store.step(now)                       # the first mount reads
    store.receive("ok", "")
    return store


def test_a_join_hands_over_once_then_reads_back_after_the_write_settled():
    store = read_empty(Kept(kept.PHONE))
    store.want(VALUE)
    assert store.step(0.0) == VALUE and store.rev == 1
    mount = store.mount
    # the phone's fragment runs inline in the same full run, and runs follow each other
    # quickly: none of them may replace the element before the browser wrote the value
    for t in (0.0, 0.1, 0.5, SETTLE_S - 0.01):
        assert not store.needs_run(now=t)
        assert store.step(t) is None and store.mount == mount and store.rev == 1
    assert store.needs_run(now=SETTLE_S)
    assert store.step(SETTLE_S) is None and store.mount == mount + 1    # read it back
    assert not store.needs_run(now=SETTLE_S + 1)                      # the read is on its way
    store.receive("ok", VALUE)
    assert store.confirmed and store.handed is None
    assert not store.needs_run(now=100) and store.step(100) is None and store.rev == 1


def test_a_lost_write_is_handed_over_again_after_the_read_back():
    store = read_empty(Kept(kept.PHONE))
    store.want(VALUE)
    store.step(0.0)
    store.step(SETTLE_S)
    store.receive("ok", "")               # the browser did not get it
    assert store.step(SETTLE_S + 0.1) == VALUE and store.rev == 2 and store.handovers == 2


def test_a_read_that_never_came_back_is_tried_again_not_forever_waited_for():
    store = Kept(kept.PHONE)
    store.step(0.0)
    assert store.status == "pending" and not store.needs_run(now=READ_TIMEOUT_S - 0.1)
    assert store.needs_run(now=READ_TIMEOUT_S)
    store.step(READ_TIMEOUT_S)
    assert store.mount == 1 and not store.needs_run(now=READ_TIMEOUT_S + 1)
    store.receive("ok", VALUE)
    assert store.value == VALUE and not store.needs_run(now=1000)


def test_a_slow_browser_is_waited_for_longer_each_time_its_read_is_late():
    store = Kept(kept.HOST)
    store.step(0.0)
    t, mounts = 0.0, []
    for _ in range(6):                    # no read ever comes back in time
        t += store.read_timeout
        assert store.needs_run(now=t) and not store.needs_run(now=t - 0.1)
        store.step(t)
        mounts.append(t)
    waits = [b - a for a, b in zip([0.0, *mounts], mounts, strict=False)]
    assert waits[:4] == [READ_TIMEOUT_S, 2 * READ_TIMEOUT_S, 4 * READ_TIMEOUT_S,
                         8 * READ_TIMEOUT_S]
    assert max(waits) == READ_TIMEOUT_MAX_S and store.mount == 6
    store.receive("ok", VALUE)            # it answered: the next mount waits the short time again
    assert store.read_misses == 0 and store.read_timeout == READ_TIMEOUT_S
    # a hand-over's read-back is not a miss: it waits the short time
    store.want(VALUE + " ")
    store.step(t)
    store.step(t + SETTLE_S)
    assert store.read_misses == 0 and store.read_timeout == READ_TIMEOUT_S


def test_a_browser_that_never_keeps_the_value_is_asked_a_bounded_number_of_times():
    store = read_empty(Kept(kept.PHONE))
    store.want(VALUE)
    t, handed = 0.0, 0
    for _ in range(100):
        if store.step(t) is not None:
            handed += 1
        elif store.reading_since is not None:
            store.receive("ok", "")
        t += SETTLE_S
    assert handed == MAX_HANDOVERS and not store.needs_run(now=t)
    store.want(VALUE + " ")               # a new value: asked again
    assert store.needs_run(now=t)


def test_presenter_view_never_hands_the_key_over_and_unavailable_storage_asks_nothing():
    host = read_empty(Kept(kept.HOST))
    host.want(VALUE)
    assert not host.needs_run(hand_over=False, now=0) and host.step(0, hand_over=False) is None
    gone = Kept(kept.PHONE)
    gone.step(0.0)
    gone.receive("unavailable", "")
    gone.want(VALUE)
    assert not gone.needs_run(now=1000) and gone.step(1000) is None and gone.mount == 0
