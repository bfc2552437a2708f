"""Import paths that moved: the old ones keep working for one release, each with a ``DeprecationWarning`` naming
the new path, and go in :data:`REMOVED_IN` (CHANGELOG.md lists them).

Three kinds: modules that moved out of a package that stays (:func:`moved_modules`, called by the package's
``__init__``), a whole package that moved (:func:`forward_module`, called by the old package itself), and names
that moved out of a module that stays (:func:`forward_names`, a module ``__getattr__``). An old module path is
the new module itself, and its submodules the new ones, so ``isinstance`` and monkeypatching see one object.
Nothing is imported until the old path is used.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

REMOVED_IN = "0.3.0"
"""The release in which the old paths go."""


def _warn(old: str, new: str, stacklevel: int) -> None:
    warnings.warn(
        f"{old} has moved to {new}; the old path goes in marple-gym {REMOVED_IN}",
        DeprecationWarning,
        stacklevel=stacklevel,
    )


class _Aliases(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds each old module path (and any submodule of it) as the module at its new path: one module object
    under both names."""

    def __init__(self) -> None:
        self.moves: dict[str, str] = {}

    def new_path(self, fullname: str) -> str | None:
        for old, new in self.moves.items():
            if fullname == old or fullname.startswith(old + "."):
                return new + fullname[len(old) :]
        return None

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        return None if self.new_path(fullname) is None else importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = self.new_path(spec.name)
        _warn(spec.name, new, stacklevel=3)
        return importlib.import_module(new)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the new module ran when it was imported."""


_ALIASES = _Aliases()


def moved_modules(moves: Mapping[str, str]) -> None:
    """Make each old module path of ``moves`` (old -> new, called from the old paths' package) and its
    submodules import as the new module, with a warning."""
    _ALIASES.moves.update(moves)
    if _ALIASES not in sys.meta_path:
        sys.meta_path.insert(0, _ALIASES)


def forward_module(old: str, new: str) -> None:
    """Called by the module ``old`` (an old path that only forwards): warn, then make ``old`` the module ``new``
    and every submodule ``old.x`` the module ``new.x``."""
    _warn(old, new, stacklevel=4)
    moved_modules({old: new})
    sys.modules[old] = importlib.import_module(new)


def forward_names(module: str, moved: Mapping[str, str]) -> Callable[[str], Any]:
    """A ``__getattr__`` for ``module``, which hands out each name of ``moved`` (name -> the module now defining
    it) with a warning, and raises AttributeError for any other name."""

    def __getattr__(name: str) -> Any:
        if name not in moved:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        _warn(f"{module}.{name}", f"{moved[name]}.{name}", stacklevel=3)
        return getattr(importlib.import_module(moved[name]), name)

    return __getattr__
