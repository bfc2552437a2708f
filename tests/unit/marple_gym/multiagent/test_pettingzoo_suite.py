"""Every test utility of ``pettingzoo.test`` on the multi-agent env, in its AEC form (``env()``) and its parallel
form (``parallel_env()``; the utilities that drive AEC envs get it through PettingZoo's ``parallel_to_aec``)."""

from __future__ import annotations

import pytest

pytest.importorskip("pettingzoo")
from pettingzoo.test import (  # noqa: E402
    api_test,
    max_cycles_test,
    parallel_api_test,
    parallel_seed_test,
    performance_benchmark,
    render_test,
    seed_test,
)
from pettingzoo.utils.conversions import parallel_to_aec  # noqa: E402

from marple_gym import multiagent  # noqa: E402
from marple_gym.multiagent import env, parallel_env  # noqa: E402

THREE = {"missions": ["do_laundry", "change_outfit", "get_snack"], "max_steps": 80}
FORMS = {
    "the Dict observation": THREE,
    "the flat observation": {**THREE, "flat": True},
    "the egocentric view, hearing the others": {
        **THREE,
        "view_size": 5,
        "observation_keys": ("image", "direction", "subgoal", "heard"),
    },
}


@pytest.mark.parametrize("form", list(FORMS))
def test_aec_api(form):
    api_test(env(num_agents=3, **FORMS[form]), num_cycles=100)


@pytest.mark.parametrize("form", list(FORMS))
def test_parallel_api(form):
    parallel_api_test(parallel_env(num_agents=3, **FORMS[form]), num_cycles=200)


def test_aec_seed():
    seed_test(lambda: env(num_agents=3, **THREE), num_cycles=100)


def test_parallel_seed():
    parallel_seed_test(lambda: parallel_env(num_agents=3, **THREE), num_cycles=100)


def test_max_cycles_of_both_forms():
    """PettingZoo's check takes the module that holds ``env`` and ``parallel_env``, with their defaults."""
    max_cycles_test(multiagent)


@pytest.mark.parametrize(
    "make", [env, lambda **kwargs: parallel_to_aec(parallel_env(**kwargs))], ids=["aec", "parallel"]
)
def test_render_modes(make, monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    render_test(lambda render_mode: make(num_agents=3, render_mode=render_mode, tile_size=8, **THREE))


def test_performance_benchmark(capsys):
    """PettingZoo's benchmark plays random actions, through resets, for five seconds and prints the rate (a
    figure, not a verdict: speed is measured in bench/)."""
    performance_benchmark(env(num_agents=3, **THREE))
    printed = capsys.readouterr().out
    turns = float(printed.split(" turns per second")[0].split()[-1])
    assert turns > 0, printed
