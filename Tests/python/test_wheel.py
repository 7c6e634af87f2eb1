"""The wheel scripts/wheel builds, installed as a user installs it: into a fresh venv, with the Swift toolchain off
PATH, no LD_LIBRARY_PATH, no source tree in reach (a temporary working directory, no $RETROLUA). Run after
scripts/wheel (scripts/test does): `build/venv/bin/python -m pytest Tests/python/test_wheel.py`."""

import glob
import json
import os
import re
import subprocess
import sys
import zipfile

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VERSION = re.search(r'^version = "(.*)"', open(os.path.join(ROOT, "python", "pyproject.toml")).read(), re.M).group(1)


def _the_wheel():
    wheels = glob.glob(os.path.join(ROOT, "dist", "retrolua-%s-py3-none-manylinux_*_x86_64.whl" % VERSION))
    assert wheels, "no dist/retrolua-%s-py3-none-manylinux_*_x86_64.whl: run scripts/wheel first" % VERSION
    return max(wheels, key=os.path.getmtime)


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A fresh venv with the wheel installed; numpy, gymnasium and stable-retro borrowed from build/venv through a
    .pth file (the tests stay offline), after the venv's own site-packages so the wheel's retrolua is the one
    imported. Returns (venv folder, environment for its commands, a working folder outside the tree)."""
    base = tmp_path_factory.mktemp("wheel")
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    with open(os.path.join(site, "zz-borrowed.pth"), "w") as pth:
        pth.write(os.path.dirname(os.path.dirname(np.__file__)) + "\n")
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--disable-pip-version-check",
                    _the_wheel()], check=True)
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("RETROLUA", "LD_LIBRARY_PATH", "PYTHONPATH", "RETROLUA_CORE_PATH")}
    environment["PATH"] = str(venv / "bin") + ":/usr/bin:/bin"  # no /opt/swift, no .build
    environment["HOME"] = str(base / "home")
    work = base / "work"
    work.mkdir()
    return venv, environment, str(work)


def _run(installed, command, timeout=180):
    _, environment, work = installed
    result = subprocess.run(command, capture_output=True, text=True, cwd=work, env=environment, timeout=timeout)
    assert result.returncode == 0, "%s failed (%d):\n%s\n%s" % (command, result.returncode, result.stdout,
                                                              result.stderr)
    return result.stdout


def test_the_wheel_is_tagged_manylinux_and_carries_the_binary_and_its_files():
    wheel = _the_wheel()
    shown = subprocess.run([os.path.join(ROOT, "build", "venv-wheel", "bin", "auditwheel"), "show", wheel],
                           capture_output=True, text=True, check=True).stdout
    tag = re.search(r"manylinux_(\d+)_(\d+)_x86_64", os.path.basename(wheel))
    assert tag and ('"manylinux_%s_%s_x86_64"' % tag.groups()) in shown.replace("\n", " "), shown
    names = zipfile.ZipFile(wheel).namelist()
    for needed in ("retrolua/_bundle/bin/retrolua", "retrolua/_bundle/share/retrolua/lua/defaults/osd.lua",
                   "retrolua/_bundle/share/retrolua/roms/dodge.nes",
                   "retrolua/_bundle/share/retrolua/examples/python/dodge_scenario.lua", "retrolua/_cli.py"):
        assert needed in names, needed
    vendored = [name for name in names if name.startswith("retrolua.libs/")]
    for library in ("liblua5", "libSDL2", "libsamplerate"):  # auditwheel renames liblua5.4 liblua5-HASH.4
        assert any(library in name for name in vendored), (library, vendored)
    assert not any("libswift" in name or "Foundation" in name for name in names), "the Swift runtime is static"


def test_the_installed_binary_needs_nothing_outside_the_wheel_but_the_base_system(installed):
    venv, environment, _ = installed
    binary = glob.glob(str(venv / "lib" / "python*" / "site-packages" / "retrolua" / "_bundle" / "bin" / "retrolua"))
    assert binary
    linked = _run(installed, ["ldd", binary[0]])
    assert "not found" not in linked, linked
    for line in linked.splitlines():
        # What the wheel does not vendor is the manylinux policy's base (glibc, libstdc++, libgcc, zlib, libX11).
        if "=>" in line and re.search(r"lib(lua5|SDL2|samplerate|zip|zstd|png16|crypto)", line.split("=>")[0]):
            assert "retrolua.libs" in line, line


def test_the_console_command_runs_60_frames_headless_like_the_source_build(installed):
    assert "retrolua %s" % VERSION in _run(installed, ["retrolua", "--version"])
    summary = _run(installed, ["retrolua", "run", "--headless", "--frames", "60"])
    assert "frames   60 in" in summary and "content  demo.nes" in summary, summary
    default_hash = re.search(r"hash ([0-9a-f]+)", summary).group(1)
    # The default content is the bundled demo: the tree's own build of it gives the same frames.
    rom = os.path.join(ROOT, "build", "roms", "demo.nes")
    ours = json.loads(_run(installed, ["retrolua", "run", rom, "--core", "nestopia", "--headless", "--frames", "60",
                                       "--json"]).strip().splitlines()[-1])
    assert ours["frames"] == 60 and ours["frame"]["hash"] == default_hash, (ours, summary)
    assert "retrolua %s" % VERSION in _run(installed, [str(installed[0] / "bin" / "python"), "-m", "retrolua",
                                                       "--version"])


def test_the_python_quick_start_works_from_any_folder(installed):
    venv, _, _ = installed
    program = """
import gymnasium, retrolua
from gymnasium.utils.env_checker import check_env
assert retrolua.find_binary().endswith("retrolua/_bundle/bin/retrolua"), retrolua.find_binary()
with retrolua.Emulator(retrolua._binary.shipped_file("build/roms/demo.nes"), core="nestopia") as emu:
    print("emulator", emu.step(30).frame, emu.screen().shape)
env = retrolua.make(retrolua._binary.shipped_file("build/roms/dodge.nes"), core="nestopia", obs="ram")
env.reset(seed=3)
for _ in range(10):
    env.step(env.action_space.sample())
env.close()
env = gymnasium.make("retrolua/Dodge-v0")
check_env(env.unwrapped)
observation, _ = env.reset(seed=1)
print("dodge", observation.shape, env.step(0)[0].shape)
env.close()
"""
    out = _run(installed, [str(venv / "bin" / "python"), "-c", program])
    assert "emulator 30 (240, 256, 3)" in out or "emulator 30 (224, 256, 3)" in out, out
    assert "dodge" in out, out


def test_stable_retros_cores_play_its_games(installed):
    venv, _, _ = installed
    located = _run(installed, [str(venv / "bin" / "python"), "-c",
                               "import stable_retro.data as d; print(d.get_romfile_path('Airstriker-Genesis-v0'))"])
    rom = located.strip().splitlines()[-1]
    # No --core: the .md file's core comes from stable-retro's cores folder (no Genesis core in Debian's set).
    ours = json.loads(_run(installed, ["retrolua", "run", rom, "--headless", "--frames", "60", "--json"])
                      .strip().splitlines()[-1])
    assert ours["frames"] == 60 and "genesis" in ours["core"].lower(), ours
    cores = _run(installed, ["retrolua", "cores"])
    assert "genesis_plus_gx" in cores and "nestopia" in cores, cores
