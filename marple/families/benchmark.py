"""``marple benchmark --family beliefs|expectations``: from nothing to the table and the plot in one command.

Generate the set, train the learned method on its training split, score every method on its test split, and
write ``OUT/table.md`` (the report's Markdown tables) and ``OUT/accuracy.png`` (accuracy per type with
intervals and the chance line). Every stage resumes: the set from its manifest, a trained model kept, a
method's finished results kept and an interrupted one resumed from its journal.

Sizes: ``small`` is the default set (beliefs: 10 test houses x 20 episodes, at least 50 questions of every
type, 500 training episodes, bip's policy 1500 steps; expectations: 40 test pairs, 160 training and 40
validation trials of each of the 12 types, ToMnet 8 epochs); ``quick`` a tiny one that checks the pipeline in
a minute or two.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from marple.families.beliefs import POLICY_FILE, BeliefEvaluation, evaluate_beliefs, train_policy
from marple.families.expectations import GENERALISATION, ExpectationEvaluation, evaluate_expectations
from marple.families.report import family_report
from marple_gym.beliefs.questions import QuestionSpec, generate_question_set
from marple_gym.expectations import TrialSetSpec, generate_trial_set

SIZES: dict[str, dict[str, dict[str, Any]]] = {
    "beliefs": {
        "small": {"questions": {}, "train_steps": 1500},
        "quick": {"questions": {"test_houses": 1, "episodes_per_house": 4, "train_episodes": 6}, "train_steps": 10},
    },
    "expectations": {
        "small": {"sizes": {"train": 160, "validation": 40, "test": 40}, "tomnet": {}},
        "quick": {"sizes": {"train": 2, "validation": 1, "test": 2}, "tomnet": {"epochs": 1, "width": 16}},
    },
}
"""Each family's sizes by preset (see the module docs)."""


@dataclass(frozen=True)
class FamilyBenchmark:
    """One run of the family's pipeline: ``preset`` (``small`` or ``quick``), into ``out`` (default
    ``runs/benchmark-<family>``), ``train_steps`` overriding bip's steps, ``generalisation`` adding tomnet's four
    generalisation tests."""

    family: str
    preset: str = "small"
    out: str | None = None
    seed: int = 0
    device: str = "auto"
    workers: int | None = None
    train_steps: int | None = None
    generalisation: bool = False
    progress: bool = True

    @property
    def root(self) -> Path:
        return Path(self.out or f"runs/benchmark-{self.family}")


def run_family_benchmark(cfg: FamilyBenchmark, say=print) -> str:
    """Run the pipeline (see the module docs) and return the tables; ``say`` hears each stage."""
    if cfg.family not in SIZES or cfg.preset not in SIZES[cfg.family]:
        raise ValueError(f"--family {cfg.family}: presets are {', '.join(SIZES.get(cfg.family, {}))}")
    if cfg.generalisation and cfg.family != "expectations":
        raise ValueError("--generalisation: only for --family expectations")
    started = time.perf_counter()
    paths = _beliefs(cfg, say) if cfg.family == "beliefs" else _expectations(cfg, say)
    tables = family_report(paths, cfg.root / "accuracy.png")
    (cfg.root / "table.md").write_text(tables + "\n")
    say(f"{cfg.family}: done in {time.perf_counter() - started:.0f} s; tables in {cfg.root / 'table.md'}")
    return tables


def _beliefs(cfg: FamilyBenchmark, say) -> list[Path]:
    sizes = SIZES["beliefs"][cfg.preset]
    data = cfg.root / "data"
    say(f"generating the question set -> {data}")
    generate_question_set(QuestionSpec(seed=cfg.seed, **sizes["questions"]), data, workers=cfg.workers,
                          progress=cfg.progress)  # fmt: skip
    policy = cfg.root / "models" / POLICY_FILE
    if not policy.is_file():
        say(f"training bip's belief policy -> {policy}")
        accelerator = "cpu" if cfg.device == "cpu" else ("gpu" if cfg.device.startswith("cuda") else "auto")
        train_policy(str(data), str(policy.parent), max_steps=cfg.train_steps or sizes["train_steps"],
                     seed=cfg.seed, accelerator=accelerator, progress=cfg.progress)  # fmt: skip
    paths = []
    for method in ("uniform", "observer", "bip", "llm"):
        out = cfg.root / "results" / f"{method}.json"
        if not out.is_file():
            say(f"scoring {method} -> {out}")
            evaluate_beliefs(
                BeliefEvaluation(method, str(data), str(policy), device=cfg.device, dry_run=method == "llm",
                                 out=str(out), progress=cfg.progress),
                say,
            )  # fmt: skip
        paths.append(out)
    return paths


def _expectations(cfg: FamilyBenchmark, say) -> list[Path]:
    sizes = SIZES["expectations"][cfg.preset]
    data = cfg.root / "data"
    say(f"generating the trial set -> {data}")
    generate_trial_set(TrialSetSpec(cfg.seed, sizes["sizes"]), data, workers=cfg.workers, progress=cfg.progress)
    paths = []
    for method in ("uniform", "observer", "tomnet", "llm"):
        out = cfg.root / "results" / f"{method}.json"
        if not out.is_file():
            say(f"scoring {method} -> {out}" + (" (training it first)" if method == "tomnet" else ""))
            tomnet = method == "tomnet"
            evaluate_expectations(
                ExpectationEvaluation(
                    method, str(data), model_args={"seed": cfg.seed, **sizes["tomnet"]} if tomnet else {},
                    device=cfg.device, seed=cfg.seed, dry_run=method == "llm", out=str(out), progress=cfg.progress,
                    generalisation=GENERALISATION if tomnet and cfg.generalisation else (),
                ),
                say,
            )  # fmt: skip
        paths.append(out)
    return paths
