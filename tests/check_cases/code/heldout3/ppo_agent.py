# atlas-check: --from 2.13 --to 2.15
"""PPO agent for continuous-control gym environments.

The policy ratio is clipped as in Schulman et al. (2017); older revisions of this file
used torch.clamp on the advantages too, see the changelog. Checkpoints are written with
torch.distributed.checkpoint so they can be resharded for the multi-GPU learner.
"""
from __future__ import annotations

import dataclasses
import os

import gymnasium as gym
import numpy as np
import torch
import torch.distributed.checkpoint as dcp
import torch.nn as nn
from torch.distributions import Normal


@dataclasses.dataclass
class PPOConfig:
    env_id: str = "HalfCheetah-v4"
    rollout_len: int = 2048
    epochs: int = 10
    minibatch: int = 64
    gamma: float = 0.99
    lam: float = 0.95
    clip_eps: float = 0.2
    vf_coef: float = 0.5
    ent_coef: float = 0.0
    max_grad_norm: float = 0.5
    lr: float = 3e-4
    ckpt_dir: str = "checkpoints/ppo"


use_cuda = torch.cuda.is_available()
device = torch.device("cuda" if use_cuda else "cpu")


def clip(value, lo, hi):
    """Plain-Python clip for scalars coming out of the env info dict."""
    return max(lo, min(hi, value))


class ActorCritic(nn.Module):
    def __init__(self, obs_dim: int, act_dim: int, hidden: int = 64):
        super().__init__()
        self.pi = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, act_dim))
        self.v = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 1))
        self.log_std = nn.Parameter(torch.zeros(act_dim))

    def dist(self, obs):
        return Normal(self.pi(obs), self.log_std.exp())

    def value(self, obs):
        return self.v(obs).squeeze(-1)


def compute_gae(rewards, values, dones, last_value, gamma, lam):
    adv = np.zeros_like(rewards)
    gae = 0.0
    for t in reversed(range(len(rewards))):
        next_v = last_value if t == len(rewards) - 1 else values[t + 1]
        delta = rewards[t] + gamma * next_v * (1.0 - dones[t]) - values[t]
        gae = delta + gamma * lam * (1.0 - dones[t]) * gae
        adv[t] = gae
    return adv, adv + values


def ppo_update(model, optim, batch, cfg: PPOConfig):
    obs, act, old_logp, adv, ret = batch
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    for _ in range(cfg.epochs):
        perm = torch.randperm(obs.shape[0], device=obs.device)
        for start in range(0, obs.shape[0], cfg.minibatch):
            idx = perm[start:start + cfg.minibatch]
            d = model.dist(obs[idx])
            logp = d.log_prob(act[idx]).sum(-1)
            ratio = (logp - old_logp[idx]).exp()
            surr1 = ratio * adv[idx]
            surr2 = ratio.clamp(1.0 - cfg.clip_eps, 1.0 + cfg.clip_eps) * adv[idx]  # expect: method 214-clamp-grad
            pi_loss = -torch.min(surr1, surr2).mean()
            v_loss = (model.value(obs[idx]) - ret[idx]).pow(2).mean()
            loss = pi_loss + cfg.vf_coef * v_loss - cfg.ent_coef * d.entropy().sum(-1).mean()
            optim.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
            optim.step()


def rollout(env, model, cfg: PPOConfig):
    obs, _ = env.reset()
    buf = {k: [] for k in ("obs", "act", "logp", "rew", "done", "val")}
    for _ in range(cfg.rollout_len):
        o = torch.as_tensor(obs, dtype=torch.float32, device=device)
        with torch.no_grad():
            d = model.dist(o)
            a = d.sample()
            buf["logp"].append(d.log_prob(a).sum().item())
            buf["val"].append(model.value(o).item())
        action = np.clip(a.cpu().numpy(), env.action_space.low, env.action_space.high)
        obs, r, term, trunc, info = env.step(action)
        buf["obs"].append(o.cpu().numpy())
        buf["act"].append(a.cpu().numpy())
        buf["rew"].append(clip(r, -10.0, 10.0))
        buf["done"].append(float(term or trunc))
        if term or trunc:
            obs, _ = env.reset()
    with torch.no_grad():
        last_v = model.value(torch.as_tensor(obs, dtype=torch.float32, device=device)).item()
    return buf, last_v


def save_checkpoint(model, optim, step, cfg: PPOConfig):
    state = {"model": model.state_dict(), "optim": optim.state_dict(), "step": step}
    dcp.save(state, checkpoint_id=os.path.join(cfg.ckpt_dir, f"step_{step:08d}"))  # expect: call 215-dcp-strides


def load_checkpoint(model, optim, path):
    state = {"model": model.state_dict(), "optim": optim.state_dict(), "step": 0}
    dcp.load(state, checkpoint_id=path)
    model.load_state_dict(state["model"])
    optim.load_state_dict(state["optim"])
    return state["step"]


def main(cfg: PPOConfig = PPOConfig()):
    env = gym.make(cfg.env_id)
    model = ActorCritic(env.observation_space.shape[0], env.action_space.shape[0]).to(device)
    optim = torch.optim.Adam(model.parameters(), lr=cfg.lr, eps=1e-5)
    for it in range(1000):
        buf, last_v = rollout(env, model, cfg)
        adv, ret = compute_gae(np.array(buf["rew"]), np.array(buf["val"]), np.array(buf["done"]), last_v, cfg.gamma, cfg.lam)
        batch = (
            torch.as_tensor(np.array(buf["obs"]), device=device),
            torch.as_tensor(np.array(buf["act"]), device=device),
            torch.as_tensor(np.array(buf["logp"]), device=device),
            torch.as_tensor(adv, dtype=torch.float32, device=device),
            torch.as_tensor(ret, dtype=torch.float32, device=device),
        )
        ppo_update(model, optim, batch, cfg)
        if it % 50 == 0:
            save_checkpoint(model, optim, it, cfg)


if __name__ == "__main__":
    main()
