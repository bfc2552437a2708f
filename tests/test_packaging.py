"""Packaging: every package ships its ``py.typed`` marker (PEP 561), so type checkers read our hints."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

PYPROJECT = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())
PACKAGES = sorted(
    {name.rstrip("*").split(".")[0] for name in PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"]}
)


@pytest.mark.parametrize("package", PACKAGES)
def test_every_package_is_marked_typed_and_ships_the_marker(package):
    assert resources.files(package).joinpath("py.typed").is_file()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"].get(package, [])
