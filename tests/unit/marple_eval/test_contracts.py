"""Checkpoints and results files record the asset and mission tables and refuse others, naming the table."""

from __future__ import annotations

import json

import pytest

from marple_eval.results import RunResults, TrialResult
from marple_gym.missions.tables import TableMismatchError, table_fingerprints


def test_results_files_record_the_tables_and_name_the_one_that_changed(tmp_path):
    run = RunResults("reference", {}, [TrialResult("e1", "laundry", 30, [0, 10], [0.5, 0.9])])
    path = run.save(tmp_path / "run.json")
    data = json.loads(path.read_text())
    assert data["tables"] == table_fingerprints()
    data["tables"]["missions"] = "f" * 16
    path.write_text(json.dumps(data))
    with pytest.raises(TableMismatchError, match="different missions table"):
        RunResults.load(path)
    del data["tables"]  # written before fingerprints were recorded: loads unchanged
    path.write_text(json.dumps(data))
    assert RunResults.load(path).trials[0].episode_id == "e1"


def test_checkpoints_record_the_tables_and_name_the_one_that_changed(tmp_path):
    torch = pytest.importorskip("torch")
    from marple_agents.checkpoints import read_checkpoint, save_checkpoint
    from marple_agents.config import ModelConfig
    from marple_agents.networks import build_model

    config = ModelConfig(
        conditioning="vision", width=32, depth=1, heads=2, mlp_ratio=2, head_hidden=16, decoder_hidden=16, glimpse=0
    )
    path = save_checkpoint(tmp_path / "policy.pt", build_model(config), config)
    payload = read_checkpoint(path)
    assert payload["tables"] == table_fingerprints()
    payload["tables"]["assets"] = "0" * 16
    torch.save(payload, path)
    with pytest.raises(TableMismatchError, match="different assets table"):
        read_checkpoint(path)
