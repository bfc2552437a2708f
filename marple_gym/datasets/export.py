"""Datasets in the formats offline-RL and analysis tools read: Minari and Parquet.

Both read a dataset's trajectories (one unit and split, optionally one role)
and decode them step by step. Observations use the env's numeric keys, with the
env's conventions (:class:`~marple_gym.envs.household.MarpleEnv`): ``image``
(the full (H, W, 8) code array), ``direction``, ``carrying``, ``audio`` and
``subgoal`` (codes, all 0 once the mission is done). The recorded agent gets
reward 1 on the action that completes its last mission; an episode that ends
otherwise is truncated.

* :func:`export_minari` writes a Minari dataset (``pip install "marple-gym[export]"``)
  whose observation and action spaces are declared and whose ``env_spec`` is the
  env the episodes come from (:func:`source_env_spec`), loadable with
  ``minari.load_dataset(dataset_id)``; ``recover_environment()`` makes that env. Its metadata says who made
  it and with what code (:func:`minari_provenance`), so Minari warns of nothing missing.
* :func:`export_parquet` writes one Parquet row per observation: episode,
  house, agent, mission, step, the action taken from it (null after the last),
  its name, the subgoal codes and name, the intent sentence, the audio token and
  its name, position, direction, carrying, and the decoded vision array (a
  fixed-shape tensor column).

* :func:`export_dataset` (what ``marple export`` calls) opens a dataset folder and writes one of the two.

Both write to a temporary name and move it into place, so a failed or killed
export leaves nothing half-written where the tools look; a Minari dataset id must
name a folder inside Minari's root.
"""

from __future__ import annotations

import importlib.metadata
import logging
import os
import re
import shutil
import tempfile
import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.envs.registration import EnvSpec

from marple_gym.datasets.dataset import MarpleDataset
from marple_gym.datasets.manifest import DatasetError
from marple_gym.envs.registration import HOUSEHOLD_ID
from marple_gym.envs.spaces import observation_space as env_observation_space
from marple_gym.evidence.audio import AUDIO
from marple_gym.extras import install_command
from marple_gym.files import atomic_write
from marple_gym.missions.mission import subgoal_codes
from marple_gym.recording.records import Trajectory
from marple_gym.version import __version__
from marple_gym.world.actions import NUM_ACTIONS, Action

log = logging.getLogger(__name__)

FORMATS = ("minari", "parquet")


class ExportError(DatasetError):
    """An export that cannot be made (missing extra, nothing to export, target exists)."""


EXPORTED_KEYS = ("image", "direction", "carrying", "audio", "subgoal")
"""The env's numeric observation keys: what both formats store."""


def observation_space(height: int, width: int) -> spaces.Dict:
    """The exported observations' space: the env's own, for :data:`EXPORTED_KEYS`."""
    return env_observation_space(EXPORTED_KEYS, height, width)


def source_env_spec(data: MarpleDataset, unit: str, split: str, role: str | None = None) -> EnvSpec | None:
    """The Gymnasium env whose episodes an export holds, what ``MinariDataset.recover_environment()`` makes.

    ``Marple-Household-v0`` with the dataset's house config and the exported keys, each episode's mission
    drawn as the recorded agents drew theirs: the roles' mission preferences, in the test split their test
    missions, the roles (all of the unit's unless ``role``) weighed alike. None for a shared-house unit, whose
    agents act in one house together (the PettingZoo env, not a Gymnasium one).
    """
    spec = data.spec.unit(unit)
    if spec.shared:
        return None
    roles = [role] if role else list(spec.roles)
    preferences: dict[str, float] = {}
    for r in roles:
        own = {spec.test_missions[r]: 1.0} if split == "test" else spec.roles[r]
        total = sum(own.values())
        for mission, weight in own.items():
            if weight > 0:
                preferences[mission] = preferences.get(mission, 0.0) + weight / total / len(roles)
    kwargs = {"mission_preferences": preferences, "observation_keys": list(EXPORTED_KEYS)}
    if data.spec.config is not None:
        kwargs["config"] = data.spec.config
    return replace(gym.spec(HOUSEHOLD_ID), kwargs=kwargs)


def step_arrays(tr: Trajectory) -> dict[str, np.ndarray]:
    """A trajectory's observations (T + 1 rows each) under the exported keys."""
    return {
        "image": tr.vision,  # the keys of EXPORTED_KEYS
        "direction": tr.direction.astype(np.int64),
        "carrying": tr.carrying.astype(np.int64),
        "audio": tr.audio.astype(np.int64),
        "subgoal": np.stack([subgoal_codes(tr.subgoal_at(t)) for t in range(tr.length + 1)]),
    }


def completed(tr: Trajectory) -> bool:
    """Did the agent finish its last mission on its last action?"""
    return tr.length > 0 and int(tr.mission_index[-1]) < 0


def _trajectories(data: MarpleDataset, unit: str, split: str, role: str | None) -> Iterator[Trajectory]:
    found = False
    for tr in data.trajectories(unit, split, role):
        found = True
        yield tr
    if not found:
        raise ExportError(
            f"{data.root}: no {split} trajectories for unit {unit!r}" + (f" role {role!r}" if role else "")
        )


def _rewards(tr: Trajectory) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rewards = np.zeros(tr.length)
    terminations = np.zeros(tr.length, dtype=bool)
    truncations = np.zeros(tr.length, dtype=bool)
    if tr.length:
        done = completed(tr)
        rewards[-1] = float(done)
        terminations[-1] = done
        truncations[-1] = not done
    return rewards, terminations, truncations


# ---- Minari -----------------------------------------------------------------------------------------


DATASET_ID = re.compile(r"[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*-v[0-9]+")
"""A Minari dataset id as we write one: ``namespace/name-vN``, so that it names a folder inside Minari's root."""
STAGING = ".export-"
"""Prefix of the folders (beside Minari's root) where an export is written before it is moved into the root."""


def export_minari(
    data: MarpleDataset, unit: str, split: str, dataset_id: str, role: str | None = None, root: str | Path | None = None
):
    """Write one unit's split as the Minari dataset ``dataset_id``; returns the ``MinariDataset``.

    ``root`` is Minari's datasets folder (default: ``$MINARI_DATASETS_PATH`` or ``~/.minari/datasets``);
    to load from another root, set ``MINARI_DATASETS_PATH`` to it first. The dataset is written in a
    staging folder beside the root and moved into it whole, so Minari never sees a half-written one
    (an export killed midway leaves only the staging folder, which the next export removes).
    """
    try:
        import minari  # the export extra, asked for by --format minari
    except ImportError as exc:
        raise ExportError(f"Minari export needs the export extra: {install_command('export')}") from exc
    if not DATASET_ID.fullmatch(dataset_id):
        raise ExportError(
            f"Minari dataset id {dataset_id!r}: expected NAMESPACE/NAME-vN, e.g. marple/{unit}/{split}-v0 "
            "(letters, digits, - and _ between the slashes, and a version)"
        )
    with _minari_root(root):
        final = Path(minari.storage.get_dataset_path(""))
        if dataset_id in minari.list_local_datasets():
            raise ExportError(
                f"Minari dataset {dataset_id!r} exists already; delete it with `minari delete {dataset_id}`"
            )
    _remove_stale_staging(final)
    staging = Path(tempfile.mkdtemp(prefix=f".{final.name}{STAGING}{os.getpid()}-", dir=final.parent))
    try:
        with _minari_root(staging):
            _write_minari(data, unit, split, dataset_id, role)
        with _minari_root(final):
            namespace = dataset_id.rpartition("/")[0]
            if namespace and namespace not in minari.namespace.list_local_namespaces():
                minari.namespace.create_namespace(namespace)
            os.rename(staging / dataset_id, final / dataset_id)  # one step: the dataset is there whole or not at all
            return minari.load_dataset(dataset_id)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _remove_stale_staging(root: Path) -> None:
    """Staging folders of exports that were killed (their process is gone)."""
    for folder in root.parent.glob(f".{root.name}{STAGING}*"):
        pid = folder.name[len(f".{root.name}{STAGING}") :].partition("-")[0]
        if pid.isascii() and pid.isdigit() and not _alive(int(pid)):  # isdigit alone takes "²", which int refuses
            log.warning("removing %s, left by an export that was stopped", folder)
            shutil.rmtree(folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # OverflowError: a number no process id can be
        return False
    except PermissionError:  # another user's process
        return True
    return True


@contextmanager
def _minari_root(root: str | Path | None) -> Iterator[None]:
    """Point Minari at ``root`` for the duration (it reads the folder from the environment)."""
    before = os.environ.get("MINARI_DATASETS_PATH")
    if root is not None:
        os.environ["MINARI_DATASETS_PATH"] = str(Path(root).resolve())
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("MINARI_DATASETS_PATH", None)
        else:
            os.environ["MINARI_DATASETS_PATH"] = before


def minari_provenance() -> dict[str, str]:
    """Minari's ``author``, ``author_email`` and ``code_permalink`` for a dataset this package writes, from the
    installed package's metadata (pyproject.toml): its authors; where to reach them, the issue tracker (the
    project lists no e-mail address, and Minari asks for "an author email, or some other obvious contact
    information"); and the repository's tree at this version."""
    try:
        meta = importlib.metadata.metadata("marple-gym")
    except importlib.metadata.PackageNotFoundError as exc:
        raise ExportError("Minari export records the package's metadata: install it (pip install -e .)") from exc
    urls = dict(entry.split(", ", 1) for entry in meta.get_all("Project-URL") or ())
    return {
        "author": meta["Author"],
        "author_email": urls["Issues"],
        "code_permalink": f"{urls['Repository']}/tree/v{__version__}",
    }


def _write_minari(data: MarpleDataset, unit: str, split: str, dataset_id: str, role: str | None) -> None:
    import minari  # the export extra (checked by the caller)
    from minari.data_collector import EpisodeBuffer

    buffers, shape = [], None
    for i, tr in enumerate(_trajectories(data, unit, split, role)):
        shape = shape or tr.vision.shape[1:3]
        if tr.vision.shape[1:3] != shape:
            raise ExportError(f"episode {i} has a {tr.vision.shape[1:3]} grid, others {shape}: Minari needs one shape")
        rewards, terminations, truncations = _rewards(tr)
        buffers.append(
            EpisodeBuffer(
                id=i,
                seed=int(tr.seed),
                observations=step_arrays(tr),
                actions=tr.actions.astype(np.int64),
                rewards=rewards.tolist(),
                terminations=terminations.tolist(),
                truncations=truncations.tolist(),
                infos={},
            )
        )
    env = source_env_spec(data, unit, split, role)
    with warnings.catch_warnings():
        # Minari warns unless told the env to evaluate in: we give the one the episodes come from. A shared-house
        # unit has no Gymnasium env to give (None), and the warning would add nothing to that.
        warnings.filterwarnings("ignore", message="`eval_env` is set to None", category=UserWarning)
        minari.create_dataset_from_buffers(
            dataset_id,
            buffers,
            env=env,
            eval_env=env,
            observation_space=observation_space(*shape),
            action_space=spaces.Discrete(NUM_ACTIONS),
            algorithm_name="MARPLE hierarchical planner",
            **minari_provenance(),
            description=f"MARPLE-Gym {data.root.name}: unit {unit}, split {split}" + (f", role {role}" if role else ""),
            data_format="arrow",
        )


# ---- Parquet ---------------------------------------------------------------------------------------------


def _rows(trajectories: Iterable[Trajectory]) -> Iterator[dict[str, Any]]:
    """Column arrays of one trajectory at a time (one row per observation)."""
    for episode, tr in enumerate(trajectories):
        n = tr.length + 1
        codes = step_arrays(tr)["subgoal"]
        subgoals = [tr.subgoal_at(t) for t in range(n)]
        missions = [tr.missions[m] if m >= 0 else None for m in tr.mission_index.tolist()]
        actions = tr.actions.tolist() + [None]
        yield {
            "episode": np.full(n, episode),
            "house": [tr.house_id] * n,
            "agent": [tr.agent] * n,
            "mission": missions,
            "step": np.arange(n),
            "action": actions,
            "action_name": [None if a is None else Action(a).name for a in actions],
            "subgoal": codes.tolist(),
            "subgoal_name": [None if sg is None else sg.name for sg in subgoals],
            "intent": tr.intents,
            "audio": tr.audio.astype(np.int64),
            "audio_token": [AUDIO.tokens[a] for a in tr.audio.tolist()],
            "x": tr.position[:, 0].astype(np.int64),
            "y": tr.position[:, 1].astype(np.int64),
            "direction": tr.direction.astype(np.int64),
            "carrying": tr.carrying.astype(np.int64).tolist(),
            "vision": tr.vision,
        }


def export_parquet(data: MarpleDataset, unit: str, split: str, path: str | Path, role: str | None = None) -> Path:
    """Write one unit's split to the file ``path`` as Parquet, one row per observation (see module docs); written
    whole or not at all (:func:`~marple_gym.files.atomic_write`)."""
    try:
        import pyarrow as pa  # the export extra, asked for by --format parquet
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise ExportError(f"Parquet export needs the export extra: {install_command('export')}") from exc
    if str(path).endswith(("/", os.sep)) or Path(path).is_dir():
        raise ExportError(f"{path} is a folder; give the file to write, e.g. {Path(path) / f'{unit}-{split}.parquet'}")
    path = Path(path)
    if path.exists():
        raise ExportError(f"{path} exists already; choose another path or delete it")
    with atomic_write(path, "wb") as f:
        writer = None
        try:
            for columns in _rows(_trajectories(data, unit, split, role)):
                vision = columns.pop("vision")
                table = pa.table(columns)
                tensor = pa.FixedShapeTensorArray.from_numpy_ndarray(np.ascontiguousarray(vision))
                table = table.append_column("vision", tensor)
                if writer is None:
                    writer = pq.ParquetWriter(f, table.schema)
                elif table.schema != writer.schema:
                    raise ExportError("episodes differ in grid size; export them to separate files")
                writer.write_table(table)
        finally:
            if writer is not None:
                writer.close()
    return path


@dataclass(frozen=True)
class Exported:
    """What :func:`export_dataset` wrote: a Parquet file, or a Minari dataset (its id) with its size."""

    format: str
    target: str
    episodes: int | None = None
    steps: int | None = None

    def __str__(self) -> str:
        if self.format == "parquet":
            return self.target
        return f"Minari dataset {self.target}: {self.episodes} episodes, {self.steps} steps"


def export_dataset(
    data: str | Path,
    unit: str,
    split: str,
    format: str,
    out: str | Path | None = None,
    role: str | None = None,
    minari_root: str | Path | None = None,
) -> Exported:
    """Write one unit's split of the dataset in folder ``data`` in ``format`` (one of :data:`FORMATS`).

    Parquet writes the file ``out`` (required); Minari writes the dataset id ``out`` (default:
    ``marple/UNIT/SPLIT-v0``) into ``minari_root`` (default: Minari's own). See :func:`export_parquet` and
    :func:`export_minari`.
    """
    if format not in FORMATS:
        raise ExportError(f"unknown export format {format!r}; choose from {', '.join(FORMATS)}")
    dataset = MarpleDataset(data)
    if unit not in dataset.units:
        raise ValueError(f"--unit {unit!r} is not in {data}; its units: {', '.join(dataset.units)}")
    if format == "parquet":
        if not out:
            raise ValueError("--out FILE.parquet is needed for --format parquet")
        return Exported(format, str(export_parquet(dataset, unit, split, out, role=role)))
    dataset_id = str(out or f"marple/{unit}/{split}-v0")
    minari = export_minari(dataset, unit, split, dataset_id, role=role, root=minari_root)
    return Exported(format, dataset_id, minari.total_episodes, minari.total_steps)
