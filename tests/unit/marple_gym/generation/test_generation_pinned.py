"""Generation is pinned: the same config and seed give the same houses and planner trajectories, bit for bit, as
at commit 1efd56d.

The datasets depend on it (a dataset is its seed), so any change to how houses
are generated (a faster placement, a new check) must draw the same random
numbers in the same order and place everything where it went before. Each case
generates several houses in a row from one seeded generator, like a dataset
does, and digests every array, name and resolved config, and the generator's
next draw (so that the random numbers consumed are pinned too). The table was
taken at commit 1efd56d with ``houses_digest`` below.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import fields

import numpy as np
import pytest
from paths import DATA

from marple_gym.generation import generate_world
from marple_gym.planner import HierarchicalPlanner
from marple_gym.recording.recorder import record_trajectory
from marple_gym.recording.shared_house import generate_shared_episode

REFERENCE = DATA / "reference-configs"
HOUSES_PER_SEED = 8

CASES: dict[str, tuple[object, list[str]]] = {
    "default-laundry": (None, ["do_laundry"]),
    "default-pillow": (None, ["watch_movie_cozily", "watch_news_on_tv"]),
    "default-shower": (None, ["take_shower", "feed_dog"]),
    "default-snack": (None, ["get_snack", "clean_living_room_table"]),
    "default-plant": (None, ["move_plant_at_night", "get_night_snack"]),
    "default-laundry-outfit": (None, ["do_laundry", "change_outfit"]),
    "three-agents": (
        {"agents": [{"name": "A"}, {"name": "B"}, {"name": "C"}]},
        ["get_snack", "feed_dog", "take_shower"],
    ),
    "small-crowded": (
        {"width": 14, "height": 14, "num_rooms": 3, "furniture_per_room": [3, 5], "objects_per_furniture": [1, 4]},
        ["do_laundry"],
    ),
    "wide-vertical": (
        {"width": 30, "height": 16, "num_rooms": 4, "room_split_dirs": ["vert"], "min_room_dim": 4},
        ["feed_dog"],
    ),
    "medium-busy": (
        {"width": 24, "height": 22, "furniture_per_room": [2, 6], "objects_per_furniture": [0, 4]},
        ["get_night_snack", "move_plant_at_night"],
    ),
    "dense-128": (
        {"width": 128, "height": 128, "furniture_per_room": [5, 10], "objects_per_furniture": [1, 3]},
        ["do_laundry"],
    ),
    "floor-objects": (
        {
            "rooms": [
                {"type": "Kitchen", "num_floor_objects": 3},
                {"type": "Bedroom", "num_floor_objects": 2},
                {"type": "Bathroom"},
                {"type": "LivingRoom", "num_floor_objects": 4},
            ]
        },
        ["do_laundry"],
    ),
    **{
        f"reference-{pair}": (str(REFERENCE / f"init_config_{pair}.json"), pair_missions)
        for pair, pair_missions in {
            "base": ["do_laundry"],
            "change_outfit_do_laundry": ["change_outfit", "do_laundry"],
            "feed_dog_take_shower": ["feed_dog", "take_shower"],
            "get_snack_clean_living_room_table": ["get_snack", "clean_living_room_table"],
            "move_plant_at_night_get_night_snack": ["move_plant_at_night", "get_night_snack"],
            "watch_movie_cozily_watch_news_on_tv": ["watch_movie_cozily", "watch_news_on_tv"],
        }.items()
    },
}
"""Name -> (config, missions): the default house for each scenario, several agents, crowded and large houses,
floor objects, and the paper's reference configs (explicit rooms, furniture and doors)."""


def _update(digest, value) -> None:
    if isinstance(value, np.ndarray):
        digest.update(f"{value.dtype}{value.shape}".encode())
        digest.update(np.ascontiguousarray(value).tobytes())
    else:
        digest.update(repr(value).encode())


def houses_digest(case: str, seed: int) -> str:
    """One digest of ``HOUSES_PER_SEED`` houses generated in a row for ``case`` from ``default_rng(seed)``."""
    config, missions = CASES[case]
    rng = np.random.default_rng(seed)
    digest = hashlib.sha256()
    for _ in range(HOUSES_PER_SEED):
        world = generate_world(config, rng, missions)
        house, state = world.house, world.state
        for f in fields(house):
            if f.name != "source":
                _update(digest, getattr(house, f.name))
        for f in fields(state):
            _update(digest, getattr(state, f.name))
        digest.update(json.dumps(house.source["config"].to_dict(), sort_keys=True).encode())
    digest.update(str(rng.integers(2**62)).encode())
    return digest.hexdigest()[:16]


TRAJECTORY_CASES: dict[str, list[dict[str, float]]] = {
    "laundry": [{"do_laundry": 1.0}],
    "snack-or-night-snack": [{"get_snack": 0.5, "get_night_snack": 0.5}],
    "movie-or-news": [{"watch_movie_cozily": 0.8, "watch_news_on_tv": 0.2}],
    "shared-three": [{"do_laundry": 1.0}, {"change_outfit": 1.0}, {"feed_dog": 0.6, "take_shower": 0.4}],
}
"""Name -> each agent's mission preferences: planners alone in a house, and three at once in one shared house."""


def trajectories_digest(case: str, seed: int) -> str:
    """One digest of the actions, outcomes and missions of episodes generated in a row for ``case``."""
    preferences = TRAJECTORY_CASES[case]
    rng = np.random.default_rng(seed)
    digest = hashlib.sha256()
    for _ in range(4):
        if len(preferences) > 1:
            episode = generate_shared_episode(None, preferences, rng)
            trajectories = episode.trajectories
        else:
            missions = [m for m, w in preferences[0].items() if w > 0]
            world = generate_world(None, rng, missions)
            planner = HierarchicalPlanner(world, preferences=preferences[0], rng=rng)
            config = world.house.source["config"]
            trajectories = [record_trajectory(world, planner, house=config, house_id="h", seed=seed)]
        for tr in trajectories:
            _update(digest, tr.actions)
            _update(digest, tr.outcomes)
            digest.update(repr((tr.missions, tr.query_steps)).encode())
    digest.update(str(rng.integers(2**62)).encode())
    return digest.hexdigest()[:16]


PINNED_TRAJECTORIES: dict[str, list[str]] = {
    "laundry": ["3e4c33ebf1ac00f4", "d31c00d05162a310", "e35dda40ae647944"],
    "snack-or-night-snack": ["9587aa0605f1f02a", "1d7d2aacd430d414", "22381a4c12c130e6"],
    "movie-or-news": ["b882ae54857994e5", "f43f1dd32fceb11e", "0700521e5a219d8a"],
    "shared-three": ["99318fbbc78ffc90", "5fb951b2c5320bd9", "199c407c58eb707d"],
}


@pytest.mark.parametrize("case", sorted(TRAJECTORY_CASES))
def test_planner_trajectories_are_those_of_the_pinned_commit(case):
    assert [trajectories_digest(case, seed) for seed in range(3)] == PINNED_TRAJECTORIES[case]


PINNED: dict[str, list[str]] = {
    "default-laundry": ["5a1479ba79a96d3d", "195233962c3b598f", "a1540e5daabf61c1"],
    "default-pillow": ["c4e5fca84858ee85", "8a70c9d999816828", "bdecf4c01408db03"],
    "default-shower": ["92819849a339bde2", "e080abaa76319ec3", "9f9093af0ce82995"],
    "default-snack": ["cb1078be0e7e01a1", "8e4d9482c8221a30", "85a1f88ac6d3cf8f"],
    "default-plant": ["1b0485837e0ccf01", "6bd778cdef41d502", "e23963269eae81a4"],
    "default-laundry-outfit": ["ff6475603af40b38", "50f9d310a7493c1a", "b348a8a9277382a0"],
    "three-agents": ["8d9e1f3ecccfd53a", "571185bb8170bf8d", "ce9da95353a83a9d"],
    "small-crowded": ["248cad0a65e4d5fd", "450d960bd3e42c72", "ef2f763dd947fce4"],
    "wide-vertical": ["fbbc7671fd0df50c", "e01610d2d81d90fa", "c3f2b0418f4abc5e"],
    "medium-busy": ["26cfc729b4b9e499", "23d8483aac19a8fd", "e36a08a1e4d4b93b"],
    "dense-128": ["6b509678cd49bcce", "c2ee7da851c24e0c", "2ede5feeb650aae9"],
    "floor-objects": ["84365e9166717ac1", "50c03615e7ae618e", "984ca511c11cded5"],
    "reference-base": ["8071953797c764d5", "42470aad585c7095", "34df813320ce2877"],
    "reference-change_outfit_do_laundry": ["be5e00db892d8d5e", "8233f4efb66b79e7", "c86730294b673e1d"],
    "reference-feed_dog_take_shower": ["d5c2cf37899206b6", "c2973881c0c6f18c", "0e34fc559243d45b"],
    "reference-get_snack_clean_living_room_table": ["39a2ae334011ab49", "dc87fa46d4ee94e8", "89d0f7ccb34203d1"],
    "reference-move_plant_at_night_get_night_snack": ["3a503b667503b223", "b5441794914dfaba", "26cb966ae0d4fbf4"],
    "reference-watch_movie_cozily_watch_news_on_tv": ["488a552df88232fc", "6757b07d13a79fd2", "f97acd3ef9590667"],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_generated_houses_are_those_of_the_pinned_commit(case):
    assert [houses_digest(case, seed) for seed in range(3)] == PINNED[case]
