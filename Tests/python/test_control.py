"""End-to-end tests of the control socket through the Python client (run by the Swift test suite:
Tests/HostTests/ControlTests.swift, with RETROLUA pointing at the built binary)."""

import base64
import json
import os
import re
import socket
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

from retrolua.control import Retrolua, RetroluaError  # noqa: E402
from retrolua.env import RetroluaEnv  # noqa: E402

NES = os.path.join(ROOT, "build", "roms", "demo.nes")
SCENARIO = os.path.join(ROOT, "examples", "python", "demo_scenario.lua")


class ControlSocketTests(unittest.TestCase):
    def test_step_memory_states_frame_audio_info(self):
        with Retrolua.launch(NES, core="nestopia") as emu:
            info = emu.info()
            self.assertEqual(info["core"], "nestopia")
            self.assertEqual(info["frame"], 0)
            reply = emu.step(10, {"right": True})
            self.assertEqual((reply["frame"], reply["frames"], reply["lag"]), (10, 10, 0))
            x = emu.read(0x03)[0]
            self.assertEqual(x, 126)  # the demo starts moving the player on its fifth frame
            state = emu.save_state()
            emu.step(20, {"left": True})
            self.assertEqual(emu.read(0x03)[0], x - 20)
            emu.load_state(state)
            self.assertEqual(emu.read(0x03)[0], x)
            emu.write(0x03, [50])
            self.assertEqual(emu.read(0x03)[0], 50)
            # nestopia's assembled bus: 2 KiB of RAM mirrored over $0000-$1FFF, read across a mirror's edge
            self.assertEqual(emu.read(0x0803, domain="bus")[0], 50)
            self.assertEqual(emu.read(0x07FF, 5, domain="bus"), emu.read(0x07FF, 1) + emu.read(0x00, 4))
            width, height, rgb = emu.frame()
            self.assertEqual((width, height, len(rgb)), (256, 224, 256 * 224 * 3))
            self.assertEqual(rgb[0:3], bytes([0x15, 0x3C, 0xFE]))  # the demo's background colour
            native = emu.request("frame", format="native")
            self.assertEqual(native["pixel_format"], "XRGB8888")
            self.assertEqual(base64.b64decode(native["data"])[0:4], bytes([0xFE, 0x3C, 0x15, 0x00]))  # B G R X
            emu.step(1, {"b": True})
            rate, samples = emu.audio()
            self.assertGreater(rate, 0)
            self.assertGreater(len(samples), 0)
            emu.save_state(slot=3)
            emu.step(5, {"right": True})
            emu.load_state(slot=3)
            self.assertEqual(emu.read(0x03)[0], 50)

    def test_malformed_requests_get_errors_and_the_connection_lives(self):
        with Retrolua.launch(NES, core="nestopia") as emu:
            raw = emu._file
            for line, expected in [(b"{not json\n", "malformed request"), (b"[1, 2]\n", "JSON object"),
                                   (b'{"x": 1}\n', 'no "cmd"'), (b'{"cmd": "fly"}\n', "unknown command 'fly'"),
                                   (b'{"cmd": "step", "input": {"jump": true}}\n', "unknown button 'jump'"),
                                   (b'{"cmd": "read", "address": 99999999}\n', "outside"),
                                   (b'{"cmd": "eval", "lua": "return 1"}\n', "only allowed with --trust")]:
                raw.write(line)
                raw.flush()
                reply = json.loads(raw.readline())
                self.assertFalse(reply["ok"])
                self.assertIn(expected, reply["error"])
            self.assertEqual(emu.info()["frame"], 0)

    def test_a_client_that_disconnects_does_not_stop_the_emulator(self):
        emu = Retrolua.launch(NES, core="nestopia")
        emu.step(30)
        path = os.path.join(emu._folder, "control.sock")
        emu.disconnect()  # gone without a word
        half = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        half.connect(path)
        half.sendall(b'{"cmd": "step", "fra')  # and one that leaves mid-request
        half.close()
        self.assertIsNone(emu._process.poll(), "the emulator keeps running")
        again = Retrolua.connect("unix:" + path)
        self.assertEqual(again.step(1)["frame"], 31)
        again._process, again._folder = emu._process, emu._folder
        again.close()
        self.assertEqual(emu._process.returncode, 0)

    def test_loopback_tcp(self):
        binary = os.environ.get("RETROLUA", "retrolua")
        process = subprocess.Popen([binary, "run", NES, "--headless", "--quiet", "--control", "tcp:127.0.0.1:0"],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            line = process.stderr.readline().decode()
            self.assertIn("control socket listening on tcp:127.0.0.1:", line)
            address = line.strip().rsplit(" ", 1)[1]
            token_line = process.stderr.readline().decode()
            match = re.search(r"control token ([0-9a-f]{32}) \(also in (.*control-\d+\.token)\)$", token_line.strip())
            self.assertIsNotNone(match, token_line)
            token, token_file = match.group(1), match.group(2)
            self.assertEqual(os.stat(token_file).st_mode & 0o777, 0o600)
            with self.assertRaises(RetroluaError) as caught:
                Retrolua.connect(address, token="0" * 32)
            self.assertIn("wrong control token", str(caught.exception))
            emu = Retrolua.connect(address, token=token)
            self.assertEqual(emu.step(5, {"right": True})["frame"], 5)
            emu.disconnect()
            emu = Retrolua.connect(address)  # the token from the file beside the data folder
            self.assertEqual(emu.step(1)["frame"], 6)
            emu.close()
            self.assertEqual(process.wait(timeout=30), 0)
            self.assertFalse(os.path.exists(token_file), "the token file goes with the run")
        finally:
            if process.poll() is None:
                process.kill()

    def test_eval_with_trust_and_the_gym_style_environment(self):
        with Retrolua.launch(NES, core="nestopia", extra_args=["--trust", "--script-budget", "5"]) as emu:
            emu.step(3)
            self.assertEqual(emu.eval("return emu.framecount(), {1, 2}, 'x'"), [3, [1, 2], "x"])
            with self.assertRaises(RetroluaError) as caught:
                emu.eval("error('boom')")
            self.assertIn("boom", str(caught.exception))
            with self.assertRaises(RetroluaError) as caught:
                emu.eval("while true do end")
            self.assertIn("runaway loop", str(caught.exception))
            self.assertEqual(emu.step(1)["frame"], 4, "the emulator goes on")
        env = RetroluaEnv(NES, scenario=SCENARIO, core="nestopia", actions=[{}, {"right": True}], frameskip=4,
                          warmup_frames=10, obs="ram")
        try:
            observation, _ = env.reset()
            self.assertEqual(len(observation), 2048)
            total, steps, terminated = 0.0, 0, False
            while not terminated and steps < 100:
                observation, reward, terminated, truncated, info = env.step(1)
                total += reward
                steps += 1
            self.assertTrue(terminated)
            self.assertEqual(observation[0x03], 200)
            self.assertEqual(total, 200 - 120)
            observation, _ = env.reset()
            self.assertEqual(observation[0x03], 120)
        finally:
            env.close()


if __name__ == "__main__":
    unittest.main(verbosity=1)
