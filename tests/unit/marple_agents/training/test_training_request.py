"""``run_training``: a training request checked before anything is written, and no half-written folder after a
failed run."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("lightning")

import marple_agents.device as device  # noqa: E402
import marple_agents.training.train as train  # noqa: E402
from marple_agents.device import DeviceError, check_training_devices  # noqa: E402
from marple_agents.training.request import TrainingRequest, generate_hint, run_training  # noqa: E402
from marple_gym.datasets import DatasetSpec, Sizes, Unit, generate_dataset  # noqa: E402
from marple_gym.errors import MarpleError  # noqa: E402


@pytest.fixture(scope="module")
def pillow_data(tmp_path_factory):
    root = tmp_path_factory.mktemp("training-request") / "data"
    spec = DatasetSpec([Unit.scenario("pillow")], Sizes(2, 1, 2, 1), seed=3, splits=("train-in",))
    generate_dataset(spec, root, workers=1, progress=False)
    return root


def test_a_gpu_run_on_a_machine_without_gpus_is_refused_before_training(monkeypatch):
    monkeypatch.setattr(device, "_cuda_count", lambda: 0)
    with pytest.raises(DeviceError, match="--accelerator gpu --devices 2: this machine has 0 GPU"):
        check_training_devices("gpu", 2)
    check_training_devices("cpu", 2)  # the CPU needs no GPU


def test_training_without_data_names_the_generate_command_and_writes_nothing(tmp_path):
    request = TrainingRequest(data=str(tmp_path / "nothing"), mission="do_laundry", out=str(tmp_path / "out"))
    with pytest.raises(MarpleError, match="no dataset here") as error:
        run_training(request)
    assert generate_hint(str(tmp_path / "nothing"), "do_laundry", "mission", "train-in") in str(error.value)
    assert not (tmp_path / "out").exists()


def test_a_failed_run_leaves_no_half_written_folder(pillow_data, tmp_path, monkeypatch):
    def fail(*args, out_dir, **kwargs):
        (out_dir / "logs").mkdir(parents=True)
        raise RuntimeError("out of memory")

    monkeypatch.setattr(train, "train_policy", fail)
    out = tmp_path / "policy"
    with pytest.raises(RuntimeError, match="out of memory"):
        run_training(TrainingRequest(data=str(pillow_data), scenario="pillow", out=str(out)))
    assert not out.exists()
