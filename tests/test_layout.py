"""Tests sit in folders that mirror the packages: ``tests/unit/marple_gym/world/`` tests ``marple_gym/world/``,
``tests/unit/marple_agents/`` the package's top-level modules (``device.py``) and its subfolders their own.

Only the tests of the project as a whole (layers, docs, fresh imports, packaging, file formats, the CLI's bad
arguments, the exploring job) and the shared helpers sit in ``tests/`` itself. Pytest imports test modules by
their path (``--import-mode=importlib``) and puts only ``tests/`` on ``sys.path``, for the helpers; so no folder in
``tests/`` may be named like a package (``tests/marple_gym/`` would be found as a namespace package
``marple_gym`` before an editable install's own finder is asked, in a fresh process): hence ``tests/unit/``.

A test module imports only the shared helpers in ``tests/`` (``paths``, ``scripted``, ``worlds``, ``tiny_models``
...), never another test module nor ``conftest``, so each file runs alone.
"""

from __future__ import annotations

import ast
from pathlib import Path

from paths import ROOT, TESTS

UNIT = TESTS / "unit"
PROJECT_WIDE = {
    "test_bad_input.py",
    "test_cli_bad_arguments.py",
    "test_docs.py",
    "test_docs_site.py",
    "test_explore.py",
    "test_files.py",
    "test_fresh_imports.py",
    "test_json_lines.py",
    "test_layers.py",
    "test_layout.py",
    "test_packaging.py",
}


def test_every_test_folder_names_a_package_folder_that_exists():
    folders = {p.parent.relative_to(UNIT) for p in UNIT.rglob("test_*.py")}
    missing = sorted(str(f) for f in folders if not (ROOT / f).is_dir())
    assert not missing, f"test folders that mirror no package folder: {missing}"


def test_only_project_wide_tests_sit_at_the_top():
    top = {p.name for p in TESTS.glob("test_*.py")}
    assert top <= PROJECT_WIDE, f"move these into the folder of the package they test: {sorted(top - PROJECT_WIDE)}"


def test_tests_are_imported_by_path_and_only_tests_is_on_sys_path(pytestconfig):
    """In pytest's default mode each test module's folder would go on ``sys.path``, where its subfolders shadow
    packages of the same name; pyproject.toml sets the mode, read here from the running pytest."""
    assert pytestconfig.option.importmode == "importlib"
    assert [Path(p) for p in pytestconfig.getini("pythonpath")] == [TESTS]


def test_no_folder_in_tests_is_named_like_a_package():
    packages = {p.parent.name for p in ROOT.glob("*/__init__.py")}
    assert not packages & {p.name for p in TESTS.iterdir() if p.is_dir()}, "a folder in tests/ named like a package"


def test_no_test_module_imports_another():
    """Helpers that two test modules share live in a helper module in ``tests/``, so each file runs alone."""
    offenders = []
    for path in sorted(TESTS.rglob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            else:
                continue
            offenders += [
                f"{path.relative_to(TESTS)}:{node.lineno} imports {n}"
                for n in names
                if n.startswith("test_") or n == "conftest"
            ]
    assert not offenders, f"move what these share into a helper module in tests/: {offenders}"
