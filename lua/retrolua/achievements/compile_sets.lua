-- retrolua.achievements.compile_sets: the Lua the compiler writes for one
-- condition set (`emit_group`), mirroring rcheevos' rc_test_condset: the
-- condition classes in their order, hit counting, AndNext/OrNext/AddHits/
-- ResetNextIf chains, and the lean forms of conditions nothing can observe.

local expr_of = require("retrolua.achievements.compile_expr")
local parse = require("retrolua.achievements.parse")

local format, concat = string.format, table.concat
local evaluated, unit_sets, expr, compare = expr_of.evaluated, expr_of.unit_sets, expr_of.expr, expr_of.compare

local S = {}

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
S.any_flag = any_flag

S.Emitter, S.emit_group = Emitter, emit_group

return S
