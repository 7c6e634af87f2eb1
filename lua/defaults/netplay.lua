-- Default netplay, part of Retrolua's replaceable Lua frontend: runs the session `--netplay` asks for
-- (retrolua.netplay_run: rollback over UDP, two players and any number of spectators, the status line on
-- the OSD — ping, the last rollback, the delay, spectators) or, for `retrolua netplay-check`, the
-- SyncTest (retrolua.netplay_check). Without --netplay it does nothing (the menu's Netplay page starts
-- sessions in a window). Settings in ~/.config/retrolua/netplay.lua, e.g.
-- `return { delay = 3, prediction = 8, check_interval = 60, timeout = 5, show = true, record = "session.rlm" }`
-- (`record`: every side writes the session's confirmed inputs as a movie there when it ends;
-- `--netplay-delay` wins over `delay`, `--netplay-options host` over `core_options`; `--spectate` joins as
-- a spectator). The host plays port 1, the joiner port 2; each plays with the pad the input default maps
-- to port 1. Headless, the run ends with the session.

local request = net.netplay()
if not request then return end

if request.mode == "check" then
  return require("retrolua.netplay_check").run({ frames = request.frames, rollback = request.rollback,
                                                 buttons = request.buttons })
end

require("retrolua.netplay_run").start(request)
