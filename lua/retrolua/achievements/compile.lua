-- retrolua.achievements.compile: turns parsed units into Lua functions.
--
-- A *program* is a Mem (the node registry, see parse.lua) plus the units
-- (triggers and values) parsed into it.  Compiling it generates Lua source
-- once and loads it:
--
--   refresh(peek)      reads every stored node for this frame (current value,
--                      previous frame's value, last different value)
--   unit.eval(peek)    evaluates one trigger or value against those values
--   unit.step(self, peek)  a standalone trigger's whole update (see achievements.lua)
--
-- Node values live in three tables indexed by node id: V (current), D (the
-- value one frame ago: rcheevos' delta) and P (prior: the value before the
-- last change).  A plain memory read that is used exactly once and needs no
-- history is not stored at all: the generated code calls peek at the point of
-- use.  The generated code mirrors rcheevos' rc_test_condset /
-- rc_evaluate_trigger step for step (condition classes, hit counting,
-- AndNext/OrNext/ResetNextIf/AddHits, PauseIf/ResetIf/Trigger/Measured)
-- with everything that is known at parse time resolved at compile time.
-- Evaluating allocates nothing.

local num = require("retrolua.achievements.num")
local parse = require("retrolua.achievements.parse")

local format, concat = string.format, table.concat
local SIZES = parse.SIZES
local COMPARISON = parse.COMPARISON

local C = {}

-- names the generated chunk receives, in order, as its varargs
local HELPER_NAMES = {
  "V", "D", "P", "H", "GP",
  "F32", "TOF", "TOU32", "FCMP", "TGT", "BITCNT", "BSWAP16", "BSWAP24", "BSWAP32",
  "DEC_FLOAT", "DEC_FLOATBE", "DEC_DBL32", "DEC_DBL32BE", "DEC_MBF32", "DEC_MBF32LE",
  "BCD8", "BCD16", "BCD24", "BCD32",
  "OP_MUL", "OP_DIV", "OP_MOD", "OP_AND", "OP_XOR", "OP_ADD", "OP_SUB", "OP_ACCADD", "OP_ACCSUB", "OP_NEGADD",
  "SAMEF",
}

local HELPERS = {
  F32 = num.f32, TOF = num.tof, TOU32 = num.tou32, FCMP = num.fcmp, TGT = num.typed_gt,
  BITCNT = num.BITCOUNT, BSWAP16 = num.bswap16, BSWAP24 = num.bswap24, BSWAP32 = num.bswap32,
  DEC_FLOAT = num.dec_float, DEC_FLOATBE = num.dec_float_be, DEC_DBL32 = num.dec_double32,
  DEC_DBL32BE = num.dec_double32_be, DEC_MBF32 = num.dec_mbf32, DEC_MBF32LE = num.dec_mbf32_le,
  BCD8 = num.bcd8, BCD16 = num.bcd16, BCD24 = num.bcd24, BCD32 = num.bcd32,
  OP_MUL = num.ops["*"], OP_DIV = num.ops["/"], OP_MOD = num.ops["%"], OP_AND = num.ops["&"],
  OP_XOR = num.ops["^"], OP_ADD = num.ops["+"], OP_SUB = num.ops["-"], OP_ACCADD = num.ops["acc+"],
  OP_ACCSUB = num.ops["acc-"], OP_NEGADD = num.ops["neg+"], SAMEF = num.same_float,
}

local OP_HELPER = {
  ["*"] = "OP_MUL", ["/"] = "OP_DIV", ["%"] = "OP_MOD", ["&"] = "OP_AND", ["^"] = "OP_XOR",
  ["+"] = "OP_ADD", ["-"] = "OP_SUB", ["acc+"] = "OP_ACCADD", ["acc-"] = "OP_ACCSUB", ["neg+"] = "OP_NEGADD",
}

local LUA_CMP = { ["="] = "==", ["!="] = "~=", ["<"] = "<", ["<="] = "<=", [">"] = ">", [">="] = ">=" }

---------------------------------------------------------------------------
-- analysis: which nodes are used, how, and how often
---------------------------------------------------------------------------

local function evaluated(cond)
  return cond.class ~= "indirect" and cond.flag ~= "K"
end

local function unit_sets(unit)
  if unit.kind == "value" then return unit.sets end
  local sets = {}
  if unit.core then sets[1] = unit.core end
  for _, s in ipairs(unit.alts) do sets[#sets + 1] = s end
  return sets
end
C.unit_sets = unit_sets

-- nodes an operand reads (through a recall's reference)
local function operand_node(op)
  while op.k == "recall" and op.ref do op = op.ref end
  if op.k == "mem" then return op.node end
  return nil
end

-- A node inlined into the expression that uses it nests that expression one
-- level deeper; past this depth it is stored instead, so an AddSource chain
-- of any length compiles to code within Lua's parser limits.
local MAX_INLINE_DEPTH = 16

-- iterative: AddSource chains and pointer chains may be thousands of nodes deep
local function analyze(prog)
  local uses, reached = {}, {}
  local stack = {}
  local function push(op)
    if op.k == "mem" or (op.k == "recall" and op.ref) then stack[#stack + 1] = op end
  end
  local function drain()
    while #stack > 0 do
      local op = stack[#stack]
      stack[#stack] = nil
      if op.k == "recall" then
        push(op.ref)
      else
        local node, access = op.node, op.access
        uses[node] = (uses[node] or 0) + 1
        if access == "d" then node.need_delta = true elseif access == "p" then node.need_prior = true end
        if not reached[node] then
          reached[node] = true
          if node.kind == "ind" then
            push(node.parent)
          elseif node.kind == "mod" then
            push(node.modifier)
            push(node.parent)
          end
        end
      end
    end
  end
  for _, unit in ipairs(prog.units) do
    for _, set in ipairs(unit_sets(unit)) do
      for _, cond in ipairs(set.conds) do
        if evaluated(cond) then
          if COMPARISON[cond.oper] then
            push(cond.op1)
            push(cond.op2)
            drain()
          end
          if cond.flag == "M" and cond.req == 0 then push(cond.op1); drain() end
        end
      end
    end
  end
  -- nodes are registered after the nodes they read, so one pass in id order
  -- knows every child's inlined depth
  local inline, depth = {}, {}
  for _, node in ipairs(prog.mem.nodes) do
    if reached[node] then
      local d = 1
      for _, op in ipairs({ node.parent or false, node.modifier or false }) do
        local child = op and operand_node(op)
        if child and inline[child] and depth[child] + 1 > d then d = depth[child] + 1 end
      end
      depth[node] = d
      if not node.need_delta and not node.need_prior and uses[node] == 1 and d <= MAX_INLINE_DEPTH then
        inline[node] = true
      end
    end
  end
  -- rcheevos updates every plain read first, then the combined values in the order they were
  -- created.  A {recall} resolved after its node was created (a pause chain's Remember, which
  -- conditions before it see) can read a combined value created later: rcheevos then sees that
  -- value as it was last frame.  Such a node and the later node it reads are both stored, so the
  -- refresh, one pass in id order, reads the later node's value before updating it.
  for _, node in ipairs(prog.mem.nodes) do
    if reached[node] and node.kind ~= "mem" then
      for _, op in ipairs({ node.parent or false, node.modifier or false }) do
        local child = op and operand_node(op)
        if child and child.kind ~= "mem" and child.id > node.id then
          inline[node], inline[child] = nil, nil
        end
      end
    end
  end
  return reached, inline
end

---------------------------------------------------------------------------
-- expressions
---------------------------------------------------------------------------

local function flit(v)
  if v ~= v then return "(0/0)" end
  if v == math.huge then return "(1/0)" end
  if v == -math.huge then return "(-1/0)" end
  return "(" .. format("%a", v) .. ")"
end

local function cheap(x) return not x:find("%w%(") end

local expr

local function raw(ctx, node, access)
  if access == "d" then return "D[" .. node.id .. "]" end
  if access == "p" then return "P[" .. node.id .. "]" end
  if ctx.inline[node] then return "(" .. ctx.def(node) .. ")" end
  return "V[" .. node.id .. "]"
end

-- size transform of a raw read (rc_transform_memref_value); returns code, type
local function transform(r, size, node)
  local info = SIZES[size]
  if size == "8" then
    if node.nbytes == 1 and not node.mask then return r, "i" end
    return "(" .. r .. " & 0xFF)", "i"
  elseif size == "16" then
    if node.nbytes == 2 and not node.mask then return r, "i" end
    return "(" .. r .. " & 0xFFFF)", "i"
  elseif size == "24" then return "(" .. r .. " & 0xFFFFFF)", "i"
  elseif size == "32" then return r, "i"
  elseif info.bit then
    if info.bit == 0 then return "(" .. r .. " & 1)", "i" end
    return format("((%s >> %d) & 1)", r, info.bit), "i"
  elseif size == "lo" then return "(" .. r .. " & 0xF)", "i"
  elseif size == "hi" then return "((" .. r .. " >> 4) & 0xF)", "i"
  elseif size == "bc" then return "BITCNT[" .. r .. " & 0xFF]", "i"
  elseif size == "16be" then
    if cheap(r) then return format("(((%s & 0xFF) << 8) | ((%s >> 8) & 0xFF))", r, r), "i" end
    return "BSWAP16(" .. r .. ")", "i"
  elseif size == "24be" then return "BSWAP24(" .. r .. ")", "i"
  elseif size == "32be" then return "BSWAP32(" .. r .. ")", "i"
  elseif size == "float" then return "DEC_FLOAT(" .. r .. ")", "f"
  elseif size == "floatbe" then return "DEC_FLOATBE(" .. r .. ")", "f"
  elseif size == "dbl32" then return "DEC_DBL32(" .. r .. ")", "f"
  elseif size == "dbl32be" then return "DEC_DBL32BE(" .. r .. ")", "f"
  elseif size == "mbf32" then return "DEC_MBF32(" .. r .. ")", "f"
  elseif size == "mbf32le" then return "DEC_MBF32LE(" .. r .. ")", "f"
  end
  error("unknown size " .. tostring(size))
end

local BCD_FN = { ["8"] = "BCD8", ["16"] = "BCD16", ["16be"] = "BCD16", ["24"] = "BCD24", ["24be"] = "BCD24",
  ["32"] = "BCD32", ["32be"] = "BCD32" }
local INVERT_MASK = { lo = "0xF", hi = "0xF", ["8"] = "0xFF", ["16"] = "0xFFFF", ["16be"] = "0xFFFF",
  ["24"] = "0xFFFFFF", ["24be"] = "0xFFFFFF", ["32"] = "0xFFFFFFFF", ["32be"] = "0xFFFFFFFF" }

local function node_value(ctx, node, access, size)
  local r = raw(ctx, node, access)
  if node.kind == "mod" then return r, node.fl and "f" or "i" end
  return transform(r, size, node)
end

-- rc_evaluate_operand; returns code and type ("i" unsigned integer, "f" float)
expr = function(ctx, op)
  local k = op.k
  if k == "const" then return format("%d", op.v), "i" end
  if k == "fp" then return flit(op.v), "f" end
  if k == "func" then return "0", "i" end
  if k == "recall" then
    local ref = op.ref
    if not ref then return "0", "i" end
    if ref.k ~= "mem" then return expr(ctx, ref) end
    -- a recalled memory operand is read with its access type, without BCD/invert
    local access = (ref.access == "d" or ref.access == "p") and ref.access or "v"
    return node_value(ctx, ref.node, access, ref.size)
  end
  local x, t = node_value(ctx, op.node, op.access, op.size)
  if t == "i" and op.node.kind ~= "mod" then
    if op.access == "b" then
      local fn = BCD_FN[op.size]
      if fn == "BCD8" and cheap(x) then
        x = format("(((%s >> 4) & 0xF) * 10 + (%s & 0xF))", x, x)
      elseif fn then
        x = fn .. "(" .. x .. ")"
      end
    elseif op.access == "i" then
      x = "(" .. x .. " ~ " .. (INVERT_MASK[op.size] or "1") .. ")"
    end
  end
  return x, t
end

-- the expression computing a node's value for this frame
local function node_def(ctx, node)
  if node.kind == "mem" then
    local r = format("peek(0x%X, %d)", node.addr, node.nbytes)
    if node.mask then r = r .. format(" & 0x%X", node.mask) end
    return r
  elseif node.kind == "ind" then
    local p, t = expr(ctx, node.parent)
    local addr
    if t == "i" then
      addr = node.offset == 0 and p or format("(%s + %d) & 0xFFFFFFFF", p, node.offset)
    else
      addr = format("TOU32(F32(%s + %s))", p, flit(num.f32(node.offset + 0.0)))
    end
    local r = format("peek(%s, %d)", addr, node.nbytes)
    if node.mask then r = r .. format(" & 0x%X", node.mask) end
    return r
  end
  local a, ta = expr(ctx, node.parent)
  local b, tb = expr(ctx, node.modifier)
  local op = node.op
  if ta == "i" and tb == "i" and not node.fl then
    if op == "+" or op == "acc+" then return format("(%s + %s) & 0xFFFFFFFF", a, b) end
    if op == "-" or op == "acc-" then return format("(%s - %s) & 0xFFFFFFFF", a, b) end
    if op == "neg+" then return format("(%s - %s) & 0xFFFFFFFF", b, a) end
    if op == "*" then return format("(%s * %s) & 0xFFFFFFFF", a, b) end
    if op == "&" then return format("%s & %s", a, b) end
    if op == "^" then return format("%s ~ %s", a, b) end
    if (op == "/" or op == "%") and node.modifier.k == "const" then
      if node.modifier.v == 0 then return "0" end
      return format("%s %s %s", a, op == "/" and "//" or "%", b)
    end
  end
  return format("%s(%s, %s, %s)", OP_HELPER[op], a, b, tostring(node.fl))
end

local function compare(ctx, cond)
  local oper = cond.oper
  if not COMPARISON[oper] then return "true" end
  local a, ta = expr(ctx, cond.op1)
  local b, tb = expr(ctx, cond.op2)
  if ta == "i" and tb == "i" then
    return format("(%s %s %s)", a, LUA_CMP[oper], b)
  end
  if ta == "i" then a = "TOF(" .. a .. ")" end
  if tb == "i" then b = "TOF(" .. b .. ")" end
  return format("(FCMP(%s, %s) %s 0)", a, b, LUA_CMP[oper])
end

---------------------------------------------------------------------------
-- condition sets
---------------------------------------------------------------------------

local function Emitter()
  local lines = {}
  return lines, function(...) lines[#lines + 1] = format(...) end
end

-- Emits the evaluation of one condition into local `c`
-- (rc_condset_evaluate_condition_no_add_hits, optionally followed by the
-- AddHits total of rc_condset_evaluate_condition when `full`).
local function emit_condition(ctx, emit, cond, st, full)
  local k, req = cond.hit, cond.req
  emit("local c = %s", compare(ctx, cond))
  if st.rn then
    emit("if reset_next then")
    emit("if H[%d] ~= 0 then was_cond_reset = true end", k)
    emit("H[%d] = 0; c = false", k)
    emit("else")
  end
  if st.an then emit("c = c and and_next") end
  if st.on then emit("c = c or or_next") end
  if req == 0 then
    emit("if c then has_hits = true; H[%d] = H[%d] + 1 elseif H[%d] ~= 0 then has_hits = true end", k, k, k)
  else
    emit("local h = H[%d]", k)
    emit("if c then has_hits = true; if h < %d then h = h + 1; H[%d] = h; c = (h == %d) end", req, k, req)
    emit("elseif h ~= 0 then has_hits = true; c = (h == %d) end", req)
  end
  if st.rn then emit("end") end
  if st.an then emit("and_next = true") end
  if st.on then emit("or_next = false") end
  st.an, st.on = false, false
  if full then
    if st.ah and req ~= 0 then
      emit("if add_hits ~= 0 then local t = H[%d] + add_hits; if t < 0 then t = 0 end; c = (t >= %d); add_hits = 0 end",
        k, req)
      st.ah = false
    end
    if st.rn then emit("reset_next = false") end
    st.rn = false
  end
end

local COMBINING = { C = true, D = true, N = true, O = true, Z = true }

-- Lean form of a condition without a hit target.  Such hit counts are only
-- read by the trigger-wide "has hits" flag (it decides whether a ResetIf
-- reports "reset") and by ResetNextIf, so when the unit has no ResetNextIf:
--   lean mode (no ResetIf either): nothing can observe them;
--   sticky mode: the flag is kept as one "some condition was true since the
--     last reset" bit (H[0]) instead of per-condition counts, which is exact
--     because those counts only grow until the next reset.
-- Reads have no side effects, so AndNext/OrNext may skip them.  Returns true
-- when it emitted a jump to the group's end label.
local function emit_lean(ctx, emit, cond, st, label, can_skip, sticky)
  local flag = cond.flag
  local e = compare(ctx, cond)
  if st.an then e = "(and_next and " .. e .. ")" end
  if st.on then e = "(or_next or " .. e .. ")" end
  local resets = {}
  if st.an and flag ~= "N" then resets[#resets + 1] = "and_next = true" end
  if st.on and flag ~= "O" then resets[#resets + 1] = "or_next = false" end
  st.an, st.on = false, false
  if flag == "N" or flag == "O" then
    local var = flag == "N" and "and_next" or "or_next"
    emit("%s = %s", var, e)
    if sticky then emit("if %s then sticky = true end", var) end
    if #resets > 0 then emit("%s", concat(resets, "; ")) end
    if flag == "N" then st.an = true else st.on = true end
    return false
  end
  if #resets > 0 then
    emit("do local c = %s", e)
    emit("%s", concat(resets, "; "))
    e = "c"
  else
    emit("do")
  end
  local jumped = false
  local on_true = sticky and "sticky = true" or nil
  local function branch(cond_expr, if_true, if_false)
    if if_true and if_false then
      emit("if %s then %s else %s end", cond_expr, if_true, if_false)
    elseif if_true then
      emit("if %s then %s end", cond_expr, if_true)
    else
      emit("if not %s then %s end", cond_expr, if_false)
    end
  end
  if flag == "" then
    local if_false = "is_true = false; is_primed = false"
    if can_skip then
      if_false = if_false .. (sticky and "; if sticky then goto " .. label .. " end" or "; goto " .. label)
      jumped = true
    end
    branch(e, on_true, if_false)
  elseif flag == "P" then
    emit("if %s then is_paused = true; is_true = false; is_primed = false; goto %s end", e, label)
    jumped = true
  elseif flag == "R" then
    emit("if %s then is_true = false; is_primed = false; was_reset = true end", e)
  elseif flag == "T" then
    branch(e, on_true, "is_true = false")
  elseif flag == "M" then
    branch(e, on_true, "is_true = false; is_primed = false")
    emit("cmv = %s; cmh = false", (expr(ctx, cond.op1)))
  elseif flag == "Q" then
    branch(e, on_true, "is_true = false; is_primed = false; can_measure = false")
  end
  emit("end")
  return jumped
end

-- A set's evaluated conditions: all of them in order, the flags they use,
-- and by class (in parse.CLASS_ORDER's order of evaluation).
local function group_conditions(set)
  local conds, flags, byclass = {}, {}, {}
  for _, cls in ipairs(parse.CLASS_ORDER) do byclass[cls] = {} end
  for _, cond in ipairs(set.conds) do
    if evaluated(cond) then
      flags[cond.flag] = true
      local list = byclass[cond.class]
      list[#list + 1] = cond
      conds[#conds + 1] = cond
    end
  end
  return conds, flags, byclass
end

-- The group's locals its flags need (AndNext, OrNext, ResetNextIf, AddHits/SubHits, MeasuredIf).
local function emit_group_locals(emit, flags)
  local decl, init = {}, {}
  if flags.N then decl[#decl + 1] = "and_next"; init[#init + 1] = "true" end
  if flags.O then decl[#decl + 1] = "or_next"; init[#init + 1] = "false" end
  if flags.Z then decl[#decl + 1] = "reset_next"; init[#init + 1] = "false" end
  if flags.C or flags.D then decl[#decl + 1] = "add_hits"; init[#init + 1] = "0" end
  if flags.Q then decl[#decl + 1] = "can_measure"; init[#init + 1] = "true" end
  if #decl > 0 then emit("local %s = %s", concat(decl, ", "), concat(init, ", ")) end
end

-- A Measured condition with a hit target: its value is the hit count (AddHits included).
local function emit_measured_hits(ctx, emit, cond, st)
  local rn = st.rn
  emit_condition(ctx, emit, cond, st, false)
  if st.ah then
    emit("local t = H[%d] + add_hits; if t < 0 then t = 0 end; add_hits = 0", cond.hit)
  else
    emit("local t = H[%d]", cond.hit)
  end
  emit("c = (t >= %d)", cond.req)
  emit("if not c then is_true = false; is_primed = false end")
  emit("cmv = t; cmh = true")
  if rn then emit("reset_next = false") end
  st.ah, st.rn = false, false
end

-- What a combining flag stores once its condition is evaluated, and the state it sets.
local COMBINE_INTO = { Z = { "reset_next", "rn" }, N = { "and_next", "an" }, O = { "or_next", "on" } }

-- One condition with its hit count kept (rc_condset's full evaluation).
-- Returns true when it emitted a jump to the group's end label.
local function emit_full(ctx, emit, cond, st, label)
  local flag = cond.flag
  local jumped = false
  emit("do")
  if flag == "" then
    emit_condition(ctx, emit, cond, st, true)
    emit("if not c then is_true = false; is_primed = false end")
  elseif flag == "P" then
    emit_condition(ctx, emit, cond, st, true)
    emit("if c then is_paused = true; is_true = false; is_primed = false; goto %s", label)
    if cond.req == 0 then emit("else H[%d] = 0", cond.hit) end
    emit("end")
    jumped = true
  elseif flag == "R" then
    emit_condition(ctx, emit, cond, st, true)
    emit("if c then is_true = false; is_primed = false; was_reset = true end")
  elseif flag == "T" then
    emit_condition(ctx, emit, cond, st, true)
    emit("if not c then is_true = false end")
  elseif flag == "M" and cond.req ~= 0 then
    emit_measured_hits(ctx, emit, cond, st)
  elseif flag == "M" then
    emit_condition(ctx, emit, cond, st, true)
    emit("if not c then is_true = false; is_primed = false end")
    emit("cmv = %s; cmh = false", (expr(ctx, cond.op1)))
  elseif flag == "Q" then
    emit_condition(ctx, emit, cond, st, true)
    emit("if not c then is_true = false; is_primed = false; can_measure = false end")
  elseif flag == "C" or flag == "D" then
    local rn = st.rn
    emit_condition(ctx, emit, cond, st, false)
    emit("add_hits = add_hits %s H[%d]", flag == "C" and "+" or "-", cond.hit)
    if rn then emit("reset_next = false") end
    st.rn = false
    st.ah = true
  elseif COMBINE_INTO[flag] then
    local var, state = COMBINE_INTO[flag][1], COMBINE_INTO[flag][2]
    emit_condition(ctx, emit, cond, st, false)
    emit("%s = c", var)
    st[state] = true
  end
  emit("end")
  return jumped
end

-- What a class of conditions is wrapped in once a ResetIf may have fired:
-- hit targets are not counted, Measured counts restart, the rest is only
-- evaluated while the set can still be true.  Returns true when it opened a block.
local function emit_class_guard(emit, cls, list, info)
  if not info.has_reset then return false end
  if cls == "hittarget" then
    emit("if not was_reset then")
    return true
  elseif cls == "measured" then
    local zero = {}
    for _, cond in ipairs(list) do zero[#zero + 1] = format("H[%d] = 0", cond.hit) end
    emit("if was_reset then %s end", concat(zero, "; "))
  elseif cls == "other" then
    emit("if is_true or not was_reset then")
    return true
  end
  return false
end

-- One class's conditions.  Returns true when it emitted a jump to `label`.
local function emit_class(ctx, emit, cls, list, st, info, label, evaluated_before)
  local used_label = false
  local last_target = 0 -- the last condition of the class with a hit target
  for idx, cond in ipairs(list) do if cond.req ~= 0 then last_target = idx end end
  for idx, cond in ipairs(list) do
    local flag = cond.flag
    -- semantically invisible short-circuit (see emit_trigger): once the set
    -- is not primed (so not true either), the remaining "other" conditions
    -- can be skipped if none of them has a hit target
    local can_skip = false
    if cls == "other" and info.short_circuit then
      can_skip = idx > last_target
      if can_skip and idx == 1 and evaluated_before then
        emit("if not is_primed%s then goto %s end", info.mode == "sticky" and " and sticky" or "", label)
        used_label = true
      end
    end
    local jumped
    if info.mode ~= "full" and cond.req == 0 and flag ~= "C" and flag ~= "D"
        and not (flag == "P" and info.mode == "sticky") then
      jumped = emit_lean(ctx, emit, cond, st, label, can_skip, info.mode == "sticky")
    else
      jumped = emit_full(ctx, emit, cond, st, label)
    end
    used_label = used_label or jumped
    if not COMBINING[flag] then st.an, st.on = false, false end
  end
  return used_label
end

-- One condition set.  Sets the enclosing function's is_true, is_primed,
-- is_paused, cmv (measured value or nil), cmh (measured from hits), and the
-- unit-wide was_reset, has_hits, was_cond_reset.
local function emit_group(ctx, emit, set, g, info)
  local conds, flags, byclass = group_conditions(set)
  if #conds == 0 then return end
  local label = "done_" .. g
  local used_label = false
  emit("do")
  emit_group_locals(emit, flags)
  local st = { an = false, on = false, rn = false, ah = false }
  local evaluated_before = false
  for _, cls in ipairs(parse.CLASS_ORDER) do
    local list = byclass[cls]
    if #list > 0 then
      local before = { an = st.an, on = st.on, rn = st.rn, ah = st.ah }
      local guarded = emit_class_guard(emit, cls, list, info)
      if emit_class(ctx, emit, cls, list, st, info, label, evaluated_before) then used_label = true end
      if cls == "measured" and flags.M then
        if flags.Q then
          emit("if cmv ~= nil and (not can_measure or (cmh and was_reset)) then cmv = 0 end")
        elseif info.has_reset then
          emit("if cmv ~= nil and cmh and was_reset then cmv = 0 end")
        end
      end
      if guarded then
        emit("end")
        -- a guarded class may not have run: what it cleared may still be pending
        st.an, st.on, st.rn, st.ah = st.an or before.an, st.on or before.on, st.rn or before.rn, st.ah or before.ah
      end
      evaluated_before = true
    end
  end
  if used_label then emit("::%s::", label) end
  emit("end")
end

local function any_flag(unit, flag)
  for _, set in ipairs(unit_sets(unit)) do
    for _, cond in ipairs(set.conds) do
      if cond.flag == flag and evaluated(cond) then return true end
    end
  end
  return false
end
C.any_flag = any_flag

-- rc_evaluate_trigger's bookkeeping after the groups were evaluated, for a
-- standalone trigger object `self` (see achievements.lua); `state` holds
-- self.state on entry.
local function emit_state_machine(emit, unit, flags)
  -- not paused, the frame's value is kept; none (the measuring groups paused, another alt not) is 0, as
  -- rcheevos converts its "none" value
  if flags.M then emit("if not paused then self.measured_value = mv ~= nil and TOU32(mv) or 0 end") end
  if flags.R then
    emit("if was_reset then")
    if flags.M then
      emit("if mh then self.measured_value = 0")
      if unit.measured_hits then
        emit("elseif paused and self.measured_value ~= 0 and self:paused_measured_from_hits() then")
        emit("self.measured_value = 0")
      end
      emit("end")
    end
    emit("for k = 0, %d do H[k] = 0 end", unit.nhits)
    emit('if self.has_hits then self.has_hits = false; if state == "primed" then self.state = "active" end; return "reset" end')
    emit("has_hits = false; primed = false")
    emit("elseif ret then")
  else
    emit("if ret then")
  end
  emit('if state == "waiting" then self:reset(); return "waiting" end')
  emit('self.state = "triggered"; return "triggered"')
  emit("end")
  if flags.R then emit("self.has_hits = has_hits") end
  emit('if paused then state = "paused" elseif primed then state = "primed" else state = "active" end')
  emit("self.state = state")
  if flags.Z then emit('if was_cond_reset then return "reset" end') end
  emit("return state")
end

-- A trigger's groups.  With `step`, ends with the state machine (the body of
-- a standalone trigger's update); otherwise returns the raw results
-- (rc_test_trigger users: leaderboards and rich presence).
local function emit_trigger(ctx, emit, unit, step)
  local flags = { R = any_flag(unit, "R"), Z = any_flag(unit, "Z"), M = any_flag(unit, "M") }
  local info = { has_reset = flags.R }
  -- see emit_lean: without ResetNextIf the hit counts of conditions without
  -- a target reduce to (at most) one flag, and evaluation of the remaining
  -- plain conditions can stop once the set can no longer be true or primed
  if flags.Z or unit.exact_hits then
    info.mode = "full"
  elseif flags.R then
    info.mode = "sticky"
  else
    info.mode = "lean"
  end
  info.short_circuit = info.mode ~= "full"
  local track_groups = unit.measured_hits
  -- locals every group writes: the unit-wide flags, the group's results and
  -- (with Measured) the measured value; rc_test_condset resets the group's
  -- is_true/is_primed/is_paused/measured value before each group
  emit("local was_reset, has_hits, was_cond_reset = false, false, false")
  emit("local is_true, is_primed, is_paused = true, true, false")
  emit("local ret, paused, primed = true, false, true")
  local group_init = "is_true, is_primed, is_paused = true, true, false"
  if flags.M then
    emit("local cmv, cmh, mv, mh")
    group_init = "is_true, is_primed, is_paused, cmv, cmh = true, true, false, nil, false"
  end
  if info.mode == "sticky" then emit("local sticky = H[0] ~= 0") end
  local function measured_in(set)
    for _, cond in ipairs(set.conds) do if cond.flag == "M" then return true end end
    return false
  end
  local g = 0
  if unit.core then
    g = g + 1
    emit_group(ctx, emit, unit.core, g, info)
    emit("ret, paused, primed = is_true, is_paused, is_primed")
    if measured_in(unit.core) then emit("if cmv ~= nil then mv = cmv; mh = cmh end") end
    if track_groups then emit("GP[%d] = is_paused", g) end
  end
  if #unit.alts > 0 then
    emit("local sub, sub_paused, sub_primed = false, true, false")
    for _, set in ipairs(unit.alts) do
      g = g + 1
      emit("%s", group_init)
      emit_group(ctx, emit, set, g, info)
      emit("sub = sub or is_true; sub_paused = sub_paused and is_paused; sub_primed = sub_primed or is_primed")
      if measured_in(set) then
        emit("if cmv ~= nil and (mv == nil or TGT(cmv, mv)) then mv = cmv; mh = cmh end")
      end
      if track_groups then emit("GP[%d] = is_paused", g) end
    end
    emit("ret = ret and sub; primed = primed and sub_primed; paused = paused or sub_paused")
  end
  if info.mode == "sticky" then emit("if sticky then has_hits = true; H[0] = 1 end") end
  if step then
    emit_state_machine(emit, unit, flags)
  else
    emit("return ret, paused, primed, was_reset, has_hits, was_cond_reset%s", flags.M and ", mv, mh" or "")
  end
end

local function emit_value(ctx, emit, unit)
  -- hit counts without targets are never observable in a value (it reports
  -- no "reset"), unless a ResetNextIf could clear a following condition
  local info = { has_reset = any_flag(unit, "R"), short_circuit = false,
    mode = any_flag(unit, "Z") and "full" or "lean" }
  emit("local valid, result = false, 0")
  emit("local is_true, is_primed, is_paused, cmv, cmh, was_reset, has_hits, was_cond_reset")
  for g, set in ipairs(unit.sets) do
    emit("is_true, is_primed, is_paused, cmv, cmh = true, true, false, nil, false")
    emit("was_reset, has_hits, was_cond_reset = false, false, false")
    emit_group(ctx, emit, set, g, info)
    emit("if not is_paused then")
    if info.has_reset then
      local zero = {}
      for _, cond in ipairs(set.conds) do zero[#zero + 1] = format("H[%d] = 0", cond.hit) end
      emit("if was_reset then %s end", concat(zero, "; "))
    end
    emit("if cmv ~= nil then if not valid then result = cmv; valid = true elseif TGT(cmv, result) then result = cmv end end")
    emit("end")
  end
  emit("return valid, result")
end

local function emit_refresh(ctx, emit)
  for _, node in ipairs(ctx.stored) do
    local id = node.id
    emit("do local v = %s", ctx.def(node))
    if node.need_delta or node.need_prior then
      local parts = { format("local o = V[%d]", id) }
      if node.need_delta then parts[#parts + 1] = format("D[%d] = o", id) end
      if node.need_prior and node.fl then
        -- rcheevos compares the stored bits: NaN stays NaN unchanged, 0.0 and -0.0 differ
        parts[#parts + 1] = format("if not SAMEF(v, o) then P[%d] = o; V[%d] = v end", id, id)
      elseif node.need_prior then
        parts[#parts + 1] = format("if v ~= o then P[%d] = o; V[%d] = v end", id, id)
      else
        parts[#parts + 1] = format("V[%d] = v", id)
      end
      emit("%s", concat(parts, "; "))
    else
      emit("V[%d] = v", id)
    end
    emit("end")
  end
end

-- generated code must not touch globals: fail loudly if it ever does
local NO_GLOBALS = setmetatable({}, {
  __index = function(_, k) error("generated code read global " .. tostring(k), 2) end,
  __newindex = function(_, k) error("generated code wrote global " .. tostring(k), 2) end,
})

local function load_chunk(src, name, prog, H, GP)
  local chunk, err = load(src, "=" .. name, "t", NO_GLOBALS)
  if not chunk then error("internal compile error: " .. err .. "\n" .. src) end
  local args = {}
  for i, n in ipairs(HELPER_NAMES) do
    if n == "V" then args[i] = prog.V
    elseif n == "D" then args[i] = prog.D
    elseif n == "P" then args[i] = prog.P
    elseif n == "H" then args[i] = H or false
    elseif n == "GP" then args[i] = GP or false
    else args[i] = HELPERS[n] end
  end
  return chunk(table.unpack(args, 1, #HELPER_NAMES))
end

local HEADER = "local " .. concat(HELPER_NAMES, ", ") .. " = ...\n"

--- Compiles every unit of `prog` ({ mem, units }).  Sets prog.refresh and,
-- for each unit, unit.eval(peek), unit.H (hit counts) and unit.GP (paused
-- flag per group).  `opts.embed` names a unit whose function also refreshes
-- the nodes (a standalone object: one call per frame); with `opts.step` that
-- (trigger) unit instead gets unit.step(self, peek), the whole update of a
-- standalone trigger object including rc_evaluate_trigger's state machine.
function C.compile(prog, opts)
  opts = opts or {}
  local reached, inline = analyze(prog)
  local stored = {}
  for _, node in ipairs(prog.mem.nodes) do
    if reached[node] and not inline[node] then stored[#stored + 1] = node end
  end
  prog.V = prog.V or {}
  prog.D = prog.D or {}
  prog.P = prog.P or {}
  for _, node in ipairs(prog.mem.nodes) do
    if prog.V[node.id] == nil then
      local zero = node.fl and 0.0 or 0
      prog.V[node.id], prog.D[node.id], prog.P[node.id] = zero, zero, zero
    end
  end
  local ctx = { inline = inline, stored = stored }
  ctx.def = function(node) return node_def(ctx, node) end

  local rlines, remit = Emitter()
  emit_refresh(ctx, remit)
  local refresh_src = concat(rlines, "\n")
  prog.refresh = load_chunk(HEADER .. "return function(peek)\n" .. refresh_src .. "\nend\n", "refresh", prog)
  prog.source = { refresh = refresh_src }

  for i, unit in ipairs(prog.units) do
    unit.H = {}
    for k = 0, unit.nhits do unit.H[k] = 0 end
    unit.GP = {}
    local lines, emit = Emitter()
    local step = opts.step and unit == opts.embed and unit.kind == "trigger"
    if step then
      emit("return function(self, peek)")
      emit("local state = self.state")
      emit('if state == "triggered" or state == "disabled" then return "inactive" end')
      lines[#lines + 1] = refresh_src
      emit('if state == "inactive" then return "inactive" end')
    else
      emit("return function(peek)")
      if unit == opts.embed then lines[#lines + 1] = refresh_src end
    end
    if unit.kind == "value" then emit_value(ctx, emit, unit) else emit_trigger(ctx, emit, unit, step) end
    emit("end")
    local src = concat(lines, "\n")
    unit.source = src
    local fn = load_chunk(HEADER .. src, unit.kind .. i, prog, unit.H, unit.GP)
    if step then unit.step = fn else unit.eval = fn end
  end
end

return C
