-- Tests for lua/retrolua/websocket.lua's pure parts (stock lua5.4): SHA-1 against FIPS 180 vectors, base64
-- against RFC 4648's, the handshake (RFC 6455's own example key) and the frame reader's limits.
--   lua5.4 Tests/lua/websocket_test.lua
-- Prints one line per failing case, exits 1 on failure, "websocket: all passed (N cases)" otherwise.

local harness = dofile(((arg and arg[0] or ""):match("^(.*)[/\\]") or ".") .. "/harness.lua")

local ws = require("retrolua.websocket")

local check = harness.check

local function hex(s) return (s:gsub(".", function(c) return string.format("%02x", c:byte()) end)) end

check("sha1 empty", hex(ws.sha1("")), "da39a3ee5e6b4b0d3255bfef95601890afd80709")
check("sha1 abc", hex(ws.sha1("abc")), "a9993e364706816aba3e25717850c26c9cd0d89d")
check("sha1 two blocks", hex(ws.sha1("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
  "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
check("sha1 a million a", hex(ws.sha1(string.rep("a", 1000000))), "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
for _, v in ipairs { { "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" }, { "foob", "Zm9vYg==" },
  { "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" } } do
  check("base64 " .. v[1], ws.base64_encode(v[1]), v[2])
  check("unbase64 " .. v[2], ws.base64_decode(v[2]), v[1])
end
for _, bad in ipairs { "abc", "ab=c", "a===", "Zm9v!A==", "=AAA" } do check("not base64 " .. bad, ws.base64_decode(bad), nil) end
check("accept key", ws.accept_key("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")

local function request(lines) return table.concat(lines, "\r\n") .. "\r\n\r\n" end
local good = { "GET /chat HTTP/1.1", "Host: localhost", "Upgrade: websocket", "Connection: keep-alive, Upgrade",
  "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13" }
local response, ok = ws.handshake(request(good))
check("handshake ok", ok, true)
check("handshake accept", response:match("Sec%-WebSocket%-Accept: (%S+)"), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
local function refused(name, lines, status, origins)
  local text, accepted = ws.handshake(request(lines), origins)
  check(name .. " refused", accepted, false)
  check(name .. " status", text:match("^HTTP/1.1 (%d+)"), status)
end
local function with(index, line)
  local copy = { table.unpack(good) }
  copy[index] = line
  return copy
end
refused("POST", with(1, "POST /chat HTTP/1.1"), "400")
refused("HTTP/1.0", with(1, "GET /chat HTTP/1.0"), "400")
refused("no upgrade", with(3, "Upgrade: h2c"), "400")
refused("short key", with(5, "Sec-WebSocket-Key: c2hvcnQ="), "400")
refused("key not base64", with(5, "Sec-WebSocket-Key: !!!!!!!!!!!!!!!!!!!!!!!="), "400")
refused("version 8", with(6, "Sec-WebSocket-Version: 8"), "426")
refused("bad header", with(2, "no colon here"), "400")
refused("origin", with(2, "Origin: http://evil.example"), "403")
refused("bare LF", with(2, "Host: localhost\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="), "400")
check("origin allowed", select(2, ws.handshake(request(with(2, "Origin: http://me")), { "http://me" })), true)

local function frame(opcode, payload, options)
  options = options or {}
  local n, first = #payload, (options.fin == false and 0 or 0x80) | (options.rsv or 0) | opcode
  local mask = options.unmasked and 0 or 0x80
  local head = n < 126 and string.pack(">BB", first, mask | n) or n < 65536 and string.pack(">BBI2", first, mask | 126, n)
    or string.pack(">BBI8", first, mask | 127, n)
  if options.unmasked then return head .. payload end
  local key = "\55\1\200\9"
  local out = {}
  for i = 1, n do out[i] = string.char(payload:byte(i) ~ key:byte((i - 1) % 4 + 1)) end
  return head .. key .. table.concat(out)
end

local reader = ws.reader(1000)
local big = string.rep("0123456789", 90)
reader:feed(frame(1, "hello") .. frame(2, big) .. frame(1, "frag", { fin = false }) .. frame(9, "ping"))
reader:feed(frame(0, "mented") .. frame(8, string.pack(">I2", 1000)))
local kinds = {}
while true do
  local kind, payload = reader:next()
  if not kind then break end
  kinds[#kinds + 1] = kind .. ":" .. (kind == "binary" and #payload or payload:gsub("[^%w]", "."))
end
check("frames", table.concat(kinds, " "), "text:hello binary:900 ping:ping text:fragmented close:..")
-- a frame arriving a byte at a time
reader = ws.reader(1000)
local dripped, got = frame(1, big), nil
for i = 1, #dripped do
  reader:feed(dripped:sub(i, i))
  local kind, payload = reader:next()
  if kind then got = payload end
  if i < #dripped then check("incomplete at " .. i, kind, nil) end
end
check("dripped", got, big)

local function violation(name, bytes, code, max)
  local r = ws.reader(max or 1000)
  r:feed(bytes)
  local kind, got_code = r:next()
  check(name .. " refused", kind, false)
  check(name .. " code", got_code, code)
end
violation("unmasked", frame(1, "x", { unmasked = true }), 1002)
violation("rsv", frame(1, "x", { rsv = 0x40 }), 1002)
violation("opcode 3", frame(3, "x"), 1002)
violation("opcode 11", frame(11, "x"), 1002)
violation("long ping", frame(9, string.rep("p", 126)), 1002)
violation("fragmented ping", frame(9, "p", { fin = false }), 1002)
violation("lone continuation", frame(0, "x"), 1002)
violation("message in message", frame(1, "a", { fin = false }) .. frame(1, "b"), 1002)
violation("one-byte close", frame(8, "x"), 1002)
violation("not utf-8", frame(1, "\255\254"), 1007)
violation("over the limit, from the header", string.pack(">BBI2", 0x81, 0x80 | 126, 1001), 1009)
violation("2^63 bytes", string.pack(">BBI8", 0x81, 0x80 | 127, 1 << 63), 1009)
violation("fragments over the limit", frame(1, string.rep("a", 600), { fin = false }) .. frame(0, string.rep("b", 600)),
  1009)
violation("long form for a short length", string.pack(">BBI2", 0x81, 0x80 | 126, 5), 1002)
check("room is bounded", ws.reader(1000):room(), 1014)
check("room takes a whole control frame", ws.reader(10):room(), 139)

check("server frame short", ws.frame(1, "hi"), "\129\2hi")
check("server frame 16-bit", ws.frame(2, string.rep("x", 300)):sub(1, 4), string.pack(">BBI2", 0x82, 126, 300))
check("server frame 64-bit", ws.frame(2, string.rep("x", 70000)):sub(1, 10), string.pack(">BBI8", 0x82, 127, 70000))

harness.finish("websocket: all passed (%d cases)")
