"""The episode layer: one typed state, one transition, one observe, snapshots bound to their house."""

from __future__ import annotations

import pickle

import gymnasium as gym
import numpy as np
import pytest

import marple_gym  # noqa: F401
from marple_gym.datasets import DatasetSpec, MarpleDataset, Sizes, Unit, generate_dataset
from marple_gym.episode import ALL_KEYS, OBSERVATION_KEYS, EpisodeBatch, EpisodeState, SnapshotMismatchError, observe
from marple_gym.generation import generate_world
from marple_gym.generation.config import AgentSpec, HouseConfig
from marple_gym.missions import get_mission
from marple_gym.missions.batch import BatchProgress, MissionTable
from marple_gym.missions.progress import MissionProgress
from marple_gym.world.batched_state import BatchedState

SPLITS = ("test", "train-in", "train-ood")


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    root = tmp_path_factory.mktemp("episode") / "data"
    sizes = Sizes(test_houses=1, test_per_house=2, train_per_house=2, train_ood=2)
    generate_dataset(DatasetSpec([Unit.scenario("laundry")], sizes=sizes, seed=5), root, workers=1, progress=False)
    return MarpleDataset(root)


def test_every_recorded_trajectory_replays_through_env_step_modality_by_modality(dataset):
    trajectories = [t for split in SPLITS for t in dataset.trajectories("laundry", split)]
    assert len(trajectories) >= 8
    for tr in trajectories:
        env = gym.make("Marple-Household-v0", config=tr.episode_config(), mission=tr.missions[0])
        obs, _ = env.reset(seed=0)
        episode = env.unwrapped.episode
        for t in range(tr.length + 1):
            if t:
                obs, *_ = env.step(int(tr.actions[t - 1]))
            where = f"{tr.house_id} step {t}"
            assert np.array_equal(obs["image"], tr.vision[t]), where
            assert obs["direction"] == tr.direction[t], where
            assert obs["carrying"].tolist() == tr.carrying[t].tolist(), where
            assert obs["audio"] == tr.audio[t], where
            if len(tr.missions) == 1:  # the env scores one mission; a recorded planner may move on to a second
                assert obs["intent"] == tr.intent(t), where
            position = observe(env.unwrapped.world.house, episode, 0, ("position",))["position"]
            assert position == tuple(tr.position[t].tolist()), where
        env.close()


def test_a_copy_is_independent_and_advances_by_the_same_rule():
    world = generate_world(None, np.random.default_rng(1), ["do_laundry"])
    house = world.house
    start = EpisodeState.start(house, world.state, (get_mission("do_laundry"),))
    rng = np.random.default_rng(2)
    first, second = start.copy(), start.copy()
    for action in rng.integers(0, 10, size=300).tolist():
        (result,) = first.advance(house, [action])
        (same,) = second.advance(house, [action])
        assert result == same
        assert first.world.same_as(second.world) and first.step_count == second.step_count
        assert first.progress[0].index == second.progress[0].index
    assert start.step_count == 0 and start.last_outcomes == (None,) and start.progress[0].index == 0
    assert first.observe(house, 0, ALL_KEYS).keys() == set(ALL_KEYS)
    with pytest.raises(KeyError, match="unknown observation key 'smell'"):
        observe(house, first, 0, ("smell",))
    with pytest.raises(ValueError, match="expected 1 actions"):
        first.advance(house, [0, 1])


def test_a_batch_of_episodes_advances_and_observes_as_each_episode_alone():
    """EpisodeBatch (the vectorised rules, then progress over arrays) against EpisodeState one episode at a time."""
    missions = [get_mission(m) for m in ("do_laundry", "watch_news_on_tv", "clean_living_room_table")]
    world = generate_world(None, np.random.default_rng(3), [m.name for m in missions])
    house = world.house
    table = MissionTable(missions)
    chosen = np.array([0, 1, 2, 0, 1, 2])
    batch = EpisodeBatch.start(BatchedState.repeat(world.state, len(chosen)), table, (chosen,))
    alone = [EpisodeState.start(house, world.state.copy(), (missions[m],)) for m in chosen.tolist()]
    keys = ("image", "direction", "carrying", "mission", "intent", "audio", "subgoal", "position", "subgoal_index")
    rng = np.random.default_rng(4)
    for _ in range(200):
        actions = rng.integers(0, 10, size=len(chosen))
        (many,) = batch.advance(house, actions)
        many_obs = batch.observe(house, 0, keys)
        for i, episode in enumerate(alone):
            ((outcome, achieved),) = episode.advance(house, [int(actions[i])])
            assert many.outcome.row(i) == outcome
            assert (-1 if achieved is None else achieved) == many.achieved[i]
            obs = episode.observe(house, 0, keys)
            for key in keys:
                assert np.array_equal(np.asarray(many_obs[key][i]), np.asarray(obs[key])), key
    copied = batch.copy()
    copied.advance(house, np.full(len(chosen), 2))
    assert not np.array_equal(copied.step_count, batch.step_count)


@pytest.mark.parametrize("agents", [(0,), (1, 0)])
def test_the_env_observation_read_at_once_equals_each_key_read_alone(agents):
    """observe builds the env's own keys (OBSERVATION_KEYS) in one go: the same values, types and key order as
    reading each modality alone, for world agent 0 and for another agent (its ids seen self-first)."""
    missions = (get_mission("do_laundry"), get_mission("watch_news_on_tv"))
    two = HouseConfig(agents=[AgentSpec("A"), AgentSpec("B", color="blue")])
    world = generate_world(two, np.random.default_rng(7), [m.name for m in missions])
    episode = EpisodeState.start(world.house, world.state, missions[: len(agents)], agents)
    rng = np.random.default_rng(8)
    for _ in range(300):  # random actions: objects picked up and put down, furniture toggled, subgoals reached
        for acting in range(len(agents)):
            at_once = observe(world.house, episode, acting, OBSERVATION_KEYS)
            assert list(at_once) == list(OBSERVATION_KEYS)
            for key in OBSERVATION_KEYS:
                alone = observe(world.house, episode, acting, (key,))[key]
                assert type(at_once[key]) is type(alone), key
                assert np.array_equal(np.asarray(at_once[key]), np.asarray(alone)), key
        episode.advance(world.house, rng.integers(0, 10, size=len(agents)).tolist())


def test_a_batch_followed_one_by_one_advances_as_each_episode_alone():
    """EpisodeBatch.one_by_one: each episode an EpisodeState viewing its row, whose trackers advance moves on; only
    the ``acting`` episodes' missions move."""
    missions = [get_mission(m) for m in ("do_laundry", "watch_news_on_tv")]
    world = generate_world(None, np.random.default_rng(3), [m.name for m in missions])
    house, n = world.house, 4
    batch = EpisodeBatch.start(BatchedState.repeat(world.state, n))
    rows = batch.one_by_one(house)
    for e, row in enumerate(rows):
        assert np.shares_memory(row.world.grid, batch.world.grid)
        row.track(0, MissionProgress(missions[e % 2]))
    alone = [EpisodeState.start(house, world.state.copy(), (missions[e % 2],)) for e in range(n)]
    rng = np.random.default_rng(4)
    for t in range(200):
        actions = rng.integers(0, 10, size=n)
        acting = np.arange(n) if t < 150 else np.array([0, 2])  # rows 1 and 3 are over: their missions stay
        before = [r.progress[0].index for r in rows]
        (step,) = batch.advance(house, actions, acting=acting)
        for e, episode in enumerate(alone):
            if e not in acting:
                assert rows[e].progress[0].index == before[e] and step.achieved[e] == -1
                continue
            ((outcome, achieved),) = episode.advance(house, [int(actions[e])])
            assert step.outcome.row(e) == outcome and rows[e].last_outcomes == (outcome,)
            assert (-1 if achieved is None else achieved) == step.achieved[e]
            assert rows[e].progress[0].index == episode.progress[0].index
    copied = batch.copy()  # its rows view the copy's rows, with copies of their trackers
    copied.rows[0].progress[0].rewind(0)
    assert np.shares_memory(copied.rows[0].world.grid, copied.world.grid)
    assert not np.shares_memory(copied.world.grid, batch.world.grid)
    assert copied.rows[0].progress[0] is not rows[0].progress[0] and rows[0].progress[0].index > 0
    with pytest.raises(ValueError, match="one episode at a time"):
        batch.track(0, None)


def test_a_batch_tracks_missions_given_part_way_and_moves_only_the_acting_ones_on():
    mission = get_mission("do_laundry")
    world = generate_world(None, np.random.default_rng(3), [mission.name])
    house, n = world.house, 6
    table = MissionTable([mission])
    batch = EpisodeBatch.start(BatchedState.repeat(world.state, n))
    batch.track(0, BatchProgress(table, np.zeros(n, dtype=int), np.arange(n) % 2))
    alone = []
    for e in range(n):
        episode = EpisodeState.start(house, world.state.copy(), (mission,))
        episode.progress[0].index = e % 2
        alone.append(episode)
    rng = np.random.default_rng(5)
    acting = np.array([0, 1, 3, 4])
    for _ in range(150):
        actions = rng.integers(0, 10, size=n)
        index = batch.progress[0].index.copy()
        (step,) = batch.advance(house, actions, acting=acting)
        for e in acting.tolist():
            ((_, achieved),) = alone[e].advance(house, [int(actions[e])])
            assert (-1 if achieved is None else achieved) == step.achieved[e]
            assert batch.progress[0].index[e] == alone[e].progress[0].index
        assert (batch.progress[0].index[[2, 5]] == index[[2, 5]]).all()


def test_snapshot_is_typed_pickles_and_refuses_another_house():
    env = gym.make("Marple-DoLaundry-v0").unwrapped
    env.reset(seed=0)
    for a in (2, 2, 1, 2):
        env.step(a)
    snapshot = env.get_state()
    assert isinstance(snapshot, EpisodeState) and snapshot.step_count == 4
    restored = pickle.loads(pickle.dumps(snapshot))
    obs_before = env._observation()
    env.step(0)
    env.set_state(restored)
    assert env.step_count == 4 and np.array_equal(env._observation()["image"], obs_before["image"])
    other = gym.make("Marple-DoLaundry-v0").unwrapped
    other.reset(seed=1)
    with pytest.raises(SnapshotMismatchError, match="belongs to house"):
        other.set_state(snapshot)
    with pytest.raises(TypeError, match="EpisodeState"):
        env.set_state({"world": snapshot.world})


def test_house_arrays_are_read_only_and_the_fingerprint_names_the_layout():
    world = generate_world(None, np.random.default_rng(3), ["do_laundry"])
    house = world.house
    for array in (house.room_map, house.wall, house.fur_type, house.obj_type, house.fur_map, house.doors):
        with pytest.raises(ValueError, match="read-only"):
            array[...] = 0
    clone = world.clone()
    assert clone.house is house and clone.state.grid is not world.state.grid
    again = generate_world(house.source["config"], np.random.default_rng(0))
    assert again.house.fingerprint == house.fingerprint
    other = generate_world(None, np.random.default_rng(4), ["do_laundry"])
    assert other.house.fingerprint != house.fingerprint


def test_files_record_the_tables_they_were_made_with_and_name_the_one_that_changed(dataset, tmp_path):
    import json
    import shutil

    from marple_gym.datasets import MarpleDataset as Dataset
    from marple_gym.missions.tables import TableMismatchError, table_fingerprints

    manifest = json.loads((dataset.root / "manifest.json").read_text())
    assert manifest["tables"] == table_fingerprints()
    copy = tmp_path / "data"
    shutil.copytree(dataset.root, copy)
    manifest["tables"]["assets"] = "0" * 16
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(TableMismatchError, match=r"different assets table \(assets \(data/assets.json\): 0{16} then"):
        Dataset(copy)
    del manifest["tables"]  # a dataset written before fingerprints were recorded loads unchanged
    (copy / "manifest.json").write_text(json.dumps(manifest))
    assert Dataset(copy).complete
