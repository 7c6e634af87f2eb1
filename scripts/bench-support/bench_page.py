#!/usr/bin/env python3
"""Writes scripts/bench's figures into the docs site's benchmarks page (docs/benchmarks.md).

Usage: bench_page.py BENCH_OUTPUT PAGE [SUBSET [LOAD]]
BENCH_OUTPUT is what scripts/bench printed; SUBSET names what ran ("" for every section, else e.g.
"BENCH_ONLY=compat"); LOAD is the load average when the run started ("1.02 0.80 0.51"). Each "== ... ==" section of the output replaces the page's block of the same section
under "Latest figures" (sections this run did not measure keep their older block and its date), and the
run's summary — its lines with a ratio or a target — goes on top of "History", below which every earlier
entry is kept as it was. The page's other text is rewritten from here, so edit this file, not the page.
"""
import datetime
import os
import platform
import re
import subprocess
import sys

LATEST, HISTORY = "## Latest figures", "## History"
BLOCK = re.compile(r"<!-- bench section: (.*?) -->\n.*?(?=<!-- bench section: |\Z)", re.S)
# Figures worth a line in a run's history entry: the side by side comparisons and those with a target.
SUMMARY = re.compile(r"ratio|target|speed-up|overhead")

INTRO = """# Benchmarks

`scripts/bench` measures a release build side by side with what it is compared to — a bare C loop of the
core's `retro_run`, the same script in another API, RetroArch, stable-retro — in one run: rounds are
interleaved and the best of each side is kept, which filters out a busy machine's noise. It prints figures
and ratios, with the target each was held to; it passes or fails nothing. Ratios are ours over theirs
(above 1 is faster) unless the line says a lower figure is better.

Rerun it with `BENCH_PAGE=1 scripts/bench` to rewrite this page (every section: many minutes on a
2-core machine); one section alone with `BENCH_ONLY=compat` (or `gl`, `ray`, `python`, `tastudio`) beside it.
A section this run did not measure keeps its earlier figures and their date. Each run's summary goes on top
of the history, which keeps every earlier one. `BENCH_BASELINE=/path/to/old/retrolua scripts/bench` measures
this build against a binary built from another commit, interleaved in the same run (`BENCH_BASELINE_ONLY=1`
stops there); those figures are about a change, so they stay on the terminal, not here.
"""


def machine():
    model = ""
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    name = re.sub(r"\s+", " ", model or platform.processor() or platform.machine())
    return "%s, %d CPUs, %s %s" % (name, os.cpu_count() or 0, platform.system(), platform.release())


def commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def sections(output):
    """The output's sections in order: [(title, [lines])]; lines before the first header are setup's."""
    found = []
    for line in output.splitlines():
        header = re.fullmatch(r"== (.*) ==", line.strip())
        if header:
            found.append((header.group(1), []))
        elif found and line.strip():
            found[-1][1].append(line.rstrip())
    # Before/after figures are about one change against a local binary, not the project's figures.
    return [(title, lines) for title, lines in found if not title.startswith("before/after")]


def key(title):
    # A section keeps its name's first two words from run to run; the rest carries versions and counts.
    return " ".join(re.sub(r"\(.*?\)|[:,;]", " ", title).split()[:2]).lower()


# The sections in the order a full scripts/bench run prints them (the page keeps it): key, what it measures.
SECTIONS = [("foundation headless", "every system's cores vs a bare loop"), ("foundation startup", "startup"),
            ("lua scripting", "Lua scripting"), ("movies", "movies"), ("achievements the", "achievements"),
            ("cheats", "cheats"), ("bots and", "bots and automation"), ("python retrolua.emulator", "Python"),
            ("ray retrolua.ray.map_jobs", "Ray"), ("sdl frontend", "the SDL frontend"),
            ("compatibility layers", "the compatibility layers"), ("tas editor", "the TAS editor"),
            ("hardware-rendered cores", "hardware-rendered (GL) cores")]
ORDER = [name for name, _ in SECTIONS]


def block(title, lines, stamp):
    return ("<!-- bench section: %s -->\n### %s\n\nMeasured %s.\n\n```text\n%s\n```\n\n"
            % (key(title), title[:1].upper() + title[1:], stamp, "\n".join(lines)))


def main():
    if len(sys.argv) not in (3, 4, 5):
        sys.exit("bench_page.py: usage: bench_page.py BENCH_OUTPUT PAGE [SUBSET [LOAD]]")
    output_path, page_path = sys.argv[1], sys.argv[2]
    subset = sys.argv[3] if len(sys.argv) >= 4 else ""
    load = sys.argv[4].strip() if len(sys.argv) == 5 else ""
    measured = sections(open(output_path, encoding="utf-8").read())
    if not measured:
        sys.exit("bench_page.py: %s has no \"== section ==\" figures; %s is unchanged" % (output_path, page_path))
    old = open(page_path, encoding="utf-8").read() if os.path.exists(page_path) else ""
    latest_text, history_text = "", ""
    if HISTORY in old:
        history_text = old.split(HISTORY, 1)[1]
        history_text = history_text[history_text.find("\n###"):] if "\n###" in history_text else ""
    if LATEST in old:
        latest_text = old.split(LATEST, 1)[1].split(HISTORY, 1)[0]
    blocks = [(match.group(1), match.group(0)) for match in BLOCK.finditer(latest_text)]

    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    where = machine() + (" (load average %s at the start)" % load if load else "")
    stamp = "%s on %s, commit %s%s" % (now, where, commit(), ", " + subset if subset else "")
    new = {key(title): block(title, lines, stamp) for title, lines in measured}
    # The measured sections replace the page's; the others stay, with their date.
    merged = [(name, new.pop(name, text)) for name, text in blocks]
    merged += [(key(title), new[key(title)]) for title, _ in measured if key(title) in new]
    merged.sort(key=lambda pair: ORDER.index(pair[0]) if pair[0] in ORDER else len(ORDER))

    summary = [re.sub(r" {2,}", "  ", line.strip()) for _, lines in measured for line in lines
               if SUMMARY.search(line)] or [re.sub(r" {2,}", "  ", line.strip()) for _, lines in measured
                                             for line in lines]
    entry = "### %s — %s\n\n%s, commit %s.\n\n```text\n%s\n```\n" % (
        now, subset or "every section", where, commit(), "\n".join(summary))

    earlier = history_text.strip("\n")
    kept = set(name for name, _ in merged)
    missing = [what for name, what in SECTIONS if name not in kept]
    gap = ("Not measured since this page began: %s; their figures are in the history's oldest entry.\n\n"
           % ", ".join(missing)) if missing else ""
    page = (INTRO + "\n" + LATEST + "\n\n" + gap + "".join(text for _, text in merged).rstrip() + "\n\n" + HISTORY
            + "\n\nEarlier runs, newest first (figures from before this page are ranges gathered over several "
            "runs).\n\n" + entry + ("\n" + earlier + "\n" if earlier else ""))
    with open(page_path, "w", encoding="utf-8") as out:
        out.write(page)
    print("bench: wrote %s (%d sections measured, %d on the page)" % (page_path, len(measured), len(merged)))


if __name__ == "__main__":
    main()
