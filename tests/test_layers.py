"""Layers point one way: a module imports only from its own layer or below, and no imports go round in a cycle.

The imports are read from the source with ``ast`` (every ``import`` statement,
those inside functions included, except typing-only ones under
``if TYPE_CHECKING:``), so the test fails on an upward import whether or not a
test happens to execute it. Layers are whole folders. Besides them, the nevers:
only ``marple_gym.episode`` imports the world's executors (``world.rules``,
``world.batch``); the world core imports numpy and the standard library only;
a package never imports the ones above it (``FORBIDDEN``). Every failure names
the file and line of the offending import.
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
    ("marple_gym.episode", "marple_gym.planner", "marple_gym.sound"),  # the only way into the world, and its users
    ("marple_gym.rendering",),  # pure drawing (frames, panels, captions) and the window it shows them in
    ("marple_gym.recording",),  # episode records, the planner's recorder, many planners recorded in one house
    ("marple_gym.envs",),
    ("marple_gym.multiagent",),  # many agents in one house: the PettingZoo env
    ("marple_gym.datasets",),  # datasets on disk
    # Viewers and applications built on the layers below.
    ("marple_gym.viewers", "marple_gym.study", "marple_gym.cli", "marple_gym"),
    ("marple_eval",),
    ("marple_agents",),
    ("marple_agents.cli", "marple_benchmark"),  # the command lines and the benchmark application
)
"""Low to high, whole folders (packages) only. A module belongs to the layer of its longest matching prefix."""

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
    "marple_gym": ("marple_agents", "marple_eval", "marple_benchmark"),
    "marple_eval": ("torch", "lightning", "marple_agents", "marple_benchmark"),
    "marple_agents": ("marple_benchmark",),
}
"""The nevers: what a package may not import at all, in any module."""

EXECUTORS = ("marple_gym.world.rules", "marple_gym.world.batch")
"""The world's two executors of the rules (one episode, many): entered only through :mod:`marple_gym.episode`."""
EXECUTOR_USERS = ("marple_gym.episode",)
WORLD_MAY_IMPORT = ("numpy", "marple_gym.world", "marple_gym.errors")
"""Besides the standard library: the world core is pure numpy (``errors``, its exception types, is stdlib only)."""


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


def import_sites(path: Path, top_level_only: bool = False) -> list[tuple[str, int]]:
    """(module, line) of every import in ``path`` (``from pkg import sub`` counts as ``pkg.sub`` where ``sub`` is a
    module)."""
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _typing_only(child):
                continue
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and top_level_only:
                continue
            if isinstance(child, ast.Import):
                found.extend((alias.name, child.lineno) for alias in child.names)
            elif isinstance(child, ast.ImportFrom) and child.module and child.level == 0:
                for alias in child.names:
                    sub = f"{child.module}.{alias.name}"
                    found.append((sub if sub in MODULES else child.module, child.lineno))
            visit(child)

    visit(ast.parse(path.read_text()))
    return found


def imports(path: Path, top_level_only: bool = False) -> set[str]:
    """Modules ``path`` imports."""
    return {target for target, _ in import_sites(path, top_level_only)}


def _within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def _where(path: Path, line: int) -> str:
    return f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:{line}"


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
        for target, line in import_sites(path):
            theirs = layer_of(target)
            if theirs is not None and theirs > mine:
                upward.append(f"{_where(path, line)}: {module} (layer {mine}) imports {target} (layer {theirs})")
    assert upward == []


def test_layers_are_whole_folders():
    """A layer lists folders, or modules at a package's root, never a module from inside a folder."""
    split = [
        prefix
        for layer in LAYERS
        for prefix in layer
        if not ROOT.joinpath(*prefix.split(".")).is_dir() and prefix.rpartition(".")[0] not in PACKAGES
    ]
    assert split == []


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_the_nevers_hold(package):
    banned = FORBIDDEN[package]
    found = [
        f"{_where(path, line)}: {module} imports {target}"
        for module, path in MODULES.items()
        if _within(module, (package,))
        for target, line in import_sites(path)
        if _within(target, banned)
    ]
    assert found == []


def rules_entered_outside_the_episode(modules: dict[str, Path]) -> list[str]:
    """Every import of a world executor from outside :mod:`marple_gym.episode`, as ``file:line: ...``."""
    return [
        f"{_where(path, line)}: {module} imports {target} (go through marple_gym.episode)"
        for module, path in modules.items()
        if not _within(module, EXECUTOR_USERS + EXECUTORS)
        for target, line in import_sites(path)
        if _within(target, EXECUTORS)
    ]


def test_only_the_episode_enters_the_world_rules():
    assert rules_entered_outside_the_episode(MODULES) == []


def test_an_executor_imported_inside_a_function_is_named_by_file_and_line(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text("import numpy\n\n\ndef cheat():\n    from marple_gym.world import rules\n")
    assert rules_entered_outside_the_episode({"marple_gym.envs.planted": planted}) == [
        f"{planted}:5: marple_gym.envs.planted imports marple_gym.world.rules (go through marple_gym.episode)"
    ]


def test_the_world_core_imports_numpy_and_the_standard_library_only():
    found = [
        f"{_where(path, line)}: {module} imports {target}"
        for module, path in MODULES.items()
        if _within(module, ("marple_gym.world",))
        for target, line in import_sites(path)
        if target.split(".")[0] not in sys.stdlib_module_names and not _within(target, WORLD_MAY_IMPORT)
    ]
    assert found == []


def test_no_import_cycles():
    # Imports inside functions count too: a cycle through one still ties the two modules into one.
    graph = {m: {t for t in imports(p) if t in MODULES and t != m} for m, p in MODULES.items()}
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
