-- Fuzzes the WebSocket server's parsers (lua/retrolua/websocket.lua) under stock lua5.4: mutated opening
-- handshakes, and streams of mutated frames (split at random points) fed to a frame reader.
--   lua5.4 Fuzz/lua/websocket_fuzz.lua [SECONDS] [SEED]
-- Whatever arrives, nothing may raise; a handshake is an HTTP answer (101 only for a request with a 16-byte
-- key and version 13); the reader's buffer never holds more than a message's limit and one header past what
-- it asked for, a message never exceeds the limit, and after a violation the code is one RFC 6455 names.
-- Exits 1 with the failing input.

local here = (arg and arg[0] or ""):match("^(.*)[/\\]") or "."
package.path = here .. "/../../lua/?.lua;" .. package.path
local ws = require("retrolua.websocket")

local seconds = tonumber(arg[1]) or 10
local seed = tonumber(arg[2]) or os.time()
math.randomseed(seed)

local GOOD = "GET / HTTP/1.1\r\nHost: 127.0.0.1:65399\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
  .. "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
local TOKENS = { "\r\n", ":", " ", ",", "=", "GET", "HTTP/1.1", "HTTP/1.0", "Upgrade", "websocket", "Connection",
  "Sec-WebSocket-Key", "Sec-WebSocket-Version", "13", "Origin", "\0", "\255", "==", "AAAAAAAAAAAAAAAAAAAAAA==" }

local function mutate(text)
  for _ = 1, math.random(1, 8) do
    local at = math.random(1, #text + 1)
    local kind = math.random(5)
    if kind == 1 then
      text = text:sub(1, at - 1) .. TOKENS[math.random(#TOKENS)] .. text:sub(at)
    elseif kind == 2 then
      text = text:sub(1, at - 1) .. text:sub(at + math.random(1, 8))
    elseif kind == 3 then
      text = text:sub(1, at - 1) .. string.char(math.random(0, 255)) .. text:sub(at + 1)
    elseif kind == 4 then
      text = text:sub(1, at - 1) .. string.rep(text:sub(at, at + 3), math.random(1, 50)) .. text:sub(at)
    else
      local other = math.random(1, #text + 1)
      text = text:sub(1, at - 1) .. text:sub(other, other + math.random(0, 20)) .. text:sub(at)
    end
  end
  return text
end

local function frame(opcode, payload, fin, masked, rsv)
  local n = #payload
  local first = (fin and 0x80 or 0) | (rsv or 0) | opcode
  local m = masked and 0x80 or 0
  local head = n < 126 and string.pack(">BB", first, m | n) or n < 65536 and string.pack(">BBI2", first, m | 126, n)
    or string.pack(">BBI8", first, m | 127, n)
  if not masked then return head .. payload end
  local key = string.char(math.random(0, 255), math.random(0, 255), math.random(0, 255), math.random(0, 255))
  local out = {}
  for i = 1, n do out[i] = string.char(payload:byte(i) ~ key:byte((i - 1) % 4 + 1)) end
  return head .. key .. table.concat(out)
end

local function random_frame()
  local opcodes = { 0, 0, 1, 1, 1, 2, 2, 8, 9, 9, 10, 10, 0, 1, 2, 9, 10, 0, 1, 3, 11, 15 }
  local n = ({ 0, 1, 2, 5, 125, 126, 127, 200, 1000, 70000 })[math.random(10)]
  local payload = math.random(3) == 1 and string.rep("\240\159\152\128", n // 4 + 1):sub(1, n)
    or string.rep(string.char(math.random(0, 255)), n)
  local bytes = frame(opcodes[math.random(#opcodes)], payload, math.random(4) > 1, math.random(40) > 1,
    math.random(40) == 1 and 0x40 or 0)
  if math.random(20) == 1 then bytes = mutate(bytes) end
  return bytes
end

local CODES = { [1002] = true, [1007] = true, [1009] = true }

local function fail(what, input)
  io.stderr:write(string.format("websocket fuzz: %s (seed %d)\ninput (%d bytes, first 300): %q\n", what, seed, #input,
    input:sub(1, 300)))
  os.exit(1)
end

local deadline = os.clock() + seconds
local handshakes, accepted, streams, messages, violations = 0, 0, 0, 0, 0
while os.clock() < deadline do
  local request = mutate(GOOD)
  local ok, response, switched = pcall(ws.handshake, request, math.random(2) == 1 and { "*" } or nil)
  if not ok then fail("handshake raised: " .. tostring(response), request) end
  if type(response) ~= "string" or not response:match("^HTTP/1%.1 %d%d%d ") then fail("not an HTTP answer", request) end
  if switched then
    accepted = accepted + 1
    local key = request:match("\r\n[Ss]ec%-[Ww]eb[Ss]ocket%-[Kk]ey:[ \t]*([^\r\n]-)[ \t]*\r\n")
    local nonce = ws.base64_decode(key or "")
    if not nonce or #nonce ~= 16 then fail("switched protocols without a 16-byte key", request) end
  end
  handshakes = handshakes + 1

  local max = ({ 100, 1000, 100000 })[math.random(3)]
  local reader = ws.reader(max)
  local parts = {}
  for _ = 1, math.random(1, 12) do parts[#parts + 1] = random_frame() end
  local stream = table.concat(parts)
  local at = 1
  local done = false
  while at <= #stream and not done do
    local room = reader:room()
    local take = math.min(room, math.random(1, 3000))
    if take == 0 then fail("the reader asks for nothing while its frame is incomplete", stream) end
    reader:feed(stream:sub(at, at + take - 1))
    at = at + take
    if #reader.buffer - reader.at + 1 > math.max(max, 125) + 14 then fail("the reader holds more than a frame", stream) end
    while true do
      local ok2, kind, payload, reason = pcall(reader.next, reader)
      if not ok2 then fail("next raised: " .. tostring(kind), stream) end
      if kind == nil then break end
      if kind == false then
        if not CODES[payload] or type(reason) ~= "string" then fail("a violation without a code", stream) end
        violations = violations + 1
        done = true
        break
      end
      if (kind == "text" or kind == "binary") and #payload > max then fail("a message over the limit", stream) end
      if kind == "text" and not utf8.len(payload) then fail("text that is not UTF-8", stream) end
      messages = messages + 1
    end
  end
  streams = streams + 1
end
print(string.format("websocket fuzz: %d handshakes (%d accepted), %d streams, %d messages, %d violations, seed %d",
  handshakes, accepted, streams, messages, violations, seed))
