"""A ``Text`` space whose strings survive ``AsyncVectorEnv(shared_memory=True)``.

Gymnasium 1.4's ``AsyncVectorEnv`` reads its shared observation buffer once, at
construction, and relies on the reads being live numpy views. For ``Text`` the
read decodes strings right away, so every later ``reset``/``step`` returns the
strings of the empty buffer (blanks, or the first character repeated) while the
workers write the real ones. :class:`TextSpace` is a ``Text`` whose shared-memory
read is a live :class:`SharedText` instead: it decodes the buffer whenever it is
read or copied (``AsyncVectorEnv`` deep-copies observations before returning
them, unless ``copy=False``). Everything else about the space is ``Text``'s.
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import Any

from gymnasium import spaces
from gymnasium.vector.utils import create_shared_memory, read_from_shared_memory

_read_text = read_from_shared_memory.dispatch(spaces.Text)
_create_text = create_shared_memory.dispatch(spaces.Text)


class TextSpace(spaces.Text):
    """Gymnasium's ``Text``, safe in async vector envs with shared memory."""


class SharedText(Sequence[str]):
    """The strings of ``n`` envs in a shared buffer, decoded at every read."""

    def __init__(self, space: TextSpace, memory: Any, n: int) -> None:
        self._space, self._memory, self._n = space, memory, n

    def decode(self) -> tuple[str, ...]:
        """The current strings, one per env."""
        return _read_text(self._space, self._memory, self._n)

    def __getitem__(self, index):
        return self.decode()[index]

    def __len__(self) -> int:
        return self._n

    def __iter__(self) -> Iterator[str]:
        return iter(self.decode())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and self.decode() == tuple(other)

    def __hash__(self) -> int:
        return hash(self.decode())

    def __deepcopy__(self, memo: dict) -> tuple[str, ...]:
        return self.decode()

    def __repr__(self) -> str:
        return repr(self.decode())


@create_shared_memory.register(TextSpace)
def _create(space: TextSpace, n: int = 1, ctx: ModuleType = mp):
    return _create_text(space, n=n, ctx=ctx)


@read_from_shared_memory.register(TextSpace)
def _read(space: TextSpace, shared_memory: Any, n: int = 1) -> SharedText:
    return SharedText(space, shared_memory, n)
