"""The optional parts of MARPLE-Gym and the ``pip install`` that brings each.

What each extra holds is read from the installed package's metadata (that is,
``pyproject.toml``), so an error about a missing module can name the extra that
installs it, in the form that fits how this copy was installed: from a clone
(``pip install -e '/path/to/clone[agents]'``) or from an index
(``pip install 'marple-gym[agents]'``).
"""

from __future__ import annotations

import json
import re
import shlex
from functools import cache
from importlib import metadata
from urllib.parse import unquote, urlparse

DISTRIBUTION = "marple-gym"
"""The name this project is installed under."""

_NAME = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_EXTRA = re.compile(r"""extra\s*==\s*["']([^"']+)["']""")


@cache
def extras() -> dict[str, tuple[str, ...]]:
    """Each extra's modules, by their import names (``{"agents": ("torch", "lightning", ...)}``); empty where the
    project's metadata cannot be read (a source tree that was never installed)."""
    try:
        requirements = metadata.requires(DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        return {}
    found: dict[str, list[str]] = {}
    for requirement in requirements:
        name, extra = _NAME.match(requirement), _EXTRA.search(requirement)
        if name is None or extra is None or _normal(name[1]) == _normal(DISTRIBUTION):
            continue  # a core dependency, or an extra made of other extras (dev)
        found.setdefault(extra[1], []).append(_normal(name[1]))
    return {extra: tuple(modules) for extra, modules in found.items()}


def extra_providing(module: str) -> str | None:
    """The extra that installs ``module`` (a top-level import name, or a dotted one), or None."""
    top = _normal(module.split(".")[0])
    return next((extra for extra, modules in extras().items() if top in modules), None)


def install_command(extra: str) -> str:
    """The ``pip install`` that adds ``extra`` to this copy of MARPLE-Gym."""
    source = _source_folder()
    if source is None:
        return f"pip install {shlex.quote(f'{DISTRIBUTION}[{extra}]')}"
    editable = "-e " if source[1] else ""
    return f"pip install {editable}{shlex.quote(f'{source[0]}[{extra}]')}"


def missing_module_hint(error: ModuleNotFoundError) -> str | None:
    """What to say for an import of a module an extra brings (``torch is not installed: the agents extra brings
    it: pip install ...``); None for any other missing module, which is not the user's to install."""
    if not error.name:
        return None
    extra = extra_providing(error.name)
    if extra is None:
        return None
    top = error.name.split(".")[0]
    return f"{top} is not installed; the {extra} extra brings it: {install_command(extra)}"


@cache
def _source_folder() -> tuple[str, bool] | None:
    """(folder, editable) where this copy was installed from a folder (``pip install -e .``), else None."""
    # The first copy that says where it came from: a source tree's own egg-info, found first when the tree is the
    # working directory, does not say.
    texts = (d.read_text("direct_url.json") for d in metadata.distributions(name=DISTRIBUTION))
    text = next((t for t in texts if t), None)
    try:
        origin = json.loads(text) if text else {}
    except ValueError:
        return None
    if not isinstance(origin, dict):
        return None
    url = urlparse(str(origin.get("url", "")))
    if url.scheme != "file" or "dir_info" not in origin:
        return None
    return unquote(url.path), bool(origin["dir_info"].get("editable"))


def _normal(name: str) -> str:
    """A distribution's name as its module is imported (``stable-baselines3`` -> ``stable_baselines3``)."""
    return re.sub(r"[-.]+", "_", name).lower()
