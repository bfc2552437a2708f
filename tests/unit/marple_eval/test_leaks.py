"""No channel names the culprit: an adversary walks everything a model can reach and fails to beat chance.

The culprit is always the agent of role A (its mission produces the query
state), so anything that depends on the role names the culprit. The adversary
collects every value reachable from the trial objects a model receives
(evidence, start configs, rebuilt worlds, identities, labels, their order),
learns from one run which values go with culprits, and predicts the culprit
in another run on other episodes. Behaviour (what the agents did) transfers
across episodes only through inference; a role name, a recomputable identity
or a fixed order would transfer perfectly.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from dataclasses import fields, is_dataclass

import numpy as np
import pytest

from marple_eval import ProtocolSettings, dataset_episodes, evaluate
from marple_eval.evidence import MODALITIES, TrialEvidence
from marple_eval.methods.whodunit import WhodunitMethod
from marple_gym.datasets import DatasetSpec, MarpleDataset, Sizes, Unit, generate_dataset

LEAF = (str, int, float, bool, type(None))


def leaves(obj, path: str = "", out: dict | None = None, seen: set | None = None, depth: int = 0) -> dict:
    """Every scalar reachable from ``obj`` (arrays by shape and content), keyed by its attribute path."""
    out = {} if out is None else out
    seen = set() if seen is None else seen
    if isinstance(obj, LEAF):
        out[path] = obj
        return out
    if isinstance(obj, np.ndarray):
        out[path] = (obj.shape, obj.tobytes())
        return out
    if id(obj) in seen or depth > 8 or callable(obj) and not hasattr(obj, "__dict__"):
        return out
    seen.add(id(obj))
    if isinstance(obj, dict):
        for k, v in obj.items():
            leaves(v, f"{path}[{k!r}]", out, seen, depth + 1)
    elif isinstance(obj, (list, tuple, set, frozenset)):
        items = sorted(obj, key=repr) if isinstance(obj, (set, frozenset)) else obj
        for i, v in enumerate(items):
            leaves(v, f"{path}[{i}]", out, seen, depth + 1)
    elif is_dataclass(obj):
        for f in fields(obj):
            leaves(getattr(obj, f.name), f"{path}.{f.name}", out, seen, depth + 1)
    elif hasattr(obj, "__dict__") or hasattr(obj, "__slots__"):
        names = list(getattr(obj, "__dict__", {})) + list(getattr(obj, "__slots__", ()))
        for name in names:
            if hasattr(obj, name):
                leaves(getattr(obj, name), f"{path}.{name}", out, seen, depth + 1)
    return out


class Spy(WhodunitMethod):
    """Sees every modality and keeps what it was shown."""

    name = "spy"
    reads = MODALITIES

    def __init__(self) -> None:
        self.seen: list[TrialEvidence] = []

    def predict(self, trial: TrialEvidence) -> tuple[float, float]:
        self.seen.append(trial)
        return 0.5, 0.5


BEHAVIOUR = ("agent._vision", "agent._actions", "agent._audio", "agent._intents", "agent._subgoals", "world.state")
"""What the agents did: the observations of each modality and the world state their actions made. Telling the
culprit from these is the task itself (an intent that names the query's mission is evidence, not a leak)."""


def agent_views(trial: TrialEvidence) -> list[dict]:
    """For each agent as shown: every reachable value, its place in the trial and the world it rebuilds."""
    views = []
    for position, agent in enumerate(trial.agents):
        view = leaves(agent, "agent")
        leaves(agent.world(), "world", view)
        view["position"] = position
        views.append(view)
    return views


def observe_run(episodes) -> list[tuple[str, list[dict], int]]:
    """(episode id, per-agent views, index of the culprit) for every evidence point of one run."""
    spy = Spy()
    run = evaluate(lambda: spy, episodes, ProtocolSettings(seed=0, cutoff=None), progress=False)
    out = []
    points = iter(spy.seen)
    for trial in run.trials:
        swap = trial.labelings[0]["swap"]
        for _ in trial.taus:
            out.append((trial.episode_id, agent_views(next(points)), 1 if swap else 0))
    return out


def adversary_accuracy(train, test) -> dict[str, float]:
    """Per attribute path: how often memorising culprit values from ``train`` finds the culprit in ``test``
    (a coin flip where it has no opinion)."""
    culprit_values, other_values = defaultdict(set), defaultdict(set)
    for _, views, culprit in train:
        for k, view in enumerate(views):
            for path, value in view.items():
                (culprit_values if k == culprit else other_values)[path].add(value)
    scores = {}
    for path in culprit_values:
        if path.startswith(BEHAVIOUR):
            continue
        marked = culprit_values[path] - other_values[path]
        right = 0.0
        for _, views, culprit in test:
            hits = [k for k, view in enumerate(views) if view.get(path) in marked]
            right += (1.0 if hits == [culprit] else 0.0) if len(hits) == 1 else 0.5
        scores[path] = right / len(test)
    return scores


@pytest.fixture(scope="module")
def episodes(tmp_path_factory):
    root = tmp_path_factory.mktemp("leaks") / "data"
    spec = DatasetSpec([Unit.scenario("pillow"), Unit.scenario("snack")], Sizes(4, 4, 1, 1), seed=4, splits=("test",))
    generate_dataset(spec, root, workers=1, progress=False)
    return dataset_episodes(MarpleDataset(root), ["pillow", "snack"])


def split_by_episode(episodes):
    return episodes[0::2], episodes[1::2]


def test_no_reachable_value_separates_culprit_from_suspect(episodes):
    train_episodes, test_episodes = split_by_episode(episodes)
    train = observe_run(train_episodes)  # one run ...
    test = observe_run(test_episodes)  # ... another run (new identities), other episodes
    trials = len(test_episodes)
    bound = 0.5 + 3 * 0.5 / np.sqrt(trials)  # three standard errors above chance, per trial
    scores = adversary_accuracy(train, test)
    assert len(scores) > 50  # the walk reaches deep: start configs, identities, labels, the rebuilt world's house
    assert any(path.startswith("world.house") for path in scores)
    leaks = {path: score for path, score in scores.items() if score > bound}
    assert not leaks, f"values that name the culprit: {leaks}"


@pytest.mark.parametrize("leak", ["role name in start configs", "identities computable from public inputs"])
def test_the_adversary_finds_a_planted_leak(episodes, monkeypatch, leak):
    import marple_eval.evidence as evidence
    import marple_eval.protocol as protocol

    if leak == "role name in start configs":
        monkeypatch.setattr(evidence, "_neutral", lambda config: config)
        where = ".name"
    else:
        fixed = functools.partial(protocol.Identities, "public")  # the same names in every run
        monkeypatch.setattr(protocol, "Identities", fixed)
        where = "identity"
    train_episodes, test_episodes = split_by_episode(episodes)
    scores = adversary_accuracy(observe_run(train_episodes), observe_run(test_episodes))
    assert any(where in path for path, score in scores.items() if score == 1.0)
