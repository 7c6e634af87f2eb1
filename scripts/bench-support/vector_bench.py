"""Vector envs side by side in one run (issue: many emulators behind one door): our make_vec over the batch door
vs our single env.step and vs stable-retro 1.0.1 under gymnasium's AsyncVectorEnv, with raw screens (frame
skip 4) and with Atari-style preprocessing (skip 4 with max-pool, grayscale 84x84, a stack of 4: ours in the
emulators, stable-retro's through SB3's MaxAndSkipEnv/WarpFrame behaviour written here with the same OpenCV
calls, and gymnasium's FrameStackObservation); the trainer's CPU per env-step (fitted per batch and per env for
the C batch path and the Python one), the emulators' overhead per frame over the bare core loop, and the
throughput they project on 16 and 64 cores.
Usage: vector_bench.py RETROLUA ROM CORE BARE_LOOP [ROUNDS]  (build/venv/bin/python; opencv-python-headless)"""
import os
import resource
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import cv2  # noqa: E402
import gymnasium  # noqa: E402
import numpy as np  # noqa: E402
import retrolua  # noqa: E402
from retrolua import _native, integration  # noqa: E402
import stable_retro  # noqa: E402

binary, rom, core, bare_loop = sys.argv[1:5]
rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 5
rom = os.path.realpath(rom)
os.environ["RETROLUA"] = binary
GAME = "Airstriker-Genesis-v0"
folder = os.path.join(os.path.dirname(stable_retro.__file__), "data", "stable", GAME)
SKIP, STEPS = 4, 300
raw = dict(core=core, integration=folder, obs="screen", frameskip=SKIP)
atari = dict(raw, max_pool=True, grayscale=True, resize=(84, 84), frame_stack=4)


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


class MaxAndSkip(gymnasium.Wrapper):
    """SB3's MaxAndSkipEnv: SKIP frames, the element-wise max of the last two observations."""

    def step(self, action):
        total, last = 0.0, []
        for _ in range(SKIP):
            observation, reward, terminated, truncated, info = self.env.step(action)
            last = (last + [observation])[-2:]
            total += reward
            if terminated or truncated:
                break
        return np.maximum.reduce(last), total, terminated, truncated, info


class WarpFrame(gymnasium.ObservationWrapper):
    """SB3's WarpFrame: OpenCV's luma, then an area resize to 84x84 (one channel)."""

    def __init__(self, env):
        super().__init__(env)
        self.observation_space = gymnasium.spaces.Box(0, 255, (84, 84, 1), dtype=np.uint8)

    def observation(self, frame):
        gray = cv2.cvtColor(frame, cv2.COLOR_RGB2GRAY)
        return cv2.resize(gray, (84, 84), interpolation=cv2.INTER_AREA)[:, :, None]


def retro_raw():
    return Skip(stable_retro.make(GAME, render_mode=None))


def retro_atari():
    return gymnasium.wrappers.FrameStackObservation(WarpFrame(MaxAndSkip(stable_retro.make(GAME, render_mode=None))), 4)


def run(envs, steps=STEPS):
    """Env steps/s of `steps` steps from a reset, and the trainer's CPU (s) meanwhile."""
    actions = np.zeros((envs.num_envs,) + envs.single_action_space.shape, dtype=envs.single_action_space.dtype)
    envs.reset(seed=0)
    before, start = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    for _ in range(steps):
        envs.step(actions)
    elapsed, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF)
    return steps * envs.num_envs / elapsed, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def single_steps(env, steps=STEPS):
    action = np.zeros(env.action_space.shape, dtype=env.action_space.dtype)
    env.reset(seed=0)
    start = time.perf_counter()
    for _ in range(steps):
        env.step(action)
    return steps / (time.perf_counter() - start)


def bare_fps(frames, state_file):
    out = subprocess.run([bare_loop, core, rom, str(frames), "from", state_file], capture_output=True, text=True,
                         env=dict(os.environ, BARE_OPTIONS=",".join(
                             "%s=%s" % item for item in integration.CORE_OPTIONS.get("genesis_plus_gx", {}).items())))
    return float(out.stdout.split()[1])


def bare(*arguments):
    return float(subprocess.run([bare_loop, core, rom, "3000"] + list(arguments), capture_output=True,
                                text=True).stdout.split()[1])


def two_bare_loops():
    """Two cores' worth of the bare loop as two processes, and as two private copies of the core on two
    threads of one process (the other way to run many cores), each over one alone."""
    alone = bare()
    return bare("processes", "2") / alone, bare("threads", "2") / alone


level_file = os.path.join(os.environ.get("TMPDIR", "/tmp"), "retrolua-vector-bench-%d.state" % os.getpid())
with open(level_file, "wb") as file:
    file.write(integration.load(folder).state())
single = retrolua.make(rom, **raw)
ours = {"vec1": retrolua.make_vec(rom, 1, **raw), "vec2": retrolua.make_vec(rom, 2, **raw),
        "vec8": retrolua.make_vec(rom, 8, **raw), "atari8": retrolua.make_vec(rom, 8, **atari),
        "atari32": retrolua.make_vec(rom, 32, **atari),
        "atari2": retrolua.make_vec(rom, 2, **atari)}
# The trainer's per-batch work in C (retrolua._native: libRetroluaBatch.so beside the binary) unless it is
# not found; the Python path beside it in the same run (RETROLUA_NATIVE=0 when the envs are made).
native = _native.library() is not None
# The C path as it was before the whole step in one call (retrolua._step): four calls and numpy per batch.
ours.update({"c4_atari8": retrolua.make_vec(rom, 8, **atari), "c4_atari32": retrolua.make_vec(rom, 32, **atari)})
for name in ("c4_atari8", "c4_atari32"):
    ours[name]._whole_step = lambda stepper, actions: None
os.environ["RETROLUA_NATIVE"] = "0"
ours.update({"py_atari8": retrolua.make_vec(rom, 8, **atari), "py_atari32": retrolua.make_vec(rom, 32, **atari),
             "py_vec1": retrolua.make_vec(rom, 1, **raw)})
del os.environ["RETROLUA_NATIVE"]
theirs = {"async2": gymnasium.vector.AsyncVectorEnv([retro_raw] * 2),
          "async_atari2": gymnasium.vector.AsyncVectorEnv([retro_atari] * 2)}
best, parent_us = {}, {}
for _ in range(rounds):
    best["single"] = max(best.get("single", 0), single_steps(single))
    for name, envs in list(ours.items()) + list(theirs.items()):
        steps = STEPS // max(1, envs.num_envs // 2)  # many emulators on 2 cores: fewer steps, same frames
        rate, parent = run(envs, steps)
        if rate > best.get(name, 0):
            best[name] = rate
            parent_us[name] = parent / (steps * envs.num_envs) * 1e6
    best["bare"] = max(best.get("bare", 0), bare_fps(STEPS * SKIP, level_file))
    processes, threads = two_bare_loops()
    best["scaling"], best["threads"] = max(best.get("scaling", 0), processes), max(best.get("threads", 0), threads)
os.unlink(level_file)
for envs in [single] + list(ours.values()) + list(theirs.values()):
    envs.close()

print("%-34s %8.0f env steps/s vs %8.0f our single env.step: %.2fx (target >= 1.85; two bare loops side by side: %.2fx)"
      % ("vector env, 2 emulators, skip 4", best["vec2"], best["single"], best["vec2"] / best["single"],
         best["scaling"]))
print("%-34s %8.2fx one bare loop as 2 processes, %.2fx as 2 private copies of the core on 2 threads of one process"
      % ("two cores: processes vs threads", best["scaling"], best["threads"]))
print("%-34s %8.0f env steps/s vs %8.0f stable-retro under AsyncVectorEnv: %.2fx (target >= 1.6)"
      % ("  vs stable-retro, 2 envs", best["vec2"], best["async2"], best["vec2"] / best["async2"]))
print("%-34s %8.0f env steps/s vs %8.0f stable-retro + MaxAndSkip/WarpFrame/FrameStack under AsyncVectorEnv:"
      " %.2fx (target >= 2)" % ("Atari preprocessing, 2 envs", best["atari2"], best["async_atari2"],
                               best["atari2"] / best["async_atari2"]))
frame_us = 1e6 / best["bare"]
step_us = SKIP * frame_us  # an env-step's frames in the bare core loop
# One emulator through its lane, the trainer waiting: what a step costs beyond its frames and the
# trainer's CPU is the emulator's (the request, the screen, the scenario) and the two wake-ups.
# Measured on the Python path: with a core free, the C path spins while it waits (a lower latency, a busy core),
# so its CPU is not the trainer's work.
overhead_us = (1e6 / best["py_vec1"] - step_us - parent_us["py_vec1"]) / SKIP
print("%-34s %8.1f us per env-step with 2 emulators, %.1f with 8 (%.1f with 8 preprocessed);"
      " stable-retro's AsyncVectorEnv trainer %.1f" % ("trainer CPU", parent_us["vec2"], parent_us["vec8"],
                                                       parent_us["atari8"], parent_us["async2"]))
print("%-34s %8.1f us per frame over the bare loop's %.1f us (%.1f%%; request, screen, scenario and a synchronous"
      " step's two wake-ups)"
      % ("emulator overhead", overhead_us, frame_us, overhead_us / frame_us * 100))
# The trainer's CPU for a batch of n preprocessed observations, a + b·n, from its cost at 8 and at 32
# (8 and 32 emulators on 2 cores: their frames are slow, and the trainer shares the cores with them, so b
# is an upper bound: its caches are the emulators' in between).
def fitted(eight, thirty_two):
    per_env = (parent_us[thirty_two] * 32 - parent_us[eight] * 8) / 24
    return max(parent_us[eight] * 8 - per_env * 8, 0.0), per_env


fixed, per_env = fitted("atari8", "atari32")
print("%-34s %8.1f us a batch + %.1f us an env (preprocessed; from 8 and 32 emulators; %s; target <= 50 + 5)"
      % ("trainer CPU, fitted", fixed, per_env, "C batch path, one call a step" if native
         else "Python batch path: no libRetroluaBatch"))
four_fixed, four_per_env = fitted("c4_atari8", "c4_atari32")
print("%-34s %8.1f us a batch + %.1f us an env (the same C library a call each to post, wait, read replies, infos)"
      % ("  C path, four calls a batch", four_fixed, four_per_env))
python_fixed, python_per_env = fitted("py_atari8", "py_atari32")
print("%-34s %8.1f us a batch + %.1f us an env (RETROLUA_NATIVE=0, same run)"
      % ("  Python batch path", python_fixed, python_per_env))
for cores in (16, 64):
    # N emulators on N cores behind the pool (send/recv, batches of N/4): each emulator's cycle is its
    # frames, the overhead and the trainer's work on one batch; the trainer's CPU per batch caps the total.
    linear, batch = cores / step_us, cores / 4
    trainer = fixed + per_env * batch
    projected = min(cores / (step_us + SKIP * overhead_us + trainer), batch / trainer)
    print("%-34s %8.0f env steps/s projected = %.2f of %d bare loops (target >= 0.9)"
          % ("  on %d cores" % cores, projected * 1e6, projected / linear, cores))
