"""Where the tests find the repository and their data, wherever in tests/ a test module sits."""

from pathlib import Path

TESTS = Path(__file__).resolve().parent
"""The tests folder (its helpers, ``data/``)."""
ROOT = TESTS.parent
"""The repository's root (docs, examples, bench, pyproject.toml)."""
DATA = TESTS / "data"
"""Test data: the original benchmark's reference configs and the parsed-config digests."""
