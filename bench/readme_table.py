"""The README's results table, generated from a benchmark run; written between markers in the pages that show it.

    python bench/readme_table.py runs/benchmark-small            # README.md and docs/benchmarks.md
    python bench/readme_table.py runs/benchmark-small --print    # only print it

Reads the run's ``benchmark.json`` (its figures) and ``commands.json`` (the commands that made them, the machine
and the date; ``marple benchmark`` writes both). The table is the run's headline view: per method and training
split, the evidence needed to reach the first threshold (0.8) with its 95 % bootstrap interval, beside the paper's
Table 2 figure for the same variant. The caption names the commands, the machine and the date. A run made before
``commands.json`` existed needs ``--command``, ``--machine`` and ``--date``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from marple.benchmark.provenance import read_commands
from marple_eval.report import fmt_interval, paper_table2
from marple_gym.errors import MarpleError

ROOT = Path(__file__).resolve().parents[1]
PAGES = (ROOT / "README.md", ROOT / "docs" / "benchmarks.md")
START, END = "<!-- results-table: start -->", "<!-- results-table: end -->"

LABELS = {
    "uniform": "uniform (chance)",
    "distance": "distance heuristic",
    "simulation-vision": "Vision only",
    "simulation-audio": "Vision+Audio",
    "simulation-language": "Vision+Language",
    "simulation-all": "Vision+Audio+Language",
    "bip": "inverse planning (`bip`)",
    "ideal observer": "ideal observer (ceiling)",
}
"""Methods as the table names them: the simulation variants by the paper's names, so its column can stand beside
them; a method not listed keeps the label its results carry."""
ORDER = ("uniform", "distance", "simulation-vision", "simulation-audio", "simulation-language", "simulation-all")
"""Rows in this order, each method's splits together; other methods after them, the ideal observer (the ceiling)
last."""
LEFT_OUT = ("simulation: perfect agent models",)
"""Rows the README leaves to the benchmarks page's full summary (the planner row equals the ideal observer when
every test agent does its own mission)."""


def table(run: Path, command: str | None = None, machine: str | None = None, date: str | None = None) -> str:
    """The table and its caption, in Markdown."""
    record = _read_json(run / "benchmark.json")
    view, rows = next(iter(record["views"].items()))
    key = f"{record['thresholds'][0]:g}"
    paper = paper_table2()
    seeds = len(record.get("model_seeds") or [None])
    lines = [
        f"| method | split | evidence for {key} accuracy | accuracy at tau = 0 | paper (Table 2) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in sorted(rows, key=_place):
        if row["method"] in LEFT_OUT:
            continue
        label = LABELS.get(row["method"], row["method"])
        figure = paper.get(label, {}).get(row["split"] or "")
        shown = f"{label}, model seed {row['model_seed']}" if seeds > 1 and row["model_seed"] is not None else label
        if row.get("mission_prior") == "labels":
            shown += " (training-label prior, privileged)"
        lines.append(
            f"| {shown} | {row['split'] or '-'} | {fmt_interval(row['evidence'][key])} | {_tau0(row.get('tau0'))} | "
            f"{'-' if figure is None else f'{figure:.2f}'} |"
        )
    if "Human" in paper:
        lines.append(f"| humans (the paper's study, no cutoff) | - | - | - | {paper['Human']['in']:.2f} |")
    return "\n".join([caption(run, record, view, command, machine, date), "", *lines])


def _tau0(accuracy: dict | None) -> str:
    """A method's accuracy before any evidence, with its interval ('-' for runs that predate it)."""
    if not accuracy:
        return "-"
    return f"{accuracy['mean']:.2f} [{accuracy['low']:.2f}, {accuracy['high']:.2f}]"


def _place(row: dict) -> tuple[int, str, int]:
    method = row["method"]
    rank = ORDER.index(method) if method in ORDER else len(ORDER) + (method == "ideal observer")
    return rank, row["split"] or "", row["model_seed"] or 0


def caption(run: Path, record: dict, view: str, command: str | None, machine: str | None, date: str | None) -> str:
    commands = read_commands(run)
    if not commands and not (command and machine and date):
        raise MarpleError(f"{run}: no commands.json (a run older than it): pass --command, --machine and --date")
    command = command or " then ".join(f"`{entry['command']}`" for entry in commands)
    machine = machine or commands[-1]["machine"]
    date = date or commands[-1]["finished"][:10]
    preset = record["preset"]
    trials = {row["trials"] for rows in record["views"].values() for row in rows}
    protocol = record["protocol"]
    return (
        f"Evidence needed to reach {record['thresholds'][0]:g} accuracy, as a fraction of the trajectory (lower "
        f"is better), with 95 % bootstrap intervals over {', '.join(map(str, sorted(trials)))} trials "
        f"({preset['trials']} per scenario), m = {preset['rollouts']} rollouts, agent models trained for "
        f"{_budget(record['training_budget'])}; scored under `{protocol.get('name', 'ours')}`, {view}. "
        f"Made by {command} on {machine}, {date}. The paper's column is its Table 2 "
        "(50 trials, m = 100)."
    )


def _budget(words: str) -> str:
    """The recorded budget ("steps 500, epochs 2") as a reader says it ("500 steps, 2 epochs")."""
    return re.sub(r"\b(steps|epochs) (\d+)", r"\2 \1", words)


def write_between_markers(page: Path, text: str) -> None:
    """Replace what stands between the page's two markers with ``text``."""
    content = page.read_text()
    if content.count(START) != 1 or content.count(END) != 1 or content.index(START) > content.index(END):
        raise MarpleError(f"{page}: expected one {START} and one {END} after it")
    before, rest = content.split(START)
    _, after = rest.split(END)
    page.write_text(f"{before}{START}\n{text}\n{END}{after}")


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise MarpleError(f"{path}: no such file (is this a marple benchmark run folder?)") from None
    except ValueError as exc:
        raise MarpleError(f"{path}: not JSON ({exc})") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", type=Path, help="a marple benchmark run folder (its --out)")
    parser.add_argument("--print", action="store_true", help="print the table instead of writing it")
    parser.add_argument("--pages", nargs="+", type=Path, default=PAGES, help="pages to write it into")
    parser.add_argument("--command", help="the command that made the run (default: from its commands.json)")
    parser.add_argument("--machine", help="the machine it ran on (default: from its commands.json)")
    parser.add_argument("--date", help="when it finished, YYYY-MM-DD (default: from its commands.json)")
    args = parser.parse_args(argv)
    try:
        text = table(args.run, args.command, args.machine, args.date)
        if args.print:
            print(text)
            return 0
        for page in args.pages:
            write_between_markers(page, text)
            print(f"{page}: table written")
    except MarpleError as exc:
        print(f"readme_table: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
