"""The belief family (MMToM-QA's belief and goal questions about searching agents) in the application: a question
set generated (``marple generate --family beliefs``), scored by a method (``marple evaluate``), ``bip``'s policy
trained on a set's training episodes (``marple train``), the benchmark from nothing to the table, the test split in
MMToM-QA's own format (``marple export``), and the study of people (``marple study-web``, ``marple study-score``).

Methods: ``uniform``, ``observer`` (the exact observer: the answer key), ``llm`` (MMToM-QA's prompt; ``--dry-run``
writes the requests instead) from :mod:`marple_eval.beliefs`, and ``bip`` (a learned policy as the likelihood)
from :mod:`marple_agents.beliefs`, given its policy (``--checkpoint``) and the run's ``--device``.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from marple.families.base import Exporter, Family, add_benchmark_arguments, add_evaluate_arguments, add_output_arguments
from marple.families.harness import harness_exporters
from marple.families.runs import Stages
from marple.families.studies import (
    add_study_score_arguments,
    add_web_study_arguments,
    print_study_scores,
    rendering,
    tell_built,
    web_options,
)
from marple.options import float_in, int_in, positive_int, seed
from marple.registry import takes_argument
from marple.study.families import holds_questions
from marple.study.family_scores import score_question_study
from marple.study.family_web import FamilyOptions, build_question_study
from marple_eval.beliefs import BeliefResults, format_table, plot_scores, score
from marple_eval.beliefs.panel import format_verdict, run_panel, verdict
from marple_eval.beliefs.results import answer_record, seed_scores
from marple_eval.harness import belief_export
from marple_eval.items import by_role
from marple_eval.methods.base import Method
from marple_eval.metrics import MIN_TRIALS
from marple_gym.beliefs.questions import QuestionSpec, generate_question_set, read_question_set, write_questions
from marple_gym.beliefs.questions.generate import PRESETS
from marple_gym.beliefs.questions.question import QUESTION_TYPES
from marple_gym.beliefs.questions.sets import read_panel, read_training_episodes
from marple_gym.datasets.manifest import MAX_SIZE
from marple_gym.datasets.shards import file_sha256
from marple_gym.errors import MarpleError

DEFAULT_POLICY = "runs/belief-policy"
"""Where ``marple train --family beliefs`` writes ``belief-policy.pt``, and where ``bip`` looks for it."""
POLICY_FILE = "belief-policy.pt"
TRAIN_STEPS = 1500
BENCHMARK_STEPS = 300
"""bip's policy's optimizer steps in each of the benchmark's trainings (three seeds: the budget)."""


def train_policy(data: str, out: str | None = None, *, max_steps: int = TRAIN_STEPS, seed: int = 0,
                 preset: str = "small", accelerator: str = "cpu", progress: bool = True):  # fmt: skip
    """Train bip's belief policy on the training episodes of the set in ``data`` and write
    ``out/belief-policy.pt`` (default :data:`DEFAULT_POLICY`); returns the training result."""
    from marple_agents.beliefs import train_belief_policy  # torch and Lightning: only when training

    episodes = read_training_episodes(data)
    if not episodes:
        raise ValueError(f"{data}: the set has no training episodes (generate it with --train-episodes > 0)")
    return train_belief_policy(
        episodes, out or DEFAULT_POLICY, max_steps=max_steps, seed=seed, preset=preset,
        accelerator=accelerator, progress=progress,
    )  # fmt: skip


def _label(run: BeliefResults) -> str:
    """How a table names a run: the answer key as the ceiling it is, never as a method's row."""
    return "answer key (ceiling)" if run.role == "answer_key" else run.method


def _columns(runs: Sequence[BeliefResults]) -> dict[str, dict[str, Any]]:
    """Each column's scores, grouped by role: a method scored for several training seeds is one column over its
    seeds (the two-way interval over seeds and questions), each seed's figure kept in its groups."""
    groups: dict[str, list[BeliefResults]] = {}
    for run in by_role(runs):
        groups.setdefault(_label(run), []).append(run)
    return {
        (name if len(group) == 1 else f"{name}, {len(group)} seeds"): (
            group[0].scores if len(group) == 1 else seed_scores(group)
        )
        for name, group in groups.items()
    }


def belief_tables(runs: Sequence[BeliefResults]) -> str:
    """Accuracy per type with intervals and n (chance 0.5), the shortcut panel's rules beside the methods and the
    panel's verdict where they are among ``runs``, then the Brier score against the normative posterior, one
    column per method (a method trained with several seeds: one column over them)."""
    scores = _columns(runs)
    rows = [k for k in (*QUESTION_TYPES, "belief", "goal", "all") if any(k in s for s in scores.values())]
    brier = ["| type | " + " | ".join(scores) + " |", "| --- |" + " --- |" * len(scores)]
    for row in rows:
        label = f"{row} {QUESTION_TYPES[row]}" if row in QUESTION_TYPES else row
        cells = [f"{s[row]['brier']:.3f}" if row in s else "" for s in scores.values()]
        brier.append(f"| {label} | " + " | ".join(cells) + " |")
    panel = {r.method: r.scores for r in runs if r.role == "shortcut"}
    told = format_verdict(verdict(panel)) if panel else _recorded_verdict(runs)
    seeds = [f"{name}: " + ", ".join(f"{a:.2f}" for a in s["all"]["per_seed"]) for name, s in scores.items()
             if "per_seed" in s.get("all", {})]  # fmt: skip
    return (
        "Accuracy per question type, 95 % bootstrap intervals (chance 0.5; shortcut: a rule with no theory of "
        "mind, which a set must leave near chance):\n\n"
        + format_table(scores)
        + (f"\n\n{told}" if told else "")
        + ("\n\nEach training seed's accuracy (all types): " + "; ".join(seeds) if seeds else "")
        + "\n\nBrier score against the normative posterior (0: as sure as the evidence allows):\n\n"
        + "\n".join(brier)
    )


def check_panel(data: str | Path, seed: int = 0) -> str:
    """The shortcut panel's verdict on the set in ``data`` (run and recorded beside the manifest unless it is
    recorded already), said with a warning naming the types too small to compare methods on."""
    questions = read_question_set(data, "test")
    if not questions:
        return "shortcut panel: not run (the test split has no questions: the set is too small for a balanced pair)"
    result = read_panel(data) or run_panel(data, seed)[0]
    small = small_types(questions)
    return format_verdict(result) + (f"\nwarning: few test questions of {', '.join(small)}" if small else "")


def _recorded_verdict(runs: Sequence[BeliefResults]) -> str | None:
    """The panel's verdict recorded with the set the runs answered, where the set is still there."""
    for data in dict.fromkeys(str(r.settings.get("data", "")) for r in runs):
        try:
            found = read_panel(data) if data else None
        except (MarpleError, OSError):  # a set moved or changed since: nothing to say of it
            found = None
        if found is not None:
            return f"{format_verdict(found)} (recorded with the set {data})"
    return None


def small_types(questions: Sequence[Any]) -> list[str]:
    """The question types of which ``questions`` hold fewer than :data:`~marple_eval.metrics.MIN_TRIALS` (or
    none), each with its count: too few to compare methods on."""
    counts = {kind: sum(q.type == kind for q in questions) for kind in QUESTION_TYPES}
    return [f"{kind} (n = {n})" for kind, n in counts.items() if n < MIN_TRIALS]


def _export_mmtom(args: argparse.Namespace) -> Path:
    """The test split in MMToM-QA's own format (``questions.jsonl`` and its episodes) in the folder ``--out``."""
    if not args.out:
        raise ValueError("--out FOLDER is needed for --format mmtom")
    return write_questions(read_question_set(args.data, "test"), args.out)


class BeliefFamily(Family):
    """MMToM-QA's belief and goal questions (see the module docs)."""

    name = "beliefs"
    title = "Belief and goal questions"
    paper = "MMToM-QA (Jin et al., 2024)"
    results = BeliefResults
    presets = {
        "small": {"questions": PRESETS["small"], "train_steps": BENCHMARK_STEPS, "seeds": 3},
        "quick": {"questions": PRESETS["quick"], "train_steps": 20, "seeds": 3},
    }
    """``small``: the default set (:data:`~marple_gym.beliefs.questions.generate.PRESETS`), bip's policy trained
    with three seeds; ``quick``: a small set with every type (too few questions of each to compare methods: the
    benchmark names them) that checks the pipeline in a minute or so."""
    exporters = {
        "mmtom": Exporter("the test split in MMToM-QA's format (questions.jsonl, episodes)", _export_mmtom),
        **harness_exporters(belief_export),
    }

    def describe(self, command: str) -> str:
        return f"{command}: {self.title} ({self.paper}); docs/beliefs.md"

    # ---- the set ---------------------------------------------------------------------------------------------
    def holds(self, folder: str | Path) -> bool:
        return super().holds(folder) or holds_questions(folder)

    def generate_arguments(self, parser: argparse.ArgumentParser) -> None:
        size = int_in(1, MAX_SIZE)
        what = parser.add_argument_group("what to generate")
        what.add_argument("--test-houses", type=size, help="test houses (default: 24)")
        what.add_argument("--episodes-per-house", type=size, help="episodes per test house (default: 20)")
        what.add_argument("--train-episodes", type=int_in(0, MAX_SIZE), help="training episodes (default: 200)")
        what.add_argument(
            "--false-belief", type=float_in(0.0, 1.0), help="share of Sally-Anne episodes (default: 0.25)"
        )
        what.add_argument("--perception", choices=("room", "view"), help="what agents see (default: room)")
        what.add_argument("--per-type", type=size, help="questions of a type an episode may give (default: 2)")
        what.add_argument("--seed", type=seed, default=0, help="master seed (default: 0)")
        add_output_arguments(parser, f"the set's folder (default: {self.default_data})")

    def generate(self, args: argparse.Namespace) -> int:
        keys = ("test_houses", "episodes_per_house", "train_episodes", "false_belief", "perception", "per_type")
        spec = QuestionSpec(seed=args.seed, **{k: getattr(args, k) for k in keys if getattr(args, k) is not None})
        start = time.perf_counter()
        report = generate_question_set(spec, args.out or self.default_data, workers=args.workers,
                                       progress=not args.no_progress)  # fmt: skip
        tests = sum(e["items"] for e in report.manifest["shards"].values() if e["split"] == "test")
        print(
            f"{report.root}: {tests} test episodes ({spec.test_houses} houses) and {spec.train_episodes} training "
            f"episodes ({report.written} shards written, {report.skipped} already there) in "
            f"{time.perf_counter() - start:.1f} s; MMToM-QA's format: {report.root / 'mmtom' / 'questions.jsonl'}"
        )
        print(check_panel(report.root))
        return 0

    def read(self, data: str | Path, split: str = "test") -> list[Any]:
        return read_question_set(data, split)

    def item_type(self, item: Any) -> str:
        return item.type

    # ---- methods ---------------------------------------------------------------------------------------------
    def evaluate_arguments(self, parser: argparse.ArgumentParser) -> None:
        add_evaluate_arguments(parser, self, default="observer")
        parser.add_argument(
            "--checkpoint",
            metavar="PT",
            help=f"bip: the belief policy (default: {DEFAULT_POLICY}/{POLICY_FILE}, what `marple train --family "
            "beliefs` writes)",
        )

    def method_context(self, name: str, args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, Any]]:
        """A method that learned a policy (bip) gets it (``--checkpoint``), recorded with its SHA-256."""
        offered, recorded = super().method_context(name, args)
        if takes_argument(self.method_class(name), "policy"):
            path = Path(args.checkpoint or f"{DEFAULT_POLICY}/{POLICY_FILE}")
            if not path.is_file():
                raise MarpleError(
                    f"{path}: no belief policy here; train one with `marple train --family beliefs --data "
                    f"{args.data or self.default_data} --out {path.parent}` (or name one with --checkpoint)"
                )
            offered["policy"] = str(path)
            recorded |= {"policy": str(path), "policy_sha256": file_sha256(path)}
        return offered, recorded

    def answer(self, method: Method, item: Any) -> Any:
        return answer_record(item, method.answer(item))

    def results_of(
        self, name: str, method: Method, settings: dict[str, Any], items: Sequence[Any], records: list[Any]
    ) -> BeliefResults:
        answers = [tuple(r["p"]) for r in records]
        return BeliefResults(name, settings, records, score(items, answers), role=method.role)

    def tables(self, runs: Sequence[BeliefResults]) -> str:
        return belief_tables(runs)

    def plot(self, runs: Sequence[BeliefResults], path: str | Path) -> Path:
        return plot_scores(_columns(runs), path, "Belief and goal questions")

    def train_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--data", default=None, help=f"the question set (default: {self.default_data})")
        parser.add_argument("--out", default=None, help=f"output folder (default: {DEFAULT_POLICY})")
        parser.add_argument("--preset", choices=("small",), default="small", help="policy size (default: small)")
        parser.add_argument("--max-steps", type=positive_int, default=TRAIN_STEPS,
                            help=f"optimizer steps (default: {TRAIN_STEPS})")  # fmt: skip
        parser.add_argument("--seed", type=seed, default=0, help="seed of weights, split and batches (default: 0)")
        parser.add_argument("--accelerator", choices=("auto", "cpu", "gpu", "cuda", "mps"), default="auto",
                            help="cpu, gpu, auto (default: auto)")  # fmt: skip
        parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")

    def train(self, args: argparse.Namespace) -> int:
        from marple_agents.training.train import quiet_lightning  # Lightning: only once training starts

        quiet_lightning(args.verbose)
        result = train_policy(args.data or self.default_data, args.out, max_steps=args.max_steps, seed=args.seed,
                              preset=args.preset, accelerator=args.accelerator, progress=not args.no_progress)  # fmt: skip
        print(
            f"{result.checkpoint}: held-out next-action accuracy {result.val_accuracy:.3f} "
            f"({result.steps} steps in {result.train_seconds:.0f} s)"
        )
        return 0

    # ---- the benchmark ---------------------------------------------------------------------------------------
    def benchmark_arguments(self, parser: argparse.ArgumentParser) -> None:
        add_benchmark_arguments(parser, self)
        parser.add_argument("--train-steps", type=positive_int, default=None,
                            help="bip's policy's optimizer steps (small: 1500)")  # fmt: skip

    def benchmark_runs(self, args: argparse.Namespace, root: Path) -> list[Path]:
        """Generate the set, run the shortcut panel (its verdict recorded beside the set's manifest), train bip's
        policy with each of the preset's seeds, score the answer key, chance, bip for every seed, bip given the
        generator's priors for the first, and llm (a dry run); the CPU seconds of every stage go to ``OUT/stages.md``."""
        from marple_agents.training.train import quiet_lightning  # Lightning: only once a run starts

        quiet_lightning(args.verbose)
        preset, stages, results = self.presets[args.preset], Stages(), root / "results"
        data = root / "data"
        print(f"generating the question set -> {data}")
        spec = QuestionSpec(seed=args.seed, **preset["questions"])
        stages.run("generation", lambda: generate_question_set(spec, data, workers=args.workers,
                                                               progress=not args.no_progress))  # fmt: skip
        paths = sorted((results / "panel").glob("*.json"))
        if read_panel(data) is None or not paths:  # the verdict is recorded once the rules' results are saved
            result, runs = stages.run("shortcut panel", lambda: run_panel(data, args.seed))
            paths = [run.save(results / "panel" / f"{re.sub('[^a-z0-9]+', '-', run.method).strip('-')}.json")
                     for run in runs]  # fmt: skip
            print(format_verdict(result))
        small = small_types(read_question_set(data, "test"))
        if small:
            print(f"warning: few test questions of {', '.join(small)}: too few to compare methods on", file=sys.stderr)
        accelerator = "cpu" if args.device == "cpu" else ("gpu" if args.device.startswith("cuda") else "auto")
        steps = args.train_steps or preset["train_steps"]
        # bip for every seed; its privileged variant, which only says what the generator's priors are worth, for
        # the first (it costs twice bip's time: the budget)
        scored = [("uniform", None), ("observer", None), ("llm", None), ("bip-privileged", 0)]
        for method, k in scored + [("bip", s) for s in range(preset["seeds"])]:
            policy = root / "models" / f"seed-{k}" / POLICY_FILE
            if k is not None and not policy.is_file():
                print(f"training bip's belief policy, seed {k} -> {policy}")
                stages.run(f"bip training, seed {k} ({steps} steps)", lambda k=k, policy=policy: train_policy(
                    str(data), str(policy.parent), max_steps=steps, seed=args.seed + k, accelerator=accelerator,
                    progress=not args.no_progress))  # fmt: skip
            out = results / (f"{method}.json" if k is None else f"{method}-seed-{k}.json")
            if not out.is_file():
                print(f"scoring {method} -> {out}")
                run = argparse.Namespace(limit=None, dry_run=method == "llm", device=args.device, checkpoint=str(policy),
                                         data=str(data), no_progress=args.no_progress)  # fmt: skip
                stages.run(f"scoring {out.stem}", lambda method=method, out=out, run=run: self.evaluate_method(
                    method, {}, str(data), out, run, print))  # fmt: skip
            paths.append(out)
        if stages.rows:
            (root / "stages.md").write_text(stages.table() + "\n")
            print(stages.table())
        return paths

    # ---- the study of people ---------------------------------------------------------------------------------
    def study_web_arguments(self, parser: argparse.ArgumentParser) -> None:
        add_web_study_arguments(parser, "build K question sequences (seeds SEED..SEED+K-1); each participant gets "
                                "one by id, or by ?order=k in the URL (default: 1)")  # fmt: skip
        parser.add_argument("--frames", type=positive_int, default=8, metavar="N",
                            help="pictures of the house per question, from the start to its moment (default: 8)")  # fmt: skip
        parser.add_argument("--confidence", action="store_true",
                            help="answer on a slider from surely (a) to surely (b) instead of choosing one")  # fmt: skip

    def study_web(self, args: argparse.Namespace) -> int:
        bar, progress = rendering("question")
        with bar:
            built = build_question_study(args.data, args.out, args.seed, args.limit, web_options(args),
                                         FamilyOptions(frames=args.frames, confidence=args.confidence), progress,
                                         args.orders)  # fmt: skip
        tell_built(built, f"marple study-score responses.jsonl --set {args.data}")
        return 0

    def study_score_arguments(self, parser: argparse.ArgumentParser) -> None:
        add_study_score_arguments(parser)

    def study_score(self, args: argparse.Namespace) -> int:
        return print_study_scores(score_question_study(args.responses, args.source), "questions answered", args.out)
