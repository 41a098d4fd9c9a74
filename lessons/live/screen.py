"""Drawing a question: its prompt and the ranking(s) it is about, with every value needed to
answer it (``logic.scenario_view``). The phone, the projector and the composer's preview
draw it the same way."""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from lessons.live import logic, texts
from live.service import Question
from text.i18n import current_lang
from ui import layout


def scenario(template: str, sc: Mapping, measure: str | None, heading: str = "") -> None:
    """The ranking(s); ``heading`` (the prompt) goes in the same element: a phone redraws
    this on every poll, so fewer elements is less work for everyone."""
    views = logic.scenario_view(template, sc, measure, texts.c()["screen"], current_lang())
    if len(views) == 1:
        layout.markdown("\n\n".join(part for part in (heading, views[0].table, views[0].notes)
                                    if part))
        return
    if heading:
        layout.markdown(heading)
    for column, view in zip(st.columns(len(views)), views, strict=True):
        with column:
            layout.markdown(f"**{view.title}**\n\n{view.table}\n\n{view.notes}")


def question(q: Question, *, heading_level: int = 4) -> None:
    scenario(q.template, q.scenario, q.measure,
             heading=f"{'#' * heading_level} {texts.prompt(q.template, q.scenario, q.measure)}")
