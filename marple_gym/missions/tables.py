"""Fingerprints of the data tables that give codes their meaning, recorded in every file made with them.

Asset codes are positions in ``assets.json``; mission and scenario names point
into ``missions.json``, ``scenarios.json`` and ``suspects.json``. A dataset, a checkpoint or a
results file read with other tables would be misread without a word, so each
records :func:`table_fingerprints` when written and :func:`check_tables` names
the table that changed when it is read back. Files written before fingerprints
were recorded load unchanged.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping
from importlib import resources

from marple_gym.errors import MarpleError

TABLES: dict[str, tuple[str, str]] = {
    "assets": ("marple_gym.world", "data/assets.json"),
    "missions": ("marple_gym.missions", "data/missions.json"),
    "scenarios": ("marple_gym.missions", "data/scenarios.json"),
    "suspects": ("marple_gym.missions", "data/suspects.json"),
}
"""Each table: the package holding it and its path there."""


class TableMismatchError(MarpleError):
    """A file was made with an asset, mission or scenario table other than the installed one."""


@functools.cache
def table_fingerprints() -> dict[str, str]:
    """A short digest of the content of each table (formatting and key order do not count)."""
    out = {}
    for name, (package, path) in TABLES.items():
        content = json.loads(resources.files(package).joinpath(path).read_text())
        canonical = json.dumps(content, sort_keys=True, separators=(",", ":"))
        out[name] = hashlib.sha256(canonical.encode()).hexdigest()[:16]
    return out


def check_tables(recorded: object, source: str) -> None:
    """Raise :class:`TableMismatchError` naming each table whose fingerprint differs from the installed one.

    ``recorded`` is what the file holds (None: written before fingerprints were recorded, accepted).
    """
    if recorded is None:
        return
    if not isinstance(recorded, Mapping):
        raise TableMismatchError(f"{source}: 'tables' must map table names to fingerprints, got {recorded!r}")
    now = table_fingerprints()
    changed = [name for name in now if name in recorded and recorded[name] != now[name]]
    if changed:
        details = "; ".join(f"{name} ({TABLES[name][1]}): {recorded[name]} then, {now[name]} now" for name in changed)
        raise TableMismatchError(
            f"{source} was made with a different {' and '.join(changed)} table ({details}); its codes would be "
            "misread: remake it with this version, or use the version of marple-gym that made it"
        )
