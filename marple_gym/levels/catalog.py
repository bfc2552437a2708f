"""Every registered env id with what it is: the missions' envs, the household env, and the RL ladder's levels.

What ``marple envs`` lists. It lives with the levels, the highest layer that registers ids, so that it sees them all.
"""

from __future__ import annotations

from dataclasses import dataclass

from marple_gym.envs.registration import FAMILY_IDS, HOUSEHOLD_ID, mission_env_id
from marple_gym.levels.ladder import LEVELS
from marple_gym.missions import MISSIONS


@dataclass(frozen=True)
class EnvCatalog:
    """(id, what it is) of the envs listed, and how many ladder levels were left out."""

    rows: list[tuple[str, str]]
    more_levels: int


def env_catalog(levels: bool = False) -> EnvCatalog:
    """The missions' envs, the household env and the other families' envs; with ``levels`` the ladder's levels
    too (else only counted)."""
    rows = [(mission_env_id(name), mission.title) for name, mission in MISSIONS.items()]
    rows.append((HOUSEHOLD_ID, "any mission(s) in any house config"))
    rows += [(env_id, what) for env_id, (*_, what) in FAMILY_IDS.items()]
    if not levels:
        return EnvCatalog(rows, more_levels=len(LEVELS))
    rows += [(env_id, f"{level.rung}: {level.description}") for env_id, level in LEVELS.items()]
    return EnvCatalog(rows, more_levels=0)
