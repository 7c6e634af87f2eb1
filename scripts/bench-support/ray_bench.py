"""Ray farm vs `retrolua batch`: the same 8 jobs (ROM, FRAMES frames each) through retrolua.ray.map_jobs
on a local 2-CPU Ray cluster (started once, not timed) and through `retrolua batch --jobs 2`,
interleaved, best of ROUNDS. Prints `ray_s`, `batch_s` and `ray_start_s` lines.

    build/venv/bin/python scripts/bench-support/ray_bench.py BINARY ROM FRAMES ROUNDS
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
binary, rom, frames, rounds = sys.argv[1], os.path.abspath(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
os.environ["RETROLUA"] = binary
os.environ["PYTHONPATH"] = os.path.join(ROOT, "python")

import ray  # noqa: E402
import retrolua.ray  # noqa: E402

folder = tempfile.mkdtemp(prefix="rl-rayb-", dir="/tmp")
jobs = os.path.join(folder, "jobs.jsonl")
with open(jobs, "w") as file:
    for number in range(8):
        file.write(json.dumps({"name": "job %d" % number, "rom": rom, "frames": frames}) + "\n")
start = time.perf_counter()
ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1", _temp_dir=folder,
         logging_level="warning")
retrolua.ray.map_jobs([{"rom": rom, "frames": 1}] * 2)  # workers up before timing
print("ray_start_s %.3f" % (time.perf_counter() - start))
best_ray = best_batch = float("inf")
try:
    for _ in range(rounds):
        start = time.perf_counter()
        results = retrolua.ray.map_jobs(jobs)
        best_ray = min(best_ray, time.perf_counter() - start)
        assert all(result.ok for result in results), [result.error for result in results if not result.ok]
        start = time.perf_counter()
        subprocess.run([binary, "batch", jobs, "--jobs", "2"], check=True, capture_output=True)
        best_batch = min(best_batch, time.perf_counter() - start)
finally:
    ray.shutdown()
    shutil.rmtree(folder, ignore_errors=True)
print("ray_s %.3f" % best_ray)
print("batch_s %.3f" % best_batch)
