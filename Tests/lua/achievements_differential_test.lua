-- Differential test of lua/retrolua/achievements against an independent model of rcheevos
-- (Tests/lua/achievements_reference.lua, written from rcheevos' C semantics):
--   lua5.4 Tests/lua/achievements_differential_test.lua [seed] [scale]
-- Random triggers and values — every flag, hit targets, alt groups and max-of groups,
-- AddSource/SubSource/AddAddress chains with every modifier, integer and float operands, delta,
-- prior, BCD and inverted reads — are evaluated frame by frame over random memory (biased to the
-- values where C's integer and float conversions differ) by both; every frame's result, state and
-- measured value must agree.  Prints the agreement count; exits 1 with a repro on a difference.

local here = (arg and arg[0] or ""):match("^(.*)[/\\]") or "."
package.path = here .. "/../../lua/?.lua;" .. here .. "/?.lua;" .. package.path

local ra = require("retrolua.achievements")
local ref = require("achievements_reference")

local seed = tonumber(arg and arg[1]) or 1
local scale = tonumber(arg and arg[2]) or 1
math.randomseed(seed)
local R = math.random

local MEMSZ = 16
local CMP = { "=", "!=", "<", ">", "<=", ">=" }
local MODOPS = { "*", "/", "%", "&", "^", "+", "-" }
local COMPARISON = { ["="] = true, ["!="] = true, ["<"] = true, [">"] = true, ["<="] = true, [">="] = true }
local SPECIAL = { 0, 1, 2, 3, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFF, 0x4B800000, 0xCB800000, 0x7F800000,
  0xFF800000, 0x7FC00000, 0x5000018, 0x4EFFFFFF, 0x4F000000, 0xCF000000, 0x4F800000 }
local SIZE_CHARS = { ["8"] = "H", ["16"] = " ", ["24"] = "W", ["32"] = "X", lo = "L", hi = "U", bc = "K", ["16be"] = "I",
  ["24be"] = "J", ["32be"] = "G", bit0 = "M", bit1 = "N", bit2 = "O", bit3 = "P", bit4 = "Q", bit5 = "R", bit6 = "S",
  bit7 = "T" }
local OTHER_SIZES = { "16", "24", "lo", "hi", "bc", "16be", "24be", "32be", "bit0", "bit3", "bit7" }
local FLOATS = { "1.5", "-0.5", "0.25", "2.0", "3.0", "100.75", "-1.25", "12.0", "0.1" }

-- one operand: the engine's text and the model's operand
local function operand(ctx, ps, wide)
  local function memop(size, ty, extra)
    local a = R(0, MEMSZ // 4 - 1) * 4 + (R(1, 4) == 1 and R(0, 3) or 0)
    local msize = ref.memref_size(size, ty == "prior")
    local r = ps.ind and ctx:ind(msize, ps.ind, a) or ctx:mem(a, msize)
    local op = { ty = ty, ref = r, size = size, bcd = extra == "b" or nil, inv = extra == "~" or nil }
    local prefix = (ty == "delta" and "d" or ty == "prior" and "p" or "") .. (extra or "")
    if size == "float" then return op, string.format("%sfF%04x", prefix, a) end
    return op, string.format("%s0x%s%04x", prefix, SIZE_CHARS[size], a)
  end
  local r = R(1, 15)
  if r == 14 and not ps.remember_is_recall then return ref.recall(ps.remember), "{recall}" end
  if r == 15 then
    local size = OTHER_SIZES[R(1, #OTHER_SIZES)]
    local roll = R(1, 6)
    return memop(size, roll == 1 and "prior" or roll == 2 and "delta" or "addr", roll == 3 and "b" or roll == 4 and "~" or nil)
  end
  if r <= 2 then return memop("8", "addr") end
  if r == 3 then return memop("8", "delta") end
  if r == 4 then return memop("8", "addr", "b") end
  if r == 5 then return memop("8", "addr", "~") end
  if r == 6 then return memop("8", "prior") end
  if r <= 8 then return memop("32", R(1, 4) == 1 and "delta" or "addr") end
  if r == 9 then return memop("float", ({ "addr", "addr", "prior", "delta" })[R(1, 4)]) end
  if r == 10 then
    local s = FLOATS[R(1, #FLOATS)]
    return { ty = "fp", dbl = tonumber(s) + 0.0, size = "float" }, "f" .. s
  end
  if r == 11 and wide then
    local v = R(0, 0xFFFFFFFF)
    return { ty = "const", num = v, size = "32" }, string.format("h%X", v)
  end
  if r == 12 and wide then
    local v = R(1, 5)
    return { ty = "const", num = (-v) & 0xFFFFFFFF, size = "32" }, "-" .. v
  end
  local v = R(0, 4)
  return { ty = "const", num = v, size = "32" }, tostring(v)
end

local function fresh_memory()
  local mem = {}
  for i = 0, MEMSZ - 1 do mem[i] = 0 end
  local function peek(addr, n)
    local x = 0
    for i = n - 1, 0, -1 do x = (x << 8) | (mem[addr + i] or 0) end
    return x
  end
  return mem, peek
end

-- small numbers (pointers into memory, counters), random bytes and the special values
local function scramble(mem)
  for i = 0, MEMSZ - 1 do if R(1, 4) == 1 then mem[i] = R(0, 1) == 0 and R(0, 3) or R(0, 255) end end
  for a = 0, MEMSZ - 4, 4 do
    local roll = R(1, 8)
    local x = roll == 1 and R(0, 3) * 4 or roll <= 3 and SPECIAL[R(1, #SPECIAL)] or nil
    if x then for k = 0, 3 do mem[a + k] = (x >> (8 * k)) & 0xFF end end
  end
end

local function dump(mem)
  local words = {}
  for a = 0, MEMSZ - 4, 4 do
    words[#words + 1] = string.format("%02X%02X%02X%02X", mem[a + 3], mem[a + 2], mem[a + 1], mem[a])
  end
  return table.concat(words, ",")
end

-- a group of conditions: `value` makes a value group (ends up with one Measured)
local function group(ctx, value, state)
  local flags = value and { "P", "R", "N", "O", "C", "D", "Z", "Q", "A", "A", "B", "I", "K" }
    or { "", "", "", "P", "R", "T", "N", "O", "C", "D", "Z", "Q", "M", "A", "A", "B", "I", "K" }
  local ps = { is_value = value }
  local conds, texts, has_measured = {}, {}, false
  local n = R(0, 5)
  local measured_at = value and R(1, n + 1) or -1
  for i = 1, n + 1 do
    local flag = i == measured_at and "M" or flags[R(1, #flags)]
    if flag == "M" and not value and has_measured then flag = "" end
    local c = { flag = flag, req = 0 }
    local s1, s2
    c.op1, s1 = operand(ctx, ps, true)
    local text
    if flag == "A" or flag == "B" or flag == "I" or flag == "K" or (value and flag == "M" and R(1, 2) == 1) then
      text = flag .. ":" .. s1
      if R(1, 2) == 1 then
        c.oper = MODOPS[R(1, #MODOPS)]
        c.op2, s2 = operand(ctx, ps, true)
        text = text .. c.oper .. s2
      end
    else
      c.oper = CMP[R(1, #CMP)]
      c.op2, s2 = operand(ctx, ps, false)
      if R(1, 3) == 1 then c.req = R(1, 4) end
      if flag == "M" and value then
        c.req = 0xFFFFFFFF -- a comparison measured in a value counts hits (rcheevos: target UINT_MAX)
      elseif flag == "M" then
        local t = c.req ~= 0 and c.req or (c.op2.ty == "const" and c.op2.num)
          or (c.op2.ty == "fp" and c.op2.dbl >= 0 and math.floor(c.op2.dbl))
        if not t or (state.target ~= 0 and t ~= state.target) then flag, c.flag = "", "" else
          state.target = t
          has_measured = true
        end
      end
      local hits = (c.req ~= 0 and not (value and flag == "M")) and ("." .. c.req .. ".") or ""
      text = (flag ~= "" and flag .. ":" or "") .. s1 .. c.oper .. s2 .. hits
    end
    ctx:chain(c, ps)
    -- remembering a bare {recall} behind an AddAddress makes rcheevos recurse without end: not generated
    if ps.remember and ps.remember.ty == "recall" then ps.remember_is_recall = true end
    conds[#conds + 1] = c
    texts[#texts + 1] = text
  end
  ref.fix_pause_remember(conds)
  -- the model's condition sets leave out what its memory references do (AddSource, SubSource,
  -- AddAddress, Remember)
  local evaluated = {}
  for _, c in ipairs(conds) do
    if c.flag ~= "A" and c.flag ~= "B" and c.flag ~= "I" and c.flag ~= "K" then evaluated[#evaluated + 1] = c end
  end
  return evaluated, table.concat(texts, "_")
end

local function hooks(ctx)
  return {
    test = function(c)
      if c.op2 == nil or not COMPARISON[c.oper] then return true end -- rcheevos: "always true"
      return ref.compare(ctx:eval_operand(c.op1), c.oper, ctx:eval_operand(c.op2))
    end,
    measure = function(c) return ctx:eval_operand(c.op1) end,
  }
end

local frames_compared, frames_agreeing, failures = 0, 0, 0
local function report(kind, def, log, got, want)
  failures = failures + 1
  if failures <= 5 then
    print(string.format("DIFF %s '%s'\n  memory by frame (words at 0, 4, 8, 12): %s\n  engine %s, model %s",
      kind, def, table.concat(log, " "), got, want))
  end
end

-- triggers: state, returned state and measured value every frame
for _ = 1, 1500 * scale do
  local ctx, state, groups, texts = ref.new(), { target = 0 }, {}, {}
  for gi = 1, R(1, 3) do groups[gi], texts[gi] = group(ctx, false, state) end
  local def = table.concat(texts, "S")
  local t = ra.trigger(def, { exact_hits = R(1, 2) == 1 })
  if t then
    local model = ref.trigger(groups, true, state.target)
    local mem, peek = fresh_memory()
    local log = {}
    for _ = 1, 20 do
      scramble(mem)
      log[#log + 1] = dump(mem)
      local got = t:update(peek)
      ctx:update(peek)
      local want = ref.update_typed(model, mem, hooks(ctx))
      frames_compared = frames_compared + 1
      local got_all = string.format("%s/%s/%d", got, t.state, t.measured_value)
      local want_all = string.format("%s/%s/%d", want, model.state, model.measured)
      if got_all ~= want_all then report("trigger", def, log, got_all, want_all) break end
      frames_agreeing = frames_agreeing + 1
      if got == "triggered" then break end
    end
  end
end

-- the legacy value format ("0xH0001*2_0xH0002*-0.5$0xX0004"), as rcheevos rewrites it: each
-- clause an AddSource, a SubSource when its multiplier is negative ("*-" drops the sign), "f" before
-- a multiplier with a decimal point, the last clause Measured (or a "M:0" after a SubSource)
local function legacy_group(ctx)
  local ps = { is_value = true }
  local conds, texts = {}, {}
  local n = R(1, 4)
  for i = 1, n do
    local c = { req = 0 }
    local s1, text
    c.op1, s1 = operand(ctx, ps, true)
    text = s1
    local negative = false
    local roll = R(1, 8)
    if roll <= 5 then
      local forms = { "2", "-1", "1.5", "-0.5", "f-0.5", "+0.25", "-3", "h10", "0.1", "-100.75" }
      local m = forms[R(1, #forms)]
      text = text .. "*" .. m
      local body = m
      if body:sub(1, 1) == "-" then negative, body = true, body:sub(2) end
      if body:match("^%+?%d+%.") then body = "f" .. body end
      if body:sub(1, 1) == "h" then
        c.op2 = { ty = "const", num = tonumber(body:sub(2), 16), size = "32" }
      elseif body:sub(1, 1) == "f" then
        c.op2 = { ty = "fp", dbl = tonumber(body:sub(2)) + 0.0, size = "float" }
      else
        c.op2 = { ty = "const", num = tonumber(body) & 0xFFFFFFFF, size = "32" }
      end
      c.oper = "*"
    elseif roll == 6 then
      local o = MODOPS[R(1, #MODOPS)]
      if o ~= "*" and o ~= "-" then
        local s2
        c.op2, s2 = operand(ctx, ps, false)
        c.oper = o
        text = text .. o .. s2
      end
    end
    c.flag = negative and "B" or (i == n and "M" or "A")
    ctx:chain(c, ps)
    conds[#conds + 1] = c
    texts[#texts + 1] = text
  end
  if conds[#conds].flag ~= "M" then
    local c = { flag = "M", req = 0, op1 = { ty = "const", num = 0, size = "32" } }
    ctx:chain(c, ps)
    conds[#conds + 1] = c
  end
  local evaluated = {}
  for _, c in ipairs(conds) do if c.flag == "M" then evaluated[#evaluated + 1] = c end end
  return evaluated, table.concat(texts, "_")
end

-- values: the maximum of '$' groups (MeasuredIf, ResetIf, PauseIf, hit tallies, typed chains), and
-- in the legacy format
for round = 1, 2000 * scale do
  local ctx, state, groups, texts = ref.new(), { target = 0 }, {}, {}
  local legacy = round % 4 == 0
  for gi = 1, R(1, 3) do
    if legacy then groups[gi], texts[gi] = legacy_group(ctx) else groups[gi], texts[gi] = group(ctx, true, state) end
  end
  local def = table.concat(texts, "$")
  local v = ra.value(def)
  if v then
    ref.prepare(groups)
    local mem, peek = fresh_memory()
    local prev, last, log = {}, 0, {}
    for _ = 1, 16 do
      scramble(mem)
      log[#log + 1] = dump(mem)
      local got = v:update(peek)
      ctx:update(peek)
      local valid, best = false, nil
      for _, g in ipairs(groups) do
        local h = hooks(ctx)
        local es = { mem = mem, prev = prev, was_reset = false, has_hits = false, was_cond_reset = false,
          test = h.test, measure = h.measure }
        ref.test_condset(g, es)
        if not g.is_paused then
          if es.was_reset then for _, c in ipairs(g) do c.hits = 0 end end
          if es.mv ~= nil and (not valid or ref.compare_gt(es.mv, best)) then best, valid = es.mv, true end
        end
      end
      if valid then
        local r = { t = best.t, v = best.v }
        ref.convert(r, "u")
        last = r.v
      end
      local want = last >= 0x80000000 and last - 0x100000000 or last
      frames_compared = frames_compared + 1
      if got ~= want then report("value", def, log, got, want) break end
      frames_agreeing = frames_agreeing + 1
    end
  end
end

print(string.format("differential (seed %d): %d of %d frames agree with the model of rcheevos",
  seed, frames_agreeing, frames_compared))
if failures > 0 then
  print(string.format("%d definitions differ", failures))
  os.exit(1)
end
print(string.format("ok %d cases", frames_compared))
