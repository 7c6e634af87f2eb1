"""The console as a person uses it: `run --console` on a pseudo-terminal (line editing, completion, history,
Ctrl-C, Ctrl-D), `retrolua attach` into headless and windowed runs (typed and piped), two consoles at once,
and the per-user socket every windowed run opens. Run by the Swift suite (Tests/HostTests/ConsoleTerminalTests.swift)
with RETROLUA pointing at the built binary, under Xvfb."""

import os
import pty
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import termios
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("RETROLUA", os.path.join(ROOT, ".build", "debug", "retrolua"))
DODGE = os.path.join(ROOT, "build", "roms", "dodge.nes")


class Terminal:
    """A process on a pseudo-terminal: keys in, screen text out."""

    def __init__(self, argv, env):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execve(argv[0], argv, env)
        self.seen = ""
        self.transcript = ""  # everything shown, for a failure's message (`seen` drops what was matched)

    def read_until(self, text, timeout=20.0):
        deadline = time.time() + timeout
        while text not in self.seen:
            left = deadline - time.time()
            if left <= 0:
                raise AssertionError(f"never saw {text!r}; the terminal showed:\n{self.transcript[-4000:]}\n"
                                     f"{self.threads()}")
            ready, _, _ = select.select([self.fd], [], [], min(left, 0.2))
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"ended before {text!r}:\n{self.seen[-2000:]}")
                self.seen += chunk.decode("utf-8", "replace")
                self.transcript += chunk.decode("utf-8", "replace")
        found = self.seen
        self.seen = self.seen[self.seen.index(text) + len(text):]
        return found

    def threads(self):
        """What each of the process's threads waits in, and the terminal's modes: for a failure's message."""
        lines = []
        try:
            for task in sorted(os.listdir(f"/proc/{self.pid}/task")):
                with open(f"/proc/{self.pid}/task/{task}/stat") as stat, open(f"/proc/{self.pid}/task/{task}/wchan") as wchan:
                    fields = stat.read().rsplit(")", 1)
                    lines.append(f"thread {task} {fields[0].split('(', 1)[1]}: state {fields[1].split()[0]}, "
                                 f"waits in {wchan.read() or '-'}")
            lflag = termios.tcgetattr(self.fd)[3]
            lines.append(f"terminal: ICANON {bool(lflag & termios.ICANON)}, ECHO {bool(lflag & termios.ECHO)}, "
                         f"ISIG {bool(lflag & termios.ISIG)}")
        except OSError as error:
            lines.append(f"(cannot look: {error})")
        return "\n".join(lines)

    def type(self, keys):
        # As a person types: once the line editor holds the terminal (raw mode, after its prompt). Keys typed
        # ahead into the canonical mode between two lines are the kernel's to interpret (Ctrl-D there is lost).
        deadline = time.time() + 10
        while termios.tcgetattr(self.fd)[3] & termios.ICANON and time.time() < deadline:
            time.sleep(0.005)
        os.write(self.fd, keys.encode() if isinstance(keys, str) else keys)

    def wait(self, timeout=20.0):
        deadline = time.time() + timeout
        while time.time() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
            try:
                ready, _, _ = select.select([self.fd], [], [], 0.1)
                if ready:
                    text = os.read(self.fd, 65536).decode("utf-8", "replace")
                    self.seen += text
                    self.transcript += text
            except OSError:
                time.sleep(0.05)
        os.kill(self.pid, signal.SIGKILL)
        raise AssertionError(f"the process did not end; the terminal showed:\n{self.transcript[-4000:]}")


class ConsoleTerminalTests(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp(prefix="retrolua-console-")
        runtime = os.path.join(self.folder, "runtime")
        os.mkdir(runtime, 0o700)
        self.env = dict(os.environ)
        # A runtime folder and a state folder of the test's own: only its games are found, its history is its own.
        self.env.update(XDG_RUNTIME_DIR=runtime, XDG_STATE_HOME=os.path.join(self.folder, "state"),
                        HOME=self.folder, TERM="xterm")
        self.runtime = os.path.join(runtime, "retrolua")
        self.processes = []

    def tearDown(self):
        for process in self.processes:
            if process.poll() is None:
                process.kill()
                process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)

    def start(self, *arguments):
        process = subprocess.Popen([BINARY, "run", DODGE, *arguments], env=self.env,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.processes.append(process)
        return process

    def attach(self, *arguments, lines=""):
        return subprocess.run([BINARY, "attach", *arguments], input=lines, env=self.env, capture_output=True,
                              text=True, timeout=60)

    def wait_for_socket(self, process):
        path = os.path.join(self.runtime, f"{process.pid}.sock")
        deadline = time.time() + 30
        while time.time() < deadline:
            if os.path.exists(path):
                probe = socket.socket(socket.AF_UNIX)
                try:
                    probe.connect(path)
                    return path
                except OSError:
                    pass
                finally:
                    probe.close()
            if process.poll() is not None:
                self.fail(f"the run ended: {process.stderr.read()}")
            time.sleep(0.05)
        self.fail(f"no socket at {path}")

    def test_run_console_on_a_terminal(self):
        term = Terminal([BINARY, "run", DODGE, "--headless", "--console"], self.env)
        term.read_until("> ")
        term.type("1+1\r")
        term.read_until("\r\n2\r\n")
        term.read_until("> ")
        # Tab completes a name; a second Tab on several lists them.
        term.type("emu.framec\t()\r")
        term.read_until("ount()\r\n0\r\n")
        term.read_until("> ")
        term.type("emu.fra\t\t")
        listed = term.read_until("emu.framecount")
        self.assertIn("emu.frameadvance", listed)
        term.type("count() + 1000\r")
        term.read_until("\r\n1000\r\n")
        term.read_until("> ")
        # The game runs only when stepped; frameadvance runs one frame and returns.
        term.type("emu.frameadvance(); emu.frameadvance(); return emu.framecount() * 7\r")
        term.read_until("\r\n14\r\n")
        term.read_until("> ")
        # A chunk left open gathers lines under >>.
        term.type("for i = 1, 3 do\r")
        term.read_until(">> ")
        term.type("print('line', i) end\r")
        out = term.read_until("> ").replace("\r", "")
        self.assertIn("line\t1\nline\t2\nline\t3", out)
        # Ctrl-C drops the line being typed, not the run.
        term.type("this is not lua")
        term.type("\x03")
        term.read_until("^C")
        term.read_until("> ")
        term.type("'still here'\r")
        term.read_until("\r\nstill here\r\n")
        term.read_until("> ")
        # Up recalls the history.
        term.type("\x1b[A\r")
        term.read_until("\r\nstill here\r\n")
        term.read_until("> ")
        # Errors say where.
        term.type("nosuch.thing()\r")
        term.read_until("console:1: attempt to index a nil value (global 'nosuch')")
        term.read_until("> ")
        # Ctrl-D leaves: the run ends normally.
        term.type("\x04")
        self.assertEqual(term.wait(), 0)
        history = open(os.path.join(self.folder, "state", "retrolua", "console_history")).read()
        self.assertIn("nosuch.thing()", history)  # libedit's file: one line an entry, spaces as \\040

    def test_run_console_beside_a_window(self):
        term = Terminal([BINARY, "run", DODGE, "--console", "--no-audio"], self.env)
        term.read_until("> ")
        term.type("emu.framecount() > 0, emu.paused()\r")
        term.read_until("\r\ntrue\tfalse\r\n")
        term.read_until("> ")
        term.type("emu.pause(); local n = emu.framecount(); emu.frameadvance(); return emu.framecount() - n\r")
        term.read_until("\r\n1\r\n")
        term.read_until("> ")
        term.type("\x04")  # Ctrl-D ends the run, as closing the window does
        self.assertEqual(term.wait(), 0, term.transcript)

    def test_attach_to_a_headless_run_by_address(self):
        path = os.path.join(self.folder, "game.sock")
        run = self.start("--headless", "--control", "unix:" + path)
        deadline = time.time() + 30
        while not os.path.exists(path) and time.time() < deadline:
            time.sleep(0.05)
        piped = self.attach("unix:" + path, lines="emu.framecount()\nx = 40\nx + 2\nprint('hi')\n")
        self.assertEqual(piped.returncode, 0, piped.stderr)
        self.assertEqual(piped.stdout.splitlines(), ["0", "42", "hi"])
        failed = self.attach("unix:" + path, lines="error('no')\nx\n")
        self.assertEqual(failed.returncode, 1)
        self.assertEqual(failed.stdout.strip(), "40")  # the state persists between attaches
        self.assertIn("console:1: no", failed.stderr)
        unfinished = self.attach("unix:" + path, lines="for i = 1, 2 do\n")
        self.assertEqual(unfinished.returncode, 1)
        self.assertIn("the input ended inside a chunk", unfinished.stderr)
        quit = self.attach("unix:" + path, lines="emu.exit()\n")
        self.assertEqual(quit.returncode, 0, quit.stderr)
        self.assertEqual(run.wait(timeout=30), 0)

    def test_every_windowed_run_listens_and_attach_finds_it(self):
        run = self.start("--speed", "1")
        self.wait_for_socket(run)
        piped = self.attach(lines="emu.framecount() > 0\nemu.info().core\n")
        self.assertEqual(piped.returncode, 0, piped.stderr)
        self.assertEqual(piped.stdout.splitlines(), ["true", "nestopia"])
        # Two consoles at once: a person at a terminal and a piped one share the game's console state.
        term = Terminal([BINARY, "attach"], self.env)
        term.read_until("> ")
        term.type("shared = 'from the terminal'\r")
        term.read_until("> ")
        other = self.attach(lines="shared\n")
        self.assertEqual(other.stdout.strip(), "from the terminal", other.stderr)
        # Pausing and stepping a windowed game from the console.
        term.type("emu.pause(); local before = emu.framecount(); emu.frameadvance(); return emu.framecount() - before\r")
        self.assertIn("1", term.read_until("> "))
        term.type("emu.paused()\r")
        self.assertIn("true", term.read_until("> "))
        term.type("\x04")  # Ctrl-D leaves the console; the game goes on
        self.assertEqual(term.wait(), 0)
        self.assertIsNone(run.poll())
        self.assertEqual(self.attach(lines="emu.unpause()\n").returncode, 0)
        # Another game: attach with no address lists both and names neither.
        second = self.start("--speed", "1")
        self.wait_for_socket(second)
        listed = self.attach(lines="1\n")
        self.assertEqual(listed.returncode, 1)
        self.assertIn("several games are running", listed.stderr)
        self.assertIn(str(run.pid), listed.stderr)
        self.assertIn(str(second.pid), listed.stderr)
        by_pid = self.attach(str(second.pid), lines="emu.exit()\n")
        self.assertEqual(by_pid.returncode, 0, by_pid.stderr)
        self.assertEqual(second.wait(timeout=30), 0)
        self.assertEqual(self.attach(lines="emu.exit()\n").returncode, 0)
        self.assertEqual(run.wait(timeout=30), 0)
        self.assertEqual(os.listdir(self.runtime), [], "each run removes its socket")

    def test_no_control_and_no_game(self):
        run = self.start("--no-control", "--frames", "30")
        self.assertEqual(run.wait(timeout=60), 0, run.stderr.read())
        self.assertFalse(os.path.exists(os.path.join(self.runtime, f"{run.pid}.sock")))
        nothing = self.attach(lines="1\n")
        self.assertEqual(nothing.returncode, 1)
        self.assertIn("no running game found", nothing.stderr)
        # A socket a crashed run left behind is not a game: it is removed on the way.
        os.makedirs(self.runtime, mode=0o700, exist_ok=True)
        stale = socket.socket(socket.AF_UNIX)
        stale.bind(os.path.join(self.runtime, "99999999.sock"))
        stale.close()
        self.assertIn("no running game found", self.attach(lines="1\n").stderr)
        self.assertEqual(os.listdir(self.runtime), [])
        for address, message in [("unix:/nonexistent/x.sock", "No such file"), ("tcp:127.0.0.1:1", "Unix sockets"),
                                  (os.path.join(ROOT, "README.md"), "Connection refused")]:
            bad = self.attach(address, lines="1\n")
            self.assertEqual(bad.returncode, 1, address)
            self.assertIn(message, bad.stderr, address)
        usage = subprocess.run([BINARY, "run", DODGE, "--console", "--no-control"], env=self.env,
                               capture_output=True, text=True, timeout=30)
        self.assertEqual(usage.returncode, 2)
        self.assertIn("--console talks to the run's socket", usage.stderr)

    @unittest.skipUnless(shutil.which("strace"), "strace is not installed")
    def test_a_failed_connection_closes_its_socket_once(self):
        # Closing a descriptor twice closes whatever another thread opened under that number in between:
        # `run --console` retries its connection while the run opens cores' .info files and scripts.
        log = os.path.join(self.folder, "strace.log")
        for address in ["unix:/nonexistent/x.sock", "unix:" + os.path.join(ROOT, "README.md")]:
            traced = subprocess.run(["strace", "-f", "-e", "trace=close", "-o", log, BINARY, "attach", address],
                                    env=self.env, capture_output=True, text=True, timeout=60)
            self.assertEqual(traced.returncode, 1, traced.stderr)
            self.assertNotIn("EBADF", open(log).read(), address)


if __name__ == "__main__":
    unittest.main(verbosity=2)
