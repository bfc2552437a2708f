"""A stable-baselines3 features extractor for MARPLE's symbolic code array.

The (rows, cols, 8) array holds category codes (room, furniture type, object
type, ...), not intensities. Every (channel, code) pair has its own embedding
vector; a cell's vectors are summed (BabyAI's bag-of-words image embedding:
one table lookup for all channels, so it stays cheap on one CPU thread) and
the embedded grid goes through a small CNN. Every other key of a Dict
observation (direction, carrying, audio, subgoal: one-hot after SB3's
preprocessing) is flattened beside it.

With a ``subgoal`` key the extractor also marks, as three extra input planes
of the CNN, the cells whose object type, furniture type and room are the ones
the subgoal names (``match_subgoal``, on by default). The instruction then
reaches the convolutions where the target is, instead of meeting the image
only after it is flattened: the role FiLM layers play in BabyAI's models, at
no cost. The marks are computed from the observation alone (codes against
codes), so nothing about the task's solution is given away.

With ``near_size=n`` and a larger egocentric view (a house-wide view such as
``view_size=39, see_through_walls=True``), only the n x n window around the
agent (the bottom rows' middle, MiniGrid's own view for n = 7) goes through the
embeddings; the whole view goes through a second, cheap stream of 0/1 planes
(walls, doors and the subgoal-match planes) and a strided CNN. The far cells then
say where the targets and the ways through lie, at a tenth of the cost of
embedding every cell (the embedding's backward pass dominates PPO's time on a CPU).
The far stream also says where the targets lie in a form a linear layer can
read (:func:`target_offsets`): for the cells of the subgoal's object in its room
and of its furniture in its room, whether any is in view and their mean offset
ahead of and to the right of the agent. Strided convolutions keep only a coarse
map of the targets, and PPO, which must first learn from them which way to go,
did not (docs/rl.md).

Works with ``MultiInputPolicy`` (Dict observations from
:class:`marple_gym.NumericObservation`) and with ``CnnPolicy`` (the bare array,
``NumericObservation(env, keys=("image",))``).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from marple_gym.envs.spaces import modality_space
from marple_gym.evidence.vision import channel_sizes
from marple_gym.missions.mission import SUBGOAL_NVEC
from marple_gym.world.assets import DOOR, WALL
from marple_gym.world.state import CH_FUR, CH_OBJ, NUM_CHANNELS

CH_ROOM = 0
"""The room-type channel of the code array."""

DISCRETE_KEYS = ("direction", "carrying", "audio", "subgoal")
"""The observation keys of discrete codes besides the image (``Discrete``/``MultiDiscrete`` in the env)."""

SUBGOAL_FIELDS = ("action", "object", "furniture", "room")
"""The order of the ``subgoal`` codes (see :func:`marple_gym.missions.mission.subgoal_codes`)."""

_MATCHED = (
    (SUBGOAL_FIELDS.index("object"), CH_OBJ),
    (SUBGOAL_FIELDS.index("furniture"), CH_FUR),
    (SUBGOAL_FIELDS.index("room"), CH_ROOM),
)
"""(subgoal field, image channel) pairs that name the same things with the same codes."""

_BLOCKING = (WALL, DOOR)
"""Furniture codes of the far stream's own planes: where the agent cannot pass, and the ways through."""


def stacked_frames(depth: int) -> int:
    """How many code arrays of :data:`NUM_CHANNELS` channels a ``depth``-channel image holds: 1 for one array
    (or its first ``depth`` channels), k for k arrays stacked along the channels (SB3's ``VecFrameStack``)."""
    if depth <= NUM_CHANNELS:
        return 1
    if depth % NUM_CHANNELS:
        raise ValueError(
            f"a code array has {NUM_CHANNELS} channels, or k * {NUM_CHANNELS} when k frames are stacked "
            f"(VecFrameStack); got {depth}"
        )
    return depth // NUM_CHANNELS


class CodeArrayEmbedding(nn.Module):
    """(B, rows, cols, 8) codes (plus optional extra float planes) -> (B, features): embeddings and a small CNN.

    With ``k`` frames stacked along the channels ((B, rows, cols, k * 8), SB3's ``VecFrameStack``) each frame's
    cells are embedded with the same table and the k embedded grids go into the CNN side by side.
    """

    def __init__(
        self, shape: tuple[int, int, int], embed_dim: int = 16, channels: int = 32, extra_planes: int = 0
    ) -> None:
        super().__init__()
        rows, cols, depth = shape
        self.frames = stacked_frames(depth)
        sizes = channel_sizes()[: depth // self.frames]
        self.embedding = nn.Embedding(sum(sizes), embed_dim)
        self.register_buffer("offsets", torch.tensor(np.cumsum((0,) + sizes[:-1]), dtype=torch.long), persistent=False)
        self.register_buffer("limits", torch.tensor([s - 1 for s in sizes], dtype=torch.long), persistent=False)
        # the first layer keeps every cell of a small view; large grids are halved twice
        first_stride = 2 if min(rows, cols) > 9 else 1
        inputs = self.frames * embed_dim + extra_planes
        self.cnn = nn.Sequential(
            nn.Conv2d(inputs, channels, 3, stride=first_stride, padding=1),
            nn.ReLU(),
            nn.Conv2d(channels, 2 * channels, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Flatten(),
        )
        with torch.no_grad():
            self.out_dim = int(self.cnn(torch.zeros(1, inputs, rows, cols)).shape[1])

    def forward(self, codes: torch.Tensor, planes: torch.Tensor | None = None) -> torch.Tensor:
        """Embed ``codes`` (B, rows, cols, depth); ``planes`` (B, extra, rows, cols) join the embedded grid."""
        batch, rows, cols, _ = codes.shape
        codes = codes.reshape(batch, rows, cols, self.frames, -1)
        codes = torch.minimum(codes.long().clamp(min=0), self.limits)
        grid = self.embedding(codes + self.offsets).sum(dim=4).reshape(batch, rows, cols, -1).permute(0, 3, 1, 2)
        if planes is not None:
            grid = torch.cat([grid, planes], dim=1)
        return self.cnn(grid)


class PlaneStream(nn.Module):
    """(B, planes, rows, cols) 0/1 planes -> (B, features): two strided convolutions, no embedding."""

    def __init__(self, planes: int, rows: int, cols: int, channels: int = 16) -> None:
        super().__init__()
        self.cnn = nn.Sequential(
            nn.Conv2d(planes, channels, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Conv2d(channels, 2 * channels, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Flatten(),
        )
        with torch.no_grad():
            self.out_dim = int(self.cnn(torch.zeros(1, planes, rows, cols)).shape[1])

    def forward(self, planes: torch.Tensor) -> torch.Tensor:
        return self.cnn(planes)


def target_offsets(planes: torch.Tensor) -> torch.Tensor:
    """(B, 6): for the object and furniture match planes, each ANDed with the room plane, whether any cell
    matches and the matching cells' mean offset ahead of and right of the agent, in view widths.

    ``planes`` are the (B, 3, rows, cols) subgoal-match planes of an egocentric view (object, furniture,
    room; see ``CodeArrayExtractor._match_planes``); the agent stands in the bottom row's middle cell,
    facing up. A subgoal's targets are its object, or its furniture, in its room, so the conjunctions say
    where to go; their mean (a spatial soft-argmax with the mass as weights) is a direction a linear layer reads.
    """
    rows, cols = planes.shape[2:]
    size = float(max(rows, cols))
    ahead = (rows - 1 - torch.arange(rows, device=planes.device, dtype=planes.dtype)) / size
    right = (torch.arange(cols, device=planes.device, dtype=planes.dtype) - cols // 2) / size
    features = []
    for target in (planes[:, 0] * planes[:, 2], planes[:, 1] * planes[:, 2]):
        mass = target.sum(dim=(1, 2))
        weight = target / mass.clamp(min=1.0)[:, None, None]
        features += [
            (mass > 0).to(planes.dtype),
            (weight.sum(dim=2) * ahead).sum(dim=1),
            (weight.sum(dim=1) * right).sum(dim=1),
        ]
    return torch.stack(features, dim=1)


TARGET_FEATURES = 6
"""Width of :func:`target_offsets`."""


def near_window(rows: int, cols: int, size: int) -> tuple[slice, slice]:
    """The ``size`` x ``size`` window of an egocentric view around the agent (bottom row, middle column)."""
    if size > min(rows, cols) or size % 2 == 0:
        raise ValueError(f"near_size must be odd and at most the view's size {rows} x {cols}, got {size}")
    middle = cols // 2
    return slice(rows - size, rows), slice(middle - size // 2, middle + size // 2 + 1)


class CodeOneHot(nn.Module):
    """(B, n) integer codes, each with its own number of values, -> (B, sum of them) one-hot, field after field:
    what SB3 makes of a ``MultiDiscrete`` key, for the same codes declared as an integer ``Box``."""

    def __init__(self, sizes: np.ndarray) -> None:
        super().__init__()
        sizes = np.asarray(sizes, dtype=np.int64).ravel()
        self.width = int(sizes.sum())
        self.register_buffer(
            "offsets", torch.tensor(np.cumsum(np.r_[0, sizes[:-1]]), dtype=torch.long), persistent=False
        )
        self.register_buffer("limits", torch.tensor(sizes - 1, dtype=torch.long), persistent=False)

    def forward(self, codes: torch.Tensor) -> torch.Tensor:
        codes = torch.minimum(codes.flatten(1).long().clamp(min=0), self.limits)
        out = torch.zeros(codes.shape[0], self.width, device=codes.device)
        return out.scatter_(1, codes + self.offsets, 1.0)


def code_sizes(key: str, space: spaces.Space) -> np.ndarray | None:
    """The number of values of each code in an integer ``Box`` of a discrete MARPLE key (``direction``,
    ``carrying``, ``audio``, ``subgoal`` as ``NumericObservation(env, boxes=True)`` declares them), frame after
    frame when stacked; None for any other key (flattened as it is).

    Taken from the key's own discrete space, not from the Box's highs: SB3's ``VecFrameStack`` repeats each
    bound k times in place while it stacks the values frame after frame.
    """
    if key not in DISCRETE_KEYS or not (isinstance(space, spaces.Box) and np.issubdtype(space.dtype, np.integer)):
        return None
    single = modality_space(key, 1, 1)
    per_frame = np.atleast_1d(single.n if isinstance(single, spaces.Discrete) else single.nvec)
    if space.shape[-1] % len(per_frame):
        raise ValueError(f"{key!r} holds {len(per_frame)} codes per frame, got a Box of shape {space.shape}")
    return np.tile(per_frame, space.shape[-1] // len(per_frame))


class CodeArrayExtractor(BaseFeaturesExtractor):
    """SB3 features extractor: the code array embedded, other keys flattened, then one linear layer.

    Use as ``PPO("MultiInputPolicy", env, policy_kwargs={"features_extractor_class": CodeArrayExtractor})``.
    ``match_subgoal`` adds the subgoal-match planes (see the module docs) where a ``subgoal`` key exists;
    ``near_size`` embeds only the window around the agent of a larger egocentric view and passes the whole
    view as 0/1 planes (see the module docs).

    Frame stacking (SB3's ``VecFrameStack``): an image of k * 8 channels is k code arrays, oldest first; each
    is embedded and the CNN sees them side by side, while the subgoal-match planes and the far stream describe
    the newest. A Dict observation stacks only when every key is a ``Box`` (SB3's rule): make it with
    ``NumericObservation(env, boxes=True)``, whose discrete keys are integer Boxes of their codes; the extractor
    one-hots them as SB3 one-hots discrete keys, and reads the task from the newest ``subgoal`` codes.
    """

    def __init__(
        self,
        observation_space: gym.Space,
        features_dim: int = 128,
        embed_dim: int = 16,
        channels: int = 32,
        match_subgoal: bool = True,
        near_size: int | None = None,
    ) -> None:
        super().__init__(observation_space, features_dim)
        is_dict = isinstance(observation_space, spaces.Dict)
        image = observation_space["image"] if is_dict else observation_space
        if not (isinstance(image, spaces.Box) and len(image.shape) == 3):
            raise ValueError(f"CodeArrayExtractor needs a (rows, cols, channels) code array, got {image}")
        rows, cols, depth = image.shape
        self.depth = depth // stacked_frames(depth)  # channels of one frame
        self.others: list[str] = [k for k in observation_space.spaces if k != "image"] if is_dict else []
        sizes = {k: code_sizes(k, observation_space[k]) for k in self.others}
        self.one_hot = nn.ModuleDict({k: CodeOneHot(n) for k, n in sizes.items() if n is not None})
        self._subgoal_sizes: list[int] = []
        if match_subgoal and "subgoal" in self.others and self.depth > CH_OBJ:
            self._subgoal_sizes = list(SUBGOAL_NVEC)
        self.near: tuple[slice, slice] | None = None
        self.far: PlaneStream | None = None
        if near_size is not None and near_size < max(rows, cols):
            self.near = near_window(rows, cols, near_size)
            self.far = PlaneStream(len(_BLOCKING) + len(self._matched()), rows, cols)
            rows = cols = near_size
        self.image = CodeArrayEmbedding((rows, cols, depth), embed_dim, channels, extra_planes=len(self._matched()))
        extra = sum(
            self.one_hot[k].width if k in self.one_hot else spaces.flatdim(observation_space[k]) for k in self.others
        )
        far_dim = 0
        if self.far is not None:
            far_dim = self.far.out_dim + (TARGET_FEATURES if self._subgoal_sizes else 0)
        self.head = nn.Sequential(nn.Linear(self.image.out_dim + far_dim + extra, features_dim), nn.ReLU())

    def _matched(self) -> tuple[tuple[int, int], ...]:
        return _MATCHED if self._subgoal_sizes else ()

    def _subgoal_codes(self, subgoal: torch.Tensor) -> torch.Tensor:
        """(B, 4) codes of the current subgoal from the ``subgoal`` key as SB3 hands it over."""
        if "subgoal" in self.one_hot:  # an integer Box, maybe stacked: the newest frame's codes come last
            return subgoal[:, -len(SUBGOAL_FIELDS) :].long()
        # SB3 hands MultiDiscrete keys over one-hot, field after field
        return torch.stack([field.argmax(dim=1) for field in torch.split(subgoal, self._subgoal_sizes, dim=1)], dim=1)

    def _match_planes(self, codes: torch.Tensor, subgoal: torch.Tensor) -> torch.Tensor:
        """(B, 3, rows, cols) 0/1 planes: cells of the newest frame whose object, furniture and room codes are the
        subgoal's."""
        newest = codes[..., -self.depth :]
        wanted = self._subgoal_codes(subgoal)
        planes = []
        for field, channel in self._matched():
            target = wanted[:, field, None, None]
            planes.append((newest[..., channel].long() == target) & (target > 0))
        return torch.stack(planes, dim=1).float()

    def _image_features(self, codes: torch.Tensor, planes: torch.Tensor | None) -> list[torch.Tensor]:
        """The embedded (near) codes, and the far stream's features when the view is split."""
        if self.near is None:
            return [self.image(codes, planes)]
        rows, cols = self.near
        newest = codes[..., -self.depth :]
        blocking = torch.stack([newest[..., CH_FUR] == code for code in _BLOCKING], dim=1).float()
        far = blocking if planes is None else torch.cat([blocking, planes], dim=1)
        if planes is None:
            return [self.image(codes[:, rows, cols], None), self.far(far)]
        return [self.image(codes[:, rows, cols], planes[:, :, rows, cols]), self.far(far), target_offsets(planes)]

    def _other(self, key: str, value: torch.Tensor) -> torch.Tensor:
        return self.one_hot[key](value) if key in self.one_hot else value.flatten(1).float()

    def forward(self, observations) -> torch.Tensor:
        if not isinstance(observations, dict):
            return self.head(torch.cat(self._image_features(observations, None), dim=1))
        codes = observations["image"]
        planes = self._match_planes(codes, observations["subgoal"]) if self._subgoal_sizes else None
        parts = self._image_features(codes, planes)
        parts += [self._other(k, observations[k]) for k in self.others]
        return self.head(torch.cat(parts, dim=1))
