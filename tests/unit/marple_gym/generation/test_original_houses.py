"""The original benchmark's houses (``--houses original``): shipped as package data, and built exactly as published."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
from paths import DATA

from marple.cli.main import main
from marple_gym.datasets import DatasetSpec, MarpleDataset, Sizes, Unit
from marple_gym.datasets.episodes import test_house as build_test_house
from marple_gym.errors import MarpleError
from marple_gym.generation import generate_world
from marple_gym.generation.original import original_config_file
from marple_gym.missions.scenarios import SCENARIOS
from marple_gym.world.assets import ASSETS, BIT

REFERENCE = DATA / "reference-configs"


def published(scenario: str) -> dict:
    s = SCENARIOS[scenario]
    return json.loads(original_config_file((s.mission_a, s.mission_b)).read_text())["Grid"]


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_the_shipped_config_is_the_published_one(scenario):
    s = SCENARIOS[scenario]
    shipped = original_config_file((s.mission_a, s.mission_b))
    assert json.loads(shipped.read_text()) == json.loads((REFERENCE / shipped.name).read_text())
    assert original_config_file((s.mission_b, s.mission_a)).name == shipped.name  # either order


def states(bits: int, abilities: dict) -> str:
    return str({ability: bool(bits & BIT[ability]) for ability in abilities})


def listed(entries: list[dict]) -> Counter:
    return Counter((e["type"], tuple(e["pos"]), str(e["state"])) for e in entries)


def built(names: list[str], cells: np.ndarray, bits: np.ndarray, entries: list[dict]) -> Counter:
    """What was built, with the states the config lists for an entry of that type and cell (none for an extra)."""
    abilities = {(e["type"], tuple(e["pos"])): e["state"] for e in entries}
    out = Counter()
    for name, cell, b in zip(names, cells.tolist(), bits.tolist()):
        out[(name, tuple(cell), states(b, abilities.get((name, tuple(cell)), {})))] += 1
    return out


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_houses_built_from_an_original_config_match_it_exactly(scenario):
    """Every test house of ``--houses original`` is the published house: its size, rooms, doors, every piece of
    furniture and every object with its states, and nothing else."""
    grid = published(scenario)
    unit = Unit.scenario(scenario, "original")
    spec = DatasetSpec([unit], Sizes(2, 1, 1, 1), seed=0)
    rooms = grid["rooms"]["initial"]
    furniture = [f for r in rooms for f in r["furnitures"]["initial"]]
    objects = [o for f in furniture for o in f["objs"]["initial"]]
    objects += [o for r in rooms for o in r["floor_objs"]["initial"]]
    for k in (0, 1):
        world = generate_world(build_test_house(spec, unit, k), np.random.default_rng(k), unit.missions)
        house, state = world.house, world.state
        assert (house.width, house.height) == (grid["width"], grid["height"])
        assert [(r.type, list(r.top), list(r.size)) for r in house.rooms] == [
            (r["type"], r["top"], r["size"]) for r in rooms
        ]
        inside = house.fur_room >= 0  # doors are furniture of no room
        names = [ASSETS.furniture_names[t] for t in house.fur_type[inside]]
        assert built(names, house.fur_pos[inside], state.fur_state[inside], furniture) == listed(furniture)
        names = [ASSETS.object_names[t] for t in house.obj_type]
        assert built(names, state.obj_pos, state.obj_state, objects) == listed(objects)
        doors = {tuple(house.fur_pos[i].tolist()) for i in house.doors.tolist()}
        assert doors == {tuple(d["pos"]) for d in grid["doors"]["initial"]}


def test_a_dataset_with_the_original_houses_records_them_and_only_the_paper_scenarios_have_one(tmp_path):
    out = tmp_path / "data"
    args = ["generate", "--scenario", "shower", "--houses", "original", "--test-houses", "2", "--test-per-house", "1"]
    assert main([*args, "--train-per-house", "1", "--train-ood", "1", "--out", str(out), "--no-progress"]) == 0
    data = MarpleDataset(out)
    assert data.spec.units[0].houses == "original"
    episode = next(iter(data.whodunit("shower")))
    assert episode.trajectories[0].house.width == published("shower")["width"]
    with pytest.raises(MarpleError, match="no original house config for the missions feed_dog and do_laundry"):
        Unit.scenario("feed_dog-vs-do_laundry", "original")
    assert main([*args[:2], "feed_dog-vs-do_laundry", *args[3:], "--out", str(tmp_path / "x")]) == 2
    assert main(["generate", "--mission", "feed_dog", "--houses", "original", "--out", str(tmp_path / "y")]) == 2
