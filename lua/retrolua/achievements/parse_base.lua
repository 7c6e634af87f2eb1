-- retrolua.achievements.parse_base: what the parser of condition strings
-- (achievements/parse.lua) stands on: its errors, the memory sizes, the
-- registry of memory nodes with its limits, and lexical helpers (C's strtoul).

local num = require("retrolua.achievements.num")

local byte, sub, format = string.byte, string.sub, string.format
local M32 = num.M32

local B = {}

---------------------------------------------------------------------------
-- errors
---------------------------------------------------------------------------

local ERR = {}
ERR.__index = ERR

local function fail(pos, msg)
  error(setmetatable({ pos = pos, msg = msg }, ERR), 0)
end
B.fail = fail

--- Whether `e` is an error `fail` raised (a table with pos and msg).
function B.is_parse_error(e) return getmetatable(e) == ERR end

--- Calls fn(...) and converts a parse error into `nil, message`.
function B.protect(fn, ...)
  local ok, a, b = pcall(fn, ...)
  if ok then return a, b end
  if getmetatable(a) == ERR then
    return nil, format("%s at position %d", a.msg, a.pos)
  end
  error(a, 0)
end

--- Parses a whole `kind` definition: `nil, message` unless it is a string, else parse(def) under protect once
-- its length is within the limit.
function B.definition(kind, def, parse)
  if type(def) ~= "string" then return nil, kind .. " definition must be a string" end
  return B.protect(function()
    B.check_length(def)
    return parse(def)
  end)
end

---------------------------------------------------------------------------
-- sizes
---------------------------------------------------------------------------

-- nbytes: bytes read (rcheevos' shared size); mask: bits the size really uses;
-- float: decoded as a float.
local SIZES = {
  ["8"] = { nbytes = 1, mask = 0xFF },
  ["16"] = { nbytes = 2, mask = 0xFFFF },
  ["24"] = { nbytes = 4, mask = 0xFFFFFF },
  ["32"] = { nbytes = 4, mask = M32 },
  lo = { nbytes = 1, mask = 0x0F },
  hi = { nbytes = 1, mask = 0xF0 },
  bc = { nbytes = 1, mask = 0xFF },
  ["16be"] = { nbytes = 2, mask = 0xFFFF },
  ["24be"] = { nbytes = 4, mask = 0xFFFFFF },
  ["32be"] = { nbytes = 4, mask = M32 },
  float = { nbytes = 4, mask = M32, float = true },
  floatbe = { nbytes = 4, mask = M32, float = true },
  dbl32 = { nbytes = 4, mask = M32, float = true },
  dbl32be = { nbytes = 4, mask = M32, float = true },
  mbf32 = { nbytes = 4, mask = M32, float = true },
  mbf32le = { nbytes = 4, mask = M32, float = true },
}
for b = 0, 7 do SIZES["bit" .. b] = { nbytes = 1, mask = 1 << b, bit = b } end
B.SIZES = SIZES

local SHARED_MASK = { 0xFF, 0xFFFF, nil, M32 }

local MEM_SIZE_CHARS = {
  h = "8", [" "] = "16", x = "32", w = "24", g = "32be", i = "16be", j = "24be",
  l = "lo", u = "hi", k = "bc",
  m = "bit0", n = "bit1", o = "bit2", p = "bit3", q = "bit4", r = "bit5", s = "bit6", t = "bit7",
}
local FLOAT_SIZE_CHARS = { f = "float", b = "floatbe", h = "dbl32", i = "dbl32be", m = "mbf32", l = "mbf32le" }

local function size_is_float(size) return SIZES[size] ~= nil and SIZES[size].float == true end
B.size_is_float = size_is_float

---------------------------------------------------------------------------
-- memory: the registry of nodes shared by everything parsed into it
---------------------------------------------------------------------------

local Mem = {}
Mem.__index = Mem

-- Bounds on one definition (a trigger, value, leaderboard or rich presence
-- script), far above any real set, so that hostile input cannot make
-- parsing and compiling take unbounded time or memory.
B.MAX_LENGTH = 1024 * 1024
B.MAX_CONDITIONS = 10000
B.MAX_GROUPS = 10000

--- Creates an empty node registry (one per definition: it also counts the
-- conditions and groups parsed into it against the limits above).
function B.new_mem()
  return setmetatable({ nodes = {}, bykey = {}, uid = 0, conditions = 0, groups = 0 }, Mem)
end

--- Fails unless the definition `s` is within B.MAX_LENGTH bytes.
function B.check_length(s, limit)
  limit = limit or B.MAX_LENGTH
  if #s > limit then
    fail(limit + 1, format("Definition longer than %d bytes (the limit)", limit))
  end
end

local function opkey(op)
  local k = op.k
  if k == "const" then return "c" .. op.v end
  if k == "fp" then return "f" .. format("%a", op.v) end
  if k == "func" then return "F" end
  if k == "recall" then
    if op.ref then return "r(" .. opkey(op.ref) .. ")" .. op.size end
    return "ru" .. op.uid
  end
  return "n" .. op.node.id .. op.access .. op.size
end
B.opkey = opkey

function Mem:add(key, node)
  local found = self.bykey[key]
  if found then return found end
  local id = #self.nodes + 1
  node.id = id
  self.nodes[id] = node
  self.bykey[key] = node
  return node
end

--- A direct memory read of `nbytes` at `addr`, optionally masked.
function Mem:memref(addr, nbytes, mask)
  return self:add(format("m%d:%d:%s", addr, nbytes, mask or ""),
    { kind = "mem", addr = addr, nbytes = nbytes, mask = mask, fl = false })
end

--- A read through a pointer: address = value(parent) + offset.
function Mem:indirect(parent, offset, nbytes, mask)
  return self:add(format("i%s+%d:%d:%s", opkey(parent), offset, nbytes, mask or ""),
    { kind = "ind", parent = parent, offset = offset, nbytes = nbytes, mask = mask, fl = false })
end

--- A combination of two operands (AddSource chains, modifiers, Remember).
function Mem:modified(fl, parent, op, modifier)
  return self:add(format("x%s%s(%s,%s)", fl and "f" or "i", op, opkey(parent), opkey(modifier)),
    { kind = "mod", parent = parent, op = op, modifier = modifier, fl = fl })
end

---------------------------------------------------------------------------
-- helpers
---------------------------------------------------------------------------

local function ch(s, i) return sub(s, i, i) end

local function copy(op)
  local t = {}
  for k, v in pairs(op) do t[k] = v end
  return t
end
B.copy = copy

local function const(v) return { k = "const", v = v, size = "32" } end
local function fpconst(v) return { k = "fp", v = num.f32(v), size = "float" } end

local function is_digit(c) return c ~= "" and c >= "0" and c <= "9" end
local function is_alpha(c) return c ~= "" and ((c >= "a" and c <= "z") or (c >= "A" and c <= "Z")) end
local function is_alnum(c) return is_alpha(c) or is_digit(c) end
local function is_space(c) return c == " " or c == "\t" or c == "\n" or c == "\r" or c == "\v" or c == "\f" end

local HEX = {}
for d = 0, 9 do HEX[48 + d] = d end
for d = 0, 5 do HEX[65 + d] = 10 + d; HEX[97 + d] = 10 + d end

--- C's strtoul on a 64-bit unsigned long: returns the value as a Lua
-- integer holding those 64 bits (a leading minus negates them modulo 2^64,
-- more than 64 bits saturate to 2^64-1 = -1 like C's ULONG_MAX), the index
-- after the number, and whether digits were found.  Callers compare with
-- `v > M32 or v < 0` for "does not fit 32 bits" and `v & M32` for C's cast.
local function strtoul(s, i, base)
  local j = i
  while is_space(ch(s, j)) do j = j + 1 end
  local neg = false
  local c = ch(s, j)
  if c == "+" or c == "-" then neg = (c == "-"); j = j + 1 end
  if base == 16 and ch(s, j) == "0" and (ch(s, j + 1) == "x" or ch(s, j + 1) == "X")
      and HEX[byte(s, j + 2) or 0] then
    j = j + 2
  end
  -- two 32-bit halves, so the arithmetic never wraps
  local hi, lo, start, saturated = 0, 0, j, false
  while true do
    local d = HEX[byte(s, j) or 0]
    if d == nil or d >= base then break end
    if not saturated then
      lo = lo * base + d
      hi = hi * base + (lo >> 32)
      lo = lo & M32
      if hi > M32 then saturated = true end
    end
    j = j + 1
  end
  if j == start then return 0, i, false end
  if saturated then return -1, j, true end -- ULONG_MAX, even after a minus
  local v = (hi << 32) | lo
  if neg then v = -v end
  return v, j, true
end
B.strtoul = strtoul

-- (unsigned)strtoul(...) for a hit count
local function to_u32(v) return v & M32 end

-- for parse.lua and parse_operands.lua: the tables and helpers above
B.ERR, B.SHARED_MASK, B.MEM_SIZE_CHARS, B.FLOAT_SIZE_CHARS = ERR, SHARED_MASK, MEM_SIZE_CHARS, FLOAT_SIZE_CHARS
B.HEX, B.ch, B.const, B.fpconst, B.to_u32 = HEX, ch, const, fpconst, to_u32
B.is_digit, B.is_alpha, B.is_alnum, B.is_space = is_digit, is_alpha, is_alnum, is_space

return B
