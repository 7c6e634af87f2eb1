"""The batch door's scaling, measured rather than projected: for 1, 2, 4, … N emulators on a machine with at least
N cores, env steps/s of our vector env (synchronous batches) and of the pool (send/recv, half the emulators a
batch) with raw screens and with Atari preprocessing (skip 4), against N bare core loops side by side (N
processes of scripts/bench-support/bare_loop.c, the same core and ROM). Prints one row per N: frames/s of each
and their ratio to the bare loops, and the trainer's CPU per env-step.
Usage: scaling_bench.py RETROLUA ROM CORE INTEGRATION_FOLDER BARE_LOOP [COUNTS, e.g. 1,2,4,8,16] [SECONDS]"""
import os
import resource
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import numpy as np  # noqa: E402
import retrolua  # noqa: E402
import retrolua.pool  # noqa: E402
from retrolua import integration  # noqa: E402

binary, rom, core, folder, bare_loop = sys.argv[1:6]
counts = [int(n) for n in (sys.argv[6] if len(sys.argv) > 6 else "1,2,4,8,16").split(",")]
seconds = float(sys.argv[7]) if len(sys.argv) > 7 else 4.0
os.environ["RETROLUA"] = binary
SKIP = 4
raw = dict(core=core, integration=folder, obs="screen", frameskip=SKIP)
atari = dict(raw, max_pool=True, grayscale=True, resize=(84, 84), frame_stack=4)


def bare(n):
    """Frames/s of n bare loops side by side (n processes at once), all together, each from the level's state so
    they run the frames the environments run, with the core options the host runs it with."""
    options = ",".join("%s=%s" % item for item in integration.CORE_OPTIONS.get("genesis_plus_gx", {}).items())
    loops = [subprocess.Popen([bare_loop, core, rom, "6000", "from", level_file], stdout=subprocess.PIPE, text=True,
                              env=dict(os.environ, BARE_OPTIONS=options)) for _ in range(n)]
    return sum(float(loop.communicate()[0].split()[1]) for loop in loops)


def timed(step, num_envs):
    """Env steps/s over `seconds` of steps after a warm-up, and the trainer's CPU per env-step (us)."""
    for _ in range(10):
        step()
    steps, before, start = 0, resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += step()
    elapsed, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return steps / elapsed, cpu / steps * 1e6


def vector(n, options):
    envs = retrolua.make_vec(rom, n, **options)
    try:
        actions = np.zeros((n,) + envs.single_action_space.shape, dtype=envs.single_action_space.dtype)
        envs.reset(seed=0)

        def step():
            envs.step(actions)
            return n
        return timed(step, n)
    finally:
        envs.close()


def pool(n, options):
    batch = max(1, n // 2)
    envs = retrolua.pool.make_pool(rom, num_envs=n, batch_size=batch, **options)
    try:
        action = np.zeros((batch,) + envs.action_space.shape, dtype=envs.action_space.dtype)
        envs.async_reset(seed=0)

        def step():
            *_, info = envs.recv()
            envs.send(action[:len(info["env_id"])], info["env_id"])
            return len(info["env_id"])
        return timed(step, n)
    finally:
        envs.close()


level_file = os.path.join(os.environ.get("TMPDIR", "/tmp"), "retrolua-scaling-bench-%d.state" % os.getpid())
with open(level_file, "wb") as file:
    file.write(integration.load(folder).state())
print("cores %d; skip %d; %.0f s a measurement" % (len(os.sched_getaffinity(0)), SKIP, seconds))
print("%4s %12s | %28s | %28s | %28s" % ("n", "bare fps", "vector raw: fps ratio cpu", "pool raw: fps ratio cpu",
                                         "pool atari: fps ratio cpu"))
for n in counts:
    loops = bare(n)
    cells = []
    for measure, options in ((vector, raw), (pool, raw), (pool, atari)):
        rate, cpu = measure(n, options)
        cells.append("%10.0f %6.3f %7.1fus" % (rate * SKIP, rate * SKIP / loops, cpu))
    print("%4d %12.0f | %s" % (n, loops, " | ".join(cells)), flush=True)
os.unlink(level_file)
