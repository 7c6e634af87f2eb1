-- retrolua.achievements.parse_operands: the operands of a condition
-- (rc_parse_operand): memory references with their sizes and access kinds
-- (delta, prior, BCD, inverted), constants, floats and {recall}.

local num = require("retrolua.achievements.num")
local B = require("retrolua.achievements.parse_base")

local byte, sub = string.byte, string.sub
local M32 = num.M32
local fail, ch, const, fpconst, copy, strtoul = B.fail, B.ch, B.const, B.fpconst, B.copy, B.strtoul
local is_digit, is_alpha, is_alnum = B.is_digit, B.is_alpha, B.is_alnum
local SIZES, SHARED_MASK, MEM_SIZE_CHARS, FLOAT_SIZE_CHARS, HEX =
  B.SIZES, B.SHARED_MASK, B.MEM_SIZE_CHARS, B.FLOAT_SIZE_CHARS, B.HEX

local O = {}

---------------------------------------------------------------------------
-- operands
---------------------------------------------------------------------------

local ACCESS = { d = "d", D = "d", p = "p", P = "p", b = "b", B = "b", ["~"] = "i" }

-- rc_parse_memref: "0x<size><hex>" or "f<size><hex>"; returns size, address, next index.
local function parse_memref(s, i)
  local size, j
  local c = ch(s, i)
  if c == "0" then
    local x = ch(s, i + 1)
    if x ~= "x" and x ~= "X" then fail(i, "Invalid memory operand") end
    local sc = ch(s, i + 2)
    size = MEM_SIZE_CHARS[sc:lower()] or (sc == " " and "16" or nil)
    j = i + 3
    if not size then
      if sc == "0" and ch(s, i + 3) == "x" then fail(i, "Invalid memory operand") end
      if HEX[byte(s, i + 2) or 0] then
        size = "16" -- legacy: no size prefix means 16 bits
        j = i + 2
      else
        fail(i, "Invalid memory operand")
      end
    end
  elseif c == "f" or c == "F" then
    size = FLOAT_SIZE_CHARS[ch(s, i + 1):lower()]
    if not size then fail(i, "Invalid floating-point operand") end
    j = i + 2
  else
    fail(i, "Invalid memory operand")
  end
  local v, e, ok = strtoul(s, j, 16)
  if not ok then fail(i, "Invalid memory operand") end
  if v > M32 or v < 0 then v = M32 end
  return size, v, e
end

local function parse_memory_operand(ps, s, i)
  local access = ACCESS[ch(s, i)]
  if access then i = i + 1 else access = "v" end
  local size, addr, e = parse_memref(s, i)
  local info = SIZES[size]
  local mask = nil
  if access == "p" and SHARED_MASK[info.nbytes] ~= info.mask then
    -- a prior of a partial size tracks its own masked value (see rcheevos operand.c)
    mask = info.mask
  end
  local node
  if ps.ind_parent then
    node = ps.mem:indirect(ps.ind_parent, addr, info.nbytes, mask)
  else
    node = ps.mem:memref(addr, info.nbytes, mask)
  end
  return { k = "mem", node = node, access = access, size = size }, e
end

local function parse_signed(s, i, allow_decimal, start)
  local neg = false
  local c = ch(s, i)
  if c == "-" then neg = true; i = i + 1 elseif c == "+" then i = i + 1 end
  local v, e, ok = strtoul(s, i, 10)
  if ch(s, ok and e or i) == "." and allow_decimal then
    local intpart = ok and v or 0
    if intpart < -M32 or intpart > M32 then intpart = M32 end
    local j = (ok and e or i) + 1
    if not is_digit(ch(s, j)) then fail(start, "Invalid floating-point operand") end
    local shift, frac = 1, 0
    repeat
      if shift < 1000000000 then
        frac = frac * 10 + (byte(s, j) - 48)
        shift = shift * 10
      end
      j = j + 1
    until not is_digit(ch(s, j))
    local d
    if intpart < 0 then intpart = -intpart end
    if neg then d = -intpart - frac / shift else d = intpart + frac / shift end
    return fpconst(d), j
  end
  if not ok then
    fail(start, allow_decimal and "Invalid floating-point operand" or "Invalid constant operand")
  end
  if v > 0x7FFFFFFF or v < 0 then v = 0x7FFFFFFF end
  if neg then return const((-v) & M32), e end
  return const(v), e
end

local function parse_variable(ps, s, i, start)
  local j = i
  while ch(s, j) ~= "}" do
    local c = ch(s, j)
    if j - i >= 15 or not (j == i and is_alpha(c) or j > i and is_alnum(c)) then
      fail(start, "Invalid variable name")
    end
    j = j + 1
  end
  if j == i then fail(start, "Invalid variable name") end
  local name = sub(s, i, j - 1)
  if name ~= "recall" then fail(start, "Unknown variable name '" .. name .. "'") end
  local op
  local remember = ps.remember
  -- a recall of a remembered recall reads what that one reads: keep refs one level deep
  while remember and remember.k == "recall" and remember.ref do remember = remember.ref end
  if remember then
    op = { k = "recall", ref = copy(remember), size = remember.size or "32" }
  else
    ps.mem.uid = ps.mem.uid + 1
    op = { k = "recall", ref = nil, size = "32", uid = ps.mem.uid }
  end
  return op, j + 1
end

--- rc_parse_operand: returns the operand and the index after it.
local function parse_operand(ps, i)
  local s = ps.s
  local c = ch(s, i)
  if c == "h" or c == "H" then
    local x = ch(s, i + 2)
    if x == "x" or x == "X" then fail(i, "Invalid constant operand") end
    local v, e, ok = strtoul(s, i + 1, 16)
    if not ok then fail(i, "Invalid constant operand") end
    if v > M32 or v < 0 then v = M32 end
    return const(v), e
  elseif c == "f" or c == "F" then
    if is_alpha(ch(s, i + 1)) then return parse_memory_operand(ps, s, i) end
    return parse_signed(s, i + 1, true, i)
  elseif c == "v" or c == "V" then
    return parse_signed(s, i + 1, false, i)
  elseif c == "+" or c == "-" then
    return parse_signed(s, i, false, i)
  elseif c == "{" then
    return parse_variable(ps, s, i + 1, i)
  elseif c == "@" then
    local j = i + 1
    if not is_alpha(ch(s, j)) then fail(i, "Invalid function operand") end
    while is_alnum(ch(s, j)) or ch(s, j) == "_" do j = j + 1 end
    return { k = "func", size = "32" }, j
  elseif c == "0" and (ch(s, i + 1) == "x" or ch(s, i + 1) == "X") then
    return parse_memory_operand(ps, s, i)
  elseif is_digit(c) then
    local v, e, ok = strtoul(s, i, 10)
    if not ok then fail(i, "Invalid constant operand") end
    if v > M32 or v < 0 then v = M32 end
    return const(v), e
  end
  return parse_memory_operand(ps, s, i)
end

O.parse_operand = parse_operand

return O
