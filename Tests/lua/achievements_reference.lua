-- An independent model of rcheevos' evaluation, written from its C sources' semantics
-- (condset.c, trigger.c, value.c, memref.c, operand.c, condition.c) as plainly as possible — no
-- compilation, no optimisation — for Tests/lua/achievements_differential_test.lua to compare the
-- engine (lua/retrolua/achievements) against.  It shares no code with the engine.
--
-- Typed values are { t = "u" | "s" | "f" | "n", v = number } (unsigned, signed, float, none), as
-- rc_typed_value_t.  Memory references (plain reads, pointer reads, modified values) live in a Ctx
-- and are updated once per frame in creation order; conditions are built by Ctx:chain as
-- rc_condition_update_parse_state builds AddSource/SubSource/AddAddress chains.

local M = {}

-- C's (float) cast of a double, through string.pack (the C library's own conversion)
local function f32(x) return (string.unpack("<f", string.pack("<f", x + 0.0))) end
M.f32 = f32
local FLT_EPSILON = 2.0 ^ -23
-- rc_typed_value_compare_floats: -1, 0 or 1
local function fcmp(a, b)
  if a == b then return 0 end
  local a1, a2 = math.abs(a), math.abs(b)
  local threshold = f32((a1 < a2 and a1 or a2) * FLT_EPSILON)
  local diff = f32(a - b)
  if math.abs(diff) <= threshold then return 0 end
  if diff > threshold then return 1 end
  return -1
end
local function u2s(u) u = u & 0xFFFFFFFF; if u >= 0x80000000 then return u - 0x100000000 end; return u end
local function f2u(f) -- (unsigned)float on x86-64: via 64-bit cvttss2si
  if f ~= f or f >= 9.2233720368547758e18 or f < -9.2233720368547758e18 then return 0 end
  local i = f >= 0 and math.floor(f) or math.ceil(f)
  return math.tointeger(i) & 0xFFFFFFFF
end
local function f2i(f) -- (int)float: cvttss2si 32-bit
  if f ~= f or f >= 2147483648.0 or f < -2147483648.0 then return -2147483648 end
  local i = f >= 0 and math.floor(f) or math.ceil(f)
  return math.tointeger(i)
end
local function convert(v, t)
  if v.t == t then return end
  if t == "u" then
    if v.t == "s" then v.v = v.v & 0xFFFFFFFF elseif v.t == "f" then v.v = f2u(v.v) else v.v = 0 end
  elseif t == "s" then
    if v.t == "u" then v.v = u2s(v.v) elseif v.t == "f" then v.v = f2i(v.v) else v.v = 0 end
  elseif t == "f" then
    if v.t == "u" or v.t == "s" then v.v = f32(v.v + 0.0) else v.v = 0.0 end
  else return end
  v.t = t
end
M.convert = convert
local function copy(v) return { t = v.t, v = v.v } end
local function negate(v)
  if v.t == "u" then convert(v, "s") end
  if v.t == "s" then v.v = u2s(-v.v) elseif v.t == "f" then v.v = -v.v end
end
local function add(v, a)
  if a.t ~= v.t and v.t ~= "n" then
    if a.t == "f" then convert(v, "f") else a = copy(a); convert(a, v.t) end
  end
  if v.t == "u" then v.v = (v.v + a.v) & 0xFFFFFFFF
  elseif v.t == "s" then v.v = u2s(v.v + a.v)
  elseif v.t == "f" then v.v = f32(v.v + a.v)
  elseif v.t == "n" then v.t = a.t; v.v = a.v end
end
local function mul(v, a)
  if v.t == "u" then
    if a.t == "u" then v.v = (v.v * a.v) & 0xFFFFFFFF
    elseif a.t == "s" then v.v = (v.v * (a.v & 0xFFFFFFFF)) & 0xFFFFFFFF
    elseif a.t == "f" then convert(v, "f"); v.v = f32(v.v * a.v)
    else v.t = "n" end
  elseif v.t == "s" then
    if a.t == "s" or a.t == "u" then v.v = u2s(v.v * u2s(a.v))
    elseif a.t == "f" then convert(v, "f"); v.v = f32(v.v * a.v)
    else v.t = "n" end
  elseif v.t == "f" then
    if a.t == "n" then v.t = "n" else a = copy(a); convert(a, "f"); v.v = f32(v.v * a.v) end
  else v.t = "n" end
end
local function cdiv(a, b) local q = a // b; if (a % b ~= 0) and ((a < 0) ~= (b < 0)) then q = q + 1 end; return q end
local function cmod(a, b) return a - cdiv(a, b) * b end
local function divmod(v, a, isdiv)
  if a.t == "u" or a.t == "s" then
    if a.v == 0 then v.t = "n"; return end
    if v.t == "u" then
      local d = a.v & 0xFFFFFFFF
      v.v = isdiv and (v.v // d) or (v.v % d); return
    elseif v.t == "s" then
      local d = u2s(a.v)
      if d == -1 and v.v == -2147483648 then v.v = isdiv and -2147483648 or 0; return end -- (x86 would trap; avoid)
      v.v = isdiv and cdiv(v.v, d) or cmod(v.v, d); return
    elseif v.t == "f" then a = copy(a); convert(a, "f")
    else v.t = "n"; return end
  elseif a.t ~= "f" then v.t = "n"; return end
  if a.v == 0 then v.t = "n"; return end
  convert(v, "f")
  if isdiv then v.v = f32(v.v / a.v) else v.v = f32(math.fmod(v.v, a.v)) end
end
local function combine(v, a, op)
  if op == "*" then mul(v, a) elseif op == "/" then divmod(v, a, true) elseif op == "%" then divmod(v, a, false)
  elseif op == "&" then convert(v, "u"); a = copy(a); convert(a, "u"); v.v = v.v & a.v
  elseif op == "^" then convert(v, "u"); a = copy(a); convert(a, "u"); v.v = v.v ~ a.v
  elseif op == "+" then add(v, a)
  elseif op == "-" then a = copy(a); negate(a); add(v, a) end
end
M.combine = combine
M.add = add
function M.compare_gt(a, b)
  if a.t ~= b.t then
    if b.t == "f" then a = copy(a); convert(a, "f") else b = copy(b); convert(b, a.t) end
  end
  if a.t == "u" or a.t == "s" then return a.v > b.v end
  if a.t == "f" then return fcmp(a.v, b.v) > 0 end
  return true
end

-- operands: {ty="const",num} {ty="fp",dbl} {ty="addr"/"delta", ref=memref, size="8"/"32"/"float"}
-- memrefs: {kind="mem", addr, size} {kind="mod", size, parent, oper, modifier}; fields value/prior/changed/vt
local Ctx = {}
Ctx.__index = Ctx
function M.new() return setmetatable({ memrefs = {} }, Ctx) end
local function isfloatsize(s) return s == "float" end

-- memory sizes (rc_memref_shared_sizes, rc_memref_masks, rc_transform_memref_value,
-- rc_transform_operand_value): the read that is shared, the bits the size uses, the value from
-- the read, the BCD digits and the inverting mask
local function swap16(u) return ((u & 0xFF) << 8) | ((u >> 8) & 0xFF) end
local function swap24(u) return ((u & 0xFF) << 16) | (u & 0xFF00) | ((u >> 16) & 0xFF) end
local function swap32(u) return ((u & 0xFF) << 24) | ((u & 0xFF00) << 8) | ((u >> 8) & 0xFF00) | ((u >> 24) & 0xFF) end
local function bits_set(u) local n = 0; for b = 0, 7 do n = n + ((u >> b) & 1) end; return n end
local SIZES = {
  ["8"] = { shared = "8", mask = 0xFF, get = function(u) return u & 0xFF end, digits = 2, inv = 0xFF },
  ["16"] = { shared = "16", mask = 0xFFFF, get = function(u) return u & 0xFFFF end, digits = 4, inv = 0xFFFF },
  ["24"] = { shared = "32", mask = 0xFFFFFF, get = function(u) return u & 0xFFFFFF end, digits = 6, inv = 0xFFFFFF },
  ["32"] = { shared = "32", mask = 0xFFFFFFFF, get = function(u) return u end, digits = 8, inv = 0xFFFFFFFF },
  lo = { shared = "8", mask = 0x0F, get = function(u) return u & 0xF end, inv = 0xF },
  hi = { shared = "8", mask = 0xF0, get = function(u) return (u >> 4) & 0xF end, inv = 0xF },
  bc = { shared = "8", mask = 0xFF, get = function(u) return bits_set(u & 0xFF) end, inv = 1 },
  ["16be"] = { shared = "16", mask = 0xFFFF, get = function(u) return swap16(u & 0xFFFF) end, digits = 4, inv = 0xFFFF },
  ["24be"] = { shared = "32", mask = 0xFFFFFF, get = function(u) return swap24(u & 0xFFFFFF) end, digits = 6,
    inv = 0xFFFFFF },
  ["32be"] = { shared = "32", mask = 0xFFFFFFFF, get = swap32, digits = 8, inv = 0xFFFFFFFF },
  float = { shared = "32", mask = 0xFFFFFFFF, inv = 1 },
}
for b = 0, 7 do
  SIZES["bit" .. b] = { shared = "8", mask = 1 << b, get = function(u) return (u >> b) & 1 end, inv = 1 }
end
M.SIZES = SIZES
local READ_BYTES = { ["8"] = 1, ["16"] = 2, ["32"] = 4 }
-- rc_peek_value: the shared reads directly, any other size from its shared read, masked
local function peek_value(peek, addr, size)
  if READ_BYTES[size] then return peek(addr, READ_BYTES[size]) end
  local info = SIZES[size]
  return peek(addr, READ_BYTES[info.shared]) & info.mask
end
-- the memory record an operand of `size` reads (a prior of a size whose bits differ from its
-- shared read's keeps its own record, so that other bits changing do not move it)
function M.memref_size(size, prior)
  local info = SIZES[size]
  if prior and SIZES[info.shared].mask ~= info.mask then return size end
  return info.shared
end
local function bcd(u, digits)
  local v, scale = 0, 1
  for _ = 1, digits do v = v + (u & 0xF) * scale; u = u >> 4; scale = scale * 10 end
  return v
end
function Ctx:mem(addr, size)
  for _, m in ipairs(self.memrefs) do if m.kind == "mem" and m.addr == addr and m.size == size then return m end end
  local m = { kind = "mem", addr = addr, size = size, value = 0, prior = 0, changed = false, vt = "u" }
  self.memrefs[#self.memrefs + 1] = m
  return m
end
function Ctx:mod(size, parent, oper, modifier)
  local m = { kind = "mod", size = size, parent = parent, oper = oper, modifier = modifier, value = 0, prior = 0,
    changed = false, vt = isfloatsize(size) and "f" or "u" }
  if m.vt == "f" then m.value = 0.0; m.prior = 0.0 end
  self.memrefs[#self.memrefs + 1] = m
  return m
end
local function is_memref(op) return op.ty == "addr" or op.ty == "delta" or op.ty == "prior" end
local function op_is_float(op)
  if op.ty == "fp" then return true end
  if op.ty == "recall" then return isfloatsize(op.size) end
  if is_memref(op) then
    if op.ref.kind == "mod" then return isfloatsize(op.ref.size) end
    return isfloatsize(op.size)
  end
  return false
end
-- rc_transform_memref_float: the bits as an IEEE single, except that a NaN is built anew (C's NAN,
-- with the sign of the bits): its payload is not kept
local POSITIVE_NAN = (string.unpack("<f", string.pack("<I4", 0x7FC00000)))
local function decode_float(u)
  local x = (string.unpack("<f", string.pack("<I4", u)))
  if x ~= x then return (u & 0x80000000) ~= 0 and -POSITIVE_NAN or POSITIVE_NAN end
  return x
end
local function copy_operand(op)
  return { ty = op.ty, num = op.num, dbl = op.dbl, ref = op.ref, size = op.size, bcd = op.bcd, inv = op.inv, acc = op.acc }
end
function Ctx.eval_operand(_, op)
  if op.ty == "const" then return { t = "u", v = op.num } end
  if op.ty == "fp" then return { t = "f", v = f32(op.dbl) } end
  if op.ty == "recall" then
    -- {recall}: the remembered operand read with its own access (no BCD/invert), or 0 when none
    if op.acc == "const" then return { t = "u", v = op.num } end
    if op.acc == "fp" then return { t = "f", v = f32(op.dbl) } end
    local m = op.ref
    if not m then return { t = "u", v = 0 } end
    local raw = m.value
    if op.acc == "delta" and m.changed then raw = m.prior elseif op.acc == "prior" then raw = m.prior end
    local r = { t = m.vt, v = raw }
    if r.t == "u" then
      if op.size == "float" then r.v = decode_float(r.v); r.t = "f" else r.v = SIZES[op.size].get(r.v) end
    end
    return r
  end
  local m = op.ref
  local raw
  if op.ty == "delta" and m.changed then raw = m.prior else raw = m.value end
  if op.ty == "prior" then raw = m.prior end
  local r = { t = m.vt, v = raw }
  -- the size's transform of what was read (a combined value is already typed)
  if r.t == "u" then
    if op.size == "float" then r.v = decode_float(r.v); r.t = "f" else r.v = SIZES[op.size].get(r.v) end
  end
  if r.t == "u" and op.bcd then
    local digits = SIZES[op.size].digits
    if digits then r.v = bcd(r.v, digits) end
  elseif r.t == "u" and op.inv then
    r.v = r.v ~ SIZES[op.size].inv
  end
  return r
end
function Ctx:modvalue(m)
  local v = self:eval_operand(m.parent)
  local a = self:eval_operand(m.modifier)
  if m.oper == "subparent" then negate(v); add(v, a); convert(v, m.vt)
  elseif m.oper == "subacc" or m.oper == "accadd" then
    if m.oper == "subacc" then negate(a) end
    convert(a, v.t); add(v, a); convert(v, m.vt)
  else combine(v, a, m.oper); convert(v, m.vt) end
  if v.t == "n" then return m.vt == "f" and 0.0 or 0 end -- type NONE -> u32 garbage 0? (value.u32 left as is)
  return v.v
end
function Ctx:ind(size, parent, offset)
  local m = { kind = "ind", size = size, parent = parent, offset = offset, value = 0, prior = 0, changed = false, vt = "u" }
  self.memrefs[#self.memrefs + 1] = m
  return m
end
function M.compare(a, oper, b)
  if a.t ~= b.t then
    if b.t == "f" then a = copy(a); convert(a, "f") else b = copy(b); convert(b, a.t) end
  end
  local x, y = a.v, b.v
  if a.t == "f" then
    local c = fcmp(x, y)
    x, y = c, 0
  end
  if oper == "=" then return x == y elseif oper == "!=" then return x ~= y elseif oper == "<" then return x < y
  elseif oper == ">" then return x > y elseif oper == "<=" then return x <= y elseif oper == ">=" then return x >= y end
  return true
end
-- rc_update_memref_values: every plain read first, then the modified ones (pointer reads, AddSource
-- chains, Remember) in the order they were created — so one that reads (through a {recall}) a
-- modified value created after it sees that value as it was last frame
function Ctx:update(peek)
  local order = {}
  for _, m in ipairs(self.memrefs) do if m.kind == "mem" then order[#order + 1] = m end end
  for _, m in ipairs(self.memrefs) do if m.kind ~= "mem" then order[#order + 1] = m end end
  for _, m in ipairs(order) do
    local nv
    if m.kind == "mem" then nv = peek_value(peek, m.addr, m.size)
    elseif m.kind == "ind" then
      local v = self:eval_operand(m.parent)
      add(v, { t = "u", v = m.offset })
      convert(v, "u")
      nv = peek_value(peek, v.v, m.size)
    else nv = self:modvalue(m) end
    -- a change is a change of the stored 32 bits (a float's: NaN stays NaN, 0.0 and -0.0 differ)
    local function bits(x) return math.type(x) == "float" and string.pack("<f", x) or x end
    if bits(nv) == bits(m.value) then m.changed = false
    else m.prior = m.value; m.value = nv; m.changed = true end
  end
end
-- parse-state chain builder (rc_condition_update_parse_state), for A/B/M in values
function Ctx:convert_to_operand(c)
  if c.oper == nil then return copy_operand(c.op1) end
  local size = (op_is_float(c.op1) or op_is_float(c.op2)) and "float" or "32"
  return { ty = "addr", ref = self:mod(size, c.op1, c.oper, c.op2), size = size }
end
function Ctx:addsource(op, ps, new_size)
  if (op.ty == "delta" or op.ty == "prior") and op.ty == ps.parent.ty then
    local modifier = { ty = "addr", ref = op.ref, size = op.size }
    ps.parent.ty = "addr"
    op.ref = self:mod(new_size, ps.parent, ps.oper, modifier)
  else
    local m = self:mod(new_size, ps.parent, ps.oper, copy_operand(op))
    op.ty = "addr"; op.ref = m; op.bcd = nil; op.inv = nil
  end
  op.size = "32"
end
function Ctx:chain(c, ps)
  if c.flag == "K" then
    if c.op1.ty == "recall" and c.oper == nil and not ps.parent and not ps.ind then return end -- a no-op
    if c.oper ~= nil then c.op1 = self:convert_to_operand(c) end
    if ps.parent then self:addsource(c.op1, ps, c.op1.size or "32") end
    ps.remember = copy_operand(c.op1)
    ps.parent, ps.ind = nil, nil
  elseif c.flag == "I" then
    ps.ind = self:convert_to_operand(c)
  elseif c.flag == "A" then
    if not ps.parent then ps.parent = self:convert_to_operand(c)
    else
      local ns = op_is_float(ps.parent) and "float" or "32"
      local co = self:convert_to_operand(c)
      self:addsource(co, ps, ns)
      ps.parent = co
    end
    ps.oper = "accadd"
    ps.ind = nil
  elseif c.flag == "B" then
    if not ps.parent then ps.parent = self:convert_to_operand(c); ps.oper = "subparent"
    else
      local ns = op_is_float(ps.parent) and "float" or "32"
      if ps.oper == "accadd" and not is_memref(ps.parent) then
        local m = self:mod(ps.parent.size or "32", ps.parent, "accadd", { ty = "const", num = 0 })
        ps.parent = { ty = "addr", ref = m, size = ps.parent.size or "32" }
      elseif ps.oper == "subparent" then
        local zero = op_is_float(ps.parent) and { ty = "fp", dbl = 0.0 } or { ty = "const", num = 0 }
        local m = self:mod(ns, ps.parent, "subparent", zero)
        ps.parent = { ty = is_memref(ps.parent) and ps.parent.ty or "addr", ref = m, size = zero.ty == "fp" and "float" or "32" }
      end
      ps.oper = is_memref(ps.parent) and "subacc" or "subparent"
      local co = self:convert_to_operand(c)
      self:addsource(co, ps, ns)
      ps.parent = co
      ps.oper = "accadd"
    end
    ps.ind = nil
  else
    if c.flag == "M" and c.oper ~= nil and ps.is_value and ("*/%&^+-"):find(c.oper, 1, true) then c.op1 = self:convert_to_operand(c) end
    if ps.parent then
      if ps.oper == "accadd" then ps.oper = "+" end
      self:addsource(c.op1, ps, c.op1.size or "32")
    end
    ps.parent = nil
    ps.ind = nil
  end
end

-- a {recall} operand: a copy of the remembered operand (nil: nothing remembered yet)
function M.recall(remember)
  if not remember then return { ty = "recall", acc = "addr", size = "32" } end
  local op = copy_operand(remember)
  op.acc, op.ty = remember.ty, "recall"
  op.bcd, op.inv = nil, nil
  return op
end

-- rc_update_condition_pause_remember, over a group's conditions in definition order (Remember,
-- AddSource, SubSource and AddAddress included): pause chains run first, so a {recall} in one
-- cannot see a Remember from elsewhere, and the conditions before the first Remember see the last
-- Remember of the pause chains.
local PAUSE_CLASS_SKIP = { N = true, O = true, C = true, D = true, Z = true, K = true, A = true, B = true, I = true }
function M.fix_pause_remember(conds)
  local class = {}
  for i, c in ipairs(conds) do
    if not PAUSE_CLASS_SKIP[c.flag] then class[i] = c.flag == "P" end
  end
  for i, c in ipairs(conds) do
    if c.flag == "A" or c.flag == "B" or c.flag == "I" then class[i] = false
    elseif class[i] == nil then
      class[i] = false
      for j = i + 1, #conds do
        local f = conds[j].flag
        if not PAUSE_CLASS_SKIP[f] then class[i] = f == "P"; break end
      end
    end
  end
  local pause_remember
  for i, c in ipairs(conds) do
    if class[i] then
      if c.flag == "K" then pause_remember = c.op1
      elseif not pause_remember then
        for _, key in ipairs({ "op1", "op2" }) do
          local op = c[key]
          if op and op.ty == "recall" and op.acc ~= "const" and op.acc ~= "fp" then op.ref = nil end
        end
      end
    end
  end
  if not pause_remember then return end
  local function update(op)
    if not op then return end
    if op.ty == "recall" then
      if op.acc ~= "const" and op.acc ~= "fp" and op.ref == nil then
        local fresh = M.recall(pause_remember)
        for k in pairs(op) do op[k] = nil end
        for k, v in pairs(fresh) do op[k] = v end
      end
    elseif is_memref(op) and (op.ref.kind == "mod" or op.ref.kind == "ind") then
      update(op.ref.parent)
      if op.ref.kind == "mod" then update(op.ref.modifier) end
    end
  end
  for i, c in ipairs(conds) do
    if not class[i] then update(c.op1); update(c.op2) end
    if c.flag == "K" then break end
  end
end

---------------------------------------------------------------------------
-- condition sets and triggers (rc_test_condset, rc_evaluate_trigger)
---------------------------------------------------------------------------

local COMB = { N = true, O = true, C = true, D = true, Z = true }
local function classify(c)
  if c.flag == "P" then return "pause" end
  if c.flag == "R" then return "reset" end
  if COMB[c.flag] then return "comb" end
  if c.flag == "M" or c.flag == "Q" then return "measured" end
  if c.req ~= 0 then return "hittarget" end
  return "other"
end
function M.prepare(groups)
  for _, g in ipairs(groups) do
    local pending = {}
    for _, c in ipairs(g) do
      c.hits = 0
      local k = classify(c)
      if k == "comb" then pending[#pending + 1] = c else
        c.class = k
        for _, p in ipairs(pending) do p.class = k end
        pending = {}
      end
    end
    for _, p in ipairs(pending) do p.class = "other" end
    g.byclass = {}
    for _, k in ipairs({ "pause", "reset", "hittarget", "measured", "other" }) do
      local l = {}
      for _, c in ipairs(g) do if c.class == k then l[#l + 1] = c end end
      g.byclass[k] = l
    end
  end
end
local function opval(op, mem, prev)
  if op.k == "c" then return op.v end
  if op.k == "m" then return mem[op.a] end
  return prev[op.a]
end
local function cmp(a, o, b)
  if o == "=" then return a == b elseif o == "!=" then return a ~= b elseif o == "<" then return a < b
  elseif o == ">" then return a > b elseif o == "<=" then return a <= b else return a >= b end
end
local function no_add_hits(c, es)
  local v
  if es.test then v = es.test(c) else v = cmp(opval(c.op1, es.mem, es.prev), c.oper, opval(c.op2, es.mem, es.prev)) end
  if es.reset_next then
    if c.hits ~= 0 then es.was_cond_reset = true end
    c.hits = 0; v = false
  else
    v = (v and es.and_next) or es.or_next
    if v then
      es.has_hits = true
      if c.req == 0 then c.hits = c.hits + 1
      elseif c.hits < c.req then c.hits = c.hits + 1; v = (c.hits == c.req) end
    elseif c.hits > 0 then
      es.has_hits = true
      v = (c.hits == c.req)
    end
  end
  es.and_next = true; es.or_next = false
  return v
end
local function total_hits(c, es)
  local t = c.hits
  if c.req ~= 0 then t = c.hits + es.add_hits; if t < 0 then t = 0 end end
  es.add_hits = 0
  return t
end
local function eval_cond(c, es)
  local v = no_add_hits(c, es)
  if es.add_hits ~= 0 and c.req ~= 0 then v = total_hits(c, es) >= c.req end
  es.reset_next = false
  return v
end
local function run(list, es, sc)
  for _, c in ipairs(list) do
    local f = c.flag
    if f == "" then
      local v = eval_cond(c, es); es.is_true = es.is_true and v; es.is_primed = es.is_primed and v
    elseif f == "P" then
      local v = eval_cond(c, es)
      if v then es.is_paused = true; es.is_true = false; es.is_primed = false; es.stop = true
      elseif c.req == 0 then c.hits = 0 end
    elseif f == "R" then
      local v = eval_cond(c, es)
      if v then es.is_true = false; es.is_primed = false; es.was_reset = true; es.stop = true end
    elseif f == "T" then
      local v = eval_cond(c, es); es.is_true = es.is_true and v
    elseif f == "M" then
      if c.req == 0 then
        local v = eval_cond(c, es); es.is_true = es.is_true and v; es.is_primed = es.is_primed and v
        if es.measure then es.mv = es.measure(c) else es.mv = opval(c.op1, es.mem, es.prev) end; es.mfh = false
      else
        no_add_hits(c, es)
        local t = total_hits(c, es)
        local v = t >= c.req
        es.is_true = es.is_true and v; es.is_primed = es.is_primed and v
        if es.measure then es.mv = { t = "u", v = t } else es.mv = t end; es.mfh = true
        es.reset_next = false
      end
    elseif f == "Q" then
      local v = eval_cond(c, es); es.is_true = es.is_true and v; es.is_primed = es.is_primed and v
      es.can_measure = es.can_measure and v
    elseif f == "C" then
      no_add_hits(c, es); es.add_hits = es.add_hits + c.hits; es.reset_next = false
    elseif f == "D" then
      no_add_hits(c, es); es.add_hits = es.add_hits - c.hits; es.reset_next = false
    elseif f == "Z" then es.reset_next = no_add_hits(c, es)
    elseif f == "N" then es.and_next = no_add_hits(c, es)
    elseif f == "O" then es.or_next = no_add_hits(c, es)
    end
    if es.stop and sc then break end
  end
end
function M.test_condset(g, es)
  es.mv = nil; es.add_hits = 0; es.is_true = true; es.is_primed = true; es.is_paused = false
  es.can_measure = true; es.mfh = false; es.and_next = true; es.or_next = false; es.reset_next = false; es.stop = false
  local bc = g.byclass
  if #bc.pause > 0 then
    run(bc.pause, es, true)
    g.is_paused = es.is_paused
    if g.is_paused then return false end
  end
  if #bc.reset > 0 then run(bc.reset, es, false) end
  if #bc.hittarget > 0 and not es.was_reset then run(bc.hittarget, es, false) end
  if #bc.measured > 0 then
    if es.was_reset then for _, c in ipairs(bc.measured) do c.hits = 0 end end
    run(bc.measured, es, false)
    if es.mv ~= nil and (not es.can_measure or (es.mfh and es.was_reset)) then es.mv = es.measure and { t = "u", v = 0 } or 0 end
  end
  if #bc.other > 0 and (es.is_true or not es.was_reset) then run(bc.other, es, false) end
  return es.is_true
end
local function reset_hits(t) for _, g in ipairs(t.groups) do for _, c in ipairs(g) do c.hits = 0 end end end
function M.trigger(groups, has_core, target)
  M.prepare(groups)
  return { groups = groups, has_core = has_core, state = "waiting", has_hits = false,
    target = target, measured = target ~= 0 and 0xFFFFFFFF or 0, prev = { [0] = 0, 0, 0, 0 } }
end
-- One frame of a trigger (rcheevos' rc_evaluate_trigger): `greater` compares measured values, `measured`
-- turns the winner into the stored number; the typed model differs from the plain one only there.
local function update(t, mem, es, greater, measured)
  local ret, paused, primed, mv, mfh
  local gi = 1
  if t.has_core then
    ret = M.test_condset(t.groups[1], es); paused = es.is_paused; primed = es.is_primed
    if es.mv ~= nil then mv = es.mv; mfh = es.mfh end
    gi = 2
  else ret, paused, primed = true, false, true end
  if gi <= #t.groups then
    local sub, sp, spr = false, true, false
    for i = gi, #t.groups do
      sub = M.test_condset(t.groups[i], es) or sub
      sp = sp and es.is_paused; spr = spr or es.is_primed
      if es.mv ~= nil and (mv == nil or greater(es.mv, mv)) then mv = es.mv; mfh = es.mfh end
    end
    ret = ret and sub; primed = primed and spr; paused = paused or sp
  end
  t.prev = { [0] = mem[0], mem[1], mem[2], mem[3] }
  -- rc_typed_value_convert of "none" to unsigned is 0
  if not paused then t.measured = mv ~= nil and measured(mv) or 0 end
  if es.was_reset then
    if mfh then t.measured = 0
    elseif paused and t.measured ~= 0 then
      for _, g in ipairs(t.groups) do
        if g.is_paused then
          local hit = false
          for _, c in ipairs(g) do if c.flag == "M" and c.req ~= 0 and c.hits == t.measured then hit = true end end
          if hit then t.measured = 0; break end
        end
      end
    end
    reset_hits(t)
    if t.has_hits then
      t.has_hits = false
      if t.state == "primed" then t.state = "active" end
      return "reset"
    end
    es.has_hits = false; primed = false
  elseif ret then
    if t.state == "waiting" then
      reset_hits(t); t.state = "waiting"; if t.target ~= 0 then t.measured = 0xFFFFFFFF end; t.has_hits = false
      return "waiting"
    end
    t.state = "triggered"; return "triggered"
  end
  t.has_hits = es.has_hits
  if paused then t.state = "paused" elseif primed then t.state = "primed" else t.state = "active" end
  if es.was_cond_reset then return "reset" end
  return t.state
end
function M.update(t, mem)
  local es = { mem = mem, prev = t.prev, was_reset = false, has_hits = false, was_cond_reset = false }
  return update(t, mem, es, function(a, b) return a > b end, function(v) return v end)
end
function M.update_typed(t, mem, hooks)
  local es = { mem = mem, prev = t.prev, was_reset = false, has_hits = false, was_cond_reset = false,
    test = hooks.test, measure = hooks.measure }
  return update(t, mem, es, M.compare_gt, function(v)
    local r = { t = v.t, v = v.v }; M.convert(r, 'u'); return r.v
  end)
end

return M
