"""The wheel scripts/wheel builds, installed as a user installs it: into a fresh venv, with the Swift toolchain off
PATH, no LD_LIBRARY_PATH, no source tree in reach (a temporary working directory, no $RETROLUA). Run after
scripts/wheel (scripts/test does): `build/venv/bin/python -m pytest Tests/python/test_wheel.py`. Its windows
open on an Xvfb of its own, driven by xdotool; its headless server is a mount namespace without the window
system, sound server and GL libraries (root, or unprivileged user namespaces)."""

import glob
import json
import os
import re
import shutil
import subprocess
import time
import zipfile

import numpy as np
import pytest

from venvs import ROOT, VERSION, borrowing_venv, install_the_wheel, the_wheel


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A fresh venv with the wheel installed; numpy, gymnasium and stable-retro borrowed from build/venv through a
    .pth file (the tests stay offline), after the venv's own site-packages so the wheel's retrolua is the one
    imported. Returns (venv folder, environment for its commands, a working folder outside the tree)."""
    base = tmp_path_factory.mktemp("wheel")
    venv = base / "venv"
    install_the_wheel(borrowing_venv(venv))
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
    wheel = the_wheel()
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
    # The machine's own: GL driver, window system, sound server, D-Bus (a second libdbus crashed every window).
    assert not [name for name in vendored if SYSTEM_ONLY.search(name)], vendored


SYSTEM_ONLY = re.compile(r"/lib(GL|EGL|OpenGL|GLX|GLdispatch|X[a-z0-9]*|xcb|wayland|decor|xkbcommon|drm|gbm|pulse|dbus"
                         r"|asound|systemd|sndfile)[-.]")


def _needed(path):
    dynamic = subprocess.run(["readelf", "-d", path], capture_output=True, text=True, check=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[(.*?)\]", dynamic)


def test_the_wheel_carries_the_license_and_the_changelog():
    wheel = zipfile.ZipFile(the_wheel())
    license_text = wheel.read("retrolua-%s.dist-info/licenses/LICENSE" % VERSION).decode()
    assert license_text == open(os.path.join(ROOT, "LICENSE")).read() and license_text.startswith("MIT License")
    assert "License: MIT" in wheel.read("retrolua-%s.dist-info/METADATA" % VERSION).decode()
    changelog = wheel.read("retrolua/_bundle/share/doc/retrolua/CHANGELOG.md").decode()
    assert re.search(r"^## \[%s\]" % re.escape(VERSION), changelog, re.M), "CHANGELOG.md has no entry for " + VERSION


def test_neither_the_binary_nor_its_sdl_links_a_window_system_sound_server_or_gl(installed):
    venv, _, _ = installed
    site = glob.glob(str(venv / "lib" / "python*" / "site-packages"))[0]
    binary = os.path.join(site, "retrolua", "_bundle", "bin", "retrolua")
    needed = _needed(binary)
    assert not [name for name in needed if SYSTEM_ONLY.search("/" + name)], needed
    sdl = glob.glob(os.path.join(site, "retrolua.libs", "libSDL2*"))
    assert len(sdl) == 1, sdl
    # SDL loads X11, Wayland, PulseAudio, ALSA and GL itself when a window or a sound device opens.
    assert sorted(_needed(sdl[0])) == ["libc.so.6", "libm.so.6"], _needed(sdl[0])


def test_the_installed_binary_needs_nothing_outside_the_wheel_but_the_base_system(installed):
    venv, environment, _ = installed
    binary = glob.glob(str(venv / "lib" / "python*" / "site-packages" / "retrolua" / "_bundle" / "bin" / "retrolua"))
    assert binary
    linked = _run(installed, ["ldd", binary[0]])
    assert "not found" not in linked, linked
    for line in linked.splitlines():
        # What the wheel does not vendor is the manylinux policy's base (glibc, libstdc++, libgcc, zlib).
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


def test_the_wheels_batch_path_in_c_and_its_mcp_server_work_from_any_folder(installed):
    """The wheel's own libRetroluaBatch.so is the one the vector env uses (a libc-only library, no Swift runtime),
    and `retrolua mcp` from the installed console command opens the bundled Dodge demo, steps it with Right held
    and reads the player's x, for an MCP client over stdio."""
    venv, _, _ = installed
    program = """
import asyncio, json, os, sys
import numpy, retrolua, retrolua._native as native
library = native.library()
assert library is not None and library._name.endswith("retrolua/_bundle/lib/libRetroluaBatch.so"), library
env = retrolua.make_vec(retrolua._binary.shipped_file("build/roms/dodge.nes"), 2, core="nestopia", obs="ram")
env.reset(seed=0)
space = env.single_action_space
print("batch", env.step(numpy.zeros((2,) + space.shape, dtype=space.dtype))[0].shape)
env.close()
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
async def main():
    parameters = StdioServerParameters(command=os.path.join(os.path.dirname(sys.executable), "retrolua"),
                                       args=["mcp"], env=dict(os.environ))
    async with stdio_client(parameters) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            opened = json.loads((await session.call_tool("open_game", {})).content[0].text)
            await session.call_tool("step", {"frames": 10})
            before = json.loads((await session.call_tool("read_memory", {"address": 6, "format": "integers"})).content[0].text)
            await session.call_tool("step", {"frames": 5, "buttons": ["right"]})
            after = json.loads((await session.call_tool("read_memory", {"address": 6, "format": "integers"})).content[0].text)
            print("mcp", opened["content"], after["values"][0] - before["values"][0])
asyncio.run(main())
"""
    out = _run(installed, [str(venv / "bin" / "python"), "-c", program])
    assert "batch (2, 2048)" in out, out
    assert "mcp dodge.nes 10" in out, out


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


def _bundled_rom(installed, name):
    venv, _, _ = installed
    return glob.glob(str(venv / "lib" / "python*" / "site-packages" / "retrolua" / "_bundle" / "share" / "retrolua"
                         / "roms" / name))[0]


@pytest.fixture(scope="module")
def display():
    """An Xvfb of our own on a free display number (it writes the number it took to a pipe)."""
    for tool in ("Xvfb", "xdotool", "ffmpeg"):
        if not shutil.which(tool):
            pytest.skip("no %s (run scripts/setup)" % tool)
    reader, writer = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(writer), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                              pass_fds=(writer,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(writer)
    with os.fdopen(reader) as numbers:
        number = numbers.readline().strip()
    assert number.isdigit(), "Xvfb did not start"
    yield ":" + number
    server.terminate()
    server.wait(timeout=30)


def _until(what, seconds=60):
    """The first true answer of what(), asked until a generous deadline (a failing run, not a slow one, ends
    there)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        answer = what()
        if answer:
            return answer
        time.sleep(0.2)
    return None


def _xdotool(display, *arguments):
    return subprocess.run(["xdotool"] + list(arguments), capture_output=True, text=True, timeout=30,
                          env=dict(os.environ, DISPLAY=display)).stdout


def _grab(display, window):
    """The window's pixels as the X server shows them (ffmpeg's x11grab), as an H×W×3 array."""
    geometry = dict(line.split("=") for line in _xdotool(display, "getwindowgeometry", "--shell", window).split())
    width, height = int(geometry["WIDTH"]), int(geometry["HEIGHT"])
    raw = subprocess.run(["ffmpeg", "-loglevel", "error", "-f", "x11grab", "-video_size", "%dx%d" % (width, height),
                          "-i", "%s+%s,%s" % (display, geometry["X"], geometry["Y"]), "-frames:v", "1",
                          "-f", "rawvideo", "-pix_fmt", "rgb24", "-"], capture_output=True, timeout=60, check=True)
    return np.frombuffer(raw.stdout, np.uint8).reshape(height, width, 3)


def test_a_window_opens_draws_plays_sound_takes_a_screenshot_and_quits_with_escape(installed, display):
    """The wheel's own SDL in a real window from an empty folder: the picture reaches the X server, the sound
    reaches SDL's disk driver, F8 writes a screenshot and Escape ends the run (the vendored Debian SDL and its
    second libdbus crashed here with SIGSEGV)."""
    _, environment, work = installed
    audio = os.path.join(work, "sound.raw")
    home = os.path.join(work, "window-home")
    run_environment = dict(environment, DISPLAY=display, HOME=home, SDL_AUDIODRIVER="disk", SDL_DISKAUDIOFILE=audio)
    run_environment.pop("WAYLAND_DISPLAY", None)
    with open(os.path.join(work, "window.out"), "w+") as out, open(os.path.join(work, "window.err"), "w+") as err:
        run = subprocess.Popen(["retrolua", "run", _bundled_rom(installed, "demo.gb")], cwd=work,
                               env=run_environment, stdout=out, stderr=err)
        try:
            window = _until(lambda: _xdotool(display, "search", "--onlyvisible", "--pid", str(run.pid)).split())
            assert window, "no window appeared: %s" % open(err.name).read()
            window = window[0]
            # The demo's picture, many colours on a scaled game (not an empty or black window).
            drawn = _until(lambda: len(np.unique(_grab(display, window).reshape(-1, 3), axis=0)) >= 4)
            assert drawn, "the window stayed blank"
            _xdotool(display, "windowfocus", "--sync", window)
            _xdotool(display, "key", "F8")
            shots = os.path.join(home, ".local", "share", "retrolua", "screenshots")
            shot = _until(lambda: [name for name in os.listdir(shots) if name.endswith(".png")]
                          if os.path.isdir(shots) else None)
            assert shot, "F8 wrote no screenshot"
            # Sound reached the device: the demo plays a tone, so the driver's file holds samples that are not 0.
            assert _until(lambda: os.path.exists(audio) and any(open(audio, "rb").read())), "no sound reached SDL"
            _xdotool(display, "key", "Escape")
            status = run.wait(timeout=60)
        finally:
            if run.poll() is None:
                run.kill()
        out.seek(0)
        err.seek(0)
        summary, problems = out.read(), err.read()
    assert status == 0, (status, summary, problems)
    assert "content  demo.gb" in summary and "frames " in summary, summary
    assert "running headless" not in problems and "no audio device" not in problems, problems
    with open(os.path.join(shots, shot[0]), "rb") as png:
        assert png.read(8) == b"\x89PNG\r\n\x1a\n"


# Hidden in the headless namespace: a stock server's missing window system, sound server, GL and SDL.
HIDDEN = re.compile(r"^(lib(X|xcb|GL|EGL|OpenGL|wayland|pulse|dbus|asound|xkbcommon|decor|drm|gbm|gallium|vulkan|"
                    r"SDL2)|dri$|pulseaudio$)")


@pytest.fixture(scope="module")
def without_x(tmp_path_factory):
    """A command prefix that runs its command where /usr/lib/x86_64-linux-gnu holds none of HIDDEN: a mount
    namespace (unshare) with that folder replaced by a folder of links to its other entries, the real one
    bound elsewhere for the links to reach (so /etc/ld.so.cache's paths to hidden libraries lead nowhere)."""
    libraries = "/usr/lib/x86_64-linux-gnu"
    if not shutil.which("unshare") or not os.path.isdir(libraries):
        pytest.skip("no unshare or no %s" % libraries)
    base = tmp_path_factory.mktemp("without-x")
    real, links = base / "real", base / "links"
    real.mkdir()
    links.mkdir()
    for name in os.listdir(libraries):
        if not HIDDEN.match(name):
            os.symlink(str(real / name), str(links / name))
    namespace = ["unshare", "--mount", "--propagation", "private"]
    if os.geteuid() != 0:
        namespace[1:1] = ["--user", "--map-root-user"]
    probe = subprocess.run(namespace + ["true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip("no mount namespace here: %s" % probe.stderr.strip())
    script = 'mount --bind "$1" "$2" && mount --bind "$3" "$1" && shift 3 && exec "$@"'
    return namespace + ["sh", "-c", script, "sh", libraries, str(real), str(links)]


def test_a_headless_run_needs_no_window_system_sound_or_gl_and_a_window_says_what_is_missing(installed, without_x):
    _, environment, work = installed
    hidden = subprocess.run(without_x + ["sh", "-c", "ls /usr/lib/x86_64-linux-gnu | grep -cE '^lib(X11|EGL|GL)'"],
                            capture_output=True, text=True, cwd=work, env=environment)
    assert hidden.stdout.strip() == "0", hidden  # the namespace does hide them
    summary = _run(installed, without_x + ["retrolua", "run", "--headless", "--frames", "60"])
    assert "frames   60 in" in summary, summary
    program = ("import retrolua\n"
               "with retrolua.Emulator(retrolua._binary.shipped_file('build/roms/demo.nes'), core='nestopia') as emu:\n"
               "    print('emulator', emu.step(30).frame, emu.screen().shape)\n")
    assert "emulator 30" in _run(installed, without_x + [str(installed[0] / "bin" / "python"), "-c", program])
    # Asked for a window where X11's libraries are missing: the run says so and goes on headless.
    windowed = subprocess.run(without_x + ["retrolua", "run", "--frames", "30"], capture_output=True, text=True,
                              cwd=work, env=dict(environment, DISPLAY=":99"), timeout=180)
    assert windowed.returncode == 0, windowed
    assert "error while loading shared libraries" not in windowed.stderr, windowed.stderr
    assert re.search(r"no display \(DISPLAY is :99 but X11's libraries are not installed \(libX11\.so\.6: .*\): "
                     r"running headless", windowed.stderr), windowed.stderr
    assert "frames   30 in" in windowed.stdout, windowed.stdout


@pytest.fixture(scope="module")
def gl_core(tmp_path_factory):
    """Our GL test core (Tests/cores/gl_core.c) and a content file for it."""
    if not os.path.exists("/usr/bin/cc"):
        pytest.skip("no C compiler")
    base = tmp_path_factory.mktemp("gl-core")
    core = str(base / "gl_core_libretro.so")
    subprocess.run(["/usr/bin/cc", "-shared", "-fPIC", "-O1", "-o", core,
                    os.path.join(ROOT, "Tests", "cores", "gl_core.c")], check=True)
    (base / "pattern.glt").write_text("gl")
    return core, str(base / "pattern.glt")


def test_a_gl_core_draws_with_the_machines_gl_and_is_refused_by_name_where_there_is_none(installed, gl_core,
                                                                                          without_x):
    core, content = gl_core
    command = ["retrolua", "run", content, "--core", core, "--headless", "--frames", "5"]
    # The machine's EGL and GL (Mesa here), loaded when the core asks for its context.
    assert "frames   5 in" in _run(installed, command)
    _, environment, work = installed
    refused = subprocess.run(without_x + command, capture_output=True, text=True, cwd=work, env=environment,
                             timeout=180)
    assert refused.returncode == 1, refused
    assert ("EGL is not installed (libEGL.so.1: cannot open shared object file: No such file or directory); a GL "
            "core without a window needs libegl1") in refused.stderr, refused.stderr


def test_a_crash_says_how_to_get_a_backtrace_from_the_wheel(installed, tmp_path):
    """The wheel carries no swift-backtrace, so SWIFT_BACKTRACE cannot help: the line points at gdb."""
    if not os.path.exists("/usr/bin/cc"):
        pytest.skip("no C compiler")
    core = str(tmp_path / "crash_libretro.so")
    subprocess.run(["/usr/bin/cc", "-shared", "-fPIC", "-O1", "-DMODE_CRASH_SYSINFO", "-o", core,
                    os.path.join(ROOT, "Tests", "cores", "broken_core.c")], check=True)
    game = tmp_path / "game.brk"
    game.write_text("game")
    _, environment, work = installed
    crashed = subprocess.run(["retrolua", "run", str(game), "--core", core, "--headless", "--frames", "2"],
                             capture_output=True, text=True, cwd=work, env=environment, timeout=60)
    assert crashed.returncode == -11, crashed
    assert ("retrolua: crashed: SIGSEGV (a bad memory access in the core or in Retrolua); for a backtrace, run the "
            "same command under gdb: gdb -batch -ex run -ex bt --args retrolua") in crashed.stderr, crashed.stderr
    assert "SWIFT_BACKTRACE" not in crashed.stderr, crashed.stderr
