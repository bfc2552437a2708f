"""What a dataset is asked for: its units (scenarios and missions by name, or N-suspect scenarios, each once) and
the whole spec of ``marple generate``'s options (:func:`requested_spec`)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace

from marple_gym.datasets.manifest import SPLITS, DatasetError, check_spec
from marple_gym.datasets.spec import PAPER_SIZES, DatasetSpec, Unit
from marple_gym.generation.config import HouseConfig
from marple_gym.missions.scenarios import SCENARIOS
from marple_gym.missions.suspects import DEFAULT_SUSPECTS, SUSPECT_SCENARIOS, suspect_scenario
from marple_gym.validation import Fields, message_error

log = logging.getLogger(__name__)


def requested_units(
    scenarios: list[str],
    missions: list[str],
    suspects: int | None = None,
    shared: bool = False,
    houses: str = "random",
) -> list[Unit]:
    """The units of ``marple generate``: with ``suspects`` or ``shared``, :func:`suspect_units`; else each
    scenario and mission named (every paper scenario when none is), each once; ``houses`` says where the paper
    scenarios' test and train-in houses come from (``random`` or ``original``)."""
    if houses != "random" and (missions or suspects is not None or shared):
        raise ValueError(f"--houses {houses}: the original benchmark published houses for its five scenarios only")
    if suspects is not None or shared:
        if missions:
            raise ValueError("--mission makes single-agent units; it cannot be combined with --suspects or --shared")
        units = suspect_units(scenarios, suspects, shared)
    else:
        units = [Unit.scenario(s, houses) for s in scenarios] + [Unit.mission(m) for m in missions]
    return unique_units(units or [Unit.scenario(s, houses) for s in SCENARIOS])


def suspect_units(scenarios: list[str], suspects: int | None = None, shared: bool = False) -> list[Unit]:
    """Each of ``scenarios`` (default: every N-suspect scenario) with ``suspects`` agents (default
    :data:`DEFAULT_SUSPECTS`), in one shared house with ``shared``; ``KEY@0.8`` for a preference variant."""
    n = suspects or DEFAULT_SUSPECTS
    units = []
    for name in scenarios or list(SUSPECT_SCENARIOS):
        key, _, pref = name.partition("@")
        scenario = suspect_scenario(key, n, shared)
        units.append(Unit.scenario(scenario.name + (f"@{pref}" if pref else "")))
    return units


def unique_units(units: list[Unit]) -> list[Unit]:
    """Each unit once: a repeated --scenario or --mission (``laundry`` twice, ``laundry@.8`` and ``laundry@0.8``)
    would make the same shards again and count every trial once per repeat; it is merged, with a warning."""
    kept: dict[str, Unit] = {}
    for unit in units:
        if unit.name in kept:
            log.warning("%s is asked for more than once: generating it once", unit.name)
        kept.setdefault(unit.name, unit)
    return list(kept.values())


def requested_spec(
    units: list[Unit],
    *,
    splits: Sequence[str] = SPLITS,
    scale: float = 1.0,
    sizes: dict[str, int | None] | None = None,
    config: str | None = None,
    seed: int = 0,
    shard_size: int = 250,
) -> DatasetSpec:
    """The spec of a dataset of ``units`` (:func:`requested_units`): the paper's sizes times ``scale``, each of
    ``sizes`` (``test_houses``, ``test_per_house``, ``train_per_house``, ``train_ood``) that is not None given
    instead, the house config file ``config`` (default: none, the generator's). The limits a manifest has are
    checked now, not after the work."""
    scaled = replace(PAPER_SIZES.scaled(scale), **{k: v for k, v in (sizes or {}).items() if v is not None})
    house = HouseConfig.load(config).to_dict() if config else None
    spec = DatasetSpec(units, scaled, seed, house, tuple(splits), shard_size)
    check_spec(Fields(spec.to_json(), "", message_error(DatasetError), "the settings"))
    return spec
