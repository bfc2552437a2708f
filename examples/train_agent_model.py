"""Train a small agent model, then use it: action distributions, subgoal decoders, audio refinement.

    python examples/train_agent_model.py                  # a quick 2-minute model on a small dataset
    python examples/train_agent_model.py --minutes 8      # the small preset's full budget

The same as ``marple generate ... && marple train ...`` on the command line.
"""

import argparse
from pathlib import Path

import numpy as np

from marple_agents import load_policy, refine_with_audio, train_policy
from marple_gym.datasets import DatasetSpec, MarpleDataset, Sizes, Unit, generate_dataset
from marple_gym.evidence import AUDIO

parser = argparse.ArgumentParser()
parser.add_argument("--scenario", default="laundry")
parser.add_argument("--minutes", type=float, default=2.0)
parser.add_argument("--out", type=Path, default=Path("runs/example-agent"))
args = parser.parse_args()

# 1. Data: 50 houses x 20 episodes per agent, in the houses of a train-in split.
data = args.out / "data"
generate_dataset(DatasetSpec([Unit.scenario(args.scenario)], Sizes(50, 1, 20, 1), splits=("train-in",)), data)

# 2. A language-conditioned policy of agent A, validated on held-out houses.
result = train_policy(
    data, unit=args.scenario, role="A", model="language", out_dir=args.out / "language", max_minutes=args.minutes
)
print(f"held-out accuracy {result.val_accuracy:.3f} after {result.train_seconds:.0f} s ({result.steps} steps)")

# 3. Inference: a batch of states and their subgoals in, action distributions out.
policy = load_policy(result.checkpoint, device="cpu")
samples = MarpleDataset(data).samples(args.scenario, "train-in", role="A", limit=5)
probs = policy.action_probs(samples.vision[:8], samples.subgoal[:8])
print("P(next action):", np.round(probs[0], 3), "taken:", samples.action[0])
heads = policy.subgoal_probs(samples.vision[:8])
print(
    "decoded subgoal (action, object, furniture, room):",
    [int(heads[k][0].argmax()) for k in heads],
    "true:",
    samples.subgoal[0].tolist(),
)

# 4. Audio refinement: hearing footsteps rules out every action but turning and moving.
refined = refine_with_audio(probs, np.full(len(probs), AUDIO.index["footstep"]))
print("refined by a footstep:", np.round(refined[0], 3))
