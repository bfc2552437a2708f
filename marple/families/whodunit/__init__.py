"""The whodunit family (MARPLE's scenarios, the default family): which agent caused the query state, answered at
eleven evidence points of a test pair. Its commands are here, one module each: the dataset
(:mod:`~marple.families.whodunit.generate`), agent models (:mod:`~marple.families.whodunit.train`), methods
scored under the protocol (:mod:`~marple.families.whodunit.evaluate`, through :mod:`marple.evaluation` and the
method runner), the report (:mod:`~marple.families.whodunit.report`), the benchmark
(:mod:`~marple.families.whodunit.benchmark`), exports for offline RL and analysis, and the studies
(:mod:`~marple.families.whodunit.study`)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from marple.families.base import Exporter, Family, _manifest_format
from marple.families.harness import harness_exporters
from marple.families.studies import add_study_score_arguments
from marple.families.whodunit import benchmark, evaluate, generate, report, study, train
from marple_eval.harness import whodunit_export
from marple_eval.results import RunResults
from marple_gym.datasets.export import export_dataset
from marple_gym.datasets.manifest import DATASET_FORMAT


def _exporter(fmt: str, help: str, arguments: Callable[[argparse.ArgumentParser], None] | None = None) -> Exporter:
    def write(args: argparse.Namespace) -> Path:
        if not args.unit:
            raise ValueError(f"--format {fmt} writes one unit's split: give --unit, e.g. --unit laundry")
        return export_dataset(
            args.data, args.unit, args.split, fmt, args.out, role=args.role, minari_root=args.minari_root
        )

    return Exporter(help, write, arguments)


def _unit_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of the Minari and Parquet exports (one unit's split, as steps)."""
    parser.add_argument("--unit", help="minari, parquet: scenario or mission unit, e.g. laundry or get_snack")
    parser.add_argument("--split", default="train-in", help="minari, parquet: test, train-in or train-ood")
    parser.add_argument("--role", choices=["A", "B"], help="minari, parquet: only this agent's trajectories")
    parser.add_argument(
        "--minari-root", metavar="DIR", help="minari: Minari's datasets folder (default: ~/.minari/datasets)"
    )


class WhodunitFamily(Family):
    """MARPLE's whodunit scenarios (see the module docs)."""

    name = "whodunit"
    title = "Whodunit scenarios"
    paper = "MARPLE (Jin et al., 2024)"
    results = RunResults
    exporters = {
        "minari": _exporter("minari", "a Minari dataset of one unit's split (minari.load_dataset)", _unit_arguments),
        "parquet": _exporter("parquet", "a Parquet file of one unit's split, one row per step"),
        **harness_exporters(whodunit_export),
    }
    export_out = (
        "parquet: the file to write; minari: the dataset id (default: marple/UNIT/SPLIT-v0); datasets, harness: "
        "the folder to write"
    )
    descriptions = {
        "generate": generate.DESCRIPTION,
        "evaluate": evaluate.DESCRIPTION,
        "train": train.DESCRIPTION,
        "benchmark": benchmark.DESCRIPTION,
    }

    @property
    def default_data(self) -> str:
        return generate.DEFAULT_DATA

    def describe(self, command: str) -> str:
        return self.descriptions.get(command, super().describe(command))

    def holds(self, folder: str | Path) -> bool:
        return _manifest_format(folder) == DATASET_FORMAT

    def generate_arguments(self, parser: argparse.ArgumentParser) -> None:
        generate.arguments(parser)

    def generate(self, args: argparse.Namespace) -> int:
        return generate.generate(args)

    def train_arguments(self, parser: argparse.ArgumentParser) -> None:
        train.arguments(parser)

    def train(self, args: argparse.Namespace) -> int:
        return train.train(args)

    def evaluate_arguments(self, parser: argparse.ArgumentParser) -> None:
        evaluate.arguments(parser, self)

    def evaluate(self, args: argparse.Namespace) -> int:
        if args.list_methods:
            return super().evaluate(args)
        return evaluate.evaluate(args)

    report_options = report.OPTIONS

    def report_arguments(self, parser: argparse.ArgumentParser) -> None:
        report.arguments(parser)

    def report(self, paths: Sequence[str | Path], args: argparse.Namespace) -> str:
        return report.report(paths, args)

    def benchmark_arguments(self, parser: argparse.ArgumentParser) -> None:
        benchmark.arguments(parser)

    def benchmark(self, args: argparse.Namespace) -> int:
        return benchmark.benchmark(args)

    def study_web_arguments(self, parser: argparse.ArgumentParser) -> None:
        study.web_arguments(parser)

    def study_web(self, args: argparse.Namespace) -> int:
        return study.study_web(args)

    def study_score_arguments(self, parser: argparse.ArgumentParser) -> None:
        add_study_score_arguments(parser)

    def study_score(self, args: argparse.Namespace) -> int:
        raise self.refuse(
            f"{args.source} is neither a belief question set nor an expectation trial set, whose studies `marple "
            "study-score` scores; score a whodunit study's answers with `marple evaluate --responses FILES`"
        )

    def desktop_study(self, args: argparse.Namespace, events: Any = None, max_frames: int | None = None) -> int:
        return study.desktop_study(args, events, max_frames)
