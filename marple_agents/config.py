"""Plain, JSON-serialisable settings of the agent models and their training, with the named presets.

A checkpoint stores :class:`ModelConfig` as a plain dict beside the weights, so
a model can be rebuilt without unpickling anything.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from marple_gym.errors import MarpleError

CONDITIONINGS = ("vision", "language")
POSITIONS = ("absolute", "egocentric", "both")
TRAINING_SPLITS = {"in": "train-in", "ood": "train-ood"}  # a training split by its short name (marple train --split)
HOLDOUTS = ("houses", "episodes")  # what validation holds out (see marple_agents.training.states.holdout_mask)


class ModelConfigError(MarpleError, ValueError):
    """Settings that do not describe a valid model or training run."""


@dataclass(frozen=True)
class ModelConfig:
    """Architecture of a policy network (see :mod:`marple_agents.networks`).

    ``depth`` transformer blocks in all, of which the last ``readout_depth``
    update only the agent's token (see :mod:`marple_agents.networks.encoder`); a
    language-conditioned model adds its subgoal to the cells before those.
    """

    conditioning: str = "vision"  # "vision" or "language"
    width: int = 64
    depth: int = 4
    heads: int = 2
    mlp_ratio: int = 2
    head_layers: int = 2  # layers of the action MLP (the paper: 4)
    head_hidden: int = 128
    decoder_hidden: int = 64  # hidden width of the subgoal decoders (the paper: 256)
    readout_depth: int = 1
    positions: str = "both"  # position embeddings: "absolute", "egocentric" (in the agent's own frame) or "both"
    glimpse: int = 0  # r > 0: the readout also sees the (2r+1)^2 cells around the agent in its own frame
    dropout: float = 0.0

    def __post_init__(self) -> None:
        if self.conditioning not in CONDITIONINGS:
            raise ModelConfigError(f"conditioning must be one of {CONDITIONINGS}, got {self.conditioning!r}")
        if self.positions not in POSITIONS:
            raise ModelConfigError(f"positions must be one of {POSITIONS}, got {self.positions!r}")
        if self.width < 8 or self.width % 4:
            raise ModelConfigError(f"width must be a multiple of 4 and at least 8, got {self.width}")
        if self.heads < 1 or self.width % self.heads:
            raise ModelConfigError(f"width {self.width} is not divisible by heads {self.heads}")
        if self.depth < 1 or self.head_layers < 1 or self.mlp_ratio < 1:
            raise ModelConfigError("depth, head_layers and mlp_ratio must be at least 1")
        if self.glimpse < 0:
            raise ModelConfigError(f"glimpse must be 0 (none) or a radius of at least 1, got {self.glimpse}")
        if not 1 <= self.readout_depth <= self.depth:
            raise ModelConfigError(
                f"readout_depth must be between 1 and depth ({self.depth}), got {self.readout_depth}"
            )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelConfig:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ModelConfigError(f"unknown model settings {unknown}; this version knows {sorted(known)}")
        return cls(**data)


@dataclass(frozen=True)
class TrainConfig:
    """Optimisation settings (the paper: batch 64, lr 1e-4, 20 epochs, 4 of them warm-up, then cosine)."""

    batch_size: int = 64
    lr: float = 1e-3
    weight_decay: float = 0.05
    max_epochs: int = 20
    warmup_fraction: float = 0.2
    accumulate: int = 1  # gradient accumulation: optimizer steps every `accumulate` batches
    val_fraction: float = 0.2  # share of houses (or episodes) held out for validation
    holdout: str = "houses"  # validate on unseen "houses" (generalisation) or unseen "episodes" of seen houses
    decoder_weight: float = 0.5  # weight of the subgoal decoders' loss (language models)
    val_every: int = 1000  # validate about every this many batches (at epoch ends)
    max_steps: int | None = None  # optimizer steps; with max_epochs, whichever comes first
    max_minutes: float | None = None  # a wall-clock budget: explicit only, since the result then depends on the machine
    precision: str = "auto"  # Lightning precision; "auto": bf16-mixed on GPUs that support it, else 32-true
    # Speed (docs/gpu.md). None: on where it helps (a CUDA device; the fused optimizer on the CPU too); none changes
    # the recipe.
    compile: bool | None = None  # torch.compile the network (Module.compile: weights keep their names)
    fused_optimizer: bool | None = None  # AdamW's fused kernel: one launch for every parameter
    data_on_device: bool | None = None  # the training tables copied to the device once, batches gathered there
    fold_accumulation: bool = True  # batch_size x accumulate rows in one pass, not accumulated: the same gradient

    def __post_init__(self) -> None:
        if self.batch_size < 1 or self.accumulate < 1 or self.max_epochs < 1:
            raise ModelConfigError("batch_size, accumulate and max_epochs must be at least 1")
        if not 0 < self.val_fraction < 1:
            raise ModelConfigError(f"val_fraction must be between 0 and 1, got {self.val_fraction}")
        if self.holdout not in HOLDOUTS:
            raise ModelConfigError(f"holdout must be one of {HOLDOUTS}, got {self.holdout!r}")
        if not 0 <= self.warmup_fraction < 1:
            raise ModelConfigError(f"warmup_fraction must be in [0, 1), got {self.warmup_fraction}")
        if self.max_steps is not None and self.max_steps < 1:
            raise ModelConfigError(f"max_steps must be at least 1, got {self.max_steps}")
        if self.max_minutes is not None and self.max_minutes <= 0:
            raise ModelConfigError(f"max_minutes must be positive, got {self.max_minutes}")


def speed_settings(train: TrainConfig, on_gpu: bool) -> TrainConfig:
    """``train`` with each speed option that is None ("auto") turned on on a GPU and off elsewhere, except the fused
    optimizer, on everywhere: on a CPU it saves a small model about 2 ms a step of 15 (one AdamW kernel instead of
    a dozen small operations per parameter tensor)."""
    auto = {"compile": on_gpu, "fused_optimizer": True, "data_on_device": on_gpu}
    return replace(train, **{k: on for k, on in auto.items() if getattr(train, k) is None})


def micro_batches(train: TrainConfig) -> tuple[int, int]:
    """(rows per forward pass, passes per optimizer step): ``batch_size x accumulate`` in one pass when folded.

    Folding gives the same gradient: Lightning averages the accumulated passes' mean losses, which for equal
    passes is the mean over all their rows (the subgoal decoders' loss, a mean over the rows that have a
    subgoal, weighs rows slightly differently when passes hold different numbers of them).
    """
    if train.fold_accumulation:
        return train.batch_size * train.accumulate, 1
    return train.batch_size, train.accumulate


@dataclass(frozen=True)
class Preset:
    """A named model size with the training settings that suit it."""

    model: ModelConfig
    train: TrainConfig
    description: str


PRESETS: dict[str, Preset] = {
    "small": Preset(
        ModelConfig(width=32, depth=1, readout_depth=1, heads=2, positions="egocentric", glimpse=3),
        TrainConfig(batch_size=32, lr=5e-3, max_epochs=500, max_steps=6000),
        "CPU-sized: width 32, one readout block, egocentric positions and a 7 x 7 glimpse; 6,000 optimizer steps",
    ),
    "gpu": Preset(
        ModelConfig(width=768, depth=6, heads=12, mlp_ratio=4, head_layers=4, head_hidden=768, decoder_hidden=256),
        TrainConfig(batch_size=64, lr=1e-4, max_epochs=20, warmup_fraction=0.2, accumulate=2, max_steps=4000),
        "the paper's ViT at width 768 and depth 6, 47 M parameters (chosen by projection: the gpu benchmark preset "
        "in 2 hours on one H100, docs/gpu.md); the paper's recipe, 4,000 optimizer steps of 128 samples",
    ),
    "paper": Preset(
        ModelConfig(width=1024, depth=15, heads=16, mlp_ratio=4, head_layers=4, head_hidden=1024, decoder_hidden=256),
        TrainConfig(batch_size=64, lr=1e-4, max_epochs=20, warmup_fraction=0.2, accumulate=2),
        "the paper's text (supplement E): ViT depth 15, width 1024, 16 heads, 4-layer MLP head, decoders of width "
        "256, batch 64, 20 epochs (4 of warm-up); the MLP width the text does not give is 4 x 1024; GPU",
    ),
    "paper-released": Preset(
        ModelConfig(width=1024, depth=16, heads=16, mlp_ratio=2, head_layers=4, head_hidden=1024, decoder_hidden=256),
        TrainConfig(batch_size=16, lr=1e-4, weight_decay=0.0, max_epochs=10, warmup_fraction=0.4),
        "the released code's configuration (mcts/config/train.yaml over mcts/arguments.py): ViT depth 16, width "
        "1024, 16 heads, MLP width 2048; Adam at lr 1e-4 without weight decay, batch 16, 10 epochs of which 4 "
        "warm up; our heads as in the paper preset; GPU",
    ),
}


def preset(name: str, conditioning: str = "vision", **overrides: Any) -> tuple[ModelConfig, TrainConfig]:
    """The model and training settings of a preset, with ``conditioning`` and any field overridden."""
    if name not in PRESETS:
        raise ModelConfigError(f"unknown preset {name!r}; choose from {', '.join(PRESETS)}")
    p = PRESETS[name]
    model_keys = {f.name for f in fields(ModelConfig)}
    train_keys = {f.name for f in fields(TrainConfig)}
    unknown = sorted(set(overrides) - model_keys - train_keys)
    if unknown:
        raise ModelConfigError(f"unknown settings {unknown}")
    model = replace(p.model, conditioning=conditioning, **{k: v for k, v in overrides.items() if k in model_keys})
    train = replace(p.train, **{k: v for k, v in overrides.items() if k in train_keys})
    return model, train
