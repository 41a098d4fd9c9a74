"""Every live question can be answered from what the class sees (issue 16): for every scenario,
template and measure the composer offers, the key is computed from the **displayed text
only** — the prompt, the ranking table(s) and the notes under them, parsed back — and must
equal the key the projector will reveal. (It could not before: the nDCG question showed
"judged relevant but not retrieved: d8" without d8's grade.)

The full matrix runs on the text the page draws (``logic.scenario_view`` + ``texts.prompt``,
in Arabic and English); an AppTest pushes one question of each kind and checks the phone
draws exactly that text, parsed to the same key."""

from __future__ import annotations

import itertools
import re

import pytest

from lessons.live import logic
from teaching import exercises, measures, mistakes
from text import bidi
from text.i18n import Markup, fill, list_separator, load_content

TEMPLATES = ("value_numeric", "value_choice", "predict_swap")
LABELS = {m.label.lower(): key for key, m in measures.MEASURES.items()}


def pattern(template: str, **groups: str) -> re.Pattern:
    """A content template as a regex: ``{{name}}`` → the given group."""
    out = re.escape(template)
    for name, group in groups.items():
        out = out.replace(re.escape("{{" + name + "}}"), group)
    return re.compile(out)


def scenarios() -> list[logic.Scenario]:
    out = [logic.SCENARIOS["binary"], logic.SCENARIOS["graded"]]
    for measure in logic.QUESTION_MEASURES:          # the generated exercises, several seeds
        out += [logic.exercise_scenario(exercises.generate(measure, seed))
                for seed in range(1, 7)]
    return out


def cases():
    """(template, scenario, measure, swap) for everything the composer can push."""
    for sc in scenarios():
        n = len(sc.ranking)
        for measure in logic.QUESTION_MEASURES:
            for k in sorted({1, sc.k, n}):
                at_k = logic.Scenario(sc.key, sc.ranking, sc.qrels, k)
                yield "value_numeric", at_k, measure, None
                yield "value_choice", at_k, measure, None
                for i, j in itertools.combinations(range(1, n + 1), 2):
                    yield "predict_swap", at_k, measure, (i, j)
    two = logic.SCENARIOS["two_systems"]
    for measure in logic.QUESTION_MEASURES:
        for k in range(1, len(two.ranking) + 1):
            yield "better", logic.Scenario(two.key, two.ranking, two.qrels, k, two.other), \
                measure, None


def shown_text(spec, lang: str) -> str:
    """The prompt and the ranking(s) exactly as the page writes them (before rendering)."""
    c = load_content("live", lang)
    measure_md = Markup(f"**{measures.name(spec.measure, int(spec.scenario['k']))}**")
    values = {"measure": measure_md}
    if spec.template == "predict_swap":
        i, j = spec.scenario["swap"]
        values.update(i=i, j=j)
    parts = [fill(c["prompt"][spec.template], values)]
    for view in logic.scenario_view(spec.template, spec.scenario, spec.measure, c["screen"],
                                    lang):
        parts += [f"**{view.title}**" if view.title else "", view.table, view.notes]
    return "\n\n".join(p for p in parts if p)


def read_back(text: str, lang: str) -> dict:
    """What a student can read off the screen: the measure and k, each system's ranking and
    grades, the judged documents it never retrieved (with grades), the swapped ranks."""
    c = load_content("live", lang)
    s = c["screen"]
    text = bidi.strip_bidi_controls(text)
    measure = re.search(r"\*\*([A-Za-z0-9]+)@(\d+)\*\*", text)
    out: dict = {"measure": LABELS[measure.group(1).lower()], "k": int(measure.group(2)),
                 "systems": []}
    swap = pattern(re.sub(r"\{\{measure\}\}.*", "", c["prompt"]["predict_swap"]),
                   i=r"(\d+)", j=r"(\d+)").search(text)
    out["swap"] = (int(swap.group(1)), int(swap.group(2))) if swap else None
    cutoff = pattern(s["cutoff"], k=r"(\d+)")
    unretrieved = pattern(s["unretrieved"], ids=r"(.+)")
    missed = pattern(s["missed_graded"], id=r"`([^`]+)`", grade=r"(\d+)")
    for block in re.split(r"\n\n(?=\| )", text)[1:]:     # one table (and its notes) per system
        rows = re.findall(r"^\| (?:\*\*)?(\d+)(?:\*\*)? \| `([^`]+)` \| (\S+) \|$", block, re.M)
        ranking = [d for _, d, _ in rows]
        qrels = {d: (1 if g == "✓" else 0 if g == "✗" else int(g)) for _, d, g in rows}
        k = int(cutoff.search(block).group(1))
        found = unretrieved.search(block)
        if found:
            ids = found.group(1).strip()
            graded = missed.findall(ids)
            if graded:
                qrels.update({d: int(g) for d, g in graded})
            else:
                qrels.update({d: 1 for d in re.findall(r"`([^`]+)`", ids)})
        out["systems"].append((ranking, qrels, k))
    qrels = {}
    for _, q, _ in out["systems"]:
        qrels.update({d: g for d, g in q.items() if g or d not in qrels})
    out["qrels"] = qrels
    assert all(k == out["k"] for _, _, k in out["systems"])
    return out


def key_from(template: str, seen: dict) -> str:
    """The question's key from what was read, with the measure's formula (``metrics``)."""
    measure, k, qrels = seen["measure"], seen["k"], seen["qrels"]
    ranking = seen["systems"][0][0]
    value = mistakes.MEASURES[measure]
    if template == "value_numeric":
        return f"{float(value(ranking, qrels, k)):.4f}"
    if template == "value_choice":
        return logic.fmt(float(value(ranking, qrels, k)))
    if template == "predict_swap":
        i, j = seen["swap"]
        after = list(ranking)
        after[i - 1], after[j - 1] = after[j - 1], after[i - 1]
        before, now = float(value(ranking, qrels, k)), float(value(after, qrels, k))
        return "same" if abs(now - before) < 1e-9 else ("up" if now > before else "down")
    a = float(value(ranking, qrels, k))
    b = float(value(seen["systems"][1][0], qrels, k))
    return "tie" if abs(a - b) < 1e-9 else ("A" if a > b else "B")


def build(template, sc, measure, swap):
    try:
        return logic.build(template, sc, measure, swap or (1, 2))
    except (ValueError, KeyError, ZeroDivisionError):
        return None   # the composer says "could not be built" and pushes nothing


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_every_question_can_be_answered_from_what_the_screen_shows(lang):
    checked = kinds = 0
    seen_kinds = set()
    for template, sc, measure, swap in cases():
        spec = build(template, sc, measure, swap)
        if spec is None:
            continue
        seen = read_back(shown_text(spec, lang), lang)
        assert seen["measure"] == measure and seen["k"] == sc.k
        assert key_from(template, seen) == spec.correct, (template, sc, measure, swap)
        checked += 1
        seen_kinds.add((template, sc.key, measures.family(measure)))
    kinds = len(seen_kinds)
    assert checked > 3000 and kinds >= 20, (checked, kinds)


def test_the_lesson_5_question_shows_the_missing_grade():
    """The case of issue 16: nDCG@5 = 0.80 needs the unretrieved chunk's grade 3."""
    spec = logic.value_numeric(logic.SCENARIOS["graded"], "ndcg")
    text = bidi.strip_bidi_controls(shown_text(spec, "en"))
    assert "Judged relevant but never retrieved: `d2` (grade 3)" in text
    assert spec.correct == "0.8047" and key_from("value_numeric", read_back(text, "en")) == \
        "0.8047"
    assert "`d3`" in text and "d7" not in text   # lesson 5's own documents (issue 14 item 11)


def test_the_phone_draws_exactly_that_text(tmp_path, monkeypatch):
    """Pushed from the composer and read off the phone (AppTest), one question of each kind."""
    from live.service import service
    from tests.test_live_apptest import host_of, instructor, student

    monkeypatch.delenv("MIZAN_DATABASE_URL", raising=False)
    monkeypatch.setenv("MIZAN_DATA_DIR", str(tmp_path))
    host = instructor()
    code, _ = host_of(host)
    phone = student(code, "Reader")
    pushes = [("value_numeric", "graded", "ndcg"), ("value_choice", "binary", "ap"),
              ("predict_swap", "graded", "recall"), ("better", "two_systems", "rr"),
              ("value_numeric", "binary", "dcg")]
    for template, scenario, measure in pushes:
        host.selectbox(key="live-template").set_value(template).run()
        host.selectbox(key=f"live-sc-{template}").set_value(scenario).run()
        host.selectbox(key="live-measure").set_value(measure).run()
        host.button(key="live-push").click().run()
        q = service().current_question(code)
        phone.run()
        drawn = "\n\n".join(str(m.value) for m in phone.markdown)
        drawn = re.sub(r"<[^>]+>", "", bidi.strip_bidi_controls(drawn))
        seen = read_back(drawn, "en")
        assert (seen["measure"], key_from(q.template, seen)) == (measure, q.correct), q
        spec_text = bidi.strip_bidi_controls(shown_text(q, "en"))
        for line in spec_text.splitlines():
            assert line.strip() in drawn, line


def test_the_list_separator_is_the_languages():
    sc = logic.exercise_scenario(exercises.generate("recall", 3))   # two judged, unretrieved
    for lang in ("ar", "en"):
        view = logic.scenario_view("value_numeric", sc.as_dict(), "recall",
                                   load_content("live", lang)["screen"], lang)[0]
        missing = logic.unretrieved_graded(sc.ranking, sc.qrels)
        if len(missing) > 1:
            assert list_separator(lang) in str(view.notes)
