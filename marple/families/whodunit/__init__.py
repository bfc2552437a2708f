"""The whodunit family (MARPLE's scenarios, the default family): which agent caused the query state, answered at
eleven evidence points of a test pair. Its commands are here, one module each: the dataset
(:mod:`~marple.families.whodunit.generate`), agent models (:mod:`~marple.families.whodunit.train`), methods
scored under the protocol (:mod:`~marple.families.whodunit.evaluate`, through :mod:`marple.evaluation` and the
method runner), the report (:mod:`~marple.families.whodunit.report`), the benchmark
(:mod:`~marple.families.whodunit.benchmark`), exports for offline RL and analysis, and the studies
(:mod:`~marple.families.whodunit.study`)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from marple.families.base import Exporter, Family, _manifest_format
from marple.families.studies import add_study_score_arguments
from marple.families.whodunit import benchmark, evaluate, generate, report, study, train
from marple_eval.results import RunResults
from marple_gym.datasets.export import export_dataset
from marple_gym.datasets.manifest import DATASET_FORMAT


def _exporter(fmt: str, help: str) -> Exporter:
    def write(args: argparse.Namespace) -> Path:
        exported = export_dataset(
            args.data, args.unit, args.split, fmt, args.out, role=args.role, minari_root=args.minari_root
        )
        return exported

    return Exporter(help, write)


class WhodunitFamily(Family):
    """MARPLE's whodunit scenarios (see the module docs)."""

    name = "whodunit"
    title = "Whodunit scenarios"
    paper = "MARPLE (Jin et al., 2024)"
    results = RunResults
    exporters = {
        "minari": _exporter("minari", "a Minari dataset (minari.load_dataset)"),
        "parquet": _exporter("parquet", "a Parquet file, one row per step"),
    }
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

    def export_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("data", metavar="DIR", help="dataset directory (from `marple generate`)")
        parser.add_argument("--unit", required=True, help="scenario or mission unit, e.g. laundry or get_snack")
        parser.add_argument("--split", default="train-in", help="test, train-in or train-ood (default: train-in)")
        parser.add_argument("--role", choices=["A", "B"], help="only this agent's trajectories (default: both)")
        parser.add_argument("--format", choices=tuple(self.exporters), required=True, help="minari or parquet")
        parser.add_argument(
            "--out", help="parquet: the file to write; minari: the dataset id (default: marple/UNIT/SPLIT-v0)"
        )
        parser.add_argument(
            "--minari-root", metavar="DIR", help="Minari's datasets folder (default: ~/.minari/datasets)"
        )

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
