"""The live classroom's plain functions: lesson scenarios, the questions built from them, what
the screens show of a question (every value needed to answer it), the join link, and the
projector's chart. No Streamlit here; numbers come from ``metrics`` (the right value and, for
wrong options, ``teaching.mistakes``); storage is ``live.service``.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from live.service import QuestionSpec, Tally
from teaching import exercises, measures, mistakes, scenarios
from teaching.exercises import Exercise
from text.i18n import Markup, fill, list_separator
from ui import charts, tables
from ui.charts import PALETTE

MEASURES = ("recall", "precision", "rr", "ap", "ndcg")   # the verdicts "which is better?" names
# every measure a live question can ask about (the measures of one ranking)
QUESTION_MEASURES = measures.keys("binary", "ap", "graded")
TEMPLATES = ("value_numeric", "value_choice", "predict_swap", "better")
MAX_CHOICES = 4
CHOICE_DECIMALS = 2


@dataclass(frozen=True)
class Scenario:
    """A ranking with its judgments (``qrels``: id → grade; grade ≥ 1 is relevant, judged
    documents that were never retrieved included), the cutoff, and for "which system is
    better?" a second system's ranking."""

    key: str
    ranking: tuple[str, ...]
    qrels: Mapping[str, int]
    k: int
    other: tuple[str, ...] = ()

    def as_dict(self) -> dict:
        out = {"ranking": list(self.ranking), "qrels": dict(self.qrels), "k": self.k}
        if self.other:
            out["other"] = list(self.other)
        return out

    @classmethod
    def of(cls, key: str, seed: scenarios.Ranked) -> Scenario:
        return cls(key, seed.ranking, dict(seed.qrels), seed.k, seed.other)


# The lessons' worked examples (teaching.scenarios): the same numbers the class has seen.
SCENARIOS: Mapping[str, Scenario] = {
    "binary": Scenario.of("binary", scenarios.RECALL_PRECISION),       # lesson 2
    "graded": Scenario.of("graded", scenarios.NDCG_JUDGED),            # lesson 5, the pitfall
    "two_systems": Scenario.of("two_systems", scenarios.TWO_SYSTEMS),
}
# the lesson each scenario comes from (its number is the catalogue's)
SCENARIO_LESSONS = {"binary": "recall_precision", "graded": "ndcg"}


def exercise_scenario(ex: Exercise) -> Scenario:
    """A generated exercise as a live question's scenario: the same measure and seed give the
    same case as in a lesson, in /practice and behind a shared link (``teaching.exercises``)."""
    if ex.kind != "compute" or not ex.ranking:
        raise ValueError("only an exercise on one ranking can be a live question")
    return Scenario("exercise", ex.ranking, dict(ex.judgments), ex.k)


def exercise_question(measure: str, seed: int) -> QuestionSpec:
    """"What is <measure>@k?" on the exercise of ``(measure, seed)``."""
    return value_numeric(exercise_scenario(exercises.generate(measure, seed)), measure)


def value(measure: str, ranking: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    return float(mistakes.MEASURES[measure](list(ranking), dict(qrels), k))


def measure_name(measure: str, k: int | str) -> str:
    """``recall@3``: the measure's name from ``teaching.measures``."""
    return measures.name(measure, k)


def fmt(x: float, decimals: int = CHOICE_DECIMALS) -> str:
    text = f"{x:.{decimals}f}"
    return "0.00"[: decimals + 2] if text.startswith("-0") and float(text) == 0 else text


def swapped(ranking: Sequence[str], i: int, j: int) -> tuple[str, ...]:
    """The ranking with ranks ``i`` and ``j`` (1-based) exchanged."""
    out = list(ranking)
    out[i - 1], out[j - 1] = out[j - 1], out[i - 1]
    return tuple(out)


# --- questions ----------------------------------------------------------------------------------


def value_numeric(sc: Scenario, measure: str) -> QuestionSpec:
    """"What is <measure>@k?": a typed number; wrong numbers are diagnosed in the tally."""
    right = value(measure, sc.ranking, sc.qrels, sc.k)
    return QuestionSpec("numeric", "value_numeric", f"{right:.4f}", scenario=sc.as_dict(),
                        measure=measure, tolerance=measures.MEASURES[measure].tolerance)


def value_choice(sc: Scenario, measure: str) -> QuestionSpec:
    """The same question as a multiple choice: the right value and the values the known wrong
    formulas give on this case (each option carries its mistake key)."""
    right = fmt(value(measure, sc.ranking, sc.qrels, sc.k))
    options: dict[str, str | None] = {right: None}
    for key, wrong in mistakes.MISTAKES[measure].items():
        result = wrong(list(sc.ranking), dict(sc.qrels), sc.k)
        for number in result if isinstance(result, list) else [result]:
            if number is None or len(options) >= MAX_CHOICES:
                continue
            options.setdefault(fmt(number), key)
    for other in MEASURES:  # too few known slips on this case: the other metrics' values
        if len(options) >= MAX_CHOICES - 1:
            break
        if other != measure and (other != "ndcg" or max(sc.qrels.values(), default=0) > 1):
            options.setdefault(fmt(value(other, sc.ranking, sc.qrels, sc.k)),
                               mistakes.judged_by(other))
    ordered = sorted(options, key=float)
    return QuestionSpec("choice", "value_choice", right, scenario=sc.as_dict(), measure=measure,
                        options=[{"value": v, "mistake": options[v]} for v in ordered])


def swap_effect(sc: Scenario, measure: str, i: int, j: int) -> str:
    before = value(measure, sc.ranking, sc.qrels, sc.k)
    after = value(measure, swapped(sc.ranking, i, j), sc.qrels, sc.k)
    if abs(after - before) < 1e-9:
        return "same"
    return "up" if after > before else "down"


def predict_swap(sc: Scenario, measure: str, i: int, j: int) -> QuestionSpec:
    """"After swapping ranks i and j, <measure>@k will go up / go down / stay the same"."""
    if not (1 <= i < j <= len(sc.ranking)):
        raise ValueError("ranks out of range")
    right = swap_effect(sc, measure, i, j)
    same_grade = sc.qrels.get(sc.ranking[i - 1], 0) == sc.qrels.get(sc.ranking[j - 1], 0)
    options = [{"value": v, "mistake": None if v == right
                else mistakes.swap_mistake(right, v, i, j, sc.k, same_grade, measure)}
               for v in ("up", "same", "down")]
    return QuestionSpec("choice", "predict_swap", right, measure=measure, options=options,
                        scenario={**sc.as_dict(), "swap": [i, j]})


def better(sc: Scenario, measure: str) -> QuestionSpec:
    """"Which system is better by <measure>@k, A or B?" A wrong pick is named by the measure
    that would have given it (judged by hits, by the first hit…)."""
    if not sc.other:
        raise ValueError("scenario has one system")

    def verdict(m: str) -> str:
        a = value(m, sc.ranking, sc.qrels, sc.k)
        b = value(m, sc.other, sc.qrels, sc.k)
        return "tie" if abs(a - b) < 1e-9 else ("A" if a > b else "B")

    verdicts = {m: verdict(m) for m in MEASURES}
    right = verdict(measure)
    options = [{"value": v, "mistake": None if v == right
                else mistakes.better_mistake(verdicts, measure, v)} for v in ("A", "B", "tie")]
    return QuestionSpec("choice", "better", right, measure=measure, options=options,
                        scenario=sc.as_dict())


def build(template: str, sc: Scenario, measure: str, swap: tuple[int, int] = (2, 5)
          ) -> QuestionSpec:
    if template == "value_numeric":
        return value_numeric(sc, measure)
    if template == "value_choice":
        return value_choice(sc, measure)
    if template == "predict_swap":
        return predict_swap(sc, measure, *swap)
    if template == "better":
        return better(sc, measure)
    raise ValueError(f"unknown template {template!r}")


# --- what the screens show ----------------------------------------------------------------------


def ranking_rows(ranking: Sequence[str], qrels: Mapping[str, int], k: int) -> list[dict]:
    """One row per rank: id, grade (0 = not relevant) and whether it is inside the top k."""
    return [{"rank": i, "id": d, "grade": int(qrels.get(d, 0)), "in_k": i <= k}
            for i, d in enumerate(ranking, start=1)]


def unretrieved_graded(ranking: Sequence[str], qrels: Mapping[str, int]) -> list[tuple[str, int]]:
    """Judged relevant documents the system never returned, with their grades (they count
    for recall, AP and IDCG)."""
    seen = set(ranking)
    return [(d, g) for d, g in qrels.items() if g >= 1 and d not in seen]


def is_graded(qrels: Mapping[str, int]) -> bool:
    """Grades above 1 exist: the screens show each grade, not ✓/✗."""
    return max(qrels.values(), default=0) > 1


@dataclass(frozen=True)
class SystemView:
    """One ranking as a screen shows it: an optional title, its table, the notes under it."""

    title: str
    table: Markup
    notes: Markup


def scenario_view(template: str, scenario: Mapping, measure: str | None,
                  words: Mapping[str, str], lang: str) -> list[SystemView]:
    """What the phone and the projector show of a question's ranking(s): **every value needed
    to answer it** — each retrieved document's grade (or ✓/✗), the cut-off, and the judged
    relevant documents a system never retrieved *with their grades* (IDCG, recall and AP
    count them); for a binary measure on graded documents, the relevance threshold; for a
    graded measure on ✓/✗, the grade a ✓ stands for. ``tests/test_live_answerable.py``
    computes every question's key from this text alone. ``words`` is ``[screen]``."""
    qrels = {d: int(g) for d, g in dict(scenario.get("qrels", {})).items()}
    k = int(scenario["k"])
    graded = is_graded(qrels)
    family = measures.family(measure) if measure else ""
    systems = [(words["system_a"], scenario["ranking"]), (words["system_b"], scenario["other"])
               ] if template == "better" and scenario.get("other") else [
        ("", scenario["ranking"])]
    out = []
    for title, ranking in systems:
        rows = ranking_rows(ranking, qrels, k)
        table = tables.table(
            [words["rank"], words["document"], words["grade" if graded else "relevant"]],
            [[tables.bold(r["rank"]) if r["in_k"] else r["rank"], tables.code(r["id"]),
              r["grade"] if graded else Markup("✓" if r["grade"] >= 1 else "✗")]
             for r in rows])
        notes = [fill(words["cutoff"], {"k": k})]
        missed = unretrieved_graded(ranking, qrels)
        if missed:
            items = [fill(words["missed_graded"], {"id": tables.code(d), "grade": g})
                     if graded else str(tables.code(d)) for d, g in missed]
            notes.append(fill(words["unretrieved"],
                              {"ids": Markup(list_separator(lang).join(items))}))
        if graded and family in ("binary", "ap"):
            notes.append(fill(words["relevant_from"],
                              {"measure": Markup(measures.name(measure, k))}))
        elif not graded and family == "graded":
            notes.append(words["tick_is_grade_1"])
        if family == "ap":
            notes.append(words["ap_rule"])
        elif family == "graded":
            notes.append(words["graded_rule"])
        out.append(SystemView(title, table, Markup("  \n".join(notes))))
    return out


# --- the join link -------------------------------------------------------------------------------

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


def is_loopback(host: str) -> bool:
    """``localhost``, ``127.x.y.z``, ``::1``, ``0.0.0.0``: an address a phone cannot open."""
    host = host.strip("[]").lower()
    if host in LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def _usable(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return not (ip.is_loopback or ip.is_unspecified or ip.is_link_local or ip.is_multicast)


def network_address() -> str | None:
    """This machine's address on its network (IPv4), or None when it only has loopback.

    The routing trick (a UDP socket "connected" to an outside address sends nothing and
    reports the local address the system would use), tried for a public and the private
    ranges — a closed classroom network has no default route — then the host name."""
    for probe in ("192.0.2.1", "10.255.255.254", "172.31.255.254", "192.168.255.254"):
        with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect((probe, 9))
            found = s.getsockname()[0]
            if _usable(found):
                return found
    with contextlib.suppress(OSError):
        for *_, sockaddr in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            if _usable(sockaddr[0]):
                return sockaddr[0]
    return None


@dataclass(frozen=True)
class JoinLink:
    url: str
    only_localhost: bool = False   # nothing better than localhost known: phones cannot open it


def join_link(page_url: str, code: str, lang: str, address: str | None) -> JoinLink:
    """The link the QR code and the projector show: the page the instructor has open with
    ``?join=CODE`` (and ``lang`` unless Arabic). Opened as ``localhost``, it is rewritten to
    this machine's network ``address`` (same scheme, port and path: a phone cannot open
    anyone's localhost); with no such address the link stays and ``only_localhost`` warns."""
    if not page_url:
        return JoinLink("")
    parts = urlsplit(page_url)
    host = parts.hostname or ""
    only_localhost = False
    if is_loopback(host):
        if address:
            netloc = f"[{address}]" if ":" in address else address
            netloc += f":{parts.port}" if parts.port else ""
            parts = parts._replace(netloc=netloc)
        else:
            only_localhost = True
    query = f"join={code}" + ("" if lang == "ar" else f"&lang={lang}")
    return JoinLink(urlunsplit(parts._replace(query=query, fragment="")), only_localhost)


def share_of_correct(t: Tally) -> float:
    return t.n_correct / t.answered if t.answered else 0.0


def distribution_chart(t: Tally, words: Mapping[str, str], *, revealed: bool,
                       option_labels: Mapping[str, str] | None = None) -> dict:
    """Bars of the answers (Vega-Lite dict: no Altair spec building on every poll). The right
    answer is coloured only after the reveal, so the chart does not give it away."""
    option_labels = option_labels or {}
    rows = [{"answer": option_labels.get(label, label), "count": n,
             "status": "correct" if revealed and label == t.correct else "other"}
            for label, n in t.distribution]
    order = [r["answer"] for r in rows]
    return charts.spec(  # the one chart module: palette, description, accessibility settings
        260,
        data={"values": rows},
        layer=[
            {"mark": {"type": "bar", "cornerRadiusEnd": 3},
             "encoding": {
                 "color": {"field": "status", "type": "nominal", "legend": None,
                           "scale": {"domain": ["correct", "other"],
                                     "range": [PALETTE["good"], PALETTE["neutral"]]}},
                 "tooltip": [{"field": "answer", "title": words["answer"]},
                             {"field": "count", "title": words["count"]}]}},
            {"mark": {"type": "text", "dy": -8, "fontSize": 14},
             "encoding": {"text": {"field": "count", "type": "quantitative"}}},
        ],
        encoding={
            "x": {"field": "answer", "type": "nominal", "sort": order,
                  "title": words["answer"], "axis": {"labelAngle": 0, "labelFontSize": 14}},
            "y": {"field": "count", "type": "quantitative", "title": words["count"],
                  "axis": {"tickMinStep": 1}},
        },
    )
