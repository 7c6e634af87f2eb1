"""The documentation's examples, run for real: every code block in docs/ and README.md preceded by an
HTML comment `<!-- runnable -->` (optionally `<!-- runnable rom=dodge.nes frames=120 compat=auto -->`)
runs against the built binary — sh blocks with bash, lua blocks as a headless run's script, python blocks
with this interpreter — in an empty temporary folder (the bundled ROMs and examples are found by name, as from
any folder), with XDG folders of its own (nothing of the user's is read or written) and no display. Also: README's relative
links resolve, README stays within 250 lines, and the site builds in mkdocs' strict mode.
Run with `build/venv/bin/python -m pytest Tests/python/test_docs.py` (RETROLUA = the binary, else the
tree's .build/debug or .build/release build)."""

import glob
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
README = os.path.join(ROOT, "README.md")
MARK = re.compile(r"^(\s*)<!--\s*runnable((?:\s+\w+=\S+)*)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)(`{3,})(\w+)")
LANGUAGES = {"sh", "bash", "lua", "python"}


def documents():
    return [README] + sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))


def marked_blocks():
    """(id, language, options, code) for each block marked runnable; a mark not followed by a fence of a
    known language is an error of its own, so a typo never silently drops a block."""
    blocks = []
    for path in documents():
        lines = open(path, encoding="utf-8").read().split("\n")
        name = os.path.relpath(path, ROOT)
        for number, line in enumerate(lines):
            mark = MARK.match(line)
            if not mark:
                continue
            block_id = "%s:%d" % (name, number + 1)
            options = dict(pair.split("=", 1) for pair in mark.group(2).split())
            fence = FENCE.match(lines[number + 1]) if number + 1 < len(lines) else None
            if not fence or fence.group(3) not in LANGUAGES:
                blocks.append((block_id, None, options, "the runnable mark is not followed by a sh, lua or python block"))
                continue
            indent, ticks = fence.group(1), fence.group(2)
            body = []
            for text in lines[number + 2:]:
                if text.strip() == ticks:
                    break
                body.append(text[len(indent):] if text.startswith(indent) else text)
            blocks.append((block_id, fence.group(3), options, "\n".join(body) + "\n"))
    return blocks


def binary():
    explicit = os.environ.get("RETROLUA")
    if explicit:
        return os.path.abspath(explicit)
    for kind in ("debug", "release"):
        candidate = os.path.join(ROOT, ".build", kind, "retrolua")
        if os.access(candidate, os.X_OK):
            return candidate
    pytest.skip("no retrolua binary: build it (swift build) or set RETROLUA")


@pytest.fixture
def sandbox(tmp_path):
    """An empty working folder (a block names the bundled ROMs and examples as a user does anywhere) and its
    environment."""
    if not os.path.exists(os.path.join(ROOT, "build", "roms", "demo.nes")):
        pytest.skip("build/roms is missing: run scripts/setup")
    work = tmp_path / "work"
    work.mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    os.symlink(binary(), bin_dir / "retrolua")
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("DISPLAY", "WAYLAND_DISPLAY", "RETROLUA_DEFAULT_ROM", "RETROLUA_LUA_DIR")}
    environment.update({
        "PATH": str(bin_dir) + os.pathsep + environment.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path / "home"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "SDL_AUDIODRIVER": "dummy",
        "RETROLUA": str(bin_dir / "retrolua"),
        "PYTHONPATH": os.path.join(ROOT, "python"),
    })
    return work, environment


BLOCKS = marked_blocks()


def test_the_docs_mark_blocks_to_run():
    languages = {language for _, language, _, _ in BLOCKS}
    assert {"sh", "lua", "python"} <= languages, languages


@pytest.mark.parametrize("block_id,language,options,code", BLOCKS, ids=[block[0] for block in BLOCKS])
def test_a_runnable_block_runs(block_id, language, options, code, sandbox):
    assert language is not None, block_id + ": " + code
    work, environment = sandbox
    if language in ("sh", "bash"):
        script = work / "block.sh"
        script.write_text(code)
        command = ["bash", "-e", "-o", "pipefail", str(script)]
    elif language == "lua":
        script = work / "block.lua"
        script.write_text(code)
        rom = options.get("rom", "demo.nes")
        command = ["retrolua", "run", rom, "--core", options.get("core", "nestopia"), "--headless",
                   "--frames", options.get("frames", "60"), "--strict", "--script", str(script)]
        if "compat" in options:
            command[-2:-2] = ["--compat", options["compat"]]
    else:
        script = work / "block.py"
        script.write_text(code)
        command = [sys.executable, str(script)]
    command[0] = shutil.which(command[0], path=environment["PATH"]) or command[0]
    result = subprocess.run(command, cwd=work, env=environment, capture_output=True, text=True, timeout=240,
                            stdin=subprocess.DEVNULL)
    assert result.returncode == 0, "%s exited %d\n--- code\n%s--- stdout\n%s--- stderr\n%s" % (
        block_id, result.returncode, code, result.stdout[-4000:], result.stderr[-4000:])


def readme_lines():
    return open(README, encoding="utf-8").read().split("\n")


def test_the_readme_fits_in_250_lines():
    text = open(README, encoding="utf-8").read()
    assert text.count("\n") <= 250, "README.md has %d lines; move the detail to docs/" % text.count("\n")


def test_every_relative_link_in_the_readme_resolves():
    text = "\n".join(readme_lines())
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)  # links in code blocks are code, not links
    targets = re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", text)
    targets += re.findall(r"<(?:img|a)\s[^>]*(?:src|href)=\"([^\"]+)\"", text)
    relative = [t for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:", t) and not t.startswith("#")]
    assert relative, "README.md links to no file"
    missing = [t for t in relative if not os.path.exists(os.path.join(ROOT, t.split("#")[0]))]
    assert not missing, "README.md links to missing files: %s" % missing


def test_the_site_builds_in_strict_mode(tmp_path):
    mkdocs = os.path.join(os.path.dirname(sys.executable), "mkdocs")
    if not os.access(mkdocs, os.X_OK):
        pytest.skip("mkdocs is not in this venv: pip install mkdocs mkdocs-material (scripts/setup does)")
    result = subprocess.run([mkdocs, "build", "--strict", "-q", "-d", str(tmp_path / "site")], cwd=ROOT,
                            capture_output=True, text=True, timeout=300,
                            env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
    assert result.returncode == 0, result.stdout + result.stderr
    site = tmp_path / "site"
    assert (site / "guides" / "tas" / "index.html").exists()
    # Offline: no page or stylesheet fetches fonts from the network.
    online = [str(path.relative_to(site)) for path in site.rglob("*") if path.suffix in (".html", ".css", ".js")
              and re.search(r"fonts\.(googleapis|gstatic)\.com", path.read_text(encoding="utf-8", errors="replace"))]
    assert not online, "these files fetch fonts: %s" % online
    # The search splits words (and searches) at `.` and `_`: an API's names are found by their last part.
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    separator = re.compile(index["config"]["separator"])
    words = set()
    for doc in index["docs"]:
        words.update(separator.split((doc["title"] + " " + doc["text"]).lower()))
    for query in ("readbyte", "read_u8", "memory.read_u8"):
        terms = [term for term in separator.split(query) if term]
        assert terms and all(term in words for term in terms), "a search for %r finds nothing (%s)" % (query, terms)
    assert "read_u8" not in separator.split("memory.read_u8")


def test_the_netplay_guide_names_every_result():
    # Each counter a session keeps reaches `--json` as netplay_NAME (lua/defaults/netplay.lua).
    source = open(os.path.join(ROOT, "lua", "retrolua", "netplay.lua"), encoding="utf-8").read()
    stats = re.search(r"self\.stats = \{(.*?)\}", source, re.S)
    assert stats, "no stats table in netplay.lua"
    names = re.findall(r"(\w+) = ", stats.group(1))
    assert "ignored" in names, names
    guide = open(os.path.join(ROOT, "docs", "guides", "netplay.md"), encoding="utf-8").read()
    missing = [name for name in names if "`netplay_%s`" % name not in guide]
    assert not missing, "docs/guides/netplay.md does not name these results: %s" % missing
    assert re.search(r"`netplay_ignored` counts", guide), "the guide does not say what netplay_ignored counts"


def test_no_page_cites_the_private_design_notes():
    citing = [os.path.relpath(path, ROOT) for path in documents() if "DESIGN" in open(path, encoding="utf-8").read()]
    assert not citing, "these pages cite DESIGN: %s" % citing
