"""The emulator's side of a lane step in instructions, which a loaded machine does not change: one emulator
behind the batch lane (retrolua.make_vec, 1 env, Airstriker on genesis_plus_gx, frame skip 4) runs STEPS steps
under callgrind; its steps' instructions beyond retro_run's, per frame, split into the observation, the
scenario's Lua and the rest; the serve loop's polls between steps apart (their count follows the clock).
Usage: lane_instructions.py RETROLUA [STEPS] [raw|atari]  (build/venv/bin/python; valgrind; a release binary
stripped of its debug info: valgrind 3.19 cannot read Swift's, `strip --strip-debug -o COPY BINARY`)"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import numpy as np  # noqa: E402
import retrolua  # noqa: E402
import stable_retro  # noqa: E402

binary = os.path.realpath(sys.argv[1])
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 100
kind = sys.argv[3] if len(sys.argv) > 3 else "atari"
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
GAME = "Airstriker-Genesis-v0"
folder = os.path.join(os.path.dirname(stable_retro.__file__), "data", "stable", GAME)
raw = dict(core=os.path.join(root, "build", "cores", "genesis_plus_gx_libretro.so"), integration=folder,
           obs="screen", frameskip=4)
options = dict(raw, max_pool=True, grayscale=True, resize=(84, 84), frame_stack=4) if kind == "atari" else raw
work = tempfile.mkdtemp(prefix="retrolua-lane-")
wrapper = os.path.join(work, "retrolua")
with open(wrapper, "w") as file:
    file.write("#!/bin/sh\nexec valgrind --tool=callgrind --callgrind-out-file=%s/out.%%p %s \"$@\"\n" % (work, binary))
os.chmod(wrapper, 0o755)
os.environ["RETROLUA"] = wrapper
envs = retrolua.make_vec(os.path.join(root, "build", "roms", "airstriker.md"), 1, **options)
actions = np.zeros((1,) + envs.single_action_space.shape, dtype=envs.single_action_space.dtype)
envs.reset(seed=0)
for _ in range(steps):
    envs.step(actions)
envs.close()
[profile] = [os.path.join(work, name) for name in os.listdir(work) if name.startswith("out.")]


def annotate(*flags):
    return subprocess.run(["callgrind_annotate", *flags, profile], capture_output=True, text=True).stdout


inclusive = annotate("--inclusive=yes", "--threshold=100")


def cost(pattern):
    """The inclusive instructions of the first function matching `pattern` (0 when none)."""
    match = re.search(r"^\s*([\d,]+) .*(?:%s)" % pattern, inclusive, re.M)
    return int(match.group(1).replace(",", "")) if match else 0


frames = int(re.search(r"< .*CoreC3runyyF \((\d+)x\)", annotate("--tree=caller")).group(1))
step, core = cost(r"BinaryStepC8runSliceSays5UInt8VGSgyF \["), cost(r":retro_run \[")
observe, scenario = cost(r"BinaryPreprocessingC7observe|ObservationC7observe"), cost(r"ScenarioC5value2of")
serve = cost(r"SessionC5servey9Emulation9RunReport")
print("%s, %d frames: retro_run %.0f instructions a frame; a step's own %.0f a frame beyond it (observation %.0f,"
      " scenario %.0f, the rest %.0f); the serve loop's polls between steps %.0f (clock-driven)"
      % (kind, frames, core / frames, (step - core) / frames, observe / frames, scenario / frames,
         (step - core - observe - scenario) / frames, (serve - step) / frames))
