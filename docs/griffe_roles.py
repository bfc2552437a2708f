"""Griffe extension for the API reference: the docstrings' reStructuredText roles as Markdown code.

Our docstrings name other code with Sphinx's roles (``:func:`name```, ``:class:`~package.Name```) and end a line
with ``::`` before a literal block; mkdocstrings renders Markdown, where both would show as typed. A role becomes
the code span of its target (the last part only where the target starts with ``~``, as Sphinx shows it), and
``::`` a colon (the indented block after it is already a code block in Markdown).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|obj|exc|const|ref):`(~?)([^`]+)`")
LITERAL = re.compile(r"(\S)::$|^\s*::$", re.MULTILINE)


def markdown(text: str) -> str:
    """``text`` with its roles and literal-block markers as Markdown."""
    text = ROLE.sub(lambda m: f"`{m[2].rsplit('.', 1)[-1] if m[1] else m[2]}`", text)
    return LITERAL.sub(lambda m: f"{m[1]}:" if m[1] else "", text)


class SphinxRoles(griffe.Extension):
    """Rewrites every docstring of a loaded package (see the module's docs), once the package is whole."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        _rewrite(pkg, set())


def _rewrite(obj: griffe.Object, seen: set[str]) -> None:
    if obj.path in seen:
        return
    seen.add(obj.path)
    if obj.docstring is not None:
        obj.docstring.value = markdown(obj.docstring.value)
    for member in obj.members.values():
        if not member.is_alias:  # an alias's target is rewritten where it is defined
            _rewrite(member, seen)
