"""A trained PPO policy on disk with what it needs to play again: its env and the wrappers around it.

``save_ppo(model, "runs/ppo", stack)`` writes ``runs/ppo/model.zip`` (stable-baselines3's own file) and
``runs/ppo/policy.json``, which names the env id and every setting of the wrapper stack that
:func:`~marple_agents.rl.ppo.marple_env` builds (egocentric view, dense reward, numeric keys)::

    model, env = load_ppo("runs/ppo")     # the policy, and a new env it can act in
    obs, _ = env.reset(seed=123)
    action, _ = model.predict(obs)

``policy.json`` is read strictly: an unknown key, a missing or mistyped setting is a
:class:`~marple_agents.checkpoints.CheckpointError` naming the file and the field.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import gymnasium as gym
from stable_baselines3 import PPO

from marple_agents.checkpoints import CheckpointError
from marple_agents.rl.ppo import PPO_SETTINGS, marple_env
from marple_gym.files import write_json_atomic
from marple_gym.levels.shaping import SUBGOAL_BONUS
from marple_gym.validation import Fields, message_error, read_json_file

SAVED_FORMAT = "marple-ppo"
SAVED_VERSION = 1
MODEL_FILE = "model.zip"
STACK_FILE = "policy.json"


@dataclass(frozen=True)
class EnvStack:
    """A MARPLE env id and the settings of the wrappers :func:`marple_env` puts around it."""

    env_id: str
    view_size: int | None = 7
    dense: bool = True
    gamma: float = PPO_SETTINGS["gamma"]
    subgoal_bonus: float = SUBGOAL_BONUS
    see_through_walls: bool = False

    @classmethod
    def of(cls, env_id: str, **make_ppo_kwargs: Any) -> EnvStack:
        """The stack ``make_ppo(env_id, **make_ppo_kwargs)`` trains on (its other keywords are PPO's)."""
        settings = {f.name: make_ppo_kwargs[f.name] for f in fields(cls) if f.name in make_ppo_kwargs}
        return cls(env_id, **settings)

    def make(self, **make_kwargs: Any) -> gym.Env:
        """A new env with this stack (``make_kwargs`` go to ``gym.make``, e.g. ``render_mode``)."""
        return marple_env(
            self.env_id,
            self.view_size,
            self.dense,
            self.gamma,
            self.subgoal_bonus,
            see_through_walls=self.see_through_walls,
            **make_kwargs,
        )


def save_ppo(model: PPO, out: str | Path, stack: EnvStack, meta: dict[str, Any] | None = None) -> Path:
    """Write ``model`` and ``stack`` (plus ``meta``: seed, steps, evaluation ...) into the folder ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model.save(out / MODEL_FILE)
    document = {"format": SAVED_FORMAT, "version": SAVED_VERSION, "env": asdict(stack), "meta": meta or {}}
    write_json_atomic(out / STACK_FILE, document)
    return out


def load_ppo(out: str | Path, device: str = "cpu", **make_kwargs: Any) -> tuple[PPO, gym.Env]:
    """The policy saved in ``out`` and a new env with its wrapper stack (``make_kwargs`` go to ``gym.make``)."""
    stack = read_stack(Path(out) / STACK_FILE)
    model_file = Path(out) / MODEL_FILE
    if not model_file.is_file():
        raise CheckpointError(f"{model_file}: no such file; save_ppo writes it beside {STACK_FILE}")
    env = stack.make(**make_kwargs)
    return PPO.load(model_file, env=env, device=device), env


def read_stack(path: Path) -> EnvStack:
    """The :class:`EnvStack` in a ``policy.json``, read strictly."""
    error = message_error(CheckpointError)
    top = Fields(read_json_file(path, error, "saved policy"), "", error, str(path))
    top.allow(("format", "version", "env", "meta")).require("format", "version", "env")
    if top.get("format") != SAVED_FORMAT or top.get("version") != SAVED_VERSION:
        raise top.fail("format", f"not a saved MARPLE PPO policy (expected {SAVED_FORMAT!r} version {SAVED_VERSION})")
    names = [f.name for f in fields(EnvStack)]
    env = top.fields("env").allow(names).require(*names)
    top.mapping("meta", {})
    return EnvStack(
        env_id=env.str("env_id"),
        view_size=env.int("view_size", None, low=3),  # null: the whole house
        dense=env.bool("dense"),
        gamma=env.number("gamma", low=0.0, high=1.0),
        subgoal_bonus=env.number("subgoal_bonus", low=0.0),
        see_through_walls=env.bool("see_through_walls"),
    )
