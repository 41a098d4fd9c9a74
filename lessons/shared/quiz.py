""""Check your understanding": a lesson's quiz bank (``quiz.toml``) as answerable questions.

Each choice item is a radio group; the explanation of the option picked is shown when the
learner checks it, aimed at the misconception behind that option. Numeric items accept the
number forms of ``answers.parse_number``. In the presenter view nothing is checked: each item
has a "reveal" that shows the right answer with its explanation.
"""

from __future__ import annotations

import random

import streamlit as st

from lessons.shared import layout
from lessons.shared.answers import parse_number
from lessons.shared.i18n import fmt_num, load_quiz, t


def _choice(item: dict, key: str) -> None:
    options = item["options"]
    shown = [layout.label(option["text"]) for option in options]  # formatted once, this run
    # A fixed shuffle per item: the right option is not always first in the bank.
    order = list(range(len(options)))
    random.Random(item["id"]).shuffle(order)
    picked = st.radio(t("quiz.choose"), order, index=None, key=f"{key}-pick",
                      format_func=shown.__getitem__,
                      label_visibility="collapsed")
    # The verdict stays on screen (other widgets rerun the page) until another option is picked.
    st.button(t("quiz.check"), key=f"{key}-check", disabled=picked is None,
              on_click=lambda: st.session_state.__setitem__(f"{key}-checked", picked))
    if picked is not None and st.session_state.get(f"{key}-checked") == picked:
        option = options[picked]
        right = bool(option.get("correct"))
        (st.success if right else st.error)(t("quiz.right") if right else t("quiz.wrong"))
        layout.markdown(option.get("why", ""))


def _numeric(item: dict, key: str) -> None:
    typed = layout.answer_form(key, t("quiz.answer"), t("quiz.answer_placeholder"),
                               t("quiz.check"))
    if typed is None:
        return
    value = parse_number(typed)
    if value is None:
        st.warning(t("quiz.not_a_number"))
        return
    right = abs(value - item["answer"]) <= item.get("tolerance", 0.005) + 1e-9
    (st.success if right else st.error)(t("quiz.right") if right else t("quiz.wrong"))
    layout.markdown(item.get("why", ""))


def _reveal(item: dict) -> None:
    if item["kind"] == "choice":
        for option in item["options"]:
            if option.get("correct"):
                layout.markdown("✓ " + option["text"])
                layout.markdown(option.get("why", ""))
    else:
        layout.markdown(t("quiz.correct_is", answer=fmt_num(item["answer"])))
        layout.markdown(item.get("why", ""))


def quiz(folder: str) -> None:
    """All items of ``lessons/<folder>/quiz.toml``, numbered, in file order."""
    for number, item in enumerate(load_quiz(folder), start=1):
        key = f"mz-quiz-{item['id']}"
        with st.container(border=True, key=key):
            layout.markdown(f"**{number}.** {item['question']}")
            if layout.is_presenting():
                layout.answer_block(item["id"], lambda item=item: _reveal(item))
            elif item["kind"] == "choice":
                _choice(item, key)
            else:
                _numeric(item, key)
