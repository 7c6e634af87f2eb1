"""A random agent: plays Dodge (or any ROM) with random actions and prints each episode's return.

Shows the Gymnasium loop over a Retrolua environment: `reset(seed=)`, `step(action)` with actions drawn
from `action_space`, `terminated` (the Lua scenario says the game is over) and `truncated` (the step
limit). Needs `pip install './python[gym]'` (or runs from the source tree as it is: it finds python/).

    python examples/python/random_agent.py                      # 2000 steps of retrolua/Dodge-v0 (screen)
    python examples/python/random_agent.py --env retrolua/Dodge-ram-v0 --steps 500 --seed 3
    python examples/python/random_agent.py --rom build/roms/demo.nes --core nestopia --obs ram
    python examples/python/random_agent.py --rom build/roms/airstriker.md --core build/cores/genesis_plus_gx_libretro.so \
        --integration Airstriker-Genesis-v0 --actions discrete     # stable-retro's own integration

Each finished episode prints `episode N: return R, S steps (terminated|truncated)`; the last line
sums up (episodes, mean return, steps per second). Dodge's scenario (examples/python/dodge_scenario.lua)
gives +1 per coin and -1 per life lost, so a random player ends most games near -3.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

try:
    import retrolua
except ImportError:  # running from the source tree without installing the package
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
    import retrolua

import gymnasium



def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A random agent on a Retrolua environment.")
    parser.add_argument("--steps", type=int, default=2000, help="environment steps in all (default 2000)")
    parser.add_argument("--env", default="retrolua/Dodge-v0", help="a registered id (default retrolua/Dodge-v0)")
    parser.add_argument("--rom", help="play this ROM through retrolua.make instead of --env")
    parser.add_argument("--core", help="the core for --rom (e.g. nestopia)")
    parser.add_argument("--obs", default="screen", choices=["screen", "ram", "both"], help="observations for --rom")
    parser.add_argument("--integration", help="a stable-retro game integration (folder or name) for --rom")
    parser.add_argument("--actions", choices=["discrete", "multi_discrete", "filtered"],
                        help="stable-retro's action space for --rom (default: a button each, MultiBinary)")
    parser.add_argument("--max-episode-steps", type=int, default=None, help="truncate episodes after this many steps")
    parser.add_argument("--seed", type=int, default=0, help="seeds the first reset and the action space")
    args = parser.parse_args(argv)
    if args.steps < 1:
        parser.error("--steps must be at least 1")

    if args.rom:
        env = retrolua.make(args.rom, core=args.core, obs=args.obs, max_steps=args.max_episode_steps or 10_000,
                            integration=args.integration, actions=args.actions)
    else:
        env = gymnasium.make(args.env, max_episode_steps=args.max_episode_steps)
    returns: list[float] = []
    started = time.monotonic()
    try:
        env.action_space.seed(args.seed)
        env.reset(seed=args.seed)
        episode_return, episode_steps = 0.0, 0
        for _ in range(args.steps):
            _, reward, terminated, truncated, _ = env.step(env.action_space.sample())
            episode_return += float(reward)
            episode_steps += 1
            if terminated or truncated:
                returns.append(episode_return)
                how = "terminated" if terminated else "truncated"
                print("episode %d: return %g, %d steps (%s)" % (len(returns), episode_return, episode_steps, how))
                env.reset()
                episode_return, episode_steps = 0.0, 0
    finally:
        env.close()
    seconds = time.monotonic() - started
    mean = sum(returns) / len(returns) if returns else float("nan")
    print("%d episodes finished, mean return %g; %d steps in %.1f s (%.0f steps/s)"
          % (len(returns), mean, args.steps, seconds, args.steps / seconds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
