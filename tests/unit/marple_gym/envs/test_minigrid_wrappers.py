"""Every wrapper of ``minigrid.wrappers`` on every registered MARPLE id (:mod:`registered`): it works, or it fails with the reason.

The tables in docs/rl.md ("MiniGrid's wrappers", and the MiniGrid codes of MARPLE's cells) are generated here:
the outcome column is what happens when the wrapper, made as the "made with" column says, resets and steps
each id (every observation checked against the wrapper's declared space). If the docs differ, the test fails
and prints the table to paste (or run ``python tests/unit/marple_gym/envs/test_minigrid_wrappers.py``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field

import gymnasium as gym
import minigrid.wrappers
import pytest
from paths import ROOT
from registered import REGISTERED_IDS

import marple_gym
from marple_gym.envs.minigrid_api import NoMiniGridEquivalent
from marple_gym.envs.minigrid_grid import category_colour, room_colour
from marple_gym.world.assets import ASSETS

IDS = REGISTERED_IDS
TEXT_FREE = ("image", "direction", "mission")


@dataclass(frozen=True)
class Recipe:
    """How a MiniGrid wrapper is tried on MARPLE envs, and what the docs say beside the outcome."""

    made_with: str
    note: str
    make: dict = field(default_factory=dict)
    wrapper: dict = field(default_factory=dict)
    first: Callable[[gym.Env], gym.Env] | None = None
    """A wrapper applied before this one (the one that makes what this one reads)."""


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
        "`DirectionObsWrapper(env)`",
        "towards the goal: the first target cell (row by row) of the subgoal the agent is on at reset (on "
        "`Marple-Search-v0` the sought object's cell), fixed for the episode as MiniGrid's goal is; `DenseReward` "
        "follows the current subgoal",
    ),
    "FlatObsWrapper": Recipe(
        "`FlatObsWrapper(env)`",
        "every title fits its 96 characters (the longest, the Put levels' task, has 88); our `FlatObservation` "
        "gives the subgoal codes instead of characters",
    ),
    "FullyObsWrapper": Recipe(
        "`FullyObsWrapper(env)`", "the house in MiniGrid's codes (below); the default `image` has MARPLE's 8 channels"
    ),
    "ImgObsWrapper": Recipe("`ImgObsWrapper(env)`", "the code array alone"),
    "NoDeath": Recipe(
        '`NoDeath(env, no_death_types=("lava",))`',
        "changes nothing: no MARPLE cell ends an episode (completing the mission does)",
        wrapper={"no_death_types": ("lava",)},
    ),
    "OneHotPartialObsWrapper": Recipe(
        "`OneHotPartialObsWrapper(ViewSizeWrapper(env, agent_view_size=7))`",
        "it one-hots MiniGrid's codes, which `ViewSizeWrapper` makes; on the env's own 8-channel `image` it fails "
        "(`IndexError`); `marple_agents.rl.CodeArrayExtractor` embeds those",
        first=lambda env: minigrid.wrappers.ViewSizeWrapper(env, agent_view_size=7),
    ),
    "PositionBonus": Recipe("`PositionBonus(env)`", "counts cells"),
    "RGBImgObsWrapper": Recipe("`RGBImgObsWrapper(env)`", "the house drawn, 8 pixels a cell"),
    "RGBImgPartialObsWrapper": Recipe(
        "`RGBImgPartialObsWrapper(gym.make(id, view_size=7))`",
        "the agent's view drawn, facing up; without `view_size` the house as the `image` holds it: all of it (the "
        "picture is `RGBImgObsWrapper`'s), or on `Marple-Search-v0` what the searcher perceives, the rest screened",
        make={"view_size": 7},
    ),
    "ReseedWrapper": Recipe(
        "`ReseedWrapper(env, seeds=(0, 1))`", "resets cycle through the seeds' houses", wrapper={"seeds": (0, 1)}
    ),
    "StochasticActionWrapper": Recipe("`StochasticActionWrapper(env)`", "a random action in 10% of steps"),
    "SymbolicObsWrapper": Recipe("`SymbolicObsWrapper(env)`", "(x, y, MiniGrid type) of every cell"),
    "ViewSizeWrapper": Recipe(
        "`ViewSizeWrapper(env, agent_view_size=5)`",
        "MiniGrid's codes of the cells `gym.make(id, view_size=5)` shows in 8 channels",
        wrapper={"agent_view_size": 5},
    ),
}
WRAPPERS = sorted(
    n for n, c in inspect.getmembers(minigrid.wrappers, inspect.isclass) if c.__module__ == "minigrid.wrappers"
)


def make(env_id: str, recipe: Recipe) -> gym.Env:
    """``env_id`` made as the recipe says, with the wrapper it needs first, if any (not the recipe's own)."""
    kwargs = {"mission": "do_laundry"} if env_id == marple_gym.envs.HOUSEHOLD_ID else {}
    env = gym.make(env_id, **kwargs, **recipe.make)
    return recipe.first(env) if recipe.first else env


def wrapped(name: str, env_id: str) -> gym.Env:
    """MiniGrid's wrapper ``name`` on ``env_id``, made as its recipe says."""
    recipe = RECIPES[name]
    return getattr(minigrid.wrappers, name)(make(env_id, recipe), **recipe.wrapper)


def outcome(name: str, env_id: str) -> str:
    """What the wrapper does on ``env_id``: "works" (reset and steps, every observation in its space) or the
    error of its first reset or step."""
    env = wrapped(name, env_id)
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


def codes_table() -> str:
    """The MiniGrid code of each MARPLE cell (:mod:`marple_gym.envs.minigrid_grid`), colours from its rules."""
    rooms = ", ".join(f"{room} {room_colour(room)}" for room in ASSETS.room_types)
    categories = ", ".join(f"{category} {category_colour(category)}" for category in ASSETS.categories)
    rows = [
        ("wall", "`wall`", "grey", "0"),
        ("door", "`door`", "grey", "`open` (0) or `closed` (1); no locks"),
        ("floor", "`floor`", f"its room's: {rooms}", "0"),
        ("furniture", "`box`", "its room's", "0"),
        ("object on furniture, or in an open or lidless container", "`ball`", f"its category's: {categories}", "0"),
        ("object shut in a closed container", "not shown: its container's `box`, as MiniGrid's box hides it", "", ""),
        (
            "target cell of the agent's current subgoal (the searcher's: where the object it seeks lies; in its "
            "view only where it sees that)",
            "`goal`, over what is there",
            "green",
            "0",
        ),
        ("object the agent holds", "not in `grid`; `ball` on the agent's cell of `gen_obs_grid`'s view", "", ""),
        ("the agent", "not in `grid` (`FullyObsWrapper`, `SymbolicObsWrapper` write `agent` there)", "", ""),
        ("cell hidden from a partial view, or not perceived by the searcher of `Marple-Search-v0`", "`unseen`", "", ""),
    ]
    lines = ["| MARPLE cell | MiniGrid object | colour | state |", "|---|---|---|---|"]
    return "\n".join(lines + [f"| {thing} | {kind} | {colour} | {state} |" for thing, kind, colour, state in rows])


def test_every_minigrid_wrapper_has_a_recipe():
    assert sorted(RECIPES) == WRAPPERS


@pytest.mark.parametrize("name", ["RGBImgObsWrapper", "RGBImgPartialObsWrapper"])
def test_the_rgb_views_match_the_envs_own(name):
    env = wrapped(name, "Marple-GetSnack-v0")
    obs, _ = env.reset(seed=0)
    base = env.unwrapped
    view = base.agent_view_size
    expected = base.get_frame(highlight=base.highlight, tile_size=8, agent_pov=view is not None)
    assert (obs["image"] == expected).all()
    assert obs["image"].shape == ((view or base.height) * 8, (view or base.width) * 8, 3)


def test_the_partial_rgb_view_of_an_agent_that_sees_the_whole_house_is_the_house():
    """MiniGrid's agents always see a partial view; ours see the whole house unless made with ``view_size``."""
    partial = minigrid.wrappers.RGBImgPartialObsWrapper(gym.make("Marple-GetSnack-v0"))
    full = minigrid.wrappers.RGBImgObsWrapper(gym.make("Marple-GetSnack-v0"))
    obs, _ = partial.reset(seed=0)
    assert partial.observation_space.contains(obs)
    assert (obs["image"] == full.reset(seed=0)[0]["image"]).all()


def test_the_one_hot_view_needs_minigrid_codes_first():
    """On the env's own 8-channel codes MiniGrid's one-hot indexes past its 20 slots: the docs say so."""
    env = minigrid.wrappers.OneHotPartialObsWrapper(gym.make("Marple-GetSnack-v0", view_size=7))
    with pytest.raises(IndexError):
        env.reset(seed=0)


def test_the_docs_tables_are_the_ones_computed_here():
    docs = (ROOT / "docs" / "rl.md").read_text()
    for expected in (table(), codes_table()):
        assert expected in docs, "docs/rl.md's MiniGrid table is out of date; it should read:\n" + expected


if __name__ == "__main__":
    print(table(), codes_table(), sep="\n\n")
