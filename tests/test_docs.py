"""The docs are tested code: every fenced Python block of README.md and docs/*.md runs in a fresh process.

A block's fence says how it runs (the words after ``python``, which Markdown renderers ignore):

* `` ```python `` runs on its own, in a fresh process, in an empty working directory (README.md's in the
  clone's root, where its quick start runs);
* `` ```python continued `` runs after the blocks before it in the same file, back to the last block that
  is not ``continued``, in one process (a page that builds an example up step by step);
* `` ```python notest `` is not run. Kept for the few blocks that need what a test cannot have (a trained
  checkpoint, hours of training); the page says what they need.

The ``marple ...`` command lines of the shell blocks (`` ```bash ``, `` ```sh ``, `` ```console `` or bare) are
parsed by the ``marple`` parser, not run: an option the docs name must exist and take the value given.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest
from fresh_process import FreshProcesses

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```python(?P<words>[^\n]*)\n(?P<code>.*?)^```\s*$", re.DOTALL | re.MULTILINE)
WORDS = {"", "continued", "notest"}


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    words: str
    code: str


def blocks(page: Path) -> list[Block]:
    text = page.read_text()
    found = []
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        found.append(Block(page.relative_to(ROOT).as_posix(), line, match["words"].strip(), match["code"]))
    return found


ALL_BLOCKS = [block for page in PAGES for block in blocks(page)]


def runnable() -> list[tuple[str, str]]:
    """(id, code) per block that runs, a ``continued`` block carrying the blocks it continues."""
    out, chain = [], ""
    for i, block in enumerate(ALL_BLOCKS):
        if block.words == "notest":
            continue
        starts_page = i == 0 or ALL_BLOCKS[i - 1].page != block.page
        chain = chain + block.code if block.words == "continued" and not starts_page else block.code
        out.append((f"{block.page}:{block.line}", chain))
    return out


def working_directory(block_id: str, tmp_path: Path) -> Path:
    return ROOT if block_id.startswith("README.md:") else tmp_path


RUNNABLE = runnable()


@pytest.fixture(scope="module")
def fresh():
    processes = FreshProcesses()
    yield processes
    processes.close()


@pytest.mark.parametrize(("block_id", "code"), RUNNABLE, ids=[block_id for block_id, _ in RUNNABLE])
def test_a_python_block_of_the_docs_runs_in_a_fresh_process(fresh, block_id, code, tmp_path):
    fresh.run(code, cwd=working_directory(block_id, tmp_path))


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
            fence = line[3:].strip() if fence is None else None
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
    from marple.cli.main import build_parser

    parser = build_parser()
    refused = []
    for where, args in MARPLE_COMMANDS:
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                parser.parse_args(args)
        except SystemExit as exc:  # argparse refused the line (or printed help: code 0)
            if exc.code:
                refused.append(f"{where}: {err.getvalue().strip().splitlines()[-1]}")
    assert len(MARPLE_COMMANDS) > 50, "the shell blocks' commands were not found"
    assert not refused, refused
