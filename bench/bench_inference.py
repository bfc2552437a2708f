"""Simulation inference speed: batched rollout steps per second and wall time per trial.

    python bench/bench_inference.py                          # laundry, vision variant, 50 trials, m = 100
    python bench/bench_inference.py --trials 10 --rollouts 20
    python bench/bench_inference.py --variant all            # language-conditioned models + audio
    python bench/bench_inference.py --models 'runs/benchmark-small/models/{scenario}/in/{role}-{model}/policy.pt'

Steps: generate a test split of 10 houses x 5 whodunit pairs and a train-in
split in the same houses (skipped when present); train the two agents' small
policies (``--train-minutes`` each; skipped when present, or taken from
``--models``); measure the lockstep rollouts on a sample of (trial, tau) points
(world steps per second, policy forward passes per second, the share of time
spent in the policy); then time a full evaluation of one variant with the
protocol (all evidence points, all cores). The paper reports 1.5 GPU-hours per
trial for its simulation inference; the ratio below is against that.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path

import numpy as np

from marple.runner import method_factory
from marple_agents import load_policy, train_policy
from marple_agents.device import resolve_device
from marple_agents.simulation import PolicyAgent, RolloutAgent, SimulationMethod
from marple_agents.simulation.inference import POLICY_OF_VARIANT, VARIANTS
from marple_agents.training.train import quiet_lightning
from marple_eval import ProtocolSettings, dataset_episodes, evaluate
from marple_eval.evidence import trial_evidence
from marple_eval.metrics import evidence_needed
from marple_eval.protocol import AgentResources
from marple_gym.datasets import DatasetSpec, MarpleDataset, Sizes, Unit, generate_dataset

PAPER_SECONDS_PER_TRIAL = 1.5 * 3600


class Counting(RolloutAgent):
    """Counts the world steps and batched calls of the agent model it wraps."""

    def __init__(self, inner: RolloutAgent) -> None:
        self.inner = inner
        self.groups_starts = inner.groups_starts
        self.steps = 0
        self.calls = 0

    def reset(self, worlds, evidence, rng) -> None:
        self.inner.reset(worlds, evidence, rng)

    def reset_groups(self, worlds, evidences, rngs) -> None:
        self.inner.reset_groups(worlds, evidences, rngs)

    def act(self, active, rng):
        self.steps += len(active)
        self.calls += 1
        return self.inner.act(active, rng)

    def observe(self, active, outcomes) -> None:
        self.inner.observe(active, outcomes)


class TimedPolicy:
    """A policy whose forward passes are timed."""

    def __init__(self, policy) -> None:
        self.policy = policy
        self.conditioning = policy.conditioning
        self.seconds = 0.0

    def _timed(self, method, *args):
        start = time.perf_counter()
        out = method(*args)
        self.seconds += time.perf_counter() - start
        return out

    def action_probs(self, vision, subgoal=None):
        return self._timed(self.policy.action_probs, vision, subgoal)

    def subgoal_probs(self, vision):
        return self._timed(self.policy.subgoal_probs, vision)


def prepare(args: argparse.Namespace) -> tuple[MarpleDataset, str]:
    """The dataset and a checkpoint template with {scenario} and {role} (training what is missing)."""
    data_root = args.out / "data"
    spec = DatasetSpec(
        [Unit.scenario(args.scenario)], Sizes(10, 5, args.train_per_house, 1), seed=0, splits=("test", "train-in")
    )
    generate_dataset(spec, data_root, workers=os.cpu_count(), progress=not args.no_progress)
    kind = POLICY_OF_VARIANT[args.variant]
    if args.models:
        return MarpleDataset(data_root), args.models.replace("{model}", kind)
    template = str(args.out / "models" / "{scenario}" / f"{{role}}-{kind}" / "policy.pt")
    for role in "AB":
        path = Path(template.format(scenario=args.scenario, role=role))
        if not path.is_file():
            result = train_policy(
                data_root,
                unit=args.scenario,
                role=role,
                model=kind,
                out_dir=path.parent,
                max_minutes=args.train_minutes,
                holdout="episodes",  # in distribution: trained in the test houses, as in marple benchmark
                progress=not args.no_progress,
            )
            print(f"trained {role}-{kind}: held-out accuracy {result.val_accuracy:.3f} in {result.train_seconds:.0f} s")
    return MarpleDataset(data_root), template


def rollout_throughput(episodes, template: str, args: argparse.Namespace) -> dict:
    """World steps and policy calls per second of lockstep rollouts, in this process (one core).

    The simulation model itself answers each (trial, tau), so the rollouts are
    exactly those an evaluation runs (its horizon rules included).
    """
    model = SimulationMethod(args.variant, rollouts=args.rollouts, seed=0)
    policies = {r: TimedPolicy(load_policy(template.format(scenario=args.scenario, role=r))) for r in "AB"}
    language, audio = "language" in model.modalities, "audio" in model.modalities
    agents = {r: Counting(PolicyAgent(policies[r], use_language=language, use_audio=audio)) for r in "AB"}
    model.setup(agents)
    start, start_cpu = time.perf_counter(), time.process_time()
    for episode in episodes[: args.sample_trials]:
        taus = episode.evidence_steps(11)
        model.predict_all([trial_evidence(episode, tau, False, model.modalities, ("A", "B")) for tau in taus])
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - start_cpu
    steps, calls = sum(a.steps for a in agents.values()), sum(a.calls for a in agents.values())
    policy_seconds = sum(p.seconds for p in policies.values())
    return {
        "world_steps": steps,
        "policy_calls": calls,
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "steps_per_second": steps / seconds,
        "calls_per_second": calls / seconds,
        "mean_batch": steps / max(1, calls),
        "policy_share": policy_seconds / seconds,
    }


def cpu_seconds() -> float:
    """CPU seconds of this process and of its finished worker processes (on a shared machine, steadier than wall
    time)."""
    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


def full_evaluation(episodes, template: str, args: argparse.Namespace) -> dict:
    factory = method_factory(
        "simulation", variant=args.variant, rollouts=args.rollouts, seed=0, device=resolve_device("auto")
    )
    start, start_cpu = time.perf_counter(), cpu_seconds()
    run = evaluate(
        factory,
        episodes,
        ProtocolSettings(seed=0),
        resources=AgentResources({"A": template, "B": template}),
        workers=args.workers,
        progress=not args.no_progress,
    )
    seconds, cpu = time.perf_counter() - start, cpu_seconds() - start_cpu
    accuracy = np.mean([t.p_culprit for t in run.trials], axis=0)
    return {
        "trials": len(run.trials),
        "seconds": seconds,
        "seconds_per_trial": seconds / len(run.trials),
        "cpu_seconds": cpu,
        "speedup_vs_paper": PAPER_SECONDS_PER_TRIAL / (seconds / len(run.trials)),
        "accuracy_per_tau": np.round(accuracy, 3).tolist(),
        "evidence_needed_for_0.8": evidence_needed(accuracy),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenario", default="laundry")
    parser.add_argument("--variant", default="vision", choices=tuple(VARIANTS))
    parser.add_argument("--trials", type=int, default=50, help="trials of the full evaluation (default: 50)")
    parser.add_argument("--rollouts", type=int, default=100, help="rollouts per agent and tau (default: 100)")
    parser.add_argument("--sample-trials", type=int, default=3, help="trials of the throughput sample (default: 3)")
    parser.add_argument("--train-per-house", type=int, default=60, help="train-in episodes per house (default: 60)")
    parser.add_argument("--train-minutes", type=float, default=2.0, help="budget per agent model (default: 2)")
    parser.add_argument("--models", default=None, help="checkpoint template with {scenario}, {role}, {model}")
    parser.add_argument("--workers", type=int, default=os.cpu_count(), help="evaluation processes (default: all)")
    parser.add_argument("--out", type=Path, default=Path("runs/bench-inference"))
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args()
    quiet_lightning(verbose=False)

    data, template = prepare(args)
    episodes = dataset_episodes(data, [args.scenario], args.trials)
    throughput = rollout_throughput(episodes, template, args)
    full = full_evaluation(episodes, template, args)
    results = {"scenario": args.scenario, "variant": args.variant, "rollouts": args.rollouts, **full}
    results["throughput"] = throughput
    (args.out / "results.json").write_text(json.dumps(results, indent=1))
    t = throughput
    print(f"{args.scenario}, {args.variant} variant, m = {args.rollouts} rollouts, {os.cpu_count()} cores")
    print(
        f"lockstep rollouts (one process, {t['seconds']:.0f} s, {t['cpu_seconds']:.0f} CPU s): "
        f"{t['steps_per_second']:,.0f} world steps/s, "
        f"{t['calls_per_second']:,.0f} policy calls/s (mean batch {t['mean_batch']:.0f}), "
        f"{100 * t['policy_share']:.0f}% of the time in the policy"
    )
    print(
        f"full evaluation: {full['trials']} trials x 11 evidence points in {full['seconds']:.0f} s "
        f"({full['cpu_seconds']:.0f} CPU s) "
        f"({full['seconds_per_trial']:.1f} s per trial; the paper: {PAPER_SECONDS_PER_TRIAL:.0f} s per trial, "
        f"{full['speedup_vs_paper']:,.0f}x)"
    )
    print(f"accuracy per tau: {full['accuracy_per_tau']}; evidence for 0.8: {full['evidence_needed_for_0.8']}")


if __name__ == "__main__":
    main()
