"""The two exceptions the metrics package raises on bad input.

Each carries a stable ``key`` (the app translates it), the values the message needs in ``params``
and, for files, the 1-based ``line``. ``str(err)`` is a plain English message for notebooks.
"""

from __future__ import annotations


class _KeyedError(ValueError):
    def __init__(self, key: str, line: int | None = None, **params: object) -> None:
        self.key = key
        self.line = line
        self.params = params
        detail = ", ".join(f"{name}={value}" for name, value in params.items())
        where = f"line {line}: " if line is not None else ""
        super().__init__(f"{where}{key.replace('_', ' ')}" + (f" ({detail})" if detail else ""))


class FormatError(_KeyedError):
    """A run or judgments file that cannot be read (wrong columns, bad values, binary, ...)."""


class MetricError(_KeyedError):
    """A bad argument to a measure: k < 1, a non-integer grade, an unknown measure, NaN scores."""
