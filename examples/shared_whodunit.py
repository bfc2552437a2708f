"""One three-suspect whodunit in a shared house, drawn at the start, half-way and when the culprit acts.

    python examples/shared_whodunit.py --scenario sandwich-3-shared --out docs/images/shared_whodunit.png

Generates one test group (a house, three suspects acting at once) and draws the
whole house at tau = 0, T/2 and T with each suspect's intent under the
picture; the header asks the question and names the culprit (the first to
produce the query state). Needs the ``eval`` extra for the pictures.
"""

from __future__ import annotations

import argparse
import tempfile

from PIL import Image

from marple_gym.datasets.dataset import MarpleDataset
from marple_gym.datasets.generate import generate_dataset
from marple_gym.datasets.spec import DatasetSpec, Sizes, Unit
from marple_gym.multiagent import SharedEpisode
from marple_gym.rendering.compose import Panel, compose
from marple_gym.rendering.frames import render_frame


def draw(scenario: str, seed: int, out: str) -> None:
    with tempfile.TemporaryDirectory() as root:
        spec = DatasetSpec([Unit.scenario(scenario)], Sizes(1, 1, 1, 1), seed=seed, splits=("test",))
        generate_dataset(spec, root, workers=1, progress=False)
        (episode,) = MarpleDataset(root).whodunit(spec.units[0].name)
    trajectories = episode.trajectories
    shared = SharedEpisode(trajectories[0].house, trajectories[0].house_id, seed, trajectories)
    names = [t.agent for t in trajectories]
    panels = []
    for tau in (0, episode.horizon // 2, episode.horizon):
        world = shared.world_at(tau)
        intents = [f"{name}: {t.intent(tau)}" for name, t in zip(names, trajectories)]
        panels.append(Panel(render_frame(world, tile_size=24), f"step {tau}", caption=intents))
    culprit = names[episode.culprit]
    missions = ", ".join(f"{n} {t.missions[0]}" for n, t in zip(names, trajectories))
    header = [
        f"{episode.question} ({missions})",
        f"the culprit: {culprit}, the first to do it, after {episode.horizon} joint steps",
    ]
    Image.fromarray(compose(panels, header)).save(out)
    print(f"{out}: {episode.episode_id}, culprit {culprit} at step {episode.horizon}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenario", default="sandwich-3-shared")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="shared_whodunit.png")
    args = parser.parse_args()
    draw(args.scenario, args.seed, args.out)


if __name__ == "__main__":
    main()
