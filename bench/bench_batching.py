"""How much an agent model's training step gains from a larger batch: the headroom of training many models as one.

    python bench/bench_batching.py [--models 10] [--rounds 3]

The small preset's policies (vision-only and language-conditioned) take
optimizer steps on random 20 x 20 states (the cost does not depend on what the
states show) at the preset's batch of 32 and at ``--models`` times that, one
torch thread, timed by this process's CPU time. ``models x (step at 32) /
(step at models x 32)`` is the most that training ``--models`` such models as
one batched model (each with its own batch of 32) could save on the steps'
arithmetic: a batched model's step does at least the work of one model's step
over all their rows. A ratio near 1 says the step's time is arithmetic over
the grid's cells, not a fixed cost per operation. The median of ``--rounds``
rounds, the two batch sizes interleaved, with the machine's reference rate
(``reference_rate.py``) before and after.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
from bench_train import random_samples
from reference_rate import machine_line

from marple_agents import config as settings
from marple_agents.networks import build_model
from marple_agents.training.module import decoder_loss, soft_cross_entropy

BATCH = 32
"""The small preset's batch (``marple_agents.config``)."""


def step_seconds(kind: str, batch: int, steps: int, seed: int = 0) -> float:
    """CPU seconds of one optimizer step of the small preset's ``kind`` policy at ``batch`` rows (the mean of
    ``steps`` after two unmeasured ones)."""
    torch.manual_seed(seed)
    net = build_model(settings.preset("small", kind)[0])
    optimizer = torch.optim.AdamW(net.parameters(), lr=5e-3, fused=True)
    samples = random_samples(batch, seed)
    vision = torch.from_numpy(samples.vision)
    subgoal = torch.from_numpy(samples.subgoal)
    targets = torch.nn.functional.one_hot(torch.from_numpy(samples.action), 10).float()

    def step() -> None:
        logits, decoded = net(vision, subgoal)
        loss = soft_cross_entropy(logits, targets).mean()
        if decoded is not None:
            loss = loss + decoder_loss(decoded, subgoal)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    for _ in range(2):
        step()
    start = time.process_time()
    for _ in range(steps):
        step()
    return (time.process_time() - start) / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", type=int, default=10, help="models trained as one (default: 10)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(machine_line())
    print(f"| policy | step at {BATCH} (ms) | step at {args.models} x {BATCH} (ms) | headroom |")
    print("| --- | --- | --- | --- |")
    for kind in ("vision", "language"):
        small, large = [], []
        for _ in range(args.rounds):
            small.append(step_seconds(kind, BATCH, 10 * args.models))
            large.append(step_seconds(kind, args.models * BATCH, 10))
        one, many = statistics.median(small), statistics.median(large)
        print(f"| {kind} | {1000 * one:.1f} | {1000 * many:.1f} | {args.models * one / many:.2f}x |")
    print(machine_line())


if __name__ == "__main__":
    main()
