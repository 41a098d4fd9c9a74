"""The live classroom's refusals: one exception with a message key the page translates."""

from __future__ import annotations

from sqlalchemy.exc import SQLAlchemyError

__all__ = ["DatabaseUnavailable", "LiveError"]


class LiveError(Exception):
    """A refused action; ``key`` names the message (``[error]`` in ``live/messages.*.toml``)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


class DatabaseUnavailable(LiveError, SQLAlchemyError):
    """The database did not answer within its timeouts (down, unreachable, locked up).

    Also a ``SQLAlchemyError``, so code that catches database errors catches it too; its
    key is ``"database"``. Raised within the bound set by ``live.db`` (connect timeout plus
    statement timeout), never after an unbounded wait."""

    def __init__(self) -> None:
        super().__init__("database")
