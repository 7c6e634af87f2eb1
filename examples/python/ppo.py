r"""PPO on Dodge in one file, CleanRL's shape (PyTorch): a pool of emulators, GAE, the clipped objective.

The environments are a `retrolua.pool` (one emulator process each, stepped together through the batch
door) on the Dodge demo (`dodge.nes` on nestopia, examples/python/dodge_scenario.lua: +1 per coin, -1 per
life lost, the episode ends at game over or at the win, 50 coins) with `retrolua.env.DODGE_ACTIONS`.

- `--obs pixels` (the default): Atari preprocessing in the emulators (frame skip 4, max-pool of the last
  two frames, grayscale, 84x84, a stack of 4, up to 30 no-op frames at each start) and the Nature CNN.
- `--obs ram`: the bytes of the game's RAM that matter (examples/roms/dodge/README.md: the player, the
  coin and each hazard relative to the player, the hazards' speeds and whether they fall, lives and the
  invulnerability timer; 30 numbers) into 64x64 tanh MLPs (the actor's, the critic's), frame skip 4 in
  Python. Far faster on a CPU. `--coin-shaping K` adds K x how much nearer the coin a step took the player
  to the reward it learns from (a dense hint; the returns it reports stay the game's).

It trains on the GPU when torch sees one (`--device auto`), on the CPU otherwise; `--seed` makes a run
repeat (the same seed, device and torch threads: the same curve). It prints a line per update, writes
`--csv` (env steps, episodes, mean return of the last 20 episodes) and `--plot` (that curve as a PNG,
matplotlib's Agg). `--random` plays uniformly random actions through the same loop and learns nothing: the
baseline. Needs torch, numpy, gymnasium and matplotlib: `build/venv-sb3/bin/python` (scripts/setup:
Debian's CPU torch, gymnasium 0.29, Debian's matplotlib). From the source tree:

    build/venv-sb3/bin/python examples/python/ppo.py --obs ram --total-steps 300000 --lr 1e-3 --clip 0.2 \
        --coin-shaping 2 --seed 0 --csv ppo-dodge.csv --plot ppo-dodge.png     # the curve in the docs
    build/venv-sb3/bin/python examples/python/ppo.py                     # pixels, the Nature CNN
    build/venv-sb3/bin/python examples/python/ppo.py --total-steps 256 --envs 2 --steps-per-rollout 32  # a smoke

Measured on a 2-core CPU shared with other work (8 envs, seed 0, the first command): mean return 10.1
over the last 20 episodes after 300,032 env steps (8-13 minutes; a repeat wrote the same CSV), against
-2.83 for the random policy (`--random`, 320 episodes); passing 0 near 40,000 steps, 8-10 from 100,000
on. Without --coin-shaping, -3.00 after 62,000 steps (no coin yet); pixels, 33 steps/s there, -2.95 after
32,768 steps.
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import sys
import time
from collections import deque
from typing import Deque, List, Tuple

try:
    import retrolua
except ImportError:  # running from the source tree without installing the package
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
    import retrolua

import numpy as np

try:
    import torch
    import torch.nn as nn
    from torch.distributions.categorical import Categorical
except ImportError:
    sys.exit("ppo.py needs torch: run it with build/venv-sb3/bin/python (made by scripts/setup)")

import retrolua.env  # noqa: E402
import retrolua.pool  # noqa: E402

RECENT = 20  # episodes in the mean return that the CSV and the curve show


def parse(argv: List[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="PPO (CleanRL-style, PyTorch) on Retrolua's Dodge demo.")
    parser.add_argument("--obs", choices=("pixels", "ram"), default="pixels",
                        help="4x84x84 grayscale stacks into a CNN, or Dodge's RAM into an MLP (default pixels)")
    parser.add_argument("--total-steps", type=int, default=1_000_000, help="env steps in all (default 1000000)")
    parser.add_argument("--envs", type=int, default=8, help="emulators in the pool (default 8)")
    parser.add_argument("--steps-per-rollout", type=int, default=128, help="steps per env per update (default 128)")
    parser.add_argument("--lr", type=float, default=2.5e-4, help="Adam's learning rate, annealed to 0 (default 2.5e-4)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                        help="auto: cuda when torch sees a GPU, else cpu")
    parser.add_argument("--epochs", type=int, default=4, help="passes over each rollout (default 4)")
    parser.add_argument("--minibatches", type=int, default=4, help="minibatches per pass (default 4)")
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--gae-lambda", type=float, default=0.95)
    parser.add_argument("--clip", type=float, default=0.1, help="the ratio's clip range (default 0.1)")
    parser.add_argument("--ent-coef", type=float, default=0.01)
    parser.add_argument("--vf-coef", type=float, default=0.5)
    parser.add_argument("--max-grad-norm", type=float, default=0.5)
    parser.add_argument("--max-episode-steps", type=int, default=2500, help="truncate episodes (default 2500)")
    parser.add_argument("--coin-shaping", type=float, default=0.0, metavar="K",
                        help="ram only: add K x how much nearer the coin a step took the player (Manhattan, in "
                             "256 px) to the reward it learns from, none on the step that takes the coin; the "
                             "returns it reports stay the game's (default 0)")
    parser.add_argument("--csv", help="write (env steps, episodes, mean return of the last 20) here")
    parser.add_argument("--plot", help="write the learning curve here (PNG)")
    parser.add_argument("--random", action="store_true", help="uniformly random actions, no learning (a baseline)")
    args = parser.parse_args(argv)
    if min(args.total_steps, args.envs, args.steps_per_rollout, args.epochs, args.minibatches,
           args.max_episode_steps) < 1:
        parser.error("--total-steps, --envs, --steps-per-rollout, --epochs, --minibatches and "
                     "--max-episode-steps must be >= 1")
    if (args.envs * args.steps_per_rollout) % args.minibatches:
        parser.error("--envs x --steps-per-rollout must divide into --minibatches")
    if args.coin_shaping and args.obs != "ram":
        parser.error("--coin-shaping needs --obs ram (the coin's place is read from RAM)")
    if args.device == "cuda" and not torch.cuda.is_available():
        parser.error("--device cuda: torch sees no GPU")
    return args


def make_pool(args: argparse.Namespace) -> retrolua.pool.RetroluaPool:
    options = dict(core="nestopia", scenario="examples/python/dodge_scenario.lua", actions=retrolua.env.DODGE_ACTIONS,
                   frameskip=4, noop_max=30, max_steps=args.max_episode_steps, autoreset_mode="SameStep")
    if args.obs == "pixels":  # preprocessing in the emulator processes: 4x84x84 uint8 crosses to Python
        options.update(obs="screen", max_pool=True, grayscale=True, resize=(84, 84), frame_stack=4)
    else:
        options.update(obs="ram")
    return retrolua.pool.make_pool("dodge.nes", args.envs, **options)


# Dodge's RAM (examples/roms/dodge/README.md): player $06/$07, lives $08, invuln $0C, coin $0D/$0E,
# hazards' x $20-$25, y $28-$2D, speed $38-$3D, wait $40-$45 (0: falling).
def ram_features(ram: np.ndarray) -> np.ndarray:
    """Per env: the coin and each hazard relative to the player, in [-1, 1]-ish floats (30 numbers)."""
    ram = ram.astype(np.float32)
    px, py = ram[:, 0x06:0x07], ram[:, 0x07:0x08]
    falling = ((ram[:, 0x40:0x46] == 0) & (ram[:, 0x28:0x2E] < 216)).astype(np.float32)
    return np.concatenate([
        px / 256, py / 256, (ram[:, 0x0D:0x0E] - px) / 256, (ram[:, 0x0E:0x0F] - py) / 256,
        (ram[:, 0x20:0x26] - px) / 256 * falling, (ram[:, 0x28:0x2E] - py) / 256 * falling,
        ram[:, 0x38:0x3E] / 81 * falling, falling, ram[:, 0x08:0x09] / 3, ram[:, 0x0C:0x0D] / 60], axis=1)


def coin_distance(features: np.ndarray) -> np.ndarray:
    """The player's Manhattan distance to the coin in units of 256 px (columns 2, 3 of ram_features)."""
    return np.abs(features[:, 2]) + np.abs(features[:, 3])


def coin_bonus(features: np.ndarray, following: np.ndarray, ended: np.ndarray) -> np.ndarray:
    """How much nearer the coin a step took the player; 0 where the coin moved (taken) or the episode ended."""
    same_coin = np.all(np.isclose(features[:, 0:2] + features[:, 2:4], following[:, 0:2] + following[:, 2:4]), axis=1)
    return np.where(same_coin & ~ended, coin_distance(features) - coin_distance(following), 0.0)


def observe(observations: np.ndarray, obs: str) -> np.ndarray:
    return observations if obs == "pixels" else ram_features(observations)


def layer(module: nn.Module, std: float = np.sqrt(2), bias: float = 0.0) -> nn.Module:
    nn.init.orthogonal_(module.weight, std)  # CleanRL's initialisation
    nn.init.constant_(module.bias, bias)
    return module


class Agent(nn.Module):
    """Actor and critic on one trunk, the Nature CNN (pixels), or each on its own 64x64 tanh MLP (ram, as
    CleanRL's: a shared small trunk lets the value's loss crowd out the policy's)."""

    def __init__(self, obs: str, features: int, actions: int) -> None:
        super().__init__()
        if obs == "pixels":
            self.trunk = nn.Sequential(
                layer(nn.Conv2d(4, 32, 8, stride=4)), nn.ReLU(), layer(nn.Conv2d(32, 64, 4, stride=2)), nn.ReLU(),
                layer(nn.Conv2d(64, 64, 3, stride=1)), nn.ReLU(), nn.Flatten(),
                layer(nn.Linear(64 * 7 * 7, 512)), nn.ReLU())
            self.critic_trunk, width, self.scale = self.trunk, 512, 1 / 255.0
        else:
            def mlp() -> nn.Module:
                return nn.Sequential(layer(nn.Linear(features, 64)), nn.Tanh(), layer(nn.Linear(64, 64)), nn.Tanh())
            self.trunk, self.critic_trunk, width, self.scale = mlp(), mlp(), 64, 1.0
        self.actor = layer(nn.Linear(width, actions), std=0.01)
        self.critic = layer(nn.Linear(width, 1), std=1.0)

    def value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(self.critic_trunk(x * self.scale)).squeeze(-1)

    def act(self, x: torch.Tensor, action: torch.Tensor | None = None
            ) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        x = x * self.scale
        hidden = self.trunk(x)
        distribution = Categorical(logits=self.actor(hidden))
        if action is None:
            action = distribution.sample()
        value = self.critic(hidden if self.critic_trunk is self.trunk else self.critic_trunk(x))
        return action, distribution.log_prob(action), distribution.entropy(), value.squeeze(-1)


def plot(path: str, rows: List[Tuple[int, int, float]], episodes: List[Tuple[int, float]], title: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4), dpi=100)
    if episodes:
        axes.scatter([s for s, _ in episodes], [r for _, r in episodes], s=4, alpha=0.25, color="tab:gray",
                     label="an episode's return")
    if rows:
        axes.plot([s for s, _, _ in rows], [m for _, _, m in rows], color="tab:blue",
                  label="mean of the last %d episodes" % RECENT)
    axes.set_xlabel("env steps (4 frames each)")
    axes.set_ylabel("return (+1 a coin, -1 a life)")
    axes.set_title(title)
    axes.grid(alpha=0.3)
    if episodes or rows:
        axes.legend(loc="upper left")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def main(argv: List[str] | None = None) -> int:
    args = parse(argv)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.backends.cudnn.deterministic = True
    device = torch.device("cuda" if args.device == "cuda" or (args.device == "auto" and torch.cuda.is_available())
                          else "cpu")
    pool = make_pool(args)
    try:
        observations, _ = pool.reset(seed=args.seed)  # env i gets seed + i: its no-op starts
        features = observe(observations, args.obs)
        observation = torch.as_tensor(features, dtype=torch.float32, device=device)
        actions_n = int(pool.action_space.n)
        agent = Agent(args.obs, observation.shape[-1], actions_n).to(device)
        optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)
        n, t = args.envs, args.steps_per_rollout
        buffer_obs = torch.zeros((t, n) + tuple(observation.shape[1:]), device=device)
        buffer_actions = torch.zeros((t, n), dtype=torch.long, device=device)
        buffer_logprobs, buffer_rewards, buffer_dones, buffer_values = (torch.zeros((t, n), device=device)
                                                                         for _ in range(4))
        done = torch.zeros(n, device=device)
        running = np.zeros(n)  # each env's return so far
        recent: Deque[float] = deque(maxlen=RECENT)
        episodes: List[Tuple[int, float]] = []
        rows: List[Tuple[int, int, float]] = []
        updates = -(-args.total_steps // (n * t))
        steps, started = 0, time.monotonic()
        print("ppo.py: %s, %d envs x %d steps, %d updates, %s%s" % (args.obs, n, t, updates, device,
                                                                     ", random actions" if args.random else ""))
        for update in range(1, updates + 1):
            for group in optimizer.param_groups:  # the learning rate falls linearly to 0
                group["lr"] = (1.0 - (update - 1.0) / updates) * args.lr
            for step in range(t):
                buffer_obs[step], buffer_dones[step] = observation, done
                with torch.no_grad():
                    action, logprob, _, value = agent.act(observation)
                if args.random:
                    action = torch.randint(actions_n, (n,), device=device)
                buffer_actions[step], buffer_logprobs[step], buffer_values[step] = action, logprob, value
                observations, rewards, terminations, truncations, info = pool.step(action.cpu().numpy())
                steps += n
                ended = np.logical_or(terminations, truncations)  # SameStep: `observations` start the next
                running += rewards
                for index in np.flatnonzero(ended):
                    recent.append(float(running[index]))
                    episodes.append((steps, float(running[index])))
                    running[index] = 0.0
                next_features, learned = observe(observations, args.obs), rewards
                if args.coin_shaping:  # a dense hint towards the coin: the game's own rewards are rare at first
                    learned = rewards + args.coin_shaping * coin_bonus(features, next_features, ended)
                features = next_features
                buffer_rewards[step] = torch.as_tensor(learned, dtype=torch.float32, device=device)
                observation = torch.as_tensor(features, dtype=torch.float32, device=device)
                done = torch.as_tensor(ended, dtype=torch.float32, device=device)
            # GAE over the rollout, bootstrapped from the value of the observation after it.
            with torch.no_grad():
                following = agent.value(observation)
                advantages = torch.zeros_like(buffer_rewards)
                last = torch.zeros(n, device=device)
                for step in reversed(range(t)):
                    nonterminal = 1.0 - (done if step == t - 1 else buffer_dones[step + 1])
                    after = following if step == t - 1 else buffer_values[step + 1]
                    delta = buffer_rewards[step] + args.gamma * after * nonterminal - buffer_values[step]
                    last = delta + args.gamma * args.gae_lambda * nonterminal * last
                    advantages[step] = last
                returns = advantages + buffer_values
            entropies: List[float] = []  # the policy's, while it learns: near log(5) = 1.61 it still explores
            if not args.random:
                flat_obs = buffer_obs.reshape((-1,) + tuple(observation.shape[1:]))
                flat = [x.reshape(-1) for x in (buffer_actions, buffer_logprobs, advantages, returns)]
                size = n * t
                minibatch = size // args.minibatches
                for _ in range(args.epochs):
                    order = torch.randperm(size, device=device)
                    for begin in range(0, size, minibatch):
                        picked = order[begin:begin + minibatch]
                        b_actions, b_logprobs, b_advantages, b_returns = (x[picked] for x in flat)
                        _, logprob, entropy, value = agent.act(flat_obs[picked], b_actions)
                        ratio = (logprob - b_logprobs).exp()
                        b_advantages = (b_advantages - b_advantages.mean()) / (b_advantages.std() + 1e-8)
                        policy_loss = torch.max(-b_advantages * ratio,
                                                -b_advantages * ratio.clamp(1 - args.clip, 1 + args.clip)).mean()
                        value_loss = 0.5 * ((value - b_returns) ** 2).mean()
                        loss = policy_loss - args.ent_coef * entropy.mean() + args.vf_coef * value_loss
                        optimizer.zero_grad()
                        loss.backward()
                        nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                        optimizer.step()
                        entropies.append(entropy.mean().item())
            if recent:
                rows.append((steps, len(episodes), float(np.mean(recent))))
            seconds = time.monotonic() - started
            print("update %d/%d: %d steps, %d episodes, mean return (last %d) %s, entropy %s, %.0f steps/s"
                  % (update, updates, steps, len(episodes), RECENT, "%.2f" % rows[-1][2] if recent else "-",
                     "%.2f" % np.mean(entropies) if entropies else "-", steps / seconds), flush=True)
        print("trained %d env steps in %.0f s: %d episodes, mean return of the last %d %s"
              % (steps, time.monotonic() - started, len(episodes), min(RECENT, len(recent)),
                 "%.2f (of all: %.2f)" % (np.mean(recent), np.mean([r for _, r in episodes])) if recent
                 else "- (no episode ended)"))
    finally:
        pool.close()
    if args.csv:
        with open(args.csv, "w", newline="") as file:
            writer = csv.writer(file)
            writer.writerow(["env_steps", "episodes", "mean_return_last_%d" % RECENT])
            writer.writerows(rows)
        print("wrote %s" % args.csv)
    if args.plot:
        title = "PPO on Dodge (%s), seed %d%s" % (args.obs, args.seed, ": random actions" if args.random else "")
        plot(args.plot, rows, episodes, title)
        print("wrote %s" % args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
