-- The frames a WebSocket client sends (RFC 6455), read and checked: masking, lengths in their shortest
-- form, control frames whole and short, fragments joined into one message of at most `max` bytes, text
-- that is UTF-8. lua/retrolua/websocket.lua serves with it (`websocket.reader`).

local frames = {}

local OP = { continuation = 0, text = 1, binary = 2, close = 8, ping = 9, pong = 10 }
frames.OP = OP

local function unmask(data, first, length, key)
  local k = string.unpack(">I4", key)
  local out = {}
  local i, last = first, first + length - 1
  while i + 31 <= last do
    local a, b, c, d, e, f, g, h = string.unpack(">I4I4I4I4I4I4I4I4", data, i)
    out[#out + 1] = string.pack(">I4I4I4I4I4I4I4I4", a ~ k, b ~ k, c ~ k, d ~ k, e ~ k, f ~ k, g ~ k, h ~ k)
    i = i + 32
  end
  local tail = {}
  local m = { key:byte(1, 4) }
  local j = 0
  while i <= last do
    tail[#tail + 1] = string.char(data:byte(i) ~ m[j % 4 + 1])
    i, j = i + 1, j + 1
  end
  out[#out + 1] = table.concat(tail)
  return table.concat(out)
end

--- A reader of the frames a client sends: `reader:feed(bytes)` then `reader:next()` until it returns nil
--- (a frame is incomplete). `next` gives `kind, payload` for a whole message ("text", "binary") or control
--- frame ("ping", "pong", "close" with payload = the close body), or `false, code, reason` for a protocol
--- violation (then the connection must close with `code`). `max` bounds a message's payload.
local Reader = {}
Reader.__index = Reader

function frames.reader(max)
  return setmetatable({ buffer = "", at = 1, max = max, parts = nil, kind = nil, size = 0 }, Reader)
end

-- Frames are read from `at` on; what was read is cut off only when more bytes come (no copy per frame).
function Reader:feed(bytes)
  self.buffer, self.at = self.buffer:sub(self.at) .. bytes, 1
end

--- How many more bytes the reader takes: room for one whole frame (a control frame's 125 bytes at least) and
--- its header, so it never holds more than that.
function Reader:room() return math.max(0, math.max(self.max, 125) + 14 - (#self.buffer - self.at + 1)) end

function Reader:next()
  local b, p = self.buffer, self.at
  if #b - p + 1 < 2 then return nil end
  local b1, b2 = b:byte(p, p + 1)
  local fin, opcode, masked, length = b1 & 0x80 ~= 0, b1 & 0x0F, b2 & 0x80 ~= 0, b2 & 0x7F
  if b1 & 0x70 ~= 0 then return false, 1002, "reserved bits set (no extension was agreed)" end
  local control = opcode >= 8
  if not (opcode <= 2 or (control and opcode <= 10)) then return false, 1002, "unknown opcode " .. opcode end
  if control and (not fin or length > 125) then return false, 1002, "a control frame is whole and at most 125 bytes" end
  if not masked then return false, 1002, "a client's frames must be masked" end
  local at = p + 2
  if length == 126 then
    if #b < p + 3 then return nil end
    length = string.unpack(">I2", b, p + 2)
    if length < 126 then return false, 1002, "length not in its shortest form" end
    at = p + 4
  elseif length == 127 then
    if #b < p + 9 then return nil end
    length = string.unpack(">i8", b, p + 2)
    if length < 0 then return false, 1009, "frame too long" end
    if length < 65536 then return false, 1002, "length not in its shortest form" end
    at = p + 10
  end
  if not control and self.size + length > self.max then
    return false, 1009, string.format("message over %d bytes", self.max)
  end
  if #b < at + 3 + length then return nil end
  local payload = unmask(b, at + 4, length, b:sub(at, at + 3))
  self.at = at + 4 + length
  if control then
    if opcode == OP.close then
      if length == 1 then return false, 1002, "a close frame's body is empty or a code" end
      return "close", payload
    end
    return opcode == OP.ping and "ping" or "pong", payload
  end
  if opcode == OP.continuation then
    if not self.parts then return false, 1002, "a continuation frame with no message begun" end
  else
    if self.parts then return false, 1002, "a new message began inside a fragmented one" end
    self.parts, self.kind, self.size = {}, opcode == OP.text and "text" or "binary", 0
  end
  if #self.parts >= 4096 then return false, 1009, "a message in over 4096 fragments" end
  self.parts[#self.parts + 1] = payload
  self.size = self.size + length
  if not fin then return self:next() end
  local message, kind = table.concat(self.parts), self.kind
  self.parts, self.kind, self.size = nil, nil, 0
  if kind == "text" and not utf8.len(message) then return false, 1007, "text that is not UTF-8" end
  return kind, message
end

return frames
