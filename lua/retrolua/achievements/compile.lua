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
local expr_of = require("retrolua.achievements.compile_expr")
local sets = require("retrolua.achievements.compile_sets")

local analyze, unit_sets, node_def = expr_of.analyze, expr_of.unit_sets, expr_of.node_def
local Emitter, emit_group, any_flag = sets.Emitter, sets.emit_group, sets.any_flag

local format, concat = string.format, table.concat

local C = {}
C.unit_sets, C.any_flag = unit_sets, any_flag

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
