"""The docs are tested code: every fenced Python block of README.md and docs/*.md runs in a fresh process.

A block's fence says how it runs (the words after ``python``, which Markdown renderers ignore):

* `` ```python `` runs on its own, in a fresh process, in an empty working directory (README.md's in the
  clone's root, where its quick start runs);
* `` ```python continued `` runs after the blocks before it in the same file, back to the last block that
  is not ``continued``, in one process (a page that builds an example up step by step);
* `` ```python notest `` is not run. Kept for the few blocks that need what a test cannot have (a trained
  checkpoint, hours of training); the page says what they need.
"""

from __future__ import annotations

import re
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
