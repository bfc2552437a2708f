"""Expectation trials as a person sees them: a trial of each scenario and of AGENT's controls, drawn.

python examples/expectation_trials.py docs/images     # the pictures docs/expectations.md shows

Each picture is a whole trial (:func:`marple_gym.expectations.pictures.trial_sheet`): every episode's first frame
with the cells the onlooker saw the agent reach; the unobserved-constraints trial is also drawn step by step as an
animation. The trials are the default set's test trials of seed 0 (the keys below).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from PIL import Image

from marple_gym.expectations import TrialKey, make_trial
from marple_gym.expectations.pictures import trial_animation, trial_sheet
from marple_gym.rendering.animation import save_animation

PICTURES = {
    "goal_preferences": TrialKey("goal_preferences", "1.1", "test", 0),
    "action_efficiency": TrialKey("action_efficiency", "2.1", "test", 0),
    "action_efficiency-couple": TrialKey("action_efficiency", "2.1", "test", 1),
    "through_the_chairs": TrialKey("action_efficiency", "2.5", "test", 0),
    "unobserved_constraints": TrialKey("unobserved_constraints", "3.1", "test", 0),
    "unobserved_constraints-couple": TrialKey("unobserved_constraints", "3.1", "test", 1),
    "doorway": TrialKey("unobserved_constraints", "3.2", "test", 2),
    "cost_reward_trade_offs": TrialKey("cost_reward_trade_offs", "4.2", "test", 0),
}
"""Picture name (``expectations-<name>.png``) -> the trial it shows."""
ANIMATED = ("unobserved_constraints",)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="where the pictures go")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for name, key in PICTURES.items():
        trial = make_trial(key, args.seed)
        path = args.folder / f"expectations-{name}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        Image.fromarray(trial_sheet(trial)).save(path)
        print(path)
        if name in ANIMATED:
            print(save_animation(trial_animation(trial), path.with_suffix(".gif"), fps=4.0))


if __name__ == "__main__":
    main()
