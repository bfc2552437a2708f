"""Tests sit in folders that mirror the packages: ``tests/marple_gym/world/`` tests ``marple_gym/world/``.

Only the tests of the project as a whole (layers, docs, fresh imports, packaging, the CLI's bad arguments, the
exploring job) and the shared helpers sit in ``tests/`` itself.
"""

from __future__ import annotations

from paths import ROOT, TESTS

PROJECT_WIDE = {
    "test_bad_input.py",
    "test_cli_bad_arguments.py",
    "test_docs.py",
    "test_explore.py",
    "test_fresh_imports.py",
    "test_layers.py",
    "test_layout.py",
    "test_packaging.py",
}


def test_every_test_folder_names_a_package_folder_that_exists():
    folders = {p.parent.relative_to(TESTS) for p in TESTS.rglob("test_*.py")} - {TESTS.relative_to(TESTS)}
    missing = sorted(str(f) for f in folders if not (ROOT / f).is_dir())
    assert not missing, f"test folders that mirror no package folder: {missing}"


def test_only_project_wide_tests_sit_at_the_top():
    top = {p.name for p in TESTS.glob("test_*.py")}
    assert top <= PROJECT_WIDE, f"move these into the folder of the package they test: {sorted(top - PROJECT_WIDE)}"


def test_test_module_names_are_unique_across_folders():
    names = [p.name for p in TESTS.rglob("test_*.py")]
    assert len(names) == len(set(names)), "pytest imports test modules by name: two with one name collide"
