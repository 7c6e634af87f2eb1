"""The compatibility layers' sockets over the net module's TCP, each with a Python peer on loopback: an mGBA-style
line server (Tests/Fixtures/compat/mgba/socket_server.lua) serving two clients at once, one of them abrupt; an
mGBA-style client script; BizHawk's comm.socketServer* talking to a server as BizHawk does ("LENGTH message",
screenshots as PNG); and both refused without --allow-net, with the message that names it.

Run: RETROLUA=$PWD/.build/debug/retrolua build/venv/bin/python -m pytest -q -p no:cacheprovider \
         Tests/python/test_compat_sockets.py
"""

import os
import re
import socket
import subprocess
import tempfile

from tree import BINARY, ROOT

GBA = os.path.join(ROOT, "build", "roms", "demo.gba")
NES = os.path.join(ROOT, "build", "roms", "demo.nes")
FIXTURES = os.path.join(ROOT, "Tests", "Fixtures", "compat")
ENV = dict(os.environ, RETROLUA_LUA_DIR=os.path.join(ROOT, "lua"))


def run(rom, core, script, *extra, frames="100000"):
    return subprocess.Popen(
        [BINARY, "run", rom, "--core", core, "--headless", "--quiet", "--frames", frames, *extra, "--script", script],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)


def lines_until(sock, last):
    data = b""
    while not data.endswith(last):
        piece = sock.recv(4096)
        if not piece:
            break
        data += piece
    return data.decode().splitlines()


def listening(backlog=1):
    """A server socket on a free loopback port, and the port."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(backlog)
    return server, server.getsockname()[1]


def write_script(folder, name, text):
    """Writes a script into `folder`; its path."""
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def stop(process):
    process.terminate()
    out, err = process.communicate(timeout=30)
    return out, err


def test_an_mgba_line_server_serves_clients_at_once():
    process = run(GBA, "mgba", "mgba:" + os.path.join(FIXTURES, "mgba", "socket_server.lua"), "--allow-net")
    try:
        line = process.stdout.readline()
        match = re.search(r"listening (\d+)", line)
        assert match, line + process.stderr.read()
        port = int(match.group(1))
        first = socket.create_connection(("127.0.0.1", port), timeout=30)
        second = socket.create_connection(("127.0.0.1", port), timeout=30)
        abrupt = socket.create_connection(("127.0.0.1", port), timeout=30)
        abrupt.sendall(b"\xff\x00garbage without a newline")
        abrupt.close()
        # a request split across sends, and two clients interleaved
        first.sendall(b"REA")
        second.sendall(b"READ 134217728\nFRAME\n")
        first.sendall(b"D 134217729\nhello\n")
        second_lines = second.makefile("rb")
        assert second_lines.readline() == b"BYTE 46\n"  # the ROM's first byte (0x2E)
        first.sendall(b"BYE\n")
        second.sendall(b"BYE\n")
        assert lines_until(first, b"BYE\n") == ["BYTE 0", "ERR hello", "BYE"]
        assert second_lines.readline().startswith(b"FRAME ")
        assert second_lines.readline() == b"BYE\n"
        assert second_lines.read() == b"", "the script closed it"
        assert first.recv(10) == b"", "the script closed it"
        first.close()
        second.close()
        # served in the script's callbacks: both clients, and the abrupt one seen to end
        for _ in range(3):
            line = process.stdout.readline()
            if "served 2" in line:
                break
        assert "served 2" in line, line
    finally:
        out, err = stop(process)
    assert "Traceback" not in err, err


def test_an_mgba_client_script_talks_to_a_server():
    server, port = listening()
    with tempfile.TemporaryDirectory() as folder:
        script = os.path.join(folder, "client.lua")
        with open(script, "w") as f:
            f.write(f"""
local sock, err = socket.connect("127.0.0.1", {port})
if not sock then console:log("connect failed: " .. tostring(err)) return end
console:log("connected")
local got = ""
sock:add("received", function(s)
  local data, problem = s:receive(64)
  if data then
    got = got .. data
    if got:find("\\n") then
      s:send("thanks for " .. got)
      console:log("got " .. got:gsub("\\n", ""))
    end
  elseif problem ~= socket.ERRORS.AGAIN then
    console:log("ended " .. tostring(problem))
    s:close()
  end
end)
console:log("sent " .. tostring(sock:send("hello from mGBA\\n")))
console:log("again " .. tostring(socket.ERRORS.AGAIN == "temporary failure"))
""")
        process = run(GBA, "mgba", "mgba:" + script, "--allow-net")
        try:
            server.settimeout(30)
            conn, _ = server.accept()
            conn.settimeout(30)
            assert lines_until(conn, b"\n") == ["hello from mGBA"]
            conn.sendall(b"pong\n")
            assert conn.recv(100) == b"thanks for pong\n"
            conn.close()
            seen = [process.stdout.readline().strip() for _ in range(5)]
        finally:
            out, err = stop(process)
        assert seen == ["connected", "sent 16", "again true", "got pong", "ended disconnected"], (seen, err)
    server.close()


def test_mgba_sockets_without_the_permission_say_which_flag():
    with tempfile.TemporaryDirectory() as folder:
        script = os.path.join(folder, "refused.lua")
        with open(script, "w") as f:
            f.write("""
local s, err = socket.bind(nil, 47700)
console:log("bind " .. tostring(s) .. " " .. tostring(err))
local c, err2 = socket.connect("127.0.0.1", 47700)
console:log("connect " .. tostring(c) .. " " .. tostring(err2))
local t = socket.tcp()
console:log("tcp " .. type(t) .. " " .. tostring(t:hasdata()))
console:log("port " .. select(2, pcall(t.bind, t, nil, 70000)))
console:log("max " .. select(2, pcall(t.receive, t, "all")))
console:log("data " .. select(2, pcall(t.send, t, {})))
console:log("dot " .. select(2, pcall(t.connect, "127.0.0.1", 1)))
console:log("unconnected " .. tostring(t:receive(10)) .. " " .. tostring(t:accept()))
""")
        result = subprocess.run(
            [BINARY, "run", GBA, "--core", "mgba", "--headless", "--quiet", "--frames", "2",
             "--script", "mgba:" + script], capture_output=True, text=True, env=ENV, timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("bind nil network access needs --allow-net"), lines
    assert lines[1].startswith("connect nil network access needs --allow-net"), lines
    assert lines[2] == "tcp table false", lines
    assert "socket:bind: bad argument #2 'port' (0…65535 expected, got 70000)" in lines[3], lines
    assert "socket:receive: bad argument #1 'maxBytes' (integer expected, got string)" in lines[4], lines
    assert "socket:send: bad argument #1 'data' (string expected, got table)" in lines[5], lines
    assert "socket:connect: call it with ':' on a socket from socket.tcp()" in lines[6], lines
    assert lines[7] == "unconnected nil nil", lines


def read_message(conn):
    length = b""
    while not length.endswith(b" "):
        piece = conn.recv(1)
        assert piece, "closed in a length"
        length += piece
    size, data = int(length), b""
    while len(data) < size:
        piece = conn.recv(size - len(data))
        assert piece, "closed in a message"
        data += piece
    return data


BIZHAWK_BOT = """
emu.frameadvance()
print("info", comm.socketServerGetInfo(), comm.socketServerIsConnected())
print("send", comm.socketServerSend("hello"), comm.socketServerSuccessful(), comm.socketServerIsConnected())
print("response", comm.socketServerResponse())
comm.socketServerSetTimeout(100)
print("none", "[" .. comm.socketServerResponse() .. "]")
print("shot", comm.socketServerScreenShot())
print("shot_response", comm.socketServerScreenShotResponse())
print("bytes", comm.socketServerSendBytes({65, 66, 67}))
"""


def test_bizhawk_comm_socket_server_talks_as_bizhawk():
    server, port = listening()
    with tempfile.TemporaryDirectory() as folder:
        script = write_script(folder, "bot.lua", BIZHAWK_BOT)
        process = run(NES, "nestopia", script, "--allow-net", "--compat", f"bizhawk:socket=127.0.0.1:{port}",
                      frames="5")
        server.settimeout(30)
        conn, _ = server.accept()
        conn.settimeout(30)
        assert read_message(conn) == b"hello"
        conn.sendall(b"2 h")  # a reply in two pieces
        conn.sendall(b"i")
        shot = read_message(conn)
        assert shot.startswith(b"\x89PNG\r\n\x1a\n"), shot[:16]
        assert read_message(conn).startswith(b"\x89PNG")
        conn.sendall(b"6 thanks")
        assert conn.recv(3) == b"ABC"
        out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert out.splitlines() == [
        f"info\t127.0.0.1:{port}\ttrue", "send\t7\ttrue\ttrue", "response\thi", "none\t[]",
        "shot\tScreenshot was sent", "shot_response\tthanks", "bytes\t3",
    ], out + err
    server.close()


def test_bizhawk_comm_without_a_server_or_the_permission():
    with tempfile.TemporaryDirectory() as folder:
        script = write_script(folder, "bot.lua",
                              'print("send", comm.socketServerSend("x"), comm.socketServerGetInfo() == "")\n')
        none = subprocess.run(
            [BINARY, "run", NES, "--core", "nestopia", "--headless", "--quiet", "--frames", "1", "--allow-net",
             "--script", "bizhawk:" + script], capture_output=True, text=True, env=ENV, timeout=60)
        refused = subprocess.run(
            [BINARY, "run", NES, "--core", "nestopia", "--headless", "--quiet", "--frames", "1",
             "--compat", "bizhawk:socket=127.0.0.1:9", "--script", script],
            capture_output=True, text=True, env=ENV, timeout=60)
    assert none.stdout == "send\t-1\ttrue\n", none.stderr
    assert "comm.socketServerSend: no socket server: give one with --compat bizhawk:socket=HOST:PORT" in none.stderr
    assert refused.stdout == "send\t-1\tfalse\n", refused.stderr
    assert "comm.socketServerSend: network access needs --allow-net" in refused.stderr, refused.stderr


HOSTILE_BOT = """
emu.frameadvance()
comm.socketServerSetTimeout(5000)
print("garbage", "[" .. comm.socketServerResponse() .. "]")
print("huge", "[" .. comm.socketServerResponse() .. "]")
print("cut", "[" .. comm.socketServerResponse() .. "]")
print("drip", comm.socketServerResponse())
print("after", comm.socketServerSend("ok"))
"""


def test_bizhawk_comm_survives_a_hostile_server():
    """Replies that are not "LENGTH message", a length of 100 GB, a server closing mid-reply and a reply dripped a
    byte at a time: each gives "" (or the reply) with a warning, the script goes on, and it reconnects."""
    server, port = listening(4)
    server.settimeout(60)
    with tempfile.TemporaryDirectory() as folder:
        script = write_script(folder, "bot.lua", HOSTILE_BOT)
        process = run(NES, "nestopia", script, "--allow-net", "--compat", f"bizhawk:socket=127.0.0.1:{port}",
                      frames="5")
        for reply in (b"abc\x00\xff", b"99999999999 x", b"10 abc"):
            conn, _ = server.accept()
            conn.sendall(reply)
            if reply == b"10 abc":
                conn.close()
            else:
                assert conn.recv(10) == b"", "the script drops a connection that broke the framing"
        conn, _ = server.accept()
        conn.settimeout(60)
        for byte in b"4 drip":
            conn.sendall(bytes([byte]))
        assert read_message(conn) == b"ok"
        out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert out.splitlines() == ["garbage\t[]", "huge\t[]", "cut\t[]", "drip\tdrip", "after\t4"], out + err
    assert "the server's reply is not \"LENGTH message\"" in err, err
    assert "a reply of 99999999999 bytes is refused" in err, err
    server.close()
