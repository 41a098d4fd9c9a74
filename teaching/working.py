"""The right working of an exercise and every text it shows: questions, steps, verdicts and
the feedback on a mistake, filled with the case's own numbers. Pure Python.

Texts: ``exercises.<lang>.toml`` (questions, measure names, panel labels, steps, verdicts, the
result line) and the mistake catalogue's ``mistakes.<lang>.toml`` (one feedback text per
mistake id). A verdict or result text is looked up for the exercise's measure, then its family,
then ``any``; a predict exercise looks in ``predict``, then ``any``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from metrics import graded, rank
from metrics._input import dedupe
from teaching import measures, mistakes
from teaching.cases import (
    Attempt,
    Exercise,
    Step,
    doc_order,
    faithfulness_report,
    first_ranks,
)
from text import i18n

__all__ = ["FORM_SLIPS", "feedback", "feedback_key", "feedback_text", "feedback_values",
           "first_try_feedback", "scopes", "steps", "texts"]

#: Mistakes of form, not of method (the right value written as a percentage): the full
#: feedback at once, since the learner already has the number.
FORM_SLIPS = frozenset({"percent_not_fraction"})


# --- the values the texts quote -------------------------------------------------------------------


def _n(x: float, places: int = 4) -> str:
    """A number in a formula: 0.6667, 2, 0.5 (plain digits, left to right)."""
    return i18n.fmt_num(round(float(x), places) if not float(x).is_integer() else int(x),
                        digits="latn")


def _ratio_formula(name: str, top: int, bottom: int, value: float) -> str:
    return f"{name} = {top} / {bottom} = {_n(value)}"


def _listed(items, lang: str) -> i18n.Markup:
    """Items joined by the language's list separator ("—" for none)."""
    return i18n.Markup(i18n.list_separator(lang).join(items) or "—")


def _codes(ids, lang: str) -> i18n.Markup:
    return _listed((f"`{i}`" for i in ids), lang)


def _dcg_formula(name: str, grades: Sequence[int], k: int) -> str:
    cut = list(grades)[:k]
    terms = [f"{g}/log2({i + 1})" for i, g in enumerate(cut, start=1)]
    parts = [_n(graded.gain_of(g) * graded.discount(i)) for i, g in enumerate(cut, start=1)]
    total = graded.dcg_of_grades(cut, None)
    return f"{name}@{k} = " + " + ".join(terms) + " = " + " + ".join(parts) + f" = {_n(total)}"


def feedback_values(ex: Exercise, lang: str | None = None) -> dict[str, Any]:
    """Every value the question, step and feedback texts of ``ex`` quote (for ``fill``);
    ``lang`` (default: the page's) picks the list separator."""
    lang = lang if lang in i18n.LANGS else i18n.current_lang()
    values = _values(ex, lang)
    if ex.kind == "compute":   # the line that gives the right result, in the mistakes' texts
        table = texts(lang)["result"]
        none = values.get("hits") == 0 and measures.family(ex.metric) == "binary"
        result = (none and table.get(f"{ex.metric}_none", table.get("binary_none"))) \
            or _scoped(table, ex)
        values["result"] = i18n.Markup(i18n.fill(result, values)) if result else ""
    return values


def _whole(value: float) -> float | int:
    """A value rounded as the texts quote it; a whole one reads as the working above it does:
    "= 1", not "= 1.0"."""
    value = round(value, 4)
    return int(value) if float(value).is_integer() else value


def _values(ex: Exercise, lang: str) -> dict[str, Any]:
    values: dict[str, Any] = {"answer": _whole(ex.answer), "k": ex.k}
    if ex.kind == "predict":
        return values | _predict_values(ex, lang)
    family = measures.family(ex.metric)
    if family == "binary":
        return values | _binary_values(ex, lang)
    if ex.metric == "ap":
        return values | _ap_values(ex, lang)
    if ex.metric == "mrr":
        return values | _mrr_values(ex, lang)
    if family == "graded":
        return values | _graded_values(ex, lang)
    return values | _faithfulness_values(ex)


def _binary_values(ex: Exercise, lang: str) -> dict[str, Any]:
    ranking, relevant, k = list(ex.ranking), set(ex.relevant), ex.k
    f = mistakes.facts(ranking, relevant, k)
    hit_docs = [d for d in dedupe(ranking)[:k] if d in relevant]
    return {"hits": f.hits, "R": f.R, "retrieved": f.retrieved,
            "first_rank": f.first_rank or 0, "last_rank": f.last_rank or 0,
            "hit_docs": _codes(hit_docs, lang),
            "relevant_docs": _codes(sorted(relevant, key=doc_order), lang),
            "depth": min(k, f.retrieved),
            "precision": round(mistakes.MEASURES["precision"](ranking, relevant, k), 4),
            "recall": round(mistakes.MEASURES["recall"](ranking, relevant, k), 4)}


def _ap_values(ex: Exercise, lang: str) -> dict[str, Any]:
    ranking, relevant = list(ex.ranking), set(ex.relevant)
    ranks = rank.relevant_ranks(ranking, relevant, ex.k)
    terms = [f"{hit}/{r}" for hit, r in enumerate(ranks, start=1)]
    total = sum(hit / r for hit, r in enumerate(ranks, start=1))
    return {"R": len(relevant), "retrieved": len(ranks),
            "ranks": _listed(map(str, ranks), lang), "terms": _listed(terms, lang),
            "sum": i18n.Markup(f"({' + '.join(terms) or '0'})"), "total": round(total, 4)}


def _mrr_values(ex: Exercise, lang: str) -> dict[str, Any]:
    firsts = first_ranks(ex.questions)
    rrs = [f"1/{r}" if r else "0" for r in firsts]
    return {"n": len(firsts), "ranks": _listed((str(r) if r else "—" for r in firsts), lang),
            "rrs": _listed(rrs, lang), "sum": i18n.Markup(" + ".join(rrs)),
            "missed": sum(r is None for r in firsts)}


def _graded_values(ex: Exercise, lang: str) -> dict[str, Any]:
    order, qrels, k = list(ex.ranking), ex.qrels, ex.k
    ideal = graded.ideal_grades(order, qrels, "judged")[:k]
    ideal_ret = graded.ideal_grades(order, qrels, "retrieved")[:k]
    dcg, idcg = graded.dcg(order, qrels, k), graded.idcg(order, qrels, k)
    ndcg = graded.ndcg(order, qrels, k)
    missing = [f"`{d}` ({g})" for d, g in ex.unretrieved]
    return {
        "dcg": round(dcg, 4), "idcg": round(idcg, 4), "ndcg": round(ndcg, 4),
        "idcg_retrieved": round(graded.idcg(order, qrels, k, ideal="retrieved"), 4),
        "dcg_terms": i18n.Markup(f"`{_dcg_formula('DCG', ex.grades, k)}`"),
        "idcg_terms": i18n.Markup(f"`{_dcg_formula('IDCG', ideal, k)}`"),
        "ndcg_terms": i18n.Markup(f"`nDCG@{k} = {_n(dcg)} / {_n(idcg)} = {_n(ndcg)}`"),
        "ideal": i18n.Markup(f"`{list(ideal)}`"),
        "ideal_retrieved": i18n.Markup(f"`{list(ideal_ret)}`"),
        "missing": _listed(missing, lang),
    }


def _faithfulness_values(ex: Exercise) -> dict[str, Any]:
    verdicts = [s.verdict for s in faithfulness_report(ex).sentences]
    count = {v: verdicts.count(v) for v in ("supported", "check", "unsupported", "not_scored")}
    return {"supported": count["supported"], "check": count["check"],
            "unsupported": count["unsupported"], "not_scored": count["not_scored"],
            "scored": len(verdicts) - count["not_scored"], "total": len(verdicts)}


def _predict_values(ex: Exercise, lang: str | None = None) -> dict[str, Any]:
    i, j = ex.swap or (0, 0)
    why = ""
    if ex.direction == "same" and i:
        # the measure's own reason the swap changes nothing (the same texts as lesson pages')
        grade = dict(ex.judgments)
        gi, gj = (grade.get(ex.ranking[r - 1], 0) for r in (i, j))
        same_grade = gi == gj if measures.family(ex.metric) == "graded" else (gi > 0) == (gj > 0)
        why = mistakes.text(mistakes.swap_mistake("same", "up", i, j, ex.k, same_grade,
                                                  ex.metric), "misconception", lang) or ""
    # AP is taken over the whole ranking: no cutoff to name
    return {"i": i, "j": j, "name": i18n.Markup(measures.name(
                ex.metric, None if ex.metric == "ap" else ex.k)),
            "before": _whole(ex.before or 0.0), "after": _whole(ex.answer),
            "delta": round(abs(ex.answer - (ex.before or 0.0)), 4), "why": i18n.Markup(why)}


def steps(ex: Exercise, lang: str | None = None) -> list[Step]:
    """The right working, step by step. Each step's text is ``[steps].<key>`` in the texts file
    (filled with ``step.values``); ``step.formula`` is the arithmetic, the same in any language."""
    v = feedback_values(ex, lang)
    if ex.kind == "predict":
        return _predict_steps(ex, v)
    family = measures.family(ex.metric)
    if family == "binary":
        return _binary_steps(ex, v)
    if ex.metric == "ap":
        return [Step("ap_ranks", v),
                Step("ap_terms", v, ", ".join(
                    f"P@{r} = {hit}/{r}" for hit, r in enumerate(rank.relevant_ranks(
                        list(ex.ranking), set(ex.relevant), ex.k), start=1))),
                Step("ap_divide", v, f"AP = {v['sum']} / {v['R']} = {_n(ex.answer)}")]
    if ex.metric == "mrr":
        rows = [f"q{n}: RR = " + (f"1/{r}" if r else "0")
                for n, r in enumerate(first_ranks(ex.questions), start=1)]
        return [Step("mrr_first_ranks", v, "; ".join(rows)),
                Step("mrr_mean", v, f"MRR = ({v['sum']}) / {v['n']} = {_n(ex.answer)}")]
    if family == "graded":
        out = []
        if ex.metric in ("dcg", "ndcg"):
            out.append(Step("dcg_sum", v, str(v["dcg_terms"]).strip("`")))
        if ex.metric in ("idcg", "ndcg"):
            # no "never retrieved: —": its own sentence when every judged document came back
            out.append(Step("ideal_order" if ex.unretrieved else "ideal_order_all_retrieved", v))
            out.append(Step("idcg_sum", v, str(v["idcg_terms"]).strip("`")))
        if ex.metric == "ndcg":
            out.append(Step("ndcg_divide", v, str(v["ndcg_terms"]).strip("`")))
        return out
    report = faithfulness_report(ex)
    out = [Step("faith_sentence_" + s.verdict, {**v, "number": n, "sentence": s.text})
           for n, s in enumerate(report.sentences, start=1)]
    # "(0 sentences left out)" is no sentence a teacher writes: its own wording when none is
    key = "faith_share" if v["not_scored"] else "faith_share_all_scored"
    out.append(Step(key, v, f"{v['supported']} / {v['scored']} = {_n(ex.answer)}"))
    return out


def _binary_steps(ex: Exercise, v: dict[str, Any]) -> list[Step]:
    k, m = ex.k, ex.metric
    count = Step("count_hits" if v["hits"] else "count_hits_none", v)   # no "0 documents: —"
    if m == "hit_rate":
        return [count, Step("hit_rate_rule", v,
                            f"HitRate@{k} = {1 if v['hits'] else 0}")]
    if m == "precision":
        return [count, Step("precision_divide", v,
                            _ratio_formula(f"P@{k}", v["hits"], k, ex.answer))]
    recall = Step("recall_divide", v, _ratio_formula(f"R@{k}", v["hits"], v["R"], v["recall"]))
    if m == "recall":
        return [count, Step("count_R", v), recall]
    if m == "f1":
        return [count, Step("count_R", v),
                Step("precision_divide", v, _ratio_formula(f"P@{k}", v["hits"], k,
                                                           v["precision"])),
                recall,
                Step("f1_harmonic", v, f"F1@{k} = 2 × {v['hits']} / ({k} + {v['R']}) = "
                     f"{_n(ex.answer)}")]
    if v["first_rank"]:
        return [Step("rr_first_hit", v), Step("rr_invert", v,
                                              f"RR@{k} = 1 / {v['first_rank']} = "
                                              f"{_n(ex.answer)}")]
    return [Step("rr_no_hit", v, f"RR@{k} = 0")]


def _predict_steps(ex: Exercise, v: dict[str, Any]) -> list[Step]:
    i, j = ex.swap or (0, 0)
    after = list(ex.ranking)
    after[i - 1], after[j - 1] = after[j - 1], after[i - 1]
    name = str(v["name"])
    return [Step("predict_before", v, f"{name} = {_n(ex.before or 0.0)}  ({' '.join(ex.ranking)})"),
            Step("predict_after", v, f"{name} = {_n(ex.answer)}  ({' '.join(after)})"),
            Step("predict_" + (ex.direction or "same"), v)]


# --- texts ---------------------------------------------------------------------------------------


def texts(lang: str | None = None) -> dict[str, Any]:
    """The parsed ``teaching/exercises.<lang>.toml`` (cached; never mutate it)."""
    lang = lang if lang in i18n.LANGS else i18n.current_lang()
    return i18n.read_toml(Path(__file__).with_name(f"exercises.{lang}.toml"))


def scopes(ex: Exercise) -> tuple[str, ...]:
    """Where a verdict or result text of ``ex`` is looked up, first match wins."""
    if ex.kind == "predict":
        return ("predict", "any")
    return tuple(dict.fromkeys((ex.metric, measures.family(ex.metric), "any")))


def _scoped(table: dict[str, Any], ex: Exercise, key: str | None = None) -> str | None:
    for scope in scopes(ex):
        found = table.get(scope) if key is None else table.get(scope, {}).get(key)
        if found:
            return found
    return None


def feedback_key(ex: Exercise, attempt: Attempt) -> str:
    """The feedback to show: ``correct``, ``not_a_number``, a mistake id or ``wrong_unknown``."""
    if attempt.status in ("correct", "not_a_number"):
        return attempt.status
    return attempt.mistake or "wrong_unknown"


def feedback_text(ex: Exercise, key: str, lang: str | None = None) -> str:
    """The raw text of feedback ``key`` for ``ex``: the mistake catalogue's for a mistake id,
    else the verdict text of the exercise's scope (see :func:`scopes`)."""
    text = mistakes.text(key, "feedback", lang)
    if text:
        return text
    verdicts = texts(lang)["verdict"]
    return _scoped(verdicts, ex, key) or _scoped(verdicts, ex, "wrong_unknown") or ""


def feedback(ex: Exercise, attempt: Attempt, lang: str | None = None) -> str:
    """The targeted feedback for ``attempt``: names the mistake and shows the right step with
    this case's numbers (Markdown with placeholders filled; render with ``layout.markdown``)."""
    return i18n.fill(feedback_text(ex, feedback_key(ex, attempt), lang),
                     feedback_values(ex, lang))


def first_try_feedback(ex: Exercise, attempt: Attempt, lang: str | None = None) -> str:
    """The feedback on a first wrong answer: it names the mistake (the catalogue's
    ``misconception`` line) and gives the measure's hint, but not the right number, so that a
    second try is the learner's own work. An unknown mistake gets the scope's verdict, which
    is already a hint."""
    key = feedback_key(ex, attempt)
    values = feedback_values(ex, lang)
    words = texts(lang)["first_try"]
    slip = mistakes.text(key, "misconception", lang) if key != "wrong_unknown" else None
    if not slip:
        return i18n.fill(feedback_text(ex, key, lang), values)
    parts = [f"**{words['not_yet']}** {words['known_slip']} {slip}"]
    hint = _scoped(words["hint"], ex)
    if hint:
        parts.append(hint)
    parts.append(words["try_again"])
    return i18n.fill("\n\n".join(parts), values)
