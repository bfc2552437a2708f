"""Are two benchmark run directories the same figures? Data, models, answers and summaries compared.

    python bench/compare_runs.py RUN_A RUN_B

Two runs of ``marple benchmark`` with the same command and seed, made by two versions of the code (or on two
machines), should hold the same data, the same agent models and the same answers. This compares:

- every data file byte for byte (shards by their sha256; the manifest as data, since parallel workers may list
  its shards in another order);
- every agent model's weights (the checkpoint's ``weights_sha256``);
- every results file's trials and summary, and ``benchmark.json``, on the keys both hold: a newer version may
  store more (a new field is listed, not counted as a difference); what says where or when a run was made
  (paths, creation times, timings, the file format's version, the preset's time estimate or measured time) is left out.
  A run scored without the cutoff on one side and with it on the other (a preset that changed what it scores
  without the cutoff) is compared under the cutoff: the uncut one seen with it (``RunResults.with_cutoff``)
  against the other, answer by answer and on its summary.

It exits 1 if any figure differs and prints where.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

from marple_eval.settings import ProtocolSettings
from marple_gym.errors import MarpleError
from marple_gym.validation import message_error, read_json_file

WHERE_OR_WHEN = {"created", "dataset", "source", "checkpoint", "version", "estimate", "train_seconds"}
WHERE_OR_WHEN |= {"samples_per_second", "generator", "measured"}  # measured: the preset's measured time
"""Keys that say where, when or by which code version a file was made, not what it holds."""


def read_json(path: Path):
    """A run's JSON file through the project's strict reader: a malformed one is an error naming it."""
    return read_json_file(path, message_error(MarpleError), allow_nan=True)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def differences(a, b, path: str, found: dict[str, set[str]]) -> None:
    """Record in ``found`` the paths where ``a`` and ``b`` differ and the keys only one of them holds."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key in WHERE_OR_WHEN:
                continue
            if key not in a or key not in b:
                found["one side only"].add(f"{path}/{key} ({'B' if key in b else 'A'} only)")
            else:
                differences(a[key], b[key], f"{path}/{key}", found)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for x, y in zip(a, b):
            differences(x, y, f"{path}[]", found)
    elif a != b:
        found["differ"].add(path)


def compare_data(a: Path, b: Path, found: dict[str, set[str]]) -> int:
    files = sorted(p.relative_to(a) for p in (a / "data").rglob("*") if p.is_file())
    for rel in files:
        other = b / rel
        if not other.is_file():
            found["differ"].add(f"{rel} (missing in B)")
        elif rel.name == "manifest.json":
            differences(read_json(a / rel), read_json(other), str(rel), found)
        elif sha256(a / rel) != sha256(other):
            found["differ"].add(str(rel))
    return len(files)


def compare_models(a: Path, b: Path, found: dict[str, set[str]]) -> int:
    import torch  # only here: the rest of the comparison needs no torch

    models = sorted(p.relative_to(a) for p in (a / "models").rglob("policy.pt"))
    for rel in models:
        if not (b / rel).is_file():
            found["differ"].add(f"{rel} (missing in B)")
            continue
        weights = [torch.load(run / rel, map_location="cpu", weights_only=True)["weights_sha256"] for run in (a, b)]
        if weights[0] != weights[1]:
            found["differ"].add(str(rel))
    return len(models)


def compare_results(a: Path, b: Path, found: dict[str, set[str]]) -> int:
    files = sorted(p.relative_to(a) for p in (a / "results").glob("*.json")) + [Path("benchmark.json")]
    for rel in files:
        if not (b / rel).is_file():
            found["differ"].add(f"{rel} (missing in B)")
            continue
        pair = read_json(a / rel), read_json(b / rel)
        if rel.name != "benchmark.json" and cutoff_of(pair[0]) != cutoff_of(pair[1]):
            pair = under_one_cutoff(a / rel, b / rel, found)
        differences(*pair, str(rel), found)
    return len(files)


def cutoff_of(results) -> object:
    return ((results.get("settings") or {}).get("protocol") or {}).get("cutoff")


def under_one_cutoff(a: Path, b: Path, found: dict[str, set[str]]) -> tuple[dict, dict]:
    """Two results files scored with and without the cutoff, as their answers and summaries under the cutoff."""
    from marple_eval.results import RunResults

    runs = [RunResults.load(path) for path in (a, b)]
    cutoffs = [ProtocolSettings.from_record(run.protocol).cutoff for run in runs]
    cutoff = next(c for c in cutoffs if c is not None)
    found["one side only"].add(f"{a.name}: scored without the cutoff on one side; compared under cutoff {cutoff}")
    seen = [run.with_cutoff(cutoff) if c is None else run for run, c in zip(runs, cutoffs)]
    return tuple(
        {
            "answers": [{"id": t.episode_id, "p_culprit": t.p_culprit, "labelings": answers(t)} for t in run.trials],
            "summary": run.summary(),
        }
        for run in seen
    )


def answers(trial) -> list[dict]:
    """Each labeling's answers (``p_a``, ``p_b``, ...) and where the culprit was shown, without the stored query
    probabilities (a run scored with the cutoff spares the points it cuts)."""
    return [{k: v for k, v in labeling.items() if not k.startswith("q_")} for labeling in trial.labelings]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_a", type=Path)
    parser.add_argument("run_b", type=Path)
    args = parser.parse_args(argv)
    for run in (args.run_a, args.run_b):
        if not (run / "benchmark.json").is_file():
            parser.error(f"{run} is not a finished benchmark run (no benchmark.json)")
    found: dict[str, set[str]] = {"differ": set(), "one side only": set()}
    try:
        counts = {
            "data files": compare_data(args.run_a, args.run_b, found),
            "agent models": compare_models(args.run_a, args.run_b, found),
            "results files (and benchmark.json)": compare_results(args.run_a, args.run_b, found),
        }
    except MarpleError as exc:
        print(f"compare_runs: error: {exc}", file=sys.stderr)
        return 2
    for what, n in counts.items():
        print(f"{what}: {n} compared")
    for key in sorted(found["one side only"]):
        print(f"  held by one side only: {key}")
    for key in sorted(found["differ"]):
        print(f"  DIFFERS: {key}")
    print("identical figures" if not found["differ"] else f"{len(found['differ'])} places differ")
    return 1 if found["differ"] else 0


if __name__ == "__main__":
    sys.exit(main())
