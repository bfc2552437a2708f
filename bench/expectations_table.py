"""The expectation family's full table on the default set: the shortcut panel and every method per type, per
scenario and overall, with the number of pairs and 95 % intervals, and the CPU seconds of every stage.

    python bench/expectations_table.py runs/expectations-table                  # seed 0, the default set
    python bench/expectations_table.py runs/expectations-table-1 --seed 1
    python bench/expectations_table.py runs/expectations-table --generalisation # and ToMnet's four tests, plotted
    python bench/expectations_table.py runs/panel-1 --seed 1 --panel           # only the shortcut panel

Stages: the set (:func:`marple_gym.expectations.generate_trial_set` at its default sizes: 160 training, 40
validation and 40 test trials of each type), then its test split rated by the shortcut panel's counting rules
(:mod:`marple_eval.expectations.panel`), the uniform rater, the BIPaCK analogue, the answer key (the exact
observer), ToMnet trained on the training split with ``--seeds`` seeds, and the test-only ToMnet (the panel's
learned rule). Each rating job runs in a worker process of its own (``--workers`` at a time, torch on one thread
each) and reads the set itself. Written to OUT: ``table.md`` (the tables, the panel's verdict, which also goes
into the set's manifest, and the stages' CPU seconds), ``accuracy.png``, ``results/*.json`` (every rating, as
``marple report`` reads them; a job whose file is there is not run again) and ``timings.json``. With
``--generalisation`` ToMnet's generalisation tests (one model per split, the first seed) are added, with
``generalisation*.png``; with ``--panel`` only the panel's jobs run (its rules and the test-only ToMnet).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Job:
    """One rating job: ``kind`` names what it runs (see :func:`run_job`), ``writes`` the stems of the results
    files it writes (``results/<stem>.json``, one per rater)."""

    kind: str
    writes: tuple[str, ...]
    data: str
    seed: int
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.writes[0] if len(self.writes) == 1 else self.kind


def stem(method: str) -> str:
    """A method's results file name: its name with words joined by hyphens, brackets left out."""
    return "-".join(method.replace("(", "").replace(")", "").split())


def run_job(job: Job) -> tuple[Job, list[dict], float]:
    """Run ``job`` in this process: (the job, its results files' contents in the order of ``writes``, its CPU
    seconds)."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from marple_eval.expectations import ExpectationObserver, ExpectationUniform, RatingResults, rate_trials
    from marple_eval.expectations.bipack import ExpectationBipack
    from marple_eval.expectations.panel import RULES
    from marple_gym.expectations import read_trial_set

    start = time.process_time()
    test = read_trial_set(job.data, "test")
    settings = {"data": job.data, "seed": job.seed}
    if job.kind == "counting":
        raters = [*RULES, ExpectationUniform(), ExpectationBipack()]
        runs = [RatingResults(r.name, settings, rate_trials(r, test, job.seed)) for r in raters]
    elif job.kind == "answer key":
        runs = [RatingResults(ExpectationObserver.name, settings, rate_trials(ExpectationObserver(), test, job.seed))]
    else:
        runs = [_tomnet(job, test, settings)]
    return job, [r.to_json() for r in runs], time.process_time() - start


def _tomnet(job: Job, test, settings):
    import torch

    torch.set_num_threads(1)
    from marple_agents.tomnet import ToMnetConfig, train_tomnet
    from marple_eval.expectations import RatingResults, rate_trials
    from marple_eval.expectations.scoring import generalisation_tests
    from marple_gym.expectations import all_types, read_trial_set

    config = ToMnetConfig(seed=job.options.get("model_seed", 0), familiarisation=job.kind != "test only")
    if job.kind == "split":
        (split,) = [
            s for s in generalisation_tests(job.options["test"], all_types()) if s.label == job.options["label"]
        ]
        train = read_trial_set(job.data, "train", split.train)
        model = train_tomnet(train, config, device="cpu")
        ratings = rate_trials(model, [t for t in test if t.key.type in split.test], job.seed)
        return RatingResults(model.name, settings, [], {split.test_name: {split.label: ratings}})
    model = train_tomnet(read_trial_set(job.data, "train"), config, device="cpu")
    return RatingResults(model.name, {**settings, **model.settings()}, rate_trials(model, test, job.seed))


def jobs_of(data: str, seed: int, seeds: int, generalisation: bool, panel: bool = False) -> list[Job]:
    """Every job (only the panel's with ``panel``), the longest first (so that the workers finish together)."""
    from marple_eval.expectations.panel import RULES
    from marple_eval.expectations.scoring import GENERALISATION_TESTS, generalisation_tests

    counting = Job("counting", tuple(stem(r.name) for r in RULES) + ("uniform", "bipack"), data, seed)
    if panel:
        return [Job("test only", ("tomnet-test-only",), data, seed), counting]
    jobs = [Job("tomnet", (f"tomnet-seed{s}",), data, seed, {"model_seed": s}) for s in range(seeds)]
    jobs += [Job("answer key", ("answer-key",), data, seed), Job("test only", ("tomnet-test-only",), data, seed)]
    jobs += [counting]
    if generalisation:
        for test in GENERALISATION_TESTS[1:]:
            for split in generalisation_tests(test):
                name = f"generalisation-{test}-{stem(split.label)}"
                jobs.append(Job("split", (name,), data, seed, {"test": test, "label": split.label}))
    return jobs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the run's folder (the set in OUT/data)")
    parser.add_argument("--seed", type=int, default=0, help="the set's seed and the rating order's (default 0)")
    parser.add_argument("--seeds", type=int, default=3, help="ToMnet's training seeds (default 3)")
    parser.add_argument("--workers", type=int, default=2, help="processes at a time (default 2)")
    parser.add_argument("--generalisation", action="store_true", help="add ToMnet's generalisation tests")
    parser.add_argument("--panel", action="store_true", help="only the shortcut panel")
    args = parser.parse_args()
    if args.seeds < 1 or args.workers < 1:
        parser.error("--seeds and --workers must be at least 1")

    from marple_gym.expectations import TrialSetSpec, generate_trial_set

    timings: dict[str, dict[str, float]] = {}
    data = args.out / "data"
    wall = time.perf_counter()
    generate_trial_set(TrialSetSpec(args.seed), data, workers=args.workers, progress=False)
    timings["generating the set (CPU: estimated)"] = {
        "wall": time.perf_counter() - wall,
        "cpu": _set_cpu(data, args.seed),
    }
    results = args.out / "results"
    jobs = jobs_of(str(data), args.seed, args.seeds, args.generalisation, args.panel)
    pending = [j for j in jobs if not all((results / f"{w}.json").is_file() for w in j.writes)]
    wall = time.perf_counter()
    context = mp.get_context("forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn")
    with context.Pool(min(args.workers, max(1, len(pending)))) as pool:
        for job, runs, cpu in pool.imap_unordered(run_job, pending):
            _save(results, job, runs)
            timings[job.name] = {"cpu": cpu}
            print(f"{job.name}: {cpu:.0f} CPU s", flush=True)
    timings["rating (wall, all jobs)"] = {"wall": time.perf_counter() - wall}
    text = report(args.out, data, 0 if args.panel else args.seeds, timings)
    (args.out / "table.md").write_text(text)
    print(text)


def _set_cpu(data: Path, seed: int) -> float:
    """The CPU seconds of making the set's trials, measured again here in one process on a sample of each type (the
    workers' own time is not the parent's to read): 8 trials of each type and split, scaled to the set."""
    from marple_gym.expectations import make_trial
    from marple_gym.expectations.sets import trial_set_spec

    spec = trial_set_spec(data)
    total = 0.0
    for split in spec.sizes:
        keys = spec.keys(split)
        sample = [k for k in keys if k.index < 8]
        start = time.process_time()
        for key in sample:
            make_trial(key, seed)
        total += (time.process_time() - start) * len(keys) / max(1, len(sample))
    return total


def _save(results: Path, job: Job, runs: list[dict]) -> None:
    from marple_gym.files import write_json_atomic

    for name, run in zip(job.writes, runs):
        write_json_atomic(results / f"{name}.json", run)


def report(out: Path, data: Path, seeds: int, timings: dict[str, dict[str, float]]) -> str:
    """The tables of a finished run (see the module docs), the panel's verdict recorded in the set's manifest."""
    from marple_eval.expectations import RatingResults, format_table, plot_accuracy
    from marple_eval.expectations.panel import RULES, panel_verdict, record_verdict
    from marple_eval.expectations.scoring import POOLED_TESTS, plot_generalisation, seeded_table
    from marple_gym.expectations import all_types

    runs = {path.stem: RatingResults.load(path) for path in sorted((out / "results").glob("*.json"))}
    panel = {rule.name: runs[stem(rule.name)].table() for rule in RULES}
    panel["tomnet (test only)"] = runs["tomnet-test-only"].table()
    verdict = panel_verdict(panel, all_types())
    record_verdict(data, verdict)
    methods = {"uniform (chance)": runs["uniform"].table(), "bipack": runs["bipack"].table()}
    if seeds:
        methods[f"tomnet ({seeds} seeds)"] = seeded_table([runs[f"tomnet-seed{s}"].ratings for s in range(seeds)])
        methods["answer key (ceiling)"] = runs["answer-key"].table()
    plot_accuracy({**methods, **panel}, out / "accuracy.png", "Expectation trials")
    lines = ["## The shortcut panel: rules that read the test alone", "", format_table(panel), "", verdict.summary()]
    lines += ["", "## Every method", "", format_table(methods), ""]
    splits = [r for name, r in runs.items() if name.startswith("generalisation")]
    if splits:
        tests: dict[str, Any] = {"all": runs["tomnet-seed0"].table()}
        for run in splits:
            for name, by_label in run.generalisation.items():
                tests.setdefault(name, {}).update(by_label)
        tables = {"all": tests.pop("all"), **RatingResults("tomnet", {}, [], tests).generalisation_tables()}
        plot_generalisation(tables, out, "tomnet")
        lines += ["## ToMnet's generalisation tests (the first seed)", ""]
        lines += [format_table({f"tomnet {n}": t for n, t in tables.items() if n in POOLED_TESTS}), ""]
        for name in ("single_type", "single_scenario"):
            if name in tables:
                lines += [f"{name}:", "", format_table(tables[name]), ""]
    lines += ["## CPU seconds per stage", "", "| stage | CPU s | wall s |", "| --- | --- | --- |"]
    lines += [
        f"| {k} | {v.get('cpu', float('nan')):.0f} | {v.get('wall', float('nan')):.0f} |" for k, v in timings.items()
    ]
    (out / "timings.json").write_text(json.dumps(timings, indent=1))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
