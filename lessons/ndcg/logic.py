"""Lesson 5's plain functions: the graded scenario, its DCG/IDCG/nDCG, the charts, the step table
and the generated exercise.

No Streamlit here: the page calls these and tests call them directly. Every DCG, IDCG, nDCG, gain
and discount comes from ``metrics``; this module arranges them for display, and checks the
numbers a learner types against them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import metrics
from lessons.ndcg import link
from teaching import measures, mistakes, scenarios
from teaching.answers import parse_number
from text.i18n import fmt_num
from ui import charts
from ui.charts import PALETTE

# "Who is Anna Pavlovna?" over chunks of War and Peace (teaching.scenarios.NDCG): the grades in
# rank order are the seed's [3, 2, 3, 0, 1].
SEED_RANKING: tuple[tuple[str, int], ...] = link.SEED.graded
SEED_K = link.SEED.k
# The judged chunk the system never retrieved (an exact answer): the pitfall's example.
EXAMPLE_MISSED: tuple[str, int] = scenarios.NDCG_MISSED
MAX_DOCS = link.MAX_DOCS
MAX_ID_CHARS = link.MAX_ID_CHARS
SCALES = link.SCALES
GAINS = link.GAINS
IDEALS = link.IDEALS
EXERCISES = measures.keys("graded")   # "try it yourself" draws one of these


@dataclass(frozen=True)
class Scenario:
    """What the learner can change: the ranking with its grades, judged documents the system
    never retrieved (with their grades), k, the gain and where the ideal ordering comes from."""

    ranking: tuple[tuple[str, int], ...] = SEED_RANKING
    unretrieved: tuple[tuple[str, int], ...] = ()
    k: int = SEED_K
    gain: str = "linear"            # "linear" | "exponential"
    ideal: str = "retrieved"        # "retrieved" (the seed's code) | "judged" (trec_eval)

    @property
    def order(self) -> list[str]:
        return [d for d, _ in self.ranking]

    @property
    def grades(self) -> list[int]:
        return [g for _, g in self.ranking]

    @property
    def qrels(self) -> dict[str, int]:
        """Every judged document: the retrieved ones with their grades, and the others."""
        return {**dict(self.unretrieved), **dict(self.ranking)}

    @property
    def depth(self) -> int:
        """The k actually used: at most the length of the ranking."""
        return max(1, min(self.k, len(self.ranking)))


@dataclass(frozen=True)
class Totals:
    k: int
    dcg: float
    idcg: float
    ndcg: float
    ideal_grades: tuple[int, ...]   # the ideal ordering's grades, top k


def totals(sc: Scenario, k: int | None = None) -> Totals:
    k = k or sc.depth
    args = (sc.order, sc.qrels, k)
    ideal = metrics.graded.ideal_grades(sc.order, sc.qrels, sc.ideal)[:k]
    return Totals(k=k, dcg=metrics.dcg(*args, gain=sc.gain),
                  idcg=metrics.idcg(*args, gain=sc.gain, ideal=sc.ideal),
                  ndcg=metrics.ndcg(*args, gain=sc.gain, ideal=sc.ideal),
                  ideal_grades=tuple(ideal))


@lru_cache(maxsize=64)
def by_k(sc: Scenario) -> tuple[Totals, ...]:
    """DCG@k, IDCG@k and nDCG@k for every k from 1 to the length of the ranking (cached: the
    charts, the table by k and the step table of one rerun all read it)."""
    return tuple(totals(sc, k) for k in range(1, len(sc.ranking) + 1))


# --- formulas with the learner's numbers (code, left to right, Western digits) ------------------


def num(value: float, decimals: int | None = None) -> str:
    """A number as formulas and tables show it: up to 4 decimals, Western digits."""
    if isinstance(value, float) and value.is_integer() and decimals is None:
        return str(int(value))
    return fmt_num(value, decimals, digits="latn")


def _gain_text(grade: int, gain: str) -> str:
    if gain == "exponential":
        return f"(2^{grade}-1)" if grade > 0 else "0"
    return str(max(grade, 0))


def dcg_formula(grades: Sequence[int], k: int, gain: str, name: str = "DCG") -> str:
    """``DCG@3 = 3/log2(2) + 2/log2(3) + 3/log2(4) = 3 + 1.2619 + 1.5 = 5.7619``."""
    cut = list(grades)[:k]
    if not cut:
        return f"{name}@{k} = 0"
    terms = [f"{_gain_text(g, gain)}/log2({i + 1})" for i, g in enumerate(cut, start=1)]
    parts = [metrics.gain_of(g, gain) * metrics.discount(i) for i, g in enumerate(cut, start=1)]
    total = metrics.graded.dcg_of_grades(cut, None, gain)
    if len(cut) == 1:
        return f"{name}@{k} = {terms[0]} = {num(total)}"
    return (f"{name}@{k} = {' + '.join(terms)} = {' + '.join(num(p) for p in parts)}"
            f" = {num(total)}")


def ndcg_formula(t: Totals) -> str:
    if t.idcg <= 0:
        return f"nDCG@{t.k} = 0   (IDCG@{t.k} = 0)"
    return f"nDCG@{t.k} = {num(t.dcg)} / {num(t.idcg)} = {num(t.ndcg)}"


def formulas(sc: Scenario) -> dict[str, str]:
    t = totals(sc)
    return {"dcg": dcg_formula(sc.grades, t.k, sc.gain, "DCG"),
            "idcg": dcg_formula(list(t.ideal_grades), t.k, sc.gain, "IDCG"),
            "ndcg": ndcg_formula(t)}


def grades_text(grades: Sequence[int]) -> str:
    return "[" + ", ".join(str(g) for g in grades) + "]"


def missing_in_ideal(sc: Scenario) -> list[tuple[str, int]]:
    """Judged documents with a grade > 0 that the system never retrieved."""
    retrieved = set(sc.order)
    return [(d, g) for d, g in sc.unretrieved if d not in retrieved and g > 0]


# --- worked example --------------------------------------------------------------------------


def worked_values() -> dict[str, float]:
    """The numbers the worked example quotes, all from ``metrics`` on the seed."""
    order, grades = [d for d, _ in SEED_RANKING], dict(SEED_RANKING)
    judged = {**grades, EXAMPLE_MISSED[0]: EXAMPLE_MISSED[1]}
    ideal = sorted(grades.values(), reverse=True)
    out: dict[str, float] = {}
    for i, (_, g) in enumerate(SEED_RANKING, start=1):
        out[f"disc{i}"] = metrics.discount(i)
        out[f"c{i}"] = metrics.gain_of(g) * metrics.discount(i)
        out[f"ic{i}"] = metrics.gain_of(ideal[i - 1]) * metrics.discount(i)
        out[f"dcg{i}"] = metrics.dcg(order, grades, i)
        out[f"ndcg{i}"] = metrics.ndcg(order, grades, i, ideal="retrieved")
    out.update(
        dcg5=metrics.dcg(order, grades, 5),
        idcg5=metrics.idcg(order, grades, 5, ideal="retrieved"),
        ndcg5=metrics.ndcg(order, grades, 5, ideal="retrieved"),
        idcg5_judged=metrics.idcg(order, judged, 5),
        ndcg5_judged=metrics.ndcg(order, judged, 5),
        dcg5_exp=metrics.dcg(order, grades, 5, gain="exponential"),
        idcg5_exp=metrics.idcg(order, grades, 5, gain="exponential", ideal="retrieved"),
        ndcg5_exp=metrics.ndcg(order, grades, 5, gain="exponential", ideal="retrieved"),
        ndcg5_judged_exp=metrics.ndcg(order, judged, 5, gain="exponential"),
    )
    return {name: tidy(v) for name, v in out.items()}


def tidy(value: float) -> float | int:
    """3.0 reads as 3 in prose; other values keep their decimals."""
    return int(value) if float(value).is_integer() else value


# --- charts (plain Vega-Lite dicts: cheaper per rerun than Altair) -----------------------------

def _rank_axis(title: str) -> dict:
    return {"field": "rank", "type": "ordinal", "title": title, "sort": "ascending",
            "axis": {"labelAngle": 0}}


def discount_chart(sc: Scenario, labels: Mapping[str, str]) -> dict:
    """The weight of each rank, 1/log2(i+1), next to RR's 1/i; ranks inside the top k solid."""
    rows = []
    for i in range(1, len(sc.ranking) + 1):
        counted = labels["counted"] if i <= sc.depth else labels["not_counted"]
        rows.append({"rank": i, "series": labels["discount_series"], "value": metrics.discount(i),
                     "counted": counted, "shown": num(metrics.discount(i), 2)})
        rows.append({"rank": i, "series": labels["rr_series"], "value": 1 / i,
                     "counted": counted, "shown": ""})
    colours = {labels["discount_series"]: PALETTE["accent"],
               labels["rr_series"]: PALETTE["neutral"]}
    colour = {"field": "series", "type": "nominal", "title": None,
              "scale": charts.scale(colours),
              "legend": charts.legend()}
    x = _rank_axis(labels["rank"])
    return charts.inline(charts.spec(
        270, data={"values": rows},
        encoding={"x": x},
        layer=[
            {"mark": {"type": "line", "strokeWidth": 2},
             "encoding": {"y": {"field": "value", "type": "quantitative",
                                "title": labels["weight"], "scale": {"domain": [0, 1]}},
                          "color": colour,
                          "strokeDash": {"field": "series", "type": "nominal", "legend": None,
                                         "scale": {"domain": list(colours),
                                                   "range": [[1, 0], [4, 3]]}}}},
            {"mark": {"type": "point", "filled": True, "size": 70},
             "encoding": {"y": {"field": "value", "type": "quantitative"}, "color": colour,
                          "opacity": {"field": "counted", "type": "nominal", "legend": None,
                                      "scale": {"domain": [labels["counted"],
                                                           labels["not_counted"]],
                                                "range": [1, 0.3]}},
                          "tooltip": [{"field": "rank", "title": labels["rank"]},
                                      {"field": "series", "title": labels["weight"]},
                                      {"field": "value", "title": labels["weight"],
                                       "format": ".4f"}]}},
            {"mark": {"type": "text", "dy": -11, "fontSize": 12, "color": PALETTE["accent"]},
             "encoding": {"y": {"field": "value", "type": "quantitative"},
                          "text": {"field": "shown"}}},
        ]))


def position_rows(sc: Scenario) -> list[dict]:
    """Per rank: the document, its grade, its gain and its discounted gain (its contribution)."""
    out = []
    for i, (doc, grade) in enumerate(sc.ranking, start=1):
        g = metrics.gain_of(grade, sc.gain)
        out.append({"rank": i, "doc": doc, "grade": grade, "gain": g,
                    "contribution": g * metrics.discount(i), "in_top_k": i <= sc.depth})
    return out


def gain_chart(sc: Scenario, labels: Mapping[str, str]) -> dict:
    """Per position: the gain (wide, light) and what is left of it after the discount (narrow,
    dark). Ranks below k are faded: they add nothing to DCG@k."""
    rows = position_rows(sc)
    for row in rows:
        row["counted"] = labels["counted"] if row["in_top_k"] else labels["not_counted"]
        row["label"] = f"{row['doc']} ({row['grade']})"
    domain = [labels["gain_series"], labels["contribution_series"]]
    colour_scale = {"domain": domain, "range": [PALETTE["accent_light"], PALETTE["accent"]]}
    opacity = {"field": "counted", "type": "nominal", "legend": None,
               "scale": {"domain": [labels["counted"], labels["not_counted"]],
                         "range": [1, 0.3]}}
    tooltip = [{"field": "doc", "title": labels["document"]},
               {"field": "grade", "title": labels["grade"]},
               {"field": "gain", "title": labels["gain_series"], "format": ".4f"},
               {"field": "contribution", "title": labels["contribution_series"],
                "format": ".4f"}]
    top = max([row["gain"] for row in rows] + [1.0])
    return charts.inline(charts.spec(
        270, data={"values": rows},
        encoding={"x": _rank_axis(labels["rank"])},
        layer=[
            {"mark": {"type": "bar", "width": {"band": 0.7}},
             "encoding": {"y": {"field": "gain", "type": "quantitative",
                                "title": labels["gain_axis"], "scale": {"domain": [0, top * 1.15]}},
                          "color": {"datum": labels["gain_series"], "title": None,
                                    "scale": colour_scale,
                                    "legend": charts.legend()},
                          "opacity": opacity, "tooltip": tooltip}},
            {"mark": {"type": "bar", "width": {"band": 0.35}},
             "encoding": {"y": {"field": "contribution", "type": "quantitative"},
                          "color": {"datum": labels["contribution_series"]},
                          "opacity": opacity, "tooltip": tooltip}},
            {"mark": {"type": "text", "dy": -8, "fontSize": 12},
             "encoding": {"y": {"field": "gain", "type": "quantitative"},
                          "text": {"field": "label"}, "opacity": opacity}},
        ]))


def _k_marker(k: int) -> list[dict]:
    """A dashed vertical line at the current k, labelled ``k = 5`` at the top."""
    return [
        {"data": {"values": [{}]},
         "mark": {"type": "rule", "color": PALETTE["neutral"], "strokeDash": [4, 3],
                  "strokeWidth": 1.5},
         "encoding": {"x": {"datum": k}}},
        {"data": {"values": [{}]},
         "mark": {"type": "text", "fontSize": 12, "color": PALETTE["label"], "align": "left",
                  "dx": 5, "dy": -6},
         "encoding": {"x": {"datum": k}, "y": {"value": "height"},
                      "text": {"value": f"k = {k}"}}},
    ]


def cumulative_rows(sc: Scenario) -> list[dict]:
    return [{"k": t.k, "dcg": t.dcg, "idcg": t.idcg, "ndcg": t.ndcg} for t in by_k(sc)]


def cumulative_chart(sc: Scenario, labels: Mapping[str, str]) -> dict:
    """DCG@k and IDCG@k as k grows: both only climb, so their size says nothing by itself; the
    gap between them is what nDCG measures."""
    rows = []
    for row in cumulative_rows(sc):
        rows.append({"k": row["k"], "series": labels["dcg_series"], "value": row["dcg"]})
        rows.append({"k": row["k"], "series": labels["idcg_series"], "value": row["idcg"]})
    colours = {labels["dcg_series"]: PALETTE["accent"], labels["idcg_series"]: PALETTE["good"]}
    colour = {"field": "series", "type": "nominal", "title": None,
              "scale": charts.scale(colours),
              "legend": charts.legend()}
    x = {"field": "k", "type": "ordinal", "title": labels["k_axis"], "axis": {"labelAngle": 0}}
    return charts.inline(charts.spec(
        270, data={"values": rows},
        encoding={"x": x},
        layer=[
            *_k_marker(sc.depth),
            {"mark": {"type": "line", "point": {"filled": True, "size": 60}, "strokeWidth": 2},
             "encoding": {"y": {"field": "value", "type": "quantitative",
                                "title": labels["cumulative_axis"]},
                          "color": colour,
                          "tooltip": [{"field": "k", "title": "k"},
                                      {"field": "series", "title": " "},
                                      {"field": "value", "title": labels["value"],
                                       "format": ".4f"}]}},
        ]))


def ndcg_chart(sc: Scenario, labels: Mapping[str, str]) -> dict:
    """nDCG@k as k grows, on a fixed 0–1 scale: it can go down as well as up."""
    rows = [{**row, "shown": num(row["ndcg"], 2)} for row in cumulative_rows(sc)]
    x = {"field": "k", "type": "ordinal", "title": labels["k_axis"], "axis": {"labelAngle": 0}}
    return charts.inline(charts.spec(
        270, data={"values": rows},
        encoding={"x": x},
        layer=[
            *_k_marker(sc.depth),
            {"mark": {"type": "line", "point": {"filled": True, "size": 60}, "strokeWidth": 2},
             "encoding": {"color": {"datum": labels["ndcg_series"], "title": None,
                                    "scale": {"range": [PALETTE["accent"]]},
                                    "legend": charts.legend()},
                          "y": {"field": "ndcg", "type": "quantitative",
                                "title": labels["ndcg_axis"], "scale": {"domain": [0, 1.08]},
                                "axis": {"values": [0, 0.25, 0.5, 0.75, 1], "format": ".2~f"}},
                          "tooltip": [{"field": "k", "title": "k"},
                                      {"field": "ndcg", "title": "nDCG@k", "format": ".4f"}]}},
            {"mark": {"type": "text", "dy": -11, "fontSize": 12, "color": PALETTE["accent"]},
             "encoding": {"y": {"field": "ndcg", "type": "quantitative"},
                          "text": {"field": "shown"}}},
        ]))


# --- the step table: fully worked, then faded one column at a time ------------------------------

STEP_COLUMNS: tuple[str, ...] = ("gain", "discount", "contribution", "dcg", "ndcg")
# Backward fading: the last step is left to the learner first, the first step last.
FADE_ORDER: tuple[str, ...] = ("ndcg", "dcg", "contribution", "discount", "gain")
MAX_FADE = link.MAX_STEPS        # one level per column (a test checks)
CELL_TOLERANCE = 0.006          # two correct decimals are enough
# The table's columns, left to right, and their pixel widths: 730 px in all, which Streamlit
# stretches in proportion to a wider text column (on a phone the table scrolls sideways). Rows
# stay in rank order: the editor's edit state is positional.
STEP_TABLE: tuple[str, ...] = ("rank", "doc", "grade", "gain", "discount", "contribution", "dcg",
                               "idcg", "ndcg", "check")
STEP_WIDTHS = {"rank": 32, "doc": 52, "grade": 50, "gain": 50, "discount": 86,
               "contribution": 104, "dcg": 96, "idcg": 66, "ndcg": 100, "check": 94}


@dataclass(frozen=True)
class StepRow:
    rank: int
    doc: str
    grade: int
    gain: float
    discount: float
    contribution: float
    dcg: float        # running sum: DCG@rank
    idcg: float       # IDCG@rank (given)
    ndcg: float       # DCG@rank / IDCG@rank


def step_rows(sc: Scenario) -> list[StepRow]:
    """One row per rank 1..k; the last row's DCG and nDCG are DCG@k and nDCG@k."""
    rows = []
    for t, (rank, (doc, grade)) in zip(by_k(sc), enumerate(sc.ranking, start=1), strict=False):
        if rank > sc.depth:
            break
        g = metrics.gain_of(grade, sc.gain)
        rows.append(StepRow(rank, doc, grade, g, metrics.discount(rank),
                            g * metrics.discount(rank), t.dcg, t.idcg, t.ndcg))
    return rows


def faded_columns(level: int) -> tuple[str, ...]:
    """The columns the learner fills in at this fading level, in table order."""
    hidden = set(FADE_ORDER[:max(0, min(level, MAX_FADE))])
    return tuple(c for c in STEP_COLUMNS if c in hidden)


@dataclass(frozen=True)
class CellCheck:
    status: str                 # "empty" | "right" | "wrong" | "unreadable"
    expected: float
    typed: float | None = None
    hint: str | None = None     # the mistake id (teaching.mistakes) when a known slip fits


def _close(a: float | None, b: float | None, tol: float = CELL_TOLERANCE) -> bool:
    return a is not None and b is not None and abs(a - b) <= tol + 1e-9


def _parse(text: object) -> float | None:
    return parse_number(text) if isinstance(text, str) else None


def check_steps(rows: Sequence[StepRow], typed: Mapping[tuple[int, str], str],
                faded: Sequence[str], gain: str) -> dict[tuple[int, str], CellCheck]:
    """Check every faded cell. A cell is right when it matches the true value or, for a cell
    built from other faded cells, the value the learner's own (readable) entries give: a slip
    in one cell is marked once, not again in every cell that uses it."""
    values: dict[tuple[int, str], float] = {}

    def used(rank: int, column: str, true: float) -> float:
        """The learner's value of a faded cell if readable, else the true one."""
        return values.get((rank, column), true) if column in faded else true

    for row in rows:
        for column in faded:
            value = _parse(typed.get((row.rank, column), ""))
            if value is not None:
                values[(row.rank, column)] = value
    out: dict[tuple[int, str], CellCheck] = {}
    previous: StepRow | None = None
    for row in rows:
        for column in faded:
            expected = getattr(row, column)
            text = typed.get((row.rank, column), "")
            if not isinstance(text, str) or not text.strip():
                out[(row.rank, column)] = CellCheck("empty", expected)
                continue
            value = values.get((row.rank, column))
            if value is None:
                out[(row.rank, column)] = CellCheck("unreadable", expected)
                continue
            own = _own_value(row, previous, column, used)
            right = _close(value, expected) or (own is not None and _close(value, own))
            hint = None if right else _cell_hint(row, previous, column, value, gain, rows)
            out[(row.rank, column)] = CellCheck("right" if right else "wrong", expected, value,
                                                hint)
        previous = row
    return out


def _own_value(row: StepRow, previous: StepRow | None, column: str, used) -> float | None:
    """What this cell should hold given the learner's own entries in the cells it uses."""
    r = row.rank
    if column == "contribution":
        return used(r, "gain", row.gain) * used(r, "discount", row.discount)
    if column == "dcg":
        before = used(previous.rank, "dcg", previous.dcg) if previous else 0.0
        return before + used(r, "contribution", row.contribution)
    if column == "ndcg":
        return used(r, "dcg", row.dcg) / row.idcg if row.idcg > 0 else 0.0
    return None


def _cell_hint(row: StepRow, previous: StepRow | None, column: str, value: float, gain: str,
               rows: Sequence[StepRow]) -> str | None:
    """The mistake of the catalogue (``teaching.mistakes``) that puts ``value`` in this cell."""
    last = rows[-1]
    cell = mistakes.Cell(rank=row.rank, grade=row.grade, gain_kind=gain, gain=row.gain,
                         contribution=row.contribution, dcg=row.dcg, idcg=row.idcg,
                         previous_dcg=previous.dcg if previous else None, final_idcg=last.idcg,
                         last=row is last)
    return mistakes.cell_mistake(column, cell, value, CELL_TOLERANCE)


def row_mark(checks: Mapping[tuple[int, str], CellCheck], rank: int, faded: Sequence[str],
             names: Mapping[str, str]) -> str:
    """The 'check' cell of a row: ✓ when every faded cell is right, ✗ with the wrong columns,
    … while some are still empty."""
    states = {c: checks[(rank, c)].status for c in faded if (rank, c) in checks}
    wrong = [names[c] for c, s in states.items() if s in ("wrong", "unreadable")]
    if wrong:
        return "✗ " + ", ".join(wrong)
    if states and all(s == "right" for s in states.values()):
        return "✓"
    if any(s == "right" for s in states.values()):
        return "✓ …"
    return ""


def all_right(checks: Mapping[tuple[int, str], CellCheck]) -> bool:
    return bool(checks) and all(c.status == "right" for c in checks.values())
