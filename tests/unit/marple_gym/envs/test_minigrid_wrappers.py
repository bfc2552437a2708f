"""Every wrapper of ``minigrid.wrappers`` on every registered MARPLE id: it works, or it fails with the reason.

The table in docs/rl.md ("MiniGrid's wrappers") is generated here: the outcome column is what happens when
the wrapper, made as the "made with" column says, resets and steps each id. If the docs differ, the test fails
and prints the table to paste (or run ``python tests/unit/marple_gym/envs/test_minigrid_wrappers.py``).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field

import gymnasium as gym
import minigrid.wrappers
import pytest
from paths import ROOT

import marple_gym
from marple_gym.envs.minigrid_api import NoMiniGridEquivalent

IDS = marple_gym.env_ids() + marple_gym.level_ids(include_missions=False)
TEXT_FREE = ("image", "direction", "mission")


@dataclass(frozen=True)
class Recipe:
    """How a MiniGrid wrapper is tried on MARPLE envs, and what the docs say beside the outcome."""

    made_with: str
    note: str
    make: dict = field(default_factory=dict)
    wrapper: dict = field(default_factory=dict)


RECIPES = {
    "ActionBonus": Recipe("`ActionBonus(env)`", "counts (cell, direction, action)"),
    "DictObservationSpaceWrapper": Recipe(
        "`DictObservationSpaceWrapper(gym.make(id, observation_keys=KEYS), word_dict=marple_gym.levels.mission_words())`",
        'KEYS = `("image", "direction", "mission")`, the keys its space declares; MiniGrid\'s own words do not '
        "cover ours",
        make={"observation_keys": TEXT_FREE},
        wrapper={"word_dict": marple_gym.levels.mission_words()},
    ),
    "DirectionObsWrapper": Recipe(
        "`DirectionObsWrapper(env)`", "no goal square: the `subgoal` codes name the target, `DenseReward` its distance"
    ),
    "FlatObsWrapper": Recipe(
        "`FlatObsWrapper(env, maxStrLen=128)`",
        "the Put levels' task reads 107 characters, over the default 96",
        wrapper={"maxStrLen": 128},
    ),
    "FullyObsWrapper": Recipe("`FullyObsWrapper(env)`", "the default `image` is the whole house's code grid"),
    "ImgObsWrapper": Recipe("`ImgObsWrapper(env)`", "the code array alone"),
    "NoDeath": Recipe(
        '`NoDeath(env, no_death_types=("lava",))`',
        "no MARPLE cell ends an episode",
        wrapper={"no_death_types": ("lava",)},
    ),
    "OneHotPartialObsWrapper": Recipe(
        "`OneHotPartialObsWrapper(env)`",
        "its 20 one-hot slots are MiniGrid's; `marple_agents.rl.CodeArrayExtractor` embeds each code channel",
    ),
    "PositionBonus": Recipe("`PositionBonus(env)`", "counts cells"),
    "RGBImgObsWrapper": Recipe("`RGBImgObsWrapper(env)`", "the house drawn, 8 pixels a cell"),
    "RGBImgPartialObsWrapper": Recipe(
        "`RGBImgPartialObsWrapper(gym.make(id, view_size=7))`",
        "the agent's view drawn, facing up; without `view_size` reset says to set it",
        make={"view_size": 7},
    ),
    "ReseedWrapper": Recipe(
        "`ReseedWrapper(env, seeds=(0, 1))`", "resets cycle through the seeds' houses", wrapper={"seeds": (0, 1)}
    ),
    "StochasticActionWrapper": Recipe("`StochasticActionWrapper(env)`", "a random action in 10% of steps"),
    "SymbolicObsWrapper": Recipe("`SymbolicObsWrapper(env)`", "the default `image` codes every cell"),
    "ViewSizeWrapper": Recipe(
        "`ViewSizeWrapper(env, agent_view_size=5)`",
        "`gym.make(id, view_size=5)` or `marple_gym.EgocentricView(env, view_size=5)`",
        wrapper={"agent_view_size": 5},
    ),
}
WRAPPERS = sorted(
    n for n, c in inspect.getmembers(minigrid.wrappers, inspect.isclass) if c.__module__ == "minigrid.wrappers"
)


def make(env_id: str, recipe: Recipe) -> gym.Env:
    kwargs = {"mission": "do_laundry"} if env_id == marple_gym.envs.HOUSEHOLD_ID else {}
    return gym.make(env_id, **kwargs, **recipe.make)


def outcome(name: str, env_id: str) -> str:
    """What the wrapper does on ``env_id``: "works" (reset and steps, every observation in its space) or the
    error of its first reset or step."""
    recipe = RECIPES[name]
    env = getattr(minigrid.wrappers, name)(make(env_id, recipe), **recipe.wrapper)
    env.action_space.seed(0)
    try:
        first = env.reset() if name == "ReseedWrapper" else env.reset(seed=0)  # it seeds, and warns if we do
        observations = [first[0]] + [env.step(action)[0] for action in (2, 1, 2, 3, 0)]
    except NoMiniGridEquivalent:
        return "raises `NoMiniGridEquivalent`, naming the equivalent"
    except Exception as error:  # noqa: BLE001 - the table reports what a MiniGrid user would meet
        return f"fails inside the wrapper (`{type(error).__name__}`)"
    finally:
        env.close()
    inside = all(env.observation_space.contains(obs) for obs in observations)
    return "works" if inside else "works, but its observations leave its declared space"


def table() -> str:
    lines = ["| MiniGrid wrapper | made with | on every MARPLE id | note |", "|---|---|---|---|"]
    for name in WRAPPERS:
        results = {outcome(name, env_id) for env_id in IDS}
        result = results.pop() if len(results) == 1 else "differs between ids: " + "; ".join(sorted(results))
        lines.append(f"| `{name}` | {RECIPES[name].made_with} | {result} | {RECIPES[name].note} |")
    return "\n".join(lines)


def test_every_minigrid_wrapper_has_a_recipe():
    assert sorted(RECIPES) == WRAPPERS


@pytest.mark.parametrize("name", ["RGBImgObsWrapper", "RGBImgPartialObsWrapper", "ViewSizeWrapper"])
def test_the_views_match_the_envs_own(name):
    env = getattr(minigrid.wrappers, name)(make("Marple-GetSnack-v0", RECIPES[name]), **RECIPES[name].wrapper)
    if name == "ViewSizeWrapper":
        with pytest.raises(NoMiniGridEquivalent, match=r"^MiniGrid's gen_obs_grid .*view_size=v\)"):
            env.reset(seed=0)
        return
    obs, _ = env.reset(seed=0)
    base = env.unwrapped
    view = base.agent_view_size
    expected = base.get_frame(highlight=base.highlight, tile_size=8, agent_pov=view is not None)
    assert (obs["image"] == expected).all()
    assert obs["image"].shape == ((view or base.height) * 8, (view or base.width) * 8, 3)


def test_the_partial_rgb_view_needs_view_size_and_says_so():
    env = minigrid.wrappers.RGBImgPartialObsWrapper(gym.make("Marple-GetSnack-v0"))
    with pytest.raises(ValueError, match=r"view_size=7"):
        env.reset(seed=0)


def test_the_docs_table_is_the_one_computed_here():
    expected = table()
    docs = (ROOT / "docs" / "rl.md").read_text()
    assert expected in docs, "docs/rl.md's MiniGrid table is out of date; it should read:\n" + expected


if __name__ == "__main__":
    print(table())
