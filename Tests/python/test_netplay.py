"""Rollback netplay (lua/retrolua/netplay.lua) between two headless `retrolua run --netplay` processes:
through a relay adding delay, jitter and loss both ways (0 to 200 ± 40 ms, the input delay and prediction
adapting), 3,600 frames of seeded random input on each side
end on the same state, RAM and picture; a side that writes its RAM is reported as a desync in `ram` within
one check interval and healed from the host's state (both then end identical), and one that keeps writing
fails the run on both sides; the handshake refuses other content, another core and core options that change emulation
(naming the option, both values and the fix, `--netplay-options host`, which then joins) while display-only
options join, and the host keeps listening; a hostile peer (garbage, oversized datagrams,
wrong nonces, replays, far-future frames, counts of 255, a flood) and a hostile host (a game of 2^31
bytes, garbage chunks) end nothing badly; kill -9 of the joiner ends the host's session on its own.

The three relay sessions (≈ 60 s each) start with the module and run while the other tests do.

Run: RETROLUA=$PWD/.build/debug/retrolua build/venv/bin/python -m pytest -q -p no:cacheprovider \
         Tests/python/test_netplay.py
"""

import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from netplay_relay import Relay  # noqa: E402
from processes import gone  # noqa: E402

BINARY = os.environ.get("RETROLUA", os.path.join(ROOT, ".build", "debug", "retrolua"))
DEMO = os.path.join(ROOT, "build", "roms", "demo.nes")
DODGE = os.path.join(ROOT, "build", "roms", "dodge.nes")
GB = os.path.join(ROOT, "build", "roms", "demo.gb")
FCEUMM = os.path.join(ROOT, "build", "cores", "fceumm_libretro.so")

pytestmark = pytest.mark.skipif(not (os.path.exists(BINARY) and os.path.exists(DEMO)),
                                reason="needs the built binary and build/roms/demo.nes (scripts/roms)")

# The wire format (lua/retrolua/netplay.lua).
PROTOCOL = 3
HELLO, REFUSE, WELCOME, CHUNK, NEED, READY, INPUT, BYE, COOKIE = range(1, 10)
CHUNK_SIZE = 1200


def header(kind, version=PROTOCOL):
    return struct.pack("<4sBB", b"RLNP", version, kind)


def input_packet(nonce, ack, sender_frame, first, masks, advantage=0, sent=0.0, echo=0.0, count=None):
    body = struct.pack("<IIIIhddB", nonce, ack, sender_frame, first, advantage, sent, echo,
                       len(masks) if count is None else count)
    return header(INPUT) + body + b"".join(struct.pack("<H", mask) for mask in masks)


def parse_input(data):
    """(nonce, ack, sender_frame, first, count) of an INPUT packet, or None."""
    if len(data) < 6 + 35 or data[:4] != b"RLNP" or data[5] != INPUT:
        return None
    nonce, ack, frame, first, _, _, _, count = struct.unpack_from("<IIIIhddB", data, 6)
    return nonce, ack, frame, first, count


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def random_input_script(directory, name, seed):
    """A user script pressing seeded random buttons (held a few frames) on the local pad."""
    path = os.path.join(directory, name)
    with open(path, "w") as out:
        out.write("""
local seed = %d
local names = { "right", "left", "up", "down", "a", "b" }
local pad = {}
event.on("frame_end", function()
  seed = (seed * 1103515245 + 12345) %% 2147483648
  if (seed >> 16) %% 5 == 0 then
    pad = {}
    local bits = seed >> 20
    for index, name in ipairs(names) do pad[name] = (bits >> index) & 1 == 1 end
  end
  joypad.set_player(1, pad)
end)
""" % seed)
    return path


class Side:
    """One `retrolua run --netplay` process with its own config/home, stdout and stderr in files."""

    def __init__(self, settings, netplay, rom=DEMO, core="nestopia", script=None, extra=()):
        self.dir = tempfile.mkdtemp(prefix="netplay-")
        config = os.path.join(self.dir, "config", "retrolua")
        os.makedirs(config)
        with open(os.path.join(config, "netplay.lua"), "w") as out:
            out.write("return { %s }\n" % ", ".join("%s = %r" % item for item in settings.items()))
        env = dict(os.environ, HOME=self.dir, XDG_CONFIG_HOME=os.path.join(self.dir, "config"),
                   XDG_DATA_HOME=os.path.join(self.dir, "data"), XDG_CACHE_HOME=os.path.join(self.dir, "cache"))
        args = [BINARY, "run", rom, "--core", core, "--headless", "--json", "--netplay"] + list(netplay)
        if script:
            args += ["--script", script]
        args += list(extra)
        self.out = open(os.path.join(self.dir, "stdout"), "w+")
        self.err = open(os.path.join(self.dir, "stderr"), "w+")
        self.process = subprocess.Popen(args, stdout=self.out, stderr=self.err, stdin=subprocess.DEVNULL, env=env)

    def stderr(self):
        with open(self.err.name) as text:
            return text.read()

    def wait_for(self, text, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if text in self.stderr():
                return True
            if self.process.poll() is not None:
                return text in self.stderr()
            time.sleep(0.05)
        return False

    def finish(self, seconds):
        """(exit status, the JSON line's results and frame, stderr) once the process ends."""
        try:
            status = self.process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError("the run did not end within %d s; stderr:\n%s" % (seconds, self.stderr()))
        with open(self.out.name) as text:
            lines = [line for line in text.read().splitlines() if line.startswith("{")]
        report = json.loads(lines[-1]) if lines else {}
        return status, report, self.stderr()

    def close(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.out.close()
        self.err.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def pair(settings, host_extra=(), join_extra=(), host_script=None, join_script=None, via=None):
    port = free_port()
    host = Side(settings, ["host:%d" % port], script=host_script, extra=host_extra)
    time.sleep(0.3)
    target = port
    relay = None
    if via is not None:
        relay = Relay(target=("127.0.0.1", port), **via).start()
        target = relay.port
    joiner = Side(settings, ["join", "127.0.0.1:%d" % target], script=join_script, extra=join_extra)
    return host, joiner, relay


# MARK: 1. through the relay (started with the module, checked by the last test)

# Each way: 0, 50 ± 10, 120 ± 24 and 200 ± 40 ms, 5 % loss. The delay and prediction adapt (retrolua.netplay_delay);
# stall frames are printed, not asserted (they depend on the machine's speed): scripts/bench measures them.
RELAY_CASES = {0: dict(delay=0.0, jitter=0.0), 50: dict(delay=0.05, jitter=0.01), 120: dict(delay=0.12, jitter=0.024),
               200: dict(delay=0.2, jitter=0.04)}
RELAY_FRAMES = 3600


@pytest.fixture(scope="module", autouse=True)
def relay_sessions():
    scripts = tempfile.mkdtemp(prefix="netplay-scripts-")
    outcome = {}

    def run(milliseconds, via):
        host_script = random_input_script(scripts, "host%d.lua" % milliseconds, 1000 + milliseconds)
        join_script = random_input_script(scripts, "join%d.lua" % milliseconds, 7777 + milliseconds)
        settings = dict(stop_after=RELAY_FRAMES, check_interval=60, timeout=5)
        host, joiner, relay = pair(settings, host_script=host_script, join_script=join_script,
                                   via=dict(via, loss=0.05, seed=milliseconds + 1))
        try:
            outcome[milliseconds] = dict(host=host.finish(150), joiner=joiner.finish(150), dropped=relay.dropped)
        except AssertionError as error:
            outcome[milliseconds] = dict(error=str(error))
        finally:
            relay.stop()
            host.close()
            joiner.close()

    threads = [threading.Thread(target=run, args=(ms, via), daemon=True) for ms, via in RELAY_CASES.items()]
    for thread in threads:
        thread.start()
    yield (threads, outcome)
    for thread in threads:
        thread.join(timeout=200)
    shutil.rmtree(scripts, ignore_errors=True)


# MARK: 2. forced desync

def ram_writer(directory, frames):
    """A joiner's script adding 0x55 to RAM byte 0x10 at each of its frames in `frames` (a range)."""
    path = os.path.join(directory, "cheat.lua")
    with open(path, "w") as out:
        out.write("""
local frames = 0
event.on("frame_end", function()
  frames = frames + 1
  if frames >= %d and frames < %d then memory.write_u8(0x10, (memory.read_u8(0x10) + 0x55) %% 256) end
end)
""" % (frames.start, frames.stop))
    return path


def desync_session(frames, stop_after):
    scripts = tempfile.mkdtemp(prefix="netplay-scripts-")
    host, joiner, _ = pair(dict(stop_after=stop_after, check_interval=60, timeout=5),
                           join_script=ram_writer(scripts, frames))
    try:
        return host.finish(90), joiner.finish(90)
    finally:
        host.close()
        joiner.close()
        shutil.rmtree(scripts, ignore_errors=True)


def test_a_forced_desync_is_named_healed_from_the_hosts_state_and_the_game_goes_on_identical():
    # The writes last a few frames so a rollback's replay (which runs no script) cannot undo them all.
    (host_status, host_report, host_err), (join_status, join_report, join_err) = desync_session(range(560, 566), 900)
    here, there = host_report.get("results", {}), join_report.get("results", {})
    assert host_status == 0 and join_status == 0, (host_err, join_err)
    for results in (here, there):
        assert results["netplay_heals"] == 1, (here, there)
        # The joiner's script counts its frames from before the session began: the writes end before
        # session frame 566, and the first check after them is at most one interval later.
        assert 480 <= results["netplay_desync_frame"] <= 660, results
        assert results["netplay_desync_domains"] == "system_ram", results
        assert results["netplay_heal_bytes"] > 0 and results["netplay_frames"] == 900, results
    assert "desync at frame" in host_err and "in system_ram" in host_err, host_err
    assert "healed the desync" in host_err + join_err
    for key in ("netplay_state_hash", "netplay_ram_hash"):
        assert here[key] == there[key], (key, here, there)
    assert host_report["frame"]["hash"] == join_report["frame"]["hash"]


def test_a_desync_that_comes_back_after_healing_fails_the_run_on_both_sides():
    (host_status, host_report, host_err), (join_status, join_report, join_err) = desync_session(range(600, 10**6), 1500)
    assert host_status != 0 and join_status != 0, (host_err, join_err)
    here, there = host_report.get("results", {}), join_report.get("results", {})
    assert "could not be healed" in here.get("netplay_end", "") + there.get("netplay_end", ""), (here, there)
    assert here["netplay_heals"] == 1, here
    assert here["netplay_frames"] < 1500 and there["netplay_frames"] < 1500, (here, there)


def test_rollbacks_on_a_core_whose_states_keep_sound_bookkeeping_are_no_desync():
    """mGBA's Game Boy states hold sound bookkeeping a load does not restore (netplay-check says
    "deterministic in memory"): after a rollback the two sides' states differ in those bytes while the
    game does not. The check compares memory, so such a session reports no desync."""
    if not os.path.exists(GB):
        pytest.skip("build/roms/demo.gb is missing (scripts/roms)")
    scripts = tempfile.mkdtemp(prefix="netplay-scripts-")
    settings = dict(stop_after=900, check_interval=60, timeout=5, delay=0)
    port = free_port()
    host = Side(settings, ["host:%d" % port], rom=GB, core="mgba",
                script=random_input_script(scripts, "host.lua", 11))
    time.sleep(0.3)
    joiner = Side(settings, ["join", "127.0.0.1:%d" % port], rom=GB, core="mgba",
                  script=random_input_script(scripts, "join.lua", 29))
    try:
        host_status, host_report, host_err = host.finish(120)
        join_status, join_report, join_err = joiner.finish(120)
    finally:
        host.close()
        joiner.close()
        shutil.rmtree(scripts, ignore_errors=True)
    assert host_status == 0 and join_status == 0, (host_err, join_err)
    here, there = host_report["results"], join_report["results"]
    assert here["netplay_rollbacks"] + there["netplay_rollbacks"] > 0, (here, there)
    assert here["netplay_checks"] > 0 and there["netplay_checks"] > 0, (here, there)
    assert "netplay_desync_frame" not in here and "netplay_desync_frame" not in there, (here, there)
    assert "desync" not in host_err + join_err
    assert here["netplay_ram_hash"] == there["netplay_ram_hash"], (here, there)
    assert host_report["frame"]["hash"] == join_report["frame"]["hash"]


# MARK: 3. handshake refusals; the host keeps listening

def refused(joiner, seconds=30):
    status, report, err = joiner.finish(seconds)
    return status, report.get("results", {}).get("netplay_end", ""), err


def test_the_host_refuses_other_content_core_and_options_and_keeps_listening():
    port = free_port()
    settings = dict(stop_after=300, check_interval=60, timeout=5)
    host = Side(settings, ["host:%d" % port])
    address = ["join", "127.0.0.1:%d" % port]
    sides = [host]
    try:
        assert host.wait_for("waiting for a player", 30), host.stderr()

        if os.path.exists(DODGE):
            other = Side(settings, address, rom=DODGE)
            sides.append(other)
            status, reason, err = refused(other)
            assert status == 1, err
            assert "SHA-1" in reason and "other content" in reason, reason

        if os.path.exists(FCEUMM):
            fceumm = Side(settings, address, core=FCEUMM)
            sides.append(fceumm)
            status, reason, err = refused(fceumm)
            assert status == 1, err
            assert "core" in reason and "nestopia" in reason, reason

        # An option that changes emulation refuses, naming it, both values and the fix.
        options = Side(settings, address, extra=["--option", "nestopia_overclock=2x"])
        sides.append(options)
        status, reason, err = refused(options)
        assert status == 1, err
        assert "nestopia_overclock (host: 1x, joiner: 2x)" in reason, reason
        assert "--netplay-options host" in reason, reason
        assert "nestopia_overclock" in host.stderr() and "--netplay-options host" in host.stderr()

        # Display-only options (a palette, the overscan mask; an option of the core's "audio" category)
        # may differ: the join goes through.
        assert host.process.poll() is None, host.stderr()
        good = Side(settings, address, extra=["--option", "nestopia_palette=consumer", "--option",
                                              "nestopia_overscan_h=enabled", "--option", "nestopia_audio_type=mono"])
        sides.append(good)
        status, report, err = good.finish(60)
        host_status, host_report, host_err = host.finish(60)
        assert status == 0 and host_status == 0, (err, host_err)
        assert report["results"]["netplay_frames"] == host_report["results"]["netplay_frames"] == 300
        assert report["results"]["netplay_state_hash"] == host_report["results"]["netplay_state_hash"]
        assert host_err.count("refused") >= 2, host_err
    finally:
        for side in sides:
            side.close()


def test_a_joiner_with_netplay_options_host_takes_the_hosts_options_and_plays():
    host, joiner, _ = pair(dict(stop_after=120, check_interval=60, timeout=5),
                           join_extra=["--option", "nestopia_overclock=2x", "--netplay-options", "host"])
    try:
        status, report, err = joiner.finish(60)
        host_status, host_report, host_err = host.finish(60)
    finally:
        host.close()
        joiner.close()
    assert status == 0 and host_status == 0, (err, host_err)
    assert "taking the host's core options for this session: nestopia_overclock=1x" in err, err
    assert report["results"]["netplay_frames"] == host_report["results"]["netplay_frames"] == 120
    assert report["results"]["netplay_state_hash"] == host_report["results"]["netplay_state_hash"]


# MARK: 4. hostile peers

def hello_of(core, version, sha1, options_digest, options, nonce, protocol=PROTOCOL, cookie=b""):
    def s1(text):
        return struct.pack("<B", len(text)) + text
    return (header(HELLO, protocol) + struct.pack("<I", nonce) + s1(core) + s1(version) + s1(sha1)
            + struct.pack("<I", options_digest) + struct.pack("<H", len(options)) + options + s1(cookie))


def cookie_of(data):
    """The cookie of a COOKIE packet, or None."""
    if len(data) == 26 and data[:4] == b"RLNP" and data[5] == COOKIE:
        return data[10:26]
    return None


def proven_hello(sock, address, identity, nonce, seconds=10):
    """Says HELLO from `sock`, echoes the host's cookie and returns the HELLO that carries it."""
    core, version, sha1, options = identity
    sock.settimeout(0.2)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        sock.sendto(hello_of(core, version, sha1, fnv(options), options, nonce), address)
        try:
            cookie = cookie_of(sock.recv(65536))
        except socket.timeout:
            continue
        if cookie:
            hello = hello_of(core, version, sha1, fnv(options), options, nonce, cookie=cookie)
            sock.sendto(hello, address)
            return hello
    raise AssertionError("no cookie from the host")


def fnv(text):
    value = 2166136261
    for byte in text:
        value = ((value ^ byte) * 16777619) & 0xFFFFFFFF
    return value


def demo_identity():
    """What a nestopia joiner of demo.nes says in its HELLO: core, version, SHA-1, deciding options text."""
    scripts = tempfile.mkdtemp(prefix="netplay-scripts-")
    try:
        probe = os.path.join(scripts, "options.lua")
        with open(probe, "w") as out:
            out.write("""
print("OPTIONS<" .. require("retrolua.netplay_options").text() .. ">OPTIONS")
""")
        done = subprocess.run([BINARY, "run", DEMO, "--core", "nestopia", "--headless", "--frames", "1", "--json",
                               "--script", probe], capture_output=True, text=True, timeout=60,
                              env=dict(os.environ, HOME=scripts, XDG_CONFIG_HOME=scripts + "/c",
                                       XDG_DATA_HOME=scripts + "/d"))
        text = done.stdout + done.stderr
        options = text.split("OPTIONS<")[1].split(">OPTIONS")[0]
        report = json.loads([line for line in done.stdout.splitlines() if line.startswith("{")][-1])
        return report["core"].encode(), report["core_version"].encode(), report["content_sha1"].encode(), options.encode()
    finally:
        shutil.rmtree(scripts, ignore_errors=True)


class FakeJoiner:
    """A Python peer that joins a host, takes its game and then answers with inputs (all zero)."""

    def __init__(self, port, identity, nonce=0x1234ABCD):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.02)
        self.host = ("127.0.0.1", port)
        self.nonce = nonce
        self.identity = identity
        self.host_ack = 0          # our inputs the host has (its ack)
        self.have = 0              # the host's inputs we have (contiguous count)
        self.host_frame = 0
        self.sent = []             # our earlier valid packets, to replay

    def send(self, data):
        try:
            self.sock.sendto(data, self.host)
        except OSError:
            pass  # a full socket buffer during the flood

    def handshake(self, seconds=20):
        core, version, sha1, options = self.identity
        hello = hello_of(core, version, sha1, fnv(options), options, self.nonce)
        deadline = time.monotonic() + seconds
        size = chunks = None
        parts = {}
        last = 0
        while time.monotonic() < deadline:
            now = time.monotonic()
            if now - last > 0.05:
                last = now
                if size is None:
                    self.send(hello)
                else:
                    wanted = [i for i in range(chunks) if i not in parts][:64]
                    if not wanted:
                        self.send(header(READY) + struct.pack("<I", self.nonce))
                        return size
                    self.send(header(NEED) + struct.pack("<IB", self.nonce, len(wanted))
                              + b"".join(struct.pack("<I", i) for i in wanted))
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                continue
            kind = data[5]
            if cookie_of(data) and size is None:
                hello = hello_of(core, version, sha1, fnv(options), options, self.nonce, cookie=cookie_of(data))
                self.send(hello)
            elif kind == WELCOME and size is None:
                _, size, chunks = struct.unpack_from("<III", data, 6)
            elif kind == CHUNK and size is not None:
                _, index, length = struct.unpack_from("<IIH", data, 6)
                parts[index] = data[16:16 + length]
            elif kind == REFUSE:
                raise AssertionError("refused: %r" % data[12:])
        raise AssertionError("no game from the host")

    def pump(self, stop_after, seconds=0.05):
        """Receives the host's inputs and sends ours (zero) for what it lacks, up to `stop_after`."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                data = None
            if data:
                parsed = parse_input(data)
                if parsed and parsed[0] == self.nonce:
                    _, ack, frame, first, count = parsed
                    self.host_ack = max(self.host_ack, ack)
                    self.host_frame = max(self.host_frame, frame)
                    if first <= self.have:
                        self.have = max(self.have, first + count)
            first = self.host_ack
            count = max(0, min(32, stop_after - first, self.host_frame + 8 - first))
            packet = input_packet(self.nonce, self.have, self.host_frame, first, [0] * count)
            self.send(packet)
            if len(self.sent) < 50:
                self.sent.append(packet)

    def close(self):
        self.sock.close()


def test_a_hostile_joiner_neither_crashes_nor_hangs_the_host():
    identity = demo_identity()
    port = free_port()
    stop_after = 900
    host = Side(dict(stop_after=stop_after, check_interval=60, timeout=5), ["host:%d" % port])
    peer = FakeJoiner(port, identity)
    stranger = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        assert host.wait_for("waiting for a player", 30), host.stderr()
        # While it listens: garbage, oversized datagrams, a HELLO cut short, packets of other kinds.
        for data in [b"", b"x", b"RLNP", b"RLNP\x01", b"RLNP\x02\x01" + b"\0" * 60, b"\xff" * 2000,
                     b"RLNP\x01\x07" + b"\xff" * 2000, b"RLNP\x01\x01" + b"\xff" * 3,
                     b"RLNP\x01\x01" + b"\x00" * 65000, header(INPUT) + b"\0" * 40]:
            try:
                stranger.sendto(data, ("127.0.0.1", port))
            except OSError:
                pass
        time.sleep(0.3)
        assert host.process.poll() is None, host.stderr()

        peer.handshake()
        peer.pump(stop_after, 1.0)
        assert host.process.poll() is None, host.stderr()
        nonce, ack, frame = peer.nonce, peer.have, peer.host_frame
        hostile = [
            b"\x00" * 2000,
            header(INPUT) + b"\xff" * 2000,
            header(INPUT) + b"\x00" * 65000,
            input_packet(nonce ^ 1, ack, frame, peer.host_ack, [0xFFFF] * 8),           # wrong nonce
            input_packet(nonce, ack, frame, 2 ** 31, [0xFFFF] * 4),                     # far future
            input_packet(nonce, ack, 2 ** 31, peer.host_ack, [0]),                      # sender far ahead
            input_packet(nonce, ack, 2 ** 32 - 1, 2 ** 32 - 1, [0xFFFF] * 4),          # wraps around
            input_packet(nonce, ack, frame, peer.host_ack, [0xFFFF] * 4, count=255),    # claims 255, has 4
            input_packet(nonce, ack, frame, peer.host_ack, [0xFFFF] * 255),             # really 255
            input_packet(nonce, 2 ** 32 - 1, frame, peer.host_ack, [0]),                # acks the future
            input_packet(nonce, ack, frame, 0, [0xFFFF] * 8),                           # contradicts old input
            input_packet(nonce, ack, frame, peer.host_ack, [0], advantage=-32768,
                         sent=float("nan"), echo=float("inf")),
            input_packet(nonce, ack, frame, peer.host_ack, [0]) + struct.pack("<I", 2 ** 31) + b"z" * 40,
            header(BYE) + struct.pack("<I", nonce ^ 1) + b"\x05hello",                  # bye, wrong nonce
            header(BYE) + struct.pack("<I", nonce),                                     # bye cut short
            header(NEED) + struct.pack("<IB", nonce, 255),
            header(WELCOME) + struct.pack("<III", nonce, 2 ** 31, 1),
            header(CHUNK) + struct.pack("<IIH", nonce, 0, 5) + b"abcde",
            header(REFUSE) + struct.pack("<IH", nonce, 3) + b"no!",
        ]
        for round_ in range(3):
            for data in hostile + peer.sent[:20]:                                        # and replays
                peer.send(data)
            peer.pump(stop_after, 0.5)
        # A third player trying to join gets refused, not the session.
        core, version, sha1, options = identity
        stranger.sendto(hello_of(core, version, sha1, fnv(options), options, 99), ("127.0.0.1", port))
        # A flood: 20,000 datagrams in a burst, valid-looking and not.
        flood = [input_packet(nonce, ack, frame, peer.host_ack, [0xFFFF] * 32), b"\xab" * 1400,
                 input_packet(nonce ^ 7, 0, 0, 0, [1] * 32)]
        for index in range(20000):
            peer.send(flood[index % 3])
        assert host.process.poll() is None, host.stderr()
        deadline = time.monotonic() + 60
        while host.process.poll() is None and time.monotonic() < deadline:
            peer.pump(stop_after, 0.05)
        status, report, err = host.finish(10)
        results = report["results"]
        assert status == 0, err
        assert results["netplay_end"] == "finished %d frames" % stop_after, results
        assert results["netplay_frames"] == stop_after
        assert results["netplay_ignored"] > 0 and results["netplay_conflicts"] > 0, results
        assert "netplay_desync_frame" not in results, results
    finally:
        peer.close()
        stranger.close()
        host.close()


def test_a_listening_host_survives_garbage_and_ends_cleanly_on_sigterm():
    port = free_port()
    host = Side(dict(timeout=5), ["host:%d" % port])
    try:
        assert host.wait_for("waiting for a player", 30), host.stderr()
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            for index in range(20000):
                try:
                    sock.sendto([b"RLNP\x01\x01" + os.urandom(40), os.urandom(1400), b"RLNP\x01\x07" * 300][index % 3],
                                ("127.0.0.1", port))
                except OSError:
                    pass
            time.sleep(0.5)
            assert host.process.poll() is None, host.stderr()
            # Still answering: a HELLO of other content gets the cookie, and echoing it a refusal.
            sock.settimeout(0.5)
            refusal = None
            for _ in range(20):
                try:
                    proven_hello(sock, ("127.0.0.1", port), (b"nestopia", b"x", b"0" * 40, b""), 5, seconds=2)
                    refusal = sock.recv(65536)
                    if refusal[5] == REFUSE:
                        break
                except (socket.timeout, AssertionError):
                    continue
            assert refusal and refusal[5] == REFUSE, host.stderr()
        host.process.send_signal(signal.SIGTERM)
        status, _, err = host.finish(20)
        assert status == 143, err
    finally:
        host.close()


def test_a_joiner_of_another_protocol_version_is_told_why_in_its_own_version():
    identity = demo_identity()
    port = free_port()
    host = Side(dict(timeout=5), ["host:%d" % port])
    try:
        assert host.wait_for("waiting for a player", 30), host.stderr()
        core, version, sha1, options = identity
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as old:
            old.settimeout(5)
            # Protocol 1 (whose check hashed savestates): the same HELLO layout, the old version byte.
            old.sendto(hello_of(core, version, sha1, fnv(options), options, 7, protocol=1), ("127.0.0.1", port))
            refusal = old.recv(65536)
        assert refusal[:6] == header(REFUSE, 1), refusal[:6]
        reason = refusal[12:].decode()
        assert "protocol %d, you 1" % PROTOCOL in reason and "same Retrolua version" in reason, reason
        assert host.process.poll() is None and "joins" not in host.stderr(), host.stderr()
    finally:
        host.close()


def test_a_joiner_that_says_hello_and_vanishes_leaves_the_host_listening():
    identity = demo_identity()
    port = free_port()
    settings = dict(stop_after=120, check_interval=60, timeout=1)
    host = Side(settings, ["host:%d" % port])
    sides = [host]
    try:
        assert host.wait_for("waiting for a player", 30), host.stderr()
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as ghost:
            proven_hello(ghost, ("127.0.0.1", port), identity, 42)
            assert host.wait_for("joins; sending the game", 10), host.stderr()
        # The host gives up on it after 3 × timeout and listens again.
        assert host.wait_for("did not take the game; listening again", 20), host.stderr()
        good = Side(settings, ["join", "127.0.0.1:%d" % port])
        sides.append(good)
        status, report, err = good.finish(60)
        host_status, host_report, host_err = host.finish(60)
        assert status == 0 and host_status == 0, (err, host_err)
        assert report["results"]["netplay_state_hash"] == host_report["results"]["netplay_state_hash"]
        assert host_report["results"]["netplay_frames"] == 120
    finally:
        for side in sides:
            side.close()


class FakeHost:
    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.05)
        self.port = self.sock.getsockname()[1]

    def hello(self, seconds=30):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                data, source = self.sock.recvfrom(65536)
            except socket.timeout:
                continue
            if len(data) >= 10 and data[5] == HELLO:
                return struct.unpack_from("<I", data, 6)[0], source
        raise AssertionError("no HELLO")

    def close(self):
        self.sock.close()


def test_a_hostile_host_ends_the_joiner_with_a_message():
    settings = dict(timeout=3, connect_timeout=20)
    # A WELCOME claiming a game of 2^31 bytes.
    fake = FakeHost()
    joiner = Side(settings, ["join", "127.0.0.1:%d" % fake.port])
    try:
        nonce, source = fake.hello()
        size = 2 ** 31
        fake.sock.sendto(header(WELCOME) + struct.pack("<III", nonce, size, (size + CHUNK_SIZE - 1) // CHUNK_SIZE),
                         source)
        status, report, err = joiner.finish(30)
        assert status == 1, err
        assert "2147483648 bytes" in report.get("results", {}).get("netplay_end", ""), err
    finally:
        joiner.close()
        fake.close()

    # A WELCOME, then only garbage chunks: the joiner gives up after `timeout`.
    fake = FakeHost()
    joiner = Side(settings, ["join", "127.0.0.1:%d" % fake.port])
    try:
        nonce, source = fake.hello()
        size = 30000
        chunks = (size + CHUNK_SIZE - 1) // CHUNK_SIZE
        fake.sock.sendto(header(WELCOME) + struct.pack("<III", nonce, size, chunks), source)
        garbage = [header(CHUNK) + struct.pack("<IIH", nonce, chunks + 5, 10) + b"x" * 10,
                   header(CHUNK) + struct.pack("<IIH", nonce, 0, 7) + b"x" * 7,
                   header(CHUNK) + struct.pack("<IIH", nonce, 0, 1200) + b"x" * 3,
                   header(CHUNK) + struct.pack("<IIH", nonce ^ 1, 0, 1200) + b"x" * 1200,
                   header(CHUNK) + struct.pack("<II", nonce, 2 ** 32 - 1),
                   b"RLNP\x01\x04",
                   os.urandom(1400)]
        deadline = time.monotonic() + 20
        while joiner.process.poll() is None and time.monotonic() < deadline:
            for data in garbage:
                try:
                    fake.sock.sendto(data, source)
                except OSError:
                    pass
            time.sleep(0.01)
        status, report, err = joiner.finish(10)
        assert status == 1, err
        assert "stopped sending" in report.get("results", {}).get("netplay_end", ""), err
    finally:
        joiner.close()
        fake.close()


# MARK: 5. disconnect

def test_kill_9_of_the_joiner_ends_the_hosts_session():
    host, joiner, _ = pair(dict(check_interval=60, timeout=3))
    try:
        assert joiner.wait_for("playing with", 30), joiner.stderr()
        assert host.wait_for("playing with", 10), host.stderr()
        time.sleep(1.5)
        joiner.process.kill()
        joiner.process.wait()
        status, report, err = host.finish(30)
        assert status == 0, err
        assert "no packet" in report.get("results", {}).get("netplay_end", ""), err
        assert "no packet" in err
        assert report["results"]["netplay_frames"] > 0
    finally:
        host.close()
        joiner.close()


# MARK: 1 (checked last: the sessions started with the module)

SHOWN = ("netplay_end", "netplay_rollbacks", "netplay_max_rollback", "netplay_checks", "netplay_ping_ms",
         "netplay_stall_frames", "netplay_delay", "netplay_prediction", "netplay_delay_changes")


def test_seeded_random_input_through_a_lossy_delaying_relay_ends_on_the_same_state(relay_sessions):
    threads, outcome = relay_sessions
    for thread in threads:
        thread.join(timeout=200)
    failures = []
    for milliseconds in RELAY_CASES:
        run = outcome.get(milliseconds)
        if run is None or "error" in run:
            failures.append("%d ms: %s" % (milliseconds, run))
            continue
        (host_status, host, host_err), (join_status, joiner, join_err) = run["host"], run["joiner"]
        h, j = host.get("results", {}), joiner.get("results", {})
        print("%d ms: dropped %d; host %s; joiner %s" % (milliseconds, run["dropped"], {
            k: h.get(k) for k in SHOWN}, {k: j.get(k) for k in SHOWN}))
        problems = []
        if host_status != 0 or join_status != 0:
            problems.append("exit %s/%s" % (host_status, join_status))
        for side in (h, j):
            if "finished %d frames" % RELAY_FRAMES not in side.get("netplay_end", ""):
                problems.append("end %r" % side.get("netplay_end"))
            if side.get("netplay_frames") != RELAY_FRAMES:
                problems.append("frames %r" % side.get("netplay_frames"))
            if "netplay_desync_frame" in side:
                problems.append("desync at %r" % side["netplay_desync_frame"])
            if not side.get("netplay_checks"):
                problems.append("no hash checks")
        for key in ("netplay_state_hash", "netplay_ram_hash"):
            if h.get(key) != j.get(key):
                problems.append("%s differs" % key)
        if host.get("frame", {}).get("hash") != joiner.get("frame", {}).get("hash"):
            problems.append("frame.hash differs")
        if milliseconds > 0:
            if not (h.get("netplay_rollbacks", 0) > 0 and j.get("netplay_rollbacks", 0) > 0):
                problems.append("no rollbacks (%r, %r)" % (h.get("netplay_rollbacks"), j.get("netplay_rollbacks")))
            if run["dropped"] == 0:
                problems.append("the relay dropped nothing")
        if problems:
            failures.append("%d ms: %s\nhost %s\n%s\njoiner %s\n%s" % (milliseconds, problems, h, host_err[-2000:],
                                                                     j, join_err[-2000:]))
    assert not failures, "\n\n".join(failures)
