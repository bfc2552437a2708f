"""The documentation site: ``mkdocs build --strict`` (every link and anchor resolves, every page is in the
navigation), the environments' table made from the registry, an API reference in Markdown, the changelog."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest
from paths import ROOT

import marple_gym  # noqa: F401  (registers the ids)

for module in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"):
    pytest.importorskip(module, reason=f"{module} is not installed (the docs extra): pip install -e '.[docs]'")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)]
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return out


def test_every_page_of_the_docs_is_built(site):
    pages = [p.relative_to(ROOT / "docs").with_suffix("") for p in (ROOT / "docs").rglob("*.md")]
    missing = [str(p) for p in pages if not (site / ("" if p.name == "index" else p) / "index.html").is_file()]
    assert missing == []
    assert not list(site.rglob("hooks.py")) and not list(site.rglob("griffe_roles.py"))  # build code, not pages


def test_the_environments_page_lists_every_registered_id(site):
    html = (site / "environments" / "index.html").read_text()
    ours = [i for i, spec in gym.registry.items() if str(spec.entry_point).startswith("marple_gym.")]
    assert len(ours) > 30 and [i for i in ours if f"<code>{i}</code>" not in html] == []
    assert "env-table" not in html


def test_the_api_reference_shows_the_public_names_in_markdown(site):
    html = "".join(p.read_text() for p in (site / "api").rglob("index.html"))
    for name in ("MarpleEnv", "HierarchicalPlanner", "MarpleDataset", "RunResults", "SimulationMethod", "run_method"):
        assert f'id="{name}' in html or f".{name}" in html, name
    assert ":func:" not in html and ":class:" not in html  # reStructuredText roles rendered as code


DIRECTIVE = re.compile(r"^::: (?P<name>[\w.]+)\n(?P<options>(?:[ \t]+\S.*\n)*)", re.MULTILINE)


def reference_directives(page: Path) -> list[str]:
    """The objects a page of the API reference documents with their members (``members: false`` left out)."""
    found = DIRECTIVE.finditer(page.read_text() + "\n")
    return [m["name"] for m in found if not re.search(r"^\s*members:\s*false\s*$", m["options"], re.MULTILINE)]


def test_every_module_of_the_api_reference_lists_its_members(site):
    """A module whose names are loaded lazily (``__getattr__``) shows only its docstring: mkdocstrings reads the
    source and does not follow them. Its page must point at the modules that define them."""
    bare = []
    for page in sorted((ROOT / "docs" / "api").glob("*.md")):
        html = (site / "api" / ("" if page.stem == "index" else page.stem) / "index.html").read_text()
        bare += [f"{page.name}: {name}" for name in reference_directives(page) if f'id="{name}.' not in html]
    assert bare == []


def test_the_member_check_sees_a_module_without_members_and_skips_one_shown_without_them(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# API\n\n::: a.lazy\n\n::: a.package\n    options:\n      members: false\n\n::: a.module\n")
    assert reference_directives(page) == ["a.lazy", "a.module"]


def test_the_changelog_page_is_the_repositorys_and_python_fences_lose_their_test_words(site):
    assert "Unreleased" in (site / "changelog" / "index.html").read_text()
    assert "python continued" not in (site / "rl" / "index.html").read_text()
