"""The slow job that explores: the property tests on new random inputs (``python -m pytest -m slow tests/test_explore.py``).

The default suite and CI draw the same examples every run (the ``ci`` Hypothesis profile, tests/conftest.py);
this runs every module that uses Hypothesis under the ``explore`` profile instead, which draws new ones on every
run and keeps any failure in ``.hypothesis/`` so that the next run replays it. ``HYPOTHESIS_PROFILE=explore
python -m pytest tests/unit/marple_gym/world/test_fuzz.py`` does the same for one module.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve()
TESTS = HERE.parent
PROPERTY_MODULES = sorted(
    p.relative_to(TESTS).as_posix()
    for p in TESTS.rglob("test_*.py")
    if p != HERE and "from hypothesis import" in p.read_text()  # this file names the import; it has no property
)


def test_the_property_modules_are_found():
    names = {Path(m).name for m in PROPERTY_MODULES}
    assert names >= {"test_fuzz.py", "test_fuzz_inputs.py", "test_generation.py", "test_scene_graph.py"}
    assert HERE.name not in names


def test_no_property_test_overrides_the_profile():
    """A test's own ``derandomize``, ``database`` or ``deadline`` would win over the profile: the explore job
    would then draw the same examples as CI (or a loaded machine could fail it on the clock)."""
    pinned = [
        m for m in PROPERTY_MODULES if re.search(r"\b(derandomize|database|deadline)\s*=", (TESTS / m).read_text())
    ]
    assert not pinned, f"leave these settings to the profiles in tests/conftest.py: {pinned}"


@pytest.mark.slow
def test_the_property_tests_hold_on_new_random_inputs():
    env = {**os.environ, "HYPOTHESIS_PROFILE": "explore"}
    command = [sys.executable, "-m", "pytest", "-q", *PROPERTY_MODULES]
    done = subprocess.run(command, cwd=TESTS, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-6000:]


def test_ci_has_a_job_that_explores_and_refuses_an_unknown_one():
    ci = TESTS.parent / ".ci" / "run"
    assert "python -m pytest -m slow tests/test_explore.py" in ci.read_text()
    done = subprocess.run(["bash", str(ci), "nightly"], capture_output=True, text=True)
    assert (done.returncode, done.stderr.strip()) == (2, "usage: .ci/run [default|explore]")
