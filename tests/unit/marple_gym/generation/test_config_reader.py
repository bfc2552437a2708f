"""The house config reader generated from the dataclasses: both formats read by one definition of each field,
to exactly the configs the two hand-written readers it replaced gave, with every missing field named."""

from __future__ import annotations

import dataclasses
import hashlib
import json

import pytest
from paths import DATA

from marple_gym.generation.config import AgentSpec, DoorSpec, HouseConfig, HouseConfigError, ObjectSpec, RoomSpec

GOLDEN = json.loads((DATA / "house-configs-parsed.json").read_text())
"""Digests of the configs the hand-written readers (before the generated one) gave for the reference configs,
in the paper's format and in ours, and for the small configs of the tests (written by the old code)."""


def deep(value):
    """Every field, the paths in the input (``where``, not compared) and tuple-ness included."""
    if dataclasses.is_dataclass(value):
        return {f.name: deep(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, list | tuple):
        return {"tuple" if isinstance(value, tuple) else "list": [deep(v) for v in value]}
    if isinstance(value, dict):
        return {str(k): deep(v) for k, v in value.items()}
    return value


def digest(config: HouseConfig) -> str:
    return hashlib.sha256(json.dumps(deep(config), sort_keys=True).encode()).hexdigest()


@pytest.mark.parametrize("name", sorted(GOLDEN["reference"]))
def test_every_reference_config_parses_as_before_in_both_formats(name):
    config = HouseConfig.load(DATA / "reference-configs" / name)
    plain = HouseConfig.from_dict(config.to_dict())
    assert plain == config
    assert {"paper": digest(HouseConfig.from_dict(json.loads((DATA / "reference-configs" / name).read_text()))),
            "plain": digest(plain)} == GOLDEN["reference"][name]  # fmt: skip


def test_every_small_test_config_parses_as_before():
    assert len(GOLDEN["tests"]) >= 10
    for entry in GOLDEN["tests"]:
        assert digest(HouseConfig.from_dict(entry["config"])) == entry["parsed"], entry["config"]


@pytest.mark.parametrize(
    "config, field, reason",
    [
        ({"rooms": [{"top": [1, 1], "size": [4, 4]}]}, "rooms[0].type", "missing"),
        ({"rooms": [{"type": "Kitchen", "floor_objects": [{"pos": [2, 2]}]}]}, "rooms[0].floor_objects[0].type", "missing"),
        ({"doors": [{"open": False}]}, "doors[0].pos", "a door needs a position"),
        ({"Grid": {"rooms": {"initial": [{"top": [1, 1]}]}}}, "Grid.rooms.initial[0].type", "missing"),
        ({"Grid": {"doors": {"num": 1, "initial": [{"state": "open"}]}}}, "Grid.doors.initial[0].pos", "a door needs a position"),
    ],
)  # fmt: skip
def test_a_config_missing_a_required_field_names_it(config, field, reason):
    with pytest.raises(HouseConfigError) as info:
        HouseConfig.from_dict(config)
    assert info.value.field == field and info.value.reason == reason


def test_a_bound_is_defined_once_and_checked_on_reading_and_for_a_config_built_in_python():
    with pytest.raises(HouseConfigError, match=r"^Grid.auto.min_room_dim: expected an integer in \[1, 128\], got 0$"):
        HouseConfig.from_dict({"Grid": {"auto": {"min_room_dim": 0}}})
    with pytest.raises(HouseConfigError, match=r"^min_room_dim: expected an integer in \[1, 128\], got 0$"):
        HouseConfig.from_dict({"min_room_dim": 0})
    with pytest.raises(HouseConfigError, match=r"^min_room_dim: expected an integer in \[1, 128\], got 0$"):
        HouseConfig(min_room_dim=0).validate()


def test_every_field_of_every_spec_reads_back_from_our_format():
    config = HouseConfig(
        width=12,
        height=10,
        num_rooms=2,
        max_num_rooms=3,
        min_room_dim=3,
        room_split_dirs=("horz",),
        rooms=[
            RoomSpec("Kitchen", (1, 1), (4, 8), num_furniture=2, num_floor_objects=1, name="k"),
            RoomSpec("Bedroom", (6, 1), (5, 8), floor_objects=[ObjectSpec("apple", (7, 2), {}, "a")]),
        ],
        doors=[DoorSpec((5, 4), open=False)],
        agents=[AgentSpec("B", (2, 2), 1, "blue", {"do_laundry": 2.0})],
        furniture_per_room=(0, 2),
        objects_per_furniture=(1, 1),
    )
    assert HouseConfig.from_dict(config.to_dict()) == config
    assert HouseConfig.from_dict(json.loads(json.dumps(config.to_dict()))) == config
