"""Make the pictures of the README and docs/rendering.md.

    python examples/make_readme_pictures.py [--out docs/images]

* ``house.png``: one house mid-episode (an agent carrying a pillow and the
  remote just turned the television on);
* ``whodunit.png``: a whodunit pair side by side, as the human study and
  ``marple replay`` show it, with intents and sounds;
* ``legend.png``: every furniture type in each state, every object, agents and doors.

Everything is seeded, so the pictures only change when the drawing code does.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image

from marple.viewers.replays import PANEL_COLORS, TrajectoryView, pair_frame
from marple_gym.datasets import DatasetSpec, MarpleDataset, Sizes, Unit, generate_dataset
from marple_gym.datasets.replay_sources import planner_trajectory
from marple_gym.rendering import render_grid
from marple_gym.rendering.legend import legend_image
from marple_gym.world.actions import Action
from marple_gym.world.assets import ASSETS


def house_picture(tile_size: int = 32) -> np.ndarray:
    """The step at which an agent holding pillow and remote has just turned the television on."""
    trajectory = planner_trajectory("watch_movie_cozily", seed=3)
    house = trajectory.initial_world().house
    tv = ASSETS.furniture_code["television"]
    t = next(
        step + 1
        for step, (action, (success, fur, _, _)) in enumerate(zip(trajectory.actions, trajectory.outcomes.tolist()))
        if action == Action.toggle and success and house.fur_type[fur] == tv
    )
    return render_grid(trajectory.vision[t], house, tile_size, hands=[trajectory.carrying[t]])


def whodunit_picture(tile_size: int = 24) -> np.ndarray:
    """A laundry pair a few steps after the culprit picked up the clothes."""
    with tempfile.TemporaryDirectory() as root:
        spec = DatasetSpec([Unit.scenario("laundry")], Sizes(1, 2, 1, 1), seed=2, splits=("test",))
        generate_dataset(spec, root, workers=1, progress=False)
        episode = list(MarpleDataset(root).whodunit("laundry"))[1]
        views = [TrajectoryView(tr, tile_size, c) for tr, c in zip(episode.trajectories, PANEL_COLORS)]
        culprit = episode.trajectories[episode.culprit]
        t = min(int(np.flatnonzero(culprit.carrying[:, 0])[0]) + 3, episode.horizon)
        return pair_frame(views, t, episode.horizon, episode.question, language=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="docs/images", help="output directory (default: docs/images)")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, image in (("house", house_picture()), ("whodunit", whodunit_picture()), ("legend", legend_image(40))):
        path = out / f"{name}.png"
        Image.fromarray(image).save(path, optimize=True)
        print(f"wrote {path} ({image.shape[1]} x {image.shape[0]})")


if __name__ == "__main__":
    main()
