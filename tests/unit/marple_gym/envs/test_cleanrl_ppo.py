"""A CleanRL-style single-file PPO loop on a ladder level: Gymnasium's ``SyncVectorEnv`` of
``gym.make(id)`` + ``FlatObservation`` + ``RecordEpisodeStatistics``, an MLP actor-critic, GAE and the clipped
objective, a few hundred steps. The loop is the one CleanRL's ``ppo.py`` runs on MiniGrid, with only the env id
and the documented flat wrapper changed; before the info keys had one type per step it died on the first step
where one sub-env achieved a subgoal and another did not."""

from __future__ import annotations

from dataclasses import dataclass

import gymnasium as gym
import numpy as np
import torch
from torch import nn, optim
from torch.distributions.categorical import Categorical

import marple_gym  # noqa: F401  (registers the ids)
from marple_gym import FlatObservation


@dataclass
class Args:
    env_id: str = "Marple-GoTo-OneRoom-v0"
    seed: int = 1
    total_timesteps: int = 512
    learning_rate: float = 2.5e-4
    num_envs: int = 4
    num_steps: int = 64
    gamma: float = 0.99
    gae_lambda: float = 0.95
    num_minibatches: int = 4
    update_epochs: int = 2
    clip_coef: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5


def make_env(env_id: str):
    def thunk():
        env = gym.make(env_id)
        env = FlatObservation(env)
        return gym.wrappers.RecordEpisodeStatistics(env)

    return thunk


def layer_init(layer: nn.Linear, std: float = np.sqrt(2), bias_const: float = 0.0) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self, envs: gym.vector.VectorEnv) -> None:
        super().__init__()
        inputs = int(np.prod(envs.single_observation_space.shape))
        self.critic = nn.Sequential(layer_init(nn.Linear(inputs, 64)), nn.Tanh(), layer_init(nn.Linear(64, 1), std=1.0))
        self.actor = nn.Sequential(
            layer_init(nn.Linear(inputs, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, envs.single_action_space.n), std=0.01),
        )

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x)

    def get_action_and_value(self, x: torch.Tensor, action: torch.Tensor | None = None):
        probs = Categorical(logits=self.actor(x))
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


def train(args: Args) -> dict:
    """CleanRL's PPO loop; what it saw: finished episodes' returns, subgoals achieved, the last losses."""
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    batch_size = args.num_envs * args.num_steps
    minibatch_size = batch_size // args.num_minibatches
    envs = gym.vector.SyncVectorEnv([make_env(args.env_id) for _ in range(args.num_envs)])
    assert isinstance(envs.single_action_space, gym.spaces.Discrete), "only discrete action space is supported"
    agent = Agent(envs)
    optimizer = optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    obs = torch.zeros((args.num_steps, args.num_envs) + envs.single_observation_space.shape)
    actions = torch.zeros((args.num_steps, args.num_envs) + envs.single_action_space.shape)
    logprobs, rewards, dones, values = (torch.zeros((args.num_steps, args.num_envs)) for _ in range(4))

    returns_seen, subgoals, losses = [], 0, []
    next_obs, _ = envs.reset(seed=args.seed)
    next_obs, next_done = torch.Tensor(next_obs), torch.zeros(args.num_envs)
    for _ in range(args.total_timesteps // batch_size):
        for step in range(args.num_steps):
            obs[step], dones[step] = next_obs, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs)
                values[step] = value.flatten()
            actions[step], logprobs[step] = action, logprob
            next_obs, reward, terminations, truncations, infos = envs.step(action.numpy())
            next_done = np.logical_or(terminations, truncations)
            rewards[step] = torch.tensor(reward).view(-1)
            next_obs, next_done = torch.Tensor(next_obs), torch.Tensor(next_done)
            subgoals += int((infos["achieved"] >= 0).sum())
            if "episode" in infos:
                returns_seen += infos["episode"]["r"][infos["_episode"]].tolist()

        with torch.no_grad():
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards)
            lastgaelam = 0
            for t in reversed(range(args.num_steps)):
                nextnonterminal = 1.0 - (next_done if t == args.num_steps - 1 else dones[t + 1])
                nextvalues = next_value if t == args.num_steps - 1 else values[t + 1]
                delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                advantages[t] = lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
            returns = advantages + values

        b_obs = obs.reshape((-1,) + envs.single_observation_space.shape)
        b_logprobs, b_actions = logprobs.reshape(-1), actions.reshape(-1)
        b_advantages, b_returns = advantages.reshape(-1), returns.reshape(-1)
        b_inds = np.arange(batch_size)
        for _ in range(args.update_epochs):
            rng.shuffle(b_inds)
            for start in range(0, batch_size, minibatch_size):
                mb_inds = b_inds[start : start + minibatch_size]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb_inds], b_actions.long()[mb_inds])
                ratio = (newlogprob - b_logprobs[mb_inds]).exp()
                mb_advantages = b_advantages[mb_inds]
                mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)
                pg_loss = torch.max(
                    -mb_advantages * ratio, -mb_advantages * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
                ).mean()
                v_loss = 0.5 * ((newvalue.view(-1) - b_returns[mb_inds]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + v_loss * args.vf_coef
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
                losses.append(float(loss))
    envs.close()
    return {"returns": returns_seen, "subgoals": subgoals, "losses": losses}


def test_cleanrls_ppo_loop_runs_on_a_ladder_level():
    seen = train(Args())
    assert seen["returns"], "RecordEpisodeStatistics reported finished episodes through the vector env"
    assert seen["subgoals"] > 0, "sub-envs achieved subgoals on their own steps, and the infos batched"
    assert seen["losses"] and np.isfinite(seen["losses"]).all()
