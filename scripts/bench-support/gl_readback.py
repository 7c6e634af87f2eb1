"""What a GL frame costs when pixels are asked for: `step 1` against `step 1` plus a native `frame` over the
control socket, on a GL core and on a software core for scale. Usage: gl_readback.py RETROLUA CORE ROM [STEPS]"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))
from retrolua_client import Retrolua  # noqa: E402

binary, core, rom = sys.argv[1], sys.argv[2], sys.argv[3]
steps = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
with Retrolua.launch(rom, core=core, binary=binary) as emu:
    emu.step(10)
    best_step = best_frame = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(steps):
            emu.step(1)
        best_step = min(best_step, (time.perf_counter() - start) / steps)
        start = time.perf_counter()
        for _ in range(steps):
            emu.step(1)
            reply = emu.request("frame", format="native")
        best_frame = min(best_frame, (time.perf_counter() - start) / steps)
print("size %dx%d" % (reply["width"], reply["height"]))
print("step_us %.1f" % (best_step * 1e6))
print("frame_us %.1f" % ((best_frame - best_step) * 1e6))
