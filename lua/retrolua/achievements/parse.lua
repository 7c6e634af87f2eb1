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
local B = require("retrolua.achievements.parse_base")
local parse_operand = require("retrolua.achievements.parse_operands").parse_operand

local format = string.format
local M32 = num.M32

local P = {}

-- the base's public names, as parse's
P.definition = B.definition
P.fail, P.protect, P.is_parse_error, P.SIZES, P.size_is_float = B.fail, B.protect, B.is_parse_error, B.SIZES,
  B.size_is_float
P.new_mem, P.check_length, P.opkey, P.copy, P.strtoul = B.new_mem, B.check_length, B.opkey, B.copy, B.strtoul
P.MAX_LENGTH, P.MAX_CONDITIONS, P.MAX_GROUPS = B.MAX_LENGTH, B.MAX_CONDITIONS, B.MAX_GROUPS
local fail, ch, const, fpconst, copy, to_u32 = B.fail, B.ch, B.const, B.fpconst, B.copy, B.to_u32
local size_is_float, strtoul = B.size_is_float, B.strtoul

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
