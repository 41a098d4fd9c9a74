"""The keyed exception for a corpus that cannot be used (an upload, or the bundled files).

``CorpusError`` is a ``metrics.errors.FormatError``: the same ``.key``, ``.line`` (1-based, or
None) and ``.params``, so the page translates it like the lab's file errors, and a key both
share (``too_large``, ``binary_file``, ``utf16``, ``not_utf8``, ``empty_file``,
``missing_column``, ``wrong_column_count``, ``empty_id``, ``no_rows``) means the same thing with
the same params. Keys of its own and their params:

=====================  =========================================================================
key                    params
=====================  =========================================================================
unsupported_file       name (the file name), accepted (list of extensions)
no_passages            -- (text, but nothing left to index: only headings or punctuation)
too_many_passages      count (passages after chunking), limit; line = where passage limit+1 starts
duplicate_id           id, first_line; line = the second use
bad_id                 id (contains whitespace: it could not be written to a TREC file)
bad_corpus             detail (English; the bundled handbook or questions are inconsistent)
embeddings_stale       detail (English; the stored embeddings do not match the corpus texts)
=====================  =========================================================================
"""

from __future__ import annotations

from metrics.errors import FormatError

MESSAGES: dict[str, str] = {
    "unsupported_file": "{name} is not a text, Markdown or CSV file (accepted: {accepted}).",
    "no_passages": "The file has no passage to index.",
    "too_many_passages": "The file makes {count} passages; the limit is {limit}.",
    "duplicate_id": "The id {id!r} is used twice (first on line {first_line}).",
    "bad_id": "The id {id!r} contains a space or a tab.",
    "bad_corpus": "The corpus is inconsistent: {detail}.",
    "embeddings_stale": "The stored embeddings do not match the corpus: {detail}.",
}


class CorpusError(FormatError):
    """A corpus file that cannot be indexed; see the module docstring for the keys."""

    def message(self) -> str:
        template = MESSAGES.get(self.key)
        if template is None:  # a key shared with FormatError: its message
            return super().message()
        shown = {k: ", ".join(map(str, v)) if isinstance(v, (list, tuple)) else v
                 for k, v in self.params.items()}
        text = template.format(**shown)
        return f"line {self.line}: {text}" if self.line is not None else text
