"""Time to heal a desync: two headless `retrolua run --netplay` sessions on loopback, the joiner writing its
RAM for a few frames (a forced desync); the host then sends its state and both play on. Prints, per core, the
state's size and the time from the host's offer to the joiner having it (host) and to its loading it (joiner),
and whether both ended on the same RAM and state bytes (genesis_plus_gx's
state bytes differ between two processes in sync, healed or not; its memory does not).
Usage: netplay_heal.py RETROLUA."""
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = sys.argv[1]
CORES = [("nestopia", os.path.join(ROOT, "build", "cores", "nestopia_libretro.so"), "demo.nes"),
         ("genesis_plus_gx", os.path.join(ROOT, "build", "cores", "genesis_plus_gx_libretro.so"), "airstriker.md")]
WRITER = """
local frames = 0
event.on("frame_end", function()
  frames = frames + 1
  if frames >= 160 and frames < 166 then memory.write_u8(0x10, (memory.read_u8(0x10) + 0x55) % 256) end
end)
"""

with tempfile.TemporaryDirectory() as work:
    config = os.path.join(work, "config", "retrolua")
    os.makedirs(config)
    with open(os.path.join(config, "netplay.lua"), "w") as f:
        f.write("return { stop_after = 420, check_interval = 60 }\n")
    writer = os.path.join(work, "writer.lua")
    with open(writer, "w") as f:
        f.write(WRITER)
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(work, "config"), HOME=work)
    for index, (name, core, rom) in enumerate(CORES):
        if not os.path.exists(core):
            core = name
        port = 47800 + (os.getpid() + index) % 90
        common = [BINARY, "run", os.path.join(ROOT, "build", "roms", rom), "--core", core, "--headless", "--json"]
        host = subprocess.Popen(common + ["--netplay", f"host:{port}"], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, env=env, text=True)
        time.sleep(0.5)
        join = subprocess.Popen(common + ["--netplay", "join", f"127.0.0.1:{port}", "--script", writer],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
        outputs = [host.communicate(timeout=120)[0], join.communicate(timeout=120)[0]]
        results = [json.loads(out.splitlines()[-1])["results"] for out in outputs]
        same_ram = results[0].get("netplay_ram_hash") == results[1].get("netplay_ram_hash")
        same_state = results[0].get("netplay_state_hash") == results[1].get("netplay_state_hash")
        host_r, join_r = results
        print(f"{name + ' heal a desync':34s} {host_r.get('netplay_heal_ms', 0):.1f} ms host (offer to taken), "
              f"{join_r.get('netplay_heal_ms', 0):.1f} ms joiner (offer to loaded), "
              f"{host_r.get('netplay_heal_bytes', 0)} bytes of state; heals {host_r.get('netplay_heals', 0)}/"
              f"{join_r.get('netplay_heals', 0)} in {host_r.get('netplay_desync_domains', '-')}; "
              f"end RAM {'identical' if same_ram else 'DIFFERENT'}, "
              f"state bytes {'identical' if same_state else 'differ'}")
