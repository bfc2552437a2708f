"""The fenced Python blocks of README.md and docs/*.md, and how each runs, and the shell blocks marked to run
(tests/test_docs.py says the rules)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from paths import ROOT

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


def runnable(pages: list[Path] = PAGES) -> list[tuple[str, str]]:
    """(id, code) per block of ``pages`` that runs, a ``continued`` block carrying the blocks it continues."""
    every = [block for page in pages for block in blocks(page)]
    out, chain = [], ""
    for i, block in enumerate(every):
        if block.words == "notest":
            continue
        starts_page = i == 0 or every[i - 1].page != block.page
        chain = chain + block.code if block.words == "continued" and not starts_page else block.code
        out.append((f"{block.page}:{block.line}", chain))
    return out


SHELL = re.compile(r"^```bash[ \t]+run[ \t]*\n(?P<code>.*?)^```\s*$", re.DOTALL | re.MULTILINE)


def shell_blocks(pages: list[Path] = PAGES) -> list[tuple[str, str]]:
    """(page:line, script) of every shell block fenced `` ```bash run ``."""
    found = []
    for page in pages:
        text = page.read_text()
        for match in SHELL.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append((f"{page.relative_to(ROOT).as_posix()}:{line}", match["code"]))
    return found
