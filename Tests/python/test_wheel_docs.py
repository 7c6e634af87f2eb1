"""The manual's commands as a wheel user types them: the wheel scripts/wheel builds, installed into a fresh venv
(no Swift on PATH, no source tree in reach, no $RETROLUA, no display), runs getting-started's commands and
every other block the pages mark runnable (as test_docs.py runs them against the source build) in an empty
working folder — the bundled ROMs and examples found by name. Also: with $RETROLUA naming another binary, the
package still finds the wheel's own bundled files. Run after scripts/wheel (scripts/test does):
`build/venv/bin/python -m pytest Tests/python/test_wheel_docs.py`."""

import os
import re
import subprocess

import pytest

import test_docs as docs  # the pages' runnable blocks, read the same way
from venvs import ROOT, borrowing_venv, install_the_wheel

GETTING_STARTED = os.path.join("docs", "guides", "getting-started.md")


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    """A fresh venv with the wheel installed; numpy, gymnasium and the mcp SDK borrowed from build/venv through a
    .pth file (offline), after the venv's own site-packages so the wheel's retrolua is the one imported."""
    folder = tmp_path_factory.mktemp("wheel-docs") / "venv"
    install_the_wheel(borrowing_venv(folder))
    return folder


@pytest.fixture
def sandbox(venv, tmp_path):
    """An empty working folder outside the tree and an environment with the venv first on PATH and nothing of
    the tree's or the user's: no $RETROLUA, PYTHONPATH, display, Swift, or user folders."""
    work = tmp_path / "work"
    work.mkdir()
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("RETROLUA", "LD_LIBRARY_PATH", "PYTHONPATH", "RETROLUA_CORE_PATH", "DISPLAY",
                                  "WAYLAND_DISPLAY", "RETROLUA_DEFAULT_ROM", "RETROLUA_LUA_DIR")}
    environment.update({
        "PATH": str(venv / "bin") + ":/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "SDL_AUDIODRIVER": "dummy",
    })
    return work, environment


def _command(language, options, code, work, venv):
    """The command that runs a block, as test_docs.py runs it (sh with bash, lua as a headless run's script,
    python with the venv's interpreter)."""
    if language in ("sh", "bash"):
        (work / "block.sh").write_text(code)
        return ["bash", "-e", "-o", "pipefail", str(work / "block.sh")]
    if language == "lua":
        (work / "block.lua").write_text(code)
        command = [str(venv / "bin" / "retrolua"), "run", options.get("rom", "demo.nes"), "--core",
                   options.get("core", "nestopia"), "--headless", "--frames", options.get("frames", "60"), "--strict",
                   "--script", str(work / "block.lua")]
        if "compat" in options:
            command[-2:-2] = ["--compat", options["compat"]]
        return command
    (work / "block.py").write_text(code)
    return [str(venv / "bin" / "python"), str(work / "block.py")]


def _run_block(block, sandbox, venv):
    block_id, language, options, code = block
    assert language is not None, block_id + ": " + code
    work, environment = sandbox
    result = subprocess.run(_command(language, options, code, work, venv), cwd=work, env=environment,
                            capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, "%s exited %d from the wheel\n--- code\n%s--- stdout\n%s--- stderr\n%s" % (
        block_id, result.returncode, code, result.stdout[-4000:], result.stderr[-4000:])
    return result


def _getting_started_blocks():
    return [block for block in docs.BLOCKS if block[0].startswith(GETTING_STARTED + ":")]


def test_getting_started_runs_as_written_from_the_wheel_in_an_empty_folder(sandbox, venv):
    blocks = _getting_started_blocks()
    commands = "".join(code for _, _, _, code in blocks)
    # The page's first steps are all among the blocks run here, as the page writes them.
    for command in ("retrolua run --headless --frames 600", "retrolua run dodge.nes ", "retrolua paths\n",
                    "retrolua paths dodge.nes examples/overlays/ram_watch.lua", "--script examples/overlays/ram_watch.lua",
                    "retrolua info demo.nes"):
        assert command in commands, "getting-started no longer runs %r" % command
    output = "".join(_run_block(block, sandbox, venv).stdout for block in blocks)
    bundle = "/site-packages/retrolua/_bundle/share/retrolua/"
    assert re.search(r"^roms +\S+" + re.escape(bundle + "roms") + "$", output, re.M), output
    assert bundle + "examples/overlays/ram_watch.lua\n" in output, output
    assert "content  dodge.nes" in output and "content  demo.nes" in output, output
    work, _ = sandbox
    assert (work / "dodge.png").stat().st_size > 0
    assert ROOT not in output, "nothing comes from the source tree"


@pytest.mark.parametrize("block", [block for block in docs.BLOCKS if not block[0].startswith(GETTING_STARTED + ":")],
                         ids=[block[0] for block in docs.BLOCKS if not block[0].startswith(GETTING_STARTED + ":")])
def test_every_runnable_block_runs_from_the_wheel(block, sandbox, venv):
    _run_block(block, sandbox, venv)


def test_the_package_finds_its_own_bundled_files_when_retrolua_names_another_binary(sandbox, venv, tmp_path):
    """$RETROLUA pointing at a binary that cannot answer (another build, moved away from its files): the
    registered environments' ROM and scenario and MCP's default game still come from the wheel's share folder."""
    work, environment = sandbox
    other = tmp_path / "other-retrolua"
    other.write_text("#!/bin/sh\necho 'another retrolua, without share/retrolua' >&2\nexit 1\n")
    other.chmod(0o755)
    program = ("from retrolua._binary import shipped_file\n"
               "print(shipped_file('dodge.nes'))\n"
               "print(shipped_file('examples/python/dodge_scenario.lua'))\n")
    result = subprocess.run([str(venv / "bin" / "python"), "-c", program], cwd=work,
                            env=dict(environment, RETROLUA=str(other)), capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    rom, scenario = result.stdout.split()
    assert rom.endswith("/retrolua/_bundle/share/retrolua/roms/dodge.nes") and os.path.isfile(rom), rom
    assert scenario.endswith("/retrolua/_bundle/share/retrolua/examples/python/dodge_scenario.lua"), scenario
    missing = subprocess.run([str(venv / "bin" / "python"), "-c", "from retrolua._binary import shipped_file\n"
                              "shipped_file('nothing.nes')"], cwd=work, env=dict(environment, RETROLUA=str(other)),
                             capture_output=True, text=True, timeout=120)
    assert missing.returncode != 0 and "nothing.nes: no such file (looked at: " in missing.stderr, missing.stderr
