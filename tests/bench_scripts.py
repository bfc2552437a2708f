"""The scripts of bench/ as modules, for the tests of what they compute (they are not a package)."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from paths import ROOT


def load_bench(name: str) -> ModuleType:
    """``bench/NAME.py``, imported afresh, with bench/ on the import path as when it runs (scripts import
    ``reference_rate``)."""
    if str(ROOT / "bench") not in sys.path:
        sys.path.append(str(ROOT / "bench"))
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # as an import would: dataclasses look their module up there
    spec.loader.exec_module(module)
    return module
