"""What an inference model is shown: each agent's evidence up to tau, and the question.

The harness builds these objects from a :class:`WhodunitEpisode`. They carry
copies of the observed prefix only (never views into the full record), only the
modalities a model declared, and nothing that names an agent's mission, the
culprit or when anyone reached the query state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from marple_eval.success import SUCCESS_RULES, SuccessRule, success_rule
from marple_eval.suspect_world import SharedReplay, neutral_agents
from marple_gym.datasets.dataset import subgoal_codes
from marple_gym.episode.replay import replay
from marple_gym.episode.state import EpisodeState
from marple_gym.evidence.audio import SILENCE
from marple_gym.generation.config import AgentSpec, HouseConfig
from marple_gym.generation.generator import generate_world
from marple_gym.missions.mission import Subgoal
from marple_gym.missions.suspects import suspect_labels
from marple_gym.recording.records import Trajectory, WhodunitEpisode
from marple_gym.world.actions import Outcome
from marple_gym.world.world import World

VISION, AUDIO, LANGUAGE = "vision", "audio", "language"
MODALITIES = frozenset({VISION, AUDIO, LANGUAGE})
NEUTRAL_AGENT = AgentSpec(name="agent", color="red")
"""How every agent appears in the start configs models receive: the same name and colour for all."""


class UndeclaredModalityError(AttributeError):
    """A model read evidence of a modality it did not declare."""


def _frozen(array: np.ndarray) -> np.ndarray:
    out = np.array(array, copy=True)
    out.flags.writeable = False
    return out


@dataclass(frozen=True)
class AgentEvidence:
    """One agent's observations ``0..tau`` (and actions ``0..tau-1``).

    An agent that finished its mission before the trial's tau has nothing more
    to show: its evidence ends with its last observation (``tau`` is then
    smaller than the trial's), as a participant sees it stand still.

    ``start`` is the house with this agent at its starting cell: together with
    the actions it rebuilds the world the agent is in at tau (:meth:`world`),
    which is exactly what the vision array at tau shows. The agent in it is
    always named :data:`NEUTRAL_AGENT` with one colour, whatever its role: a
    role name would name the culprit.
    """

    label: str
    """How the agent is shown in this trial: "A", "B", "C", ... (randomised per trial)."""
    identity: str
    """An opaque name, stable within a run, for the agent's past behaviour: a model uses it to pick that
    agent's learned model (the paper's D_i). It does not say which agent is the culprit."""
    tau: int
    modalities: frozenset[str]
    start: HouseConfig | None = field(repr=False)
    _vision: np.ndarray | None = field(repr=False)
    _actions: np.ndarray | None = field(repr=False)
    _audio: np.ndarray | None = field(repr=False)
    _intents: tuple[str, ...] | None = field(repr=False)
    _subgoals: np.ndarray | None = field(repr=False)
    _shared: SharedReplay | None = field(default=None, repr=False)

    def _require(self, modality: str) -> None:
        if modality not in self.modalities:
            raise UndeclaredModalityError(f"the model did not declare the {modality!r} modality")

    @property
    def vision(self) -> np.ndarray:
        """(tau + 1, H, W, 8) uint8 vision arrays."""
        self._require(VISION)
        return self._vision

    @property
    def actions(self) -> np.ndarray:
        """(tau,) actions taken, read off consecutive vision arrays."""
        self._require(VISION)
        return self._actions

    @property
    def audio(self) -> np.ndarray:
        """(tau + 1,) audio tokens; entry t is the sound the agent makes acting at observation t.

        Vision at t shows the result of action t - 1; the sound at t is heard while
        the agent takes action t, so it tells something about the next action
        (the paper uses it to refine the first action of each rollout). After an
        agent's last action the sound is silence.
        """
        self._require(AUDIO)
        return self._audio

    @property
    def intents(self) -> tuple[str, ...]:
        """Intent sentences at observations 0..tau."""
        self._require(LANGUAGE)
        return self._intents

    @property
    def subgoals(self) -> np.ndarray:
        """(tau + 1, 4) the intents parsed to codes: action, object, furniture, room (-1 once done)."""
        self._require(LANGUAGE)
        return self._subgoals

    def world(self, t: int | None = None) -> World:
        """The world this agent was in at observation ``t`` (default: tau), rebuilt from its start and actions."""
        return self.replay(t)[0]

    def replay(self, t: int | None = None) -> tuple[World, list[Outcome]]:
        """The world at observation ``t`` (default: tau) and what each observed action did on the way."""
        return self.replays([self.tau if t is None else t])[0]

    def replays(self, ts: Sequence[int], start: World | None = None) -> list[tuple[World, list[Outcome]]]:
        """:meth:`replay` at each observation of ``ts`` (ascending), from one replay of the actions.

        ``start``: this agent's world at observation 0 (``world(0)`` of any evidence of the episode,
        left unchanged), instead of building it again from the start config.
        """
        self._require(VISION)
        if any(not 0 <= t <= self.tau for t in ts):
            raise ValueError(f"observations {list(ts)} are not all inside the evidence 0..{self.tau}")
        if list(ts) != sorted(ts):
            raise ValueError(f"observations {list(ts)} are not in ascending order")
        if self._shared is not None:
            return self._shared.replays(self.start, ts)
        world = generate_world(self.start, np.random.default_rng(0)) if start is None else start.clone()
        episode = EpisodeState.start(world.house, world.state, (None,))
        outcomes: list[Outcome] = []
        out = []
        for t in ts:
            outcomes += [step.outcome for (step,) in replay(world.house, episode, self._actions[len(outcomes) : t])]
            out.append((world.clone(), list(outcomes)))
        return out


COMBINE_RULES = ("softmax", "ratio")


@dataclass(frozen=True)
class QueryRules:
    """How methods that estimate P(query | agent) turn it into an answer (protocol settings, see
    :class:`marple_eval.protocol.ProtocolSettings`): look ``margin`` steps past T, then combine the two
    agents' probabilities by ``softmax`` with ``eta`` (the paper's text) or by their ``ratio`` (the original code).
    ``success`` says what a rollout must do to count (:mod:`marple_eval.success`): reach the query state itself
    (``query-state``) or match the query action's (target type, action type) (``action-match``, the original code).
    """

    margin: int = 10
    eta: float = 5.0
    combine: str = "softmax"
    success: str = "query-state"

    def __post_init__(self) -> None:
        if self.combine not in COMBINE_RULES:
            raise ValueError(f"combine must be one of {COMBINE_RULES}, got {self.combine!r}")
        if self.success not in SUCCESS_RULES:
            raise ValueError(f"success must be one of {SUCCESS_RULES}, got {self.success!r}")
        if self.margin < 0:
            raise ValueError(f"margin must be at least 0, got {self.margin}")


@dataclass(frozen=True)
class TrialEvidence:
    """Everything a model may use to answer one whodunit question at one evidence point."""

    question: str
    query: Subgoal
    scenario: str
    horizon: int
    """T: the step at which *some* agent reached the query state (it does not say which)."""
    tau: int
    agents: tuple[AgentEvidence, ...]
    """The suspects, shown as "A", "B" (, "C", ...); which one is the culprit is not given (and is randomised)."""
    rules: QueryRules = QueryRules()

    @property
    def suspects(self) -> int:
        """N: how many agents are suspected (2 in the paper's scenarios)."""
        return len(self.agents)

    @property
    def fraction(self) -> float:
        return self.tau / self.horizon if self.horizon else 1.0

    @property
    def success(self) -> SuccessRule:
        """What counts as reaching the query state, under the protocol's rule (:mod:`marple_eval.success`)."""
        return success_rule(self.rules.success, self.query)

    @property
    def steps_left(self) -> int:
        """How far past tau a method may look for the query state: to T + margin (the protocol's horizon)."""
        return self.horizon + self.rules.margin - self.tau


def sounds_while_acting(trajectory: Trajectory, tau: int) -> np.ndarray:
    """Tokens of the sounds of actions 0..tau (silence where no action follows)."""
    sounds = np.full(tau + 1, SILENCE, dtype=trajectory.audio.dtype)
    available = trajectory.audio[1 : tau + 2]
    sounds[: len(available)] = available
    return sounds


def _neutral(config: HouseConfig) -> HouseConfig:
    (agent,) = config.agents
    return replace(config, agents=[replace(NEUTRAL_AGENT, pos=agent.pos, dir=agent.dir)])


def agent_evidence(
    trajectory: Trajectory,
    label: str,
    identity: str,
    tau: int,
    modalities: frozenset[str],
    shared: SharedReplay | None = None,
) -> AgentEvidence:
    """Cut a trajectory at ``tau`` and keep only the declared modalities (``shared``: the agent acted in a
    shared house, whose joint actions rebuild its world)."""
    cut = trajectory.evidence_until(tau)
    vision = VISION in modalities
    language = LANGUAGE in modalities
    if shared is not None and vision:
        shared = replace(shared, actions=_frozen(shared.actions[: cut.length]))
    return AgentEvidence(
        label=label,
        identity=identity,
        tau=cut.length,
        modalities=frozenset(modalities),
        start=_neutral(cut.episode_config()) if vision else None,
        _vision=_frozen(cut.vision) if vision else None,
        _actions=_frozen(cut.actions) if vision else None,
        _audio=_frozen(sounds_while_acting(trajectory, cut.length)) if AUDIO in modalities else None,
        _intents=tuple(cut.intents) if language else None,
        _subgoals=_frozen(subgoal_codes(cut)) if language else None,
        _shared=shared if vision else None,
    )


Placement = bool | Sequence[int]
"""Where each suspect is shown. Two suspects: ``swap`` (True shows the culprit as "B"). Any number: for each
label A, B, C, ... the position, in "the culprit, then the others in the episode's order", of the suspect shown
under it (``(1, 0)`` is the swap of two; ``(2, 0, 1)`` shows the culprit as "B")."""


def culprit_first(episode: WhodunitEpisode) -> list[int]:
    """The episode's trajectory indices: the culprit, then the other suspects in order."""
    c = episode.culprit
    return [c] + [i for i in range(episode.suspects) if i != c]


def shown_order(placement: Placement, suspects: int) -> list[int]:
    """Positions in the culprit-first order of the suspects shown as A, B, ... (see :data:`Placement`)."""
    if isinstance(placement, bool):
        if suspects != 2:
            raise ValueError(f"a swap places two suspects; this trial has {suspects}: give an order")
        return [1, 0] if placement else [0, 1]
    order = [int(k) for k in placement]
    if sorted(order) != list(range(suspects)):
        raise ValueError(f"placement {order} is not an order of {suspects} suspects")
    return order


def trial_evidence(
    episode: WhodunitEpisode,
    tau: int,
    swap: Placement,
    modalities: frozenset[str],
    identities: Sequence[str],
    rules: QueryRules = QueryRules(),
) -> TrialEvidence:
    """The evidence for one (episode, tau).

    ``identities`` are the opaque names of the episode's agents, culprit first
    and then the others in order; ``swap`` places them (:data:`Placement`):
    with two suspects True shows the culprit as "B" instead of "A".
    """
    unknown = set(modalities) - MODALITIES
    if unknown:
        raise ValueError(f"unknown modalities {sorted(unknown)}; choose from {sorted(MODALITIES)}")
    base = culprit_first(episode)
    labels = suspect_labels(len(base))
    shown = shown_order(swap, len(base))
    joint = None
    if episode.shared:
        actions = np.stack([tr.actions for tr in episode.trajectories], axis=1)
        joint = SharedReplay(neutral_agents(episode.trajectories[0].house), actions)
    return TrialEvidence(
        question=episode.question,
        query=episode.query,
        scenario=episode.scenario,
        horizon=episode.horizon,
        tau=tau,
        agents=tuple(
            agent_evidence(
                episode.trajectories[base[k]],
                label,
                identities[k],
                tau,
                modalities,
                None if joint is None else replace(joint, agent=base[k]),
            )
            for k, label in zip(shown, labels)
        ),
        rules=rules,
    )
