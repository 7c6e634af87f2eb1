"""The `net` module's TCP seen from a Python peer on loopback: a script's echo server serves clients between
frames (every byte value, a client that connects and leaves, several at once); a script's client reaches a
Python server; the profiles refuse what they should, naming the flag.

Run: RETROLUA=$PWD/.build/debug/retrolua build/venv/bin/python -m pytest -q -p no:cacheprovider \
         Tests/python/test_net.py
"""

import os
import socket
import subprocess
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("RETROLUA", os.path.join(ROOT, ".build", "debug", "retrolua"))
DEMO = os.path.join(ROOT, "build", "roms", "demo.nes")

pytestmark = pytest.mark.skipif(not (os.path.exists(BINARY) and os.path.exists(DEMO)),
                                reason="needs the built binary and build/roms/demo.nes (scripts/roms)")

ECHO = """
local server = assert(net.tcp_listen{bind = "127.0.0.1:0"})
print("address " .. server:address())
local clients = {}
event.on("frame_end", function()
  local c = server:accept()
  if c then clients[#clients + 1] = c end
  for i = #clients, 1, -1 do
    local client = clients[i]
    local data, why = client:receive()
    if data == "quit" then emu.exit() end
    if data then client:send(data) elseif why == "closed" then table.remove(clients, i) end
  end
  if #clients > 0 then net.select(clients, 5) end
end)
"""


def script(text):
    handle, path = tempfile.mkstemp(suffix=".lua")
    with os.fdopen(handle, "w") as out:
        out.write(text)
    return path


def start(text, *options):
    return subprocess.Popen(
        [BINARY, "run", DEMO, "--core", "nestopia", "--headless", "--frames", "10000000", *options,
         "--script", script(text)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def address_of(process):
    for line in process.stdout:
        if line.startswith("address "):
            host, port = line.split()[1].rsplit(":", 1)
            return host, int(port)
    raise AssertionError("no address: " + process.stderr.read())


def receive_exactly(sock, count):
    got = b""
    while len(got) < count:
        chunk = sock.recv(count - len(got))
        assert chunk, "the connection ended after %d of %d bytes" % (len(got), count)
        got += chunk
    return got


def test_an_echo_server_serves_python_clients():
    process = start(ECHO, "--allow-net")
    try:
        address = address_of(process)
        assert address[0] == "127.0.0.1"
        garbage = bytes(range(256)) * 400
        first = socket.create_connection(address, timeout=30)
        second = socket.create_connection(address, timeout=30)
        leaver = socket.create_connection(address, timeout=30)
        leaver.close()  # connects and leaves at once: the server goes on
        first.sendall(garbage)
        second.sendall(b"second")
        assert receive_exactly(second, 6) == b"second"
        assert receive_exactly(first, len(garbage)) == garbage
        second.sendall(b"quit")
        assert process.wait(timeout=60) == 0, process.stderr.read()
        first.close()
        second.close()
    finally:
        process.kill()
        process.wait()


def test_a_script_client_reaches_a_python_server():
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    process = start("""
local conn = assert(net.tcp_connect("localhost:%d"))
while conn:state() == "connecting" do emu.frameadvance() end
conn:send("hello from lua")
local got = ""
while #got < 5 do got = got .. (conn:receive() or "") emu.frameadvance() end
print("got " .. got .. " " .. conn:peer())
emu.exit()
""" % port, "--allow-net")
    try:
        server.settimeout(30)
        peer, _ = server.accept()
        peer.settimeout(30)
        assert receive_exactly(peer, 14) == b"hello from lua"
        peer.sendall(b"hello")
        out, err = process.communicate(timeout=60)
        assert "got hello 127.0.0.1:%d" % port in out, out + err
        peer.close()
    finally:
        process.kill()
        process.wait()
        server.close()


@pytest.mark.parametrize("options, expected", [
    ([], "network access needs --allow-net"),
    (["--allow-net"], "binding every address (*:0) reaches other machines"),
    (["--allow-net=*:0"], "listening *:0"),
    (["--trust"], "listening *:0"),
])
def test_every_address_needs_the_grant(options, expected):
    out = subprocess.run(
        [BINARY, "run", DEMO, "--core", "nestopia", "--headless", "--frames", "1", *options, "--script", script("""
local server, message = net.tcp_listen{bind = "*:0"}
print(server and "listening *:0" or message)
""")], capture_output=True, text=True, timeout=60)
    assert expected in out.stdout, out.stdout + out.stderr
