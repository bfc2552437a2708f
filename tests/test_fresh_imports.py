"""Every public name imports as the first thing a fresh process does, with or without Gymnasium imported first,
and an env pickled in one process unpickles in another.

The processes are forked from a server (``tests/fresh_process.py``) that has imported no module of ours and not
Gymnasium, only heavy third-party libraries that import neither (numpy, torch, ...): the order of *our* imports
is what can break, and preloading the rest makes a fresh process cost about 0.15 CPU seconds, not 2.

A lazy package (``marple_gym``, ``marple_agents``: a module ``__getattr__``) imports each name through its own
module, so each name gets its own process. For any other package ``from package import name`` first runs the
package's ``__init__``, the same for all its names, so one process imports them all.
"""

from __future__ import annotations

import importlib
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from fresh_process import FreshProcesses

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("marple_gym", "marple_agents", "marple_eval", "marple")


def public_modules() -> list[str]:
    """Every package and subpackage that declares ``__all__``."""
    found = []
    for package in PACKAGES:
        for init in sorted((ROOT / package).rglob("__init__.py")):
            if "__all__" in init.read_text():
                found.append(".".join(init.relative_to(ROOT).parent.parts))
    return found


MODULES = {name: importlib.import_module(name) for name in public_modules()}
LAZY = [(m, name) for m, module in MODULES.items() if "__getattr__" in vars(module) for name in module.__all__]
EAGER = [m for m, module in MODULES.items() if "__getattr__" not in vars(module)]
ALL_NAMES = sorted((m, name) for m, module in MODULES.items() for name in module.__all__)


@pytest.fixture(scope="module")
def fresh():
    processes = FreshProcesses()
    yield processes
    processes.close()


def imports(names) -> str:
    return "\n".join(f"from {module} import {name}" for module, name in names)


@pytest.mark.parametrize(("module", "name"), LAZY, ids=[f"{m}.{n}" for m, n in LAZY])
def test_a_lazy_packages_name_imports_first_in_a_fresh_process(fresh, module, name):
    fresh.run(imports([(module, name)]))


@pytest.mark.parametrize("name", MODULES["marple_gym"].__all__)
def test_a_name_of_the_registering_package_imports_after_gymnasium_in_a_fresh_process(fresh, name):
    fresh.run(f"import gymnasium\nfrom marple_gym import {name}")


@pytest.mark.parametrize("module", EAGER)
def test_a_packages_names_import_first_in_a_fresh_process(fresh, module):
    fresh.run(imports((module, name) for name in MODULES[module].__all__))


@pytest.mark.parametrize("order", ["sorted", "reversed"])
def test_every_public_name_imports_in_one_fresh_process_in_either_order(fresh, order):
    fresh.run(imports(ALL_NAMES if order == "sorted" else ALL_NAMES[::-1]))


def test_every_package_has_public_names_and_the_lazy_ones_are_covered():
    assert {m.split(".")[0] for m, _ in ALL_NAMES} == set(PACKAGES)
    assert {"marple_gym", "marple_agents"} <= {m for m, _ in LAZY}
    assert len(ALL_NAMES) > 200


def run_python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_gymnasium_imports_the_package_named_before_the_colon():
    code = (
        "import gymnasium as gym, sys; assert 'marple_gym' not in sys.modules;"
        "env = gym.make('marple_gym:Marple-DoLaundry-v0'); env.reset(seed=0); print(env.spec.id)"
    )
    assert run_python(code).strip() == "Marple-DoLaundry-v0"


def test_importing_the_package_registers_every_id_without_warnings():
    code = (
        "import warnings; warnings.simplefilter('error');"
        "import marple_gym, gymnasium as gym;"
        "marple_gym.register_envs(); marple_gym.register_levels();"  # explicit registration again: no duplicate
        "ids = [i for i, s in gym.registry.items() if str(s.entry_point).startswith('marple_gym.')];"
        "[gym.make(i).reset(seed=0) for i in ids];"
        "print(len(ids))"
    )
    assert run_python(code).strip() == "32"


@pytest.mark.parametrize("env_id", ["Marple-DoLaundry-v0", "Marple-GoTo-OneRoom-v0"])
def test_an_env_pickled_here_unpickles_and_steps_in_a_fresh_process(env_id, tmp_path):
    import gymnasium as gym

    import marple_gym  # noqa: F401

    env = gym.make(env_id).unwrapped
    env.reset(seed=3)
    (tmp_path / "env.pkl").write_bytes(pickle.dumps(env))
    expected = env.step(2)[0]["image"].sum()
    code = f"import pickle; env = pickle.loads(open({str(tmp_path / 'env.pkl')!r}, 'rb').read()); print(env.step(2)[0]['image'].sum())"
    assert int(run_python(code)) == int(expected)
