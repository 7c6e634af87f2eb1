-- retrolua.achievements.num: numeric helpers for the achievement engine.
--
-- rcheevos works with "typed values": 32-bit unsigned integers and 32-bit
-- floats (plus a transient signed type).  Here an unsigned value is a Lua
-- integer in 0..0xFFFFFFFF and a float value is a Lua float holding a number
-- that is exactly representable as an IEEE single.  Every helper keeps that
-- invariant, so `math.type(x) == "float"` tells the two types apart at run
-- time.  Nothing here allocates.

local floor, ceil, mtype, fmod = math.floor, math.ceil, math.type, math.fmod

local M32 = 0xFFFFFFFF
local INF = math.huge
local NAN = -(0 / 0)
local FLT_MAX = 3.4028234663852886e38
local FLT_EPSILON = 1.1920928955078125e-07 -- 2^-23
local TWO23 = 8388608.0
local TWO126 = 2.0 ^ -126
local TWO149 = 2.0 ^ 149
local SPLIT = 536870913.0 -- 2^29 + 1 (Veltkamp split keeping 24 significant bits)

local num = { M32 = M32, INF = INF, NAN = NAN }

--- Rounds a Lua number to the nearest IEEE single (the C `(float)` cast).
-- Always returns a float.
local function f32(x)
  if mtype(x) == "integer" then x = x + 0.0 end -- (not x + 0.0 for floats: -0.0 keeps its sign)
  if x ~= x or x == 0 then return x end
  local ax = x < 0 and -x or x
  if ax >= INF then return x end
  if ax < TWO126 then
    -- subnormal range: quantum is 2^-149
    local q = x * TWO149
    q = (q >= 0) and floor(q + 0.5) or -floor(-q + 0.5)
    return q / TWO149
  end
  local c = x * SPLIT
  local r = c - (c - x)
  if r > FLT_MAX then return INF elseif r < -FLT_MAX then return -INF end
  return r
end
num.f32 = f32

--- Converts a typed value to float: unsigned integers are cast like `(float)u32`.
local function tof(x)
  if mtype(x) == "float" then return x end
  return f32(x + 0.0)
end
num.tof = tof

--- `(uint32_t)f` as compiled for x86-64: truncate toward zero, keep the low
-- 32 bits; NaN, infinities and huge values give 0.
local function tou32(x)
  if mtype(x) == "integer" then return x & M32 end
  if x ~= x or x >= 9.2233720368547758e18 or x <= -9.2233720368547758e18 then return 0 end
  local i = (x >= 0) and floor(x) or ceil(x)
  return i & M32
end
num.tou32 = tou32

--- Reinterprets an unsigned 32-bit integer as signed (two's complement).
local function toi32(u)
  u = u & M32
  if u >= 0x80000000 then return u - 0x100000000 end
  return u
end
num.toi32 = toi32

--- C's `-(int32_t)u` as compiled: two's complement negation that wraps, so
-- 0x80000000 (INT_MIN) stays INT_MIN.  Returns a signed integer.
local function neg32(u)
  return toi32(-u)
end

-- rcheevos' float builder: 23-bit mantissa field, unbiased exponent, sign.
local function build_float(mant, exp, neg)
  local d
  if exp > 127 then
    d = (mant == 0) and INF or NAN
  elseif exp == -127 then
    d = (mant / TWO23) * TWO126 -- denormal: no implied bit
  else
    d = (1.0 + mant / TWO23) * (2.0 ^ exp)
  end
  d = f32(d)
  if neg then return -d end
  return d
end

local function bswap32(r)
  return ((r & 0xFF) << 24) | ((r & 0xFF00) << 8) | ((r >> 8) & 0xFF00) | ((r >> 24) & 0xFF)
end
num.bswap32 = bswap32
function num.bswap16(r) return ((r & 0xFF) << 8) | ((r >> 8) & 0xFF) end
function num.bswap24(r) return ((r & 0xFF) << 16) | (r & 0xFF00) | ((r >> 16) & 0xFF) end

--- IEEE-754 single, little-endian (raw is the 32-bit little-endian read).
local function dec_float(r)
  return build_float(r & 0x7FFFFF, ((r >> 23) & 0xFF) - 127, (r & 0x80000000) ~= 0)
end
num.dec_float = dec_float
--- IEEE-754 single stored big-endian.
function num.dec_float_be(r) return dec_float(bswap32(r)) end

--- Upper four bytes of an IEEE-754 double (little-endian), decoded to a float.
local function dec_double32(r)
  return build_float((r & 0xFFFFF) << 3, ((r >> 20) & 0x7FF) - 1023, (r & 0x80000000) ~= 0)
end
num.dec_double32 = dec_double32
function num.dec_double32_be(r) return dec_double32(bswap32(r)) end

--- Microsoft Binary Format single (stored big-endian, as on the Apple II).
function num.dec_mbf32(r)
  local mant = ((r >> 24) & 0xFF) | ((r >> 8) & 0xFF00) | ((r & 0x7F00) << 8)
  local exp = (r & 0xFF) - 129
  local neg = (r & 0x8000) ~= 0
  if mant == 0 and exp == -129 then return neg and -0.0 or 0.0 end
  return build_float(mant, exp, neg)
end

--- Microsoft Binary Format single stored little-endian (Locomotive BASIC).
function num.dec_mbf32_le(r)
  local mant = r & 0x7FFFFF
  local exp = ((r >> 24) & 0xFF) - 129
  local neg = (r & 0x800000) ~= 0
  if mant == 0 and exp == -129 then return neg and -0.0 or 0.0 end
  return build_float(mant, exp, neg)
end

local BITCOUNT = {}
for i = 0, 255 do
  local n, v = 0, i
  while v ~= 0 do n = n + (v & 1); v = v >> 1 end
  BITCOUNT[i] = n
end
num.BITCOUNT = BITCOUNT

function num.bcd8(x) return ((x >> 4) & 0xF) * 10 + (x & 0xF) end
function num.bcd16(x)
  return ((x >> 12) & 0xF) * 1000 + ((x >> 8) & 0xF) * 100 + ((x >> 4) & 0xF) * 10 + (x & 0xF)
end
function num.bcd24(x)
  return ((x >> 20) & 0xF) * 100000 + ((x >> 16) & 0xF) * 10000 + ((x >> 12) & 0xF) * 1000
    + ((x >> 8) & 0xF) * 100 + ((x >> 4) & 0xF) * 10 + (x & 0xF)
end
function num.bcd32(x)
  return ((x >> 28) & 0xF) * 10000000 + ((x >> 24) & 0xF) * 1000000 + ((x >> 20) & 0xF) * 100000
    + ((x >> 16) & 0xF) * 10000 + ((x >> 12) & 0xF) * 1000 + ((x >> 8) & 0xF) * 100
    + ((x >> 4) & 0xF) * 10 + (x & 0xF)
end

--- Three-way comparison of two floats with rcheevos' tolerance (about seven
-- significant digits): returns -1, 0 or 1.  NaN compares as "less".
local function fcmp(a, b)
  if a == b then return 0 end
  local a1 = a < 0 and -a or a
  local a2 = b < 0 and -b or b
  local threshold = (a1 < a2 and a1 or a2) * FLT_EPSILON
  local diff = f32(a - b)
  local adiff = diff < 0 and -diff or diff
  if adiff <= threshold then return 0 end
  if diff > threshold then return 1 end
  return -1
end
num.fcmp = fcmp

--- Whether two floats are stored as the same bits (rcheevos keeps a float value as its 32 bits and
-- sees a change when they differ): 0.0 and -0.0 differ, and so do NaNs of either sign (decoded NaNs
-- carry no other payload).  Only two NaNs cost a comparison of their bytes.
local spack = string.pack
function num.same_float(a, b)
  if a == b then return a ~= 0 or 1 / a == 1 / b end
  return a ~= a and b ~= b and spack("<d", a) == spack("<d", b)
end

--- Typed "greater than" (used to keep the highest Measured value).
function num.typed_gt(a, b)
  if mtype(a) == "float" or mtype(b) == "float" then
    return fcmp(tof(a), tof(b)) > 0
  end
  return a > b
end

-- Converts an operation result to the type of the node that stores it.
-- `r` is an unsigned integer, a float, or nil (rcheevos' "none", e.g. after a
-- division by zero).
local function store(r, is_float)
  if r == nil then return is_float and 0.0 or 0 end
  if is_float then return tof(r) end
  return tou32(r)
end
num.store = store

local function isf(x) return mtype(x) == "float" end

--- Combining operators for modified memory references.  Each takes the two
-- typed operands and whether the result is stored as a float.
local ops = {}
num.ops = ops

ops["*"] = function(a, b, fl)
  if not isf(a) and not isf(b) then return store((a * b) & M32, fl) end
  return store(f32(tof(a) * tof(b)), fl)
end

ops["/"] = function(a, b, fl)
  if isf(b) then
    if b == 0 then return store(nil, fl) end
    return store(f32(tof(a) / b), fl)
  end
  if b == 0 then return store(nil, fl) end
  if isf(a) then return store(f32(a / tof(b)), fl) end
  return store(a // b, fl)
end

ops["%"] = function(a, b, fl)
  if isf(b) then
    if b == 0 then return store(nil, fl) end
    return store(f32(fmod(tof(a), b)), fl)
  end
  if b == 0 then return store(nil, fl) end
  if isf(a) then return store(f32(fmod(a, tof(b))), fl) end
  return store(a % b, fl)
end

ops["&"] = function(a, b, fl) return store(tou32(a) & tou32(b), fl) end
ops["^"] = function(a, b, fl) return store(tou32(a) ~ tou32(b), fl) end

ops["+"] = function(a, b, fl)
  if isf(a) or isf(b) then return store(f32(tof(a) + tof(b)), fl) end
  return store((a + b) & M32, fl)
end

-- a - b: the right side is negated (as a signed value) and added.
ops["-"] = function(a, b, fl)
  if isf(b) then return store(f32(tof(a) - b), fl) end
  if isf(a) then return store(f32(a + f32(neg32(b) + 0.0)), fl) end
  return store((a - b) & M32, fl)
end

-- AddSource accumulator: the modifier takes the accumulator's type first.
ops["acc+"] = function(a, b, fl)
  if isf(a) then return store(f32(a + tof(b)), fl) end
  return store((a + tou32(b)) & M32, fl)
end

-- SubSource accumulator: negate the modifier, convert it to the accumulator's
-- type, then add.
ops["acc-"] = function(a, b, fl)
  local nb
  if isf(b) then nb = -b else nb = neg32(b) end
  if isf(a) then
    return store(f32(a + f32(nb + 0.0)), fl)
  end
  if isf(nb) then nb = tou32(nb) end
  return store((a + nb) & M32, fl)
end

-- SubSource on the first element of a chain: "-parent + modifier".
ops["neg+"] = function(a, b, fl)
  if isf(a) then
    return store(f32(-a + tof(b)), fl)
  end
  local na = neg32(a)
  if isf(b) then return store(f32(f32(na + 0.0) + b), fl) end
  local r = (na + toi32(b)) & M32
  if fl then return f32(toi32(r) + 0.0) end
  return r
end

return num
