"""Packaging: what ``pip install marple-gym`` would get.

Every package ships its ``py.typed`` marker (PEP 561), so type checkers read our hints; the wheel built from the
tracked files holds every package and its data, the license and the project's metadata, and nothing of the
repository's own (tests, bench, docs). The slow test builds the sdist and the wheel as a release would, checks
them with twine, installs the wheel in a fresh virtual environment and runs the README's Python there, from
another folder.
"""

from __future__ import annotations

import email
import fnmatch
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from importlib import resources
from pathlib import Path

import pytest
from doc_blocks import runnable
from paths import ROOT

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PROJECT = PYPROJECT["project"]
CITING = (ROOT / "README.md", ROOT / "docs" / "index.md")
"""The pages whose "Citing" section gives the BibTeX of the papers ``CITATION.cff`` names."""
PACKAGES = sorted(
    {name.rstrip("*").split(".")[0] for name in PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"]}
)


@pytest.mark.parametrize("package", PACKAGES)
def test_every_package_is_marked_typed_and_ships_the_marker(package):
    assert resources.files(package).joinpath("py.typed").is_file()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"].get(package, [])


def tracked_tree(destination: Path) -> Path:
    """A copy of the files a fresh clone has (tracked, or new and not ignored), as they are in the working tree."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():  # a file deleted in the working tree but still tracked is not there
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination / name)
    return destination


def build(tree: Path, *kinds: str) -> list[Path]:
    """``python -m build`` of ``tree`` (offline: the build dependencies are the dev extra's); the files it made."""
    out = tree / "dist"
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", *kinds, "--outdir", str(out), str(tree)],
        capture_output=True,
        check=True,
        text=True,
    )
    return sorted(out.iterdir())


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    pytest.importorskip("build", reason="the dev extra's build is not installed")
    tree = tracked_tree(tmp_path_factory.mktemp("clone"))
    (made,) = build(tree, "--wheel")
    return made


def package_data_patterns() -> list[str]:
    """Every package-data glob of pyproject.toml, as a path inside the wheel."""
    data = PYPROJECT["tool"]["setuptools"]["package-data"]
    return [f"{package}/{pattern}" for package, patterns in data.items() for pattern in patterns]


NOT_YET_FILLED = {"marple/benchmark/data/measured/*.json"}
"""Package data whose files come later: a measured-figure file is committed after each run of the GPU check."""


def test_the_wheel_holds_every_package_its_data_and_the_license_and_nothing_of_the_repository(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names}
    assert tops == {*PACKAGES, f"marple_gym-{PROJECT['version']}.dist-info"}  # no tests, bench, docs, examples
    empty = [p for p in package_data_patterns() if not fnmatch.filter(names, p) and p not in NOT_YET_FILLED]
    assert empty == [], "package-data patterns that match nothing in the wheel"
    # The reference houses the README's Household example and `--houses original` read, shipped with the package.
    assert len(fnmatch.filter(names, "marple_gym/generation/data/original/init_config_*.json")) == 5
    assert f"marple_gym-{PROJECT['version']}.dist-info/licenses/LICENSE" in names


def test_the_wheels_metadata_says_license_authors_urls_and_classifiers(wheel):
    with zipfile.ZipFile(wheel) as archive:
        meta = email.message_from_bytes(archive.read(f"marple_gym-{PROJECT['version']}.dist-info/METADATA"))
    assert meta["License-Expression"] == "MIT" and meta["License-File"] == "LICENSE"
    assert meta["Author"] == "The MARPLE-Gym contributors"
    urls = dict(url.split(", ", 1) for url in meta.get_all("Project-URL"))
    assert {"Homepage", "Documentation", "Repository", "Issues", "Changelog"} <= set(urls)
    classifiers = meta.get_all("Classifier")
    assert "Typing :: Typed" in classifiers and not any(c.startswith("License ::") for c in classifiers)
    assert meta.get_payload().startswith("# MARPLE-Gym")  # the README is the project's page


def test_citation_file_agrees_with_the_project():
    citation = (ROOT / "CITATION.cff").read_text()
    assert f"version: {PROJECT['version']}" in citation and f"license: {PROJECT['license']}" in citation
    assert f'repository-code: "{PROJECT["urls"]["Repository"]}"' in citation


def test_the_readme_and_the_docs_home_give_bibtex_for_every_paper_citation_cff_names():
    papers = re.findall(r'^[ ]+title: "(.*)"$', (ROOT / "CITATION.cff").read_text(), re.MULTILINE)
    assert len(papers) == 3  # MARPLE (the preferred citation), MMToM-QA and AGENT (its references)
    blocks = [re.search(r"^```bibtex\n(.*?)^```", page.read_text(), re.DOTALL | re.MULTILINE)[1] for page in CITING]
    assert blocks[0] == blocks[1], "README.md and docs/index.md cite differently"
    titles = re.findall(r"^  title\s*= \{(.*)\},$", blocks[0], re.MULTILINE)
    assert [title.replace("{", "").replace("}", "") for title in titles] == papers


@pytest.mark.slow
def test_a_release_builds_passes_twine_and_its_wheel_makes_an_env_in_a_fresh_venv(tmp_path):
    pytest.importorskip("twine", reason="the dev extra's twine is not installed")
    tree = tracked_tree(tmp_path / "clone")
    made = build(tree)
    assert sorted(p.suffix for p in made) == [".gz", ".whl"]
    wheel = next(p for p in made if p.suffix == ".whl")
    subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *map(str, made)], check=True)
    fresh = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(fresh)], check=True)
    python = fresh / "bin" / "python"
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", "--no-index", wheel], check=True)
    # The dependencies are this environment's (no download); a path in a .pth file is not a site folder, so this
    # environment's editable install of the project itself stays out of the fresh one.
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True
    )
    (Path(site.stdout.strip()) / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    check = f"import marple_gym\nassert marple_gym.__file__.startswith({str(fresh)!r}), marple_gym.__file__\n"
    for block_id, code in [("", check), *runnable([ROOT / "README.md"])]:  # the README works from the wheel
        done = subprocess.run([python, "-c", code], cwd=elsewhere, capture_output=True, text=True)
        assert done.returncode == 0, f"{block_id}: {done.stderr}"
    version = subprocess.run([fresh / "bin" / "marple", "--version"], cwd=elsewhere, capture_output=True, text=True)
    assert version.stdout.strip() == f"marple-gym {PROJECT['version']}"
