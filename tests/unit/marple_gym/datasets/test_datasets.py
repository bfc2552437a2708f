"""Trajectories, whodunit episodes and datasets: replay, round trips, corruption, resume."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace

import gymnasium as gym
import numpy as np
import pytest

import marple_gym  # noqa: F401
from marple_gym.datasets import (
    DatasetError,
    DatasetSpec,
    MarpleDataset,
    ShardError,
    Sizes,
    Unit,
    generate_dataset,
    read_shard,
    record_trajectory,
    write_shard,
)
from marple_gym.datasets.episodes import run_task
from marple_gym.datasets.manifest import MANIFEST
from marple_gym.datasets.shards import decode_vision, encode_vision
from marple_gym.datasets.spec import ShardTask
from marple_gym.evidence import scene_graph
from marple_gym.generation import generate_world
from marple_gym.planner import HierarchicalPlanner

TINY = Sizes(test_houses=1, test_per_house=2, train_per_house=3, train_ood=3)


def recorded(mission: str, seed: int):
    rng = np.random.default_rng(seed)
    world = generate_world(None, rng, [mission])
    planner = HierarchicalPlanner(world, mission=mission, rng=rng)
    return record_trajectory(world, planner, house=world.house.source["config"], house_id=f"h{seed}", seed=seed)


@pytest.fixture(scope="module")
def dataset_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("marple") / "data"
    spec = DatasetSpec([Unit.scenario("laundry"), Unit.mission("get_snack")], sizes=TINY, seed=3, shard_size=2)
    generate_dataset(spec, root, workers=2, progress=False)
    return root


@pytest.mark.parametrize("mission", ["do_laundry", "watch_movie_cozily", "feed_dog"])
def test_replaying_a_trajectory_through_env_step_reproduces_every_array(mission):
    tr = recorded(mission, 7)
    env = gym.make("Marple-Household-v0", config=tr.episode_config(), mission=mission)
    obs, _ = env.reset(seed=99)  # the config is explicit: the seed changes nothing
    assert np.array_equal(obs["image"], tr.vision[0])
    for t, action in enumerate(tr.actions.tolist()):
        obs, reward, terminated, truncated, _ = env.step(action)
        assert np.array_equal(obs["image"], tr.vision[t + 1]), t
        assert obs["direction"] == tr.direction[t + 1]
        assert obs["audio"] == tr.audio[t + 1]
        assert obs["intent"] == tr.intents[t + 1]
        assert obs["carrying"].tolist() == tr.carrying[t + 1].tolist()
        assert tuple(env.unwrapped.world.state.agent_pos[0].tolist()) == tuple(tr.position[t + 1].tolist())
    assert terminated and reward == 1.0


def test_scene_graph_of_any_step_is_rebuilt_from_the_record():
    tr = recorded("get_snack", 2)
    env = gym.make("Marple-Household-v0", config=tr.episode_config(), mission="get_snack")
    env.reset()
    for action in tr.actions.tolist()[:30]:
        env.step(action)
    world = env.unwrapped.world
    rebuilt = tr.scene_graph(30)
    live = scene_graph(world.house, world.state)
    assert set(rebuilt.edges(data="relation")) == set(live.edges(data="relation"))
    assert dict(rebuilt.nodes(data=True)) == dict(live.nodes(data=True))


def test_record_holds_boundaries_query_steps_and_language():
    tr = recorded("do_laundry", 1)
    assert tr.missions == ("do_laundry",)
    assert [s.subgoal for s in tr.spans if s.achieved][:3] == [0, 1, 2]
    assert tr.spans[0].start == 0 and all(a.end == b.start for a, b in zip(tr.spans, tr.spans[1:]))
    query_t = tr.query_steps["do_laundry"]
    assert tr.outcome(query_t - 1).action == 5  # the toggle that turned the laundry on
    assert tr.intents[0] == "I am going to pick up the clothes from the bed in the Bedroom."
    assert "picked up" in tr.testimonies[tr.spans[0].end]
    cut = tr.evidence_until(10)
    assert cut.length == 10 and len(cut.vision) == 11 and "do_laundry" not in cut.query_steps


def test_vision_delta_codec_round_trips():
    tr = recorded("feed_dog", 4)
    first, steps, cells, values = encode_vision(tr.vision)
    assert np.array_equal(decode_vision(first, steps, cells, values, len(tr.vision)), tr.vision)


def test_shard_round_trip_keeps_every_field(tmp_path):
    trajectories = [recorded("get_snack", s) for s in range(3)]
    path = tmp_path / "shard.npz"
    write_shard(path, trajectories, {"note": "x"})
    loaded, meta = read_shard(path)
    assert meta["note"] == "x"
    for a, b in zip(trajectories, loaded):
        for field in (
            "vision",
            "position",
            "direction",
            "carrying",
            "mission_index",
            "subgoal",
            "audio",
            "actions",
            "outcomes",
        ):
            assert np.array_equal(getattr(a, field), getattr(b, field)), field
        assert a.spans == b.spans and a.query_steps == b.query_steps and a.missions == b.missions
        assert a.house == b.house and a.house_id == b.house_id and a.seed == b.seed


def test_generated_dataset_loads_and_matches_a_fresh_generation(dataset_dir, tmp_path):
    data = MarpleDataset(dataset_dir)
    assert data.complete and data.units == ["laundry", "get_snack"]
    task = ShardTask("laundry", "train-in", "A", 0, 0, 2)
    run_task(data.spec, task, tmp_path)
    fresh, _ = read_shard(tmp_path / task.path)
    stored = list(data.trajectories("laundry", "train-in", "A"))[:2]
    for a, b in zip(fresh, stored):
        assert np.array_equal(a.vision, b.vision) and np.array_equal(a.actions, b.actions)
    assert len(list(data.trajectories("laundry", "train-in", "B"))) == TINY.train_per_house
    assert len(list(data.trajectories("laundry", "train-ood", "A"))) == TINY.train_ood
    ood_houses = {t.house_id for t in data.trajectories("laundry", "train-ood", "A")}
    assert len(ood_houses) == TINY.train_ood


def test_whodunit_pairs_share_a_house_and_only_the_culprit_reaches_the_query(dataset_dir):
    episodes = list(MarpleDataset(dataset_dir).whodunit("laundry"))
    assert len(episodes) == TINY.test_houses * TINY.test_per_house
    for ep in episodes:
        a, b = ep.trajectories
        assert a.house_id == b.house_id and a.house == b.house
        assert a.missions == ("do_laundry",) and b.missions == ("change_outfit",)
        assert ep.horizon == a.query_steps["do_laundry"] > 0
        assert "do_laundry" not in b.query_steps
        assert ep.question == "Who turned on the laundry?"


def test_samples_pair_observations_with_actions_and_subgoals(dataset_dir):
    data = MarpleDataset(dataset_dir)
    samples = data.samples("get_snack", "train-in", role="A")
    n = sum(t.length for t in data.trajectories("get_snack", "train-in", "A"))
    assert len(samples) == n and samples.vision.shape == (n, 20, 20, 8)
    assert samples.subgoal.shape == (n, 4) and (samples.subgoal[:, 0] >= 0).all()
    assert set(samples.house) == {"get_snack-house-00"}


def test_truncated_or_tampered_shards_are_detected(dataset_dir, tmp_path):
    root = tmp_path / "copy"
    shutil.copytree(dataset_dir, root)
    data = MarpleDataset(root)
    path = root / data.shards("laundry", "train-ood", "A")[0]
    raw = path.read_bytes()
    path.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(ShardError, match="checksum mismatch"):
        list(data.trajectories("laundry", "train-ood", "A"))
    with pytest.raises(ShardError, match="not a readable MARPLE shard"):
        read_shard(path)
    flipped = bytearray(raw)
    flipped[len(raw) // 3] ^= 0xFF
    path.write_bytes(bytes(flipped))
    with pytest.raises(ShardError, match="checksum mismatch"):
        list(MarpleDataset(root).trajectories("laundry", "train-ood", "A"))


def test_a_damaged_manifest_or_missing_dataset_is_reported(tmp_path):
    with pytest.raises(DatasetError, match="no dataset here"):
        MarpleDataset(tmp_path)
    (tmp_path / MANIFEST).write_text("{not json")
    with pytest.raises(DatasetError, match="manifest.json: malformed JSON"):
        MarpleDataset(tmp_path)


def test_an_interrupted_generation_resumes_with_only_the_missing_shards(dataset_dir, tmp_path):
    root = tmp_path / "resume"
    shutil.copytree(dataset_dir, root)
    manifest = json.loads((root / MANIFEST).read_text())
    lost = sorted(manifest["shards"])[:3]
    before = {p: (root / p).read_bytes() for p in manifest["shards"] if p not in lost}
    for p in lost:  # as if the run had been killed before these shards
        (root / p).unlink()
        del manifest["shards"][p]
    manifest["complete"] = False
    (root / MANIFEST).write_text(json.dumps(manifest))
    (root / (lost[0] + ".tmp-123")).write_bytes(b"half a shard")  # a killed write leaves only a temp file
    report = generate_dataset(MarpleDataset(root).spec, root, workers=1, progress=False)
    assert report.shards_written == 3 and report.shards_skipped == len(before)
    for p, raw in before.items():
        assert (root / p).read_bytes() == raw
    assert MarpleDataset(root).complete
    for p in lost:
        assert (root / p).read_bytes() == (dataset_dir / p).read_bytes()  # deterministic


def test_generating_other_settings_into_a_dataset_dir_is_refused(dataset_dir, tmp_path):
    root = tmp_path / "other"
    shutil.copytree(dataset_dir, root)
    spec = DatasetSpec([Unit.scenario("pillow")], sizes=TINY)
    with pytest.raises(DatasetError, match="other settings"):
        generate_dataset(spec, root, workers=1, progress=False)


def test_a_split_left_out_is_not_generated_and_adding_it_later_gives_the_same_shards(dataset_dir, tmp_path):
    root = tmp_path / "two-splits"
    spec = replace(MarpleDataset(dataset_dir).spec, splits=("test", "train-in"))
    generate_dataset(spec, root, workers=1, progress=False)
    assert not list(root.rglob("train-ood")) and MarpleDataset(root).spec.splits == ("test", "train-in")
    generate_dataset(replace(spec, splits=("train-ood",)), root, workers=1, progress=False)  # added, not refused
    made = MarpleDataset(root)
    assert made.complete and made.spec == MarpleDataset(dataset_dir).spec
    shards = sorted(p.relative_to(dataset_dir) for p in dataset_dir.rglob("*.npz"))
    assert shards == sorted(p.relative_to(root) for p in root.rglob("*.npz"))
    assert all((root / p).read_bytes() == (dataset_dir / p).read_bytes() for p in shards)


def test_records_list_every_trajectorys_record_without_decoding_it(dataset_dir, monkeypatch):
    data = MarpleDataset(dataset_dir)
    decoded = [
        (tr.house_id, tr.seed, tr.agent, list(tr.missions), tr.query_steps)
        for tr in data.trajectories("laundry", "train-in", "A")
    ]
    # reading records must not decode a single vision array
    monkeypatch.setattr("marple_gym.datasets.shards.decode_vision", lambda *a: pytest.fail("decoded vision"))
    records = [
        (r["house_id"], r["seed"], r["agent"], r["missions"], r["query_steps"])
        for r in data.records("laundry", "train-in", "A")
    ]
    assert records == decoded and len(records) == 3


def test_the_requested_spec_scales_the_papers_sizes_takes_those_given_and_checks_the_limits_at_once():
    from dataclasses import replace

    from marple_gym.datasets.manifest import DatasetError
    from marple_gym.datasets.spec import PAPER_SIZES, Unit
    from marple_gym.datasets.units import requested_spec

    units = [Unit.mission("get_snack")]
    spec = requested_spec(units, splits=("test",), scale=0.1, sizes={"test_houses": 3, "train_ood": None}, seed=4)
    assert spec.sizes == replace(PAPER_SIZES.scaled(0.1), test_houses=3, test_per_house=17)  # 50 pairs over 3
    assert (spec.units, spec.splits, spec.seed, spec.config, spec.shard_size) == (units, ("test",), 4, None, 250)
    with pytest.raises(DatasetError, match="more than 1000000 shards"):
        requested_spec(units, scale=1000, shard_size=1)  # before any work, not after
