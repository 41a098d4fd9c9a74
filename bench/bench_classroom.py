"""A lecture hall on this machine: N simulated students in one live session, through nginx, across
1 and 2 Streamlit processes, each student speaking Streamlit's own websocket protocol.

    .venv/bin/python bench/bench_classroom.py                    # 300 students, 1 then 2 processes
    .venv/bin/python bench/bench_classroom.py --students 60 --procs 2 --window 10   # quick

For each process count it starts ``deploy/run.sh N --postgres`` (nginx with cookie-sticky
sessions, N app processes, a local PostgreSQL; a fresh data folder), then drives it with
websocket clients that send exactly what a browser sends — ``BackMsg.rerun_script`` with the
page name, the query string and the widget states (protobufs from ``streamlit.proto``), and the
periodic fragment reruns the server asks for (``ForwardMsg.auto_rerun``):

* one instructor: picks the instructor role, starts a session, pushes "what is recall@3?",
  and keeps the projector open (its fragment reruns every second);
* ``--students`` students: each fetches ``/live`` over HTTP first (nginx sets the sticky cookie),
  opens its websocket with that cookie, joins with a nickname, waits for the question on its own
  poll, answers at a random moment within ``--window`` seconds, and a third of them change
  their answer once;
* ``--lesson-users`` learners on ``/recall-precision`` dragging a document in the ranking
  editor about once a second: the editor's own message (the components-v2 ``edit`` event
  with the new order), which reruns the lesson's fragment;
* with ``--flood S``: one mischievous device (its own address, 127.0.0.9) flooding for S
  seconds while the class joins and answers, with every limit on (deploy/README.md): two
  connections joining and leaving in a loop, one guessing join codes, one changing its
  answer as fast as it can (from the push on), and a churn of fresh connections (a page load,
  a websocket, one join each) as fast as nginx admits them.

Measured: every answer a student saw confirmed (with the value it sent) is in the database
exactly once with its last value (checked with SQL); projector update latency = from the moment
the k-th answer was acknowledged to the moment the projector first showed "k of N answered"
(p50/p95, target p95 <= 2 s); lesson drag latency (drag sent -> the fragment's run finished
with the editor acknowledging that drag; p95 target <= 1 s); question -> phone = from the
instructor's click to the moment the question's text arrived on each phone (not when the
instructor's own rerun returned, which bounded the earlier measure from below); answer ->
confirmation = until the phone shows a confirmation *of the value it sent* (the box redraws
the stored answer on every poll, so an older confirmation does not count); server CPU of every
app process (from /proc) during the answer window, hence the CPU cost per connected student
and the students one process (one core) holds; the load generator's own CPU and the load
average. The load generator runs on the same 2 cores: numbers are end to end on one loaded box.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
_KEY = re.compile(r"^\$\$ID-[0-9a-f]+-(.*)$")
_ANSWERED = re.compile(r"(\d+)\s*of\s*(\d+)\s*answered")
_ISOLATES = re.compile("[\u2066-\u2069\u200e\u200f]")
TICK = os.sysconf("SC_CLK_TCK")


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


# --- a websocket client that behaves like the browser --------------------------------------------


@dataclass
class Client:
    base: str                      # http://host:port
    page: str                      # "live"
    query: str                     # "lang=en&join=…"
    ws: object = None
    widgets: dict = field(default_factory=dict)       # user key -> (widget id, fragment id)
    states: dict = field(default_factory=dict)        # widget id -> WidgetState (persistent)
    texts: list = field(default_factory=list)         # (time, text) of markdown / alerts
    fragments: dict = field(default_factory=dict)     # fragment id -> interval (s)
    components: dict = field(default_factory=dict)    # user key -> JSON data a component got
    reruns: int = 0
    page_hash: str = ""           # as the browser does: the current page's script hash
    source: str = ""              # the client's own address (a different device)
    _finished: asyncio.Event = field(default_factory=asyncio.Event)
    _tasks: list = field(default_factory=list)
    on_text: object = None
    closed: bool = False

    async def connect(self) -> None:
        cookie = await asyncio.to_thread(self._cookie)
        host = self.base.split("://", 1)[1]
        extra = {"local_addr": (self.source, 0)} if self.source else {}
        self.ws = await websockets.connect(
            f"ws://{host}/_stcore/stream", subprotocols=["streamlit"], max_size=None,
            additional_headers={"Cookie": cookie} if cookie else None, open_timeout=60,
            ping_interval=None, **extra)
        self._tasks.append(asyncio.create_task(self._reader()))

    def _cookie(self) -> str:
        host, port = self.base.split("://", 1)[1].split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=60,
                                          source_address=(self.source, 0) if self.source
                                          else None)
        try:
            conn.request("GET", f"/{self.page}")
            resp = conn.getresponse()
            resp.read()
            if resp.status != 200:
                raise RefusedByProxy(resp.status)
            raw = resp.getheader("Set-Cookie") or ""
        finally:
            conn.close()
        return raw.split(";", 1)[0]

    async def _reader(self) -> None:
        try:
            async for raw in self.ws:
                msg = ForwardMsg()
                msg.ParseFromString(raw)
                self._handle(msg)
        except (websockets.ConnectionClosed, OSError):
            pass
        self.closed = True
        self._finished.set()

    def _handle(self, msg: ForwardMsg) -> None:
        kind = msg.WhichOneof("type")
        if kind == "script_finished":
            self._finished.set()
        elif kind == "navigation" and msg.navigation.page_script_hash:
            self.page_hash = msg.navigation.page_script_hash
        elif kind == "page_info_changed":  # the page set st.query_params: the address bar
            self.query = msg.page_info_changed.query_string
        elif kind == "auto_rerun":
            fid, every = msg.auto_rerun.fragment_id, msg.auto_rerun.interval
            if fid not in self.fragments:
                self.fragments[fid] = every
                self._tasks.append(asyncio.create_task(self._auto(fid, every)))
        elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            element = msg.delta.new_element
            ek = element.WhichOneof("type")
            body = getattr(element, ek)
            wid = getattr(body, "id", "")
            match = _KEY.match(wid) if wid else None
            if match:
                self.widgets[match.group(1)] = (wid, msg.delta.fragment_id)
                if ek == "bidi_component":
                    self.components[match.group(1)] = body.json
            text = ""
            if ek == "markdown" or ek == "alert":
                text = body.body
            if text:
                text = _ISOLATES.sub("", text).replace("\\", "").replace("**", "")
                now = time.monotonic()
                self.texts.append((now, text))
                if self.on_text:
                    self.on_text(self, now, text)

    async def _auto(self, fid: str, every: float) -> None:
        while not self.closed:
            await asyncio.sleep(every)
            with contextlib.suppress(Exception):
                await self.send(fragment_id=fid, auto=True)

    async def send(self, *, set_state: dict | None = None, triggers: tuple = (),
                   events: tuple = (), fragment_id: str = "", auto: bool = False) -> None:
        for wid, state in (set_state or {}).items():
            self.states[wid] = state
        msg = BackMsg()
        rs = msg.rerun_script
        rs.query_string = self.query
        rs.page_name = self.page
        rs.page_script_hash = self.page_hash
        rs.fragment_id = fragment_id
        rs.is_auto_rerun = auto
        for state in self.states.values():
            rs.widget_states.widgets.append(state)
        for wid in triggers:
            rs.widget_states.widgets.append(WidgetState(id=wid, trigger_value=True))
        for state in events:  # one-shot values (a component's event), like a trigger
            rs.widget_states.widgets.append(state)
        self._finished.clear()
        self.reruns += 1
        await self.ws.send(msg.SerializeToString())

    async def rerun(self, timeout: float = 120, **kw) -> float:
        """Send a rerun and wait for its script_finished; returns the seconds it took."""
        t0 = time.monotonic()
        await self.send(**kw)
        await asyncio.wait_for(self._finished.wait(), timeout)
        return time.monotonic() - t0

    def wid(self, key: str) -> str:
        return self.widgets[key][0]

    def frag(self, key: str) -> str:
        return self.widgets[key][1]

    async def close(self) -> None:
        self.closed = True
        for task in self._tasks:
            task.cancel()
        with contextlib.suppress(Exception):
            await self.ws.close()


class RefusedByProxy(Exception):
    """nginx answered the page load with this status (429: a per-address limit)."""


def text_state(wid: str, value: str) -> dict:
    return {wid: WidgetState(id=wid, string_value=value)}


def component_event(component_id: str, event: str, value: object) -> WidgetState:
    """What a components-v2 widget sends for ``setTriggerValue(event, value)``: a JSON list of
    ``{event, value}`` on the component's trigger aggregator (see streamlit's bidi_component)."""
    wid = f"$$STREAMLIT_INTERNAL_KEY_{component_id}__events"
    return WidgetState(id=wid, json_trigger_value=json.dumps([{"event": event, "value": value}]))


# A confirmation on the phone, with the value it confirms: the one-time message of the answer
# run, or the line every later draw of the question box derives from the stored answer.
_CONFIRMS = [re.compile(r"^Your answer (\S+) is in\."), re.compile(r"^Your answer: (\S+)$"),
             re.compile(r"^Changed from \S+ to (\S+)\.$"),
             re.compile(r"^You already gave this answer: (\S+)\.$")]
STORED = {"1/3": "0.3333"}  # what the app stores (and shows) for a typed value


def confirmed(text: str) -> str | None:
    for pattern in _CONFIRMS:
        match = pattern.match(text.strip())
        if match:
            return match.group(1)
    return None


# --- the scenario --------------------------------------------------------------------------------


@dataclass
class Result:
    procs: int
    students: int
    joined: int = 0
    acked: dict = field(default_factory=dict)        # nickname -> last acknowledged value
    unacked: dict = field(default_factory=dict)      # nickname -> values sent after it, no ack
    ack_times: list = field(default_factory=list)    # monotonic time of each first ack
    ack_latency: list = field(default_factory=list)  # send -> acknowledged (s)
    join_latency: list = field(default_factory=list)
    question_latency: list = field(default_factory=list)
    projector: list = field(default_factory=list)    # (time, answered)
    lesson_latency: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    cpu: dict = field(default_factory=dict)          # pid -> cpu seconds in the window
    window_s: float = 0.0
    db_rows: int = -1
    db_dupes: int = -1           # (question, student) pairs stored twice: must be 0
    db_lost: int = -1            # acknowledged but missing or with another value: must be 0
    db_unacked: int = -1         # stored, but the acknowledgement never reached the student
    reruns: int = 0
    run_s: float = 0.0
    bench_cpu: float = 0.0       # the load generator's own CPU in the window (same 2 cores)
    load: float = 0.0            # 1-minute load average at the end of the window
    flood: Counter = field(default_factory=Counter)   # what the flooding device got
    flood_db: dict = field(default_factory=dict)      # its participants and answer changes


async def instructor(base: str, res: Result) -> tuple[Client, str]:
    host = Client(base, "live", "lang=en")
    await host.connect()
    await host.rerun()
    role = host.wid("live-role")
    await host.rerun(set_state={role: WidgetState(
        id=role, string_array_value={"data": ["The teacher: run a session"]})})
    await host.rerun(triggers=(host.wid("live-start"),))
    code = next(m.group(0) for _, t in host.texts
                for m in [re.search(r"(?<=mz-live-code\" dir=\"ltr\">)[A-Z0-9]{6}", t)] if m)

    def on_text(_client, now, text):
        match = _ANSWERED.search(text)
        if match:
            res.projector.append((now, int(match.group(1))))

    host.on_text = on_text
    return host, code


async def student(base: str, code: str, i: int, res: Result, question_at: asyncio.Event,
                  pushed: list, window: float, sem: asyncio.Semaphore) -> Client | None:
    name = f"s{i:03d}"
    me = Client(base, "live", f"lang=en&join={code}")
    seen = asyncio.Event()
    seen_at: list = []       # when the question's text first arrived on this phone
    acks: list = []          # (time, value confirmed)

    def on_text(_client, now, text):
        if "What is recall@3" in text and not seen.is_set():
            seen_at.append(now)
            seen.set()
        value = confirmed(text)
        if value is not None:
            acks.append((now, value))

    me.on_text = on_text
    try:
        async with sem:  # a class arrives over a minute or so, not in one millisecond
            t0 = time.monotonic()
            await me.connect()
            await me.rerun()
            await me.rerun(set_state={**text_state(me.wid("live-join-code"), code),
                                      **text_state(me.wid("live-join-nick"), name)},
                           triggers=(me.wid("FormSubmitter:live-join-form-Join"),))
            if not any("You joined session" in t for _, t in me.texts):
                raise RuntimeError("join not acknowledged")
            res.join_latency.append(time.monotonic() - t0)
            res.joined += 1
        await question_at.wait()
        await asyncio.wait_for(seen.wait(), 120)
        res.question_latency.append(seen_at[0] - pushed[0])
        rounds = ["0.5", "0.33"] if i % 3 == 0 else [random.choice(["0.5", "0.33", "1", "1/3"])]
        await asyncio.sleep(random.uniform(0, window))
        for value in rounds:
            for _ in range(600):  # the question's text can arrive a moment before its form
                key = next((k for k in me.widgets if k.startswith("live-ans-")), None)
                if key:
                    break
                await asyncio.sleep(0.05)
            else:
                raise RuntimeError("question shown without its answer form")
            qid = key.rsplit("-", 1)[1]
            expect = STORED.get(value, value)
            # counted as sent before it goes: if anything below fails, the database may still
            # (rightly) hold it
            res.unacked.setdefault(name, []).append(expect)
            t1 = time.monotonic()
            await me.send(set_state=text_state(me.wid(key), value),
                          triggers=(me.wid(f"live-send-{qid}"),), fragment_id=me.frag(key))
            deadline = time.monotonic() + 120
            got = None
            while got is None and time.monotonic() < deadline:
                got = next((t for t, v in acks if t >= t1 and v == expect), None)
                await asyncio.sleep(0.02)
            if got is None:
                res.errors.append(f"{name}: no acknowledgement for {value}")
                continue
            res.ack_latency.append(got - t1)
            if name not in res.acked:
                res.ack_times.append(got)
            res.acked[name] = expect
            res.unacked.pop(name, None)
            if len(rounds) > 1:
                await asyncio.sleep(random.uniform(0.5, 3))
        return me
    except Exception as err:  # one student failing is a result, not a crash
        res.errors.append(f"{name}: {type(err).__name__}: {err}")
        return me


async def lesson_user(base: str, res: Result, stop: asyncio.Event) -> None:
    """A learner dragging documents in lesson 2's ranking editor, about once a second: each
    drag sends what the editor's JavaScript sends (``setTriggerValue("edit", {base, seq,
    items})`` on the components-v2 widget), which reruns the lesson's fragment; the drag
    counts once the fragment finished and the editor's new data acknowledges it."""
    me = Client(base, "recall-precision", "lang=en")
    key = "mizan-rk-rp-ranking"
    try:
        await me.connect()
        await me.rerun()
        seq = 0
        while not stop.is_set():
            await asyncio.sleep(random.uniform(0.6, 1.4))
            data = json.loads(me.components[key])
            items = [[item["id"], item["rel"]] for item in data["items"]]
            i = random.randrange(len(items) - 1)   # drag one document one place down
            items[i], items[i + 1] = items[i + 1], items[i]
            seq += 1
            took = await me.rerun(events=(component_event(me.wid(key), "edit", {
                "base": data["v"], "seq": seq, "items": items}),), fragment_id=me.frag(key))
            now = json.loads(me.components[key])
            if now.get("ack") != seq or [[x["id"], x["rel"]] for x in now["items"]] != items:
                res.errors.append(f"lesson user: drag {seq} not applied")
            res.lesson_latency.append(took)
    except Exception as err:
        res.errors.append(f"lesson user: {type(err).__name__}: {err}")
    finally:
        await me.close()


# --- one mischievous device ----------------------------------------------------------------------

FLOODER = "127.0.0.9"   # its own address: another device on the classroom network


async def _join(me: Client, code: str, nickname: str) -> bool:
    """One press of Join; True if the page then says the device joined."""
    before = len(me.texts)
    await me.rerun(set_state={**text_state(me.wid("live-join-code"), code),
                              **text_state(me.wid("live-join-nick"), nickname)},
                   triggers=(me.wid("FormSubmitter:live-join-form-Join"),), timeout=60)
    return any("You joined session" in t for _, t in me.texts[before:])


async def flood_joiner(base: str, code: str, res: Result, until: float, n: int) -> None:
    """One connection joining, leaving and joining again as fast as the app answers."""
    me = Client(base, "live", f"lang=en&join={code}", source=FLOODER)
    try:
        await me.connect()
        await me.rerun()
        i = 0
        while time.monotonic() < until:
            i += 1
            res.flood["join attempts"] += 1
            if await _join(me, code, f"flood{n}x{i}"):
                res.flood["joins accepted"] += 1
                await me.rerun(triggers=(me.wid("live-leave"),), timeout=60)
    except Exception as err:
        res.flood[f"joiner error {type(err).__name__}"] += 1
    finally:
        await me.close()


async def flood_guesser(base: str, code: str, res: Result, until: float) -> None:
    """One connection typing random codes; at the end the right one, to show whether this
    connection is still let in at all."""
    me = Client(base, "live", "lang=en", source=FLOODER)
    alphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
    try:
        await me.connect()
        await me.rerun()
        while time.monotonic() < until:
            res.flood["code guesses"] += 1
            if await _join(me, "".join(random.choices(alphabet, k=6)), ""):
                res.flood["code guesses that joined"] += 1
        res.flood["right code let in after guessing"] += int(await _join(me, code, "guesser"))
    except Exception as err:
        res.flood[f"guesser error {type(err).__name__}"] += 1
    finally:
        await me.close()


async def flood_spammer(base: str, code: str, res: Result, question_at: asyncio.Event,
                        seconds: float) -> None:
    """One joined connection changing its answer as fast as the app answers, from the push."""
    me = Client(base, "live", f"lang=en&join={code}", source=FLOODER)
    try:
        await me.connect()
        await me.rerun()
        if not await _join(me, code, "spammer"):
            res.flood["spammer could not join"] += 1
            return
        await question_at.wait()
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            key = next((k for k in me.widgets if k.startswith("live-ans-")), None)
            if key is None:
                await asyncio.sleep(0.05)
                continue
            qid = key.rsplit("-", 1)[1]
            res.flood["answers sent"] += 1
            await me.rerun(set_state=text_state(me.wid(key), random.choice(["0.1", "0.9"])),
                           triggers=(me.wid(f"live-send-{qid}"),), fragment_id=me.frag(key),
                           timeout=60)
    except Exception as err:
        res.flood[f"spammer error {type(err).__name__}"] += 1
    finally:
        await me.close()


async def flood_churn(base: str, code: str, res: Result, until: float, n: int) -> None:
    """Fresh connections one after another (a new browser each time), one join each."""
    while time.monotonic() < until:
        me = Client(base, "live", f"lang=en&join={code}", source=FLOODER)
        res.flood["fresh connections tried"] += 1
        try:
            await me.connect()
            await me.rerun(timeout=30)
            res.flood["fresh connections opened"] += 1
            if await _join(me, code, f"churn{n}x{res.flood['fresh connections tried']}"):
                res.flood["fresh connections that joined"] += 1
        except RefusedByProxy as err:
            res.flood[f"fresh connections refused by nginx ({err.args[0]})"] += 1
        except websockets.InvalidStatus as err:
            res.flood[f"websockets refused by nginx ({err.response.status_code})"] += 1
        except Exception as err:
            res.flood[f"churn error {type(err).__name__}"] += 1
        finally:
            await me.close()


def app_pids(run_dir: Path) -> list[int]:
    out = subprocess.run(["pgrep", "-f", "streamlit run app.py"], capture_output=True,
                         text=True).stdout.split()
    pids = []
    for pid in map(int, out):
        with contextlib.suppress(OSError):
            env = Path(f"/proc/{pid}/environ").read_bytes()
            if str(run_dir.parent).encode() in env:
                pids.append(pid)
    return pids


def cpu_seconds(pid: int) -> float:
    with contextlib.suppress(OSError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK
    return 0.0


async def scenario(base: str, args, res: Result, run_dir: Path) -> None:
    started = time.monotonic()
    host, code = await instructor(base, res)
    question_at = asyncio.Event()
    pushed: list = []
    flooding = []
    if args.flood:
        until = time.monotonic() + args.flood
        flooding = [*(asyncio.create_task(flood_joiner(base, code, res, until, n))
                      for n in range(2)),
                    asyncio.create_task(flood_guesser(base, code, res, until)),
                    asyncio.create_task(flood_spammer(base, code, res, question_at,
                                                      args.flood)),
                    *(asyncio.create_task(flood_churn(base, code, res, until, n))
                      for n in range(4))]
    sem = asyncio.Semaphore(args.ramp)
    tasks = [asyncio.create_task(student(base, code, i, res, question_at, pushed, args.window,
                                         sem)) for i in range(args.students)]
    while res.joined + len(res.errors) < args.students:
        await asyncio.sleep(0.2)
    print(f"  {res.joined} joined ({len(res.errors)} failed); pushing the question", flush=True)
    stop = asyncio.Event()
    learners = [asyncio.create_task(lesson_user(base, res, stop))
                for _ in range(args.lesson_users)]
    await asyncio.sleep(2)
    pids = app_pids(run_dir)
    cpu0 = {pid: cpu_seconds(pid) for pid in pids}
    t0 = time.monotonic()

    bench0 = time.process_time()

    async def sample_cpu() -> None:  # a fixed window: the answers, the changes, the last polls
        await asyncio.sleep(args.window + 10)
        res.window_s = time.monotonic() - t0
        res.cpu = {pid: cpu_seconds(pid) - cpu0[pid] for pid in pids}
        res.bench_cpu = time.process_time() - bench0
        res.load = os.getloadavg()[0]

    sampler = asyncio.create_task(sample_cpu())
    pushed.append(time.monotonic())
    await host.rerun(triggers=(host.wid("live-push"),))
    question_at.set()
    clients = await asyncio.gather(*tasks)
    await asyncio.gather(*flooding)
    await asyncio.sleep(3)  # the projector's last poll
    await sampler
    stop.set()
    await asyncio.gather(*learners)
    res.reruns = host.reruns + sum(c.reruns for c in clients if c)
    res.run_s = time.monotonic() - started
    for c in [host, *[c for c in clients if c]]:
        await c.close()
    check_database(code, res, run_dir.parent)


def check_database(code: str, res: Result, data_dir: Path) -> None:
    os.environ["MIZAN_DATA_DIR"] = str(data_dir)
    from sqlalchemy import func, select

    from live import db
    from live.models import LiveAnswer, LiveParticipant, LiveQuestion, LiveSession

    engine = db.make_engine(db.database_url())
    with engine.connect() as conn:
        flood = conn.execute(
            select(LiveParticipant.nickname, func.coalesce(func.sum(LiveAnswer.revisions), 0))
            .join(LiveSession, LiveSession.id == LiveParticipant.session_id)
            .outerjoin(LiveAnswer, LiveAnswer.participant_id == LiveParticipant.id)
            .where(LiveSession.code == code)
            .group_by(LiveParticipant.id, LiveParticipant.nickname)).all()
        res.flood_db = {
            "participants from the flood": sum(1 for n, _ in flood if n and (
                n.startswith(("flood", "churn")) or n in ("spammer", "guesser"))),
            "participants from the class": sum(1 for n, _ in flood if n and n.startswith("s")
                                               and n[1:].isdigit()),
            "spammer's answer changes stored": sum(int(r) for n, r in flood if n == "spammer"),
        }
        rows = conn.execute(
            select(LiveParticipant.nickname, LiveAnswer.value)
            .join(LiveAnswer, LiveAnswer.participant_id == LiveParticipant.id)
            .join(LiveQuestion, LiveQuestion.id == LiveAnswer.question_id)
            .join(LiveSession, LiveSession.id == LiveQuestion.session_id)
            .where(LiveSession.code == code, LiveParticipant.nickname.like("s%"),
                   LiveParticipant.nickname != "spammer")).all()
        dupes = conn.scalar(select(func.count()).select_from(
            select(LiveAnswer.question_id, LiveAnswer.participant_id)
            .group_by(LiveAnswer.question_id, LiveAnswer.participant_id)
            .having(func.count() > 1).subquery()))
    engine.dispose()
    stored = dict(rows)
    res.db_rows = len(rows)
    res.db_dupes = int(dupes or 0) + (len(rows) - len(stored))
    # an acknowledged answer must be there, with its value or a later change the student sent
    # whose acknowledgement did not arrive in time (stored, but not confirmed on the phone)
    res.db_lost = sum(stored.get(n) not in (v, *res.unacked.get(n, ()))
                      for n, v in res.acked.items())
    res.db_unacked = (len(set(stored) - set(res.acked))
                      + sum(stored.get(n) != v for n, v in res.acked.items()))


def exactly_once(res: Result) -> bool:
    return res.db_dupes == 0 and res.db_lost == 0


def projector_latency(res: Result) -> list[float]:
    """For the k-th acknowledged answer: time until the projector first showed >= k answers."""
    out = []
    for k, t_ack in enumerate(sorted(res.ack_times), start=1):
        shown = next((t for t, n in res.projector if n >= k and t >= t_ack - 0.001), None)
        if shown is None:
            shown = next((t for t, n in res.projector if n >= k), None)
            if shown is None:
                continue
        out.append(max(0.0, shown - t_ack))
    return out


# --- the deployment ------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def deployment(procs: int, database: str):
    data = Path(tempfile.mkdtemp(prefix="mizan-classroom-"))
    ok = False
    os.chmod(data, 0o755)
    port, app_port, pg_port = free_port(), 18600 + random.randrange(0, 300) * 4, free_port()
    env = {**os.environ, "MIZAN_DATA_DIR": str(data), "MIZAN_APP_PORT": str(app_port),
           "MIZAN_PG_PORT": str(pg_port)}
    env.pop("MIZAN_DATABASE_URL", None)
    cmd = [str(ROOT / "deploy" / "run.sh"), str(procs), "--port", str(port)]
    if database == "postgres":
        cmd.append("--postgres")
    log = (data / "deploy.log").open("wb")
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError((data / "deploy.log").read_text()[-3000:])
            with contextlib.suppress(OSError), urllib.request.urlopen(
                    f"{base}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    break
            time.sleep(0.3)
        else:
            raise RuntimeError("deployment did not come up")
        if database == "postgres":  # the local cluster asks for its password (pgpass file)
            os.environ["MIZAN_DATABASE_URL"] = f"postgresql://mizan@127.0.0.1:{pg_port}/postgres"
            os.environ["PGPASSFILE"] = str(data / "pgpass")
        yield base, data / "run"
        ok = True
    finally:
        os.environ.pop("MIZAN_DATABASE_URL", None)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(60)
        log.close()
        if ok and not os.environ.get("MIZAN_BENCH_KEEP"):  # a failed run (or KEEP) keeps
            shutil.rmtree(data, ignore_errors=True)      # its folder: logs, database
        else:
            print(f"  deployment folder kept: {data}")


def report(res: Result) -> None:
    proj = projector_latency(res)
    cpu_total = sum(res.cpu.values())
    busy = cpu_total / res.window_s if res.window_s else float("nan")
    per_student_ms = 1000 * busy / max(1, res.joined)
    print(f"\n== {res.procs} process(es), {res.students} students ==")
    print(f"  joined {res.joined}/{res.students}; acknowledged answers {len(res.acked)}; "
          f"errors {len(res.errors)}")
    for e in res.errors[:5]:
        print("   ", e)
    print(f"  database: {res.db_rows} answers stored; {len(res.acked)} acknowledged to students; "
          f"duplicates {res.db_dupes}, acknowledged but lost/wrong {res.db_lost}, stored but "
          f"not acknowledged in time {res.db_unacked} -> "
          f"{'EXACTLY ONCE' if exactly_once(res) else 'FAIL'}")
    print(f"  join          p50 {pct(res.join_latency, .5):6.2f} s  p95 "
          f"{pct(res.join_latency, .95):6.2f} s")
    print(f"  question->phone p50 {pct(res.question_latency, .5):6.2f} s  p95 "
          f"{pct(res.question_latency, .95):6.2f} s")
    print(f"  answer->ack   p50 {pct(res.ack_latency, .5):6.2f} s  p95 "
          f"{pct(res.ack_latency, .95):6.2f} s")
    print(f"  projector     p50 {pct(proj, .5):6.2f} s  p95 {pct(proj, .95):6.2f} s  "
          f"(target p95 <= 2 s: {'MET' if pct(proj, .95) <= 2 else 'MISSED'}; n={len(proj)})")
    print(f"  lesson drag   p50 {pct(res.lesson_latency, .5):6.2f} s  p95 "
          f"{pct(res.lesson_latency, .95):6.2f} s  (target p95 <= 1 s: "
          f"{'MET' if pct(res.lesson_latency, .95) <= 1 else 'MISSED'}; "
          f"n={len(res.lesson_latency)})")
    print(f"  app CPU from the push to {res.window_s:.0f} s later: "
          + ", ".join(f"{c / res.window_s:.0%}" for c in res.cpu.values())
          + f" of a core; {per_student_ms:.1f} ms CPU per connected student per second "
          f"-> about {1000 / per_student_ms:.0f} students per fully used core"
          if per_student_ms > 0 else "")
    print(f"  load generator: {res.bench_cpu / res.window_s:.0%} of a core; load average at "
          f"the end of the window {res.load:.1f}")
    if res.flood:
        print("  the flooding device (" + FLOODER + "): " + "; ".join(
            f"{k} {v}" for k, v in sorted(res.flood.items())))
        print("  in the database: " + "; ".join(f"{k} {v}" for k, v in res.flood_db.items()))
    print(f"  reruns sent by the class {res.reruns} in {res.run_s:.0f} s "
          f"({res.reruns / max(res.run_s, 1):.0f}/s); "
          f"load average {os.getloadavg()[0]:.1f}")


async def run_one(base: str, run_dir: Path, args, procs: int) -> Result:
    res = Result(procs, args.students)
    await scenario(base, args, res, run_dir)
    return res


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--procs", default="1,2", help="process counts to compare")
    parser.add_argument("--window", type=float, default=30.0,
                        help="students answer at a random moment within this many seconds")
    parser.add_argument("--ramp", type=int, default=10, help="students joining at once")
    parser.add_argument("--lesson-users", type=int, default=10)
    parser.add_argument("--db", choices=["postgres", "sqlite"], default="postgres")
    parser.add_argument("--flood", type=float, default=0.0,
                        help="seconds of flooding from one other device (0: none)")
    args = parser.parse_args()
    results = []
    for procs in [int(p) for p in args.procs.split(",")]:
        print(f"starting {procs} process(es) behind nginx ({args.db})…", flush=True)
        with deployment(procs, args.db) as (base, run_dir):
            res = asyncio.run(run_one(base, run_dir, args, procs))
        report(res)
        results.append(res)
    ok = all(exactly_once(r) for r in results)
    if len(results) == 2:
        a, b = results
        pa, pb = pct(projector_latency(a), .95), pct(projector_latency(b), .95)
        la, lb = pct(a.lesson_latency, .95), pct(b.lesson_latency, .95)
        print(f"\nscaling 1 -> 2 processes: projector p95 {pa:.2f} -> {pb:.2f} s, lesson p95 "
              f"{la:.2f} -> {lb:.2f} s, answer ack p95 {pct(a.ack_latency, .95):.2f} -> "
              f"{pct(b.ack_latency, .95):.2f} s")
    print(f"median load average during the run: {statistics.median([os.getloadavg()[0]]):.1f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
