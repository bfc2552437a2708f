"""The docs are tested code: every fenced Python block of README.md and docs/*.md runs in a fresh process.

A block's fence says how it runs (the words after ``python``, which Markdown renderers ignore):

* `` ```python `` runs on its own, in a fresh process, in an empty working directory (README.md's too: what the
  docs show works from any folder, with nothing of the clone's but the installed package);
* `` ```python continued `` runs after the blocks before it in the same file, back to the last block that
  is not ``continued``, in one process (a page that builds an example up step by step);
* `` ```python notest `` is not run. Kept for the few blocks that need what a test cannot have (a trained
  checkpoint, hours of training); the page says what they need.

The ``marple ...`` command lines of the shell blocks (`` ```bash ``, `` ```sh ``, `` ```console `` or bare) are
parsed by the ``marple`` parser: an option the docs name must exist and take the value given. A block fenced
`` ```bash run `` also runs, as a whole, in an empty working directory (a recipe a reader follows from nothing,
quick enough to test; Minari's datasets go to a temporary folder).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from doc_blocks import PAGES, WORDS, blocks, runnable, shell_blocks
from fresh_process import FreshProcesses
from paths import ROOT

ALL_BLOCKS = [block for page in PAGES for block in blocks(page)]
RUNNABLE = runnable()


@pytest.fixture(scope="module")
def fresh():
    processes = FreshProcesses()
    yield processes
    processes.close()


@pytest.mark.parametrize(("block_id", "code"), RUNNABLE, ids=[block_id for block_id, _ in RUNNABLE])
def test_a_python_block_of_the_docs_runs_in_a_fresh_process(fresh, block_id, code, tmp_path):
    fresh.run(code, cwd=tmp_path)


def test_every_block_says_how_it_runs_and_few_are_left_out():
    assert [f"{b.page}:{b.line} {b.words!r}" for b in ALL_BLOCKS if b.words not in WORDS] == []
    assert [b for b in ALL_BLOCKS if b.page == "README.md"], "README.md has Python blocks"
    left_out = [b for b in ALL_BLOCKS if b.words == "notest"]
    assert len(left_out) <= 3, [f"{b.page}:{b.line}" for b in left_out]


SHELL_FENCES = {"bash", "sh", "console", ""}
OPERATOR = re.compile(r"[();<>|&]+")


def marple_commands(page: Path) -> list[tuple[str, list[str]]]:
    """(page:line, arguments) of every ``marple`` command in the page's shell blocks; a ``...`` argument, which
    stands for options given elsewhere, is left out, and so is whatever follows a shell operator or a comment."""
    found, fence, command, start = [], None, "", 0
    for number, line in enumerate(page.read_text().splitlines(), 1):
        if line.startswith("```"):
            fence = (line[3:].split() or [""])[0] if fence is None else None
            continue
        if fence not in SHELL_FENCES:
            continue
        text = line.strip().removeprefix("$ ")
        if not command and not text.startswith("marple "):
            continue
        command, start = command + text.removesuffix("\\") + " ", start or number
        if text.endswith("\\"):
            continue
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        words = []
        for word in lexer:
            if OPERATOR.fullmatch(word):
                break
            words.append(word)
        found.append((f"{page.relative_to(ROOT).as_posix()}:{start}", [w for w in words[1:] if w != "..."]))
        command, start = "", 0
    return found


MARPLE_COMMANDS = [command for page in PAGES for command in marple_commands(page)]


def test_every_marple_command_of_the_docs_parses():
    from marple.cli.main import build_parser, parse_command

    parser = build_parser()
    refused = []
    for where, args in MARPLE_COMMANDS:
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                parse_command(parser, args)  # a family command by its family's parser too
        except SystemExit as exc:  # argparse refused the line (or printed help: code 0)
            if exc.code:
                refused.append(f"{where}: {err.getvalue().strip().splitlines()[-1]}")
    assert len(MARPLE_COMMANDS) > 50, "the shell blocks' commands were not found"
    assert not refused, refused


SHELL_BLOCKS = shell_blocks()


@pytest.mark.parametrize(("block_id", "script"), SHELL_BLOCKS, ids=[block_id for block_id, _ in SHELL_BLOCKS])
def test_a_shell_block_marked_to_run_runs_in_an_empty_folder(block_id, script, tmp_path):
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])  # this Python's `marple`
    env = {**os.environ, "PATH": path, "MINARI_DATASETS_PATH": str(tmp_path / ".minari")}
    work = tmp_path / "work"
    work.mkdir()
    done = subprocess.run(["bash", "-e", "-c", script], cwd=work, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]


FENCED = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)
ISSUE = re.compile(r"\bissues?\s*#?\d+|(?<![\w/&])#\d+\b", re.IGNORECASE)
COMMIT = re.compile(r"(?<![\w./-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}(?![\w/-])")
PROCESS = re.compile(
    r"\b(?:previous session|this session|session (?:that|which) (?:wrote|measured)|lent to|other engineers|the author of"
    r"|(?:this|the) project's (?:\d-core |development )?machine|who measured)\b",
    re.IGNORECASE,
)


def prose(page: Path) -> str:
    """The page without its fenced blocks (an example's data may hold any hex string)."""
    return FENCED.sub("", page.read_text())


@pytest.mark.parametrize("page", [*PAGES, ROOT / "CHANGELOG.md"], ids=lambda p: p.relative_to(ROOT).as_posix())
def test_a_page_cites_no_issue_number_commit_hash_or_account_of_its_own_making(page):
    text = prose(page)
    found = [m[0] for pattern in (ISSUE, COMMIT, PROCESS) for m in pattern.finditer(text)]
    assert found == [], "a user's page cites what a user cannot open, or tells of its own making"


def test_the_citation_check_finds_what_it_looks_for():
    text = (
        "measured in issue 28 (commit 1efd56d, see #30); the previous session lent to us; on this project's 2-core"
        " machine, by the session that wrote it"
    )
    assert [m[0] for m in ISSUE.finditer(text)] == ["issue 28", "#30"]
    assert [m[0] for m in COMMIT.finditer(text)] == ["1efd56d"]
    assert [m[0] for m in PROCESS.finditer(text)] == [
        "previous session",
        "lent to",
        "this project's 2-core machine",
        "session that wrote",
    ]
    clean = "the session that started first, a participant's session line, the study's sessions, 2026-11-23, 1,000,000 steps, a sha256 digest, runs/{scenario}-in-A, `cuda:0`, page#anchor"
    assert not any(p.search(clean) for p in (ISSUE, COMMIT, PROCESS))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_a_page_points_users_at_nothing_only_a_clones_tests_have(page):
    """An installed package has no tests/ folder: the configs and data the docs use ship with the package."""
    assert "tests/data" not in page.read_text()


FAMILY_PAGES = {
    "beliefs.md": "MMToM-QA",
    "expectations.md": "AGENT",
    "evaluation.md": "MARPLE",
    "agents.md": "MARPLE",
    "suspects.md": "MARPLE",
}
"""Each family's pages and the paper it follows."""


@pytest.mark.parametrize(("page", "paper"), FAMILY_PAGES.items())
def test_a_family_page_says_after_its_opening_paragraph_which_paper_it_follows_and_where_it_departs(page, paper):
    title, opening, source, *_ = (ROOT / "docs" / page).read_text().split("\n\n")
    assert title.startswith("# ") and source.startswith("**Source and departures.**") and paper in source


NOT_IN_THE_API = {"marple", "marple.cli", "marple.families.whodunit", "marple.viewers"}
"""The top package and the commands (the whodunit family's among them), documented by ``marple COMMAND --help``
and the pages."""


def test_the_api_reference_covers_every_public_package():
    documented = set()
    for page in (ROOT / "docs" / "api").glob("*.md"):
        documented |= set(re.findall(r"^::: ([\w.]+)", page.read_text(), re.MULTILINE))
    packages = set()
    for top in ("marple", "marple_gym", "marple_eval", "marple_agents"):
        for init in (ROOT / top).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT).parts
            if not any(part.startswith("_") or part == "data" for part in parts):
                packages.add(".".join(parts))
    assert sorted(packages - documented - NOT_IN_THE_API) == []
