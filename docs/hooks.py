"""MkDocs hooks: the environments page's table, made from Gymnasium's registry when the site is built, and
the test words of Python fences taken off.

* Every id a package of ours registers (its entry point is in ``marple_gym``) gets a row where the page holds the
  marker ``<!-- env-table -->``: what it is (as ``marple envs --all`` says it, or the env class's docstring for an
  id the catalog does not describe), its step limit and whether it has a native vector env.
* The changelog page is the repository's CHANGELOG.md, its links to the docs made relative to the site.
* The words after a fence's language (``python continued``, ``python notest``, ``bash run``) say how
  tests/test_docs.py runs a block; GitHub ignores them, but MkDocs' fences would not take the block for code, so they are taken off the page
  it renders.
"""

from __future__ import annotations

import re
from pathlib import Path

MARKER = "<!-- env-table -->"
TEST_WORDS = re.compile(r"^(\s*```(?:python|bash))[ \t]+(?:continued|notest|run)[ \t]*$", re.MULTILINE)


def env_table() -> str:
    """The Markdown table of every registered MARPLE-Gym id."""
    import importlib

    import gymnasium as gym

    import marple_gym  # noqa: F401  (registers the ids)
    from marple_gym.levels.catalog import env_catalog

    described = dict(env_catalog(levels=True).rows)
    rows = ["| id | what it is | step limit | native vector env |", "| --- | --- | --- | --- |"]
    for env_id, spec in gym.registry.items():
        entry = spec.entry_point if isinstance(spec.entry_point, str) else ""
        if not entry.startswith("marple_gym."):
            continue
        what = described.get(env_id)
        if what is None:
            module, _, name = entry.partition(":")
            doc = getattr(importlib.import_module(module), name).__doc__ or ""
            what = doc.strip().splitlines()[0] if doc.strip() else ""
        vector = "yes" if spec.vector_entry_point else "-"
        rows.append(f"| `{env_id}` | {what.replace('|', '/')} | {spec.max_episode_steps or '-'} | {vector} |")
    return "\n".join(rows)


def on_page_markdown(markdown: str, page, config, files) -> str:
    if MARKER in markdown:
        markdown = markdown.replace(MARKER, env_table())
    if page.file.src_uri == "changelog.md":  # the repository's CHANGELOG.md, whose links start from its root
        root = Path(config["config_file_path"]).parent
        markdown = (root / "CHANGELOG.md").read_text().replace("](docs/", "](")
    return TEST_WORDS.sub(r"\1", markdown)
