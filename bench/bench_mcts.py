"""Compute against evidence: the MCTS agent model's evidence needed for 0.8 against K, in and out of distribution.

    marple benchmark --splits in,ood                      # the data and the agent models (or reuse a run's)
    python bench/bench_mcts.py --bench runs/benchmark-small --simulations 0,4,16,64 --splits in,ood
    python bench/bench_mcts.py --bench runs/tiny --scenarios pillow --trials 1 --simulations 0,2 --splits in

For each training split and each K it scores simulation inference with the
MCTS agent model (our extension, docs/agents.md: K steps of PUCT search per
rollout step, the split's vision-only policies as the prior, the agents' mission
priors from that split) on the benchmark's trials, beside the plain policy row
(the paper's vision-only variant) and the perfect-agent-model row (the
planner), each with its 95 % bootstrap interval, and writes, besides the results files:

* one results file per run, in the benchmark's ``results/`` beside its own
  (the runs it already scored, the policy and planner rows, are reused, and so
  are those of an earlier call);
* ``--out``/``kcurve.md`` and ``kcurve.json``: the table, with CPU seconds per run;
* ``kcurve.png``: evidence for 0.8 against K, one curve per split with its
  intervals, the policy and planner rows as bands.

K = 0 is the policy exactly (the same draws): its row and the policy row
agree, which the table shows. Budgets are trials, rollouts and simulations,
never time; CPU seconds are reported because the machine may be shared.
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from dataclasses import replace
from pathlib import Path

from marple.benchmark.pipeline import BenchmarkConfig, InferenceRun, inference_runs, mcts_run, reusable, score_run
from marple.benchmark.presets import PRESETS
from marple_eval.protocol import ProtocolSettings, dataset_episodes
from marple_eval.report import fmt_interval
from marple_eval.results import RunResults
from marple_gym.datasets.dataset import MarpleDataset
from marple_gym.datasets.selection import trial_set_id
from marple_gym.missions.scenarios import SCENARIOS

THRESHOLD = 0.8


def cpu_seconds() -> float:
    """CPU time of this process and its finished children: what the work costs on a machine shared with others."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def runs_to_score(cfg: BenchmarkConfig, simulations: list[int]) -> list[tuple[str, str, int | None, InferenceRun]]:
    """(row kind, split, K, run): the planner, then per split the plain policy and the MCTS agent model at each K."""
    plain = {run.name: run for run in inference_runs(replace(cfg, preset=replace(cfg.preset, mcts=0)))}
    rows = [("planner", "-", None, plain["perfect-agent-models"])]
    for split in cfg.preset.splits:
        rows.append(("policy", split, None, plain[f"simulation-vision-{split}-seed{cfg.seed}"]))
        rows += [("mcts", split, k, mcts_run(cfg, split, cfg.seed, k)) for k in simulations]
    return rows


def scored(cfg: BenchmarkConfig, run: InferenceRun, trials: str) -> bool:
    """Whether ``run``'s results file exists, was scored under the protocol, and on these trials."""
    return reusable(cfg, run) and RunResults.load(cfg.results(run.name)).trial_set == trials


def evidence(path: Path, cutoff: int | None) -> dict:
    """Evidence needed for 0.8 under ``cutoff``, pooled over the trials, with its interval, and the number of
    trials (a run the benchmark scored without the cutoff is seen with it)."""
    run = RunResults.load(path).with_cutoff(cutoff)
    overall = run.summary(thresholds=(THRESHOLD,))["overall"]
    return {**overall["evidence"][str(THRESHOLD)], "trials": overall["n"], "auc": overall["auc"]}


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    colours = {"in": "tab:blue", "ood": "tab:orange"}
    ks = sorted({r["K"] for r in rows if r["kind"] == "mcts"})
    positions = {k: i for i, k in enumerate(ks)}
    for split, colour in colours.items():
        curve = [r for r in rows if r["kind"] == "mcts" and r["split"] == split]
        if not curve:
            continue
        x = [positions[r["K"]] for r in curve]
        y = [r["value"] if r["value"] is not None else 1.0 for r in curve]
        low = [yi - (r["low"] if r["low"] is not None else yi) for yi, r in zip(y, curve)]
        high = [(r["high"] if r["high"] is not None else 1.0) - yi for yi, r in zip(y, curve)]
        ax.errorbar(x, y, yerr=[low, high], marker="o", capsize=3, color=colour, label=f"MCTS agent model ({split})")
        (policy,) = [r for r in rows if r["kind"] == "policy" and r["split"] == split]
        _band(ax, policy, colour, f"policy, the paper's vision-only ({split})", ":")
    (planner,) = [r for r in rows if r["kind"] == "planner"]
    _band(ax, planner, "tab:green", "planner (perfect agent models)", "--")
    ax.set_xticks(range(len(ks)), [str(k) for k in ks])
    ax.set_xlabel("K: search simulations per rollout step")
    ax.set_ylabel(f"evidence needed for {THRESHOLD} accuracy (lower is better)")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=7, loc="lower left")
    ax.set_title("Compute against evidence (95 % bootstrap intervals)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _band(ax, row: dict, colour: str, label: str, style: str) -> None:
    value = row["value"] if row["value"] is not None else 1.0
    ax.axhline(value, color=colour, linestyle=style, linewidth=1, label=label)
    if row["low"] is not None:
        ax.axhspan(row["low"], row["high"] if row["high"] is not None else 1.0, color=colour, alpha=0.08)


def table(rows: list[dict]) -> str:
    lines = [
        f"| agent model | split | K | evidence for {THRESHOLD} [95% CI] | AUC | trials | CPU s |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    names = {"planner": "planner (perfect agent models)", "policy": "policy (the paper's vision-only)"}
    for r in rows:
        k = "-" if r["K"] is None else str(r["K"])
        cpu = "reused" if r["cpu_s"] is None else f"{r['cpu_s']:.0f}"
        name = names.get(r["kind"], "MCTS agent model (our extension)")
        lines.append(f"| {name} | {r['split']} | {k} | {fmt_interval(r)} | {r['auc']:.3f} | {r['trials']} | {cpu} |")
    return "\n".join(lines)


def kcurve(cfg: BenchmarkConfig, simulations: list[int], out: Path, scored_only: bool = False) -> list[dict]:
    """Score the runs of :func:`runs_to_score` not scored yet on ``cfg``'s trials (none with ``scored_only``), and
    write ``out``/``kcurve.json``, ``kcurve.md`` and ``kcurve.png``; return the table's rows."""
    out.mkdir(parents=True, exist_ok=True)
    episodes = dataset_episodes(MarpleDataset(cfg.data), cfg.scenarios, cfg.preset.trials)
    trials = trial_set_id(e.episode_id for e in episodes)
    rows = []
    for kind, split, k, run in runs_to_score(cfg, simulations):
        cpu, wall = None, None
        if not scored(cfg, run, trials) and scored_only:
            print(f"{run.name}: not scored yet", flush=True)
            continue
        if not scored(cfg, run, trials):  # the benchmark's own rows, and runs of an earlier call, are reused
            start_cpu, start_wall = cpu_seconds(), time.perf_counter()
            score_run(cfg, run, episodes=episodes)
            cpu, wall = cpu_seconds() - start_cpu, time.perf_counter() - start_wall
        row = {
            "kind": kind,
            "split": split,
            "K": k,
            "cpu_s": cpu,
            "wall_s": wall,
            **evidence(cfg.results(run.name), cfg.protocol.cutoff),
        }
        rows.append(row)
        print(f"{run.name}: evidence for {THRESHOLD} {fmt_interval(row)}, CPU s {cpu}, wall s {wall}", flush=True)
    (out / "kcurve.json").write_text(json.dumps(rows, indent=1) + "\n")
    (out / "kcurve.md").write_text(table(rows) + "\n")
    plot(rows, out / "kcurve.png")
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", type=Path, default=Path("runs/benchmark-small"), help="a benchmark run's folder")
    parser.add_argument("--out", type=Path, default=Path("runs/bench-mcts"))
    parser.add_argument("--simulations", default="0,4,16,64", help="the values of K, comma-separated")
    parser.add_argument("--splits", default="in,ood", help="training splits whose models are used")
    parser.add_argument("--scenarios", default=",".join(SCENARIOS), help="scenarios, comma-separated (default: all)")
    parser.add_argument("--trials", type=int, default=None, help="trials per scenario (default: the preset's 30)")
    parser.add_argument("--preset", default="small", choices=sorted(PRESETS))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument(
        "--scored-only", action="store_true", help="score nothing: the table and plot of the runs already scored"
    )
    args = parser.parse_args(argv)

    simulations = [int(k) for k in args.simulations.split(",")]
    preset = replace(PRESETS[args.preset], splits=tuple(args.splits.split(",")), uncut=())
    if args.trials is not None:
        preset = replace(preset, trials=args.trials)
    cfg = BenchmarkConfig(
        preset,
        args.bench,
        scenarios=tuple(args.scenarios.split(",")),
        variants=("vision",),
        protocol=ProtocolSettings(),
        workers=args.workers,
        progress=not args.no_progress,
    )
    rows = kcurve(cfg, simulations, args.out, args.scored_only)
    print(table(rows))
    print(f"\n{args.out / 'kcurve.png'}")


if __name__ == "__main__":
    main()
