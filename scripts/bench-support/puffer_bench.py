"""PufferLib's own vectorization side by side in one run (issue 41): env steps/s of `pufferlib.vector` over our
native env (retrolua.puffer: the pool's emulators as one PufferEnv's agents; PufferLib's native backend, and its
Multiprocessing backend with 2 workers) vs over stable-retro 1.0.1's env through PufferLib's Gymnasium
emulation (`pufferlib.emulation.GymnasiumPufferEnv`; Serial for one env, Multiprocessing with one env a worker,
as stable-retro allows one emulator a process; workers spawned, not forked, for both sides, as a forked worker
inherits the emulator of the trainer's own copy of the env). Same game (Airstriker, genesis_plus_gx), raw
screens, frame skip 4 (a wrapper holding stable-retro's action 4 frames), stable-retro's Discrete action space
on both sides (PufferLib 2.0.2's emulation breaks on MultiBinary), the same seeded random actions; best of
ROUNDS, rounds interleaved.
Usage: puffer_bench.py RETROLUA CORE [ROUNDS]  (build/venv-puffer/bin/python: PufferLib 2.0.2, stable-retro)"""
import multiprocessing
import os
import sys
import time
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
warnings.filterwarnings("ignore")
import gymnasium  # noqa: E402
import numpy as np  # noqa: E402
import pufferlib.emulation  # noqa: E402
import pufferlib.vector  # noqa: E402
import stable_retro  # noqa: E402

from retrolua.puffer import RetroluaPufferEnv  # noqa: E402

binary, core = sys.argv[1:3]
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
os.environ["RETROLUA"] = binary
GAME = "Airstriker-Genesis-v0"
FOLDER = os.path.join(os.path.dirname(stable_retro.__file__), "data", "stable", GAME)
SKIP, STEPS = 4, 100
OURS = dict(core=core, integration=FOLDER, obs="screen", frameskip=SKIP, actions="discrete")


class Skip(gymnasium.Wrapper):
    """The action held for SKIP frames, rewards summed (stable-retro's env has no frame skip of its own)."""

    def step(self, action):
        total = 0.0
        for _ in range(SKIP):
            observation, reward, terminated, truncated, info = self.env.step(action)
            total += reward
            if terminated or truncated:
                break
        return observation, total, terminated, truncated, info


def stable_retro_env():
    return Skip(stable_retro.make(GAME, render_mode=None, use_restricted_actions=stable_retro.Actions.DISCRETE))


def ours(emulators, workers=0):
    """Our native env: `emulators` in one env (native backend), or spread over `workers` Multiprocessing workers."""
    if not workers:
        return pufferlib.vector.make(RetroluaPufferEnv, env_args=[FOLDER + "/rom.md"],
                                     env_kwargs=dict(OURS, num_envs=emulators))
    return pufferlib.vector.make(RetroluaPufferEnv, env_args=[FOLDER + "/rom.md"],
                                 env_kwargs=dict(OURS, num_envs=emulators // workers),
                                 backend=pufferlib.vector.Multiprocessing, num_envs=workers, num_workers=workers,
                                 overwork=True)


def theirs(emulators):
    """stable-retro through PufferLib's Gymnasium emulation: Serial for one, else one worker per emulator."""
    backend = pufferlib.vector.Serial if emulators == 1 else pufferlib.vector.Multiprocessing
    extra = {} if emulators == 1 else dict(num_workers=emulators, overwork=True)
    return pufferlib.vector.make(pufferlib.emulation.GymnasiumPufferEnv, env_kwargs=dict(env_creator=stable_retro_env),
                                 backend=backend, num_envs=emulators, **extra)


def rate(make):
    """Env steps/s of STEPS batches of seeded random actions after a reset (setup not counted)."""
    envs = make()
    try:
        envs.reset(seed=0)
        space = envs.single_action_space
        space.seed(0)
        count = envs.num_agents
        actions = [np.stack([space.sample() for _ in range(count)]).astype(np.int32) for _ in range(STEPS)]
        envs.step(actions[0])
        start = time.perf_counter()
        for batch in actions:
            envs.step(batch)
        return count * STEPS / (time.perf_counter() - start)
    finally:
        envs.close()
        if hasattr(envs, "processes"):  # Multiprocessing's own env in this process, for the spaces
            envs.driver_env.close()


# (label, emulators, our vector, stable-retro's vector) for 1, 2 and 4 emulators; "2x1": 2 workers of 1 env each.
SIDES = [
    ("native, 1 emu", 1, lambda: ours(1), lambda: theirs(1)),
    ("native, 2 emus", 2, lambda: ours(2), lambda: theirs(2)),
    ("Multiprocessing 2x1, 2 emus", 2, lambda: ours(2, 2), lambda: theirs(2)),
    ("native, 4 emus", 4, lambda: ours(4), lambda: theirs(4)),
    ("Multiprocessing 2x2, 4 emus", 4, lambda: ours(4, 2), lambda: theirs(4)),
]


def main():
    multiprocessing.set_start_method("spawn")
    best = {}
    for _ in range(rounds):
        for label, count, our_vector, their_vector in SIDES:
            best[label] = max(best.get(label, 0.0), rate(our_vector))
            best[count] = max(best.get(count, 0.0), rate(their_vector))  # each count's own, once per side using it
    for label, count, _, _ in SIDES:
        theirs_label = "Serial" if count == 1 else "Multiprocessing %dx1" % count
        print("%-34s %8.0f env steps/s vs %8.0f stable-retro (%s): %.2fx"
              % ("puffer " + label, best[label], best[count], theirs_label, best[label] / best[count]))


if __name__ == "__main__":
    main()
