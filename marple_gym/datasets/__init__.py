"""The benchmark's datasets on disk: generation, shards, manifests, selection and export (the episode records
they hold, and their recorder, are :mod:`marple_gym.recording`'s, re-exported here)."""

from marple_gym.datasets.dataset import MarpleDataset, Samples
from marple_gym.datasets.generate import generate_dataset
from marple_gym.datasets.manifest import DatasetError
from marple_gym.datasets.shards import ShardError, read_shard, write_shard
from marple_gym.datasets.spec import PAPER_SIZES, DatasetSpec, Sizes, Unit
from marple_gym.recording.recorder import record_trajectory
from marple_gym.recording.records import SubgoalSpan, Trajectory, WhodunitEpisode

__all__ = [
    "PAPER_SIZES",
    "DatasetError",
    "DatasetSpec",
    "MarpleDataset",
    "Samples",
    "ShardError",
    "Sizes",
    "SubgoalSpan",
    "Trajectory",
    "Unit",
    "WhodunitEpisode",
    "generate_dataset",
    "read_shard",
    "record_trajectory",
    "write_shard",
]
