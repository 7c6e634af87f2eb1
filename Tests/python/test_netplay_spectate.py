"""Netplay spectators (lua/retrolua/netplay_spectate.lua, netplay_watch.lua) and the session's movie
(netplay_movie.lua): a spectator waiting from before the game and one joining mid-game end on the
players' state; every side's `.rlm` replays to that state; a hostile spectator (inputs, acks of frames
never sent, packets before its cookie) changes nothing and gets no more than it sends before the cookie;
in the two-player Dodge (build/roms/dodge2p.nes) each side moves its own face.

Run: RETROLUA=$PWD/.build/debug/retrolua build/venv/bin/python -m pytest -q -p no:cacheprovider \
         Tests/python/test_netplay_spectate.py
"""

import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from test_netplay import (BINARY, DEMO, Side, cookie_of, demo_identity, fnv, free_port, header,  # noqa: E402
                          hello_of, input_packet)

pytestmark = pytest.mark.skipif(not (os.path.exists(BINARY) and os.path.exists(DEMO)),
                                reason="needs the built binary and build/roms/demo.nes (scripts/roms)")

NEED, READY = 5, 6
WATCH, FEED, WATCHED, OVER = 13, 14, 15, 16
FRAMES = 600


def input_script(directory, name, seed, mark=None):
    """Seeded random d-pad and A/B on the local pad; at frame `mark` a line on stderr says so."""
    path = os.path.join(directory, name)
    with open(path, "w") as out:
        out.write("""
local seed, frames, mark = %d, 0, %d
local names = { "right", "left", "up", "down", "a", "b" }
local pad = {}
event.on("frame_end", function()
  frames = frames + 1
  if frames == mark then io.stderr:write("AT-FRAME-MARK\\n") end
  seed = (seed * 1103515245 + 12345) %% 2147483648
  if (seed >> 16) %% 5 == 0 then
    pad = {}
    local bits = seed >> 20
    for index, name in ipairs(names) do pad[name] = (bits >> index) & 1 == 1 end
  end
  joypad.set_player(1, pad)
end)
""" % (seed, mark or -1))
    return path


def results(side, seconds=90):
    status, report, stderr = side.finish(seconds)
    assert status == 0, stderr[-3000:]
    return report["results"], stderr


def replay(movie, directory):
    """The RAM and state hashes a movie's playback ends on, and its length."""
    probe = os.path.join(directory, "end.lua")
    with open(probe, "w") as out:
        out.write('event.on("movie_end", function() emu.result("ram", memory.hash()); '
                  'emu.result("state", savestate.create():hash()) end)\n')
    done = subprocess.run([BINARY, "run", DEMO, "--core", "nestopia", "--headless", "--json", "--play-movie", movie,
                           "--script", probe], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, HOME=directory, XDG_CONFIG_HOME=directory + "/c"))
    report = json.loads([line for line in done.stdout.splitlines() if line.startswith("{")][-1])
    return report["results"]["ram"], report["results"]["state"], report["movie"]["length"]


def settings(directory, name):
    return dict(stop_after=FRAMES, check_interval=60, timeout=5, record=os.path.join(directory, name + ".rlm"))


def test_spectators_from_the_start_and_mid_game_end_on_the_players_state_and_every_movie_replays_to_it():
    scripts = tempfile.mkdtemp(prefix="netplay-spectate-")
    port = free_port()
    host = Side(settings(scripts, "host"), ["host:%d" % port], script=input_script(scripts, "h.lua", 11, mark=150))
    early = Side(settings(scripts, "early"), ["join", "127.0.0.1:%d" % port], extra=["--spectate"])
    sides = [host, early]
    try:
        assert host.wait_for("spectator 127.0.0.1", 60), host.stderr()
        joiner = Side(settings(scripts, "joiner"), ["join", "127.0.0.1:%d" % port],
                      script=input_script(scripts, "j.lua", 22))
        sides.append(joiner)
        assert host.wait_for("AT-FRAME-MARK", 60), host.stderr()
        late = Side(settings(scripts, "late"), ["join", "127.0.0.1:%d" % port], extra=["--spectate"])
        sides.append(late)
        ends = {name: results(side) for name, side in zip(["host", "early", "joiner", "late"], sides)}
        played = ends["host"][0]
        assert played["netplay_end"] == "finished %d frames" % FRAMES, played
        for name, (out, stderr) in ends.items():
            assert out["netplay_frames"] == FRAMES, (name, out)
            assert (out["netplay_state_hash"], out["netplay_ram_hash"]) == \
                (played["netplay_state_hash"], played["netplay_ram_hash"]), (name, out, stderr[-2000:])
        assert "watches from frame 0" in ends["host"][1]
        late_start = int(ends["host"][1].split("watches from frame ")[2].split()[0])
        assert late_start > 0, ends["host"][1]  # mid-game (the mark counts frames from before the session)
        for name in ["host", "joiner", "early", "late"]:
            ram, state, length = replay(os.path.join(scripts, name + ".rlm"), scripts)
            assert (state, ram) == (played["netplay_state_hash"], played["netplay_ram_hash"]), name
            assert length == (FRAMES - late_start if name == "late" else FRAMES), name
    finally:
        for side in sides:
            side.close()
        shutil.rmtree(scripts, ignore_errors=True)


def watch_of(identity, nonce, cookie=b""):
    core, version, sha1, options = identity
    return header(WATCH) + hello_of(core, version, sha1, fnv(options), options, nonce, cookie=cookie)[6:]


def received(sock, seconds):
    """Every datagram arriving within `seconds` (absence is all this is asked to show)."""
    out, deadline = [], time.monotonic() + seconds
    sock.settimeout(0.05)
    while time.monotonic() < deadline:
        try:
            out.append(sock.recv(65536))
        except socket.timeout:
            pass
    return out


def input_section(path):
    with open(path) as text:
        movie = text.read()
    buttons = [line.split()[1:] for line in movie.splitlines() if line.startswith("buttons ")][0]
    return movie.split("[input]\n")[1].split("[")[0], buttons


def test_a_hostile_spectator_changes_nothing_and_gets_no_more_than_it_sends_before_its_cookie():
    identity = demo_identity()
    scripts = tempfile.mkdtemp(prefix="netplay-spectate-")
    port = free_port()
    host = Side(settings(scripts, "host"), ["host:%d" % port], script=input_script(scripts, "h.lua", 5))
    hostile = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    stranger = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    hostile.bind(("127.0.0.1", 0))
    stranger.bind(("127.0.0.1", 0))
    target, nonce = ("127.0.0.1", port), 0x5EC7A70
    sides, stop = [host], threading.Event()
    try:
        assert host.wait_for("waiting for a player", 60), host.stderr()
        # Before its cookie: a watch hello gets only the cookie, no larger than itself.
        hello = watch_of(identity, nonce)
        cookie = None
        for _ in range(100):
            hostile.sendto(hello, target)
            replies = received(hostile, 0.1)
            assert all(len(reply) <= len(hello) for reply in replies), [len(reply) for reply in replies]
            cookie = next((cookie_of(reply) for reply in replies if cookie_of(reply)), None)
            if cookie:
                break
        assert cookie, host.stderr()
        # Requests, readies, acks and inputs from an address that never proved itself get nothing.
        for packet in [header(NEED) + struct.pack("<IBI", nonce, 1, 0), header(READY) + struct.pack("<I", nonce),
                       header(WATCHED) + struct.pack("<II", nonce, 10 ** 6),
                       input_packet(nonce, 0, 0, 0, [0xFFFF] * 32)]:
            stranger.sendto(packet, target)
        assert received(stranger, 0.5) == []
        hostile.sendto(watch_of(identity, nonce, cookie), target)
        assert host.wait_for("spectator 127.0.0.1", 30), host.stderr()

        def pester():
            # Every button pressed, for every frame, as inputs and as feeds; acks of frames never sent.
            frame = 0
            while not stop.is_set():
                masks = [0xFFFF] * 32
                for packet in [input_packet(nonce, 0, frame, frame, masks),
                               header(FEED) + struct.pack("<IIB", nonce, frame, 32) + b"\xff" * 128,
                               header(WATCHED) + struct.pack("<II", nonce, frame + 10 ** 6),
                               header(READY) + struct.pack("<I", nonce)]:
                    hostile.sendto(packet, target)
                frame = (frame + 8) % FRAMES
                time.sleep(0.005)

        pest = threading.Thread(target=pester, daemon=True)
        pest.start()
        joiner = Side(settings(scripts, "joiner"), ["join", "127.0.0.1:%d" % port],
                      script=input_script(scripts, "j.lua", 6))
        sides.append(joiner)
        played, _ = results(host)
        joined, _ = results(joiner)
        stop.set()
        pest.join(5)
        assert played["netplay_end"] == "finished %d frames" % FRAMES, played
        assert (joined["netplay_state_hash"], joined["netplay_ram_hash"]) == \
            (played["netplay_state_hash"], played["netplay_ram_hash"])
        host_inputs, buttons = input_section(os.path.join(scripts, "host.rlm"))
        joiner_inputs, _ = input_section(os.path.join(scripts, "joiner.rlm"))
        assert host_inputs == joiner_inputs
        # The players press only the d-pad, A and B: start or select anywhere would be the hostile's.
        for line in host_inputs.splitlines():
            for port_input in line.split("|")[1:3]:
                pressed = {name for name, mark in zip(buttons, port_input) if mark != "."}
                assert not pressed & {"start", "select", "x", "y", "l", "r"}, line
        ram, state, _ = replay(os.path.join(scripts, "host.rlm"), scripts)
        assert (state, ram) == (played["netplay_state_hash"], played["netplay_ram_hash"])
    finally:
        stop.set()
        hostile.close()
        stranger.close()
        for side in sides:
            side.close()
        shutil.rmtree(scripts, ignore_errors=True)


DODGE2P = os.path.join(os.path.dirname(DEMO), "dodge2p.nes")


def pad_script(directory, name, button):
    """Holds `button` on the local pad; each frame reports both players' x (dodge2p's $06 and $13)."""
    path = os.path.join(directory, name)
    with open(path, "w") as out:
        out.write("""
event.on("frame_end", function()
  joypad.set_player(1, { %s = true })
  emu.result("p1_x", memory.read_u8(0x06))
  emu.result("p2_x", memory.read_u8(0x13))
end)
""" % button)
    return path


@pytest.mark.skipif(not os.path.exists(DODGE2P), reason="needs build/roms/dodge2p.nes (scripts/build-roms)")
def test_in_the_two_player_dodge_each_side_moves_its_own_face():
    scripts = tempfile.mkdtemp(prefix="netplay-spectate-")
    port = free_port()
    session = dict(stop_after=120, check_interval=60, timeout=5)
    host = Side(session, ["host:%d" % port], rom=DODGE2P, script=pad_script(scripts, "h.lua", "right"))
    joiner = Side(session, ["join", "127.0.0.1:%d" % port], rom=DODGE2P, script=pad_script(scripts, "j.lua", "left"))
    try:
        played, _ = results(host)
        joined, _ = results(joiner)
        assert played["netplay_ram_hash"] == joined["netplay_ram_hash"]
        # Player 1 (the host) started at x 124 and went right; player 2 (the joiner) started at 156 and went left.
        for side in (played, joined):
            assert side["p1_x"] > 124 and side["p2_x"] < 156, side
    finally:
        host.close()
        joiner.close()
        shutil.rmtree(scripts, ignore_errors=True)
