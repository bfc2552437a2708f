"""Training speed options: each gives the paper's recipe unchanged (the same weights or loss, within a tolerance)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("lightning")

from tiny_models import TINY, synthetic_samples  # noqa: E402

from marple_agents import train_policy  # noqa: E402
from marple_agents.checkpoints import read_checkpoint  # noqa: E402
from marple_agents.config import TrainConfig, micro_batches, preset, speed_settings  # noqa: E402


def trained(tmp_path, name: str, **options) -> tuple[dict, dict]:
    """A few optimizer steps of a tiny vision model on synthetic data: (weights, metrics of the run)."""
    result = train_policy(
        None,
        samples=synthetic_samples(),
        out_dir=tmp_path / name,
        max_steps=6,
        accelerator="cpu",
        devices=1,
        progress=False,
        **{**TINY, "batch_size": 8, "lr": 3e-3, **options},
    )
    return read_checkpoint(result.checkpoint)["state_dict"], result.config["train"]


def assert_close(a: dict, b: dict, atol: float) -> None:
    assert a.keys() == b.keys()
    worst = max((a[k].float() - b[k].float()).abs().max().item() for k in a)
    assert worst <= atol, f"weights differ by up to {worst}"


def test_options_turn_on_where_they_help_and_keep_the_paper_recipe():
    _, paper = preset("paper")
    assert (paper.batch_size, paper.accumulate, paper.lr, paper.max_epochs) == (64, 2, 1e-4, 20)
    assert micro_batches(paper) == (128, 1)  # one pass of 128 rows per optimizer step, the same gradient
    assert micro_batches(TrainConfig(batch_size=64, accumulate=2, fold_accumulation=False)) == (64, 2)
    on_gpu, on_cpu = speed_settings(paper, True), speed_settings(paper, False)
    assert on_gpu.compile and on_gpu.fused_optimizer and on_gpu.data_on_device
    assert not (on_cpu.compile or on_cpu.fused_optimizer or on_cpu.data_on_device)
    assert speed_settings(TrainConfig(compile=False), True).compile is False  # an explicit choice stands


def test_one_folded_pass_gives_the_weights_of_accumulated_passes(tmp_path):
    accumulated, recorded = trained(tmp_path, "accumulated", accumulate=2, fold_accumulation=False)
    folded, _ = trained(tmp_path, "folded", accumulate=2, fold_accumulation=True)
    assert recorded["batch_size"] == 8 and recorded["accumulate"] == 2  # the recipe, as written
    assert_close(accumulated, folded, atol=1e-5)


def test_fused_adam_and_data_on_the_device_give_the_same_weights(tmp_path):
    plain, _ = trained(tmp_path, "plain", fused_optimizer=False, data_on_device=False)
    fused, recorded = trained(tmp_path, "fused", fused_optimizer=True, data_on_device=True)
    assert recorded["fused_optimizer"] and recorded["data_on_device"]
    assert_close(plain, fused, atol=1e-5)


@pytest.mark.slow
def test_a_compiled_network_learns_as_the_eager_one(tmp_path):
    """torch.compile (inductor, a C compiler on the CPU): the same weights within float tolerance."""
    eager, _ = trained(tmp_path, "eager", compile=False)
    compiled, recorded = trained(tmp_path, "compiled", compile=True)
    assert recorded["compile"] is True
    assert_close(eager, compiled, atol=1e-4)
