"""`retrolua attach` against games that misbehave: a fake game (a Unix socket this test serves, in a runtime
folder of its own) that accepts the console's chunk and never answers — attach ends on SIGINT, SIGTERM and
SIGHUP with a message and 128 + the signal, and on its --timeout — and one that answers with terminal escape
sequences (a window title, clear screen, hidden text, C1 controls), which attach shows escaped. Run by the
Swift suite (Tests/HostTests/ConsoleTerminalTests.swift) with RETROLUA pointing at the built binary; no game
or core is needed."""

import json
import os
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("RETROLUA", os.path.join(ROOT, ".build", "debug", "retrolua"))
ENDED = 60  # seconds: a generous "it ended", never a measure of speed


class FakeGame:
    """A control socket that says hello, answers `info`, and answers `console` with `reply` (None: never)."""

    def __init__(self, path, reply=None):
        self.reply = reply
        self.chunk_arrived = threading.Event()
        self.server = socket.socket(socket.AF_UNIX)
        self.server.bind(path)
        self.server.listen(4)
        self.connections = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            self.connections.append(connection)
            threading.Thread(target=self._answer, args=(connection,), daemon=True).start()

    def _answer(self, connection):
        pending = b""
        while True:
            try:
                data = connection.recv(65536)
            except OSError:
                return
            if not data:
                return
            pending += data
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                request = json.loads(line)
                if request["cmd"] == "hello":
                    answer = {"ok": True}
                elif request["cmd"] == "info":
                    answer = {"ok": True, "content": "fake\x1b]0;owned\x07.nes", "core": "fake", "frame": 1}
                elif request["cmd"] == "console":
                    self.chunk_arrived.set()
                    if self.reply is None:
                        continue  # accepted, never answered
                    answer = dict(self.reply, ok=True)
                else:
                    answer = {"ok": False, "error": "unknown"}
                connection.sendall(json.dumps(answer).encode() + b"\n")

    def close(self):
        self.server.close()
        for connection in self.connections:
            connection.close()


class AttachToMisbehavingGamesTests(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp(prefix="retrolua-attach-")
        runtime = os.path.join(self.folder, "runtime")
        os.makedirs(os.path.join(runtime, "retrolua"), 0o700)
        os.chmod(os.path.join(runtime, "retrolua"), 0o700)
        self.env = dict(os.environ, XDG_RUNTIME_DIR=runtime, XDG_STATE_HOME=os.path.join(self.folder, "state"),
                        HOME=self.folder)
        # The one running game attach finds without an address: named like a run's socket (PID.sock).
        self.socket = os.path.join(runtime, "retrolua", "%d.sock" % os.getpid())
        self.games = []

    def tearDown(self):
        for game in self.games:
            game.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def game(self, reply=None):
        game = FakeGame(self.socket, reply)
        self.games.append(game)
        return game

    def attach(self, *arguments):
        return subprocess.Popen([BINARY, "attach", *arguments], env=self.env, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def finish(self, process, lines=None):
        """Waits for attach to end (stdin left open unless `lines` are its whole input): status, out, err."""
        try:
            if lines is not None:
                out, err = process.communicate(lines, timeout=ENDED)
            else:
                process.wait(timeout=ENDED)  # its output is small: the pipes never fill
                out, err = process.stdout.read(), process.stderr.read()
                process.stdin.close()
                process.stdout.close()
                process.stderr.close()
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
            self.fail("attach did not end: %r %r" % (out, err))
        return process.returncode, out.decode(errors="replace"), err.decode(errors="replace")

    def test_a_game_that_never_answers_yields_to_each_stop_signal(self):
        for number, name in [(signal.SIGINT, "SIGINT"), (signal.SIGTERM, "SIGTERM"), (signal.SIGHUP, "SIGHUP")]:
            with self.subTest(signal=name):
                game = self.game()
                process = self.attach()  # finds the one game; stdin stays open
                process.stdin.write(b"emu.framecount()\n")
                process.stdin.flush()
                self.assertTrue(game.chunk_arrived.wait(ENDED), "the chunk never reached the game")
                process.send_signal(number)
                status, _, err = self.finish(process)
                self.assertEqual(status, 128 + number, err)
                self.assertIn("stopped by %s" % name, err)
                self.assertIn("while waiting for the game's reply", err)
                game.close()
                self.games.remove(game)
                os.unlink(self.socket)

    def test_a_stop_signal_ends_the_wait_for_piped_input_too(self):
        self.game({"status": "ok", "values": ["1"]})
        process = self.attach("unix:" + self.socket)
        process.stdin.write(b"1\n")  # answered; then attach waits for a next line that never comes
        process.stdin.flush()
        ready, _, _ = select.select([process.stdout], [], [], ENDED)
        self.assertTrue(ready and process.stdout.readline() == b"1\n", "the answer was not shown")
        process.send_signal(signal.SIGTERM)
        status, _, err = self.finish(process)
        self.assertEqual(status, 128 + signal.SIGTERM, err)
        self.assertIn("stopped by SIGTERM while reading the input", err)

    def test_a_game_that_never_answers_times_out(self):
        self.game()
        process = self.attach("unix:" + self.socket, "--timeout", "1")
        status, _, err = self.finish(process, b"emu.framecount()\n")
        self.assertEqual(status, 1, err)
        self.assertIn("the game sent no reply in 1 second; it may be stuck", err)

    def test_the_timeout_is_checked(self):
        status, _, err = self.finish(self.attach("--timeout", "-3"), b"")
        self.assertEqual(status, 2, err)
        self.assertIn("--timeout must be a number of seconds", err)

    def test_escape_sequences_from_the_game_are_shown_escaped(self):
        hostile = {"status": "ok", "values": ["\x1b]0;retitled\x07", "\x1b[2J\x1b[H"],
                   "output": [{"stream": "out", "text": "shown\x1b[8mhidden\x1b[0m\rover"},
                              {"stream": "err", "text": "bell\x07 csi\u009b31m rtl\u202eexe.txt"}]}
        self.game(hostile)
        process = self.attach("unix:" + self.socket)
        status, out, err = self.finish_with(process, b"print('x')\n")
        self.assertEqual(status, 0, err)
        for raw in ("\x1b", "\x07", "\r", "\u009b", "\u202e"):
            self.assertNotIn(raw, out + err)
        self.assertIn("shown\\27[8mhidden\\27[0m\\13over\n", out)
        self.assertIn("\\27]0;retitled\\7\t\\27[2J\\27[H\n", out)
        self.assertIn("bell\\7 csi\\u{9B}31m rtl\\u{202E}exe.txt\n", err)

    def test_an_error_from_the_game_is_shown_escaped(self):
        self.game({"status": "error", "error": "boom\x1b[31m red"})
        process = self.attach("unix:" + self.socket)
        status, out, err = self.finish_with(process, b"error('x')\n")
        self.assertEqual(status, 1, err)
        self.assertIn("boom\\27[31m red", err)
        self.assertNotIn("\x1b", out + err)

    def finish_with(self, process, lines):
        return self.finish(process, lines)

if __name__ == "__main__":
    unittest.main(verbosity=2)
