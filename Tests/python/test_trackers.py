"""The tools people run beside the emulator, as they connect: a UAT tracker (PopTracker's protocol, JSON over a
WebSocket, with the `websockets` client from PyPI) syncing variables a pack script defines (lua/retrolua/uat.lua),
hostile WebSocket peers against that endpoint, and a client of Archipelago's BizHawk connector protocol (written
here from its published message format) driving a connector-shaped script of our own
(Tests/Fixtures/connectors/connector_bizhawk.lua) through every request on NES, GB and GBA cores.

Run: RETROLUA=$PWD/.build/debug/retrolua build/venv/bin/python -m pytest -q -p no:cacheprovider \
     Tests/python/test_trackers.py
"""

import asyncio
import base64
import hashlib
import json
import os
import random
import shutil
import socket
import subprocess
import tempfile
import time

import pytest
import websockets

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("RETROLUA", os.path.join(ROOT, ".build", "debug", "retrolua"))
ROMS = os.path.join(ROOT, "build", "roms")
CORES = os.path.join(ROOT, "build", "cores")
CONNECTOR = os.path.join(ROOT, "Tests", "Fixtures", "connectors", "connector_bizhawk.lua")

pytestmark = pytest.mark.skipif(not (os.path.exists(BINARY) and os.path.exists(os.path.join(ROMS, "demo.nes"))),
                                reason="needs the built binary and build/roms (scripts/roms)")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Run:
    """One headless `retrolua run` with a script, its own home, stderr in a file; killed at the end."""

    def __init__(self, rom, script, core=None, extra=("--allow-net",), layer=None):
        self.dir = tempfile.mkdtemp(prefix="trackers-")
        env = dict(os.environ, HOME=self.dir, XDG_CONFIG_HOME=os.path.join(self.dir, "config"),
                   XDG_DATA_HOME=os.path.join(self.dir, "data"), XDG_CACHE_HOME=os.path.join(self.dir, "cache"))
        self.script = os.path.join(self.dir, os.path.basename(script[0]))
        with open(self.script, "w") as out:
            out.write(script[1])
        args = [BINARY, "run", os.path.join(ROMS, rom), "--headless"]
        if core:
            args += ["--core", core]
        args += ["--script", (layer + ":" if layer else "") + self.script] + list(extra)
        self.err = open(os.path.join(self.dir, "stderr"), "w+")
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=self.err, stdin=subprocess.DEVNULL,
                                        env=env)

    def stderr(self):
        with open(self.err.name, errors="replace") as text:
            return text.read()

    def alive(self):
        return self.process.poll() is None

    def wait_for(self, text, seconds=60):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if text in self.stderr():
                return True
            if not self.alive():
                break
            time.sleep(0.05)
        return text in self.stderr()

    def close(self):
        if self.alive():
            self.process.kill()
        self.process.wait()
        self.err.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def connect(port, seconds=60, run=None):
    """A TCP connection to 127.0.0.1:port, retried until the script listens (it starts with the first frame)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=30)
        except OSError:
            if time.monotonic() > deadline or (run and not run.alive()):
                raise AssertionError("nothing listens on %d; stderr:\n%s" % (port, run.stderr() if run else ""))
            time.sleep(0.05)


# --- UAT ---------------------------------------------------------------------------------------------------------

PACK = """
local uat = require("retrolua.uat")
local frames = 0
uat.define("Frame", function() return frames // 10 end)
uat.define("Sword", 2)
uat.define("Items", { "bow", "hookshot" })
uat.define("Nothing", nil)
uat.define("Big", function() return string.rep("x", BIG) end)
event.on("frame_end", function() frames = frames + 1 end)
local server = assert(uat.serve { bind = "127.0.0.1:PORT", name = "Test pack", version = "1.2" })
print("UAT on " .. server.address())
"""


@pytest.fixture
def uat_run():
    runs = []

    def start(big=1, extra=("--allow-net",)):
        port = free_port()
        run = Run("demo.nes", ("pack.lua", PACK.replace("PORT", str(port)).replace("BIG", str(big))), extra=extra)
        runs.append(run)
        return run, port

    yield start
    for run in runs:
        run.close()


async def uat_session(port, run):
    deadline = time.monotonic() + 60
    while True:
        try:
            return await websockets.connect("ws://127.0.0.1:%d" % port, max_size=None, open_timeout=30)
        except OSError:
            if time.monotonic() > deadline or not run.alive():
                raise AssertionError("UAT endpoint not up; stderr:\n" + run.stderr())
            await asyncio.sleep(0.05)


def test_a_tracker_syncs_a_packs_variables_and_sees_them_change(uat_run):
    run, port = uat_run()

    async def track():
        ws = await uat_session(port, run)
        info = json.loads(await ws.recv())
        assert info == [{"cmd": "Info", "protocol": 0, "name": "Test pack", "version": "1.2", "features": [],
                         "slots": []}]
        await ws.send(json.dumps([{"cmd": "Sync"}]))
        synced = {v["name"]: v["value"] for v in json.loads(await ws.recv())}
        assert synced["Sword"] == 2 and synced["Items"] == ["bow", "hookshot"] and synced["Nothing"] is None
        assert synced["Big"] == "x" and isinstance(synced["Frame"], int)
        # Frame counts up every 10 frames: the next packets are pushed changes of it alone
        first = synced["Frame"]
        for _ in range(3):
            change = json.loads(await ws.recv())
            assert [v["name"] for v in change] == ["Frame"]
            assert change[0]["value"] > first
            first = change[0]["value"]
        # unknown commands, bad slots and malformed commands get ErrorReply; the connection stays
        await ws.send(json.dumps([{"cmd": "HelloWorld"}, {"cmd": "Sync", "slot": "Player 9"}, {"nocmd": 1}]))
        while True:
            reply = json.loads(await ws.recv())
            if reply[0]["cmd"] == "ErrorReply":
                break
        assert reply[0] == {"cmd": "ErrorReply", "name": "HelloWorld", "reason": "unknown cmd"}
        assert reply[1]["name"] == "Sync" and reply[1]["argument"] == "slot" and reply[1]["reason"] == "bad value"
        assert reply[2]["reason"] == "missing argument"
        pong = await ws.ping(b"hello")
        await asyncio.wait_for(pong, 30)
        # a message that is not JSON closes the connection, as the protocol says
        await ws.send("this is not json")
        with pytest.raises(websockets.ConnectionClosed):
            while True:
                await ws.recv()
        assert ws.close_code == 1003
        # and the next tracker is served
        again = await uat_session(port, run)
        assert json.loads(await again.recv())[0]["cmd"] == "Info"
        await again.close()

    asyncio.run(track())
    assert run.alive(), run.stderr()


def test_without_the_network_permission_the_pack_is_told_which_flag(uat_run):
    run, _ = uat_run(extra=())
    assert run.wait_for("--allow-net"), run.stderr()


def raw_handshake(port, run, key=None, extra=b""):
    sock = connect(port, run=run)
    key = key if key is not None else base64.b64encode(os.urandom(16)).decode()
    sock.sendall(("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % key).encode() + extra)
    return sock, key


def read_head(sock):
    """The server's handshake answer, read a byte at a time so the frames after it stay in the socket."""
    data = b""
    while not data.endswith(b"\r\n\r\n"):
        byte = sock.recv(1)
        if not byte:
            break
        data += byte
    return data


def read_until_closed(sock):
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk


def masked(opcode, payload, fin=True, mask=True, rsv=0):
    first = (0x80 if fin else 0) | rsv | opcode
    n = len(payload)
    if n < 126:
        head = bytes([first, (0x80 if mask else 0) | n])
    elif n < 65536:
        head = bytes([first, (0x80 if mask else 0) | 126]) + n.to_bytes(2, "big")
    else:
        head = bytes([first, (0x80 if mask else 0) | 127]) + n.to_bytes(8, "big")
    if not mask:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def close_code(data):
    """The close code of the last close frame the server sent in `data` (server frames are unmasked)."""
    at, code = 0, None
    while at + 2 <= len(data):
        opcode, n = data[at] & 0x0F, data[at + 1] & 0x7F
        at += 2
        if n == 126:
            n, at = int.from_bytes(data[at:at + 2], "big"), at + 2
        elif n == 127:
            n, at = int.from_bytes(data[at:at + 8], "big"), at + 8
        if opcode == 8 and n >= 2:
            code = int.from_bytes(data[at:at + 2], "big")
        at += n
    return code


def test_hostile_websocket_peers_are_refused_and_the_tracker_is_still_served(uat_run):
    run, port = uat_run(big=300000)
    good_key = base64.b64encode(b"0123456789abcdef").decode()

    # a handshake with a wrong key (not 16 bytes), an old version, garbage, an oversized head, a browser's origin
    sock, _ = raw_handshake(port, run, key="c2hvcnQ=")
    assert read_until_closed(sock).startswith(b"HTTP/1.1 400")
    sock = connect(port, run=run)
    sock.sendall(b"GET / HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: "
                 + good_key.encode() + b"\r\nSec-WebSocket-Version: 8\r\n\r\n")
    answer = read_until_closed(sock)
    assert answer.startswith(b"HTTP/1.1 426") and b"Sec-WebSocket-Version: 13" in answer
    sock = connect(port, run=run)
    sock.sendall(bytes(random.Random(7).randrange(256) for _ in range(5000)) + b"\r\n\r\n")
    assert read_until_closed(sock).startswith(b"HTTP/1.1 400")
    sock = connect(port, run=run)
    sock.sendall(b"GET / HTTP/1.1\r\nX-Pad: " + b"a" * 20000)
    try:  # the server stops reading at 8 KiB: what it did not read may reset the connection before its answer
        answer = read_until_closed(sock)
        assert answer == b"" or answer.startswith(b"HTTP/1.1 400"), answer[:100]
    except ConnectionResetError:
        pass
    sock = connect(port, run=run)
    sock.sendall(b"GET / HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: "
                 + good_key.encode() + b"\r\nSec-WebSocket-Version: 13\r\nOrigin: http://evil.example\r\n\r\n")
    assert read_until_closed(sock).startswith(b"HTTP/1.1 403")

    # the right key is answered with SHA-1 + base64 of it and the GUID (RFC 6455 section 4.2.2)
    sock, key = raw_handshake(port, run)
    head = read_head(sock)
    accept = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest())
    assert head.startswith(b"HTTP/1.1 101") and b"Sec-WebSocket-Accept: " + accept in head
    # ... then an unmasked frame is a protocol error (1002)
    sock.sendall(masked(1, b'[{"cmd":"Sync"}]', mask=False))
    assert close_code(read_until_closed(sock)) == 1002

    # frames over 1 MiB are refused from their header (1009), before their payload comes
    sock, _ = raw_handshake(port, run)
    read_head(sock)
    sock.sendall(bytes([0x81, 0x80 | 127]) + (2 ** 40).to_bytes(8, "big") + b"mask")
    assert close_code(read_until_closed(sock)) == 1009
    # ... and so are fragmented messages whose parts add up to more
    sock, _ = raw_handshake(port, run)
    read_head(sock)
    for part in range(2):
        sock.sendall(masked(1 if part == 0 else 0, b"[" * 400000, fin=False))
    sock.sendall(bytes([0x00, 0x80 | 127]) + (400000).to_bytes(8, "big"))  # the third part's header
    assert close_code(read_until_closed(sock)) == 1009
    # reserved bits, an unknown opcode, text that is not UTF-8, a long control frame
    for frame, code in ((masked(1, b"[]", rsv=0x40), 1002), (masked(3, b"x"), 1002), (masked(1, b"\xff\xfe"), 1007),
                        (masked(9, b"p" * 126), 1002)):
        sock, _ = raw_handshake(port, run)
        read_head(sock)
        sock.sendall(frame)
        assert close_code(read_until_closed(sock)) == code

    # binary garbage after a good handshake ends that connection only
    sock, _ = raw_handshake(port, run)
    read_head(sock)
    sock.sendall(bytes(random.Random(3).randrange(256) for _ in range(100000)))
    sock.settimeout(60)
    try:
        read_until_closed(sock)
    except ConnectionResetError:
        pass

    # a slow drip: a Sync sent a byte at a time (with a ping fragment between), while another tracker is served
    drip, _ = raw_handshake(port, run)
    read_head(drip)
    json.loads(receive_text(drip))  # Info

    async def served_meanwhile():
        ws = await uat_session(port, run)
        assert json.loads(await ws.recv())[0]["cmd"] == "Info"
        await ws.send(json.dumps([{"cmd": "Sync"}]))
        names = [v["name"] for v in json.loads(await ws.recv())]
        await ws.close()
        return names

    frames = masked(1, b'[{"cmd": ', fin=False) + masked(9, b"ping") + masked(0, b'"Sync"}]')
    for i, byte in enumerate(frames):
        drip.sendall(bytes([byte]))
        if i == len(frames) // 2:
            assert "Sword" in asyncio.run(served_meanwhile())
        time.sleep(0.002)
    pong = receive_frame(drip)
    assert pong == (10, b"ping")
    synced = json.loads(receive_text(drip))
    assert {v["name"] for v in synced} >= {"Sword", "Big"} and len(synced[-1]["value"]) == 300000
    drip.close()

    # a peer that asks for 100 Syncs (30 MB of answers) and does not read: once 4 MiB wait for it, it is dropped,
    # while a reading tracker is served meanwhile
    lazy, _ = raw_handshake(port, run)
    for _ in range(100):
        lazy.sendall(masked(1, b'[{"cmd":"Sync"}]'))
    assert "Sword" in asyncio.run(served_meanwhile())
    assert "Sword" in asyncio.run(served_meanwhile())
    lazy.settimeout(60)
    try:
        received = len(read_until_closed(lazy))
    except ConnectionResetError:
        received = 0
    assert received < 100 * 300000, "the server sent everything to a peer that did not read"
    lazy.close()
    assert run.alive(), run.stderr()


def receive_frame(sock):
    def exactly(n):
        data = b""
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise AssertionError("closed early")
            data += chunk
        return data
    b1, b2 = exactly(2)
    n = b2 & 0x7F
    if n == 126:
        n = int.from_bytes(exactly(2), "big")
    elif n == 127:
        n = int.from_bytes(exactly(8), "big")
    assert b2 & 0x80 == 0, "server frames are not masked"
    return b1 & 0x0F, exactly(n)


def receive_text(sock):
    while True:
        opcode, payload = receive_frame(sock)
        if opcode == 1:
            return payload.decode()


# --- The BizHawk connector protocol --------------------------------------------------------------------------------

class ConnectorClient:
    """Archipelago's BizHawk client protocol: a newline-ended message, a newline-ended answer."""

    def __init__(self, port, run):
        self.sock = connect(port, run=run)
        self.file = self.sock.makefile("rb")

    def line(self, text):
        self.sock.sendall(text.encode() + b"\n")
        answer = self.file.readline()
        if not answer:
            raise ConnectionError("the connector closed the connection")
        return answer.decode().rstrip("\n")

    def requests(self, *requests):
        responses = json.loads(self.line(json.dumps(list(requests))))
        assert len(responses) == len(requests), responses
        return responses

    def close(self):
        self.file.close()
        self.sock.close()


def b64(data):
    return base64.b64encode(data).decode()


SYSTEMS = {
    # system: (ROM, core, the RAM domain (its first bytes change as the demo runs), a 4 KB read: (domain, address,
    # the bytes expected, or None: written first))
    "NES": ("demo.nes", "fceumm_libretro.so", "RAM", ("WRAM", 0, None)),
    "GB": ("demo.gb", "gambatte_libretro.so", "WRAM", ("ROM", 0, lambda rom: rom[:4096])),
    "GBA": ("demo.gba", "mgba_libretro.so", "IWRAM", ("EWRAM", 0x30000, None)),
}


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_a_bizhawk_client_drives_a_connector_through_every_request(system):
    rom_name, core, ram, (big_domain, big_address, expected) = SYSTEMS[system]
    rom_path = os.path.join(ROMS, rom_name)
    if not os.path.exists(rom_path) or not os.path.exists(os.path.join(CORES, core)):
        pytest.skip("%s or %s is missing (scripts/setup)" % (rom_name, core))
    with open(rom_path, "rb") as f:
        rom = f.read()
    port = free_port()
    with open(CONNECTOR) as f:
        script = f.read().replace("local PORT = 43055", "local PORT = %d" % port)
    run = Run(rom_name, ("connector.lua", script), core=os.path.join(CORES, core), layer="bizhawk",
              extra=("--allow-net", "--watch"))
    try:
        client = ConnectorClient(port, run)
        assert client.line("VERSION") == "1"
        pong, sys_, cores, hash_ = client.requests({"type": "PING"}, {"type": "SYSTEM"}, {"type": "PREFERRED_CORES"},
                                                   {"type": "HASH"})
        assert pong == {"type": "PONG"}
        assert sys_ == {"type": "SYSTEM_RESPONSE", "value": system}
        assert cores["type"] == "PREFERRED_CORES_RESPONSE", cores
        if system != "GBA":  # BizHawk names a preferred core for NES and GB, not for GBA (one core)
            assert isinstance(cores["value"][system], str), cores
        assert hash_["type"] == "HASH_RESPONSE" and len(hash_["value"]) == 40, hash_

        # LOCK: requests in separate messages happen on one frame until UNLOCK
        assert client.requests({"type": "LOCK"}) == [{"type": "LOCKED"}]
        read = {"type": "READ", "address": 0, "size": 2048, "domain": ram}
        held = client.requests(read)[0]["value"]
        time.sleep(0.3)
        assert client.requests(read)[0]["value"] == held
        assert client.requests(read, {"type": "UNLOCK"})[1] == {"type": "UNLOCKED"}
        deadline = time.monotonic() + 60
        while client.requests(read)[0]["value"] == held:
            assert time.monotonic() < deadline, "RAM never changed after UNLOCK"
            time.sleep(0.05)

        # WRITE then GUARD and READ in one message see the bytes written; a failing GUARD answers the rest for it
        data = bytes(range(16))
        write = {"type": "WRITE", "address": 0x100, "value": b64(data), "domain": ram}
        guard = {"type": "GUARD", "address": 0x100, "expected_data": b64(data), "domain": ram}
        read16 = {"type": "READ", "address": 0x100, "size": 16, "domain": ram}
        answers = client.requests(write, guard, read16)
        assert answers == [{"type": "WRITE_RESPONSE"}, {"type": "GUARD_RESPONSE", "address": 0x100, "value": True},
                           {"type": "READ_RESPONSE", "value": b64(data)}]
        bad_guard = dict(guard, expected_data=b64(bytes(16 - i for i in range(16))))
        failed = {"type": "GUARD_RESPONSE", "address": 0x100, "value": False}
        assert client.requests(bad_guard, read16, {"type": "PING"}) == [failed, failed, failed]

        # a 4 KB read
        if expected is None:
            block = random.Random(5).randbytes(4096)
            answers = client.requests({"type": "WRITE", "address": big_address, "value": b64(block),
                                       "domain": big_domain},
                                      {"type": "READ", "address": big_address, "size": 4096, "domain": big_domain})
            assert base64.b64decode(answers[1]["value"]) == block
        else:
            answer = client.requests({"type": "READ", "address": big_address, "size": 4096, "domain": big_domain})
            assert base64.b64decode(answer[0]["value"]) == expected(rom)

        # messages, intervals, unknown and malformed requests
        assert client.requests({"type": "SET_MESSAGE_INTERVAL", "value": 0},
                               {"type": "DISPLAY_MESSAGE", "message": "Got the Hookshot"}) == [
            {"type": "SET_MESSAGE_INTERVAL_RESPONSE"}, {"type": "DISPLAY_MESSAGE_RESPONSE"}]
        assert run.wait_for("Got the Hookshot"), run.stderr()
        unknown, malformed = client.requests({"type": "TELEPORT"}, {"type": "READ", "domain": ram})
        assert unknown == {"type": "ERROR", "err": "Unknown command: TELEPORT"}
        assert malformed["type"] == "ERROR" and "address" in malformed["err"], malformed

        # a client that disconnects and reconnects
        client.close()
        client = ConnectorClient(port, run)
        assert client.requests({"type": "PING"}) == [{"type": "PONG"}]

        # the script reloaded (saved under --watch) with the client connected: the connection ends, a new one works
        with open(run.script, "a") as f:
            f.write("\n-- saved again\n")
        with pytest.raises((ConnectionError, OSError)):
            for _ in range(10000):
                client.requests({"type": "PING"})
                time.sleep(0.01)
        client.close()
        client = ConnectorClient(port, run)
        assert client.requests({"type": "PING"}) == [{"type": "PONG"}]
        client.close()
        assert run.alive(), run.stderr()
    finally:
        run.close()
