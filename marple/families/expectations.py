"""The expectation family (AGENT's trials: familiarisation, then an expected and a surprising test) in the
application: a trial set generated (``marple generate --family expectations``), its test trials rated for
surprise by a method (``marple evaluate``), the learned method trained on a set's training split (``marple
train``) and its generalisation tests, the benchmark from nothing to the table, and the study of people
(``marple study-web``, ``marple study-score``).

Methods: ``uniform``, ``observer`` (the exact observer: the answer key), ``llm`` (a 0-100 rating; ``--dry-run``
writes the requests instead) from :mod:`marple_eval.expectations`, and ``tomnet`` (the learned method) from
:mod:`marple_agents.tomnet`, trained (or loaded, ``--checkpoint``) and run on the run's ``--device``.
"""

from __future__ import annotations

import argparse
import resource
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from marple.families.base import (
    Exporter,
    Family,
    add_benchmark_arguments,
    add_evaluate_arguments,
    add_output_arguments,
)
from marple.families.harness import harness_exporters
from marple.families.runs import dry_run_note, dry_run_requests, journaled, per_type, run_settings
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
from marple.study.families import holds_trials
from marple.study.family_scores import score_trial_study
from marple.study.family_web import FamilyOptions, build_trial_study
from marple_eval.expectations import Accuracy, RatingResults, format_table, plot_accuracy, rate_trial, seeded_table
from marple_eval.expectations.panel import RULES, PanelVerdict, panel_verdict, record_verdict
from marple_eval.expectations.results import read_rating
from marple_eval.expectations.scoring import (
    GENERALISATION_TESTS,
    GeneralisationSplit,
    generalisation_tests,
    plot_generalisation,
)
from marple_eval.harness import expectation_export
from marple_eval.items import by_role
from marple_eval.journal import journal_path
from marple_eval.results import ResultsError
from marple_gym.datasets.manifest import MAX_SIZE
from marple_gym.datasets.shards import file_sha256
from marple_gym.errors import MarpleError
from marple_gym.expectations import TrialSetSpec, all_types, generate_trial_set, read_trial_set
from marple_gym.expectations.sets import DEFAULT_SIZES, export_agent_tree
from marple_gym.files import write_json_atomic
from marple_gym.validation import message_error, reader

GENERALISATION = tuple(t for t in GENERALISATION_TESTS if t != "all")
"""AGENT's four generalisation tests (G1-G4); ``all`` is the plain tomnet row."""
TEST_ONLY = "tomnet-test-only"
"""The learned method without the familiarisation: the shortcut panel's learned rule."""


def tomnet_config(method_args: dict[str, Any], method: str = "tomnet"):
    """The :class:`~marple_agents.tomnet.ToMnetConfig` of ``--method-arg`` options (an unknown one named); the
    test-only model (:data:`TEST_ONLY`) reads no familiarisation."""
    from marple_agents.tomnet import ToMnetConfig  # torch and Lightning: only for the learned method

    try:
        return ToMnetConfig(**({"familiarisation": False} if method == TEST_ONLY else {}), **method_args)
    except TypeError:
        known = ", ".join(ToMnetConfig.__dataclass_fields__)
        raise ValueError(f"--method-arg: tomnet takes {known}; got {sorted(method_args)}") from None


_read_once: dict[tuple[str, str, tuple[str, ...] | None], list[Any]] | None = None


@contextmanager
def reading_once() -> Iterator[None]:
    """Within the block, each split of a set is read (and checked against its manifest) once: a benchmark's runs
    all rate the same test split and the learned ones train on the same training split."""
    global _read_once
    _read_once = {}
    try:
        yield
    finally:
        _read_once = None


def trials_of(data: str | Path, split: str, types: Sequence[str] | None = None) -> list[Any]:
    """The trials of a set's ``split`` (of ``types``, default all): :func:`read_trial_set`, read once within
    :func:`reading_once`."""
    if _read_once is None:
        return read_trial_set(data, split, types)
    key = (str(data), split, None if types is None else tuple(types))
    if key not in _read_once:
        _read_once[key] = read_trial_set(data, split, types)
    return _read_once[key]


def train_tomnet_on(data: str, config, device: str = "auto", progress: bool = True, types=None):
    """The learned method trained on the expected tests of the set's training split (validated on its validation
    split, where it has one), of ``types`` (default all)."""
    from marple_agents.tomnet import train_tomnet

    train = trials_of(data, "train", types)
    if not train:
        raise ValueError(f"{data}: the set has no training trials of {list(types or ['any type'])}")
    validation = trials_of(data, "validation", types)
    return train_tomnet(train, config, device=device, validation=validation, progress=progress)


def _export_agent(args: argparse.Namespace) -> str:
    """Every split of the set in AGENT's tree under ``--out``: a file per trial with every video's per-step
    states."""
    if not args.out:
        raise ValueError("--out FOLDER is needed for --format agent")
    written = export_agent_tree(args.data, args.out)
    return f"{args.out} ({len(written)} trial files in AGENT's tree)"


@contextmanager
def cpu_clock(timings: dict[str, float], stage: str) -> Iterator[None]:
    """Add the CPU seconds of the block to ``timings[stage]``: this process's and its reaped children's (worker
    processes started by a forkserver are not its children: a set's generation counts only its own share)."""

    def now() -> float:
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        return time.process_time() + children.ru_utime + children.ru_stime

    start = now()
    try:
        yield
    finally:
        timings[stage] = timings.get(stage, 0.0) + now() - start


def pooled_tables(runs: Sequence[RatingResults]) -> dict[str, dict[str, dict[str, Accuracy]]]:
    """Each role's tables by row name (:data:`~marple_eval.methods.base.ROLES` order): the runs of one method
    trained with several seeds (the same name and trials) pooled into one row with a two-way interval over pairs
    and seeds (:func:`~marple_eval.expectations.scoring.seeded_table`), the answer key named as the ceiling."""
    groups: dict[tuple[str, str], list[RatingResults]] = {}
    for run in by_role(runs):
        groups.setdefault((run.role, run.method), []).append(run)
    out: dict[str, dict[str, dict[str, Accuracy]]] = {}
    for (role, method), same in groups.items():
        if role == "answer_key":
            name = f"{method}: answer key (ceiling)"
        else:
            name = method if len(same) == 1 else f"{method} ({len(same)} seeds)"
        table = same[0].table() if len(same) == 1 else seeded_table([r.ratings for r in same])
        out.setdefault(role, {})[name] = table
    return out


def shortcut_verdict(runs: Sequence[RatingResults]) -> PanelVerdict | None:
    """The shortcut panel's verdict on the types the shortcut runs among ``runs`` rated (None without any)."""
    panel = pooled_tables(runs).get("shortcut")
    if not panel:
        return None
    types = [t for t in all_types() if all(t in table for table in panel.values())]
    return panel_verdict(panel, types)


def expectation_tables(runs: Sequence[RatingResults]) -> str:
    """Pairwise accuracy per type, scenario and all with n and intervals (chance 0.5): the methods, the shortcut
    panel beside them with the set's verdict, the answer key; then each run's generalisation tests."""
    tables = pooled_tables(runs)
    heading = {"method": "Methods", "shortcut": "The shortcut panel: rules that read the test alone",
               "answer_key": "The answer key (the ceiling: handed the generator's model, not a method)"}  # fmt: skip
    parts = ["Pairwise accuracy, strict (a tie is wrong; ½: ties counting half), 95 % bootstrap intervals:"]
    for role, rows in tables.items():
        parts.append(f"{heading[role]}:\n\n{format_table(rows)}")
    verdict = shortcut_verdict(runs)
    if verdict is not None:
        parts.append(verdict.summary())
    for run in by_role(runs):
        for name, table in run.generalisation_tables().items():
            pooled = table and all(hasattr(v, "accuracy") for v in table.values())
            shown = {f"{run.method} {name}": table} if pooled else {f"{label}": t for label, t in table.items()}
            parts.append(f"Generalisation, {name} ({run.method}):\n\n" + format_table(shown))
    return "\n\n".join(parts)


class ExpectationFamily(Family):
    """AGENT's expectation trials (see the module docs)."""

    name = "expectations"
    title = "Expectation trials"
    paper = "AGENT (Shu et al., 2021)"
    results = RatingResults
    presets = {
        "small": {"sizes": {"train": 80, "validation": 0, "test": 40}, "tomnet": {"epochs": 4}, "seeds": 3},
        "quick": {"sizes": {"train": 8, "validation": 0, "test": 4}, "tomnet": {"epochs": 1, "width": 16}, "seeds": 1},
    }
    """``small``: 40 test and 80 training trials of each of the 13 types, ToMnet 4 epochs over three seeds (sized
    for the benchmark's budget; ``marple generate`` keeps AGENT's 160/40/40); ``quick``: a tiny set with every type
    that checks the pipeline in a minute or two."""
    exporters = {
        "agent": Exporter("every split in AGENT's tree (a JSON file per trial, with per-step states)", _export_agent),
        **harness_exporters(expectation_export),
    }

    def describe(self, command: str) -> str:
        return f"{command}: {self.title} ({self.paper}); docs/expectations.md"

    # ---- the set ---------------------------------------------------------------------------------------------
    def holds(self, folder: str | Path) -> bool:
        return super().holds(folder) or holds_trials(folder)

    def generate_arguments(self, parser: argparse.ArgumentParser) -> None:
        what = parser.add_argument_group("what to generate")
        for split, default in DEFAULT_SIZES.items():
            what.add_argument(f"--{split}-per-type", type=int_in(0, MAX_SIZE),
                              help=f"{split} trials of each type (default: {default})")  # fmt: skip
        what.add_argument("--types", help="comma-separated trial types (default: all of them)")
        what.add_argument("--seed", type=seed, default=0, help="master seed (default: 0)")
        add_output_arguments(parser, f"the set's folder (default: {self.default_data})")

    def generate(self, args: argparse.Namespace) -> int:
        sizes = {s: getattr(args, f"{s}_per_type") for s in DEFAULT_SIZES}
        types = tuple(t.strip() for t in args.types.split(",") if t.strip()) if args.types else all_types()
        spec = TrialSetSpec(args.seed, {s: DEFAULT_SIZES[s] if n is None else n for s, n in sizes.items()}, types)
        start = time.perf_counter()
        report = generate_trial_set(spec, args.out or self.default_data, workers=args.workers,
                                    progress=not args.no_progress)  # fmt: skip
        print(
            f"{report.root}: {report.items} trials ({', '.join(f'{n} {s}' for s, n in spec.to_json()['sizes'].items())} "
            f"per type, {len(types)} types; {report.written} shards written, {report.skipped} already there) in "
            f"{time.perf_counter() - start:.1f} s"
        )
        return 0

    def read(self, data: str | Path, split: str = "test") -> list[Any]:
        return trials_of(data, split)

    def item_type(self, item: Any) -> str:
        return item.key.type

    # ---- methods ---------------------------------------------------------------------------------------------
    def evaluate_arguments(self, parser: argparse.ArgumentParser) -> None:
        add_evaluate_arguments(parser, self, default="observer")
        parser.add_argument("--seed", type=seed, default=0, help="run seed: the order tests are shown in (default: 0)")
        parser.add_argument(
            "--checkpoint",
            metavar="PT",
            help="tomnet: a trained model (default: train one on the set's training split, on --device, with "
            "--method-arg options as its config, saved as <out>.tomnet.pt)",
        )
        parser.add_argument(
            "--generalisation",
            nargs="?",
            const=",".join(GENERALISATION),
            default=None,
            metavar="TESTS",
            help="tomnet: also run AGENT's generalisation tests, one model per split (comma-separated; default: all "
            f"four, {', '.join(GENERALISATION)})",
        )

    def evaluate_method(
        self,
        method: str,
        method_args: dict[str, Any],
        data: str,
        out: Path,
        args: argparse.Namespace,
        tell: Callable[[str], None] = lambda note: None,
    ) -> RatingResults:
        """Rate the set's test trials with ``method`` and save the results (resumable: see
        :func:`marple.families.runs.journaled`); a learned method (one built from a ``checkpoint``) is trained on
        the set first unless given one, and with ``--generalisation`` trained again per split of those tests."""
        generalisation = tuple(t for t in (getattr(args, "generalisation", None) or "").split(",") if t)
        factory = self.method_class(method)
        learned = takes_argument(factory, "checkpoint")
        self._check(method, args, generalisation, learned, factory)
        trials = per_type(self.read(data, "test"), args.limit, self.item_type)
        if not trials:
            raise ValueError(f"{data}: the set's test split has no trials")
        prompts = dry_run_requests(out, args.dry_run)
        offered: dict[str, Any] = {"device": args.device}
        if prompts is not None:
            offered["dry_run"] = str(prompts)
        built_args = dict(method_args)
        if learned:  # the method's arguments are its training config; it is built from a checkpoint
            offered["checkpoint"] = args.checkpoint or self._trained(
                data, tomnet_config(method_args, method), out, args
            )
            built_args = {}
        built = self.build_method(method, built_args, offered)
        name = f"{method} (dry run)" if args.dry_run else method
        settings = {
            **built.settings(),
            **run_settings(method, data, args.limit, args.dry_run, seed=args.seed, generalisation=list(generalisation)),
        }
        if args.checkpoint is not None:
            settings["checkpoint"] = args.checkpoint
            settings["checkpoint_sha256"] = file_sha256(Path(args.checkpoint))
        header = {"family": self.name, "method": name, "settings": settings}
        types = sorted({t.key.type for t in trials}, key=lambda k: tuple(int(p) for p in k.split(".")))
        splits = [s for g in generalisation for s in generalisation_tests(g, types)]
        items: list[tuple[str, Any]] = [(t.id, t) for t in trials] + [(f"{s.test_name}/{s.label}", s) for s in splits]

        def score(item: tuple[str, Any]) -> Any:
            what = item[1]
            if isinstance(what, GeneralisationSplit):
                return self._generalisation_split(data, method, method_args, args, what, trials)
            return rate_trial(built, what, args.seed).to_dict()

        records, journal = journaled(items, lambda item: item[0], score, out, header,
                                     progress=not args.no_progress, desc=f"rating ({name})")  # fmt: skip
        error = message_error(ResultsError)
        where = str(journal.path)
        ratings = [read_rating(reader(r, where, error)) for r in records[: len(trials)]]
        tests: dict[str, dict[str, list]] = {}
        for (_, split), found in zip(items[len(trials) :], records[len(trials) :]):
            if found is not None:
                tests.setdefault(split.test_name, {})[split.label] = [
                    read_rating(reader(r, where, error)) for r in found
                ]
        results = RatingResults(name, settings, ratings, tests, role=built.role)
        results.save(out)
        journal.remove()
        if prompts is not None:
            tell(dry_run_note(prompts, built.client))
        return results

    def _check(self, method: str, args: argparse.Namespace, generalisation: Sequence[str], learned: bool,
               factory: Any) -> None:  # fmt: skip
        if args.dry_run and not takes_argument(factory, "dry_run"):
            raise ValueError(f"--dry-run: method {method!r} calls no service, so it has nothing to dry-run")
        if generalisation and not learned:
            raise ValueError("--generalisation: only a learned method (tomnet) is trained, so only it is tested so")
        bad = [t for t in generalisation if t not in GENERALISATION]
        if bad:
            raise ValueError(f"--generalisation: unknown test(s) {bad}; choose from {', '.join(GENERALISATION)}")
        if getattr(args, "checkpoint", None) is not None and not Path(args.checkpoint).is_file():
            raise MarpleError(
                f"{args.checkpoint}: no such ToMnet checkpoint; train one with `marple train --family expectations "
                f"--data {args.data or self.default_data}`, or leave --checkpoint out to train one here"
            )

    def _trained(self, data: str, config, out: Path, args: argparse.Namespace) -> str:
        """The checkpoint of the learned method trained on the set with ``config``, saved beside the results (a
        resumed run reloads the one it trained)."""
        from marple_agents.tomnet import ToMnetMethod

        saved = out.with_suffix(".tomnet.pt")
        resumed = saved.is_file() and journal_path(out).is_file()
        if resumed and ToMnetMethod.load(saved, "cpu").config == config:  # a resumed run: the model it trained
            return str(saved)
        train_tomnet_on(data, config, args.device, not args.no_progress).save(saved)
        return str(saved)

    def _generalisation_split(self, data: str, method: str, method_args: dict[str, Any], args: argparse.Namespace,
                              split: GeneralisationSplit, test_trials) -> list[dict] | None:  # fmt: skip
        """One generalisation split's ratings: a model trained on its training types, tested on its test types
        (None when the set has no trials of either)."""
        test = [t for t in test_trials if t.key.type in split.test]
        if not test:
            return None
        model = train_tomnet_on(data, tomnet_config(method_args, method), args.device, False, split.train)
        return [rate_trial(model, t, args.seed).to_dict() for t in test]

    def tables(self, runs: Sequence[RatingResults]) -> str:
        return expectation_tables(runs)

    def plot(self, runs: Sequence[RatingResults], path: str | Path) -> Path:
        """The accuracy bars of every row, and beside them each learned run's generalisation tests
        (``generalisation*.png``)."""
        rows = {name: table for tables in pooled_tables(runs).values() for name, table in tables.items()}
        for run in runs:
            if run.generalisation:
                tests = {"all": run.table(), **run.generalisation_tables()}
                plot_generalisation(tests, Path(path).parent, run.method)
        return plot_accuracy(rows, path, "Expectation trials")

    def train_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--data", default=None, help=f"the trial set (default: {self.default_data})")
        parser.add_argument("--out", default=None, help="output folder (default: runs/tomnet)")
        parser.add_argument("--max-epochs", type=positive_int, default=None, help="epochs (default: the config's, 8)")
        parser.add_argument("--seed", type=seed, default=0, help="seed of weights and batches (default: 0)")
        parser.add_argument("--accelerator", choices=("auto", "cpu", "gpu", "cuda"), default="auto",
                            help="cpu, gpu, auto (default: auto)")  # fmt: skip
        parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")

    def train(self, args: argparse.Namespace) -> int:
        from marple_agents.training.train import quiet_lightning  # Lightning: only once training starts

        quiet_lightning(args.verbose)
        options = {"seed": args.seed} | ({"epochs": args.max_epochs} if args.max_epochs else {})
        device = {"gpu": "cuda", "cuda": "cuda", "cpu": "cpu"}.get(args.accelerator, "auto")
        method = train_tomnet_on(args.data or self.default_data, tomnet_config(options), device, not args.no_progress)
        saved = method.save(Path(args.out or "runs/tomnet") / "tomnet.pt")
        print(f"{saved}: ToMnet ({method.config.epochs} epochs)")
        return 0

    # ---- the benchmark ---------------------------------------------------------------------------------------
    def benchmark_arguments(self, parser: argparse.ArgumentParser) -> None:
        add_benchmark_arguments(parser, self)
        parser.add_argument("--generalisation", action="store_true",
                            help="also run ToMnet's four generalisation tests (one model per split)")  # fmt: skip

    def benchmark_runs(self, args: argparse.Namespace, root: Path) -> list[Path]:
        """Generate the set, rate its test split with every method and the shortcut panel (each learned method,
        tomnet and the test-only tomnet, trained on the set's training split with the preset's seeds; llm: a dry
        run), record the panel's verdict in the set's manifest, and print and keep (``timings.json``) each
        stage's CPU seconds."""
        from marple_agents.training.train import quiet_lightning  # Lightning: only once a run starts

        quiet_lightning(args.verbose)
        preset = self.presets[args.preset]
        data = root / "data"
        timings: dict[str, float] = {}
        print(f"generating the trial set -> {data}")
        with cpu_clock(timings, "generating the set"):
            generate_trial_set(TrialSetSpec(args.seed, preset["sizes"]), data, workers=args.workers,
                               progress=not args.no_progress)  # fmt: skip
        with reading_once():
            paths = self._score_all(args, preset, data, root, timings)
        verdict = shortcut_verdict([RatingResults.load(p) for p in paths])
        if verdict is not None:
            record_verdict(data, verdict)
        write_json_atomic(root / "timings.json", {"cpu_seconds": timings})
        print("CPU seconds per stage: " + ", ".join(f"{k} {v:.0f}" for k, v in timings.items()))
        return paths

    def _score_all(self, args: argparse.Namespace, preset: Mapping[str, Any], data: Path, root: Path,
                   timings: dict[str, float]) -> list[Path]:  # fmt: skip
        """Every benchmark run's results file, each scored unless it is there already."""
        with cpu_clock(timings, "reading the set"):
            for split in ("test", "train", "validation"):
                trials_of(data, split)
        paths = []
        for method, stem, method_args in self._benchmark_runs(preset):
            out = root / "results" / f"{stem}.json"
            if not out.is_file():
                learned = method in ("tomnet", TEST_ONLY)
                print(f"scoring {stem} -> {out}" + (" (training it first)" if learned else ""), flush=True)
                run = argparse.Namespace(
                    limit=None, dry_run=method == "llm", device=args.device, seed=args.seed, checkpoint=None,
                    data=str(data), no_progress=args.no_progress,
                    generalisation=",".join(GENERALISATION) if stem == "tomnet-seed0" and args.generalisation else None,
                )  # fmt: skip
                with cpu_clock(timings, stem):
                    self.evaluate_method(method, method_args, str(data), out, run, print)
            paths.append(out)
        return paths

    @staticmethod
    def _benchmark_runs(preset: Mapping[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
        """(method, results file's stem, its ``--method-arg`` options) of every benchmark run: the shortcut panel's
        rules, the methods, each learned method once per training seed, and the answer key."""
        runs = [(rule.name, rule.name, {}) for rule in RULES] + [(m, m, {}) for m in ("uniform", "bipack", "llm")]
        for method in ("tomnet", TEST_ONLY):
            runs += [(method, f"{method}-seed{s}", {"seed": s, **preset["tomnet"]}) for s in range(preset["seeds"])]
        return runs + [("observer", "observer", {})]

    # ---- the study of people ---------------------------------------------------------------------------------
    def study_web_arguments(self, parser: argparse.ArgumentParser) -> None:
        add_web_study_arguments(parser, "build K trial sequences (seeds SEED..SEED+K-1), K even (default: 2): "
                                "sequence 2m+1 shows each trial's other test than sequence 2m")  # fmt: skip
        parser.add_argument("--fps", type=float_in(0.5, 60), default=4.0,
                            help="frames a second of the animations (default: 4)")  # fmt: skip
        parser.add_argument("--pause", type=float_in(0, 10), default=1.0, metavar="SECONDS",
                            help="how long each animation holds its last frame before the next (default: 1)")  # fmt: skip

    def study_web(self, args: argparse.Namespace) -> int:
        bar, progress = rendering("trial")
        with bar:
            built = build_trial_study(args.data, args.out, args.seed, args.limit, web_options(args),
                                      FamilyOptions(fps=args.fps, pause=args.pause), progress, args.orders)  # fmt: skip
        tell_built(built, f"marple study-score responses.jsonl --set {args.data}")
        return 0

    def study_score_arguments(self, parser: argparse.ArgumentParser) -> None:
        add_study_score_arguments(parser)

    def study_score(self, args: argparse.Namespace) -> int:
        return print_study_scores(score_trial_study(args.responses, args.source), "tests rated", args.out)
