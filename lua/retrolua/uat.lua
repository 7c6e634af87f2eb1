-- The UAT tracker endpoint: PopTracker's "Universal Auto-Tracking" protocol (JSON over a WebSocket, by default
-- on localhost:65399) served from variables a pack script defines, so a tracker autotracks any core without a
-- connector. Variables are read once a frame; the ones whose value changed go to every connected tracker.
--
--   local uat = require("retrolua.uat")
--   uat.define("Sword", function() return memory.read_u8(0x0657) end)   -- read each frame
--   uat.define("Seed", "ABCD")                                          -- or a fixed value (uat.set changes it)
--   assert(uat.serve { name = "Zelda 1 pack", version = "1.0" })       -- needs --allow-net (loopback)
--
-- The protocol (black-sliver/UAT PROTOCOL.md): a client sends `[{"cmd": "Sync", "slot"?: …}]`; the server
-- sends `Info` (protocol 0, name, version, features, slots) on connecting, `Var` for each variable after a
-- Sync and whenever one changes, and `ErrorReply` for a command it cannot serve. A message that is not JSON
-- closes the connection.

local json = require("retrolua.json")
local websocket = require("retrolua.websocket")

local uat = {}

uat.PORT = 65399
uat.PROTOCOL = 0

local names = {} -- defined names in order
local sources = {} -- name → function or value
local values = {} -- name → the value last read
local encoded = {} -- name → its JSON (to see changes)
local server = nil
local synced = setmetatable({}, { __mode = "k" }) -- client → true once it asked for a Sync
local info = {}

local function check_name(fn, name)
  if type(name) ~= "string" or name == "" then
    error(string.format("uat.%s: bad argument #1 'name' (non-empty string expected, got %s)", fn, type(name)), 3)
  end
end

--- Defines (or redefines) the variable `name`: `source` is a function read once a frame (its return value is
--- the variable's value: a number, string, boolean, nil or a table of those) or a value as it is.
function uat.define(name, source)
  check_name("define", name)
  if sources[name] == nil and not encoded[name] then names[#names + 1] = name end
  sources[name] = source == nil and json.null or source
  encoded[name] = encoded[name] or "\0unread"
end

--- Sets the variable `name` to `value` (defining it when new); trackers see it after this frame.
function uat.set(name, value)
  check_name("set", name)
  uat.define(name, value)
end

--- Removes the variable `name`; trackers keep its last value.
function uat.undefine(name)
  check_name("undefine", name)
  for i, n in ipairs(names) do
    if n == name then table.remove(names, i) break end
  end
  sources[name], values[name], encoded[name] = nil, nil, nil
end

--- The variables' current values (`{name = value}`), as a tracker sees them.
function uat.values()
  local copy = {}
  for _, name in ipairs(names) do copy[name] = values[name] end
  return copy
end

local function read(name)
  local source = sources[name]
  if type(source) ~= "function" then return source end
  local ok, value = pcall(source)
  if not ok then error(string.format("uat: variable '%s': %s", name, tostring(value)), 0) end
  if value == nil then return json.null end
  return value
end

local function var(name)
  local value = values[name]
  if value == nil then value = json.null end
  return { cmd = "Var", name = name, value = value }
end

-- Reads every variable; the list of Var commands for those that changed.
local function refresh()
  local changed = {}
  for _, name in ipairs(names) do
    local value = read(name)
    local ok, text = pcall(json.encode, value)
    if not ok then error(string.format("uat: variable '%s': %s", name, text), 0) end
    if text ~= encoded[name] then
      values[name], encoded[name] = value, text
      changed[#changed + 1] = var(name)
    end
  end
  return changed
end

local function reply(client, commands)
  if #commands > 0 then client:send(json.encode(commands)) end
end

local function valid_slot(slot)
  if slot == nil or slot == "" or slot == json.null then return true end
  if type(slot) ~= "string" then return false end
  for _, s in ipairs(info.slots) do if s == slot then return true end end
  return false
end

local function command(client, c, out)
  if type(c) ~= "table" or type(c.cmd) ~= "string" then
    out[#out + 1] = { cmd = "ErrorReply", name = type(c) == "table" and tostring(c.cmd) or "", argument = "cmd",
      reason = "missing argument", description = "each command is an object with a \"cmd\" string" }
  elseif c.cmd == "Sync" then
    if not valid_slot(c.slot) then
      out[#out + 1] = { cmd = "ErrorReply", name = "Sync", argument = "slot", reason = "bad value",
        description = "no such slot" }
    else
      synced[client] = true
      for _, name in ipairs(names) do out[#out + 1] = var(name) end
    end
  else
    out[#out + 1] = { cmd = "ErrorReply", name = c.cmd, reason = "unknown cmd" }
  end
end

local function on_message(client, text, binary)
  local packet = not binary and json.decode(text)
  if type(packet) ~= "table" or packet == json.null or (next(packet) ~= nil and #packet == 0) then
    client:close(1003, "a UAT packet is a JSON array of commands")
    return
  end
  local out = {}
  for _, c in ipairs(packet) do command(client, c, out) end
  reply(client, out)
end

local function on_open(client)
  reply(client, { { cmd = "Info", protocol = uat.PROTOCOL, name = info.name, version = info.version,
    features = info.features, slots = info.slots } })
end

--- Serves the defined variables to trackers; reads them and answers once a frame (and while paused in a
--- window). Options: `bind` (default "127.0.0.1:65399"), `name` and `version` (what Info tells the tracker:
--- the pack or game), `slots`, `features`, `origins` (browser origins allowed; none by default),
--- `max_clients` (16). Returns the server (`:address()`, `:clients()`, `:close()`), or `nil, message` when
--- the network permission is missing (`--allow-net`) or the port is taken.
function uat.serve(options)
  options = options or {}
  if type(options) ~= "table" then
    error("uat.serve: bad argument #1 'options' (table expected, got " .. type(options) .. ")", 2)
  end
  if server then return nil, "uat.serve: already serving on " .. server:address() end
  info = { name = options.name and tostring(options.name) or (emu.info().rom or {}).name or "Retrolua",
    version = options.version and tostring(options.version) or nil, features = options.features or {},
    slots = options.slots or {} }
  local ws, message = websocket.serve { bind = options.bind or ("127.0.0.1:" .. uat.PORT), on_open = on_open,
    on_message = on_message, origins = options.origins, max_clients = options.max_clients }
  if not ws then return nil, "uat.serve: " .. tostring(message) end
  server = ws
  local function poll()
    if not server then return end
    local changed = refresh()
    if #changed > 0 then
      local text = json.encode(changed)
      for _, client in ipairs(server:open_clients()) do
        if synced[client] then client:send(text) end
      end
    end
    server:poll()
  end
  local handles = {
    event.on("frame_end", poll),
    event.on("draw", function() if emu.paused() then poll() end end),
  }
  return {
    address = function() return ws:address() end,
    clients = function() return #ws:open_clients() end,
    poll = poll,
    close = function()
      for _, h in ipairs(handles) do event.off(h) end
      ws:close()
      if server == ws then server = nil end
    end,
  }
end

return uat
