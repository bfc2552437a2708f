"""Strict reading of JSON documents: every file format we accept goes through here.

:func:`read_json_file` reads a JSON file, :func:`read_json_lines` a JSON-lines file (results journals,
responses, usage ledgers: a bad line is named by its number), :func:`parse_json` JSON text from elsewhere
(a shard's metadata, a request body).

A :class:`Fields` wraps one JSON object with its path in the document and the
file it came from. Readers declare the keys an object may have and read each
value with its type and range, so that:

* an unknown or misspelled key is refused with its path and a "did you mean";
* a value of the wrong type, out of range, NaN or infinite is refused with its path;
* every message names the file (when there is one) and the field.

The error raised is the caller's own :class:`~marple_gym.errors.MarpleError`
subclass, built by ``error(file, field, reason)`` (:func:`message_error` makes
such a factory for error classes that take one message), so each format keeps
its error class.
"""

from __future__ import annotations

import difflib
import json
import logging
import math
import numbers
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from marple_gym.errors import MarpleError

log = logging.getLogger(__name__)

REQUIRED: Any = object()
"""Default for a value that must be present."""

ErrorFactory = Callable[[str | None, str, str], MarpleError]
"""(file, field path, reason) -> the exception to raise."""


def join_message(file: str | None, field: str, reason: str) -> str:
    """``file: field: reason``, leaving out the parts that are empty."""
    return ": ".join(p for p in (file, field, reason) if p)


def message_error(cls: Callable[[str], MarpleError]) -> ErrorFactory:
    """An error factory for an error class that takes one message."""
    return lambda file, field, reason: cls(join_message(file, field, reason))


def read_json_file(path: str | os.PathLike, error: ErrorFactory, what: str = "file", allow_nan: bool = False) -> Any:
    """The JSON document in ``path``; an empty path, a missing, unreadable, binary or malformed file raises ``error``.

    ``allow_nan`` accepts the NaN and Infinity that Python writes for such floats
    (for parts of a file that are recomputed on reading).
    """
    name = str(path)
    raw = _read_bytes(path, error, what)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(name, "", f"not a text file (invalid UTF-8 at byte {exc.start})") from None
    return parse_json(text, name, error, allow_nan)


@dataclass(frozen=True)
class JsonLines:
    """The lines of a JSON-lines file: ``entries`` are (line number, value) for each non-blank line read, and
    ``torn_tail`` the length in bytes of a last line cut short by a crash and left out (0 when there is none)."""

    entries: list[tuple[int, Any]]
    torn_tail: int = 0


def read_json_lines(
    path: str | os.PathLike, error: ErrorFactory, what: str = "file", drop_torn_tail: bool = False, offset: int = 0
) -> JsonLines:
    """Every non-blank line of a JSON-lines file, each one JSON value; any line that is not raises ``error`` naming
    the file and the line number.

    With ``drop_torn_tail``, a malformed last line without its newline (an append cut short by a crash) is left
    out with a warning instead (its length is in :attr:`JsonLines.torn_tail`). ``offset`` starts reading at that
    byte (a whole line's start), line numbers still counting from the file's first.
    """
    name = str(path)
    raw = _read_bytes(path, error, what)
    first = raw[:offset].count(b"\n") + 1
    lines = raw[offset:].split(b"\n")
    torn = 0
    if drop_torn_tail and lines[-1].strip() and not _parses(lines[-1]):
        torn = len(lines[-1])
        log.warning("%s: dropping a partial last line (%d bytes) left by a crash", name, torn)
        lines = lines[:-1]
    entries = []
    for n, line in enumerate(lines, first):
        if not line.strip():
            continue
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise error(name, f"line {n}", f"not UTF-8 text (invalid byte at column {exc.start + 1})") from None
        entries.append((n, parse_json(text, name, error, where=f"line {n}")))
    return JsonLines(entries, torn)


def _parses(line: bytes) -> bool:
    try:
        json.loads(line.decode("utf-8"), parse_constant=_refuse_constant)
    except ValueError:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return False
    return True


def _read_bytes(path: str | os.PathLike, error: ErrorFactory, what: str) -> bytes:
    """The bytes of a file; an empty path, a folder, a missing or unreadable file raises ``error``."""
    name = str(path)
    if not name.strip():  # Path("") is the current folder: "Is a directory" would not say what is wrong
        raise error(None, "", f"the path of the {what} is empty")
    if Path(path).is_dir():
        raise error(name, "", f"a folder, not a {what}")
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise error(name, "", f"no such {what}") from None
    except OSError as exc:
        raise error(name, "", f"cannot read the {what}: {exc.strerror or exc}") from None


def parse_json(
    text: str | bytes, file: str | None, error: ErrorFactory, allow_nan: bool = False, where: str = ""
) -> Any:
    """``json.loads`` with a named error (``where`` is the part of ``file`` the text came from, such as
    ``line 3``); NaN and Infinity literals are refused unless ``allow_nan``."""
    try:
        return json.loads(text, parse_constant=None if allow_nan else _refuse_constant)
    except json.JSONDecodeError as exc:
        position = f"line {exc.lineno}, column {exc.colno}" if not where else f"column {exc.colno}"
        raise error(file, where, f"malformed JSON: {exc.msg} at {position}") from None
    except (ValueError, RecursionError) as exc:
        if "integer string conversion" in str(exc):  # Python's own words would advise raising its limit
            exc = f"a number of more than {sys.get_int_max_str_digits()} digits"
        raise error(file, where, f"malformed JSON: {exc}") from None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest known name, or nothing."""
    close = difflib.get_close_matches(str(name), [str(k) for k in known], n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def describe(value: Any) -> str:
    """A short description of a value for messages (large values are cut)."""
    if is_int(value) and abs(value).bit_length() > 192:  # a number too long to print (or to repr at all)
        return f"an integer of about {int(abs(value).bit_length() * math.log10(2)) + 1} digits"
    text = str(value) if isinstance(value, numbers.Real) else repr(value)  # 5, not numpy's np.int64(5)
    return text if len(text) <= 60 else text[:57] + "..."


def is_int(value: Any) -> bool:
    """An integer that is not a bool (JSON true/false); numpy integers count (configs built from arrays)."""
    # A plain int first: the ABC check is slow, and every reset validates its config.
    return type(value) is int or (isinstance(value, numbers.Integral) and not isinstance(value, bool))


def is_number(value: Any) -> bool:
    """A finite real number that is not a bool."""
    if is_int(value):
        return True  # finite however large: math.isfinite would overflow converting a 400-digit integer to a float
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)


class Fields:
    """One JSON object, read strictly.

    ``where`` is the object's path in the document (``Grid.rooms.initial[1]``),
    ``file`` the file it came from (or None), ``error`` builds the exception to
    raise from a message. With ``fold_case`` keys are compared in lower case (the
    paper's config format is case-insensitive).
    """

    def __init__(
        self,
        data: Any,
        where: str,
        error: ErrorFactory,
        file: str | None = None,
        fold_case: bool = False,
    ) -> None:
        self.where = where
        self.file = file
        self.error = error
        self.fold_case = fold_case
        if not isinstance(data, Mapping):
            raise self.fail("", f"expected a JSON object, got {type(data).__name__}")
        self.raw = data
        self.data = {(str(k).lower() if fold_case else k): v for k, v in data.items()}

    # ---- errors ---------------------------------------------------------------------------------
    def path(self, key: str = "") -> str:
        """The path of ``key`` inside this object (or of the object itself)."""
        if not key:
            return self.where
        return f"{self.where}.{key}" if self.where else key

    def fail(self, key: str, reason: str) -> MarpleError:
        """The error for ``key`` (a key, ``[i]`` index or empty for the object itself)."""
        where = self.path(key) if not key.startswith("[") else f"{self.where}{key}"
        return self.error(self.file, where, reason)

    # ---- keys -----------------------------------------------------------------------------------
    def allow(self, keys: Iterable[str]) -> Fields:
        """Refuse any key not in ``keys`` (with a suggestion); returns self."""
        known = [k.lower() if self.fold_case else k for k in keys]
        for key in self.data:
            if key not in known:
                raise self.fail(str(key), f"unknown key{did_you_mean(key, known)}")
        return self

    def require(self, *keys: str) -> Fields:
        """Refuse the object if any of ``keys`` is missing; returns self."""
        for key in keys:
            if self._key(key) not in self.data:
                raise self.fail(key, "missing")
        return self

    def has(self, key: str) -> bool:
        return self.data.get(self._key(key)) is not None

    def _key(self, key: str) -> str:
        return key.lower() if self.fold_case else key

    def get(self, key: str, default: Any = None) -> Any:
        """The raw value at ``key``, unchecked (``default`` when absent, or null where ``default`` is None)."""
        return self._lookup(key, default)[1]

    def _lookup(self, key: str, default: Any) -> tuple[bool, Any]:
        """(present, value). A required value must be there and not null. Null stands for "none" only where the
        default is None: where the default is a value (``width: 20``), a null is refused rather than read as
        that default, since the writer meant something else (or wrote ``width: null`` by mistake)."""
        value = self.data.get(self._key(key))
        if value is None:
            if default is REQUIRED:
                raise self.fail(key, "missing" if self._key(key) not in self.data else "null is not a value here")
            if default is not None and self._key(key) in self.data:
                raise self.fail(key, f"null is not a value here; leave the key out for the default {describe(default)}")
            return False, default
        return True, value

    # ---- typed values ---------------------------------------------------------------------------
    def int(self, key: str, default: Any = REQUIRED, low: int | None = None, high: int | None = None) -> Any:
        """An integer in [low, high] (the default when absent or null)."""
        present, value = self._lookup(key, default)
        if not present:
            return value
        self.check_int(key, value, low, high)
        return value

    def check_int(self, key: str, value: Any, low: int | None = None, high: int | None = None) -> None:
        if not is_int(value):
            raise self.fail(key, f"expected an integer, got {describe(value)}")
        if (low is not None and value < low) or (high is not None and value > high):
            raise self.fail(key, f"expected an integer {_range(low, high)}, got {describe(value)}")

    def number(self, key: str, default: Any = REQUIRED, low: float | None = None, high: float | None = None) -> Any:
        """A finite number in [low, high] (the default when absent or null)."""
        present, value = self._lookup(key, default)
        if not present:
            return value
        self.check_number(key, value, low, high)
        return value

    def check_number(self, key: str, value: Any, low: float | None = None, high: float | None = None) -> None:
        if not is_number(value):
            raise self.fail(key, f"expected a finite number, got {describe(value)}")
        if (low is not None and value < low) or (high is not None and value > high):
            raise self.fail(key, f"expected a number {_range(low, high)}, got {describe(value)}")

    def bool(self, key: str, default: Any = REQUIRED) -> Any:
        """true or false (the default when absent or null)."""
        present, value = self._lookup(key, default)
        if present and not isinstance(value, bool):
            raise self.fail(key, f"expected true or false, got {describe(value)}")
        return value

    def str(self, key: str, default: Any = REQUIRED, choices: Iterable[str] | None = None) -> Any:
        """A string, one of ``choices`` if given (the default when absent or null)."""
        present, value = self._lookup(key, default)
        if not present:
            return value
        if not isinstance(value, str):
            raise self.fail(key, f"expected a string, got {describe(value)}")
        if choices is not None and value not in choices:
            choices = list(choices)
            raise self.fail(key, f"expected one of {', '.join(map(repr, choices))}, got {value!r}")
        return value

    def list(self, key: str, default: Any = REQUIRED, max_len: int | None = None) -> Any:
        """A JSON list (the default when absent or null)."""
        present, value = self._lookup(key, default)
        if not present:
            return value
        if not isinstance(value, list):
            raise self.fail(key, f"expected a list, got {type(value).__name__}")
        if max_len is not None and len(value) > max_len:
            raise self.fail(key, f"at most {max_len} entries are allowed, got {len(value)}")
        return value

    def mapping(self, key: str, default: Any = REQUIRED) -> Any:
        """A JSON object as a plain dict (the default when absent or null)."""
        present, value = self._lookup(key, default)
        if not present:
            return value
        if not isinstance(value, Mapping):
            raise self.fail(key, f"expected a JSON object, got {type(value).__name__}")
        return dict(value)

    def fields(self, key: str, default: Any = REQUIRED) -> Fields | None:
        """The nested object at ``key`` as :class:`Fields` (None when absent and not required)."""
        present, value = self._lookup(key, default)
        if not present:
            return None
        return self.child(value, self.path(key))

    def entries(self, key: str, max_len: int | None = None) -> list[Fields]:
        """The objects of the list at ``key`` (empty when absent)."""
        values = self.list(key, [], max_len)
        return [self.child(v, f"{self.path(key)}[{i}]") for i, v in enumerate(values)]

    def child(self, data: Any, where: str) -> Fields:
        """Another object of the same document (same file, error and case rule)."""
        return Fields(data, where, self.error, self.file, self.fold_case)

    def folded(self) -> Fields:
        """This object read with case-insensitive keys (and so are the objects read from it)."""
        return Fields(self.raw, self.where, self.error, self.file, fold_case=True)


def _range(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f"in [{low}, {high}]"
    return f">= {low}" if low is not None else f"<= {high}"


def reader(data: Any, file: str | None, error: ErrorFactory, where: str = "") -> Fields:
    """A :class:`Fields` for a whole document."""
    return Fields(data, where, error, file)
