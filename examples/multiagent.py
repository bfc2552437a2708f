"""Many agents in one house: the PettingZoo env with random agents, then three planners sharing a house.

    python examples/multiagent.py                        # prints both episodes
    python examples/multiagent.py --picture shared.png   # and draws a step of the planners' episode

Needs the ``multiagent`` extra (``pip install -e ".[multiagent]"``).
"""

from __future__ import annotations

import argparse

import numpy as np

from marple_gym.multiagent import generate_shared_episode, parallel_env
from marple_gym.rendering.frames import render_frame
from marple_gym.world.assets import ASSETS

MISSIONS = ["do_laundry", "change_outfit", "get_snack"]


def random_agents(seed: int) -> None:
    """Three random agents in the PettingZoo Parallel API until every one is done or out of time."""
    env = parallel_env(missions=MISSIONS, max_steps=200)
    observations, infos = env.reset(seed=seed)
    for agent in env.agents:
        print(f"{agent}: {observations[agent]['mission']!r}, {observations[agent]['intent']!r}")
    returns = dict.fromkeys(env.possible_agents, 0.0)
    while env.agents:
        actions = {agent: env.action_space(agent).sample() for agent in env.agents}
        observations, rewards, terminations, truncations, infos = env.step(actions)
        for agent, reward in rewards.items():
            returns[agent] += reward
    print(f"random agents after {env.episode.step_count} joint steps: returns {returns}")


def planners(seed: int, picture: str | None) -> None:
    """Three hierarchical planners in one house, every agent's actions and evidence in one record."""
    episode = generate_shared_episode(None, [{m: 1.0} for m in MISSIONS], np.random.default_rng(seed))
    print(episode)
    for trajectory in episode.trajectories:
        print(f"  {trajectory.agent}: missions {list(trajectory.missions)}, query states {trajectory.query_steps}")
    for mission in MISSIONS:
        first = episode.first_to(mission)
        if first is not None:
            agent, step = first
            print(f"  the first to {mission}'s query state: {episode.agents[agent]} after {step} joint steps")
    if picture:
        # The step at which the most agents hold something: the picture shows who carries what.
        held = [sum(int(t.carrying[s, 0] > 0) for t in episode.trajectories) for s in range(episode.length + 1)]
        step = int(np.argmax(held))
        world = episode.world_at(step)
        from PIL import Image

        Image.fromarray(render_frame(world, tile_size=32)).save(picture)
        hands = {
            name: [ASSETS.object_names[world.house.obj_type[o]] for o in held if o >= 0]
            for name, held in zip(world.house.agent_names, world.state.carrying.tolist())
        }
        print(f"  drew joint step {step} to {picture}: {hands}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--picture", help="write a PNG of the planners' episode here")
    args = parser.parse_args()
    random_agents(args.seed)
    planners(args.seed, args.picture)


if __name__ == "__main__":
    main()
