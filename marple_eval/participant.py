"""Inference models as simulated study participants (``marple study --simulate MODEL``).

The participant sees a trial as a person does: the culprit on the side the
study drew, the agents under opaque names, and answers at each evidence point
with ``100 * P(Agent B)`` on the slider, plus optional Gaussian noise (in
slider points, seeded) for a noisier pilot. No cutoff applies: people get none.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from marple_eval.evidence import trial_evidence
from marple_eval.model_options import parse_agents, parse_model_args
from marple_eval.models.base import normalise
from marple_eval.models.registry import make_model
from marple_eval.protocol import AgentResources, Identities, ProtocolSettings, opaque
from marple_eval.resources import check_agent_files, model_resources
from marple_gym.study.simulate import Participant
from marple_gym.study.trials import Trial


def model_participant(
    model: str,
    noise: float = 0.0,
    seed: int = 0,
    model_args: dict[str, Any] | None = None,
    agents: dict[str, str] | None = None,
    data: str | Path | None = None,
) -> Participant:
    """A participant answering like ``model``; ``agents`` as ``marple evaluate --agent`` (ROLE -> model), and
    ``data`` the dataset whose training split gives each agent's mission prior (ideal, bip)."""
    if not np.isfinite(noise) or noise < 0:
        raise ValueError(f"the noise must be a finite number of slider points at least 0, got {noise}")
    inference = make_model(model, **(model_args or {}))
    resources, _ = model_resources(model, model_args or {}, agents, data, None, [])
    identities = Identities()
    rules = ProtocolSettings().rules
    rng = np.random.default_rng(seed)
    set_up: list[str] = []  # the scenario the model is set up for

    def answer(trial: Trial, point: int) -> float:
        episode = trial.episode
        if resources is not None and set_up != [episode.scenario]:
            if agents:  # the model gets the files by content: a bad one is named here, with its path
                check_agent_files(AgentResources(agents), [episode.scenario], "--simulate-agent")
            inference.setup({identities(episode.scenario, r): opaque(resources(episode.scenario, r)) for r in "AB"})
            set_up[:] = [episode.scenario]
        roles = ("A", "B") if episode.culprit == 0 else ("B", "A")
        names = (identities(episode.scenario, roles[0]), identities(episode.scenario, roles[1]))
        tau = trial.evidence_steps[point]
        evidence = trial_evidence(episode, tau, trial.culprit_shown_as == "B", inference.modalities, names, rules)
        _, p_b = normalise(*inference.predict(evidence), model=inference.name)
        return float(np.clip(100 * p_b + (rng.normal(0, noise) if noise else 0.0), 0, 100))

    return answer


def cli_participant(
    model: str,
    noise: float = 0.0,
    seed: int = 0,
    model_args: list[str] = (),
    agents: list[str] = (),
    data: str | Path | None = None,
) -> Participant:
    """:func:`model_participant` from command-line words (``KEY=VALUE``, ``ROLE=MODEL``): the
    ``marple.participants`` entry point behind ``marple study --simulate``."""
    words = parse_model_args(list(model_args))
    return model_participant(model, noise, seed, words, parse_agents(list(agents)) or None, data)
