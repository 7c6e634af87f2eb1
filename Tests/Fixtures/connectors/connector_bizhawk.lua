-- A connector of our own in the shape of Archipelago's BizHawk connectors, written from the BizHawk client's published
-- protocol (not from the connectors): a LuaSocket TCP server on loopback that a client sends newline-ended messages
-- to — the text VERSION, or a JSON array of requests answered in order by a JSON array of responses — served once a
-- frame in BizHawk's style (`while true do … emu.frameadvance() end`); while locked, the frame waits on the socket
-- (LuaSocket's settimeout) until UNLOCK. Run as `--script bizhawk:FILE --allow-net`; Tests/python/test_trackers.py
-- drives it on NES, GB and GBA cores (PORT is set there).
-- luacheck: read globals client gameinfo memory emu gui

local socket = require("socket")
local json = require("retrolua.json")
local base64 = require("retrolua.websocket")

local PORT = 43055
local SCRIPT_VERSION = 1
local MAX_LINE = 1024 * 1024
local LOCK_SECONDS = 2 -- a locked client that sends nothing this long is unlocked (as BizHawk's connectors do)

local server = assert(socket.tcp4())
assert(server:bind("127.0.0.1", PORT))
assert(server:listen(16))
server:settimeout(0)
local conn, pending = nil, ""
local locked = false
local messages, message_interval, last_message = {}, 0, -math.huge
local rom_hash = gameinfo.getromhash()

local function bytes_string(array)
  local parts = {}
  for i = 1, #array, 1024 do parts[#parts + 1] = string.char(table.unpack(array, i, math.min(i + 1023, #array))) end
  return table.concat(parts)
end

local function string_bytes(text)
  local array = {}
  for i = 1, #text do array[i] = text:byte(i) end
  return array
end

local function decode(field, text)
  local data = base64.base64_decode(text)
  if not data then error(field .. ": base64 expected", 0) end
  return data
end

local handlers = {
  PING = function() return { type = "PONG" } end,
  SYSTEM = function() return { type = "SYSTEM_RESPONSE", value = emu.getsystemid() } end,
  PREFERRED_CORES = function()
    local cores = client.getconfig().PreferredCores or {}
    local value = {}
    for _, system in ipairs { "NES", "SNES", "GB", "GBC", "DGB", "SGB", "PCE", "PCECD", "SGX" } do
      value[system] = cores[system]
    end
    return { type = "PREFERRED_CORES_RESPONSE", value = value }
  end,
  HASH = function() return { type = "HASH_RESPONSE", value = rom_hash } end,
  GUARD = function(r)
    local expected = decode("expected_data", r.expected_data)
    local actual = bytes_string(memory.read_bytes_as_array(r.address, #expected, r.domain))
    return { type = "GUARD_RESPONSE", address = r.address, value = actual == expected }
  end,
  LOCK = function()
    locked = true
    return { type = "LOCKED" }
  end,
  UNLOCK = function()
    locked = false
    return { type = "UNLOCKED" }
  end,
  READ = function(r)
    return { type = "READ_RESPONSE", value = base64.base64_encode(bytes_string(
      memory.read_bytes_as_array(r.address, r.size, r.domain))) }
  end,
  WRITE = function(r)
    memory.write_bytes_as_array(r.address, string_bytes(decode("value", r.value)), r.domain)
    return { type = "WRITE_RESPONSE" }
  end,
  DISPLAY_MESSAGE = function(r)
    messages[#messages + 1] = tostring(r.message)
    return { type = "DISPLAY_MESSAGE_RESPONSE" }
  end,
  SET_MESSAGE_INTERVAL = function(r)
    message_interval = tonumber(r.value) or 0
    return { type = "SET_MESSAGE_INTERVAL_RESPONSE" }
  end,
}

local function respond(line)
  if line == "VERSION" then return tostring(SCRIPT_VERSION) end
  local requests, err = json.decode(line)
  if type(requests) ~= "table" then return json.encode { { type = "ERROR", err = "not JSON: " .. tostring(err) } } end
  local responses, failed_guard = {}, nil
  for i, request in ipairs(requests) do
    if failed_guard then
      responses[i] = failed_guard
    else
      local handler = type(request) == "table" and handlers[request.type]
      if not handler then
        responses[i] = { type = "ERROR", err = "Unknown command: " .. tostring(type(request) == "table" and request.type) }
      else
        local ok, response = pcall(handler, request)
        responses[i] = ok and response or { type = "ERROR", err = tostring(response) }
        if ok and response.type == "GUARD_RESPONSE" and not response.value then failed_guard = response end
      end
    end
  end
  return json.encode(responses)
end

local function disconnect(why)
  if conn then
    print("connector: client gone (" .. why .. ")")
    conn:close()
  end
  conn, pending, locked = nil, "", false
end

-- Answers one line when one is whole (waiting up to the socket's timeout for it); false once the client is gone
-- or sent nothing within the timeout.
local function serve_line()
  local line, err, partial = conn:receive("*l", pending)
  if not line then
    if err == "closed" then
      disconnect("closed")
    elseif err == "timeout" then
      pending = partial or ""
      if #pending > MAX_LINE then disconnect("a line over " .. MAX_LINE .. " bytes") end
    else
      disconnect(tostring(err))
    end
    return false
  end
  pending = ""
  local answer = respond(line) .. "\n"
  local sent, send_err = conn:send(answer)
  if sent ~= #answer then
    disconnect("the client does not read its answers (" .. tostring(send_err) .. ")")
    return false
  end
  return true
end

while true do
  if not conn then
    conn = server:accept()
    if conn then
      conn:settimeout(0)
      print("connector: client connected from " .. table.concat({ conn:getpeername() }, ":", 1, 2))
    end
  end
  if conn then
    -- Unlocked: every whole line now. Locked: the frame waits for lines (each up to LOCK_SECONDS) until UNLOCK.
    repeat
      conn:settimeout(locked and LOCK_SECONDS or 0)
      local answered = serve_line()
      if not answered and locked then locked = false end
    until not conn or (not answered and not locked)
  end
  if messages[1] and socket.gettime() - last_message >= message_interval then
    gui.addmessage(table.remove(messages, 1))
    last_message = socket.gettime()
  end
  emu.frameadvance()
end
