"""The CPU budget of a ``marple benchmark`` run: CPU and wall seconds per stage and per inference run.

    python bench/bench_budget.py RUN                  # read RUN/timings.json
    python bench/bench_budget.py BEFORE AFTER         # two runs side by side, with the ratio of their CPU seconds
    python bench/bench_budget.py --run OUT [-- ARGS]  # run `marple benchmark --out OUT --no-progress ARGS`, then read it

CPU seconds are what the work cost, counted over every process the run
started; wall seconds on a shared machine mostly say what the other jobs took.
``--run`` also prints the whole command's CPU seconds as the operating system
counts them (imports, the report and everything between the stages included)
and its wall time. Only the runs scored by that invocation have times (a run
resumed from its results file took none).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path


def read_timings(run: Path) -> dict:
    """A run's ``timings.json`` as rows ``(section, name) -> {"cpu_s", "wall_s"}``."""
    path = run / "timings.json"
    if not path.is_file():
        raise SystemExit(f"{path}: no such file (a run of `marple benchmark` writes it when it finishes)")
    data = json.loads(path.read_text())
    if "stages" not in data:  # written before CPU seconds were recorded: stage wall times only
        return {("stage", k): {"cpu_s": None, "wall_s": v} for k, v in data.items()}
    rows = {("stage", k): v for k, v in data["stages"].items()}
    rows.update({("run", k): v for k, v in data["runs"].items()})
    return rows


def seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}"


def table(runs: list[Path]) -> str:
    """The stage and run budget of one run, or of two side by side."""
    found = [read_timings(run) for run in runs]
    keys = list(dict.fromkeys(key for rows in found for key in rows))
    head = ["what", *(f"{label} CPU s | {label} wall s" for label in ("A", "B")[: len(runs)])]
    if len(runs) == 2:
        head.append("CPU B / A")
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * (len(head) + len(runs))]
    for section, name in keys:
        cells = [name if section == "stage" else f"  {name}"]
        for rows in found:
            row = rows.get((section, name), {})
            cells += [seconds(row.get("cpu_s")), seconds(row.get("wall_s"))]
        if len(runs) == 2:
            a, b = (rows.get((section, name), {}).get("cpu_s") for rows in found)
            cells.append(f"{b / a:.2f}" if a and b is not None else "-")
        lines.append("| " + " | ".join(cells) + " |")
    legend = [f"{label}: {run}" for label, run in zip("AB", runs)]
    return "\n".join([*legend, "", *lines])


def run_benchmark(out: Path, args: list[str]) -> str:
    """Run the benchmark into ``out`` and return the whole command's CPU and wall seconds in words."""
    marple = shutil.which("marple") or str(Path(sys.executable).with_name("marple"))
    command = [marple, "benchmark", "--out", str(out), "--no-progress", *args]
    print("$", " ".join(command), flush=True)
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run(command, check=True)
    after, wall = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter() - start
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return f"whole command: {cpu:,.1f} CPU s (processes it waited for), {wall:,.1f} s wall, {os.cpu_count()} cores"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="*", type=Path, help="one or two benchmark output folders")
    parser.add_argument("--run", type=Path, metavar="OUT", help="run the benchmark into OUT first")
    argv = sys.argv[1:] if argv is None else list(argv)
    cut = argv.index("--") if "--" in argv else len(argv)  # after --: more `marple benchmark` options
    options, extra = parser.parse_args(argv[:cut]), argv[cut + 1 :]
    if extra and options.run is None:
        parser.error("options after -- go to the benchmark that --run starts")
    if options.run is None and not 1 <= len(options.runs) <= 2:
        parser.error("give one or two run folders, or --run OUT")
    whole = run_benchmark(options.run, extra) if options.run is not None else None
    print(table([*options.runs, options.run] if options.run is not None else options.runs))
    if whole:
        print(whole)
    return 0


if __name__ == "__main__":
    sys.exit(main())
