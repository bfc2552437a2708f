"""Layers point one way: a module imports only from its own layer or below, and no imports go round in a cycle.

The imports are read from the source with ``ast`` (every ``import`` statement,
those inside functions included, except typing-only ones under
``if TYPE_CHECKING:``; relative imports resolved against the importing file's
package; and ``importlib.import_module`` / ``__import__`` called with a literal
name), so the test fails on an upward import whether or not a test happens to
execute it. Layers are whole folders. Besides them, the nevers:
only ``marple_gym.episode`` imports the world's executors (``world.rules``,
``world.batch``); the world core imports numpy and the standard library only;
a package never imports the ones above it (``FORBIDDEN``). Every failure names
the file and line of the offending import.

The application (the ``marple`` package) stands above the three libraries. Two
ways round the layers are checked too: entry points (``pyproject.toml`` declares
none of ours: an entry point that connects our own packages is a call up the
layers in disguise; the groups our code reads are for outside plugins), and
names of the application's modules in the libraries' strings (an import
rewriter's table, a path handed to importlib).
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("marple_gym", "marple_eval", "marple_agents", "marple")

LAYERS: tuple[tuple[str, ...], ...] = (
    (
        "marple_gym.version",
        "marple_gym.errors",
        "marple_gym.files",
        "marple_gym.extras",
        "marple_gym.validation",
        "marple_gym.world",
    ),  # the core: numpy only
    ("marple_gym.missions",),
    ("marple_gym.evidence", "marple_gym.generation"),
    ("marple_gym.episode", "marple_gym.planner", "marple_gym.sound"),  # the only way into the world, and its users
    ("marple_gym.beliefs",),  # agents with beliefs: perception, belief, searching by belief, their episodes
    ("marple_gym.rendering",),  # pure drawing (frames, panels, captions) and the window it shows them in
    ("marple_gym.recording",),  # episode records, the planner's recorder, many planners recorded in one house
    ("marple_gym.envs",),
    ("marple_gym.levels",),  # the RL ladder: envs of single skills up to the missions, and their dense reward
    ("marple_gym.multiagent",),  # many agents in one house: the PettingZoo env
    ("marple_gym.datasets",),  # datasets on disk
    # the belief and expectation families' data: questions and their answers, trials, sets on disk, pictures
    ("marple_gym.beliefs.questions", "marple_gym.expectations"),
    # ``marple_gym`` itself: its __init__ registers the envs and levels (each folder has its own layer above).
    ("marple_gym",),
    ("marple_eval",),  # the evaluation protocol: scenarios, scoring, metrics, reports, reference methods (no torch)
    ("marple_agents",),  # learned agent models and their inference
    # The application, above the three libraries: it imports them directly, and none of them imports it.
    ("marple.registry", "marple.options", "marple.protocol_options"),  # every method by family; option types
    ("marple.runner",),  # the whodunit method runner: build, wire, place and run a whodunit method
    ("marple.viewers",),  # play and replay
    ("marple.study",),  # the human study, its server, simulated participants (through the runner), scoring
    ("marple.evaluation", "marple.benchmark"),  # a whodunit `marple evaluate` request; the whodunit benchmark
    ("marple.families",),  # the family contract and every family: what each command does for each family
    ("marple.cli", "marple"),  # every command line
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
    "marple_gym": ("marple_agents", "marple_eval", "marple"),
    "marple_eval": ("torch", "lightning", "marple_agents", "marple"),
    "marple_agents": ("marple",),
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


def _package_of(module: str, path: Path) -> str:
    """The package a relative import in ``path`` (module ``module``) starts from: the module itself for an
    ``__init__.py``, else the module's parent."""
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _absolute(name: str, level: int, package: str) -> str | None:
    """``name`` imported ``level`` dots up from ``package`` as an absolute name (None past the top)."""
    if level == 0:
        return name
    parts = package.split(".")
    if level - 1 >= len(parts):
        return None
    base = ".".join(parts[: len(parts) - (level - 1)])
    return f"{base}.{name}" if name else base


def _literal(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _dynamic_import(call: ast.Call, package: str) -> str | None:
    """The module an ``importlib.import_module("...")`` or ``__import__("...")`` call names, if it names one
    literally; a relative name is resolved against the ``package`` argument (a literal or ``__package__``)."""
    func = call.func
    called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if called not in ("import_module", "__import__") or not call.args:
        return None
    name = _literal(call.args[0])
    if name is None or called == "__import__" or not name.startswith("."):
        return name  # __import__ takes relative imports by a level argument, which nobody passes as a literal
    anchor = _anchor(call, package)
    if anchor is None:
        return None  # relative to a package known only at run time
    return _absolute(name.lstrip("."), len(name) - len(name.lstrip(".")), anchor)


def _anchor(call: ast.Call, package: str) -> str | None:
    """The package ``import_module(name, package)`` resolves a relative ``name`` against, if the source says."""
    given = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "package"), None)
    if isinstance(given, ast.Name) and given.id == "__package__":
        return package
    return _literal(given)


def import_sites(path: Path, module: str) -> list[tuple[str, int]]:
    """(module, line) of every import in ``path``, the file of ``module`` (``from pkg import sub`` counts as
    ``pkg.sub`` where ``sub`` is a module; ``from . import x`` is read as the absolute import it is)."""
    package = _package_of(module, path)
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _typing_only(child):
                continue
            if isinstance(child, ast.Import):
                found.extend((alias.name, child.lineno) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                found.extend(_from_import(child, package))
            elif isinstance(child, ast.Call) and (target := _dynamic_import(child, package)):
                found.append((target, child.lineno))
            visit(child)

    visit(ast.parse(path.read_text()))
    return found


def _from_import(node: ast.ImportFrom, package: str) -> list[tuple[str, int]]:
    """The modules a ``from ... import`` names: each imported name that is a module, else the module it is from."""
    base = _absolute(node.module or "", node.level, package)
    if not base:
        return []  # above the top package: Python refuses it too
    out = []
    for alias in node.names:
        sub = f"{base}.{alias.name}"
        out.append((sub if sub in MODULES else base, node.lineno))
    return out


def imports(path: Path, module: str) -> set[str]:
    """Modules ``path`` (the file of ``module``) imports."""
    return {target for target, _ in import_sites(path, module)}


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


def upward_imports(modules: dict[str, Path]) -> list[str]:
    """Every import of a module in a higher layer than the importer's, as ``file:line: ...``."""
    upward = []
    for module, path in modules.items():
        mine = layer_of(module)
        for target, line in import_sites(path, module):
            theirs = layer_of(target)
            if theirs is not None and mine is not None and theirs > mine:
                upward.append(f"{_where(path, line)}: {module} (layer {mine}) imports {target} (layer {theirs})")
    return upward


def test_no_module_imports_from_a_higher_layer():
    assert upward_imports(MODULES) == []


APPLICATION = re.compile(r"(?<![\w.])marple\.[a-z_]+")
"""A dotted name in the application's package (``marple.cli``, ``marple.study``), not ``marple_gym.x``; it counts
where it names one of the application's modules (an entry-point group such as ``marple.methods`` is no module)."""


def application_names(modules: dict[str, Path]) -> list[str]:
    """Every place below the application that names one of its modules, in an import or in any string (a
    docstring, a module path handed to importlib, an import rewriter's table), as ``file:line: name``."""
    found = []
    for module, path in modules.items():
        if _within(module, ("marple",)):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            texts = []
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                texts = [node.value]
            elif isinstance(node, ast.Import):
                texts = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                texts = [node.module]
            names = [name for text in texts for name in APPLICATION.findall(text)]
            found += [f"{_where(path, node.lineno)}: {name}" for name in names if name in modules]
    return found


def test_nothing_below_the_application_names_its_modules_not_even_in_strings():
    assert application_names(MODULES) == []


def test_a_string_naming_the_application_is_found(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text('"""See marple_gym.world."""\nOLD = {"marple_gym.cli": "marple.cli"}\n')
    modules = {"marple_gym.planted": planted, "marple.cli": planted}
    assert application_names(modules) == [f"{planted}:2: marple.cli"]


def entry_point_problems(pyproject: dict, modules: dict[str, Path]) -> list[str]:
    """Entry points that connect our own packages: every one ``pyproject`` declares for a module of ours (ours
    declares them only for ourselves), named as internal, and as pointing up where the code that reads the group
    stands below the module the entry point names."""
    readers = {module: path.read_text() for module, path in modules.items() if "entry_points(" in path.read_text()}
    problems = []
    for group, entries in pyproject.get("project", {}).get("entry-points", {}).items():
        for name, target in entries.items():
            module = target.partition(":")[0]
            if not _within(module, PACKAGES):
                continue
            problems.append(f"[project.entry-points.{group!r}] {name} = {target!r}: internal (import it directly)")
            for reader, text in readers.items():
                if f'"{group}"' in text and layer_of(reader) < layer_of(module):
                    problems.append(f"{name}: {reader} (layer {layer_of(reader)}) reads up to {module}")
    return problems


def test_no_entry_point_connects_our_own_packages():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert entry_point_problems(pyproject, MODULES) == []
    assert pyproject["project"]["scripts"] == {"marple": "marple.cli.main:main"}


def test_an_internal_entry_point_and_one_that_points_up_are_named(tmp_path):
    reader = tmp_path / "registry.py"
    reader.write_text('from importlib.metadata import entry_points\n\nPLUGINS = entry_points(group="marple.models")\n')
    planted = {"project": {"entry-points": {"marple.models": {"sim": "marple_agents.simulation:SimulationMethod"}}}}
    problems = entry_point_problems(planted, {"marple_eval.methods.registry": reader})
    assert problems[0].startswith("[project.entry-points.'marple.models'] sim = ") and "internal" in problems[0]
    assert (
        "marple_eval.methods.registry (layer" in problems[1] and "reads up to marple_agents.simulation" in problems[1]
    )
    outside = {"project": {"entry-points": {"marple.models": {"theirs": "their_package:Method"}}}}
    assert entry_point_problems(outside, {"marple_eval.methods.registry": reader}) == []


def test_every_folder_of_marple_gym_has_a_layer_of_its_own():
    """A new folder is placed in the table, not swept into the top layer by the ``marple_gym`` entry."""
    listed = {prefix for layer in LAYERS for prefix in layer}
    folders = sorted(f"marple_gym.{d.name}" for d in (ROOT / "marple_gym").iterdir() if (d / "__init__.py").is_file())
    assert [f for f in folders if f not in listed] == []


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
        for target, line in import_sites(path, module)
        if _within(target, banned)
    ]
    assert found == []


def rules_entered_outside_the_episode(modules: dict[str, Path]) -> list[str]:
    """Every import of a world executor from outside :mod:`marple_gym.episode`, as ``file:line: ...``."""
    return [
        f"{_where(path, line)}: {module} imports {target} (go through marple_gym.episode)"
        for module, path in modules.items()
        if not _within(module, EXECUTOR_USERS + EXECUTORS)
        for target, line in import_sites(path, module)
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


PLANTED_EXECUTOR_IMPORTS = {
    "relative, inside a function": "def cheat():\n    from ..world import rules\n",
    "relative, the module named": "def cheat():\n    from ..world.rules import apply_action\n",
    "importlib.import_module": "import importlib\n\nrules = importlib.import_module('marple_gym.world.rules')\n",
    "import_module, imported by name": (
        "from importlib import import_module\n\nrules = import_module('marple_gym.world.rules')\n"
    ),
    "import_module, relative to __package__": (
        "import importlib\n\nrules = importlib.import_module('..world.rules', __package__)\n"
    ),
    "import_module, relative to a literal package": (
        "import importlib\n\nrules = importlib.import_module('.rules', package='marple_gym.world')\n"
    ),
    "__import__": "rules = __import__('marple_gym.world.rules')\n",
}
"""Ways to reach an executor that a reader of ``import`` statements alone would miss, each ending on its line."""


@pytest.mark.parametrize("how", sorted(PLANTED_EXECUTOR_IMPORTS))
def test_a_planted_executor_import_is_named_by_file_and_line(tmp_path, how):
    planted = tmp_path / "planted.py"
    source = PLANTED_EXECUTOR_IMPORTS[how]
    planted.write_text(source)
    line = source.rstrip("\n").count("\n") + 1
    assert rules_entered_outside_the_episode({"marple_gym.envs.planted": planted}) == [
        f"{planted}:{line}: marple_gym.envs.planted imports marple_gym.world.rules (go through marple_gym.episode)"
    ]


def test_a_relative_import_in_a_package_init_starts_from_that_package(tmp_path):
    # In an __init__.py one dot is the package itself: `from . import rules` in marple_gym/world/__init__.py is
    # marple_gym.world.rules, in marple_gym/envs/__init__.py it would be marple_gym.envs.rules.
    init = tmp_path / "__init__.py"
    init.write_text("from . import rules\n")
    assert import_sites(init, "marple_gym.world") == [("marple_gym.world.rules", 1)]
    assert import_sites(init, "marple_gym.envs") == [("marple_gym.envs", 1)]


def test_an_upward_relative_import_is_named_by_file_and_line(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text("def draw():\n    from ..datasets import dataset\n")
    mine, theirs = layer_of("marple_gym.rendering"), layer_of("marple_gym.datasets")
    assert upward_imports({"marple_gym.rendering.planted": planted}) == [
        f"{planted}:2: marple_gym.rendering.planted (layer {mine}) imports marple_gym.datasets.dataset (layer {theirs})"
    ]


def test_an_import_module_of_a_name_known_only_at_run_time_is_not_guessed(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text("import importlib\n\n\ndef load(name):\n    return importlib.import_module(name)\n")
    assert import_sites(planted, "marple_gym.envs.planted") == [("importlib", 1)]


def test_the_world_core_imports_numpy_and_the_standard_library_only():
    found = [
        f"{_where(path, line)}: {module} imports {target}"
        for module, path in MODULES.items()
        if _within(module, ("marple_gym.world",))
        for target, line in import_sites(path, module)
        if target.split(".")[0] not in sys.stdlib_module_names and not _within(target, WORLD_MAY_IMPORT)
    ]
    assert found == []


def test_no_import_cycles():
    # Imports inside functions count too: a cycle through one still ties the two modules into one.
    graph = {m: {t for t in imports(p, m) if t in MODULES and t != m} for m, p in MODULES.items()}
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
