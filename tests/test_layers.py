"""Layers point one way: a module imports only from its own layer or below, and no imports go round in a cycle.

The imports are read from the source with ``ast`` (every ``import`` statement,
those inside functions included, except typing-only ones under
``if TYPE_CHECKING:``), so the test fails on an upward import whether or not a
test happens to execute it.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("marple_gym", "marple_eval", "marple_agents", "marple_benchmark")

LAYERS: tuple[tuple[str, ...], ...] = (
    (
        "marple_gym.version",
        "marple_gym.errors",
        "marple_gym.files",
        "marple_gym.validation",
        "marple_gym.world",
    ),  # the core: numpy only
    ("marple_gym.missions",),
    ("marple_gym.evidence", "marple_gym.generation"),
    ("marple_gym.episode", "marple_gym.planner", "marple_gym.sound"),
    ("marple_gym.rendering",),  # pure drawing (frames, panels, captions) and the window it shows them in
    ("marple_gym.envs",),
    ("marple_gym.datasets.records", "marple_gym.datasets.recorder"),  # the episode record and its recorder
    ("marple_gym.multiagent",),  # many agents in one house: the PettingZoo env and the shared-house planner
    ("marple_gym.datasets",),  # datasets, including shared-house ones made with the planner above
    # Viewers and applications built on the layers below.
    ("marple_gym.rendering.replays", "marple_gym.rendering.play", "marple_gym.study", "marple_gym.cli", "marple_gym"),
    ("marple_eval",),
    ("marple_agents",),
    ("marple_agents.cli", "marple_benchmark"),  # the command lines and the benchmark application
)
"""Low to high. A module belongs to the layer of its longest matching prefix."""

FORBIDDEN = {
    "marple_gym.world": (
        "gymnasium",
        "pygame",
        "torch",
        "lightning",
        "networkx",
        "PIL",
        "marple_agents",
        "marple_eval",
    ),
    "marple_gym": ("marple_agents", "marple_eval"),
    "marple_eval": ("torch", "lightning", "marple_agents"),
}
"""The nevers: what a package may not import at all, in any module."""


def modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = path
    return out


MODULES = modules()


def _typing_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports(path: Path, top_level_only: bool = False) -> set[str]:
    """Modules ``path`` imports (``from pkg import sub`` counts as ``pkg.sub`` where ``sub`` is a module)."""
    found: set[str] = set()

    def visit(node: ast.AST, top: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _typing_only(child):
                continue
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and top_level_only:
                continue
            if isinstance(child, ast.Import):
                found.update(alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom) and child.module and child.level == 0:
                for alias in child.names:
                    sub = f"{child.module}.{alias.name}"
                    found.add(sub if sub in MODULES else child.module)
            visit(child, top)

    visit(ast.parse(path.read_text()), True)
    return found


def layer_of(module: str) -> int | None:
    best, layer = -1, None
    for i, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, layer = len(prefix), i
    return layer


def test_every_module_has_a_layer():
    assert [m for m in MODULES if layer_of(m) is None] == []


def test_no_module_imports_from_a_higher_layer():
    upward = []
    for module, path in MODULES.items():
        mine = layer_of(module)
        for target in imports(path):
            theirs = layer_of(target)
            if theirs is not None and theirs > mine:
                upward.append(f"{module} (layer {mine}) imports {target} (layer {theirs})")
    assert upward == []


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_the_nevers_hold(package):
    banned = FORBIDDEN[package]
    found = [
        f"{module} imports {target}"
        for module, path in MODULES.items()
        if module == package or module.startswith(package + ".")
        for target in imports(path)
        if target.split(".")[0] in banned or any(target.startswith(b + ".") or target == b for b in banned)
    ]
    assert found == []


def test_no_import_cycles_at_module_level():
    graph = {m: {t for t in imports(p, top_level_only=True) if t in MODULES and t != m} for m, p in MODULES.items()}
    # A package's __init__ runs before its submodules, so a submodule importing its own package is no cycle.
    cycles, state = [], dict.fromkeys(graph, 0)

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if node.startswith(nxt + "."):
                continue
            if state[nxt] == 1:
                cycles.append(stack[stack.index(nxt) :] + [nxt])
            elif state[nxt] == 0:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for module in sorted(graph):
        if state[module] == 0:
            visit(module, [])
    assert cycles == []


def test_the_world_core_loads_no_drawing_or_learning_library():
    # Importing any part of marple_gym registers the envs (Gymnasium's registry, the env modules); the world
    # core's own modules import only numpy (test_the_nevers_hold), and nothing draws or learns on import.
    code = (
        "import sys, marple_gym.world, marple_gym.world.batch, marple_gym.world.navigation;"
        "heavy = [m for m in ('pygame', 'PIL', 'torch', 'matplotlib', 'minigrid') if m in sys.modules];"
        "assert not heavy, heavy"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
