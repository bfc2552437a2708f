"""The one family contract: what the commands call to generate, train, evaluate, report, benchmark, export and
study a family of benchmark items, whatever the family.

A :class:`Family` is one object the commands dispatch to (:mod:`marple.families` holds the table of them):
``marple generate --family NAME ...`` parses ``--family`` first, then lets the family add its own options to the
command's parser (:meth:`Family.arguments`), so an option the family does not take is refused by the family's own
parser, naming the option and the family; then it runs the family's command (:meth:`Family.run`). What a family is:

* ``name``, ``title`` and ``paper`` (the source it follows); ``spec``, the dataclass a set is a function of;
* ``generate``: write a set (a manifest and its shards, resumable: :mod:`marple_gym.datasets.sharded`);
  :meth:`Family.read` reads a set's split back and :meth:`Family.holds` recognises the family's sets;
* the methods it offers (:meth:`Family.available_methods`: the registry's of this family, :mod:`marple.registry`,
  plus the family's own ``methods``), and ``train`` for those that learn;
* ``evaluate``: a method scored into a results file (the envelope: :mod:`marple_eval.results`), resumable from its
  journal; :meth:`Family.tables` and :meth:`Family.plot` of results files (``marple report``);
* ``benchmark``: from nothing to the table, by ``presets``;
* ``export``: the formats it writes a set in (``exporters``: a writer plugs in as an :class:`Exporter`);
* ``study-web`` and ``study-score``: a study page for people and its scorer.

The defaults here make a family of plain items (:mod:`marple_gym.datasets.items`, :mod:`marple_eval.items`)
complete: a spec dataclass, a generator of items (``make_items(spec, split)``, each a JSON object with an ``id``, a
``type`` and its normative ``answer``) and one method (an :class:`~marple_eval.items.ItemMethod`) run through
``generate``, ``evaluate``, ``report`` and ``benchmark`` without a change to the commands::

    @dataclass(frozen=True)
    class ParitySpec:
        seed: int = 0
        items: int = 40

    class Guess(ItemMethod):
        family, name = "parity", "even"

        def answer(self, item):
            return 0

    class Parity(Family):
        name, spec, methods = "parity", ParitySpec, {"even": Guess}

        def make_items(self, spec, split):
            rng = np.random.default_rng([spec.seed, len(split)])
            for i, n in enumerate(rng.integers(0, 100, spec.items).tolist()):
                yield {"id": f"{split}/{i}", "type": "small" if n < 50 else "large", "answer": n % 2, "n": n}

A family registers through the ``marple.families`` entry-point group (the entry point names the class), its
methods through its ``methods`` or the ``marple.methods`` group.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from marple.families.runs import dry_run_note, dry_run_requests, journaled, per_type, run_settings
from marple.options import add_device_argument, parse_method_args, positive_int, seed
from marple.registry import METHODS, takes_argument
from marple_agents.device import resolve_device
from marple_eval.items import ItemResults, answer_record, format_items_table, plot_items, score_items
from marple_eval.methods.base import Method
from marple_eval.methods.registry import Factory, available_methods, build_method, method_class
from marple_eval.results import Results
from marple_gym.datasets.items import generate_item_set, item_format, read_item_set
from marple_gym.datasets.manifest import MANIFEST
from marple_gym.errors import MarpleError
from marple_gym.validation import message_error, read_json_file

COMMANDS = ("generate", "train", "evaluate", "benchmark", "export", "study-web", "study-score")
"""The commands a family answers (``marple report`` reads results files, whose family says which answers)."""


class FamilyError(MarpleError, ValueError):
    """A family asked for something it does not do (a command, an option, a method), or a family unknown."""


@dataclass(frozen=True)
class Exporter:
    """A format a family writes a set in (``marple export --family NAME --format FORMAT``): ``write(args)``
    writes it and returns what it wrote (a path, or an object that says so); ``arguments(parser)``, if any, adds
    the format's own options (each exporter's options are offered whichever format is chosen, so name them for the
    format)."""

    help: str
    write: Callable[[argparse.Namespace], object]
    arguments: Callable[[argparse.ArgumentParser], None] | None = None


class Family:
    """A family of benchmark items as the commands see it (see the module docs). Subclasses set the class
    attributes and override the commands they do differently; the defaults serve a family of plain items."""

    name: str = ""
    title: str = ""
    paper: str = ""
    spec: type | None = None
    """The dataclass a set is a function of: its fields are ``marple generate``'s options (``--field-name``)."""
    splits: tuple[str, ...] = ("test",)
    methods: Mapping[str, Factory] = {}
    """The family's own methods by name, besides those the registry holds for it (:mod:`marple.registry`)."""
    presets: Mapping[str, Mapping[str, Any]] = {"small": {}}
    """``marple benchmark --preset NAME``: the spec's fields each preset sets (the first is the default)."""
    exporters: Mapping[str, Exporter] = {}
    export_out: str = "where to write it"
    """``marple export``'s help for ``--out`` (what it names in each format)."""
    results: type[Results] = ItemResults

    # ---- dispatch --------------------------------------------------------------------------------------------
    def arguments(self, command: str, parser: argparse.ArgumentParser) -> None:
        """Add the family's options of ``command`` to its parser."""
        getattr(self, f"{_hook(command)}_arguments")(parser)

    def run(self, command: str, args: argparse.Namespace) -> int:
        """Run ``command`` with the options its parser read."""
        return int(getattr(self, _hook(command))(args) or 0)

    def refuse(self, what: str) -> FamilyError:
        """The error of a command or option this family does not take."""
        return FamilyError(f"--family {self.name}: {what}")

    @property
    def default_data(self) -> str:
        """Where ``marple generate`` writes the family's set by default, and where the other commands look."""
        return f"data/{self.name}"

    def describe(self, command: str) -> str:
        """The help text of ``command`` for this family."""
        return f"{command} for {self.title or self.name}" + (f" ({self.paper})" if self.paper else "")

    # ---- sets ------------------------------------------------------------------------------------------------
    def make_items(self, spec: Any, split: str) -> Iterable[dict[str, Any]]:
        """The items of ``split`` (each a JSON object with ``id``, ``type`` and ``answer``), a function of the
        spec and the split alone: what a family of plain items defines."""
        raise self.refuse("generates no items (its family defines make_items)")

    def holds(self, folder: str | Path) -> bool:
        """Whether ``folder`` holds one of this family's sets."""
        return _manifest_format(folder) == item_format(self.name)

    def read(self, data: str | Path, split: str = "test") -> list[Any]:
        """The items of ``split`` of the finished set in ``data``, read strictly."""
        return read_item_set(self.name, data, split)

    def item_type(self, item: Any) -> str:
        """An item's type (what tables break accuracy down by, and ``--limit`` counts per)."""
        return item["type"]

    def item_id(self, item: Any) -> str:
        """An item's id (a plain item's ``id`` key, or its family's item's ``id``)."""
        return item["id"] if isinstance(item, Mapping) else item.id

    def generate_arguments(self, parser: argparse.ArgumentParser) -> None:
        if self.spec is None:
            return
        what = parser.add_argument_group(f"what to generate ({self.name}'s spec)")
        for f in dataclasses.fields(self.spec):
            default = f.default if f.default is not dataclasses.MISSING else None
            kind = type(default) if isinstance(default, int | float | str) and not isinstance(default, bool) else str
            what.add_argument(
                f"--{f.name.replace('_', '-')}", type=seed if f.name == "seed" else kind, default=None, metavar="X",
                help=f"default: {default}",
            )  # fmt: skip
        add_output_arguments(parser, f"the set's folder (default: {self.default_data})")

    def spec_of(self, args: argparse.Namespace, **preset: Any) -> Any:
        """The spec the options ask for (on top of ``preset``'s fields)."""
        given = {f.name: getattr(args, f.name, None) for f in dataclasses.fields(self.spec)}
        return self.spec(**{**preset, **{k: v for k, v in given.items() if v is not None}})

    def write_set(self, spec: Any, out: str | Path, workers: int | None, progress: bool) -> str:
        """Write (or resume writing) the set of ``spec`` into ``out``; a line saying what was written."""
        report = generate_item_set(self.name, spec, self.make_items, out, self.splits, workers=workers,
                                   progress=progress)  # fmt: skip
        return f"{report.root}: {report.written} splits written, {report.skipped} already there"

    def generate(self, args: argparse.Namespace) -> int:
        if self.spec is None:
            raise self.refuse("generates nothing here")
        start = time.perf_counter()
        line = self.write_set(self.spec_of(args), args.out or self.default_data, args.workers, not args.no_progress)
        print(f"{line} in {time.perf_counter() - start:.1f} s")
        return 0

    # ---- methods ---------------------------------------------------------------------------------------------
    def method_table(self) -> Mapping[tuple[str, str], Factory | str]:
        return {**METHODS, **{(self.name, name): factory for name, factory in self.methods.items()}}

    def available_methods(self) -> dict[str, Factory]:
        """Every method of this family by name: the registry's, the plugins' and the family's own."""
        return available_methods(self.name, self.method_table())

    def method_class(self, name: str) -> Factory:
        """What builds the method ``name`` of this family (a ``module:Class`` name imports from the current
        directory)."""
        if ":" in name and "" not in sys.path:
            sys.path.insert(0, "")
        return method_class(self.name, name, self.method_table())

    def build_method(self, name: str, args: Mapping[str, Any], context: Mapping[str, Any] = {}) -> Method:
        """The method ``name`` built with its ``args`` (checked by name) and, of ``context`` (what the run offers:
        ``device``, ``dry_run``, ``checkpoint``, ...), what its factory takes."""
        factory = self.method_class(name)
        offered = {key: value for key, value in context.items() if takes_argument(factory, key) and key not in args}
        if "device" in offered:  # resolved once, here, for the one method that runs on it (a GPU for "auto")
            offered["device"] = str(resolve_device(offered["device"]))
        return build_method(self.name, name, factory, {**args, **offered})

    # ---- evaluate --------------------------------------------------------------------------------------------
    def evaluate_arguments(self, parser: argparse.ArgumentParser) -> None:
        add_evaluate_arguments(parser, self)

    def evaluate(self, args: argparse.Namespace) -> int:
        if args.list_methods:
            print_methods(self)
            return 0
        out = Path(args.out or f"results/{self.name}-{args.method.replace(':', '.')}.json")
        tell = lambda note: print(f"note: {note}", file=sys.stderr)  # noqa: E731
        self.evaluate_method(args.method, parse_method_args(args.method_arg), args.data or self.default_data, out,
                             args, tell)  # fmt: skip
        print(self.tables([self.load(out)]))
        print(f"\nresults: {out}")
        return 0

    def evaluate_method(
        self,
        method: str,
        method_args: Mapping[str, Any],
        data: str,
        out: Path,
        args: argparse.Namespace,
        tell: Callable[[str], None] = lambda note: None,
    ) -> Results:
        """Score ``method`` on the test items of the set in ``data`` and save the results at ``out`` (resumable:
        :func:`marple.families.runs.journaled`); a dry run writes its requests beside them and says so."""
        if args.dry_run and not takes_argument(self.method_class(method), "dry_run"):
            raise ValueError(f"--dry-run: method {method!r} calls no service, so it has nothing to dry-run")
        items = per_type(self.read(data, "test"), args.limit, self.item_type)
        if not items:
            raise ValueError(f"{data}: the set's test split has no items")
        offered, recorded = self.method_context(method, args)
        prompts = dry_run_requests(out, args.dry_run)
        if prompts is not None:
            offered["dry_run"] = str(prompts)
        built = self.build_method(method, method_args, offered)
        name = f"{method} (dry run)" if args.dry_run else method
        settings = {**built.settings(), **run_settings(method, data, args.limit, args.dry_run), **recorded}
        header = {"family": self.name, "method": name, "settings": settings}
        records, journal = journaled(items, self.item_id, lambda item: self.answer(built, item), out, header,
                                     progress=not args.no_progress, desc=f"answering ({name})")  # fmt: skip
        results = self.results_of(name, built, settings, items, records)
        results.save(out)
        journal.remove()
        if prompts is not None:
            tell(dry_run_note(prompts, built.client))
        return results

    def method_context(self, name: str, args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, Any]]:
        """What a run offers the method ``name`` (each given only to a factory that names it: the ``device``) and
        what the results record about it besides the method's own settings."""
        return {"device": args.device}, {}

    def answer(self, method: Method, item: Any) -> Any:
        """One item's record (a JSON value, journalled): the method's answer beside the normative one."""
        return answer_record(item, method.answer(item))

    def results_of(
        self, name: str, method: Method, settings: dict[str, Any], items: Sequence[Any], records: list[Any]
    ) -> Results:
        """The results of a run from its items' records, in order."""
        return ItemResults(name, settings, records, score_items(records), role=method.role, of=self.name)

    # ---- report ----------------------------------------------------------------------------------------------
    def load(self, path: str | Path) -> Results:
        """A results file of this family, read strictly."""
        if self.results is ItemResults:
            return ItemResults.load_of(self.name, path)
        return self.results.load(path)

    def tables(self, runs: Sequence[Results]) -> str:
        """The Markdown tables of results of this family side by side (rows grouped by the methods' roles)."""
        return format_items_table(runs)

    def plot(self, runs: Sequence[Results], path: str | Path) -> Path:
        """A PNG of the results side by side."""
        return plot_items(runs, path, self.title or self.name)

    report_options: tuple[str, ...] = ()
    """The ``marple report`` options (their ``dest``) that this family's results take, besides ``--plot``."""

    def report_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Add the ``marple report`` options of ``report_options`` (``marple report`` reads files of any family)."""

    def report(self, paths: Sequence[str | Path], args: argparse.Namespace) -> str:
        """The tables of the results files ``paths`` (and, with ``args.plot``, their plot)."""
        runs = [self.load(p) for p in paths]
        text = self.tables(runs)
        return text + (f"\n\nplot: {self.plot(runs, args.plot)}" if args.plot else "")

    # ---- benchmark -------------------------------------------------------------------------------------------
    def benchmark_arguments(self, parser: argparse.ArgumentParser) -> None:
        add_benchmark_arguments(parser, self)

    def benchmark(self, args: argparse.Namespace) -> int:
        """From nothing to the table: the preset's set generated, every method of the family scored (each
        resumed when its results are there), ``OUT/table.md`` and ``OUT/accuracy.png`` written."""
        root = Path(args.out or f"runs/benchmark-{self.name}")
        print(f"marple benchmark --family {self.name} ({args.preset} preset) -> {root}")
        started = time.perf_counter()
        paths = self.benchmark_runs(args, root)
        tables = self.report(paths, argparse.Namespace(plot=root / "accuracy.png"))
        (root / "table.md").write_text(tables + "\n")
        print(f"{self.name}: done in {time.perf_counter() - started:.0f} s; tables in {root / 'table.md'}")
        print(tables)
        return 0

    def benchmark_runs(self, args: argparse.Namespace, root: Path) -> list[Path]:
        """Generate the preset's set under ``root`` and score every method on it; the results files."""
        data = root / "data"
        print(f"generating the set -> {data}")
        self.write_set(self.spec_of(args, **self.presets[args.preset]), data, args.workers, not args.no_progress)
        paths = []
        for method in self.available_methods():
            out = root / "results" / f"{method}.json"
            if not out.is_file():
                print(f"scoring {method} -> {out}")
                run = argparse.Namespace(limit=None, dry_run=False, device=args.device, no_progress=args.no_progress)
                self.evaluate_method(method, {}, str(data), out, run)
            paths.append(out)
        return paths

    # ---- what a family may not do ----------------------------------------------------------------------------
    def train_arguments(self, parser: argparse.ArgumentParser) -> None:
        pass

    def train(self, args: argparse.Namespace) -> int:
        raise self.refuse("none of its methods is trained")

    def export_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "data", metavar="DIR", help=f"the set's folder (from `marple generate --family {self.name}`)"
        )
        parser.add_argument("--format", choices=tuple(self.exporters), required=bool(self.exporters),
                            help="; ".join(f"{name}: {e.help}" for name, e in self.exporters.items()) or "none")  # fmt: skip
        parser.add_argument("--out", help=self.export_out)
        for exporter in self.exporters.values():
            if exporter.arguments is not None:
                exporter.arguments(parser)

    def export(self, args: argparse.Namespace) -> int:
        if not self.exporters:
            raise self.refuse("has no export formats")
        print(f"wrote {self.exporters[args.format].write(args)}")
        return 0

    def study_web_arguments(self, parser: argparse.ArgumentParser) -> None:
        pass

    def study_web(self, args: argparse.Namespace) -> int:
        raise self.refuse("has no study for people")

    def study_score_arguments(self, parser: argparse.ArgumentParser) -> None:
        pass

    def study_score(self, args: argparse.Namespace) -> int:
        raise self.refuse("has no study for people to score")

    def desktop_study(self, args: argparse.Namespace, events: Any = None, max_frames: int | None = None) -> int:
        """``marple study`` on this family's set (the desktop study: whodunit trials only; ``events`` and
        ``max_frames`` drive its window in tests)."""
        raise self.refuse(
            f"{args.data} is a set of {self.name}: the desktop study runs whodunit trials; build a web study with "
            f"`marple study-web --data {args.data} --out FOLDER`"
        )


# ---- options several families share --------------------------------------------------------------------------


def _hook(command: str) -> str:
    if command not in COMMANDS:
        raise ValueError(f"unknown family command {command!r}; the commands are {', '.join(COMMANDS)}")
    return command.replace("-", "_")


def _manifest_format(folder: str | Path) -> str | None:
    """The format a set folder's manifest names (None: no readable manifest)."""
    path = Path(folder) / MANIFEST
    if not path.is_file():
        return None
    try:
        data = read_json_file(path, message_error(FamilyError), "manifest")
    except FamilyError:
        return None
    return data.get("format") if isinstance(data, dict) else None


def add_output_arguments(parser: argparse.ArgumentParser, out: str) -> None:
    """``--out``, ``--workers``, ``--no-progress``: how a set is written."""
    run = parser.add_argument_group("running")
    run.add_argument("--out", default=None, help=out)
    run.add_argument("--workers", type=positive_int, default=None, help="processes (default: all cores)")
    run.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def add_method_arguments(parser: argparse.ArgumentParser, family: Family, default: str) -> None:
    """``--method`` (alias ``--model``) and ``--method-arg`` (alias ``--model-arg``), and ``--list-methods``."""
    names = ", ".join(sorted(family.available_methods()))
    parser.add_argument("--method", "--model", dest="method", default=default,
                        help=f"the method (default: {default}): {names}, or package.module:Class for one of your own "
                        "(importable from the current directory)")  # fmt: skip
    parser.add_argument("--method-arg", "--model-arg", dest="method_arg", action="append", default=[],
                        metavar="KEY=VALUE", help="an argument of the method (repeatable)")  # fmt: skip
    parser.add_argument("--list-methods", "--list-models", dest="list_methods", action="store_true",
                        help="list the family's methods and exit")  # fmt: skip


def add_evaluate_arguments(parser: argparse.ArgumentParser, family: Family, default: str | None = None) -> None:
    """What every family's ``marple evaluate`` takes: the set, the method and its arguments, the results file, a
    limit per type, the device, a dry run."""
    parser.add_argument("--data", default=None, help=f"the set's folder (default: {family.default_data})")
    add_method_arguments(parser, family, default or next(iter(sorted(family.available_methods())), "uniform"))
    parser.add_argument("--out", default=None, help=f"results file (default: results/{family.name}-<method>.json)")
    parser.add_argument("--limit", type=positive_int, default=None, help="at most this many items of each type")
    parser.add_argument("--dry-run", action="store_true",
                        help="for methods that call a service (llm): write every request to <out>.prompts.jsonl and "
                        "call nothing")  # fmt: skip
    add_device_argument(parser)
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def add_benchmark_arguments(parser: argparse.ArgumentParser, family: Family) -> None:
    """What every family's ``marple benchmark`` takes: the preset, the folder, the seed, device and workers."""
    parser.add_argument("--preset", choices=tuple(family.presets), default=next(iter(family.presets)),
                        help=f"sizes (default: {next(iter(family.presets))})")  # fmt: skip
    parser.add_argument("--out", default=None, help=f"output folder (default: runs/benchmark-{family.name})")
    parser.add_argument("--seed", type=seed, default=0, help="seed of the set and the models (default: 0)")
    parser.add_argument("--workers", type=positive_int, default=None, help="processes (default: all cores)")
    add_device_argument(parser)
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")


def print_methods(family: Family) -> None:
    """``--list-methods``: each method of the family with its role."""
    for name, factory in sorted(family.available_methods().items()):
        role = getattr(factory, "role", "method")
        print(name if role == "method" else f"{name} ({role.replace('_', ' ')})")
