"""bf16 autocast against fp32 on trained agent models: how far their action probabilities move.

    python bench/bench_precision.py runs/benchmark-small       # every agent model of a finished benchmark folder

For every ``policy.pt`` under ``RUN/models``, the states of its scenario's
``train-in`` split for its role go through the policy in fp32 and under bf16
autocast on this machine's CPU (a GPU runs the same autocast by default). It
prints, per model and over all, the largest difference in any action
probability, the mean difference and the share of states whose most likely
action agrees. The figure-level effect is measured by scoring a benchmark
twice (``marple benchmark --precision fp32`` and ``--precision bf16``, see
docs/gpu.md).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from marple_agents.policy import load_policy
from marple_gym.datasets import MarpleDataset


def agreement(policy_file: Path, data: MarpleDataset, scenario: str, role: str) -> dict:
    """fp32 against bf16 answers of one agent model on its scenario's train-in states."""
    samples = data.samples(scenario, "train-in", role=role)
    policies = {p: load_policy(policy_file, "cpu", p) for p in ("fp32", "bf16")}
    language = policies["fp32"].config.conditioning == "language"
    subgoal = samples.subgoal if language else None
    fp32, bf16 = (policies[p].action_probs(samples.vision, subgoal) for p in ("fp32", "bf16"))
    gap = np.abs(fp32 - bf16)
    return {
        "states": len(fp32),
        "max_difference": float(gap.max()),
        "mean_difference": float(gap.mean()),
        "argmax_agrees": float((fp32.argmax(axis=1) == bf16.argmax(axis=1)).mean()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", type=Path, help="a finished marple benchmark folder (its data and models)")
    args = parser.parse_args()
    data = MarpleDataset(args.run / "data")
    results = {}
    for policy_file in sorted((args.run / "models").glob("seed-*/*/*/*/policy.pt")):
        scenario, name = policy_file.parts[-4], policy_file.parts[-2]  # .../SCENARIO/SPLIT/ROLE-KIND/policy.pt
        key = str(policy_file.parent.relative_to(args.run / "models"))
        results[key] = agreement(policy_file, data, scenario, name.split("-")[0])
        print(key, json.dumps(results[key]), flush=True)
    states = sum(r["states"] for r in results.values())
    print(
        f"over {len(results)} agent models and {states:,} states: largest difference "
        f"{max(r['max_difference'] for r in results.values()):.4f}, mean "
        f"{sum(r['mean_difference'] * r['states'] for r in results.values()) / states:.5f}, most likely action "
        f"agrees on {100 * sum(r['argmax_agrees'] * r['states'] for r in results.values()) / states:.2f} %"
    )


if __name__ == "__main__":
    main()
