"""Loading the bytes: a path, bytes, or a file-like object; gzip; size limits."""

from __future__ import annotations

import codecs
import errno
import os
import zlib

from metrics.errors import FormatError
from metrics.io.common import HEAD
from metrics.io.lines import line_of_offset


class Source:
    """The input's bytes. A path is kept as a path (the fast TREC parse streams it from disk,
    so the file is never held in memory whole); everything else is bytes."""

    def __init__(self, source, max_bytes: int | None) -> None:
        self.path: str | None = None
        self._data: bytes | None = None
        self._nul_checked = False
        self.bom = 0
        self.max_bytes = max_bytes
        if isinstance(source, os.PathLike) or (isinstance(source, str) and not is_content(source)):
            self.path = os.fspath(source)
            try:
                size = os.stat(self.path).st_size
            except (OSError, ValueError) as err:
                if getattr(err, "errno", None) == errno.ENOENT or isinstance(err, ValueError):
                    raise FormatError("no_such_file", path=clip_path(self.path)) from None
                raise FormatError("unreadable_file", path=str(self.path),
                                  reason=reason(err)) from None
            self._check_size(size)
        elif isinstance(source, str):
            self._data = source.encode("utf-8", "surrogatepass")
        elif isinstance(source, (bytes, bytearray, memoryview)):
            self._data = bytes(source)
        elif hasattr(source, "read"):
            self._data = self._read_stream(source)
        else:
            raise TypeError(f"expected a path, bytes or a file-like object, not {type(source)}")
        if self._data is not None:
            self._check_size(len(self._data))
        head = self.head()
        if head[:2] == b"\x1f\x8b":
            self._data = gunzip(self._load(), max_bytes)
            self.path = None
        self.bom = 3 if self.head()[:3] == codecs.BOM_UTF8 else 0

    def _check_size(self, size: int) -> None:
        if self.max_bytes is not None and size > self.max_bytes:
            raise FormatError("too_large", size=int(size), limit=int(self.max_bytes))

    def _read_stream(self, stream) -> bytes:
        try:
            if hasattr(stream, "getvalue"):  # BytesIO, UploadedFile: no copy, any position
                data = stream.getvalue()
            else:
                data = stream.read(-1 if self.max_bytes is None else self.max_bytes + 1)
        except FormatError:
            raise
        except UnicodeDecodeError as err:  # a text stream opened with the wrong encoding
            raise FormatError("not_utf8", byte=byte_of(err)) from None
        except (OSError, ValueError) as err:
            raise FormatError("unreadable_file", path=str(getattr(stream, "name", "")),
                              reason=reason(err)) from None
        if isinstance(data, str):
            return data.encode("utf-8", "surrogatepass")
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"read() returned {type(data).__name__}, not bytes or str")
        return bytes(data)

    def head(self, n: int = HEAD) -> bytes:
        if self._data is not None:
            return self._data[:n]
        try:
            with open(self.path, "rb") as f:
                return f.read(n)
        except OSError as err:
            raise FormatError("unreadable_file", path=str(self.path), reason=reason(err)) from None

    def data(self) -> bytes:
        """All the bytes (the BOM included); read from disk on first use for a path. A NUL
        byte anywhere means a binary file."""
        self._load()
        return self._checked()

    def _load(self) -> bytes:
        if self._data is None:
            try:
                with open(self.path, "rb") as f:
                    self._data = f.read()
            except OSError as err:
                raise FormatError("unreadable_file", path=str(self.path),
                                  reason=reason(err)) from None
            self._check_size(len(self._data))
        return self._data

    def _checked(self) -> bytes:
        if not self._nul_checked:
            self._nul_checked = True
            nul = self._data.find(b"\x00")
            if nul >= 0:
                raise FormatError("binary_file", line=line_of_offset(self._data[self.bom:],
                                                                     nul - self.bom),
                                  kind="binary")
        return self._data

    def body(self) -> bytes:
        """All the bytes after the BOM."""
        data = self.data()
        return data[self.bom:] if self.bom else data


def is_content(text: str) -> bool:
    """A ``str`` source is the file's text (not a path) when it has a line break or starts
    like JSON."""
    return "\n" in text or "\r" in text or text.lstrip()[:1] in ("{", "[")


def clip_path(path: str, width: int = 200) -> str:
    return path if len(path) <= width else path[:width - 1] + "…"


def reason(err: BaseException) -> str:
    return getattr(err, "strerror", None) or type(err).__name__


def byte_of(err: UnicodeDecodeError) -> str:
    bad = err.object[err.start:err.start + 1] if isinstance(err.object, bytes) else b""
    return f"0x{bad[0]:02x}" if bad else "?"


def gunzip(data: bytes, max_bytes: int | None) -> bytes:
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    limit = 0 if max_bytes is None else max_bytes + 1
    try:
        out = inflater.decompress(data, limit)
    except zlib.error:
        raise FormatError("binary_file", kind="gzip") from None
    if max_bytes is not None and (len(out) > max_bytes or inflater.unconsumed_tail):
        # not "too_large": the file as sent was small enough, its text is not
        raise FormatError("too_large_unzipped", limit=int(max_bytes))
    if not inflater.eof:  # cut short (an interrupted download): not the whole file
        raise FormatError("binary_file", kind="gzip")
    return out
