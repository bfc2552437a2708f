"""The scripts of bench/ as modules, for the tests of what they compute (they are not a package)."""

from __future__ import annotations

import importlib.util
from types import ModuleType

from paths import ROOT


def load_bench(name: str) -> ModuleType:
    """``bench/NAME.py``, imported afresh."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
