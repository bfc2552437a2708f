"""bench/compare_runs.py: two run folders hold the same figures, or it says where they differ."""

from __future__ import annotations

import json
import shutil

import pytest

torch = pytest.importorskip("torch")

from bench_scripts import load_bench  # noqa: E402


def write_run(run, *, shard: bytes = b"shard", weights: str = "w0", p_a: float = 0.7, extra: bool = False) -> None:
    """A run folder as marple benchmark leaves it, cut to what the comparison reads."""
    (run / "data" / "pillow").mkdir(parents=True)
    (run / "data" / "pillow" / "shard-00000.npz").write_bytes(shard)
    manifest = {"shards": {"b": {"sha256": "2"}, "a": {"sha256": "1"}}, "created": str(run)}
    (run / "data" / "manifest.json").write_text(json.dumps(manifest))
    (run / "models" / "pillow" / "A").mkdir(parents=True)
    torch.save({"weights_sha256": weights}, run / "models" / "pillow" / "A" / "policy.pt")
    trial = {"episode_id": "pillow/h00/000", "labelings": [{"p_a": [p_a], "p_b": [1 - p_a]}]}
    if extra:
        trial["query_taus"] = [0]  # what a newer version stores beside the old fields
    results = {"version": 2 if extra else 1, "created": "now", "settings": {"dataset": str(run)}, "trials": [trial]}
    (run / "results").mkdir()
    (run / "results" / "vision.json").write_text(json.dumps(results))
    (run / "benchmark.json").write_text(json.dumps({"accuracies": {"pillow": 0.62}, "preset": {"estimate": str(run)}}))
    if extra:  # a newer preset record says what its run measured instead
        benchmark = json.loads((run / "benchmark.json").read_text())
        benchmark["preset"] = {"measured": {"time": "40 minutes"}}
        (run / "benchmark.json").write_text(json.dumps(benchmark))


def test_runs_that_differ_only_in_where_and_when_and_new_fields_are_identical(tmp_path, capsys):
    write_run(tmp_path / "a")
    write_run(tmp_path / "b", extra=True)
    manifest = tmp_path / "b" / "data" / "manifest.json"
    listed = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**listed, "shards": dict(reversed(listed["shards"].items()))}))  # other order
    assert load_bench("compare_runs").main([str(tmp_path / "a"), str(tmp_path / "b")]) == 0
    out = capsys.readouterr().out
    assert "identical figures" in out and "results/vision.json/trials[]/query_taus (B only)" in out


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"shard": b"other"}, "data/pillow/shard-00000.npz"),
        ({"weights": "w1"}, "models/pillow/A/policy.pt"),
        ({"p_a": 0.71}, "results/vision.json/trials[]/labelings[]/p_a"),
    ],
)
def test_a_changed_shard_model_or_answer_is_named_and_fails(tmp_path, capsys, change, named):
    write_run(tmp_path / "a")
    write_run(tmp_path / "b", **change)
    assert load_bench("compare_runs").main([str(tmp_path / "a"), str(tmp_path / "b")]) == 1
    assert f"DIFFERS: {named}" in capsys.readouterr().out


def test_an_unfinished_run_is_refused_by_name(tmp_path, capsys):
    write_run(tmp_path / "a")
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    (tmp_path / "b" / "benchmark.json").unlink()
    with pytest.raises(SystemExit) as refused:
        load_bench("compare_runs").main([str(tmp_path / "a"), str(tmp_path / "b")])
    assert refused.value.code == 2 and "is not a finished benchmark run" in capsys.readouterr().err


def test_a_model_the_second_run_lacks_is_named_not_a_crash(tmp_path, capsys):
    """A run of more splits (in and ood) against one of fewer: the missing agent models are differences."""
    write_run(tmp_path / "a")
    write_run(tmp_path / "b")
    (tmp_path / "a" / "models" / "pillow" / "B").mkdir()
    torch.save({"weights_sha256": "w2"}, tmp_path / "a" / "models" / "pillow" / "B" / "policy.pt")
    assert load_bench("compare_runs").main([str(tmp_path / "a"), str(tmp_path / "b")]) == 1
    assert "DIFFERS: models/pillow/B/policy.pt (missing in B)" in capsys.readouterr().out


def test_a_malformed_results_file_is_an_error_naming_it(tmp_path, capsys):
    write_run(tmp_path / "a")
    write_run(tmp_path / "b")
    (tmp_path / "b" / "results" / "vision.json").write_text("{")
    assert load_bench("compare_runs").main([str(tmp_path / "a"), str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err
    assert "compare_runs: error:" in err and "vision.json" in err


def scored(cutoff, p_late: float = 0.9):
    """A one-trial run of T = 60 whose method answered p_late from tau 40 on, scored with or without ``cutoff``."""
    from marple_eval.results import RunResults, TrialResult
    from marple_eval.settings import ProtocolSettings

    settings = ProtocolSettings(cutoff=cutoff)
    taus = settings.taus(60)
    p = [0.5 if settings.is_cut(60, tau) else (p_late if tau >= 40 else 0.6) for tau in taus]
    trial = TrialResult("pillow/h00/000", "pillow", 60, taus, p, [{"swap": False, "p_a": p, "p_b": [1 - x for x in p]}])
    return RunResults("vision", {"protocol": settings.record()}, [trial])


@pytest.mark.parametrize(("p_late", "code"), [(0.9, 0), (0.91, 1)])
def test_a_run_scored_with_the_cutoff_is_compared_with_an_uncut_one_under_the_cutoff(tmp_path, capsys, p_late, code):
    write_run(tmp_path / "a")
    write_run(tmp_path / "b")
    scored(None).save(tmp_path / "a" / "results" / "vision.json")  # the earlier preset scored it without the cutoff
    scored(40, p_late).save(tmp_path / "b" / "results" / "vision.json")
    assert load_bench("compare_runs").main([str(tmp_path / "a"), str(tmp_path / "b")]) == code
    out = capsys.readouterr().out
    assert "vision.json: scored without the cutoff on one side; compared under cutoff 40" in out
    assert ("DIFFERS: results/vision.json/answers[]/p_culprit" in out) == (code == 1)
