"""Random mutations of the reference configs and of a generated manifest: a clean, named error or a valid result.

``FUZZ_EXAMPLES=2000 pytest tests/unit/marple_gym/datasets/test_fuzz_inputs.py`` hunts longer than the default suite does.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from paths import DATA

from marple_gym.datasets import MarpleDataset
from marple_gym.datasets.generate import generate_dataset
from marple_gym.datasets.manifest import MANIFEST
from marple_gym.datasets.spec import DatasetSpec, Sizes, Unit
from marple_gym.errors import MarpleError
from marple_gym.generation import HouseConfig, HouseConfigError, generate_world

CONFIGS = sorted((DATA / "reference-configs").glob("*.json"))

VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.integers(-3, 300),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.lists(st.integers(-3, 300), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(-1, 3), max_size=2),
)
MUTATIONS = st.lists(
    st.tuples(st.integers(0, 10**6), st.sampled_from(["replace", "delete", "rename", "insert"]), VALUES),
    min_size=1,
    max_size=3,
)


def places(doc) -> list[tuple[object, object]]:
    """Every (container, key or index) in a JSON document."""
    out = []
    stack = [doc]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in items:
            out.append((node, key))
            stack.append(value)
    return out


def mutate(doc, mutations) -> None:
    for pick, kind, value in mutations:
        spots = places(doc)
        if not spots:
            return
        node, key = spots[pick % len(spots)]
        if kind == "replace" or isinstance(node, list):
            node[key] = value
        elif kind == "delete":
            del node[key]
        elif kind == "rename":
            node[key[:-1] if len(key) > 1 else key + "x"] = node.pop(key)
        else:
            node[str(value)[:6] or "k"] = value


FUZZ = settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", 60)),
    suppress_health_check=[*settings().suppress_health_check, HealthCheck.function_scoped_fixture],
)


def plain_config() -> str:
    """A generated house in our own format, as JSON text."""
    world = generate_world(json.loads(CONFIGS[0].read_text()), np.random.default_rng(0))
    return json.dumps(world.house.source["config"].to_dict())


SOURCES = [(str(p), p.read_text()) for p in CONFIGS] + [("plain.json", plain_config())]


@FUZZ
@given(st.sampled_from(SOURCES), MUTATIONS)
def test_a_mutated_config_is_a_named_error_or_a_house(source, mutations):
    path, text = source
    doc = json.loads(text)
    mutate(doc, mutations)
    try:
        config = HouseConfig.from_dict(doc, file=str(path))
    except HouseConfigError as exc:
        assert str(exc).startswith(f"{path}: ") and exc.reason
        return
    try:
        world = generate_world(config, np.random.default_rng(0))
    except HouseConfigError as exc:  # well-formed but impossible: named too
        assert exc.reason
        return
    assert world.state.grid.shape == (config.height, config.width, 8)
    assert len(world.house.obj_type) <= 255


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("fuzz-manifest") / "D"
    spec = DatasetSpec([Unit.scenario("pillow")], Sizes(1, 1, 1, 1), seed=4)
    generate_dataset(spec, root, workers=1, progress=False)
    return root


@FUZZ
@given(MUTATIONS)
def test_a_mutated_manifest_is_a_named_error_or_a_readable_dataset(generated, tmp_path_factory, mutations):
    root = tmp_path_factory.mktemp("mutated") / "D"
    shutil.copytree(generated, root)
    doc = json.loads((root / MANIFEST).read_text())
    mutate(doc, mutations)
    (root / MANIFEST).write_text(json.dumps(doc))
    try:
        data = MarpleDataset(root)
        for unit in data.units:
            for split in data.spec.splits:
                for trajectory in data.trajectories(unit, split):
                    assert trajectory.length >= 0
    except MarpleError as exc:
        assert str(root) in str(exc)
