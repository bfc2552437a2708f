"""The one method contract: what every family's methods share.

A method answers one family's items: whodunit trials (:class:`~marple_eval.methods.whodunit.WhodunitMethod`,
``predict``), belief questions (:class:`~marple_eval.beliefs.methods.BeliefMethod`, ``answer``) or expectation
trials (:class:`~marple_eval.expectations.methods.ExpectationMethod`, ``rate``). Each family's answering call is
defined on its subclass of :class:`Method`; what they share is defined here once:

* ``name``: how commands and tables name it (the registry's key within its family,
  :mod:`marple_eval.methods.registry`);
* ``family``: the family it answers, set by the family's subclass;
* ``reads``: what part of an item it sees: modalities for whodunits (vision, audio, language: the harness hands
  over only those), conditions for belief questions (text, symbolic, frames), the episodes for expectation trials
  (familiarisation, test: the rating harness hands over only those);
* ``role``: how tables group it (:data:`ROLES`): a ``method`` (the default), a ``shortcut`` (a rule with no
  theory of mind, that a benchmark item must defeat), or the family's ``answer_key`` (the normative observer: the
  ceiling, never scored as a method's row);
* :meth:`Method.settings`: what a results file records about it.
"""

from __future__ import annotations

from typing import Any, ClassVar

ROLES = ("method", "shortcut", "answer_key")
"""The roles a method may have, in the order tables show them."""


class Method:
    """The base of every family's methods (see the module docs)."""

    name: str = "method"
    family: ClassVar[str] = ""
    reads: frozenset[str] = frozenset()
    role: ClassVar[str] = "method"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.role not in ROLES:
            raise TypeError(f"{cls.__qualname__}.role is {cls.role!r}; a method's role is one of {', '.join(ROLES)}")

    def settings(self) -> dict[str, Any]:
        """What to record about this method in a results file (a subclass adds its own)."""
        return {"name": self.name, "reads": sorted(self.reads), "role": self.role}
