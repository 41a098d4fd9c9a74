"""Faithfulness from per-sentence support labels: the share of answer sentences supported.

The source lesson defines faithfulness as the share of an answer's sentences that the retrieved
documents support. *Deciding* whether a sentence is supported needs a checker (a word-overlap
check, a language-model judge, or a person); that is ``metrics.faithfulness``'s job. This module
only turns labels already decided into the number, so lessons and tests that carry their own
labels (a person's verdicts, a scenario's answer key) get it from the metrics package too.

``supported_share([True, True, False])`` → 0.666…; ``None`` in the labels marks a sentence that
makes no claim (not scored, left out of both counts); with no scored sentence the share is
undefined and the function returns ``None`` (documented value, never a division by zero).
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["supported_share"]


def supported_share(labels: Iterable[bool | None]) -> float | None:
    """Supported sentences ÷ scored sentences (``None`` labels are not scored).

    Returns ``None`` when no sentence is scored. Labels must be ``True``, ``False`` or ``None``
    (``1``/``0`` are accepted as ``True``/``False``); anything else raises ``TypeError``.
    """
    supported = scored = 0
    for label in labels:
        if label is None:
            continue
        if label not in (True, False):   # 1 == True and 0 == False pass
            raise TypeError(f"a support label must be True, False or None, not {label!r}")
        scored += 1
        supported += bool(label)
    return supported / scored if scored else None
