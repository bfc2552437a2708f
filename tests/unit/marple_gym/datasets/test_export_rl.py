"""``marple export``: Minari and Parquet round trips, and short reprs for records."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import warnings

import numpy as np
import pytest

import marple_gym
from marple.cli.main import main
from marple_gym.datasets import DatasetSpec, MarpleDataset, Sizes, Unit, generate_dataset
from marple_gym.datasets.export import (
    ExportError,
    export_dataset,
    export_minari,
    export_parquet,
    minari_provenance,
    step_arrays,
)

pytest.importorskip("minari")
pq = pytest.importorskip("pyarrow.parquet")


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> MarpleDataset:
    root = tmp_path_factory.mktemp("export") / "data"
    sizes = Sizes(test_houses=1, test_per_house=1, train_per_house=2, train_ood=1)
    generate_dataset(DatasetSpec([Unit.mission("get_snack")], sizes=sizes, seed=5, shard_size=2), root, progress=False)
    return MarpleDataset(root)


def test_minari_round_trip_keeps_every_step(data, tmp_path, monkeypatch):
    import minari

    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    export_minari(data, "get_snack", "train-in", "marple/get_snack/train-in-v0")
    loaded = minari.load_dataset("marple/get_snack/train-in-v0")
    originals = list(data.trajectories("get_snack", "train-in"))
    assert loaded.total_episodes == len(originals)
    assert loaded.observation_space["image"].shape == originals[0].vision.shape[1:]
    assert loaded.action_space.n == 10
    for episode, tr in zip(loaded.iterate_episodes(), originals):
        expected = step_arrays(tr)
        for key, value in expected.items():
            assert np.array_equal(episode.observations[key], value), key
        assert np.array_equal(episode.actions, tr.actions)
        assert episode.rewards.sum() == 1.0 and episode.terminations[-1]
    with pytest.raises(ExportError, match="exists already"):
        export_minari(data, "get_snack", "train-in", "marple/get_snack/train-in-v0")


def test_a_minari_export_sets_its_metadata_so_minari_warns_of_nothing(data, tmp_path, monkeypatch):
    import minari

    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        export_minari(data, "get_snack", "train-in", "marple/get_snack/train-in-v0")
    assert [str(w.message) for w in caught] == []
    metadata = minari.load_dataset("marple/get_snack/train-in-v0").storage.metadata
    assert metadata["author"] == {"The MARPLE-Gym contributors"}
    assert metadata["code_permalink"].endswith(f"/tree/v{marple_gym.__version__}")
    assert metadata["author_email"] == {minari_provenance()["author_email"]}


def test_a_minari_export_recovers_the_env_its_episodes_come_from(data, tmp_path, monkeypatch):
    import minari

    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    export_minari(data, "get_snack", "train-in", "marple/get_snack/train-in-v0")
    loaded = minari.load_dataset("marple/get_snack/train-in-v0")
    assert loaded.env_spec.id == "Marple-Household-v0"
    assert loaded.recover_environment(eval_env=True).spec.kwargs == loaded.env_spec.kwargs
    env = loaded.recover_environment()
    assert env.observation_space == loaded.observation_space and env.action_space == loaded.action_space
    obs, info = env.reset(seed=0)
    assert loaded.observation_space.contains(obs) and info["mission"] == "get_snack"
    assert loaded.observation_space.contains(env.step(2)[0])
    episode = next(loaded.iterate_episodes())
    assert env.observation_space["image"].shape == episode.observations["image"].shape[1:]


def test_parquet_has_one_row_per_observation_and_the_decoded_vision(data, tmp_path):
    path = export_parquet(data, "get_snack", "train-in", tmp_path / "steps.parquet")
    table = pq.read_table(path)
    originals = list(data.trajectories("get_snack", "train-in"))
    assert table.num_rows == sum(tr.length + 1 for tr in originals)
    first = originals[0]
    rows = table.slice(0, first.length + 1).to_pydict()
    assert rows["action"][:-1] == first.actions.tolist() and rows["action"][-1] is None
    assert rows["intent"] == first.intents and rows["audio"] == first.audio.tolist()
    vision = table.column("vision").combine_chunks().to_numpy_ndarray()
    assert np.array_equal(vision[: first.length + 1], first.vision)
    assert [p.name for p in tmp_path.iterdir()] == ["steps.parquet"]  # no temporary file left
    with pytest.raises(ExportError, match="exists already"):
        export_parquet(data, "get_snack", "train-in", path)


@pytest.mark.parametrize("dataset_id", ["plainname", "../../escape-v0", "/abs/path-v0", "marple/../x-v0", "a//b-v0"])
def test_a_minari_id_that_is_not_a_folder_inside_the_root_is_refused(data, tmp_path, dataset_id):
    import minari

    root = tmp_path / "deep" / "minari"
    with pytest.raises(ExportError, match="expected NAMESPACE/NAME-vN"):
        export_minari(data, "get_snack", "train-in", dataset_id, root=root)
    assert listing(tmp_path) <= {"deep", "deep/minari"}  # nothing written, inside the root or beside it
    with pytest.MonkeyPatch.context() as m:
        m.setenv("MINARI_DATASETS_PATH", str(root))
        assert minari.list_local_datasets() == {}  # Minari still lists its root


KILLED_EXPORT = """
import os, signal, sys
from minari.dataset._storages.arrow_storage import ArrowStorage
from marple_gym.datasets import MarpleDataset
from marple_gym.datasets.export import export_minari

def killed(self, episodes):  # the process dies while the episodes are being written
    os.kill(os.getpid(), signal.SIGKILL)

ArrowStorage.update_episodes = killed  # its metadata is written: the dataset would list with 0 episodes
export_minari(MarpleDataset(sys.argv[1]), "get_snack", "train-in", "marple/get_snack/train-in-v0", root=sys.argv[2])
"""


def test_a_killed_minari_export_leaves_no_dataset_and_the_next_one_cleans_up(data, tmp_path, monkeypatch):
    import minari

    root = tmp_path / "minari"
    killed = subprocess.run([sys.executable, "-c", KILLED_EXPORT, str(data.root), str(root)], capture_output=True)
    assert killed.returncode == -signal.SIGKILL
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".minari.export-")]  # what it left behind
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(root))
    assert minari.list_local_datasets() == {}  # no half-written dataset with 0 episodes
    dataset = export_minari(data, "get_snack", "train-in", "marple/get_snack/train-in-v0", root=root)
    assert dataset.total_episodes == len(list(data.trajectories("get_snack", "train-in")))
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".minari.export-")]


def test_only_staging_folders_of_processes_gone_are_removed_whatever_their_names(tmp_path):
    from marple_gym.datasets.export import STAGING, _remove_stale_staging

    root = tmp_path / "datasets"
    names = {"gone": "99999999999999999999999-x", "odd": "\u00b2-x", "alive": f"{os.getpid()}-x", "no pid": "x-y"}
    for name in names.values():
        (tmp_path / f".{root.name}{STAGING}{name}").mkdir()
    _remove_stale_staging(root)
    left = {p.name.removeprefix(f".{root.name}{STAGING}") for p in tmp_path.iterdir()}
    assert left == {names["odd"], names["alive"], names["no pid"]}


def test_parquet_to_a_folder_is_refused_and_a_failed_export_leaves_nothing(data, tmp_path):
    for folder in (f"{tmp_path / 'newdir'}/", tmp_path):
        with pytest.raises(ExportError, match="is a folder; give the file to write"):
            export_parquet(data, "get_snack", "train-in", folder)
    with pytest.raises(ExportError, match="no test-nothing trajectories"):
        export_parquet(data, "get_snack", "test-nothing", tmp_path / "none.parquet")
    assert listing(tmp_path) == set()


def listing(root) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def test_cli_export_writes_parquet_and_rejects_unknown_units(data, tmp_path, capsys):
    out = tmp_path / "cli.parquet"
    assert main(["export", str(data.root), "--unit", "get_snack", "--format", "parquet", "--out", str(out)]) == 0
    assert out.is_file()
    assert (
        main(["export", str(data.root), "--unit", "laundry", "--format", "parquet", "--out", str(tmp_path / "x")]) == 2
    )
    assert "laundry" in capsys.readouterr().err and not (tmp_path / "x").exists()


def test_export_dataset_dispatches_on_the_format_and_says_what_it_wrote(data, tmp_path, monkeypatch):
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    parquet = export_dataset(data.root, "get_snack", "train-in", "parquet", tmp_path / "t.parquet")
    assert str(parquet) == str(tmp_path / "t.parquet") and pq.read_table(tmp_path / "t.parquet").num_rows > 0
    minari = export_dataset(data.root, "get_snack", "train-in", "minari", role="A")
    episodes = len(list(data.trajectories("get_snack", "train-in", role="A")))
    assert str(minari) == f"Minari dataset marple/get_snack/train-in-v0: {episodes} episodes, {minari.steps} steps"
    with pytest.raises(ExportError, match="unknown export format 'csv'"):
        export_dataset(data.root, "get_snack", "train-in", "csv", tmp_path / "t.csv")
    with pytest.raises(ValueError, match="--out FILE.parquet is needed"):
        export_dataset(data.root, "get_snack", "train-in", "parquet")


def test_trajectory_repr_is_one_short_line(data):
    tr = next(data.trajectories("get_snack", "train-in"))
    text = repr(tr)
    assert "\n" not in text and len(text) < 200 and f"steps={tr.length}" in text


# ---- experiment loggers ---------------------------------------------------------------------------------


def _tiny_training(tmp_path, logger: str):
    pytest.importorskip("torch")
    pytest.importorskip("lightning")
    from tiny_models import train_tiny

    return train_tiny(tmp_path, epochs=2, logger=logger)


def test_csv_and_tensorboard_loggers_record_the_same_metrics(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    _tiny_training(tmp_path / "csv", "csv")
    header = next((tmp_path / "csv").glob("logs/version_*/metrics.csv")).read_text().splitlines()[0].split(",")
    _tiny_training(tmp_path / "tb", "tensorboard")
    events = EventAccumulator(str(next((tmp_path / "tb").glob("logs/version_*")))).Reload()
    metrics = {"train/loss", "train/acc", "val/loss", "val/acc"}
    assert metrics <= set(header) and metrics <= set(events.Tags()["scalars"])


def test_wandb_logger_runs_offline(tmp_path, monkeypatch):
    pytest.importorskip("wandb")
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_SILENT", "true")
    result = _tiny_training(tmp_path, "wandb")
    assert result.checkpoint.is_file()
    assert list((tmp_path / "wandb").glob("offline-run-*"))


def test_unknown_logger_is_refused(tmp_path):
    from marple_agents.loggers import LoggerError, make_logger

    with pytest.raises(LoggerError, match="unknown logger"):
        make_logger("mlflow", tmp_path)
