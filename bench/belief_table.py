"""The belief family's full table on one set: the shortcut panel, the answer key and every method, per type.

    python bench/belief_table.py --out runs/belief-table                 # the default set (seed 0)
    python bench/belief_table.py --out runs/belief-table-s1 --seed 1     # another seed's set
    python bench/belief_table.py --out runs/quick --houses 2 --episodes 8 --train-episodes 40 --steps 30

Generates the set (:func:`marple_gym.beliefs.questions.generate_question_set`), runs the shortcut panel on it
and records its verdict beside the manifest (:func:`marple_eval.beliefs.panel.check_set`), trains ``bip``'s
belief policy once per training seed (torch on one thread), scores the answer key (the exact observer),
chance, ``bip`` (from what a model can read) and ``bip`` given the generator's priors (privileged) on the
test split, and writes ``OUT/table.md``: the panel per type with n and 95 % intervals and its verdict, the
methods per type (``bip``'s over its seeds with the two-way bootstrap over seeds and questions, and each seed's
figure), and the CPU seconds of every stage (this process and its workers). Every stage resumes: the set from
its manifest, a trained policy, a method's scored answers (``OUT/results/``).
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path

import torch

from marple_agents.beliefs import BeliefBip, BeliefBipPrivileged, train_belief_policy
from marple_eval.beliefs.methods import BeliefObserver, BeliefUniform
from marple_eval.beliefs.panel import check_set, format_verdict
from marple_eval.beliefs.scoring import format_table, score, score_seeds
from marple_gym.beliefs.questions import QuestionSpec, generate_question_set, read_question_set
from marple_gym.beliefs.questions.sets import read_training_episodes

STEPS = 600
"""Optimizer steps of each training of bip's policy."""


def cpu_seconds() -> float:
    """CPU seconds of this process and its finished children so far."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class Stages:
    """CPU and wall seconds of each stage, in order."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, float, float]] = []

    def run(self, name: str, work):
        cpu, wall = cpu_seconds(), time.perf_counter()
        out = work()
        self.rows.append((name, cpu_seconds() - cpu, time.perf_counter() - wall))
        print(f"{name}: {self.rows[-1][1]:.0f} CPU s ({self.rows[-1][2]:.0f} s wall)", flush=True)
        return out

    def table(self) -> str:
        lines = ["| stage | CPU s | wall s |", "| --- | --- | --- |"]
        lines += [f"| {name} | {cpu:.0f} | {wall:.0f} |" for name, cpu, wall in self.rows]
        total_cpu, total_wall = sum(r[1] for r in self.rows), sum(r[2] for r in self.rows)
        return "\n".join(lines + [f"| all | {total_cpu:.0f} | {total_wall:.0f} |"])


def answers_of(method, questions, path: Path) -> list[tuple[float, float]]:
    """A method's answers, kept in ``path`` once worked out."""
    if path.is_file():
        return [tuple(a) for a in json.loads(path.read_text())]
    answers = method.answer_all(questions)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([list(a) for a in answers]))
    return answers


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="runs/belief-table")
    parser.add_argument("--seed", type=int, default=0, help="the set's seed")
    parser.add_argument("--houses", type=int, default=None, help="test houses (default: the spec's)")
    parser.add_argument("--episodes", type=int, default=None, help="episodes per test house (default: the spec's)")
    parser.add_argument("--train-episodes", type=int, default=None, help="training episodes (default: the spec's)")
    parser.add_argument("--seeds", type=int, default=3, help="bip's training seeds")
    parser.add_argument("--steps", type=int, default=STEPS, help="optimizer steps of each bip training")
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args(argv)
    if args.seeds < 1 or args.steps < 1:
        parser.error("--seeds and --steps must be at least 1")
    torch.set_num_threads(1)
    root = Path(args.out)
    sizes = {"test_houses": args.houses, "episodes_per_house": args.episodes, "train_episodes": args.train_episodes}
    spec = QuestionSpec(seed=args.seed, **{k: v for k, v in sizes.items() if v is not None})
    stages = Stages()
    data = root / "data"
    stages.run("generation", lambda: generate_question_set(spec, data, workers=args.workers, progress=False))
    verdict = stages.run("shortcut panel (classifier trained on the training split)", lambda: check_set(data))
    questions = read_question_set(data, "test")
    episodes = read_training_episodes(data)
    policies = []
    for s in range(args.seeds):
        folder = root / "models" / f"seed-{s}"
        if not (folder / "belief-policy.pt").is_file():
            stages.run(f"bip training, seed {s} ({args.steps} steps)",
                       lambda folder=folder, s=s: train_belief_policy(episodes, folder, max_steps=args.steps, seed=s))  # fmt: skip
        policies.append(folder / "belief-policy.pt")
    results = root / "results"
    observer = stages.run(
        "scoring the answer key", lambda: answers_of(BeliefObserver(), questions, results / "observer.json")
    )
    methods = {
        BeliefObserver.label: score(questions, observer),
        "chance (uniform)": score(questions, BeliefUniform().answer_all(questions)),
    }
    for cls in (BeliefBip, BeliefBipPrivileged):
        label = getattr(cls, "label", cls.name)
        answers = [
            stages.run(
                f"scoring {cls.name}, seed {s}",
                lambda cls=cls, s=s, p=p: answers_of(cls(p), questions, results / f"{cls.name}-seed-{s}.json"),
            )  # fmt: skip
            for s, p in enumerate(policies)
        ]
        methods[f"{label}, {len(policies)} seeds"] = score_seeds(questions, answers)
    per_seed = "\n".join(
        f"- {name}: " + "; ".join(
            f"{kind} " + ", ".join(f"{a:.2f}" for a in group["per_seed"])
            for kind, group in result.items() if "per_seed" in group
        )
        for name, result in methods.items() if any("per_seed" in g for g in result.values())
    )  # fmt: skip
    text = "\n\n".join([
        f"Set: seed {spec.seed}, {spec.test_houses} test houses x {spec.episodes_per_house} episodes, "
        f"{spec.train_episodes} training episodes; {len(questions)} test questions.",
        "## Shortcut panel\n\n" + format_table(verdict["scores"]) + "\n\n" + format_verdict(verdict),
        "## Methods\n\n" + format_table(methods),
        "Each seed's accuracy:\n\n" + per_seed,
        "## Stages\n\n" + stages.table(),
    ])  # fmt: skip
    (root / "table.md").write_text(text + "\n")
    print(text)
    return text


if __name__ == "__main__":
    main()
