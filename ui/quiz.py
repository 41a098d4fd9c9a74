""""Check your understanding": a lesson's quiz bank (``quiz.toml``) as answerable questions.

Each choice item is a radio group; the explanation of the option picked is shown when the
learner checks it, aimed at the misconception behind that option. Numeric items accept the
number forms of ``answers.parse_number``. In the presenter view nothing is checked: each item
has a "reveal" that shows the right answer with its explanation.

Whoever needs the answers (the practice hub records them) passes ``on_answer``: it is called
once per checked answer with ``(item_id, answer, right)`` — ``answer`` is the option's index
in the bank (choice) or the typed text (numeric). ``key_prefix`` keeps one page's widgets and
verdicts apart from another page showing the same item.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import streamlit as st

from runtime import local_store
from teaching.answers import parse_number
from text.i18n import fmt_num, load_quiz, t
from ui import layout

OnAnswer = Callable[[str, str, bool], None]


def _checked(key: str, picked: int, item: dict, on_answer: OnAnswer | None) -> None:
    st.session_state[f"{key}-checked"] = picked
    if on_answer is not None and picked is not None:
        on_answer(item["id"], str(picked), bool(item["options"][picked].get("correct")))


def _choice(item: dict, key: str, on_answer: OnAnswer | None = None) -> None:
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
              on_click=_checked, args=(key, picked, item, on_answer))
    if picked is not None and st.session_state.get(f"{key}-checked") == picked:
        option = options[picked]
        right = bool(option.get("correct"))
        (st.success if right else st.error)(t("quiz.right") if right else t("quiz.wrong"))
        layout.markdown(option.get("why", ""))


def numeric_right(value: float, item: dict) -> bool:
    """Within the item's tolerance (0.005 by default: an answer rounded to two decimals is
    right, 0.62 and 0.63 for 0.625 too; 1e-9 so that the boundary is not lost to floats)."""
    return abs(value - item["answer"]) <= item.get("tolerance", 0.005) + 1e-9


def _numeric(item: dict, key: str, on_answer: OnAnswer | None = None) -> None:
    typed = layout.answer_form(key, t("quiz.answer"), t("quiz.answer_placeholder"),
                               t("quiz.check"))
    if typed is None:
        return
    value = parse_number(typed)
    if value is None:
        st.warning(t("quiz.not_a_number"))
        return
    right = numeric_right(value, item)
    # Report each newly checked text once (the verdict is redrawn on every rerun).
    if on_answer is not None and st.session_state.get(f"{key}-reported") != typed:
        st.session_state[f"{key}-reported"] = typed
        on_answer(item["id"], typed, right)
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


def quiz_item(item: dict, number: int | str, *, key: str,
              on_answer: OnAnswer | None = None) -> None:
    """One item of a bank (as :func:`text.i18n.load_quiz` returns it), boxed."""
    with st.container(border=True, key=key):
        layout.markdown(f"**{number}.** {item['question']}")
        if layout.is_presenting():
            layout.answer_block(item["id"], lambda item=item: _reveal(item))
        elif item["kind"] == "choice":
            _choice(item, key, on_answer)
        else:
            _numeric(item, key, on_answer)


def quiz(folder: str, *, on_answer: OnAnswer | None = None,
         key_prefix: str = "mz-quiz") -> None:
    """All items of ``lessons/<folder>/quiz.toml``, numbered, in file order. Answers are
    recorded in the learner's progress unless ``on_answer`` says otherwise."""
    on_answer = on_answer or local_store.record_quiz
    for number, item in enumerate(load_quiz(folder), start=1):
        quiz_item(item, number, key=f"{key_prefix}-{item['id']}", on_answer=on_answer)
