"""The PettingZoo environment: N = 1 equals the single env, per-agent views, rendering (PettingZoo's own test
utilities are in test_pettingzoo_suite.py)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
from paths import ROOT

from marple_gym.envs import MarpleEnv  # noqa: E402
from marple_gym.missions.mission import UnknownMissionError  # noqa: E402
from marple_gym.multiagent import env, parallel_env  # noqa: E402
from marple_gym.multiagent.environment import MULTIAGENT_KEYS  # noqa: E402
from marple_gym.rendering.palette import AGENT_COLORS  # noqa: E402
from marple_gym.world.state import CH_AGENT, CH_AGENT_DIR  # noqa: E402

THREE = {"missions": ["do_laundry", "change_outfit", "get_snack"], "max_steps": 80}


@pytest.mark.parametrize("mission", ["do_laundry", "watch_movie_cozily", "feed_dog"])
def test_one_agent_reproduces_the_single_env_exactly(mission):
    single = MarpleEnv(mission=mission, max_steps=150, subgoal_reward=0.1)
    multi = parallel_env(missions=[mission], max_steps=150, subgoal_reward=0.1)
    (name,) = multi.possible_agents
    rng = np.random.default_rng(0)
    for seed in (3, 4):
        obs, _ = single.reset(seed=seed)
        multi_obs, _ = multi.reset(seed=seed)
        _assert_same(obs, multi_obs[name])
        for action in rng.integers(0, 10, size=150).tolist():
            obs, reward, terminated, truncated, _ = single.step(action)
            multi_obs, rewards, terminations, truncations, _ = multi.step({name: action})
            _assert_same(obs, multi_obs[name])
            assert (reward, terminated, truncated) == (rewards[name], terminations[name], truncations[name])
            if terminated or truncated:
                assert multi.agents == []
                break


def _assert_same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for key in a:
        assert np.array_equal(a[key], b[key]), key


def test_every_agent_sees_itself_as_agent_one():
    multi = parallel_env(num_agents=4, view_size=None, **{**THREE, "missions": THREE["missions"] + ["feed_dog"]})
    observations, _ = multi.reset(seed=1)
    world = multi.world.state
    state = multi.state()
    for i, agent in enumerate(multi.possible_agents):
        image = observations[agent]["image"]
        x, y = world.agent_pos[i].tolist()
        assert image[y, x, CH_AGENT] == 1 and state[y, x, CH_AGENT] == i + 1
        assert image[y, x, CH_AGENT_DIR] == observations[agent]["direction"] + 1
        others = [tuple(p) for k, p in enumerate(world.agent_pos.tolist()) if k != i]
        assert [int(image[py, px, CH_AGENT]) for px, py in others] == [2, 3, 4]
        # Everything but the agent ids is the shared grid.
        keep = [c for c in range(8) if c != CH_AGENT]
        assert np.array_equal(image[..., keep], state[..., keep])


def test_the_egocentric_view_marks_the_agent_itself_as_agent_one():
    multi = parallel_env(missions=THREE["missions"], view_size=5)
    observations, _ = multi.reset(seed=0)
    for agent in multi.possible_agents:
        assert observations[agent]["image"][4, 2, CH_AGENT] == 1  # bottom row, middle column: the agent itself


def test_every_agent_hears_the_others():
    multi = parallel_env(missions=THREE["missions"], observation_keys=MULTIAGENT_KEYS, max_steps=50)
    observations, _ = multi.reset(seed=0)
    assert multi.observation_space(multi.possible_agents[0])["heard"].shape == (3,)
    rng = np.random.default_rng(0)
    heard_something = False
    while multi.agents:
        observations, *_ = multi.step({a: int(rng.integers(10)) for a in multi.agents})
        own = {a: int(o["audio"]) for a, o in observations.items()}
        for i, agent in enumerate(multi.possible_agents):
            if agent in observations:
                others = [
                    observations[a]["heard"][0] for k, a in enumerate(multi.possible_agents) if k != i and a in own
                ]
                assert observations[agent]["heard"][0] == own[agent]
                assert sorted(observations[agent]["heard"][1:].tolist()) == sorted(others) or len(own) < 3
                heard_something |= bool(observations[agent]["heard"][1:].any())
    assert heard_something


def test_reset_options_fix_an_agents_mission():
    multi = parallel_env(preferences=[{"do_laundry": 1.0, "get_snack": 1.0}, {"change_outfit": 1.0}])
    observations, infos = multi.reset(seed=0, options={"missions": {multi.possible_agents[0]: "get_snack"}})
    assert infos[multi.possible_agents[0]]["mission"] == "get_snack"
    with pytest.raises(ValueError, match="unknown agents"):
        multi.reset(options={"missions": {"nobody": "get_snack"}})


def test_a_finished_agent_leaves_and_idles_while_the_others_act():
    multi = parallel_env(missions=["do_laundry", "get_snack"], max_steps=5)
    multi.reset(seed=0)
    first = multi.possible_agents[0]
    multi.episode.progress[0].index = len(multi.episode.progress[0].mission.subgoals)  # as if it were done
    _, rewards, terminations, _, _ = multi.step({a: 2 for a in multi.agents})
    assert terminations[first] and rewards[first] == 1.0 and multi.agents == multi.possible_agents[1:]
    before = multi.world.state.agent_pos[0].copy()
    for _ in range(4):
        _, _, _, truncations, _ = multi.step({a: 2 for a in multi.agents})
    assert np.array_equal(multi.world.state.agent_pos[0], before)
    assert truncations == {multi.possible_agents[1]: True} and multi.agents == []


def test_the_picture_shows_every_agent_in_its_own_colour(tmp_path):
    from PIL import Image

    four = ["do_laundry", "change_outfit", "get_snack", "feed_dog"]
    multi = parallel_env(missions=four, render_mode="rgb_array", tile_size=32)
    multi.reset(seed=2)
    frame = multi.render()
    house = multi.world.house
    assert frame.shape == (house.height * 32, house.width * 32, 3)
    assert len(set(house.agent_colors)) == 4
    for (x, y), color in zip(multi.world.state.agent_pos.tolist(), house.agent_colors):
        tile = frame[y * 32 : (y + 1) * 32, x * 32 : (x + 1) * 32].reshape(-1, 3)
        assert (tile == AGENT_COLORS[color]).all(axis=1).any(), color
    Image.fromarray(frame).save(tmp_path / "four_agents.png")


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="one entry per agent"):
        parallel_env(num_agents=2, missions=["do_laundry"])
    with pytest.raises(ValueError, match="num_agents must be a positive integer"):
        parallel_env(num_agents=0)
    with pytest.raises(ValueError, match="distinct names"):
        parallel_env(agents=["a", "a"], missions=["do_laundry", "get_snack"])
    with pytest.raises(UnknownMissionError, match="did you mean 'do_laundry'"):
        parallel_env(missions=["do_laundy"])
    with pytest.raises(ValueError, match="agent agent_0: no mission"):
        parallel_env(num_agents=2)
    with pytest.raises(ValueError, match="max_steps .300. and max_cycles .200. are one setting"):
        parallel_env(max_steps=300, max_cycles=200)
    with pytest.raises(ValueError, match="must be a positive integer, got 0"):
        parallel_env(max_cycles=0)
    with pytest.raises(ValueError, match="flat=True needs a numeric observation key"):
        parallel_env(flat=True, observation_keys=("mission", "intent"))
    multi = parallel_env(num_agents=2, missions=["do_laundry", "get_snack"])
    with pytest.raises(RuntimeError, match="reset"):
        multi.step({})
    multi.reset(seed=0)
    with pytest.raises(ValueError, match="missing"):
        multi.step({multi.possible_agents[0]: 2})


@pytest.mark.parametrize("bad", [1.5, True, 1.0, "abc", None, [1], 10, -1, np.float32(2.0)])
def test_an_action_that_is_not_an_action_index_is_refused_naming_the_agent_and_changes_nothing(bad):
    multi = parallel_env(num_agents=2, missions=["do_laundry", "get_snack"])
    multi.reset(seed=0)
    first, second = multi.possible_agents
    grid, steps = multi.world.state.grid.copy(), multi.episode.step_count
    with pytest.raises((TypeError, ValueError), match=rf"{second}'s action must be an (integer )?action 0\.\.9"):
        multi.step({first: 2, second: bad})
    assert multi.episode.step_count == steps and np.array_equal(multi.world.state.grid, grid)
    multi.step({first: np.int64(2), second: np.array(1)})  # numpy integers are actions
    assert multi.episode.step_count == steps + 1


@pytest.mark.parametrize("bad", [1.5, True, "1", None, [1], 10, -1])
def test_the_aec_env_refuses_a_bad_action_at_the_step_that_gives_it_and_stays_usable(bad):
    aec = env(num_agents=2, missions=["do_laundry", "get_snack"])
    aec.reset(seed=0)
    first, second = aec.possible_agents
    with pytest.raises((TypeError, ValueError), match=rf"{first}'s action must be an (integer )?action 0\.\.9"):
        aec.step(bad)
    assert aec.agent_selection == first  # still its turn: the bad action was not taken
    steps = aec.unwrapped.episode.step_count
    for agent in (first, second, first, second):
        assert aec.agent_selection == agent
        aec.step(2)  # valid actions go on as if the bad one had never been given
    assert aec.unwrapped.episode.step_count == steps + 2


# ---- PettingZoo's conventions: defaults, max_cycles, names, a flat Box for SuperSuit and SB3 -----------------


def test_no_arguments_give_two_agents_on_the_laundry_pair_named_as_pettingzoo_names_them():
    for made in (parallel_env(), env()):
        assert made.possible_agents == ["agent_0", "agent_1"]
    multi = parallel_env()
    assert multi.roles == {"agent_0": "A", "agent_1": "B"} and multi.max_steps == 500
    _, infos = multi.reset(seed=0)
    assert {a: i["mission"] for a, i in infos.items()} == {"agent_0": "do_laundry", "agent_1": "change_outfit"}
    assert list(multi.world.house.agent_names) == ["agent_0", "agent_1"]


def test_max_cycles_truncates_every_agent_as_in_pettingzoo():
    multi = parallel_env(max_cycles=3)
    multi.reset(seed=0)
    for _ in range(3):
        *_, truncations, _ = multi.step({a: 9 for a in multi.agents})
    assert truncations == {"agent_0": True, "agent_1": True} and multi.agents == []


def test_a_config_with_named_agents_keeps_their_settings_under_pettingzoo_names():
    from marple_gym.generation.config import AgentSpec, HouseConfig

    config = HouseConfig(agents=[AgentSpec("A", mission_preferences={"get_snack": 1.0}, color="green")])
    multi = parallel_env(config=config)
    assert multi.possible_agents == ["agent_0"] and multi.roles == {"agent_0": "A"}
    assert multi.reset(seed=0)[1]["agent_0"]["mission"] == "get_snack" and list(multi.world.house.agent_colors) == [
        "green"
    ]


def test_the_flat_observation_is_the_numeric_keys_flattened():
    from gymnasium import spaces

    multi = parallel_env(flat=True, view_size=7, observation_keys=MULTIAGENT_KEYS)
    plain = parallel_env(view_size=7, observation_keys=MULTIAGENT_KEYS)
    flat_obs, _ = multi.reset(seed=1)
    obs, _ = plain.reset(seed=1)
    space = multi.observation_space("agent_0")
    assert isinstance(space, spaces.Box) and space.shape == (
        7 * 7 * 8 + 4 + 2 * 83 + 270 + (10 + 83 + 25 + 7) + 2 * 270,
    )
    numeric = {k: obs["agent_0"][k] for k in multi.numeric_space}
    assert np.array_equal(flat_obs["agent_0"], spaces.flatten(multi.numeric_space, numeric))
    back = spaces.unflatten(multi.numeric_space, flat_obs["agent_0"])
    assert all(np.array_equal(back[k], numeric[k]) for k in numeric)
    assert space.contains(flat_obs["agent_0"])  # PettingZoo's API tests of this form: test_pettingzoo_suite.py


def test_supersuits_wrappers_and_vector_envs_feed_stable_baselines3():
    ss = pytest.importorskip("supersuit")
    from stable_baselines3 import PPO

    shared = parallel_env(flat=True, view_size=5, max_cycles=20, subgoal_reward=0.1)
    shared = ss.black_death_v3(ss.pad_observations_v0(shared))
    shared = ss.frame_stack_v1(ss.dtype_v0(ss.flatten_v0(shared), np.float32), 2)
    vec = ss.concat_vec_envs_v1(ss.pettingzoo_env_to_vec_env_v1(shared), 2, num_cpus=1, base_class="stable_baselines3")
    assert vec.num_envs == 4 and vec.observation_space.shape == shared.observation_space("agent_0").shape
    vec.venv.reset(seed=0)  # SuperSuit 3.11's SB3 wrapper has no seed(): seed the envs under it
    model = PPO("MlpPolicy", vec, n_steps=16, batch_size=32, n_epochs=1, verbose=0)
    model.learn(64)
    assert model.num_timesteps == 64
    vec.close()


def test_without_the_multiagent_extra_the_import_says_how_to_install_it():
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['pettingzoo'] = None\n"
        "from marple_gym.multiagent import generate_shared_episode  # the planner side needs no PettingZoo\n"
        "from marple_gym.multiagent import parallel_env"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        'ModuleNotFoundError: marple_gym.multiagent.parallel_env needs PettingZoo: pip install "marple-gym[multiagent]"'
    )


def test_the_shared_house_ppo_example_trains_and_reports_before_and_after(tmp_path):
    import json
    import subprocess
    import sys

    pytest.importorskip("supersuit")
    example = ROOT / "examples" / "shared_house_ppo.py"
    args = ["--steps", "1", "--copies", "1", "--episodes", "1", "--out", "out"]
    run = subprocess.run([sys.executable, str(example), *args], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout)
    assert summary["agent_steps"] == 2 * 128 and summary["sub_envs"] == 2  # one rollout of both agents
    for when in ("before", "after"):
        assert summary[when]["agent_episodes"] == 2 and 0 <= summary[when]["completed"] <= 1
    assert json.loads((tmp_path / "out" / "summary.json").read_text()) == summary
    assert (tmp_path / "out" / "model.zip").is_file()


def test_the_multiagent_env_holds_one_state_the_episode_and_its_world_is_a_view_of_it():
    multi = parallel_env()
    assert multi.world is None and multi.episode is None
    multi.reset(seed=1)
    assert "world" not in vars(multi)  # nothing beside the episode to keep in step with it
    assert multi.world.state is multi.episode.world and multi.world.house is multi.house
    multi.step({a: 2 for a in multi.agents})
    assert np.array_equal(multi.state(), multi.episode.world.grid)
