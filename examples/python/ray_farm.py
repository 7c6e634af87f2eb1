"""A Ray farm that searches Dodge seeds: each job plays the bundled dodge.nes (nestopia) with
examples/python/dodge_farm_bot.lua under another seed (the bot heads for the coin and makes a random
move with probability NOISE%), the jobs run on a Ray cluster through `retrolua.ray.map_jobs`, and the
farm prints each score as it comes in, then the best seed.

    build/venv/bin/python examples/python/ray_farm.py                      # a local Ray, 2 CPUs, 16 seeds
    build/venv/bin/python examples/python/ray_farm.py --seeds 4 --frames 600
    build/venv/bin/python examples/python/ray_farm.py --address auto --seeds 256   # an existing cluster

The ROM and the bot are named as `retrolua run` finds its bundled files (docs/guides/getting-started.md,
"Where things are"), so every node needs only Retrolua installed (the wheel, the .deb or a source build); see
docs/guides/python-and-ray.md, "Ray". Exit status 0 when every job ran.
"""

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))  # the tree's package, when it is not installed

import ray  # noqa: E402
import retrolua.ray  # noqa: E402

# Bundled names, which each node's retrolua finds in its own installed or source-tree files.
ROM = "dodge.nes"
BOT = "examples/python/dodge_farm_bot.lua"


def jobs(seeds, first, frames, noise):
    """One `retrolua batch` job line (as a dict) per seed."""
    return [{"name": "seed %d" % seed, "rom": ROM, "core": "nestopia", "script": BOT, "frames": frames + 10,
             "env": {"SEED": str(seed), "NOISE": str(noise), "MAX_FRAMES": str(frames)}, "timeout": 300}
            for seed in range(first, first + seeds)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=16, help="how many seeds to try (default 16)")
    parser.add_argument("--first", type=int, default=1, help="the first seed (default 1)")
    parser.add_argument("--frames", type=int, default=3000, help="frames each game may last (default 3000)")
    parser.add_argument("--noise", type=int, default=30, help="percent of random moves (default 30)")
    parser.add_argument("--address", default=None, help="a Ray cluster's address (default: start a local one)")
    parser.add_argument("--cpus", type=int, default=2, help="CPUs of the local cluster (default 2)")
    options = parser.parse_args()
    if options.address is None:
        ray.init(num_cpus=options.cpus, include_dashboard=False, logging_level="warning")
    else:
        ray.init(address=options.address, logging_level="warning")

    def report(result):
        if result.ok:
            found = result.result["results"]
            print("%-9s score %2d, lives %d, %4d frames  (%s, %.1f s)" % (
                result.name, found["score"], found["lives"], found["frames"], result.node, result.seconds),
                flush=True)
        else:
            print("%-9s failed: %s" % (result.name, result.error), flush=True)

    results = retrolua.ray.map_jobs(jobs(options.seeds, options.first, options.frames, options.noise),
                                    progress=report)
    played = [result for result in results if result.ok]
    if played:
        best = max(played, key=lambda result: (result.result["results"]["score"], -result.result["results"]["frames"]))
        found = best.result["results"]
        print("best: %s, score %d (lives %d, %d frames) of %d seeds" % (
            best.name, found["score"], found["lives"], found["frames"], len(results)))
    return 0 if len(played) == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
