"""One device setting, end to end: resolution, the command lines, models that take a device, bf16 at inference."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from light_room import TOGGLE_ON, evidence_for, light_world  # noqa: E402
from tiny_models import random_subgoal, random_vision, sharp_policy, tiny_config  # noqa: E402

from marple.cli.main import main  # noqa: E402
from marple_agents import AgentPolicy  # noqa: E402
from marple_agents.bip import BipMethod  # noqa: E402
from marple_agents.device import DeviceError, devices_for, resolve_device, resolve_precision  # noqa: E402
from marple_agents.networks import build_model  # noqa: E402
from marple_agents.simulation import PolicyAgent, SimulationMethod, query_probability  # noqa: E402
from marple_eval import ProtocolSettings, dataset_episodes, evaluate  # noqa: E402
from marple_gym.datasets import DatasetSpec, MarpleDataset, Sizes, Unit, generate_dataset  # noqa: E402

CUDA = torch.cuda.is_available()
BF16_ACTION_TOLERANCE = 0.01
"""bf16 autocast against fp32: the largest difference allowed in any action probability (measured: 0.006)."""
ROLLOUTS = 1000
BF16_ROLLOUT_TOLERANCE = 3 * (2 * 0.25 / ROLLOUTS) ** 0.5
"""... and in a rollout answer: three standard errors of the difference of two answers of 1,000 rollouts (0.067),
since once bf16 moves one sampled action that rollout's later draws part from fp32's (measured: 0.006 on the CPU,
0.032 on an H200)."""


@pytest.fixture
def gpus(monkeypatch):
    """Pretend torch sees ``n`` GPUs (0: none)."""

    def fake(n: int) -> None:
        monkeypatch.setattr(torch.cuda, "is_available", lambda: n > 0)
        monkeypatch.setattr(torch.cuda, "device_count", lambda: n)

    return fake


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("device") / "data"
    spec = DatasetSpec([Unit.scenario("pillow")], Sizes(2, 2, 1, 1), seed=4, splits=("test",))
    generate_dataset(spec, root, workers=1, progress=False)
    return MarpleDataset(root)


def test_auto_falls_back_to_the_cpu_without_a_gpu(gpus):
    gpus(0)
    assert resolve_device("auto") == torch.device("cpu") == resolve_device("cpu") and devices_for("auto") == ["cpu"]
    with pytest.raises(DeviceError, match="no GPU that torch can use"):
        resolve_device("cuda")
    with pytest.raises(DeviceError, match="no GPU"):
        devices_for("cuda:1")
    assert resolve_precision("cpu") == "fp32" and resolve_precision("cpu", "bf16") == "bf16"


def test_auto_takes_the_first_gpu_and_a_benchmark_every_gpu(gpus):
    gpus(2)
    assert resolve_device("auto") == torch.device("cuda:0") == resolve_device("cuda")
    assert resolve_device("CUDA:1") == torch.device("cuda:1")
    assert devices_for("auto") == devices_for("cuda") == ["cuda:0", "cuda:1"]
    assert devices_for("cuda:1") == ["cuda:1"] and devices_for("cpu") == ["cpu"]
    with pytest.raises(DeviceError, match="2 GPU\\(s\\), cuda:0 to cuda:1"):
        resolve_device("cuda:2")
    with pytest.raises(DeviceError, match="unknown device 'tpu'"):
        resolve_device("tpu")


def test_models_record_where_and_how_they_ran(gpus):
    gpus(0)
    sim = SimulationMethod("vision", rollouts=2)
    assert sim.device == "cpu" and sim.settings()["device"] == "cpu" and sim.settings()["precision"] == "fp32"
    assert SimulationMethod("vision", device="cpu", precision="bf16").settings()["precision"] == "bf16"
    assert BipMethod().settings()["device"] == "cpu" and BipMethod().settings()["precision"] == "fp32"
    with pytest.raises(DeviceError, match="unknown precision"):
        SimulationMethod("vision", precision="fp8")
    # A device is resolved by the runner, once: a method takes the torch.device it is given.
    assert SimulationMethod("vision", device=torch.device("cpu")).settings()["device"] == "cpu"


@pytest.mark.parametrize("conditioning", ["vision", "language"])
def test_bf16_autocast_answers_agree_with_fp32(conditioning):
    """The CPU has bf16 autocast too: the forward passes a GPU runs in bf16 by default, checked without one."""
    rng = np.random.default_rng(2)
    vision = random_vision(rng, 200, 12, 12)
    subgoal = random_subgoal(rng, 200) if conditioning == "language" else None
    policies = {p: sharp_policy(conditioning, p) for p in ("fp32", "bf16")}
    fp32, bf16 = (policies[p].action_probs(vision, subgoal) for p in ("fp32", "bf16"))
    assert fp32.max(axis=1).mean() > 0.3  # peaked, as a trained policy's are: the test has something to lose
    assert np.abs(fp32 - bf16).max() < BF16_ACTION_TOLERANCE
    assert (fp32.argmax(axis=1) == bf16.argmax(axis=1)).mean() > 0.97
    if conditioning == "language":
        heads32, heads16 = (policies[p].subgoal_probs(vision) for p in ("fp32", "bf16"))
        assert all(np.abs(heads32[f] - heads16[f]).max() < BF16_ACTION_TOLERANCE for f in heads32)


def test_a_large_batch_runs_in_chunks_with_the_same_answers(monkeypatch):
    """A lockstep round may gather more rows than a GPU holds activations for: they go through in chunks."""
    import marple_agents.policy

    rng = np.random.default_rng(5)
    vision, subgoal = random_vision(rng, 10, 8, 8), random_subgoal(rng, 10)
    policy = sharp_policy("language", "fp32", width=32, depth=2, heads=2)
    whole, heads = policy.action_probs(vision, subgoal), policy.subgoal_probs(vision)
    monkeypatch.setattr(marple_agents.policy, "FORWARD_ROWS", 3)
    np.testing.assert_allclose(policy.action_probs(vision, subgoal), whole, atol=1e-6)
    chunked = policy.subgoal_probs(vision)
    assert all(np.allclose(chunked[f], heads[f], atol=1e-6) for f in heads)


def test_bf16_rollout_answers_agree_with_fp32():
    """An answer is a fraction of rollouts: bf16 moves a few sampled actions, so it moves by a few rollouts."""
    world = light_world()
    answers = {}
    for precision in ("fp32", "bf16"):
        agent = PolicyAgent(sharp_policy("vision", precision, seed=2, width=32, depth=1, glimpse=2))
        rng = np.random.default_rng(0)
        answers[precision] = query_probability(world, agent, evidence_for(world), TOGGLE_ON, 8, ROLLOUTS, rng)
    assert 0.05 < answers["fp32"] < 0.95  # neither sure nor hopeless: there is something to move
    assert abs(answers["fp32"] - answers["bf16"]) <= BF16_ROLLOUT_TOLERANCE


class CountingPolicy(AgentPolicy):
    """A policy that records how many callers each of its forward passes served."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.callers: list[int] = []

    def _act(self, inputs):
        self.callers.append(len(inputs))
        return super()._act(inputs)


def test_lockstep_scoring_answers_as_one_trial_at_a_time(data):
    """The accelerator's path, on the CPU: several trials in threads of one process, one forward pass for all of
    their rollouts per step (actions and subgoal decoders), give the answers of the one-trial-at-a-time path."""
    cfg = tiny_config("language", width=32, depth=1, glimpse=2)
    torch.manual_seed(1)
    policies = {role: CountingPolicy(build_model(cfg), cfg) for role in "AB"}
    episodes = dataset_episodes(data, ["pillow"], limit=3)
    runs, callers = [], []
    for workers, executor in ((1, "processes"), (3, "lockstep")):
        run = evaluate(
            lambda: SimulationMethod("all", rollouts=4, device="cpu"),
            episodes,
            ProtocolSettings(),
            resources=lambda scenario, role: policies[role],
            workers=workers,
            executor=executor,
            progress=False,
        )
        runs.append(run)
        callers.append([n for p in policies.values() for n in p.callers])
        for p in policies.values():
            p.callers = []
    assert runs[0].matrix().tolist() == runs[1].matrix().tolist()
    assert runs[1].settings["trials_in_flight"] == 3 and "trials_in_flight" not in runs[0].settings
    assert max(callers[0]) == 1 and max(callers[1]) > 1  # the trials' calls shared forward passes


PLUGIN = """
from marple_eval.methods.whodunit import WhodunitMethod


class OnDevice(WhodunitMethod):
    name = "on-device"

    def __init__(self, device="cpu"):
        self.device = device  # a torch.device, resolved by the runner

    def settings(self):
        return {**super().settings(), "device": str(self.device)}

    def predict(self, trial):
        return [1.0 / len(trial.agents)] * len(trial.agents)
"""


def test_the_device_reaches_a_plugin_model_that_takes_one(data, tmp_path, monkeypatch, capsys, gpus):
    gpus(0)
    (tmp_path / "device_models.py").write_text(PLUGIN)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    base = ["evaluate", "--data", str(data.root), "--limit", "1", "--no-progress"]
    out = tmp_path / "r.json"
    assert main([*base, "--model", "device_models:OnDevice", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["settings"]["device"] == "cpu"  # auto, resolved on a machine without a GPU
    assert main([*base, "--model", "device_models:OnDevice", "--device", "cuda:0", "--out", str(out)]) == 2
    assert "device cuda:0: this machine has no GPU" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="2"):  # the parser refuses it
        main([*base, "--model", "uniform", "--device", "gpu"])
    assert "argument --device: expected auto|cpu|cuda|cuda:N, got 'gpu'" in capsys.readouterr().err
    assert main([*base, "--model", "uniform", "--device", "cpu", "--out", str(out)]) == 0
    assert "--device cpu does not apply" in capsys.readouterr().err


@pytest.mark.gpu
@pytest.mark.skipif(not CUDA, reason="needs a CUDA GPU")
def test_on_a_gpu_rollouts_run_in_bf16_and_lockstep_scoring_agrees(data):
    """On a GPU: the default precision is bf16, a policy's answers agree with fp32, and lockstep scoring (trials
    batched in one process) agrees with one trial at a time within the bf16 tolerance."""
    assert resolve_device("auto") == torch.device("cuda:0") and resolve_precision("cuda:0") in ("bf16", "fp32")
    rng = np.random.default_rng(3)
    vision = random_vision(rng, 1100, 20, 20)
    policy = sharp_policy("vision")
    on_gpu = AgentPolicy(policy.net, policy.config, device="cuda", precision="auto")
    assert on_gpu.device.type == "cuda"
    cpu = sharp_policy("vision", "fp32").action_probs(vision)
    assert np.abs(on_gpu.action_probs(vision) - cpu).max() < BF16_ACTION_TOLERANCE
    episodes = dataset_episodes(data, ["pillow"])
    runs = [
        evaluate(
            lambda: SimulationMethod("vision", rollouts=20, device="cuda:0"),
            episodes,
            ProtocolSettings(cutoff=None),
            resources=lambda scenario, role: on_gpu,
            workers=workers,
            executor=executor,
            progress=False,
        )
        for workers, executor in ((1, "processes"), (3, "lockstep"))
    ]
    assert runs[1].settings["trials_in_flight"] == 3 and runs[1].settings["device"] == "cuda"
    assert np.abs(runs[0].matrix() - runs[1].matrix()).mean() < 0.02


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_the_mcts_agent_model_searches_with_its_policy_on_the_device_and_precision_given(
    tmp_path, monkeypatch, precision
):
    """The MCTS agent model (in simulation and in bip) loads its policy as every learned method does, with the
    model's device and precision, so the search's prior runs where and how the plain policy agent's does."""
    from marple_agents.cache import clear_policy_caches
    from marple_agents.checkpoints import save_checkpoint
    from marple_agents.search.missions import take_states
    from marple_eval.protocol import opaque
    from marple_gym.world.batched_state import BatchedState

    files = {}
    for conditioning in ("vision", "language"):
        cfg = tiny_config(conditioning)
        torch.manual_seed(0)
        path = save_checkpoint(tmp_path / conditioning / "policy.pt", build_model(cfg), cfg)
        files[conditioning] = opaque(path)  # by content, as the protocol hands agent models over
    prior = {"get_night_snack": 1.0}
    searched = SimulationMethod("vision", agent="mcts", simulations=2, device="cpu", precision=precision)
    searched.setup({"x": {"policy": files["vision"], "prior": prior}})
    plain = SimulationMethod("vision", device="cpu", precision=precision)
    plain.setup({"x": files["vision"]})
    agent = searched.agents["x"]
    policy = agent.policy
    assert isinstance(policy, AgentPolicy) and policy.device == torch.device("cpu") and policy.precision == precision
    assert policy is plain.agents["x"].policy  # the very copy the plain policy agent rolls out
    assert searched.settings()["device"] == "cpu" and searched.settings()["precision"] == precision

    # The search's prior at the root and at every node it adds is that policy's answer.
    clear_policy_caches()  # the process's cache of these weights: other tests may have asked it
    rows, seen, asked = [], agent.cache.rows_seen, agent.cache.rows_asked
    ask = policy.action_probs
    monkeypatch.setattr(policy, "action_probs", lambda v, s=None: rows.append(len(v)) or ask(v, s))
    world = light_world()
    states = take_states(BatchedState.repeat(world.state, 2), np.arange(2))
    probs = agent.search.policy(world.house, states, np.zeros(2, int), np.zeros(2, int))
    # Every node's prior (the root and the two the search added, in both trees) is asked of the policy's cache,
    # which passes the inputs it has not seen to the policy: how many are new depends on the actions the
    # untrained policy favours (a no-op child repeats its parent's input), so only the totals are pinned.
    assert probs.shape == (2, 10) and agent.cache.rows_seen - seen == 2 * 3
    assert len(rows) >= 1 and sum(rows) == agent.cache.rows_asked - asked

    bip = BipMethod(agent="mcts", simulations=2, device="cpu", precision=precision)
    bip.setup({"x": {"policy": files["language"], "prior": prior}})
    language = bip.policies["x"]
    assert (
        isinstance(language, AgentPolicy) and language.device == torch.device("cpu") and language.precision == precision
    )
    assert bip._mission_search("x", list(prior)).prior.__self__.policy is language
