"""Control-socket benchmark: round trips of a 1-byte `read` (no emulation) and `step 1`, and Python-driven
steps per second. Usage: socket_bench.py RETROLUA ROM [STEPS]"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from retrolua.control import Retrolua  # noqa: E402

binary, rom = sys.argv[1], sys.argv[2]
steps = int(sys.argv[3]) if len(sys.argv) > 3 else 3000
with Retrolua.launch(rom, core="nestopia", binary=binary) as emu:
    emu.step(10)
    best_info = best_step = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(steps):
            emu.read(0x03)
        best_info = min(best_info, (time.perf_counter() - start) / steps)
        start = time.perf_counter()
        for i in range(steps):
            emu.step(1, {"right": i % 2 == 0})
        best_step = min(best_step, (time.perf_counter() - start) / steps)
print("read_us %.1f" % (best_info * 1e6))
print("step_us %.1f" % (best_step * 1e6))
print("python_steps_per_s %.0f" % (1 / best_step))
