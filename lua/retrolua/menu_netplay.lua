-- The menu's Netplay page (lua/defaults/menu.lua): host a game, join one by address or through a relay's
-- room, as a player or a spectator, with the input delay adaptive or fixed, and the last addresses joined
-- one key away. Sessions run in the menu's script (retrolua.netplay_run). What the page keeps between
-- runs (delay, spectate, the last addresses) is remembered under "netplay_menu"; the port to host on and
-- the relay come from ~/.config/retrolua/netplay_menu.lua (`return { port = 55435, relay = "HOST:PORT" }`).

local settings_module = require("retrolua.settings")
local netplay_run = require("retrolua.netplay_run")

local page = {}

local DEFAULT_PORT, RELAY_PORT = 55435, 55436
local LAST_MAX = 5
local DELAYS = { "auto", "0", "1", "2", "3", "4", "5", "6", "7", "8" }

local function load()
  return settings_module.load("netplay_menu", { port = DEFAULT_PORT, relay = "", delay = "auto", spectate = false,
                                                last_addresses = "" })
end

local function remember(key, value)
  local ok, problem = settings_module.remember("netplay_menu", key, value)
  if not ok then emu.message("netplay: " .. tostring(problem)) end
end

--- `HOST` → `HOST:55435` (an address with a port, or a bracketed IPv6 one with it, stays as it is).
function page.with_port(address, port)
  address = address:gsub("^%s+", ""):gsub("%s+$", "")
  if address:match("^%[.*%]$") or not address:find(":") then return address .. ":" .. (port or DEFAULT_PORT) end
  return address
end

--- The last addresses joined, newest first.
function page.last_addresses(text)
  local list = {}
  for address in (text or load().last_addresses):gmatch("%S+") do list[#list + 1] = address end
  return list
end

local function remember_address(address)
  local list = { address }
  for _, known in ipairs(page.last_addresses()) do
    if known ~= address and #list < LAST_MAX then list[#list + 1] = known end
  end
  remember("last_addresses", table.concat(list, " "))
end

local function request_of(mode, fields)
  local kept = load()
  local request = { mode = mode, address = fields.address or "", relay = fields.relay, room = fields.room }
  if kept.delay ~= "auto" then request.delay = math.tointeger(tonumber(kept.delay)) end
  if mode == "join" and kept.spectate then request.spectate = true end
  return request
end

-- Starts a session and closes the menu so the game runs; what went wrong is said.
local function start(menu, request)
  local session, problem = netplay_run.start(request)
  if not session then return emu.message(tostring(problem)) end
  menu.close()
end

local function join_room(menu, text, mode)
  local relay, secret = text:match("^%s*(%S+)%s+(%S+)%s*$")
  if not relay then
    local kept = load().relay
    relay, secret = kept ~= "" and kept or nil, text:match("^%s*(%S+)%s*$")
  end
  if not (relay and secret) then return emu.message("netplay: type RELAY[:PORT] SECRET (or set relay)") end
  start(menu, request_of(mode, { relay = page.with_port(relay, RELAY_PORT), room = secret }))
end

local function session_items(session)
  local status = session:status()
  local shown = status.phase == "running"
    and string.format("%s, ping %d ms, delay %d", session.spectating and "watching" or ("P" .. session.local_port),
                      math.floor((status.ping_ms or 0) + 0.5), status.delay or 0)
    or (status.phase == "listening" and "waiting for a player" or status.phase)
  return {
    { label = "Session", value = shown },
    { label = "Leave the session", select = function()
      session:finish("you left")
    end },
  }
end

--- The page's items (the menu builds them again after each action); `menu` gives `ask(prompt, done)` (a
--- line typed, then `done(text)`) and `close()`.
function page.items(menu)
  local current = netplay_run.current()
  if current and current.phase ~= "ended" then return session_items(current) end
  local kept = load()
  local items = {
    { label = "Host a game", value = "port " .. kept.port, select = function()
      start(menu, request_of("host", { address = "*:" .. kept.port }))
    end },
    { label = "Join an address...", select = function()
      menu.ask("host address (HOST or HOST:PORT)", function(text)
        if text:match("^%s*$") then return end
        local address = page.with_port(text)
        remember_address(address)
        start(menu, request_of("join", { address = address }))
      end)
    end },
    { label = "Host a room...", select = function()
      menu.ask("relay and room: RELAY[:PORT] SECRET", function(text) join_room(menu, text, "host") end)
    end },
    { label = "Join a room...", select = function()
      menu.ask("relay and room: RELAY[:PORT] SECRET", function(text) join_room(menu, text, "join") end)
    end },
  }
  local function toggle_spectate()
    remember("spectate", not load().spectate)
  end
  items[#items + 1] = { label = "Join as a spectator", value = kept.spectate and "on" or "off",
                        select = toggle_spectate, left = toggle_spectate, right = toggle_spectate }
  local function shift(step)
    local index = 1
    for position, value in ipairs(DELAYS) do if value == load().delay then index = position end end
    remember("delay", DELAYS[(index - 1 + step) % #DELAYS + 1])
  end
  items[#items + 1] = { label = "Input delay", value = kept.delay == "auto" and "auto (follows the ping)" or
                          (kept.delay .. " frames (fixed)"),
                        select = function() shift(1) end, left = function() shift(-1) end,
                        right = function() shift(1) end }
  for _, address in ipairs(page.last_addresses(kept.last_addresses)) do
    items[#items + 1] = { label = "Join " .. address, select = function()
      remember_address(address)
      start(menu, request_of("join", { address = address }))
    end }
  end
  return items
end

return page
