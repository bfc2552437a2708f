"""Training speed options: each gives the paper's recipe unchanged (the same weights or loss, within a tolerance)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("lightning")

from tiny_models import TINY, synthetic_samples, train_tiny  # noqa: E402

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
    assert on_cpu.fused_optimizer and not (on_cpu.compile or on_cpu.data_on_device)  # one kernel helps a CPU too
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


def test_fused_adam_under_bf16_autocast_trains_and_clips_as_lightning_does(tmp_path):
    """Lightning's mixed-precision plugin refused to clip gradients for the fused AdamW, so every GPU run (bf16
    autocast, fused on by default) stopped at its first optimizer step; the module now clips them itself."""
    plain, _ = trained(tmp_path, "plain-bf16", precision="bf16-mixed", fused_optimizer=False)
    fused, recorded = trained(tmp_path, "fused-bf16", precision="bf16-mixed", fused_optimizer=True)
    assert recorded["fused_optimizer"] and recorded["precision"] == "bf16-mixed"
    assert_close(plain, fused, atol=1e-5)


def test_the_module_clips_the_fused_optimizers_gradients_to_the_norm_asked_for():
    from types import SimpleNamespace

    from marple_agents.training.module import PolicyModule

    model, train = preset("small", "vision")
    module = PolicyModule(model.to_dict(), vars(train) | {"fused_optimizer": True})
    module.trainer = SimpleNamespace(precision_plugin=SimpleNamespace(scaler=None))  # bf16: no gradient scaler
    optimizer = torch.optim.AdamW(module.parameters(), fused=True)
    for p in module.parameters():
        p.grad = torch.full_like(p, 3.0)
    module.configure_gradient_clipping(optimizer, gradient_clip_val=1.0, gradient_clip_algorithm="norm")
    norm = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(p.grad) for p in module.parameters()]))
    assert norm == pytest.approx(1.0, rel=1e-4)


def test_train_policy_runs_the_callbacks_it_is_given(tmp_path):
    """Extra Lightning callbacks join the trainer's own (bench/bench_train.py times steps with one)."""
    import lightning as L

    class CountSteps(L.Callback):
        steps = 0

        def on_train_batch_end(self, trainer, *args):
            self.steps += 1

    counter = CountSteps()
    train_tiny(tmp_path / "counted", max_steps=3, batch_size=8, callbacks=[counter])
    assert counter.steps == 3
