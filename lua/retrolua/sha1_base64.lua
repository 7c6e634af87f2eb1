-- SHA-1 (FIPS 180-4) and base64 (RFC 4648) in pure Lua 5.4: what a WebSocket handshake's accept key needs
-- (lua/retrolua/websocket.lua re-exports them as websocket.sha1, websocket.base64_encode/_decode).

local digest = {}

local M32 = 0xFFFFFFFF

local function rotl(x, n) return ((x << n) | (x >> (32 - n))) & M32 end

--- The 20-byte SHA-1 digest of `message` (FIPS 180-4); the handshake's accept key needs it.
function digest.sha1(message)
  local h0, h1, h2, h3, h4 = 0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0
  local length = #message
  message = message .. "\128" .. string.rep("\0", (55 - length) % 64) .. string.pack(">I8", length * 8)
  local w = {}
  for chunk = 1, #message, 64 do
    for i = 0, 15 do w[i] = string.unpack(">I4", message, chunk + i * 4) end
    for i = 16, 79 do w[i] = rotl(w[i - 3] ~ w[i - 8] ~ w[i - 14] ~ w[i - 16], 1) end
    local a, b, c, d, e = h0, h1, h2, h3, h4
    for i = 0, 79 do
      local f, k
      if i < 20 then
        f, k = (b & c) | (~b & d), 0x5A827999
      elseif i < 40 then
        f, k = b ~ c ~ d, 0x6ED9EBA1
      elseif i < 60 then
        f, k = (b & c) | (b & d) | (c & d), 0x8F1BBCDC
      else
        f, k = b ~ c ~ d, 0xCA62C1D6
      end
      a, b, c, d, e = (rotl(a, 5) + (f & M32) + e + k + w[i]) & M32, a, rotl(b, 30), c, d
    end
    h0, h1, h2, h3, h4 = (h0 + a) & M32, (h1 + b) & M32, (h2 + c) & M32, (h3 + d) & M32, (h4 + e) & M32
  end
  return string.pack(">I4I4I4I4I4", h0, h1, h2, h3, h4)
end

local ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
local DECODE = {}
for i = 1, 64 do DECODE[ALPHABET:byte(i)] = i - 1 end

--- `data` in base64 (RFC 4648, padded).
function digest.base64_encode(data)
  local out = {}
  for i = 1, #data, 3 do
    local a, b, c = data:byte(i, i + 2)
    local n = (a << 16) | ((b or 0) << 8) | (c or 0)
    local s = { (n >> 18) & 63, (n >> 12) & 63, (n >> 6) & 63, n & 63 }
    out[#out + 1] = ALPHABET:sub(s[1] + 1, s[1] + 1) .. ALPHABET:sub(s[2] + 1, s[2] + 1)
      .. (b and ALPHABET:sub(s[3] + 1, s[3] + 1) or "=") .. (c and ALPHABET:sub(s[4] + 1, s[4] + 1) or "=")
  end
  return table.concat(out)
end

--- The bytes of padded base64 `text`, or nil when it is not base64.
function digest.base64_decode(text)
  if type(text) ~= "string" or #text % 4 ~= 0 then return nil end
  local out = {}
  for i = 1, #text, 4 do
    local a, b, c, d = text:byte(i, i + 3)
    local last = i + 3 == #text
    local va, vb = DECODE[a], DECODE[b]
    local vc = DECODE[c] or (last and c == 61 and d == 61 and -1) or nil
    local vd = DECODE[d] or (last and d == 61 and -1) or nil
    if not (va and vb and vc and vd) then return nil end
    local n = (va << 18) | (vb << 12) | (math.max(vc, 0) << 6) | math.max(vd, 0)
    out[#out + 1] = string.char((n >> 16) & 255)
    if vc >= 0 then out[#out + 1] = string.char((n >> 8) & 255) end
    if vd >= 0 then out[#out + 1] = string.char(n & 255) end
  end
  return table.concat(out)
end

return digest
