-- Runs one netplay session for the script that calls `start` (the netplay default for `--netplay`, the
-- menu's Netplay page): the session (retrolua.netplay, or retrolua.netplay_watch for a spectator), its
-- relay room, the frame events, the results a `--json` run reports, the movie (`record`) and the status
-- line at the bottom of the HUD (ping, the longest recent rollback, delay, spectators).

local netplay = require("retrolua.netplay")

local netplay_run = {}

--- The netplay settings (~/.config/retrolua/netplay.lua over the defaults).
function netplay_run.settings()
  local defaults = { show = true, record = "" }
  for key, value in pairs(netplay.defaults) do defaults[key] = value end
  return require("retrolua.settings").load("netplay", defaults)
end

local session, transport, windowed, exiting, settings

--- The session running (or ended) in this script, or nil.
function netplay_run.current()
  return session
end


-- What the run reports at its end (`retrolua run --json` prints them under results): the counters,
-- a desync's frame and hashes, and the hashes of the state and RAM the session ended on.
local function results()
  local out = {}
  for key, value in pairs(session.stats) do out[key] = value end
  out.frames, out.delay, out.prediction = session.frame, session.delay, session.prediction
  if session.desync then
    out.desync_frame, out.desync_here, out.desync_there, out.desync_domains =
      session.desync.frame, session.desync.here, session.desync.there, session.desync.domains
  end
  out.state_hash, out.ram_hash = savestate.create():hash(), memory.hash()
  if transport then
    for key, value in pairs(transport.counts) do out["relay_" .. key] = value end
  end
  return out
end

local function ended(reason, failed)
  if transport then transport:leave() end
  if session and session.recorder then
    local written, problem = session.recorder:write(netplay.buttons_of)
    emu.result("netplay_movie", written and settings.record or ("not written: " .. tostring(problem)))
  end
  emu.result("netplay_end", reason)
  if session then
    for key, value in pairs(results()) do emu.result("netplay_" .. key, value) end
  end
  if windowed == false and not exiting then emu.exit(failed and 1 or 0) end
end

local hooked, draw_status
-- The frame events, once per script: they drive whichever session is current.
local function hook()
  if hooked then return end
  hooked = true
  event.on("frame_start", function() session:frame_start() end)
  event.on("frame_end", function()
    if windowed == nil then windowed = emu.info().window end
    session:frame_end()
  end)
  event.on("exit", function()
    exiting = true
    session:finish("the run ended")
  end)
  if settings.show then event.on("draw", draw_status) end
end

-- The status line, at the bottom of the HUD.
local function draw_line(text, alarm)
  local _, height = gui.surface_size("hud")
  local scale = gui.text_scale("hud")
  local _, text_height = gui.text_size(text, scale)
  gui.text(4 * scale, height - text_height - 4 * scale, text,
           { surface = "hud", color = alarm and "red" or "#80ff80", bg = "#00000080", scale = scale })
end

local last_rollbacks, shown_rollback, shown_until = 0, 0, 0
function draw_status()
  local status = session:status()
  if status.phase ~= "running" then return end
  if status.spectating then
    return draw_line(string.format("netplay spectator  frame %d  behind %d", status.frame, status.behind))
  end
  local stats = status.stats
  -- The longest rollback of the last second, so a number stays long enough to read.
  local now = net.clock()
  if stats.rollbacks ~= last_rollbacks then
    last_rollbacks = stats.rollbacks
    shown_rollback = math.max(now < shown_until and shown_rollback or 0, session.last_rollback or 0)
    shown_until = now + 1
  elseif now >= shown_until then
    shown_rollback = 0
  end
  local text = string.format("netplay P%d  ping %d ms  rollback %d  delay %d", session.local_port,
                             math.floor(status.ping_ms + 0.5), shown_rollback, status.delay)
  local heal = status.last_heal
  if status.healing and status.desync then
    text = text .. "  DESYNC @" .. status.desync.frame
  elseif heal and now - heal.at < 3 then
    text = text .. "  healed @" .. heal.desync  -- a short note: the game goes on from the host's state
  end
  local watching = session.audience and #session.audience.list or 0
  if watching > 0 then text = text .. "  +" .. watching .. " watching" end
  draw_line(text, status.healing)
end

--- Starts the session `request` asks for (as `net.netplay()` gives it: mode "host" or "join", address,
--- delay, options, relay, room, spectate). Returns the session, or nil and why; an earlier session of this
--- script must have ended.
function netplay_run.start(request)
  if session and session.phase ~= "ended" then return nil, "a netplay session is running" end
  settings = netplay_run.settings()
  transport, windowed, exiting = nil, nil, nil
  local options = { mode = request.mode, address = request.address, on_end = ended }
  for key in pairs(netplay.defaults) do options[key] = settings[key] end
  if request.delay then options.delay, options.fixed_delay = request.delay, true end
  if request.options then options.core_options = request.options end
  local ok, made = true, nil
  if request.relay then
    -- Through a relay (`--netplay-relay`, `--netplay-room`): the room's transport is the session's socket.
    local problem
    transport, problem = require("retrolua.netplay_room").open({
      role = request.mode, relay = request.relay, secret = request.room, sha1 = (emu.info().rom or {}).sha1 })
    if transport then options.socket, options.address = transport, transport.peer end
    ok, made = transport ~= nil, "netplay: " .. tostring(problem)
  end
  if request.spectate and request.relay then
    ok, made = false, "netplay: spectators join the host's address, not through a relay"
  end
  local start = request.spectate and require("retrolua.netplay_watch").new or netplay.new
  if ok then ok, made = pcall(start, options) end
  if not ok then
    emu.message(tostring(made))
    emu.result("netplay_end", tostring(made))
    if not emu.info().window then event.on("frame_end", function() emu.exit(1) end) end
    return nil, tostring(made)
  end
  session = made
  if settings.record ~= "" then session.recorder = require("retrolua.netplay_movie").new(settings.record) end

  if transport then
    emu.message("netplay: " .. (request.mode == "host" and "hosting" or "joining") .. " room " .. transport.code ..
                " at " .. request.relay)
  elseif request.mode == "host" then
    emu.message("netplay: hosting on port " .. session.socket:address():match(":(%d+)$") .. "; waiting for a player")
  else
    emu.message("netplay: " .. (request.spectate and "watching " or "joining ") .. request.address)
  end

  hook()
  return session
end

return netplay_run
