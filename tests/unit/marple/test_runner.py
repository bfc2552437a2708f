"""The whodunit method runner: ``marple evaluate`` and ``marple benchmark`` build, wire, place and run a method through
the same function, and ``--device`` is resolved there once, to one torch.device handed down."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from tiny_models import tiny_config  # noqa: E402

import marple.benchmark.pipeline as pipeline  # noqa: E402
import marple.evaluation as evaluation  # noqa: E402
import marple.runner as runner  # noqa: E402
import marple_agents.device as device  # noqa: E402
from marple.registry import available_methods, make_method, method_class  # noqa: E402
from marple.runner import MethodRun, placed_arguments  # noqa: E402
from marple_agents.bip import BipMethod  # noqa: E402
from marple_agents.simulation import SimulationMethod  # noqa: E402
from marple_eval.methods.reference import DistanceMethod  # noqa: E402


def test_evaluate_and_the_benchmark_run_methods_through_one_function():
    assert evaluation.run_method is pipeline.run_method is runner.run_method


def test_our_methods_are_registered_directly_and_plugins_cannot_take_their_names():
    methods = available_methods("whodunit")
    assert {"uniform", "distance", "llm", "ideal", "simulation", "bip"} <= set(methods)
    assert methods["simulation"] is SimulationMethod and methods["bip"] is BipMethod
    assert method_class("whodunit", "simulation") is SimulationMethod
    assert isinstance(make_method("whodunit", "distance"), DistanceMethod)


@pytest.fixture
def resolutions(monkeypatch):
    """Every device setting the runner resolves; the libraries below may not resolve one at all."""
    calls = []
    real = runner.resolve_device

    def counted(spec):
        calls.append(spec)
        return real(spec)

    def refused(spec="auto"):
        raise AssertionError(f"resolved again below the runner: {spec!r}")

    monkeypatch.setattr(runner, "resolve_device", counted)
    monkeypatch.setattr(device, "resolve_device", refused)
    return calls


def test_the_device_is_resolved_once_and_handed_down_as_a_torch_device(resolutions):
    run = MethodRun("simulation", {"variant": "vision"}, {"A": "a.pt", "B": "b.pt"}, device="auto")
    args = placed_arguments(SimulationMethod, run)
    assert resolutions == ["auto"] and args["device"] == torch.device("cpu")
    model = make_method("whodunit", "simulation", **args)
    assert model.device is args["device"] and model.settings()["device"] == "cpu"
    from marple_agents.networks import build_model
    from marple_agents.policy import AgentPolicy

    config = tiny_config("vision")
    assert AgentPolicy(build_model(config), config, model.device).device == torch.device("cpu")
    assert resolutions == ["auto"]
    for constructor in (SimulationMethod.__init__, BipMethod.__init__, AgentPolicy.__init__):  # none resolves it again
        assert "resolve_device" not in constructor.__code__.co_names


def test_a_job_device_chosen_already_is_not_resolved_again_and_a_method_argument_wins(resolutions):
    chosen = torch.device("cpu")
    args = placed_arguments(BipMethod, MethodRun("bip", agents={"A": "a.pt"}, device=chosen, precision="fp32"))
    assert args["device"] is chosen and args["precision"] == "fp32"
    args = placed_arguments(BipMethod, MethodRun("bip", {"device": "cpu"}, {"A": "a.pt"}, device="cuda:3"))
    assert args["device"] == torch.device("cpu")


def test_planner_agents_run_on_the_cpu_by_name_and_a_method_without_a_device_gets_none(resolutions):
    args = placed_arguments(SimulationMethod, MethodRun("simulation", agents={"A": "planner", "B": "planner"}))
    assert args == {"device": "cpu"}
    assert placed_arguments(DistanceMethod, MethodRun("distance", device="cuda", precision="bf16")) == {}
    assert resolutions == []
