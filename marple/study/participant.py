"""Whodunit methods as simulated study participants (``marple study --simulate METHOD``).

The participant sees a trial as a person does: the culprit on the side the
study drew, the agents under opaque names, and answers at each evidence point
with ``100 * P(Agent B)`` on the slider, plus optional Gaussian noise (in
slider points, seeded) for a noisier pilot. No cutoff applies: people get none.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from marple.registry import make_method, method_class
from marple.runner import MethodRun, check_agent_files, method_resources, placed_arguments
from marple.study.trials import StudyTrial
from marple_eval.evidence import trial_evidence
from marple_eval.methods.whodunit import normalise
from marple_eval.protocol import AgentResources, Identities, ProtocolSettings, opaque

Participant = Callable[[StudyTrial, int], float]
"""(trial as shown, evidence point) -> the slider, 0 = definitely Agent A, 100 = definitely Agent B."""


def method_participant(
    method: str,
    noise: float = 0.0,
    seed: int = 0,
    method_args: dict[str, Any] | None = None,
    agents: dict[str, str] | None = None,
    data: str | Path | None = None,
) -> Participant:
    """A participant answering like the whodunit method ``method``, built, wired and placed by the method runner as
    ``marple evaluate`` runs it (its learned models on a GPU when there is one): ``agents`` as
    ``marple evaluate --agent`` (ROLE -> model), and ``data`` the dataset (ideal, bip and the MCTS agent model
    start from the default mission prior, uniform over the scenario's missions)."""
    if not np.isfinite(noise) or noise < 0:
        raise ValueError(f"the noise must be a finite number of slider points at least 0, got {noise}")
    run = MethodRun(method, dict(method_args or {}), agents, data)
    inference = make_method("whodunit", method, **placed_arguments(method_class("whodunit", method), run))
    resources, _ = method_resources(run)
    identities = Identities()
    rules = ProtocolSettings().rules
    rng = np.random.default_rng(seed)
    set_up: list[str] = []  # the scenario the method is set up for

    def answer(trial: StudyTrial, point: int) -> float:
        episode = trial.episode
        if resources is not None and set_up != [episode.scenario]:
            if agents:  # the method gets the files by content: a bad one is named here, with its path
                check_agent_files(AgentResources(agents), [episode.scenario], "--simulate-agent")
            inference.setup({identities(episode.scenario, r): opaque(resources(episode.scenario, r)) for r in "AB"})
            set_up[:] = [episode.scenario]
        roles = ("A", "B") if episode.culprit == 0 else ("B", "A")
        names = (identities(episode.scenario, roles[0]), identities(episode.scenario, roles[1]))
        tau = trial.evidence_steps[point]
        evidence = trial_evidence(episode, tau, trial.culprit_shown_as == "B", inference.reads, names, rules)
        _, p_b = normalise(*inference.predict(evidence), method=inference.name)
        return float(np.clip(100 * p_b + (rng.normal(0, noise) if noise else 0.0), 0, 100))

    return answer
