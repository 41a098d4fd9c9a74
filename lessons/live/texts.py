"""The live page's words, in the language of the run: the lesson's content file and the
service's messages (``live/messages.<lang>.toml``: ``[error]`` has every refusal the service
can raise, ``[ui]`` the instructor's controls and the banners). One place for each refusal:
the content files have no ``[error]`` section. The files are parsed once and cached per
modification time (``text.i18n.read_toml``); call these at draw time, never at import (an
imported module outlives the run's language)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import live
from live.service import Question
from teaching import measures
from text.i18n import Markup, current_lang, fill, load_content, read_toml

FOLDER = "live"
MESSAGES_DIR = Path(live.__file__).parent


def c() -> Mapping[str, Any]:
    """``lessons/live/content.<lang>.toml``."""
    return load_content(FOLDER)


def messages(lang: str | None = None) -> Mapping[str, Any]:
    return read_toml(MESSAGES_DIR / f"messages.{lang or current_lang()}.toml")


def ui(key: str, values: Mapping[str, Any] | None = None) -> str:
    """A banner or control label from ``[ui]``."""
    text = messages()["ui"][key]
    return fill(text, values) if values else text


def error(key: str) -> str:
    """The message of a refusal (``LiveError.key``); an unknown key reads as a generic one."""
    errors = messages()["error"]
    return errors.get(key, errors["bad_question"])


def option_label(q: Question, value: str) -> str:
    if q.template in ("predict_swap", "better"):
        return c()["options"].get(value, value)
    return value


def prompt(template: str, scenario: Mapping, measure: str | None) -> str:
    """The question as asked: "What is **recall@3** for this ranking?"."""
    k = int(scenario.get("k", 1))
    values: dict[str, Any] = {"measure": Markup(f"**{measures.name(measure, k)}**")
                              if measure else ""}
    if template == "predict_swap":
        i, j = scenario.get("swap", (1, 2))
        values.update(i=int(i), j=int(j))
    return fill(c()["prompt"][template], values)
