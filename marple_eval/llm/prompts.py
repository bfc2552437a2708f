"""The LLM baseline's prompts (after the paper's supplement G, in our own words).

Zero-shot: instructions asking for step-by-step reasoning and an integer
answer from 0 (certainly Agent A) to 100 (certainly Agent B), then two scenes
of each agent, the query state and the question. The two scenes are, as in the
paper and the original GPT-4 code, consecutive (tau - 1 and tau; ``scenes =
"consecutive"``), or the agent's start and now (``"start"``). The
in-context variant puts two solved examples before the trial: pairs from the
training split (never the test pair) cut at the same fraction of evidence,
one with the culprit shown as A and one as B, each with its correct answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

import numpy as np

from marple_eval.evidence import VISION, AgentEvidence, TrialEvidence, trial_evidence
from marple_eval.llm.scenes import describe_query, describe_scene
from marple_gym.evidence.scene_graph import scene_graph
from marple_gym.missions.mission import get_mission
from marple_gym.recording.records import Trajectory, WhodunitEpisode

SCENES = ("consecutive", "start")
"""Which two scenes of each agent a prompt shows: the step before now and now (the paper's), or its start and now."""
_SNAPSHOTS = {
    "consecutive": "the step before now, and now. Everything before them is hidden, so many steps may have happened "
    "that you do not see",
    "start": "at its start and now. Everything between them is hidden, so many steps may have happened that you "
    "do not see",
}
_COMPARE = {"consecutive": "from the step before to now", "start": "from its start to now"}

INSTRUCTIONS = """\
Two agents, Agent A and Agent B, each carry out a household task alone, in their own copy of the same house. \
Exactly one of them brings about the query state described below. For each agent you see two snapshots of its \
scene: {snapshots}, and an agent may still be on its way.

Each scene lists the rooms, the agent (its cell (x, y), x growing to the east and y to the south, the way it \
faces and what it holds), the doors, and every piece of furniture and every object with its relations \
(onTop, inside, inRoom) and its states.

Compare what changed in each agent's scene {compare}: where the agent went, what it carries, which \
furniture and objects changed state. Think about which task each agent seems to be doing and which of them is \
doing, or is on its way to, the query state. Then answer the question.

Answer with an integer from 0 to 100: 0 means certainly Agent A, 100 means certainly Agent B, 50 means you \
cannot tell. Reply in exactly this form:
Reasoning: <let's think step by step ...>
Answer: <an integer from 0 to 100>"""


def instructions(scenes: str = "consecutive") -> str:
    """The system message, for the scenes shown (:data:`SCENES`)."""
    if scenes not in SCENES:
        raise ValueError(f"scenes must be one of {', '.join(SCENES)}, got {scenes!r}")
    return INSTRUCTIONS.format(snapshots=_SNAPSHOTS[scenes], compare=_COMPARE[scenes])


def _agent_scenes(agent: AgentEvidence, scenes: str) -> str:
    first = 0 if scenes == "start" else max(0, agent.tau - 1)
    (before, _), (now, _) = agent.replays([first, agent.tau])
    title = "at its start" if first == 0 else f"the step before, after {first} steps"
    return (
        f"Agent {agent.label} {title}:\n{describe_scene(scene_graph(before.house, before.state))}\n\n"
        f"Agent {agent.label} now, after {agent.tau} steps:\n{describe_scene(scene_graph(now.house, now.state))}"
    )


def describe_trial(trial: TrialEvidence, scenes: str = "consecutive") -> str:
    """Both agents' scenes (:data:`SCENES`), the query state and the question."""
    shown = "\n\n".join(_agent_scenes(agent, scenes) for agent in trial.agents)
    return (
        f"Question: {trial.question}\nQuery state: {describe_query(trial.query)}\n\n{shown}\n\n"
        f"Question: {trial.question}"
    )


@dataclass(frozen=True)
class SolvedExample:
    """A trial from training data with its correct answer (0: Agent A did it, 100: Agent B)."""

    trial: TrialEvidence
    answer: int

    def text(self, k: int, scenes: str = "consecutive") -> str:
        culprit = "A" if self.answer == 0 else "B"
        return (
            f"Solved example {k}:\n{describe_trial(self.trial, scenes)}\n"
            f"Correct answer: {self.answer} (Agent {culprit} brought about the query state)"
        )


def messages(
    trial: TrialEvidence, examples: Iterable[SolvedExample] = (), scenes: str = "consecutive"
) -> list[dict[str, str]]:
    """The chat messages for one trial (system instructions, then one user message)."""
    system = instructions(scenes)
    parts = [example.text(k, scenes) for k, example in enumerate(examples, start=1)]
    if parts:
        parts.append("Now the trial to answer:")
    parts.append(describe_trial(trial, scenes))
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]


# ---- solved examples from training data ------------------------------------------------------------------


def training_pairs(trajectories: Iterable[Trajectory], query_mission: str) -> Iterator[WhodunitEpisode]:
    """Whodunit pairs from training trajectories: one that reached the query state with one that did not, in order.

    Each trajectory is used once. In ``train-in`` the first trajectories of every role come from the same
    house; in ``train-ood`` every trajectory has its own house, so a pair's agents are in different houses.
    """
    trajectories = list(trajectories)
    culprits = [tr for tr in trajectories if query_mission in tr.query_steps]
    others = [tr for tr in trajectories if query_mission not in tr.query_steps]
    for culprit, other in zip(culprits, others):
        yield WhodunitEpisode("examples", query_mission, (culprit, other))


def query_mission_of(trial: TrialEvidence, missions: Iterable[str]) -> str:
    """The mission (among ``missions``) whose query state the trial asks about."""
    for name in missions:
        if get_mission(name).query_subgoal == trial.query:
            return name
    raise ValueError(f"no mission among {sorted(missions)} has the query state {trial.query.name}")


def solved_examples(pairs: list[WhodunitEpisode], trial: TrialEvidence) -> list[SolvedExample]:
    """The pairs cut at the trial's fraction of evidence; the first shows its culprit as A, the second as B."""
    out = []
    for k, pair in enumerate(pairs):
        tau = int(trial.fraction * pair.horizon + 0.5)
        shown = trial_evidence(pair, tau, bool(k % 2), frozenset({VISION}), ("example-1", "example-2"), trial.rules)
        shown = replace(shown, question=trial.question, scenario=trial.scenario)
        out.append(SolvedExample(shown, 100 if k % 2 else 0))
    return out


def pick_pairs(pairs: list[WhodunitEpisode], count: int, rng: np.random.Generator) -> list[WhodunitEpisode]:
    """``count`` distinct pairs drawn with ``rng``."""
    if len(pairs) < count:
        raise ValueError(f"need {count} training pairs for the in-context examples, found {len(pairs)}")
    return [pairs[i] for i in sorted(rng.choice(len(pairs), size=count, replace=False).tolist())]
