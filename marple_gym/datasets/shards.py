"""Shard files: many trajectories in one compressed ``.npz``, never pickled.

Why this format: the data are a few small integer arrays per step plus the
vision arrays, and consecutive vision arrays differ in a handful of cells. We
store each episode's first vision array and then only the changed cells (4-5
per step), so a 100-step episode takes a few kilobytes and encoding costs
almost nothing; ``numpy.savez_compressed`` adds deflate on top. Everything is
plain numeric arrays plus one JSON document (as bytes), read back with
``allow_pickle=False``: a shard cannot execute code when loaded. numpy is the
only dependency. (Minari, the Farama standard for offline RL, stores
single-agent (observation, action, reward) episodes in HDF5; our records pair
two agents, carry house configs and text evidence, and would need a second
storage stack for no gain.)

Integrity is checked by the dataset manifest's SHA-256 per shard; a shard
that fails to parse raises :class:`ShardError` naming the file.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from marple_gym.errors import MarpleError
from marple_gym.files import atomic_write
from marple_gym.generation.config import HouseConfig
from marple_gym.recording.records import SubgoalSpan, Trajectory
from marple_gym.validation import Fields, message_error, parse_json

SHARD_FORMAT = "marple-shard"
SHARD_VERSION = 1


class ShardError(MarpleError, RuntimeError):
    """A shard file that is missing, truncated, tampered with or not a MARPLE shard."""


# ---- vision delta codec ---------------------------------------------------------------------------------


def encode_vision(frames: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """First frame plus the cells that change: (first, step, cell, value)."""
    t, h, w, c = frames.shape
    flat = frames.reshape(t, h * w, c)
    # Compare whole cells at once: 8 uint8 channels viewed as one uint64.
    packed = np.ascontiguousarray(flat).view(np.uint64)[..., 0] if c == 8 else flat.reshape(t, h * w, c)
    changed = packed[1:] != packed[:-1] if c == 8 else (flat[1:] != flat[:-1]).any(axis=2)
    steps, cells = np.nonzero(changed)
    return frames[0], (steps + 1).astype(np.int32), cells.astype(np.int32), flat[steps + 1, cells]


def decode_vision(
    first: np.ndarray, steps: np.ndarray, cells: np.ndarray, values: np.ndarray, length: int
) -> np.ndarray:
    """Inverse of :func:`encode_vision`: the (length, H, W, C) frames."""
    h, w, c = first.shape
    frames = np.empty((length, h * w, c), dtype=first.dtype)
    frames[0] = first.reshape(h * w, c)
    bounds = np.searchsorted(steps, np.arange(length + 1))
    for t in range(1, length):
        frames[t] = frames[t - 1]
        lo, hi = bounds[t], bounds[t + 1]
        if hi > lo:
            frames[t, cells[lo:hi]] = values[lo:hi]
    return frames.reshape(length, h, w, c)


# ---- writing -----------------------------------------------------------------------------------------------


def _episode_meta(tr: Trajectory) -> dict[str, Any]:
    return {
        "house_id": tr.house_id,
        "seed": tr.seed,
        "agent": tr.agent,
        "missions": list(tr.missions),
        "spans": [[s.mission, s.subgoal, s.start, s.end, int(s.achieved)] for s in tr.spans],
        "query_steps": tr.query_steps,
    }


def write_shard(path: Path, trajectories: list[Trajectory], extra: dict[str, Any] | None = None) -> None:
    """Write trajectories to ``path`` atomically (a temporary file, then a rename)."""
    if not trajectories:
        raise ValueError("a shard needs at least one trajectory")
    shape = trajectories[0].vision.shape[1:]
    if any(tr.vision.shape[1:] != shape for tr in trajectories):
        raise ValueError("all trajectories of a shard must share one grid size")
    houses: dict[str, Any] = {}
    for tr in trajectories:
        if tr.house_id not in houses:
            houses[tr.house_id] = tr.house.to_dict()
    meta = {
        "format": SHARD_FORMAT,
        "version": SHARD_VERSION,
        "grid": list(shape[:2]),
        "episodes": [_episode_meta(tr) for tr in trajectories],
        "houses": houses,
        **(extra or {}),
    }
    arrays: dict[str, np.ndarray] = {"meta": np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)}
    obs_len = [tr.length + 1 for tr in trajectories]
    arrays["obs_offsets"] = np.concatenate([[0], np.cumsum(obs_len)]).astype(np.int64)
    arrays["act_offsets"] = np.concatenate([[0], np.cumsum([tr.length for tr in trajectories])]).astype(np.int64)
    firsts, steps, cells, values = [], [], [], []
    for tr, base in zip(trajectories, arrays["obs_offsets"][:-1].tolist()):
        first, s, c, v = encode_vision(tr.vision)
        firsts.append(first)
        steps.append(s + base)
        cells.append(c)
        values.append(v)
    arrays["first_frame"] = np.stack(firsts)
    arrays["delta_obs"] = np.concatenate(steps)
    arrays["delta_cell"] = np.concatenate(cells).astype(np.int16)
    arrays["delta_value"] = np.concatenate(values)
    for name in ("position", "direction", "carrying", "mission_index", "subgoal", "audio"):
        arrays[name] = np.concatenate([getattr(tr, name) for tr in trajectories])
    arrays["actions"] = np.concatenate([tr.actions for tr in trajectories])
    arrays["outcomes"] = np.concatenate([tr.outcomes for tr in trajectories]).reshape(-1, 4)
    with atomic_write(path, "wb") as f:
        np.savez_compressed(f, **arrays)


# ---- reading -----------------------------------------------------------------------------------------------


def read_shard(path: Path) -> tuple[list[Trajectory], dict[str, Any]]:
    """All trajectories of a shard and its metadata. Raises :class:`ShardError` if unreadable."""
    path = Path(path)
    arrays, meta = _load(path, None)
    try:
        return _decode(path, arrays, meta), meta
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        # The checksum in a manifest catches damage; this catches shards written wrong or read without one.
        raise ShardError(f"{path}: a damaged MARPLE shard ({type(exc).__name__}: {exc})") from None


def read_shard_meta(path: Path) -> dict[str, Any]:
    """A shard's metadata only: its episodes' records (``meta["episodes"]``: house, seed, agent, missions,
    subgoal spans, query steps), houses and groups, without reading or decoding the arrays of observations.
    Raises :class:`ShardError` if unreadable."""
    path = Path(path)
    meta = _load(path, ("meta",))[1]
    episodes = meta.get("episodes")
    if not isinstance(episodes, list) or not all(isinstance(e, dict) for e in episodes):
        raise ShardError(f"{path}: a damaged MARPLE shard (its episode records are not a list of objects)")
    return meta


def _load(path: Path, names: tuple[str, ...] | None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays ``names`` (every one for None) of a shard, its metadata apart, checked to be a shard's."""
    if not path.is_file():
        raise ShardError(f"{path}: shard file is missing")
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in (data.files if names is None else names)}
        meta_bytes = arrays.pop("meta").tobytes()
    except (zipfile.BadZipFile, zlib.error, ValueError, OSError, KeyError, EOFError) as exc:
        raise ShardError(f"{path}: not a readable MARPLE shard ({type(exc).__name__}: {exc})") from None
    error = message_error(ShardError)
    meta = Fields(parse_json(meta_bytes, str(path), error, where="meta"), "meta", error, str(path)).raw
    if meta.get("format") != SHARD_FORMAT:
        raise ShardError(f"{path}: not a MARPLE shard (format {meta.get('format')!r})")
    if meta.get("version") != SHARD_VERSION:
        raise ShardError(f"{path}: shard version {meta.get('version')} is not supported (expected {SHARD_VERSION})")
    return arrays, meta


def _decode(path: Path, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> list[Trajectory]:
    houses = {k: HouseConfig.from_dict(v, file=f"{path}: houses.{k}") for k, v in meta["houses"].items()}
    obs_off, act_off = arrays["obs_offsets"].tolist(), arrays["act_offsets"].tolist()
    for name, offsets, size in (("obs", obs_off, len(arrays["position"])), ("act", act_off, len(arrays["actions"]))):
        # Checked before decoding, which allocates by these offsets.
        if len(offsets) != len(meta["episodes"]) + 1 or offsets[0] != 0 or offsets[-1] != size:
            raise ValueError(f"{name}_offsets do not match the arrays")
        if any(b < a for a, b in zip(offsets, offsets[1:])):
            raise ValueError(f"{name}_offsets are not increasing")
    delta_obs = arrays["delta_obs"]
    bounds = np.searchsorted(delta_obs, obs_off)
    out = []
    for e, info in enumerate(meta["episodes"]):
        o0, o1, a0, a1 = obs_off[e], obs_off[e + 1], act_off[e], act_off[e + 1]
        lo, hi = bounds[e], bounds[e + 1]
        vision = decode_vision(
            arrays["first_frame"][e],
            delta_obs[lo:hi] - o0,
            arrays["delta_cell"][lo:hi].astype(np.int64),
            arrays["delta_value"][lo:hi],
            o1 - o0,
        )
        out.append(
            Trajectory(
                house=houses[info["house_id"]],
                house_id=info["house_id"],
                seed=info["seed"],
                agent=info["agent"],
                missions=tuple(info["missions"]),
                vision=vision,
                position=arrays["position"][o0:o1],
                direction=arrays["direction"][o0:o1],
                carrying=arrays["carrying"][o0:o1],
                mission_index=arrays["mission_index"][o0:o1],
                subgoal=arrays["subgoal"][o0:o1],
                audio=arrays["audio"][o0:o1],
                actions=arrays["actions"][a0:a1],
                outcomes=arrays["outcomes"][a0:a1],
                spans=tuple(SubgoalSpan(m, s, a, b, bool(ok)) for m, s, a, b, ok in info["spans"]),
                query_steps=dict(info["query_steps"]),
            )
        )
    return out


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file (a shard's, as its manifest entry records it), read in blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
