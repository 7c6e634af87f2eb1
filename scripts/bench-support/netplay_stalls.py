"""A netplay session of 3,600 frames (a minute at 60 fps) through a relay adding MS each way (jitter a fifth
of it, 5 % loss), headless runs pacing themselves: frames each side stalled waiting for the other's input,
rollbacks, the round trip, and the delay and prediction the session ended on (adaptive: from delay 2 up;
a number as DELAY fixes it, prediction 8). Usage: netplay_stalls.py RETROLUA [DELAY|auto] [MS] [CORE]
(CORE: nestopia, demo.nes, or genesis_plus_gx, airstriker.md)."""
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "Tests", "python"))
from netplay_relay import Relay  # noqa: E402

BINARY = sys.argv[1]
DELAY = sys.argv[2] if len(sys.argv) > 2 else "auto"
MS = int(sys.argv[3]) if len(sys.argv) > 3 else 120
CORE = sys.argv[4] if len(sys.argv) > 4 else "nestopia"
ROM = os.path.join(ROOT, "build", "roms", "demo.nes" if CORE == "nestopia" else "airstriker.md")
CORE_PATH = os.path.join(ROOT, "build", "cores", CORE + "_libretro.so")
PORT = 47900 + os.getpid() % 90
INPUT = """
local v = %d
event.on("frame_end", function()
  v = (v * 1103515245 + 12345) & 0x7fffffff
  if emu.framecount() %% 6 == 0 then
    joypad.set_player(1, { right = v & 1 == 1, a = v & 2 == 2, b = v & 4 == 4, left = v & 8 == 8 })
  end
end)
"""

with tempfile.TemporaryDirectory() as work:
    config = os.path.join(work, "config", "retrolua")
    os.makedirs(config)
    with open(os.path.join(config, "netplay.lua"), "w") as f:
        f.write("return { stop_after = 3600 }\n")
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(work, "config"), HOME=work)
    scripts = []
    for seed in (11, 29):
        path = os.path.join(work, f"input{seed}.lua")
        with open(path, "w") as f:
            f.write(INPUT % seed)
        scripts.append(path)
    relay = Relay(("127.0.0.1", PORT), delay=MS / 1000, jitter=MS / 5000, loss=0.05, seed=5).start()
    common = [BINARY, "run", ROM, "--core", CORE_PATH if os.path.exists(CORE_PATH) else CORE, "--headless", "--json"]
    if DELAY != "auto":
        common += ["--netplay-delay", DELAY]
    host = subprocess.Popen(common + ["--netplay", f"host:{PORT}", "--script", scripts[0]],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
    time.sleep(0.5)
    join = subprocess.Popen(common + ["--netplay", "join", f"127.0.0.1:{relay.port}", "--script", scripts[1]],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
    outputs = [host.communicate(timeout=300)[0], join.communicate(timeout=300)[0]]
    relay.stop()
    results = [json.loads(out)["results"] for out in outputs]
    same = results[0].get("netplay_ram_hash") == results[1].get("netplay_ram_hash")
    label = f"{CORE} {MS}±{MS // 5} ms, delay {DELAY}"
    for side, result in zip(("host", "joiner"), results):
        frames = result.get("netplay_frames", 0) or 1
        print(f"{label + ', ' + side:34s} {result.get('netplay_stall_frames', 0) * 3600 / frames:.1f} frames of "
              f"visible stall a minute, {result.get('netplay_stall_seconds', 0) * 1000 * 3600 / frames:.0f} ms "
              f"(target 0 at 120 ms, <= 2 at 200); delay {result.get('netplay_delay')} "
              f"({result.get('netplay_delay_changes', 0)} "
              f"changes), prediction {result.get('netplay_prediction')}; {result.get('netplay_rollbacks', 0)} "
              f"rollbacks, {result.get('netplay_rollback_frames', 0)} frames replayed, longest "
              f"{result.get('netplay_max_rollback', 0)}; ping {result.get('netplay_ping_ms', 0):.0f} ms")
    print(f"{label + ', end RAM':34s} {'identical' if same else 'DIFFERENT'} "
          f"({relay.dropped} datagrams dropped by the relay)")
