"""Slices: one agent model at a time, and their merge into the benchmark's results files, byte for byte."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("lightning")

from tiny_models import TINY_BENCHMARK  # noqa: E402

import marple.benchmark.slices as slices_module  # noqa: E402
import marple_eval.results as results_module  # noqa: E402
from marple.benchmark import BenchmarkConfig  # noqa: E402
from marple.benchmark import presets as presets_module  # noqa: E402
from marple.benchmark.ledger import LEDGER, REFERENCE, add_slice, landed, ledger_table, series_dir, table2  # noqa: E402
from marple.benchmark.merge import assemble, merge_slices  # noqa: E402
from marple.benchmark.pipeline import inference_runs, score_run, stage_data, stage_models  # noqa: E402
from marple.benchmark.slices import SliceError, SliceKey, read_slice, run_slice, slice_config  # noqa: E402
from marple.cli.main import main  # noqa: E402
from marple_agents.checkpoints import read_checkpoint  # noqa: E402
from marple_eval.protocol import dataset_episodes  # noqa: E402
from marple_eval.workers import TrialWorkers  # noqa: E402
from marple_gym.datasets import MarpleDataset  # noqa: E402

SCENARIO = "pillow"
NOW = "2026-11-28T12:00:00+00:00"
# Named as the slice command names it (the test puts it in the small preset's place); vision scored without the
# cutoff, audio with it: both kinds of stored answers.
TINY = replace(TINY_BENCHMARK, name="small", uncut=("vision",))


@dataclass
class Pieces:
    whole: BenchmarkConfig  # the ordinary run: the benchmark's own data, models and results files
    results: dict[str, bytes]  # its results files of the two variants, by name
    slices: list[Path]  # the two slice files (agent A's through the command line, B's through the function)


@pytest.fixture(scope="module")
def pieces(tmp_path_factory) -> Pieces:
    """A one-scenario benchmark's vision and vision+audio runs scored at once (over one shared set of worker
    processes), and the same scored as two slices (one per agent), every file stamped at one time (a results file
    records when it was made)."""
    root = tmp_path_factory.mktemp("slices")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(results_module, "creation_time", lambda: NOW)
        patch.setattr(slices_module, "creation_time", lambda: NOW)
        patch.setitem(presets_module.PRESETS, "small", TINY)
        whole = BenchmarkConfig(TINY, root / "whole", (SCENARIO,), ("vision", "audio"), workers=1, progress=False)
        stage_data(whole)
        stage_models(whole)
        episodes = dataset_episodes(MarpleDataset(whole.data), whole.scenarios, TINY.trials)
        names = []
        # Scored as the inference stage scores on the CPU: one set of worker processes for both runs, whose
        # policy caches serve the audio run from the vision run's answers.
        with TrialWorkers(2) as pool:
            for run in inference_runs(whole):
                if run.model == "simulation" and run.split == "in":
                    score_run(whole, run, episodes=episodes, pool=pool)
                    names.append(run.name)
        results = {name: whole.results(name).read_bytes() for name in names}
        out = root / "slices"
        reference = whole.data / "manifest.json"
        series = series_dir("small", 0, root)  # the command's default manifest: its series folder's
        series.mkdir()
        shutil.copyfile(reference, series / REFERENCE)
        args = ["slice", "run", f"{SCENARIO}/A-vision", "--preset", "small", "--ledger", str(series)]
        args += ["--work", str(root / "work-A"), "--out", str(out), "--workers", "1", "--no-progress"]
        assert main(args) == 0
        key = SliceKey(SCENARIO, "B", "vision")
        cfg = slice_config(key, TINY, root / "work-B", workers=1, progress=False)
        second = run_slice(cfg, key, reference, out)
    return Pieces(whole, results, [out / f"{SCENARIO}-A-vision.json", second])


def test_two_slices_merge_into_the_benchmarks_results_files_byte_for_byte(pieces, tmp_path):
    """Each agent scored alone, in a slice with its own regenerated data and its own training, gives the very
    files the benchmark writes when it scores both at once: the same models, the same answers, the same bytes."""
    slices = [read_slice(p) for p in pieces.slices]
    for piece in slices:
        trained = pieces.whole.checkpoint(SCENARIO, "in", piece.key.role, "vision", 0)
        assert piece.model["weights_sha256"] == read_checkpoint(trained)["weights_sha256"]
        assert piece.data["shards"] == 6 and set(piece.seconds) == {"data", "model", "scores"}
    for name in pieces.results:
        pieces.whole.results(name).unlink()
    written = merge_slices(slices, pieces.whole.out)  # into the benchmark's own folder, as a user would
    assert [w.variant for w in written if w.run is not None] == ["vision", "audio"]
    for name, expected in pieces.results.items():
        assert pieces.whole.results(name).read_bytes() == expected, name
    # One half alone is no run: the scenario is reported missing the other agent.
    alone = assemble(slices[:1], "vision", tmp_path)
    assert alone.run is None and [k.name for k in alone.missing[SCENARIO]] == [f"{SCENARIO}/B-vision"]


def test_landed_slices_fill_the_ledger_and_table_2_marks_every_missing_cell(pieces, tmp_path, capsys):
    folder = series_dir("small", 0, tmp_path)
    folder.mkdir()
    shutil.copyfile(pieces.whole.data / "manifest.json", folder / REFERENCE)
    assert main(["slice", "add", *map(str, pieces.slices), "--ledger", str(folder)]) == 0
    assert f"{SCENARIO}/B-vision: entered in {folder / LEDGER}" in capsys.readouterr().out
    assert sorted(s.key.name for s in landed(folder)) == [f"{SCENARIO}/A-vision", f"{SCENARIO}/B-vision"]
    listing = ledger_table(folder)
    assert listing.count("| missing |") == 18 and f"| {SCENARIO}/A-vision | cpu |" in listing
    assert main(["slice", "list", "--ledger", str(folder)]) == 0 and capsys.readouterr().out.strip() == listing
    assert main(["slice", "merge", "--ledger", str(folder), "--out", str(tmp_path / "merged")]) == 0
    said = capsys.readouterr().out
    assert "vision: 2 trials of pillow; scenarios left out, lacking " in said and "laundry/B-vision" in said
    assert "language: nothing to write" in said
    assert sorted(p.stem for p in (tmp_path / "merged" / "results").iterdir()) == sorted(pieces.results)
    assert main(["report", "--slices", str(folder)]) == 0
    table = capsys.readouterr().out
    assert "2 of 20 slices" in table and "## cutoff 40" in table and "## no cutoff" in table
    rows = {line.split(" | ")[0].strip("| "): line for line in table.splitlines() if line.startswith("| Vision")}
    assert (
        "1 of 5 scenarios" in rows["Vision only"]
        and "missing: laundry/A-vision, laundry/B-vision" in rows["Vision only"]
    )
    assert "| Vision only | 0.85 | 1 of 5 scenarios |" in table  # the paper's figure beside ours, under its cutoff
    assert "missing: pillow/A-language, pillow/B-language" in rows["Vision+Language"]
    # Entering one again is refused unless asked; a changed file no longer matches its ledger entry.
    with pytest.raises(SliceError, match="already holds slice pillow/A-vision"):
        add_slice(folder, pieces.slices[0])
    add_slice(folder, pieces.slices[0], replace=True)
    entered = folder / f"{SCENARIO}-A-vision.json"
    entered.write_text(entered.read_text().replace('"seed": 0', '"seed": 0 '))
    with pytest.raises(SliceError, match="not the file ledger.json entered"):
        landed(folder)


def test_a_series_reference_manifest_checks_what_one_scenario_alone_regenerates(pieces, tmp_path, monkeypatch, capsys):
    """The reference is made from every scenario at once; a slice regenerates its scenario alone, with no
    out-of-distribution split: the shards they share are the same files, byte for byte."""
    monkeypatch.setitem(presets_module.PRESETS, "small", TINY)
    series = tmp_path / "small-seed0"
    args = ["slice", "manifest", "--preset", "small", "--work", str(tmp_path / "data"), "--ledger", str(series)]
    assert main([*args, "--workers", "1", "--no-progress"]) == 0
    assert "the checksums of 30 shards" in capsys.readouterr().out
    made = json.loads((series / REFERENCE).read_text())
    assert len(made["spec"]["units"]) == 5 and made["spec"]["splits"] == ["test", "train-in"]
    alone = json.loads((pieces.whole.data / "manifest.json").read_text())["shards"]
    shared = [path for path in made["shards"] if path.startswith(f"{SCENARIO}/")]
    assert len(shared) == 6 and all(made["shards"][p]["sha256"] == alone[p]["sha256"] for p in shared)


def test_the_table_with_no_slices_is_all_missing():
    table = table2([])
    assert "no slices yet (0 of 20)" in table and table.count("missing: laundry/A-vision, laundry/B-vision") == 4


def test_a_slice_refuses_data_that_differ_from_the_manifest(pieces, tmp_path):
    reference = json.loads((pieces.whole.data / "manifest.json").read_text())
    first = next(p for p in sorted(reference["shards"]) if "/train-in/A/" in p)
    reference["shards"][first]["sha256"] = "0" * 64
    (tmp_path / "manifest.json").write_text(json.dumps(reference))
    key = SliceKey(SCENARIO, "A", "vision")
    cfg = slice_config(key, TINY, tmp_path / "work", workers=1, progress=False)
    with pytest.raises(SliceError, match=f"1 of the 6 shards generated here differ .*first: {first}"):
        run_slice(cfg, key, tmp_path / "manifest.json", tmp_path)
    other = slice_config(key, TINY, tmp_path / "seed-3", seed=3, workers=1, progress=False)
    with pytest.raises(SliceError, match="its data has seed 0, this slice's 3"):
        run_slice(other, key, pieces.whole.data / "manifest.json", tmp_path)


def test_halves_of_other_runs_do_not_merge(pieces, tmp_path):
    record = json.loads(pieces.slices[1].read_text())
    record["runs"]["vision"]["trials"][0]["horizon"] += 1
    changed = tmp_path / "pillow-B-vision.json"
    changed.write_text(json.dumps(record))
    with pytest.raises(SliceError, match="scored on other trials"):
        assemble([read_slice(pieces.slices[0]), read_slice(changed)], "vision", tmp_path)
    record["seed"] = 1
    changed.write_text(json.dumps(record))
    with pytest.raises(SliceError, match="other seeds"):
        assemble([read_slice(pieces.slices[0]), read_slice(changed)], "vision", tmp_path)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"format": "marple-results"}, "format: not a slice file"),
        ({"slice": "pillow/C-vision"}, "slice: slice 'pillow/C-vision': expected pillow/ROLE-KIND"),
        ({"runs": {}}, "runs: expected the runs of vision, audio, found none"),
    ],
)
def test_a_malformed_slice_file_is_named(pieces, tmp_path, change, message):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**json.loads(pieces.slices[0].read_text()), **change}))
    with pytest.raises(SliceError, match=f"{bad}.*{message}"):
        read_slice(bad)


@pytest.mark.parametrize("text", ["laundry", "laundry/A", "laundry/C-vision", "laundy/A-vision", "laundry/A-audio"])
def test_a_slice_is_named_scenario_role_kind(text, capsys):
    assert main(["slice", "run", text, "--manifest", "nowhere.json"]) == 2
    assert "ROLE-KIND" in capsys.readouterr().err
