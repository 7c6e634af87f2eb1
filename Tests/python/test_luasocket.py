"""Retrolua's LuaSocket (lua/retrolua/luasocket/) against Debian's real LuaSocket: Tests/lua/luasocket_test.lua
runs under stock lua5.4 with the `lua-socket` package and under `retrolua run --allow-net`, each against a
loopback peer of this file, and the two outputs must be the same line for line — results, their Lua types,
classes, partial results and error strings. The peer also serves scripts that use LuaSocket the way the
published connectors do (a server polled with settimeout(0), package.loadlib's opener).

Run: RETROLUA=$PWD/.build/debug/retrolua build/venv/bin/python -m pytest -q -p no:cacheprovider \
         Tests/python/test_luasocket.py
"""

import os
import shutil
import socket
import subprocess
import threading

import pytest

from tree import BINARY, ROOT

DEMO = os.path.join(ROOT, "build", "roms", "demo.nes")
SCRIPT = os.path.join(ROOT, "Tests", "lua", "luasocket_test.lua")
LUA = shutil.which("lua5.4")

pytestmark = pytest.mark.skipif(not (os.path.exists(BINARY) and os.path.exists(DEMO)),
                                reason="needs the built binary and build/roms/demo.nes (scripts/roms)")


def has_debian_luasocket():
    if LUA is None:
        return False
    probe = subprocess.run([LUA, "-e", "require('socket')"], capture_output=True, timeout=30)
    return probe.returncode == 0


class Peer:
    """A loopback peer: a TCP server taking line commands, and a UDP echo.

    Commands (one line each): `send HEX` sends the bytes; `sendclose HEX` sends them and closes;
    `halfclose HEX` sends them and ends its side of the stream, still reading; `readall` reads to the client's
    end of the stream and says how much; `sink N` reads N bytes and
    answers `got N`; `lines N` sends N short lines at once; `drip HEX` sends the bytes one at a time;
    `dial PORT HEX` connects to 127.0.0.1:PORT, sends the bytes, closes that connection and answers `dialed`.
    Other lines are ignored.
    """

    def __init__(self):
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.tcp_port = self.tcp.getsockname()[1]
        self.udp_port = self.udp.getsockname()[1]
        self.closing = False
        threading.Thread(target=self.accept_loop, daemon=True).start()
        threading.Thread(target=self.echo_loop, daemon=True).start()

    def accept_loop(self):
        while not self.closing:
            try:
                connection, _ = self.tcp.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(connection,), daemon=True).start()

    def serve(self, connection):
        reader = connection.makefile("rb")
        try:
            for line in reader:
                words = line.decode("latin-1").split()
                if not words:
                    continue
                if words[0] == "send" and len(words) == 2:
                    connection.sendall(bytes.fromhex(words[1]))
                elif words[0] == "sendclose" and len(words) == 2:
                    connection.sendall(bytes.fromhex(words[1]))
                    break
                elif words[0] == "sink" and len(words) == 2:
                    count = int(words[1])
                    got = 0
                    while got < count:
                        chunk = reader.read(min(65536, count - got))
                        if not chunk:
                            return
                        got += len(chunk)
                    connection.sendall(b"got %d\n" % got)
                elif words[0] == "halfclose" and len(words) == 2:
                    connection.sendall(bytes.fromhex(words[1]))
                    connection.shutdown(socket.SHUT_WR)
                elif words[0] == "readall" and len(words) == 1:
                    rest = reader.read()  # until the client ends its side of the stream
                    connection.sendall(b"read %d bytes to the end\n" % len(rest))
                elif words[0] == "lines" and len(words) == 2:
                    connection.sendall(b"".join(b"line %d\n" % i for i in range(int(words[1]))))
                elif words[0] == "drip" and len(words) == 2:
                    for byte in bytes.fromhex(words[1]):
                        connection.sendall(bytes([byte]))
                        threading.Event().wait(0.002)
                elif words[0] == "dial" and len(words) == 3:
                    with socket.create_connection(("127.0.0.1", int(words[1])), timeout=30) as dialed:
                        dialed.sendall(bytes.fromhex(words[2]))
                    connection.sendall(b"dialed\n")
        except OSError:
            pass
        finally:
            reader.close()
            connection.close()

    def echo_loop(self):
        while not self.closing:
            try:
                data, sender = self.udp.recvfrom(65536)
                self.udp.sendto(data, sender)
            except OSError:
                return

    def close(self):
        self.closing = True
        self.tcp.close()
        self.udp.close()


@pytest.fixture
def peer():
    serving = Peer()
    yield serving
    serving.close()


def environment(peer):
    return dict(os.environ, LUASOCKET_PEER=str(peer.tcp_port), LUASOCKET_ECHO=str(peer.udp_port))


def retrolua(script, peer, *options):
    run = subprocess.run(
        [BINARY, "run", DEMO, "--core", "nestopia", "--headless", "--frames", "1", *options, "--script", script],
        capture_output=True, encoding="latin-1", timeout=300, env=environment(peer))
    return run


def lines(output):
    return [line for line in output.splitlines() if line.startswith("ls ")]


@pytest.mark.skipif(not has_debian_luasocket(), reason="needs lua5.4 and Debian's lua-socket (scripts/setup)")
def test_the_same_script_gives_the_same_output_as_debians_luasocket(peer):
    real = subprocess.run([LUA, SCRIPT], capture_output=True, encoding="latin-1", timeout=300, env=environment(peer))
    assert real.returncode == 0, real.stdout + real.stderr
    expected = lines(real.stdout)
    assert expected[-1] == "ls done ", real.stdout
    assert any(line.startswith("ls the peer read to the end") and "read 5 bytes" in line for line in expected), \
        real.stdout
    ours = retrolua(SCRIPT, peer, "--allow-net")
    assert ours.returncode == 0, ours.stdout + ours.stderr
    got = lines(ours.stdout)
    differences = [f"real: {want}\nours: {have}" for want, have in zip(expected, got) if want != have]
    assert not differences, "\n".join(differences)
    assert len(got) == len(expected), "\n".join(got[len(expected):] or expected[len(got):])


def write(folder, name, text):
    path = os.path.join(folder, name)
    with open(path, "w") as file:
        file.write(text)
    return path


# A server the way the published connectors run one: bound to localhost, polled once a frame with
# settimeout(0), LuaSocket loaded through package.loadlib's opener; it answers each line with its length.
CONNECTOR = """
local core = package.loadlib("x64/socket-linux-5-4.so", "luaopen_socket_core")
package.loaded["socket.core"] = core()
local socket = require("socket")
local server = assert(socket.bind("localhost", os.getenv("SERVER_PORT")))
server:settimeout(0)
local client
local answered = 0
while answered < 3 do
  if not client then
    client = server:accept()
    if client then client:settimeout(0) end
  else
    local line, err = client:receive()
    if line then
      client:send(#line .. "\\n")
      answered = answered + 1
    elseif err == "closed" then
      client = nil
    end
  end
  emu.frameadvance()
end
print("ls answered " .. answered)
emu.exit(0)
"""


def free_port():
    with socket.create_server(("127.0.0.1", 0)) as probe:
        return probe.getsockname()[1]


def connect_when_listening(port, process):
    """A connection to the script's server once it listens (the run starts first), or None if it ended."""
    while process.poll() is None:
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=60)
        except ConnectionRefusedError:
            threading.Event().wait(0.1)
    return None


def test_a_connector_shaped_server_polled_each_frame(tmp_path):
    port = free_port()
    script = write(str(tmp_path), "connector.lua", CONNECTOR)
    process = subprocess.Popen(
        [BINARY, "run", DEMO, "--core", "nestopia", "--headless", "--frames", "10000000", "--allow-net",
         "--script", script],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ, SERVER_PORT=str(port)))
    try:
        client = connect_when_listening(port, process)
        assert client is not None, process.communicate(timeout=60)
        with client:
            reader = client.makefile("rb")
            for line in (b"a", b"hello", b"x" * 5000):
                client.sendall(line + b"\n")
                assert reader.readline() == b"%d\n" % len(line)
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, out + err
    assert "ls answered 3" in out, out + err


REFUSALS = """
local socket = require("socket")
print("ls same", socket == require("socket.core"), package.loadlib("any.so", "luaopen_socket_core")() == socket)
print("ls bind", socket.bind("127.0.0.1", 0))
local tcp = socket.tcp()
tcp:settimeout(1)
print("ls connect", tcp:connect("127.0.0.1", os.getenv("LUASOCKET_PEER")))
print("ls udp", socket.udp():setsockname("127.0.0.1", 0))
print("ls loadlib", package.loadlib("/lib/x86_64-linux-gnu/libc.so.6", "luaopen_anything"))
print("ls loadlib type", pcall(package.loadlib, "x.so", 5))
"""


def test_without_the_permission_every_socket_names_the_flag(peer, tmp_path):
    run = retrolua(write(str(tmp_path), "refused.lua", REFUSALS), peer)
    assert run.returncode == 0, run.stdout + run.stderr
    out = lines(run.stdout)
    assert out[0] == "ls same\ttrue\ttrue", out
    for label in ("bind", "connect", "udp"):
        line = next(line for line in out if line.startswith("ls " + label + "\t"))
        assert line.startswith("ls %s\tnil\tnetwork access needs --allow-net" % label), line
    loadlib = next(line for line in out if line.startswith("ls loadlib\t"))
    assert loadlib.startswith("ls loadlib\tnil\tpackage.loadlib: native code needs --trust"), loadlib
    assert loadlib.endswith("\topen"), loadlib
    assert "bad argument #2 to 'loadlib' (string expected, got number)" in out[-1], out


def test_a_script_of_the_same_name_in_the_scripts_folder_comes_first(peer, tmp_path):
    write(str(tmp_path), "socket.lua", "return { mine = true }")
    script = write(str(tmp_path), "main.lua", 'print("ls mine", require("socket").mine, '
                                              'require("socket.core")._VERSION)')
    run = retrolua(script, peer, "--allow-net")
    assert run.returncode == 0, run.stdout + run.stderr
    assert lines(run.stdout) == ["ls mine\ttrue\tLuaSocket 3.0.0"], run.stdout


# Hostile peers against LuaSocket scripts: they end in LuaSocket's results, never in a hang or a crash.

NEVER_READS = """
local socket = require("socket")
local client = assert(socket.connect("127.0.0.1", os.getenv("SILENT_PORT")))
local size = 32 * 1048576  -- more than the host's buffer and the system's together
local data = string.rep("x", size)
client:settimeout(0)
local ok, err, last = client:send(data)
print("ls at once", ok, err, last < size)
client:settimeout(0.2)
ok, err, last = client:send(data)
print("ls waited", ok, err, last > 0 and last < size)
print("ls close", client:close())
"""


def test_a_peer_that_never_reads_gives_timeouts_and_the_last_byte_sent(tmp_path):
    silent = socket.create_server(("127.0.0.1", 0))
    held = []
    threading.Thread(target=lambda: held.append(silent.accept()), daemon=True).start()
    try:
        script = write(str(tmp_path), "never_reads.lua", NEVER_READS)
        run = subprocess.run(
            [BINARY, "run", DEMO, "--core", "nestopia", "--headless", "--frames", "1", "--allow-net",
             "--script", script],
            capture_output=True, text=True, timeout=300,
            env=dict(os.environ, SILENT_PORT=str(silent.getsockname()[1])))
    finally:
        silent.close()
    assert run.returncode == 0, run.stdout + run.stderr
    assert lines(run.stdout) == ["ls at once\tnil\ttimeout\ttrue", "ls waited\tnil\ttimeout\ttrue",
                                 "ls close\t1.0"], run.stdout + run.stderr


# A server that accepts 1,000 connections one frame at a time, closing each, and reports the count.
MANY = """
local socket = require("socket")
local server = assert(socket.bind("127.0.0.1", os.getenv("SERVER_PORT")))
server:settimeout(0)
local count = 0
while true do
  local client = server:accept()
  if client then
    client:settimeout(10)
    local line = client:receive()
    if line == "report" then
      client:send(count .. "\\n")
      client:close()
      break
    end
    count = count + 1
    client:close()
  end
  emu.frameadvance()
end
emu.exit(0)
"""

# A server that keeps every connection: the 64-socket limit ends accept with the host's message.
HOARDS = """
local socket = require("socket")
local server = assert(socket.bind("127.0.0.1", os.getenv("SERVER_PORT")))
server:settimeout(30)
local kept = {}
while true do
  local client, err = server:accept()
  if not client then
    print("ls refused after " .. #kept .. ": " .. tostring(err))
    break
  end
  kept[#kept + 1] = client
end
emu.exit(0)
"""


def run_server(tmp_path, name, source):
    port = free_port()
    script = write(str(tmp_path), name, source)
    process = subprocess.Popen(
        [BINARY, "run", DEMO, "--core", "nestopia", "--headless", "--frames", "10000000", "--allow-net",
         "--script", script],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ, SERVER_PORT=str(port)))
    return port, process


def finish(process):
    try:
        return process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def test_a_thousand_connections_one_after_another(tmp_path):
    port, process = run_server(tmp_path, "many.lua", MANY)
    first = connect_when_listening(port, process)
    assert first is not None, finish(process)
    with first:
        first.sendall(b"x\n")
    for _ in range(999):
        with socket.create_connection(("127.0.0.1", port), timeout=60) as client:
            client.sendall(b"x\n")
    with socket.create_connection(("127.0.0.1", port), timeout=60) as client:
        client.sendall(b"report\n")
        assert client.makefile("rb").readline() == b"1000\n"
    out, err = finish(process)
    assert process.returncode == 0, out + err


def test_the_socket_limit_ends_accept_with_the_hosts_message(tmp_path):
    port, process = run_server(tmp_path, "hoards.lua", HOARDS)
    clients = [connect_when_listening(port, process)]
    try:
        assert clients[0] is not None, finish(process)
        for _ in range(69):  # the script stops listening once refused: the last ones may find nothing
            try:
                clients.append(socket.create_connection(("127.0.0.1", port), timeout=60))
            except ConnectionRefusedError:
                break
        out, err = finish(process)
    finally:
        for client in clients:
            if client is not None:
                client.close()
    assert process.returncode == 0, out + err
    assert "ls refused after 63: too many sockets" in out, out + err
