"""Horizons and mission similarity per scenario, beside the paper's Table A.1 (what ``marple stats`` prints).

The horizon T of a whodunit episode is the number of actions until the culprit reaches the query state. It is
measured by running agent A's mission in fresh houses that serve both missions, or read from a dataset's test
split; the mission similarity is supplement A.3's ``(J(actions) + 0.5 J(rooms)) / 1.5``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from marple_gym.datasets.dataset import MarpleDataset
from marple_gym.errors import MarpleError
from marple_gym.generation.config import HouseConfig
from marple_gym.generation.generator import generate_world
from marple_gym.generation.original import original_house
from marple_gym.missions.scenarios import SCENARIOS, Scenario, get_scenario, similarity
from marple_gym.missions.suspects import SuspectScenario
from marple_gym.planner.planner import HierarchicalPlanner

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ScenarioHorizons:
    """One scenario's horizons (one per episode that reached the query state) and its missions' similarity."""

    scenario: Scenario
    horizons: list[int]
    similarity: float


def scenario_horizons(name: str, episodes: int, config: HouseConfig | None, seed: int) -> list[int]:
    """T for ``episodes`` runs of agent A's mission in fresh houses that serve both missions."""
    scenario = get_scenario(name)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(episodes):
        world = generate_world(config, rng, [scenario.mission_a, scenario.mission_b])
        agent = HierarchicalPlanner(world, mission=scenario.mission_a, rng=rng)
        steps = 0
        while not agent.done:
            outcome = agent.step()
            steps += 1
            if scenario.query.matches(outcome, world.house):
                out.append(steps)
                break
    return out


def horizon_stats(
    scenarios: list[str] | None = None,
    *,
    episodes: int = 200,
    config: HouseConfig | dict | str | None = None,
    seed: int = 0,
    data: str | None = None,
    houses: str = "random",
) -> list[ScenarioHorizons]:
    """Each two-agent scenario's horizons: simulated (``episodes`` houses from ``config`` and ``seed``, or with
    ``houses="original"`` the scenario's original house), or with ``data`` read from that dataset's test split
    (by default its own scenarios; all five when simulating)."""
    if data is not None:
        dataset = MarpleDataset(data)
        if not dataset.complete:
            missing, total = len(dataset.missing_shards()), len(dataset.spec.tasks())
            log.warning("%s is incomplete (%d of %d shards missing); figures cover what is there", data, missing, total)
        names = scenarios or [u.name for u in dataset.spec.units if len(u.roles) == 2]
        if not names:
            raise ValueError(f"{data} has no whodunit scenarios; generate one with `marple generate --scenario`")
    else:
        house = HouseConfig.load(config)  # checked once, before any simulation
        names = scenarios or list(SCENARIOS)
    for s in map(get_scenario, names):
        if isinstance(s, SuspectScenario):
            raise MarpleError(
                f"{s.name}: marple stats compares two-agent scenarios with the paper's Table A.1; the horizons of "
                "N-suspect scenarios are in `marple evaluate`'s results (each trial's horizon)"
            )
    out = []
    for s in map(get_scenario, names):
        if data is not None:
            horizons = [ep.horizon for ep in dataset.whodunit(s.name)]
        else:
            source = original_house((s.mission_a, s.mission_b)) if houses == "original" else house
            horizons = scenario_horizons(s.name, episodes, source, seed)
        if not horizons:
            raise MarpleError(f"no episode of {s.name!r} reached its query state; no horizon to report")
        out.append(ScenarioHorizons(s, horizons, similarity(s.mission_a, s.mission_b)))
    return out


def horizon_table(stats: list[ScenarioHorizons], source: str | None = None) -> str:
    """The table ``marple stats`` prints: mean T +- sd and similarity, ours beside the paper's (``source``: where
    the episodes come from, e.g. "original houses")."""
    header = (
        f"{'scenario':<10} {'question':<28} {'T ours':>14} {'T paper':>8} {'ratio':>6} {'sim ours':>9} {'sim paper':>9}"
    )
    lines = [header, "-" * len(header)]
    for row in stats:
        s = row.scenario
        mean, sd = float(np.mean(row.horizons)), float(np.std(row.horizons))
        paper_t = f"{s.paper_horizon:.1f}" if s.paper_horizon else "-"
        ratio = f"{mean / s.paper_horizon:.2f}" if s.paper_horizon else "-"
        paper_sim = f"{s.paper_similarity:.2f}" if s.paper_similarity is not None else "-"
        ours = f"{mean:.1f} +- {sd:.1f}"
        lines.append(
            f"{s.name:<10} {s.question:<28} {ours:>14} {paper_t:>8} {ratio:>6} {row.similarity:>9.2f} {paper_sim:>9}"
        )
    counts = [len(row.horizons) for row in stats]
    lines.append(
        f"\n(T over {min(counts)}-{max(counts)} episodes per scenario{f' in {source}' if source else ''}; "
        "similarity = (J(actions) + 0.5 J(rooms)) / 1.5, supplement A.3)"
    )
    return "\n".join(lines)
