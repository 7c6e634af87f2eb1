"""Abuse of the control socket on real sockets (run by Tests/HostTests/ControlAbuseTests.swift with
RETROLUA pointing at the built binary): slow and silent clients, endless lines, byte-at-a-time
writes, crowds, malformed requests of every kind, tokens on TCP and the peer's uid on Unix. Each
case checks the reply names the problem and that the emulator goes on serving others."""

import base64
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

from retrolua.control import Retrolua, RetroluaError  # noqa: E402

NES = os.path.join(ROOT, "build", "roms", "demo.nes")
BINARY = os.environ.get("RETROLUA", "retrolua")
MAX_CLIENTS = 32  # ControlServer.maxClients

# (request line, words the error must contain): each is refused and the connection lives on.
MALFORMED = [
    (b'{"cmd": "console"}', 'console needs "lua"'),
    (b'{"cmd": "console", "lua": 5}', '"lua" must be a string, got 5'),
    (b'{"cmd": "console", "lua": null}', '"lua" must be a string, got null'),
    (b'{"cmd": "complete"}', 'complete needs "text"'),
    (b'{"cmd": "complete", "text": ["a"]}', '"text" must be a string, got a list'),
    (b'{"cmd": "frame", "format": "png", "scale": 0}', '"scale" must be an integer in 1…8'),
    (b'{"cmd": "frame", "format": "png", "scale": "2"}', 'got the string "2"'),
    (b'{"cmd": "frame", "format": "png", "scale": 1e9}', '"scale" must be an integer in 1…8'),
    (b'{"cmd": "read", "address": 0, "encoding": "hex"}', '"encoding" is base64 or integers'),
    (b'{"cmd": "read", "address": 0, "encoding": 1}', '"encoding" must be a string, got 1'),
    (b"{not json", "not valid JSON"),
    (b"[1, 2]", "a request is a JSON object"),
    (b'"info"', "a request is a JSON object"),
    (b"42", "a request is a JSON object"),
    (b"null", "a request is a JSON object"),
    (b"{}", 'no "cmd"'),
    (b'{"cmd": 5}', '"cmd" must be a string, got 5'),
    (b'{"cmd": ["info"]}', '"cmd" must be a string, got a list'),
    (b'{"cmd": "fly"}', "unknown command 'fly'"),
    (b'{"cmd": "' + b"x" * 5000 + b'"}', "unknown command 'xxxxxxxx"),
    (b'{"cmd": "step", "input": {"a": 1}}', "button 'a' must be true or false, got 1"),
    (b'{"cmd": "step", "input": {"a": 0}}', "button 'a' must be true or false, got 0"),
    (b'{"cmd": "step", "input": {"a": "true"}}', "button 'a' must be true or false, got the string \"true\""),
    (b'{"cmd": "step", "input": {"a": null}}', "button 'a' must be true or false, got null"),
    (b'{"cmd": "step", "input": {"a": {"b": true}}}', "button 'a' must be true or false, got an object"),
    (b'{"cmd": "step", "input": {"jump": true}}', "unknown button 'jump'"),
    (b'{"cmd": "step", "input": [true]}', '"input" must be an object, got a list'),
    (b'{"cmd": "step", "inputs": {"a": true}}', '"inputs" must be a list, got an object'),
    (b'{"cmd": "step", "inputs": [1]}', '"inputs[1]" must be an object of buttons, got 1'),
    (b'{"cmd": "step", "inputs": [{}, {}, {}, {}, {}, {}, {}, {}, {}]}', "up to 8 button objects"),
    (b'{"cmd": "step", "frames": 1.5}', '"frames" must be an integer in 0…1000000, got 1.5'),
    (b'{"cmd": "step", "frames": -1}', '"frames" must be an integer in 0…1000000, got -1'),
    (b'{"cmd": "step", "frames": 2000000}', '"frames" must be an integer in 0…1000000'),
    (b'{"cmd": "step", "frames": 1e300}', '"frames" must be an integer'),
    (b'{"cmd": "step", "frames": -1e300}', '"frames" must be an integer'),
    (b'{"cmd": "step", "frames": 1e400}', "not valid JSON"),
    (b'{"cmd": "step", "frames": 123456789012345678901234567890}', '"frames" must be an integer'),
    (b'{"cmd": "step", "frames": 9223372036854775808}', '"frames" must be an integer'),
    (b'{"cmd": "step", "frames": "NaN"}', 'got the string "NaN"'),
    (b'{"cmd": "step", "frames": NaN}', "not valid JSON"),
    (b'{"cmd": "step", "frames": Infinity}', "not valid JSON"),
    (b'{"cmd": "step", "frames": true}', '"frames" must be an integer in 0…1000000, got true'),
    (b'{"cmd": "read", "address": "3"}', '"address" must be an integer, got the string "3"'),
    (b'{"cmd": "read", "address": false}', '"address" must be an integer, got false'),
    (b'{"cmd": "read"}', 'needs "address"'),
    (b'{"cmd": "read", "address": -9223372036854775808}', "outside"),
    (b'{"cmd": "read", "address": 9223372036854775807, "length": 16}', "outside"),
    (b'{"cmd": "read", "address": 18446744073709551616}', '"address" must be an integer'),
    (b'{"cmd": "read", "address": 0, "length": 0}', '"length" must be an integer in 1…16777216'),
    (b'{"cmd": "read", "address": 0, "length": 1e9}', '"length" must be an integer in 1…16777216'),
    (b'{"cmd": "read", "address": 0, "domain": 7}', '"domain" must be a string, got 7'),
    (b'{"cmd": "read", "address": 0, "domain": "nope"}', "no domain 'nope'"),
    (b'{"cmd": "write", "address": 0, "data": "!!!"}', 'write needs "data": base64 bytes'),
    (b'{"cmd": "write", "address": 0, "data": 5}', '"data" must be a string, got 5'),
    (b'{"cmd": "write", "address": 0, "data": "AQ==", "length": 1.5}', '"length" must be an integer'),
    (b'{"cmd": "save_state", "slot": "1"}', '"slot" must be an integer, got the string "1"'),
    (b'{"cmd": "save_state", "slot": 1000}', "slot must be 0…999, got 1000"),
    (b'{"cmd": "load_state", "slot": -1}', "slot must be 0…999, got -1"),
    (b'{"cmd": "load_state", "state": 12}', '"state" must be a string, got 12'),
    (b'{"cmd": "load_state"}', 'load_state needs "slot" or "state"'),
    (b'{"cmd": "frame", "format": "jpeg"}', "rgb, rgba, png or native"),
    (b'{"cmd": "frame", "format": 3}', '"format" must be a string, got 3'),
    (b'{"cmd": "eval", "lua": "return 1"}', "only allowed with --trust"),
    (b"[" * 100000 + b"]" * 100000, "Too many nested"),
    (b'{"cmd": "step", "input": ' + b'{"a": ' * 5000 + b"true" + b"}" * 5001, "Too many nested"),
    (b'{"cmd": "\xff\xfe"}', "not valid UTF-8"),
    (b'{"cmd": "\xc0\xaf"}', "not valid UTF-8"),  # an overlong "/"
    (b'{"cmd": "info"\x00}', "not valid JSON"),
    (b'{"cmd": "\\ud800"}', ""),  # a lone surrogate: refused one way or another, never a crash
]


def launch_unix(*extra):
    folder = tempfile.mkdtemp(prefix="retrolua-abuse-")
    path = os.path.join(folder, "control.sock")
    process = subprocess.Popen([BINARY, "run", NES, "--headless", "--quiet", "--control", "unix:" + path, *extra],
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 30
    while True:  # until it accepts (its socket's file appears just before it listens)
        try:
            connect(path).close()
            return process, folder, path
        except (FileNotFoundError, ConnectionRefusedError):
            if process.poll() is not None or time.time() > deadline:
                process.kill()
                raise RuntimeError("retrolua did not start: " + process.stderr.read().decode(errors="replace"))
            time.sleep(0.01)


def connect(path):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(30)
    sock.connect(path)
    return sock


def _reap(process, folder):
    """Waits for a server asked to quit (killing it after 30 s) and removes its folder."""
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
    process.stderr.close()
    shutil.rmtree(folder, ignore_errors=True)


class Lines:
    """A raw connection: requests sent as given, replies read line by line."""

    def __init__(self, sock):
        self.sock = sock
        self.file = sock.makefile("rb")

    def ask(self, line):
        try:
            self.sock.sendall(line + b"\n")
        except OSError:
            pass  # refused at once: its last reply is still to be read
        return self.reply()

    def reply(self):
        line = self.file.readline()
        return json.loads(line) if line else None

    def close(self):
        self.file.close()
        self.sock.close()


# Chunks typed into the console that must fail alone: the reply is the chunk's error, the connection and the
# run live on.
HOSTILE_CHUNKS = [
    ("while true do end", "runaway loop"),
    ("local function f() return f() end return f()", "runaway loop"),
    ("local function f() return 1 + f() end return f()", "stack overflow"),
    ("local t = {} while true do t[#t + 1] = ('x'):rep(1 << 20) end", "memory limit"),
    ("return setmetatable({}, {__tostring = function() while true do end end})", "runaway loop"),
    ("return setmetatable({}, {__tostring = function() return {} end})", "__tostring"),
    ("\x00\xff\xfe garbage", "console:1:"),
    ("os.execute('touch /tmp/retrolua-pwned')", "attempt to call a nil value"),
    ("emu.frameadvance())", "console:1:"),
    ("coroutine.wrap(function() emu.frameadvance() end)()", "only the main chunk can wait for frames"),
    ("error(setmetatable({}, {__tostring = function() error('again') end}))", ""),
]


class UnixAbuseTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.process, cls.folder, cls.path = launch_unix()

    @classmethod
    def tearDownClass(cls):
        try:
            Lines(connect(cls.path)).ask(b'{"cmd": "quit"}')
        except OSError:
            pass
        _reap(cls.process, cls.folder)

    def lines(self):
        return Lines(connect(self.path))

    def assertServing(self):
        """A fresh client is served: the emulator survived whatever the test did."""
        self.assertIsNone(self.process.poll(), "the emulator is still running")
        client = self.lines()
        reply = client.ask(b'{"cmd": "info"}')
        client.close()
        self.assertTrue(reply["ok"], reply)
        return reply["frame"]

    def test_malformed_requests_are_refused_by_name_and_the_connection_lives(self):
        client = self.lines()
        for line, expected in MALFORMED:
            with self.subTest(line=line[:60]):
                reply = client.ask(line)
                self.assertIsNotNone(reply, "the connection was closed")
                self.assertFalse(reply["ok"], reply)
                self.assertIn(expected, reply["error"])
                self.assertLess(len(reply["error"]), 600, "errors quote only a little of what came")
        self.assertTrue(client.ask(b'{"cmd": "hello"}')["ok"], "hello is accepted on a Unix socket")
        client.close()
        self.assertServing()

    def test_hostile_console_chunks_fail_alone(self):
        client = self.lines()
        for chunk, expected in HOSTILE_CHUNKS:
            with self.subTest(chunk=chunk[:60]):
                reply = client.ask(json.dumps({"cmd": "console", "lua": chunk}).encode())
                self.assertIsNotNone(reply, "the connection was closed")
                self.assertTrue(reply["ok"], reply)
                self.assertEqual(reply["status"], "error", reply)
                self.assertIn(expected, reply["error"])
                self.assertLess(len(reply["error"]), 2000)
        # What a chunk gives back is bounded, however large the value.
        huge = client.ask(b'{"cmd": "console", "lua": "return (\'x\'):rep(10000000), {(\'y\'):rep(10000000)}"}')
        self.assertEqual(huge["status"], "done", huge)
        self.assertLess(sum(len(value) for value in huge["values"]), 9000)
        many = client.ask(b'{"cmd": "console", "lua": "for i = 1, 100000 do print(i) end return 1"}')
        self.assertEqual(many["values"], ["1"], "a chunk printing much still answers")
        # The console still works, and so does the emulator.
        self.assertEqual(client.ask(b'{"cmd": "console", "lua": "1 + 1"}')["values"], ["2"])
        complete = client.ask(json.dumps({"cmd": "complete", "text": "(" * 100000 + "emu.fr"}).encode())
        self.assertEqual(complete["matches"], ["emu.frameadvance", "emu.framecount"])
        client.close()
        self.assertServing()

    def test_blank_lines_get_no_reply_and_crlf_is_whitespace(self):
        client = self.lines()
        client.sock.sendall(b"\n   \n\t\n\r\n")
        reply = client.ask(b'{"cmd": "info"}\r')
        self.assertTrue(reply["ok"], reply)
        client.close()

    def test_a_write_whose_length_differs_from_its_data_touches_nothing(self):
        client = Retrolua.connect("unix:" + self.path)
        before = client.read(0, 2048)
        megabyte = base64.b64encode(b"\xAA" * (1 << 20)).decode()
        with self.assertRaises(RetroluaError) as caught:
            client.request("write", address=2047, length=1, data=megabyte)
        self.assertIn('"length" (1) differs from the 1048576 bytes of "data"', str(caught.exception))
        with self.assertRaises(RetroluaError) as caught:
            client.request("write", address=2047, data=megabyte)
        self.assertIn("outside", str(caught.exception))
        self.assertEqual(client.read(0, 2048), before, "no byte of RAM changed")
        client.disconnect()
        self.assertServing()

    def test_a_client_that_never_reads_is_dropped_and_never_holds_up_another(self):
        other = self.lines()
        start = other.ask(b'{"cmd": "step", "frames": 1}')["frame"]
        silent = connect(self.path)
        # Each native frame reply is ~300 KB: 200 of them pass the 32 MiB cap; none is read yet.
        silent.sendall(b'{"cmd": "frame", "format": "native"}\n' * 200)
        for count in range(1, 21):
            reply = other.ask(b'{"cmd": "step", "frames": 2}')
            self.assertTrue(reply["ok"], reply)
            self.assertEqual(reply["frame"], start + 2 * count)
        for _ in range(200):  # every request of ours is a turn for the silent one too
            self.assertEqual(other.ask(b'{"cmd": "hello"}'), {"ok": True})
        received = b""
        while True:  # what reached it before it was dropped, then the end (or a reset: requests unread)
            try:
                chunk = silent.recv(1 << 20)
            except ConnectionResetError:
                break
            if not chunk:
                break
            received += chunk
        self.assertLess(received.count(b"\n"), 200, "the silent client was dropped before its last replies")
        silent.close()
        other.close()
        self.assertServing()

    def test_a_huge_reply_nobody_reads_does_not_stop_another_client_stepping(self):
        silent = connect(self.path)
        silent.sendall(b'{"cmd": "read", "address": 0, "length": 2048}\n' * 3)
        silent.sendall(b'{"cmd": "save_state"}\n')
        other = self.lines()
        for _ in range(10):
            self.assertTrue(other.ask(b'{"cmd": "step", "frames": 3}')["ok"])
        silent.close()
        other.close()
        self.assertServing()

    def test_a_100_megabyte_line_without_newline_is_dropped_and_others_are_served(self):
        flood = connect(self.path)
        failure = []

        def send():
            chunk = b"x" * (1 << 20)
            try:
                for _ in range(100):
                    flood.sendall(chunk)
            except OSError as error:
                failure.append(error)

        sender = threading.Thread(target=send)
        sender.start()
        other = self.lines()
        for _ in range(5):
            self.assertTrue(other.ask(b'{"cmd": "step", "frames": 1}')["ok"])
        sender.join(60)
        self.assertTrue(failure, "the server stopped reading and closed the flood")
        reply = json.loads(flood.makefile("rb").readline())
        self.assertIn("request line longer than 67108864 bytes", reply["error"])
        flood.close()
        other.close()
        self.assertServing()

    def test_partial_lines_of_several_clients_are_bounded_together(self):
        floods = [connect(self.path) for _ in range(3)]
        # 3 × 50 MB of unfinished lines: past the 128 MB bound the one that crossed it is dropped.
        refused = []
        for flood in floods:
            try:
                for _ in range(50):
                    flood.sendall(b"y" * (1 << 20))
            except OSError:
                refused.append(flood)
        self.assertServing()
        replies = []
        for flood in floods:
            flood.settimeout(0.5)
            try:
                line = flood.makefile("rb").readline()
                if line:
                    replies.append(json.loads(line)["error"])
            except OSError:
                pass
            flood.close()
        self.assertIn("the control socket's input buffers are full; closing", replies)
        self.assertServing()

    def test_thousands_of_one_byte_writes(self):
        client = self.lines()
        request = b'{"cmd": "hello"}\n'
        for _ in range(300):
            for index in range(len(request)):
                client.sock.send(request[index:index + 1])
        for _ in range(300):
            self.assertEqual(client.reply(), {"ok": True})
        client.close()

    def test_pipelined_requests_are_answered_in_order(self):
        client = self.lines()
        client.sock.sendall(b"".join(b'{"cmd": "step", "frames": 1}\n' for _ in range(100)))
        frames = [client.reply()["frame"] for _ in range(100)]
        self.assertEqual(frames, list(range(frames[0], frames[0] + 100)))
        client.close()

    def test_many_clients_at_once_and_the_crowd_beyond_the_limit_is_refused(self):
        crowd = [self.lines() for _ in range(MAX_CLIENTS + 8)]
        self.addCleanup(lambda: [client.close() for client in crowd])
        replies = [client.ask(b'{"cmd": "hello"}') for client in crowd]
        served = [reply for reply in replies if reply and reply["ok"]]
        refused = [reply for reply in replies if reply and not reply["ok"]]
        self.assertEqual(len(served) + len(refused), len(crowd))
        self.assertGreaterEqual(len(refused), 8)
        self.assertLessEqual(len(served), MAX_CLIENTS)
        for reply in refused:
            self.assertEqual(reply["error"], "too many control clients (32); closing")
        for client in crowd:
            client.close()
        self.assertServing()

    def test_a_long_step_runs_in_slices_between_other_clients_requests(self):
        start = self.assertServing()
        stepper, other = self.lines(), self.lines()
        stepper.sock.sendall(b'{"cmd": "step", "frames": 1200, "input": {"right": true}}\n')
        seen, extra = [], 0
        stepper.sock.setblocking(False)
        waiting = b""
        while b"\n" not in waiting:
            reply = other.ask(b'{"cmd": "step", "frames": 1}')
            self.assertTrue(reply["ok"], reply)
            extra += 1
            seen.append(reply["frame"])
            try:
                waiting += stepper.sock.recv(65536)
            except BlockingIOError:
                pass
        stepper.sock.setblocking(True)
        reply = json.loads(waiting.split(b"\n")[0])
        self.assertEqual((reply["ok"], reply["frames"]), (True, 1200), "its own frames only")
        self.assertTrue(any(start < frame < start + 1200 for frame in seen), "served in the middle of the step")
        self.assertEqual(self.assertServing(), start + 1200 + extra)
        stepper.close()
        other.close()

    def test_a_client_that_leaves_mid_step_has_its_step_abandoned(self):
        start = self.assertServing()
        leaver = connect(self.path)
        leaver.sendall(b'{"cmd": "step", "frames": 100000}\n')
        time.sleep(0.05)
        leaver.close()
        frames = [self.assertServing()]
        while len(frames) < 2 or frames[-1] != frames[-2]:  # stops advancing once the step is dropped
            time.sleep(0.05)
            frames.append(self.assertServing())
        self.assertLess(frames[-1], start + 100000)

    def test_a_client_that_disconnects_mid_reply(self):
        for _ in range(3):
            leaver = connect(self.path)
            leaver.sendall(b'{"cmd": "frame", "format": "rgba"}\n{"cmd": "save_state"}\n')
            leaver.recv(100)  # the first bytes of the reply, then gone
            leaver.close()
        self.assertServing()

    def test_a_client_that_half_closes_still_gets_its_replies(self):
        client = connect(self.path)
        client.sendall(b'{"cmd": "hello"}\n{"cmd": "info"}\n')
        client.shutdown(socket.SHUT_WR)
        replies = client.makefile("rb").read().splitlines()
        self.assertEqual(len(replies), 2)
        self.assertTrue(all(json.loads(line)["ok"] for line in replies))
        client.close()

    def test_a_client_that_leaves_mid_request(self):
        for fragment in [b'{"cmd": "step", "fra', b"\xff\xfe", b"[" * 10000]:
            leaver = connect(self.path)
            leaver.sendall(fragment)
            leaver.close()
        self.assertServing()

    @unittest.skipUnless(os.geteuid() == 0 and shutil.which("setpriv"), "needs root and setpriv for another uid")
    def test_another_user_is_refused_on_a_unix_socket(self):
        os.chmod(self.folder, 0o755)
        os.chmod(self.path, 0o777)  # open the file to all: the peer's uid still decides
        script = ("import socket; s = socket.socket(socket.AF_UNIX); s.connect(%r); "
                  "print(s.makefile('rb').read().decode())" % self.path)
        result = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c",
                                 script], capture_output=True, timeout=30)
        os.chmod(self.path, 0o600)
        os.chmod(self.folder, 0o700)
        lines = [line for line in result.stdout.decode().splitlines() if line]
        self.assertEqual(len(lines), 1, result.stdout + result.stderr)
        reply = json.loads(lines[0])
        self.assertEqual(reply["error"], "this control socket serves uid 0 only; refusing uid 65534")
        self.assertServing()


class TCPTokenTests(unittest.TestCase):
    TOKEN = "correct-horse-battery-staple-42"

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp(prefix="retrolua-abuse-")
        token_file = os.path.join(cls.folder, "token")
        with open(token_file, "w") as file:
            file.write(cls.TOKEN + "\n")
        cls.process = subprocess.Popen(
            [BINARY, "run", NES, "--headless", "--quiet", "--control", "tcp:127.0.0.1:0", "--control-token", token_file],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        line = cls.process.stderr.readline().decode()
        cls.port = int(re.search(r"tcp:127\.0\.0\.1:(\d+)", line).group(1))

    @classmethod
    def tearDownClass(cls):
        try:
            Retrolua.connect("tcp:127.0.0.1:%d" % cls.port, token=cls.TOKEN).close()
        except (OSError, RetroluaError):
            pass
        _reap(cls.process, cls.folder)

    def lines(self):
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=30)
        return Lines(sock)

    def assertRefusedAndClosed(self, first, expected):
        client = self.lines()
        reply = client.ask(first)
        self.assertFalse(reply["ok"], reply)
        self.assertIn(expected, reply["error"])
        self.assertIsNone(client.reply(), "the connection is closed after a refused hello")
        client.close()
        self.assertServing()

    def assertServing(self):
        client = Retrolua.connect("tcp:127.0.0.1:%d" % self.port, token=self.TOKEN)
        self.assertIn("frame", client.info())
        client.disconnect()

    def test_a_request_before_hello_is_refused(self):
        self.assertRefusedAndClosed(b'{"cmd": "info"}', 'needs {"cmd": "hello", "token": "…"} as the first request')

    def test_a_wrong_token_is_refused(self):
        self.assertRefusedAndClosed(b'{"cmd": "hello", "token": "correct-horse-battery-staple-43"}',
                                    "wrong control token")

    def test_a_token_prefix_or_an_empty_token_is_refused(self):
        self.assertRefusedAndClosed(b'{"cmd": "hello", "token": "correct-horse"}', "wrong control token")
        self.assertRefusedAndClosed(b'{"cmd": "hello", "token": ""}', "wrong control token")

    def test_a_token_of_the_wrong_type_is_refused(self):
        self.assertRefusedAndClosed(b'{"cmd": "hello", "token": 42}', 'hello needs "token": a string')
        self.assertRefusedAndClosed(b'{"cmd": "hello"}', 'hello needs "token": a string')

    def test_garbage_before_hello_is_refused(self):
        self.assertRefusedAndClosed(b"\xff\xfe not json", 'needs {"cmd": "hello"')
        self.assertRefusedAndClosed(b'{"cmd": "eval", "lua": "os.execute(\'id\')"}', 'needs {"cmd": "hello"')

    def test_a_long_line_before_hello_is_cut_short(self):
        client = self.lines()
        try:
            client.sock.sendall(b"z" * 5000)  # all read before the refusal: a close without a reset
        except OSError:
            pass
        reply = client.reply()
        self.assertEqual(reply["error"], "the first request (hello) is longer than 4096 bytes; closing")
        client.close()
        self.assertServing()

    def test_the_right_token_admits_and_the_connection_serves(self):
        client = self.lines()
        self.assertEqual(client.ask(('{"cmd": "hello", "token": "%s"}' % self.TOKEN).encode()), {"ok": True})
        self.assertTrue(client.ask(b'{"cmd": "step", "frames": 2}')["ok"])
        self.assertTrue(client.ask(b'{"cmd": "hello"}')["ok"], "a later hello is a no-op")
        self.assertIn("a request is a JSON object", client.ask(b"[]")["error"])
        client.close()

    def test_silent_strangers_never_keep_a_client_with_the_token_out(self):
        strangers = [socket.create_connection(("127.0.0.1", self.port), timeout=30) for _ in range(MAX_CLIENTS + 8)]
        try:
            self.assertServing()  # the oldest waiting connections made room
            self.assertIn(b"too many connections waiting to say hello", strangers[0].recv(4096))
        finally:
            for sock in strangers:
                sock.close()

    def test_a_connection_that_never_says_hello_is_closed(self):
        client = self.lines()
        reply = client.reply()  # waits: the server closes it after its hello deadline
        self.assertEqual(reply["error"], "no hello with the token within 5 s; closing")
        self.assertIsNone(client.reply())
        client.close()

    def test_the_client_without_a_token_says_so(self):
        with self.assertRaises(RetroluaError) as caught:
            Retrolua.connect("tcp:127.0.0.1:%d" % self.port, data_folder=os.path.join(self.folder, "data"))
        self.assertIn("no control token", str(caught.exception))


class TokenArgumentTests(unittest.TestCase):
    def run_cli(self, *args):
        return subprocess.run([BINARY, "run", NES, "--headless", *args], capture_output=True, timeout=60)

    def test_a_short_or_missing_token_file_is_refused(self):
        folder = tempfile.mkdtemp(prefix="retrolua-abuse-")
        short = os.path.join(folder, "short")
        with open(short, "w") as file:
            file.write("abc\n")
        result = self.run_cli("--control", "tcp:127.0.0.1:0", "--control-token", short)
        self.assertEqual(result.returncode, 1)
        self.assertIn(b"the token must be 16 to 256 characters", result.stderr)
        result = self.run_cli("--control", "tcp:127.0.0.1:0", "--control-token", os.path.join(folder, "none"))
        self.assertIn(b"cannot read the token file", result.stderr)
        shutil.rmtree(folder)

    def test_a_token_for_a_unix_socket_or_without_control_is_a_usage_error(self):
        result = self.run_cli("--control", "unix:/tmp/x.sock", "--control-token", "/tmp/t")
        self.assertEqual(result.returncode, 2)
        self.assertIn(b"--control-token applies to tcp", result.stderr)
        result = self.run_cli("--control-token", "/tmp/t")
        self.assertEqual(result.returncode, 2)
        self.assertIn(b"--control-token applies to --control", result.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=1)
