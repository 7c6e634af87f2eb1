-- retrolua.achievements.parse: parser for RetroAchievements condition strings.
--
-- Turns trigger, value and leaderboard strings into plain Lua tables
-- (condition sets, conditions and operands) following rcheevos' grammar and
-- its "modified memory reference" model: AddSource/SubSource chains,
-- AddAddress pointers and Remember expressions become *nodes* registered in a
-- Mem object; every node gets a value once per frame, with its own delta and
-- prior, exactly like rcheevos' rc_modified_memref_t.
--
-- Operand tables:
--   { k = "const", v = u32 }                      unsigned integer constant
--   { k = "fp", v = float }                       float constant (single precision)
--   { k = "func" }                                 "@name" (never implemented by rcheevos: 0)
--   { k = "mem", node = N, access = A, size = S }  memory read through node N;
--        A: "v" value, "d" delta, "p" prior, "b" BCD, "i" inverted; S: size code
--   { k = "recall", ref = operand|nil, size = S }  {recall}: the last Remember
--
-- Errors are raised as tables { pos = n, msg = "..." } and turned into
-- `nil, message` by `protect`.

local num = require("retrolua.achievements.num")

local byte, sub, format = string.byte, string.sub, string.format
local M32 = num.M32

local P = {}

---------------------------------------------------------------------------
-- errors
---------------------------------------------------------------------------

local ERR = {}
ERR.__index = ERR

local function fail(pos, msg)
  error(setmetatable({ pos = pos, msg = msg }, ERR), 0)
end
P.fail = fail

--- Whether `e` is an error `fail` raised (a table with pos and msg).
function P.is_parse_error(e) return getmetatable(e) == ERR end

--- Calls fn(...) and converts a parse error into `nil, message`.
function P.protect(fn, ...)
  local ok, a, b = pcall(fn, ...)
  if ok then return a, b end
  if getmetatable(a) == ERR then
    return nil, format("%s at position %d", a.msg, a.pos)
  end
  error(a, 0)
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
P.SIZES = SIZES

local SHARED_MASK = { 0xFF, 0xFFFF, nil, M32 }

local MEM_SIZE_CHARS = {
  h = "8", [" "] = "16", x = "32", w = "24", g = "32be", i = "16be", j = "24be",
  l = "lo", u = "hi", k = "bc",
  m = "bit0", n = "bit1", o = "bit2", p = "bit3", q = "bit4", r = "bit5", s = "bit6", t = "bit7",
}
local FLOAT_SIZE_CHARS = { f = "float", b = "floatbe", h = "dbl32", i = "dbl32be", m = "mbf32", l = "mbf32le" }

local function size_is_float(size) return SIZES[size] ~= nil and SIZES[size].float == true end
P.size_is_float = size_is_float

---------------------------------------------------------------------------
-- memory: the registry of nodes shared by everything parsed into it
---------------------------------------------------------------------------

local Mem = {}
Mem.__index = Mem

-- Bounds on one definition (a trigger, value, leaderboard or rich presence
-- script), far above any real set, so that hostile input cannot make
-- parsing and compiling take unbounded time or memory.
P.MAX_LENGTH = 1024 * 1024
P.MAX_CONDITIONS = 10000
P.MAX_GROUPS = 10000

--- Creates an empty node registry (one per definition: it also counts the
-- conditions and groups parsed into it against the limits above).
function P.new_mem()
  return setmetatable({ nodes = {}, bykey = {}, uid = 0, conditions = 0, groups = 0 }, Mem)
end

--- Fails unless the definition `s` is within P.MAX_LENGTH bytes.
function P.check_length(s, limit)
  limit = limit or P.MAX_LENGTH
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
P.opkey = opkey

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
P.copy = copy

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
P.strtoul = strtoul

-- (unsigned)strtoul(...) for a hit count
local function to_u32(v) return v & M32 end

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

---------------------------------------------------------------------------
-- conditions
---------------------------------------------------------------------------

local FLAGS = {
  p = "P", r = "R", a = "A", b = "B", c = "C", d = "D", n = "N", o = "O",
  m = "M", q = "Q", i = "I", t = "T", k = "K", z = "Z", g = "G",
}
local CAN_MODIFY = { A = true, B = true, I = true, K = true }
local COMPARISON = { ["="] = true, ["!="] = true, ["<"] = true, ["<="] = true, [">"] = true, [">="] = true }
local MODIFYING = { ["*"] = true, ["/"] = true, ["&"] = true, ["^"] = true, ["%"] = true, ["+"] = true, ["-"] = true }
P.COMPARISON = COMPARISON

-- returns operator (nil = none) and next index
local function parse_operator(s, i)
  local c = ch(s, i)
  if c == "=" then
    if ch(s, i + 1) == "=" then return "=", i + 2 end
    return "=", i + 1
  elseif c == "!" then
    if ch(s, i + 1) == "=" then return "!=", i + 2 end
    fail(i, "Invalid operator")
  elseif c == "<" or c == ">" then
    if ch(s, i + 1) == "=" then return c .. "=", i + 2 end
    return c, i + 1
  elseif MODIFYING[c] then
    return c, i + 1
  elseif c == "" or c == "_" or c == "S" or c == ")" or c == "$" then
    return nil, i
  end
  fail(i, "Invalid operator")
end

local function modifying(oper) return oper == nil or MODIFYING[oper] == true end
P.modifying = modifying

local function parse_hits(s, i, close)
  local v, e, ok = strtoul(s, i + 1, 10)
  if not ok or ch(s, e) ~= close then fail(i, "Invalid required hits") end
  return to_u32(v), e + 1
end

--- rc_parse_condition_internal: returns the condition and the next index.
function P.parse_condition(ps, i)
  local s = ps.s
  local start = i
  local cond = { pos = i, flag = "", req = 0 }
  if ch(s, i) ~= "" and ch(s, i + 1) == ":" then
    local f = FLAGS[ch(s, i):lower()]
    if not f then fail(i, "Invalid condition type") end
    if f == "G" then
      ps.as_percent = true
      f = "M"
    end
    cond.flag = f
    i = i + 2
  end
  local can_modify = CAN_MODIFY[cond.flag]
  cond.op1, i = parse_operand(ps, i)
  local oper
  oper, i = parse_operator(s, i)
  cond.oper = oper
  if oper == nil then
    if not can_modify and cond.flag ~= "M" then fail(i, "Invalid operator") end
    cond.op2 = const(1)
    return cond, i
  end
  if can_modify and not modifying(oper) then
    if cond.flag == "K" then fail(start, "Invalid operator") end
    -- AddSource/SubSource/AddAddress with a comparison: legacy data, ignore the comparison
    cond.oper = nil
  end
  cond.op2, i = parse_operand(ps, i)
  if cond.oper == nil then cond.op2 = const(0) end
  local c = ch(s, i)
  if c == "(" or c == "." then
    cond.req, i = parse_hits(s, i, c == "(" and ")" or ".")
    if cond.oper == nil then cond.req = 0 else ps.has_required_hits = true end
  end
  return cond, i
end

---------------------------------------------------------------------------
-- modified memory references (rc_condition_update_parse_state)
---------------------------------------------------------------------------

--- rcheevos' static "is this operand a float" (rc_operand_is_float).
local function static_float(op)
  local k = op.k
  if k == "fp" then return true end
  if k == "recall" then return size_is_float(op.size) end
  if k == "mem" then
    if op.node.kind == "mod" then return op.node.fl end
    return size_is_float(op.size)
  end
  return false
end
P.static_float = static_float

local function is_memref(op) return op.k == "mem" end

local function mem_operand(node, access, size)
  return { k = "mem", node = node, access = access, size = size }
end

local function convert_to_operand(ps, cond)
  if cond.oper == nil then return copy(cond.op1) end
  local fl = static_float(cond.op1) or static_float(cond.op2)
  local node = ps.mem:modified(fl, cond.op1, cond.oper, cond.op2)
  return mem_operand(node, "v", fl and "float" or "32")
end

-- rc_operand_addsource: op becomes "chain <oper> op" (mutated in place)
local function operand_addsource(ps, op, new_fl)
  local parent = ps.as_parent
  if op.k == "mem" and (op.access == "d" or op.access == "p") and parent.k == "mem"
      and parent.access == op.access then
    -- delta(x) + delta(y) is evaluated as delta(x + y); same for prior
    local modifier = copy(op)
    modifier.access = "v"
    parent.access = "v"
    op.node = ps.mem:modified(new_fl, parent, ps.as_oper, modifier)
  else
    local node = ps.mem:modified(new_fl, parent, ps.as_oper, copy(op))
    for key in pairs(op) do op[key] = nil end
    op.k = "mem"
    op.node = node
    op.access = "v"
  end
  op.size = "32"
end

function P.update_parse_state(ps, cond)
  local flag = cond.flag
  if flag == "I" then
    ps.ind_parent = convert_to_operand(ps, cond)
  elseif flag == "A" then
    if not ps.as_parent then
      ps.as_parent = convert_to_operand(ps, cond)
    else
      local new_fl = static_float(ps.as_parent)
      local co = convert_to_operand(ps, cond)
      operand_addsource(ps, co, new_fl)
      ps.as_parent = co
    end
    ps.as_oper = "acc+"
    ps.ind_parent = nil
  elseif flag == "B" then
    if not ps.as_parent then
      ps.as_parent = convert_to_operand(ps, cond)
      ps.as_oper = "neg+"
    else
      local new_fl = static_float(ps.as_parent)
      local parent = ps.as_parent
      if ps.as_oper == "acc+" and not is_memref(parent) then
        -- a constant accumulator becomes a memref by adding zero
        local node = ps.mem:modified(size_is_float(parent.size), parent, "acc+", const(0))
        ps.as_parent = mem_operand(node, "v", parent.size)
      elseif ps.as_oper == "neg+" then
        -- two SubSources in a row: negate the first one and keep subtracting
        local zero = static_float(parent) and fpconst(0.0) or const(0)
        local node = ps.mem:modified(new_fl, parent, "neg+", zero)
        ps.as_parent = mem_operand(node, parent.k == "mem" and parent.access or "v", zero.size)
      end
      ps.as_oper = is_memref(ps.as_parent) and "acc-" or "neg+"
      local co = convert_to_operand(ps, cond)
      operand_addsource(ps, co, new_fl)
      ps.as_parent = co
      ps.as_oper = "acc+"
    end
    ps.ind_parent = nil
  elseif flag == "K" then
    if cond.op1.k == "recall" and cond.oper == nil and not ps.as_parent and not ps.ind_parent then
      return -- remembering {recall} unmodified changes nothing
    end
    cond.op1 = convert_to_operand(ps, cond)
    if ps.as_parent then
      operand_addsource(ps, cond.op1, size_is_float(cond.op1.size))
    end
    ps.remember = copy(cond.op1)
    ps.as_parent = nil
    ps.ind_parent = nil
  else
    if flag == "M" and ps.is_value and cond.oper ~= nil and MODIFYING[cond.oper] then
      cond.op1 = convert_to_operand(ps, cond)
    end
    if ps.as_parent then
      if ps.as_oper == "acc+" then ps.as_oper = "+" end
      operand_addsource(ps, cond.op1, size_is_float(cond.op1.size))
    end
    ps.as_parent = nil
    ps.ind_parent = nil
  end
end

---------------------------------------------------------------------------
-- condition sets
---------------------------------------------------------------------------

local CLASS_OF_FLAG = {
  P = "pause", R = "reset", A = "indirect", B = "indirect", I = "indirect",
  C = "combining", D = "combining", N = "combining", O = "combining", K = "combining", Z = "combining",
  M = "measured", Q = "measured",
}
P.CLASS_OF_FLAG = CLASS_OF_FLAG

local function classify(cond)
  local c = CLASS_OF_FLAG[cond.flag]
  if c then return c end
  if cond.req ~= 0 then return "hittarget" end
  return "other"
end

local CLASS_ORDER = { "pause", "reset", "hittarget", "measured", "other" }
P.CLASS_ORDER = CLASS_ORDER

-- iterative (an AddSource chain may be thousands of nodes deep)
local function update_recall(first, remember, seen)
  local stack = { first }
  while #stack > 0 do
    local op = stack[#stack]
    stack[#stack] = nil
    if op.k == "recall" then
      if op.ref == nil then
        op.ref = copy(remember)
        op.size = remember.size or "32"
      end
    elseif op.k == "mem" and (op.node.kind == "mod" or op.node.kind == "ind") and not seen[op.node] then
      -- into combined values and pointer reads alike (both are rcheevos' modified memrefs)
      seen[op.node] = true
      stack[#stack + 1] = op.node.parent
      if op.node.kind == "mod" then stack[#stack + 1] = op.node.modifier end
    end
  end
end

-- rcheevos evaluates PauseIf chains before everything else, so a {recall}
-- in a pause chain cannot see a Remember from a non-pause chain, and the
-- conditions before the first Remember see the last pause Remember.
local function fix_pause_remember(conds)
  local pause_remember
  for _, cond in ipairs(conds) do
    if cond.class == "pause" then
      if cond.flag == "K" then
        pause_remember = cond.op1
      elseif pause_remember == nil then
        for _, key in ipairs({ "op1", "op2" }) do
          local op = cond[key]
          if op.k == "recall" and op.ref and op.ref.k == "mem" then
            cond[key] = { k = "recall", ref = nil, size = "32", uid = -1 }
          end
        end
      end
    end
  end
  if pause_remember then
    for _, cond in ipairs(conds) do
      if cond.class ~= "pause" then
        update_recall(cond.op1, pause_remember, {})
        update_recall(cond.op2, pause_remember, {})
      end
      if cond.flag == "K" then break end
    end
  end
end

-- Sets each condition's class: combining conditions belong to the class of the
-- condition they feed (or "other" when nothing follows them).
local function classify_all(conds)
  local pending = {}
  for _, cond in ipairs(conds) do
    local class = classify(cond)
    if class == "combining" then
      pending[#pending + 1] = cond
    else
      cond.class = class
      if class ~= "indirect" then
        for _, p in ipairs(pending) do p.class = class end
        pending = {}
      end
    end
  end
  for _, p in ipairs(pending) do p.class = "other" end
end

--- rc_parse_condset: parses conditions separated by '_' starting at i.
-- Returns the condition set and the next index.
function P.parse_condset(ps, i)
  local s = ps.s
  local set = { conds = {} }
  local mem = ps.mem
  mem.groups = mem.groups + 1
  if mem.groups > P.MAX_GROUPS then fail(i, format("More than %d groups (the limit)", P.MAX_GROUPS)) end
  local c = ch(s, i)
  if c == "S" or c == "s" or c == "" then return set, i end

  ps.as_parent, ps.as_oper, ps.ind_parent, ps.remember = nil, nil, nil, nil
  local measured_target = 0
  local conds = set.conds
  while true do
    mem.conditions = mem.conditions + 1
    if mem.conditions > P.MAX_CONDITIONS then
      fail(i, format("More than %d conditions (the limit)", P.MAX_CONDITIONS))
    end
    local cond
    cond, i = P.parse_condition(ps, i)
    local flag = cond.flag
    if cond.oper == nil and not CAN_MODIFY[flag] and not (flag == "M" and ps.is_value) then
      fail(cond.pos, "Invalid operator")
    end
    if flag == "M" then
      local target
      if measured_target ~= 0 then
        fail(cond.pos, "Multiple measured targets")
      elseif ps.is_value then
        target = M32
        if not modifying(cond.oper) then cond.req = M32 end -- a comparison tallies hits
      elseif cond.req ~= 0 then
        target = cond.req
      elseif cond.op2.k == "const" then
        target = cond.op2.v
      elseif cond.op2.k == "fp" then
        target = num.tou32(cond.op2.v)
      else
        fail(cond.pos, "Invalid measured target")
      end
      measured_target = target
      if ps.measured_target ~= 0 and target ~= ps.measured_target then
        fail(cond.pos, "Multiple measured targets")
      end
      ps.measured_target = target
    elseif (flag == "" or flag == "T") and ps.is_value then
      fail(cond.pos, "Invalid flag in value expression")
    end
    P.update_parse_state(ps, cond)
    conds[#conds + 1] = cond
    if ch(s, i) ~= "_" then break end
    i = i + 1
  end

  classify_all(conds)

  if ps.remember then
    for _, cond in ipairs(conds) do
      if cond.class == "pause" then fix_pause_remember(conds); break end
    end
  end

  for _, cond in ipairs(conds) do
    ps.nhits = ps.nhits + 1
    cond.hit = ps.nhits
  end
  return set, i
end

return P
