"""The RL on-ramp: egocentric views, numeric subgoals, SB3, async text, the level ladder and its reward."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path
from types import SimpleNamespace

import gymnasium as gym
import numpy as np
import pytest
from bench_scripts import load_bench
from gymnasium.utils.env_checker import check_env
from paths import ROOT
from registered import REGISTERED_IDS
from worlds import make_world

from marple_gym import EgocentricView, NumericObservation
from marple_gym.envs.household import NOT_ACHIEVED
from marple_gym.envs.registration import HOUSEHOLD_ID
from marple_gym.evidence.egocentric import egocentric_view
from marple_gym.levels import LEVELS, DenseReward, level_ids, steps_to_subgoal
from marple_gym.planner.planner import HierarchicalPlanner
from marple_gym.world.assets import DOOR, OPEN_BIT, WALL
from marple_gym.world.state import CH_FUR, CH_FUR_STATE, CH_ROOM

LEVEL_IDS = level_ids(include_missions=False)
EVERY_ID = REGISTERED_IDS


# ---- the egocentric view against hand-built houses ----------------------------------------------------


def test_egocentric_view_rotates_with_the_agent():
    # a 9 x 7 kitchen, walls all round; a light (one cell) two cells east of the agent
    world = make_world([{"type": "light", "pos": [4, 3]}], agent=(2, 3, 0))
    state = world.state
    light = state.grid[3, 4, CH_FUR]
    # (row, col) of the light: two cells ahead facing east, two to the left facing south (the agent's
    # right hand points west then), two to the right facing north, behind (out of view) facing west
    expected = {0: (2, 2), 1: (4, 0), 3: (4, 4), 2: None}
    for direction, cell in expected.items():
        state.agent_dir[0] = direction
        view = egocentric_view(state, view_size=5)
        assert (view[..., CH_FUR] == light).sum() == (0 if cell is None else 1), direction
        if cell is not None:
            assert view[cell[0], cell[1], CH_FUR] == light, direction
        assert view[4, 2, CH_FUR] == 0 and view[4, 2, CH_ROOM] > 0  # the agent's own floor cell


def test_egocentric_view_pads_outside_the_house_with_walls():
    world = make_world(agent=(1, 1, 3))  # top-left floor corner, facing north
    view = egocentric_view(world.state, view_size=7, see_through_walls=True)
    assert (view[:5, :, CH_FUR] == WALL).all()  # row 5 is the house's top wall, rows above lie outside it
    assert (view[5, :, CH_FUR] == WALL).all()
    assert (view[6, :2, CH_FUR] == WALL).all() and view[6, 3, CH_FUR] == 0  # x = -2, -1, 0 to the left


def _corridor(door_open: bool | None) -> SimpleNamespace:
    """A 5 x 5 floor with a wall across row 1 (a door at its middle, or a plain wall); the agent at (2, 4) facing north."""
    grid = np.zeros((5, 5, 8), dtype=np.uint8)
    grid[..., CH_ROOM] = 1
    grid[1, :, CH_ROOM] = 0
    grid[1, :, CH_FUR] = WALL
    if door_open is not None:
        grid[1, 2, CH_FUR] = DOOR
        grid[1, 2, CH_FUR_STATE] = 1 + (OPEN_BIT if door_open else 0)
    return SimpleNamespace(grid=grid, agent_pos=np.array([[2, 4]]), agent_dir=np.array([3]))


@pytest.mark.parametrize("door_open", [None, False, True])
def test_walls_and_closed_doors_hide_what_is_behind_them(door_open):
    state = _corridor(door_open)
    view = egocentric_view(state, view_size=5)  # rows 0..4 are 4..0 cells ahead: row 1 is grid row 1 (the wall)
    assert (view[1, :, CH_FUR] > 0).all()  # the wall itself is seen
    behind = view[0, 1:4]
    if door_open:
        assert (behind[:, CH_ROOM] == 1).all()  # seen through the open door
    else:
        assert not behind.any()  # hidden: unseen cells are all zeros
    transparent = egocentric_view(state, view_size=5, see_through_walls=True)
    assert (transparent[0, :, CH_ROOM] == 1).all()


def test_view_size_option_and_wrapper_agree():
    env = gym.make("Marple-GetSnack-v0", view_size=5)
    wrapped = EgocentricView(gym.make("Marple-GetSnack-v0"), view_size=5)
    a, _ = env.reset(seed=3)
    b, _ = wrapped.reset(seed=3)
    assert a["image"].shape == (5, 5, 8) and np.array_equal(a["image"], b["image"])
    assert env.observation_space["image"] == wrapped.observation_space["image"]
    with pytest.raises(ValueError, match="odd"):
        gym.make("Marple-GetSnack-v0", view_size=6)


# ---- observations and attributes RL code reads ---------------------------------------------------------


def test_subgoal_codes_follow_the_mission_and_minigrid_attributes_exist():
    env = gym.make("Marple-GetSnack-v0")
    obs, _ = env.reset(seed=0)
    base = env.unwrapped
    assert tuple(obs["subgoal"]) == base.mission.subgoals[0].codes
    assert base.agent_pos == tuple(base.world.state.agent_pos[0].tolist())
    assert (base.width, base.height) == obs["image"].shape[1::-1]
    assert env.spec.max_episode_steps == base.max_steps


def test_async_shared_memory_vector_env_returns_the_same_text_as_sync():
    actions = np.random.default_rng(0).integers(0, 10, size=(12, 2))
    runs = {}
    for mode in ("sync", "async"):
        envs = gym.make_vec("Marple-GetSnack-v0", num_envs=2, vectorization_mode=mode)
        obs, _ = envs.reset(seed=5)
        texts = [(tuple(obs["mission"]), tuple(obs["intent"]))]
        for a in actions:
            obs, *_ = envs.step(a)
            texts.append((tuple(obs["mission"]), tuple(obs["intent"])))
        envs.close()
        runs[mode] = texts
    assert runs["async"] == runs["sync"]
    assert runs["async"][0][0] == ("get a snack",) * 2


# ---- checkers on every id ---------------------------------------------------------------------------------


@pytest.mark.parametrize("env_id", LEVEL_IDS)
def test_every_level_passes_gymnasiums_checker(env_id):
    env = gym.make(env_id).unwrapped
    check_env(env, skip_render_check=True)
    assert env_id in type(env).__doc__


@pytest.mark.parametrize("env_id", EVERY_ID)
def test_every_id_passes_stable_baselines3_checker_through_numeric_observation(env_id):
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SB3 notes that an int16 3-D array is not an image; it is not meant to be
        kwargs = {"mission": "do_laundry"} if env_id == HOUSEHOLD_ID else {}
        sb3_check_env(NumericObservation(gym.make(env_id, **kwargs)))


# ---- the ladder and its reward ------------------------------------------------------------------------------


def _reset_with_planner(env, seed: int):
    """Reset ``env`` with ``seed``; its unwrapped env and a planner for its mission (observe each outcome)."""
    env.reset(seed=seed)
    base = env.unwrapped
    return base, HierarchicalPlanner(base.world, mission=base.mission, rng=np.random.default_rng(seed))


@pytest.mark.parametrize("env_id", LEVEL_IDS)
def test_the_planner_solves_every_level(env_id):
    env = gym.make(env_id)
    for seed in range(2):
        base, planner = _reset_with_planner(env, seed)
        terminated = truncated = False
        while not (terminated or truncated):
            _, reward, terminated, truncated, _ = env.step(planner.next_action())
            planner.observe(base.last_outcome)
        assert terminated and reward == 1.0


def _actions_to_face_a_target(env) -> int | None:
    """A plain forward search over (x, y, direction) poses: the reference for the shaping's distance map."""
    from marple_gym.evidence.egocentric import DIR_VEC
    from marple_gym.missions.feasibility import target_cells
    from marple_gym.world.assets import DOOR
    from marple_gym.world.navigation import walkable_mask
    from marple_gym.world.state import CH_FUR

    base = env.unwrapped
    state = base.world.state
    targets = set(target_cells(base.world, 0, base.progress.current))
    floor = walkable_mask(state) | (state.grid[..., CH_FUR] == DOOR)
    x, y = state.agent_pos[0].tolist()
    floor[y, x] = True
    height, width = floor.shape
    start = (x, y, int(state.agent_dir[0]))
    distance, seen = {start: 0}, {start}
    queue = [start]
    for pose in queue:
        px, py, d = pose
        dx, dy = DIR_VEC[d].tolist()
        if (px + dx, py + dy) in targets:
            return distance[pose]
        nexts = [(px, py, (d + 1) % 4), (px, py, (d - 1) % 4)]
        if 0 <= px + dx < width and 0 <= py + dy < height and floor[py + dy, px + dx]:
            nexts.append((px + dx, py + dy, d))
        for n in nexts:
            if n not in seen:
                seen.add(n)
                distance[n] = distance[pose] + 1
                queue.append(n)
    return None


@pytest.mark.parametrize("env_id", ["Marple-Put-OneRoom-v0", "Marple-Open-TwoRooms-v0", "Marple-GetSnack-Short-v0"])
def test_cached_distance_map_agrees_with_a_search_from_the_agent(env_id):
    # the planner changes hands, doors and objects, random actions wander; the map must follow every change
    env = DenseReward(gym.make(env_id))
    for seed, planned in ((0, True), (1, True), (2, False)):
        base, planner = _reset_with_planner(env, seed)
        rng = np.random.default_rng(seed)
        terminated = truncated = False
        while not (terminated or truncated):
            if not base.progress.complete:
                steps = _actions_to_face_a_target(env)
                scale = base.width + base.height
                later = len(base.mission.subgoals) - base.progress.index - 1
                distance = (scale if steps is None else min(steps, scale)) / scale
                assert env.potential() == pytest.approx(-0.5 * (later + distance))
            _, _, terminated, truncated, _ = env.step(planner.next_action() if planned else int(rng.integers(0, 7)))
            if planned:
                planner.observe(base.last_outcome)


@pytest.mark.parametrize("env_id", ["Marple-Put-OneRoom-v0", "Marple-GetSnack-Short-v0", "Marple-GetSnack-v0"])
def test_achieving_a_subgoal_never_lowers_the_potential(env_id):
    # with the distance alone the next target is farther than the one just reached, so progress was punished
    env = DenseReward(gym.make(env_id), subgoal_bonus=0.0)
    for seed in range(3):
        base, planner = _reset_with_planner(env, seed)
        terminated = truncated = False
        achieved = 0
        while not (terminated or truncated):
            before = env.potential()
            _, reward, terminated, truncated, info = env.step(planner.next_action())
            planner.observe(base.last_outcome)
            if info["achieved"] != NOT_ACHIEVED:
                achieved += 1
                after = 0.0 if terminated else env.potential()
                assert after >= before
                assert reward > 0
        assert terminated and achieved >= 1


def test_distance_shaping_is_potential_based():
    gamma = 0.9
    env = DenseReward(gym.make("Marple-GoTo-TwoRooms-v0"), subgoal_bonus=0.0, gamma=gamma)
    env.reset(seed=1)
    base = env.unwrapped
    phi0 = env.potential()
    assert phi0 <= 0
    assert phi0 == pytest.approx(-0.5 * _actions_to_face_a_target(env) / 20)
    assert _actions_to_face_a_target(env) >= steps_to_subgoal(base.world, 0, base.progress.current)
    rewards, sparse = [], []
    rng = np.random.default_rng(0)
    for _ in range(40):
        snapshot = base.get_state()
        phi = env.potential()
        _, reward, terminated, truncated, _ = env.step(int(rng.integers(0, 3)))
        sparse_reward = 1.0 if terminated else 0.0
        assert reward - sparse_reward == pytest.approx(gamma * (0.0 if terminated else env.potential()) - phi)
        rewards.append(reward)
        sparse.append(sparse_reward)
        assert snapshot is not None
        if terminated or truncated:
            break
    # the discounted shaped return differs from the sparse one by -phi(s_0) plus the discounted last potential
    discount = gamma ** np.arange(len(rewards))
    last = 0.0 if terminated else env.potential()
    assert discount @ np.array(rewards) == pytest.approx(
        discount @ np.array(sparse) - phi0 + gamma ** len(rewards) * last
    )


def test_ladder_ids_run_from_skills_to_the_ten_missions():
    ids = level_ids()
    assert ids[0] == "Marple-GoTo-OneRoom-v0" and ids[-1] == "Marple-CleanLivingRoomTable-v0"
    assert len(LEVELS) == 20 and all(i in gym.registry for i in ids)


def test_ppo_smoke_run_with_the_code_array_extractor():
    from stable_baselines3 import PPO

    from marple_agents.rl import CodeArrayExtractor

    env = NumericObservation(DenseReward(gym.make("Marple-GoTo-OneRoom-v0", view_size=5)))
    model = PPO(
        "MultiInputPolicy",
        env,
        n_steps=64,
        batch_size=32,
        n_epochs=1,
        seed=0,
        device="cpu",
        policy_kwargs={"features_extractor_class": CodeArrayExtractor},
    )
    model.learn(total_timesteps=128)
    obs, _ = env.reset(seed=0)
    action, _ = model.predict(obs, deterministic=True)
    assert env.action_space.contains(int(action))
    image_only = NumericObservation(gym.make("Marple-GoTo-OneRoom-v0"), keys=("image",))
    cnn = PPO(
        "CnnPolicy",
        image_only,
        n_steps=32,
        batch_size=32,
        n_epochs=1,
        seed=0,
        device="cpu",
        policy_kwargs={"features_extractor_class": CodeArrayExtractor},
    )
    cnn.learn(total_timesteps=32)


def test_wilson_interval_brackets_the_rate_and_stays_in_zero_one():
    from marple_agents.rl import wilson_interval

    low, high = wilson_interval(90, 100)
    assert low < 0.9 < high and high - low < 0.13
    assert wilson_interval(0, 100)[0] == 0.0 and 0.0 < wilson_interval(0, 100)[1] < 0.04
    assert wilson_interval(100, 100)[1] == pytest.approx(1.0) and wilson_interval(100, 100)[0] > 0.96
    # the plot draws rate - low and high - rate as error bars: never negative, even at 0 or all successes
    for trials in (1, 7, 100, 1000):
        for wins in (0, trials):
            low, high = wilson_interval(wins, trials)
            assert low <= wins / trials <= high
    assert wilson_interval(0, 0) == (0.0, 1.0)
    # the textbook value: 8 of 10 -> (0.490, 0.943)
    assert wilson_interval(8, 10) == pytest.approx((0.4902, 0.9433), abs=1e-3)


def test_extractor_marks_the_cells_the_subgoal_names():
    import torch
    from stable_baselines3.common.preprocessing import preprocess_obs

    from marple_agents.rl import CodeArrayExtractor

    env = NumericObservation(gym.make("Marple-PickUp-OneRoom-v0"))
    extractor = CodeArrayExtractor(env.observation_space)
    for seed in range(3):
        obs, _ = env.reset(seed=seed)
        batch = preprocess_obs({k: torch.as_tensor(v)[None] for k, v in obs.items()}, env.observation_space)
        planes = extractor._match_planes(batch["image"], batch["subgoal"])[0].numpy().astype(bool)
        _, obj, fur, room = obs["subgoal"]
        image = obs["image"]
        assert (planes[0] == (image[..., 3] == obj)).all() and planes[0].any()
        assert (planes[1] == (image[..., 1] == fur)).all() and planes[1].any()
        assert (planes[2] == (image[..., 0] == room)).all()
        assert extractor(batch).shape == (1, extractor.features_dim)


def test_extractor_embeds_only_the_near_window_and_sees_far_walls_and_targets_as_planes():
    import torch
    from stable_baselines3.common.preprocessing import preprocess_obs

    from marple_agents.rl import CodeArrayExtractor
    from marple_agents.rl.features import near_window
    from marple_gym.world.assets import WALL

    env = NumericObservation(gym.make("Marple-PickUp-OneRoom-v0", view_size=15, see_through_walls=True))
    torch.manual_seed(0)
    extractor = CodeArrayExtractor(env.observation_space, near_size=7)
    obs, _ = env.reset(seed=0)
    assert near_window(15, 15, 7) == (slice(8, 15), slice(4, 11))

    def features(image):
        batch = preprocess_obs(
            {**{k: torch.as_tensor(v)[None] for k, v in obs.items()}, "image": torch.as_tensor(image)[None]},
            env.observation_space,
        )
        with torch.no_grad():
            return extractor(batch)[0]

    base = features(obs["image"])
    far_state = obs["image"].copy()
    far_state[0, 0, 2] += 1  # a far cell's furniture state: neither a wall, a door nor a target
    assert torch.allclose(features(far_state), base)
    far_wall = obs["image"].copy()
    far_wall[0, 0, 1] = WALL if obs["image"][0, 0, 1] != WALL else 0
    assert not torch.allclose(features(far_wall), base)
    near_room = obs["image"].copy()
    near_room[12, 7, 0] = 9  # a room code next to the agent is embedded
    assert not torch.allclose(features(near_room), base)
    with pytest.raises(ValueError, match="near_size"):
        CodeArrayExtractor(env.observation_space, near_size=8)


def test_target_offsets_point_at_the_subgoals_object_and_furniture_in_its_room_from_the_agent():
    import torch

    from marple_agents.rl.features import target_offsets

    planes = torch.zeros(2, 3, 5, 5)  # object, furniture and room match planes of a 5 x 5 egocentric view
    planes[:, 2, :, 2:] = 1  # the subgoal's room: the middle column and the right half
    planes[0, 1, 0, 4] = 1  # its furniture, four rows ahead and two columns right of the agent (row 4, column 2)
    planes[0, 1, 0, 0] = 1  # the same furniture in another room: not a target
    planes[0, 0, 4, 2] = 1  # its object, under the agent
    offsets = target_offsets(planes)
    assert torch.allclose(offsets[0], torch.tensor([1.0, 0.0, 0.0, 1.0, 0.8, 0.4]))
    assert torch.equal(offsets[1], torch.zeros(6))  # nothing in view: absent, no offset


def test_make_ppo_gives_a_house_wide_view_two_streams():
    from marple_agents.rl import make_ppo

    model = make_ppo(
        "Marple-GoTo-TwoRooms-v0", n_envs=2, view_size=25, see_through_walls=True, n_steps=16, batch_size=16, n_epochs=1
    )
    extractor = model.policy.features_extractor
    assert extractor.far is not None and model.observation_space["image"].shape == (25, 25, 8)
    model.learn(32)


BENCH_RL = ROOT / "bench" / "bench_rl.py"


def test_bench_rl_refuses_to_resume_from_a_corrupt_results_file_and_keeps_it(tmp_path):
    results = tmp_path / "results.json"
    for text, reason in (("{bad", "malformed JSON"), ('{"a": 1}', "not a bench_rl results file")):
        results.write_text(text)
        run = subprocess.run(
            [sys.executable, str(BENCH_RL), "--envs", "Marple-GoTo-OneRoom-v0", "--resume", "--out", str(tmp_path)],
            capture_output=True,
            text=True,
        )
        assert run.returncode == 2 and reason in run.stderr and str(results) in run.stderr
        assert results.read_text() == text


def test_bench_rl_trains_and_scores_a_house_wide_view(tmp_path):
    bench = load_bench("bench_rl")
    entry = bench.run_one(
        "Marple-GoTo-TwoRooms-v0",
        steps=1024,
        seed=0,
        every=512,
        dense=True,
        episodes=2,
        view_size=25,
        see_through_walls=True,
        overrides={"n_epochs": 1},
    )
    assert entry["view"] == 25 and entry["see_through_walls"] is True and entry["ppo"]["n_epochs"] == 1
    assert entry["trained_steps"] >= 1024 and entry["curve"]
    for name in ("greedy", "stochastic", "random"):
        assert entry[name]["episodes"] == 2 and 0.0 <= entry[name]["success"] <= 1.0


def test_make_ppo_shapes_with_the_learners_discount():
    from marple_agents.rl import make_ppo

    for gamma in (0.99, 0.9):
        model = make_ppo("Marple-GoTo-OneRoom-v0", n_envs=1, gamma=gamma)
        assert model.gamma == _shaping(model.get_env().envs[0]).gamma == gamma


def _shaping(env: gym.Env) -> DenseReward:
    while not isinstance(env, DenseReward):
        env = env.env
    return env


def test_make_ppo_trains_a_mission_beside_the_skill_levels_with_its_own_episode_limit_and_bonus():
    from marple_agents.rl import SKILL_COMPANIONS, make_ppo, mixture_ids, target_envs

    model = make_ppo(
        "Marple-GetSnack-v0", n_envs=6, companions=SKILL_COMPANIONS, max_episode_steps=150, subgoal_bonus=1.0
    )
    envs = model.get_env().envs
    ids = [env.unwrapped.spec.id for env in envs]
    assert ids == ["Marple-GetSnack-v0"] * 3 + list(SKILL_COMPANIONS[:3])
    assert ids == mixture_ids("Marple-GetSnack-v0", 6, SKILL_COMPANIONS)
    assert target_envs("Marple-GetSnack-v0", 6, SKILL_COMPANIONS) == [0, 1, 2]
    assert [env.spec.max_episode_steps for env in envs[:3]] == [150] * 3
    assert envs[3].spec.max_episode_steps != 150  # companions keep their level's limit
    assert all(_shaping(env).subgoal_bonus == 1.0 for env in envs)
    # without companions every env is the mission, at its own limit
    assert mixture_ids("Marple-GetSnack-v0", 4) == ["Marple-GetSnack-v0"] * 4
    with pytest.raises(ValueError, match="Marple-Nope-v0"):
        mixture_ids("Marple-GetSnack-v0", 4, ["Marple-Nope-v0"])
    with pytest.raises(ValueError, match="at least 2 envs"):
        mixture_ids("Marple-GetSnack-v0", 1, SKILL_COMPANIONS)


def test_success_tracker_counts_only_the_envs_it_is_given():
    from marple_agents.rl import SuccessTracker

    tracker = SuccessTracker(every=2, envs=[0])
    tracker.num_timesteps = 0
    truncated, done = {"TimeLimit.truncated": True}, {}
    for infos in ([done, truncated], [truncated, done]):  # env 0 succeeds, then is cut; env 1 the other way
        tracker.num_timesteps += 2
        tracker.locals = {"dones": [True, True], "infos": infos}
        tracker._on_step()
    assert [(rate, n) for _, rate, n in tracker.history] == [(1.0, 1), (0.0, 1)]


def run_sb3_example(tmp_path: Path, *args: str) -> tuple[dict, str]:
    """The example's JSON summary, and what it printed before it."""
    example = ROOT / "examples" / "sb3_ppo.py"
    run = subprocess.run([sys.executable, str(example), *args], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    start = run.stdout.index("{\n")
    return json.loads(run.stdout[start:]), run.stdout[:start]


def test_the_sb3_example_refuses_an_unknown_env_in_one_line_naming_the_nearest(tmp_path):
    example = ROOT / "examples" / "sb3_ppo.py"
    run = subprocess.run(
        [sys.executable, str(example), "--env", "Marple-GoTo-OneRom-v0"], cwd=tmp_path, capture_output=True, text=True
    )
    assert run.returncode == 2 and "Traceback" not in run.stderr and not list(tmp_path.iterdir())
    error = run.stderr.splitlines()[-1]
    assert error.startswith("sb3_ppo.py: error: argument --env: unknown environment 'Marple-GoTo-OneRom-v0'")
    assert "did you mean Marple-GoTo-OneRoom-v0" in error and "marple envs --all" in error


def test_the_saved_stack_of_the_mission_recipe_is_the_env_make_ppo_trains_on():
    from marple_agents.rl import MISSION_RECIPE, EnvStack, make_ppo

    stack = EnvStack.of("Marple-GetSnack-v0", **MISSION_RECIPE)
    assert (stack.view_size, stack.see_through_walls, stack.subgoal_bonus) == (39, True, 1.0)
    model = make_ppo("Marple-GetSnack-v0", n_envs=2, **MISSION_RECIPE)
    env = stack.make()
    assert env.observation_space == model.observation_space == model.env.envs[0].observation_space
    assert isinstance(env.unwrapped, type(model.env.envs[0].unwrapped))


def test_a_saved_ppo_policy_reloads_with_its_wrapper_stack_and_plays_as_before(tmp_path):
    from marple_agents.rl import episode_outcomes, greedy_actions, load_ppo

    summary, printed = run_sb3_example(
        tmp_path, "--env", "Marple-GoTo-OneRoom-v0", "--steps", "1", "--seed", "3", "--episodes", "2", "--out", "p"
    )
    assert summary["seed"] == 3 and summary["steps"] == 16 * 64  # one rollout of 16 envs
    model, env = load_ppo(tmp_path / "p")
    assert env.observation_space == model.observation_space
    evaluation = summary["evaluation"]
    outcomes = episode_outcomes(env, greedy_actions(model), evaluation["episodes"], evaluation["first_seed"])
    greedy = evaluation["greedy"]
    assert sum(done for done, _ in outcomes) / len(outcomes) == greedy["success"]
    assert sum(n for _, n in outcomes) / len(outcomes) == greedy["subgoals_per_episode"]
    random = evaluation["random"]  # uniformly random actions on the same episodes, printed beside the policy's
    assert random["interval"][0] <= random["success"] <= random["interval"][1]
    low, high = random["interval"]
    assert f"random actions  {random['success']:.2f} [{low:.2f}, {high:.2f}]" in printed


def test_a_damaged_saved_policy_is_refused_naming_the_field(tmp_path):
    from marple_agents.checkpoints import CheckpointError
    from marple_agents.rl import EnvStack, load_ppo

    (tmp_path / "policy.json").write_text(
        json.dumps(
            {"format": "marple-ppo", "version": 1, "env": {**vars(EnvStack("Marple-GoTo-OneRoom-v0")), "dense": 1}}
        )
    )
    with pytest.raises(CheckpointError, match=r"policy.json: env.dense: expected true or false, got 1"):
        load_ppo(tmp_path)
    (tmp_path / "policy.json").write_text(json.dumps({"format": "marple-ppo", "version": 1, "env": {"env_id": "x"}}))
    with pytest.raises(CheckpointError, match=r"env.view_size: missing"):
        load_ppo(tmp_path)


def test_bench_rl_refuses_out_of_range_training_options_before_training(tmp_path):
    for option, value in (("--train-max-steps", "0"), ("--subgoal-bonus", "-1"), ("--stop-at", "2")):
        run = subprocess.run(
            [
                sys.executable,
                str(BENCH_RL),
                "--envs",
                "Marple-GetSnack-v0",
                option,
                value,
                "--out",
                str(tmp_path / "o"),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 2 and option in run.stderr
        assert not (tmp_path / "o").exists()


def test_make_ppo_refuses_a_training_episode_limit_below_one():
    from marple_agents.rl import make_ppo

    with pytest.raises(ValueError, match="max_episode_steps must be at least 1"):
        make_ppo("Marple-GoTo-OneRoom-v0", n_envs=1, max_episode_steps=0)
