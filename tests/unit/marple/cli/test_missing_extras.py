"""A command that needs an optional part which is not installed names the ``pip install`` that brings it, exit 2."""

from __future__ import annotations

import pytest
from fresh_process import run_marple

from marple_gym.extras import extra_providing, extras, install_command, missing_module_hint

CORE_ONLY = tuple(
    m for extra in ("agents", "eval", "export", "logging", "multiagent", "ray", "wandb") for m in extras()[extra]
)
"""What the core install lacks: every module an extra brings (the tools of dev and docs aside)."""


def test_the_core_install_runs_marple_and_a_command_needing_an_extra_names_its_pip_install(tmp_path):
    assert run_marple(["envs"], tmp_path, blocked=CORE_ONLY).returncode == 0
    done = run_marple(["train", "--scenario", "laundry", "--role", "A", "--data", "D"], tmp_path, blocked=CORE_ONLY)
    assert done.returncode == 2, done.stderr
    assert "internal error" not in done.stderr and "please report" not in done.stderr
    assert f"lightning is not installed; the agents extra brings it: {install_command('agents')}" in done.stderr


def test_every_extra_is_read_from_the_packages_metadata():
    found = extras()
    assert {"torch", "lightning", "stable_baselines3"} <= set(found["agents"])
    assert extra_providing("matplotlib.pyplot") == "eval"
    assert extra_providing("pettingzoo") == "multiagent" and extra_providing("pyarrow") == "export"
    assert extra_providing("numpy") is None  # a core dependency: no extra brings it
    assert "marple_gym" not in {module for modules in found.values() for module in modules}  # dev's own extras


def test_the_install_command_fits_how_this_copy_was_installed():
    command = install_command("ray")
    # This test suite runs from a clone installed with pip install -e: the command names the clone.
    assert command.startswith("pip install ") and command.endswith("[ray]'")
    assert "-e " in command or "marple-gym[ray]" in command


@pytest.mark.parametrize("name", [None, "yaml", "marple_gym.nothing"])
def test_a_missing_module_no_extra_brings_is_not_the_users_to_install(name):
    assert missing_module_hint(ModuleNotFoundError("gone", name=name)) is None
