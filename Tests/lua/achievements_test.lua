-- Tests for lua/retrolua/achievements.lua (pure Lua, stock lua5.4):
--   lua5.4 Tests/lua/achievements_test.lua
-- Prints one line per failing case, exits 1 on failure, "ok N cases" otherwise.
-- Expected values follow rcheevos' documented and implemented semantics.

local harness = dofile(((arg and arg[0] or ""):match("^(.*)[/\\]") or ".") .. "/harness.lua")

local ra = require("retrolua.achievements")

local show, check, check_true = harness.show, harness.check, harness.check_true

---------------------------------------------------------------------------
-- fake memory
---------------------------------------------------------------------------

local Memory = {}
Memory.__index = Memory

local function memory(size)
  local m = setmetatable({ size = size or 256, b = {} }, Memory)
  for i = 0, m.size - 1 do m.b[i] = 0 end
  m.peek = function(addr, n)
    local v = 0
    local bytes, sz = m.b, m.size
    for i = n - 1, 0, -1 do
      local a = addr + i
      v = (v << 8) | ((a < sz) and bytes[a] or 0)
    end
    return v
  end
  return m
end

function Memory:set(addr, ...)
  for i, v in ipairs({ ... }) do self.b[addr + i - 1] = v end
end
function Memory:u8(addr, v) self.b[addr] = v & 0xFF end
function Memory:u16(addr, v) self:set(addr, v & 0xFF, (v >> 8) & 0xFF) end
function Memory:u32(addr, v) self:set(addr, v & 0xFF, (v >> 8) & 0xFF, (v >> 16) & 0xFF, (v >> 24) & 0xFF) end
function Memory:f32(addr, x) self:set(addr, string.byte(string.pack("<f", x), 1, 4)) end
function Memory:f32be(addr, x) self:set(addr, string.byte(string.pack(">f", x), 1, 4)) end

-- value of an operand/expression for the current memory (one fresh frame)
local function value(def, m)
  local v, err = ra.value(def)
  if not v then return "error: " .. err end
  return v:update(m.peek)
end

-- truth of a trigger on its first evaluation: "waiting" means it was true
local function truth(def, m)
  local t, err = ra.trigger(def)
  if not t then return "error: " .. err end
  local s = t:update(m.peek)
  if s == "waiting" then return true end
  if s == "active" then return false end
  return s
end

-- runs a trigger over frames: each frame is { function(m) ... end, expected }
local function run(name, def, m, frames)
  local t, err = ra.trigger(def)
  if not t then
    check(name .. " (parse)", err, nil)
    return
  end
  for i, f in ipairs(frames) do
    if f[1] then f[1](m) end
    local got = t:update(m.peek)
    check(string.format("%s frame %d", name, i), got, f[2])
    if f[3] then f[3](t, name .. " frame " .. i) end
  end
  return t
end

local function parse_error(kind, def, want)
  local obj, err
  if kind == "trigger" then obj, err = ra.trigger(def)
  elseif kind == "value" then obj, err = ra.value(def)
  elseif kind == "leaderboard" then obj, err = ra.leaderboard(def)
  else obj, err = ra.richpresence(def) end
  harness.case()
  if obj ~= nil or type(err) ~= "string" or not err:find(want, 1, true) then
    harness.fail("%s parse error for %q: got %s, want message containing %q", kind, def, show(err), want)
  end
end

---------------------------------------------------------------------------
-- memory sizes (rcheevos test_operand: ram 00 12 34 AB 56, 5 bytes)
---------------------------------------------------------------------------

do
  local m = memory(5)
  m:set(0, 0x00, 0x12, 0x34, 0xAB, 0x56)
  local function u(def) local v = value("M:" .. def, m); if type(v) == "number" then return v & 0xFFFFFFFF end return v end
  check("8-bit", u("0xH0001"), 0x12)
  check("8-bit lower case", u("0xh0004"), 0x56)
  check("8-bit out of range", u("0xH0005"), 0)
  check("16-bit space", u("0x 0000"), 0x1200)
  check("16-bit legacy", u("0x0003"), 0x56AB)
  check("16-bit partly out of range", u("0x 0004"), 0x0056)
  check("24-bit", u("0xW0000"), 0x341200)
  check("24-bit 2", u("0xW0002"), 0x56AB34)
  check("24-bit partly out", u("0xW0003"), 0x0056AB)
  check("32-bit", u("0xX0000"), 0xAB341200)
  check("32-bit 1", u("0xX0001"), 0x56AB3412)
  check("32-bit partly out", u("0xX0003"), 0x000056AB)
  check("16-bit BE", u("0xI0001"), 0x1234)
  check("24-bit BE", u("0xJ0001"), 0x1234AB)
  check("32-bit BE", u("0xG0001"), 0x1234AB56)
  check("upper nibble", u("0xU0001"), 0x1)
  check("lower nibble", u("0xL0001"), 0x2)
  check("upper nibble AB", u("0xU0003"), 0xA)
  check("lower nibble AB", u("0xL0003"), 0xB)
  local bits = { M = 1, N = 1, O = 0, P = 1, Q = 0, R = 1, S = 0, T = 1 } -- 0xAB = 10101011
  for c, want in pairs(bits) do check("bit " .. c, u("0x" .. c .. "0003"), want) end
  check("bit lower case", u("0xt0003"), 1)
  check("bit count AB", u("0xK0003"), 5)
  check("bit count 12", u("0xK0001"), 2)
  check("upper case X prefix", u("0Xh0002"), 0x34)
end

---------------------------------------------------------------------------
-- operand prefixes and constants
---------------------------------------------------------------------------

do
  local m = memory()
  m:set(0, 0x00, 0x12, 0x34, 0xAB, 0x56, 0x99)
  check("BCD 8-bit", value("M:b0xH0001", m), 12)
  check("BCD 8-bit 99", value("M:b0xH0005", m), 99)
  check("BCD 16-bit", value("M:b0x 0001", m), 3412)
  m:u32(0x20, 0x12345678)
  check("BCD 32-bit", value("M:b0xX0020", m), 12345678)
  m:set(0x30, 0x56, 0x34, 0x12)
  check("BCD 24-bit", value("M:b0xW0030", m), 123456)
  check("inverted 8-bit", value("M:~0xH0001", m), 0xED)
  check("inverted nibble", value("M:~0xL0001", m), 0xD)
  check("inverted bit", value("M:~0xM0003", m), 0)
  check("inverted 16-bit", value("M:~0x 0001", m), 0xCBED)
  check("decimal constant", value("M:1234", m), 1234)
  check("hex constant", value("M:h1F", m), 31)
  check("hex constant upper", value("M:HABCD", m), 0xABCD)
  check("negative constant", value("M:-3", m), -3)
  check("signed constant v", value("M:v-3", m), -3)
  check("constant clamps to 32 bits", value("M:4294967296", m) & 0xFFFFFFFF, 0xFFFFFFFF)
  check("float constant compare", truth("f1.5>1", m), true)
  check("float constant vs int", truth("f1.5<2", m), true)
  check("f1 is an integer constant", truth("f1=1", m), true)
  check("0x is memory, not a constant", truth("0x0001=h3412", m), true)
  check("func operand evaluates 0", truth("@foo=0", m), true)
end

---------------------------------------------------------------------------
-- comparisons
---------------------------------------------------------------------------

do
  local m = memory()
  m:u8(1, 18)
  local cmp = {
    { "0xH0001=18", true }, { "0xH0001==18", true }, { "0xH0001=17", false },
    { "0xH0001!=18", false }, { "0xH0001!=17", true },
    { "0xH0001<19", true }, { "0xH0001<18", false },
    { "0xH0001<=18", true }, { "0xH0001<=17", false },
    { "0xH0001>17", true }, { "0xH0001>18", false },
    { "0xH0001>=18", true }, { "0xH0001>=19", false },
    { "0xH0001>0xH0002", true }, { "0xH0002<0xH0001", true },
    { "0xH0001=0xH0001", true }, { "0xH0001!=0xH0001", false },
    { "0xH0001>-1", false }, -- -1 is 0xFFFFFFFF: comparisons are unsigned
  }
  for _, c in ipairs(cmp) do check("compare " .. c[1], truth(c[1], m), c[2]) end
end

---------------------------------------------------------------------------
-- arithmetic (modifiers and AddSource/SubSource chains)
---------------------------------------------------------------------------

do
  local m = memory()
  m:set(0, 0x00, 0x12, 0x34, 0xAB, 0x56)
  check("multiply", value("M:0xH0001*2", m), 36)
  check("divide", value("M:0xH0002/5", m), 10)
  check("divide by zero", value("M:0xH0002/0", m), 0)
  check("divide by memory zero", value("M:0xH0002/0xH0000", m), 0)
  check("bitwise and", value("M:0xH0003&h0F", m), 0x0B)
  check("bitwise xor", value("M:0xH0003^hFF", m), 0x54)
  check("modulus", value("M:0xH0002%5", m), 2)
  check("modulus by zero", value("M:0xH0002%0", m), 0)
  check("add", value("M:0xH0001+0xH0002", m), 70)
  check("subtract wraps (signed result)", value("M:0xH0001-20", m), -2)
  check("add constant chain", value("A:0xH0001_M:0xH0002", m), 70)
  check("add chain with modifiers", value("A:0xH0001*2_A:0xH0002*3_M:5", m), 36 + 156 + 5)
  check("sub chain", value("B:0xH0001_M:0xH0002", m), 34)
  check("sub twice", value("B:0xH0001_B:0xH0002_M:0xH0003", m), 171 - 18 - 52)
  check("add then sub", value("A:0xH0003_B:0xH0001_M:0xH0002", m), 171 - 18 + 52)
  check("AddSource in trigger", truth("A:0xH0001_0xH0002=70", m), true)
  check("SubSource in trigger", truth("B:0xH0001_0xH0002=34", m), true)
  check("AddSource with multiply", truth("A:0xH0001*2_0xH0002=88", m), true)
  check("AddSource both sides unaffected on right", truth("A:0xH0001_0xH0002=0xH0002", m), false)
  check("legacy value sum", value("0xH0001*2_0xH0002", m), 88)
  check("legacy value negative multiplier", value("0xH0001*-1_0xH0002", m), 34)
  check("legacy value negative result", value("0xH0002*-1_0xH0001", m), -34)
  check("legacy value float multiplier", value("0xH0002*0.5", m), 26)
  check("legacy value max", value("0xH0001$0xH0002", m), 52)
  check("legacy value constant", value("0xH0001_10", m), 28)
end

---------------------------------------------------------------------------
-- floats, double32 and MBF32
---------------------------------------------------------------------------

do
  local m = memory()
  m:f32(0x10, 1.5)
  m:f32be(0x20, -2.25)
  m:set(0x30, 0x00, 0x00, 0xF8, 0x3F) -- upper half of the double 1.5
  m:set(0x38, 0x3F, 0xF8, 0x00, 0x00) -- same, big-endian
  m:set(0x40, 0x81, 0x00, 0x00, 0x00) -- MBF32 1.0
  m:set(0x44, 0x82, 0xA0, 0x00, 0x00) -- MBF32 -2.5
  m:set(0x48, 0x00, 0x00, 0xA0, 0x82) -- MBF32 LE -2.5
  m:f32(0x50, 1.1)
  m:f32(0x54, 100000.0)
  check("float LE", truth("fF0010=f1.5", m), true)
  check("float BE", truth("fB0020=f-2.25", m), true)
  check("double32", truth("fH0030=f1.5", m), true)
  check("double32 BE", truth("fI0038=f1.5", m), true)
  check("MBF32", truth("fM0040=1", m), true)
  check("MBF32 negative", truth("fM0044=f-2.5", m), true)
  check("MBF32 LE", truth("fL0048=f-2.5", m), true)
  check("MBF32 zero", truth("fM0060=0", m), true)
  check("float vs integer", truth("fF0010>1", m), true)
  check("float vs integer 2", truth("fF0010<2", m), true)
  check("float equality uses single precision constants", truth("fF0050=f1.1", m), true)
  check("float tolerance", truth("fF0054=f100000.001", m), true)
  check("float not equal", truth("fF0054!=f100000.1", m), true)
  check("float greater", truth("fF0010>f1.4", m), true)
  check("float value truncates", value("M:fF0010", m), 1)
  check("float value multiply", value("M:fF0010*2", m), 3)
  check("float value multiply by float", value("M:0xH0060*f1.5", m), 0)
  m:u8(0x60, 3)
  check("int times float", value("M:0xH0060*f1.5", m), 4)
  check("float negative truncates", value("M:fB0020", m), -2)
  check("float AddSource leaf decides type", truth("A:0xH0060_fF0010=f4.5", m), true)
  check("integer accumulator truncates float", value("A:0xH0060_A:fF0010_M:0", m), 4)
  check("float in chain", truth("A:fF0010_fF0010=f3.0", m), true)
end

---------------------------------------------------------------------------
-- delta, prior, initial frame
---------------------------------------------------------------------------

do
  local m = memory()
  m:u8(1, 0x12)
  local v = assert(ra.value("M:d0xH0001"))
  check("delta on first frame is 0", v:update(m.peek), 0)
  check("delta on second frame", v:update(m.peek), 0x12)
  m:u8(1, 0x20)
  check("delta after change", v:update(m.peek), 0x12)
  check("delta when unchanged", v:update(m.peek), 0x20)

  local p = assert(ra.value("M:p0xH0002"))
  m:u8(2, 5)
  check("prior first frame", p:update(m.peek), 0)
  check("prior unchanged", p:update(m.peek), 0)
  m:u8(2, 7)
  check("prior after change", p:update(m.peek), 5)
  check("prior keeps last different value", p:update(m.peek), 5)
  m:u8(2, 9)
  check("prior follows changes", p:update(m.peek), 7)

  -- prior of a bit only changes when that bit changes
  local pb = assert(ra.value("M:p0xM0003"))
  m:u8(3, 1)
  pb:update(m.peek)
  m:u8(3, 3) -- bit 0 unchanged
  check("prior of bit ignores other bits", pb:update(m.peek), 0)
  m:u8(3, 2)
  check("prior of bit after change", pb:update(m.peek), 1)

  run("delta increase", "0xH0004>d0xH0004", memory(), {
    { function(mm) mm:u8(4, 1) end, "waiting" }, -- 1 > 0 (delta starts at 0)
    { nil, "active" },
    { function(mm) mm:u8(4, 2) end, "triggered" },
  })
end

---------------------------------------------------------------------------
-- trigger states: waiting, active, triggered, inactive
---------------------------------------------------------------------------

do
  local m = memory()
  run("waiting until false once", "0xH0000=1", m, {
    { function(mm) mm:u8(0, 1) end, "waiting" },
    { nil, "waiting" },
    { function(mm) mm:u8(0, 0) end, "active" },
    { function(mm) mm:u8(0, 1) end, "triggered" },
    { nil, "inactive" },
  })
  local t = run("state field", "0xH0000=1", memory(), { { nil, "active" } })
  check("state field", t.state, "active")
  t:set_active(false)
  check("deactivated", t:update(memory().peek), "inactive")
  t:set_active(true)
  check("reactivated waits", t.state, "waiting")
  t:disable()
  check("disabled", t:update(memory().peek), "inactive")
  check("disabled state", t.state, "disabled")

  local empty = assert(ra.trigger(""))
  check("empty trigger waits", empty:update(m.peek), "waiting")
end

---------------------------------------------------------------------------
-- hit counts, ResetIf, PauseIf, ResetNextIf
---------------------------------------------------------------------------

do
  local function set(a, v) return function(mm) mm:u8(a, v) end end
  run("hit target", "0xH0000=1.2.", memory(), {
    { set(0, 1), "active", function(t, n) check(n .. " hits", t:hits(1), 1) end },
    { set(0, 0), "active", function(t, n) check(n .. " hits kept", t:hits(1), 1) end },
    { set(0, 1), "triggered" },
  })
  run("hit target parenthesis", "0xH0000=1(2)", memory(), {
    { set(0, 1), "active" }, { nil, "triggered" },
  })
  run("hits cap at target", "0xH0000=1.2._0xH0001=1", memory(), {
    { set(0, 1), "active" }, { nil, "active" },
    { nil, "active", function(t, n) check(n .. " capped", t:hits(1), 2) end },
    { set(1, 1), "triggered" },
  })
  run("ResetIf clears hits", "0xH0000=1.3._R:0xH0001=1", memory(), {
    { set(0, 1), "active" },
    { nil, "active" },
    { set(1, 1), "reset", function(t, n) check(n .. " cleared", t:hits(1), 0) end },
    { set(1, 0), "active" },
    { nil, "active" },
    { nil, "triggered" },
  })
  run("ResetIf without hits is silent", "R:0xH0001=1_0xH0000=1", memory(), {
    { set(1, 1), "active" },
    { nil, "active" },
  })
  run("ResetIf reports reset after any earlier true condition", "0xH0000=1_0xH0002=1_R:0xH0003=1", memory(), {
    { set(2, 1), "active" },
    { set(2, 0), "active" },
    { set(3, 1), "reset" },
    { nil, "active" }, -- nothing had hits since
  })
  run("ResetIf after a skipped-but-true condition", "0xH0000=1_0xH0002=1_R:0xH0003=1", memory(), {
    { set(0, 1), "active" }, -- 0xH0002=1 false
    { function(mm) mm:u8(0, 0); mm:u8(2, 1) end, "active" },
    { set(3, 1), "reset" },
  })
  run("PauseIf hits count for reset reporting", "0xH0000=1_P:0xH0001=1_R:0xH0002=1", memory(), {
    { set(1, 1), "paused" },
    { function(mm) mm:u8(1, 0); mm:u8(2, 1) end, "reset" },
    { nil, "active" },
  })
  run("ResetIf with hits in an alt", "0xH0000=1_R:0xH0003=1S0xH0001=1", memory(), {
    { set(1, 1), "active" },
    { set(3, 1), "reset" },
  })
  run("PauseIf freezes hits", "0xH0000=1.2._P:0xH0001=1", memory(), {
    { set(0, 1), "active" },
    { set(1, 1), "paused", function(t, n) check(n .. " frozen", t:hits(1), 1) end },
    { set(1, 0), "triggered" },
  })
  run("PauseIf blocks ResetIf in its group", "0xH0000=1.3._R:0xH0002=1_P:0xH0001=1", memory(), {
    { set(0, 1), "active" },
    { function(mm) mm:u8(1, 1); mm:u8(2, 1) end, "paused" },
    { function(mm) mm:u8(1, 0); mm:u8(2, 0) end, "active",
      function(t, n) check(n .. " hits survived", t:hits(1), 2) end },
  })
  run("PauseIf with hit count locks", "0xH0000=1_P:0xH0001=1.1.SR:0xH0002=1", memory(), {
    { set(1, 1), "paused" },
    { set(1, 0), "paused" },
    { set(2, 1), "reset" }, -- the alt group's ResetIf clears the pause lock
    { function(mm) mm:u8(2, 0); mm:u8(0, 1) end, "triggered" },
  })
  run("ResetNextIf", "Z:0xH0001=1_0xH0000=1.3.", memory(), {
    { set(0, 1), "active" },
    { nil, "active" },
    { set(1, 1), "reset", function(t, n) check(n .. " reset next", t:hits(2), 0) end },
    { set(1, 0), "active", function(t, n) check(n .. " counting again", t:hits(2), 1) end },
  })
  run("ResetNextIf on a PauseIf lock", "0xH0000=1_Z:0xH0002=1_P:0xH0001=1.1.", memory(), {
    { set(1, 1), "paused" },
    { set(1, 0), "paused" },
    { set(2, 1), "reset" }, -- the lock's hit count is cleared: not paused any more
    { set(0, 1), "triggered" },
  })
end

---------------------------------------------------------------------------
-- AddHits, SubHits, AndNext, OrNext
---------------------------------------------------------------------------

do
  local function set(a, v) return function(mm) mm:u8(a, v) end end
  run("AddHits", "C:0xH0000=1_0xH0001=1.3.", memory(), {
    { function(mm) mm:u8(0, 1); mm:u8(1, 1) end, "active" }, -- 1 + 1
    { nil, "triggered" }, -- 2 + 2
  })
  run("AddHits alone", "C:0xH0000=1_0xH0001=1.3.", memory(), {
    { set(0, 1), "active" }, { nil, "active" }, { nil, "triggered" },
  })
  run("SubHits", "C:0xH0000=1_D:0xH0001=1_0xH0002=1.2.", memory(), {
    { set(0, 1), "active" },
    { set(1, 1), "active" }, -- 2 - 1
    { function(mm) mm:u8(1, 0) end, "triggered" }, -- 3 - 1
  })
  run("AndNext", "N:0xH0000=1_0xH0001=1", memory(), {
    { set(0, 1), "active" }, { set(1, 1), "triggered" },
  })
  run("AndNext chain with hits", "N:0xH0000=1_N:0xH0001=1_0xH0002=1.2.", memory(), {
    { function(mm) mm:u8(0, 1); mm:u8(1, 1); mm:u8(2, 1) end, "active" },
    { set(1, 0), "active" },
    { set(1, 1), "triggered" },
  })
  run("OrNext", "O:0xH0000=1_0xH0001=1", memory(), {
    { nil, "active" }, { set(0, 1), "triggered" },
  })
  run("OrNext then AndNext", "O:0xH0000=1_N:0xH0001=1_0xH0002=1", memory(), {
    { set(2, 1), "active" }, { set(1, 1), "triggered" },
  })
end

---------------------------------------------------------------------------
-- AddAddress pointer chains
---------------------------------------------------------------------------

do
  local m = memory()
  m:u32(0x10, 0x20)
  m:u8(0x24, 0x77)
  m:u32(0x20, 0x40)
  m:u8(0x41, 0x99)
  m:u32(0x30, 0x80000020)
  check("AddAddress", truth("I:0xX0010_0xH0004=119", m), true)
  check("AddAddress both operands", truth("I:0xX0010_0xH0004=0xH0004", m), true)
  check("AddAddress value", value("I:0xX0010_M:0xH0004", m), 0x77)
  check("AddAddress two levels", value("I:0xX0010_I:0xX0000_M:0xH0001", m), 0x99)
  check("AddAddress masked pointer", value("I:0xX0030&h1FFFFFF_M:0xH0004", m), 0x77)
  check("AddAddress only applies to the next condition", value("I:0xX0010_A:0xH0004_M:0xH0010", m), 0x77 + 0x20)
  local v = assert(ra.value("I:0xX0010_M:d0xH0004"))
  check("AddAddress delta first frame", v:update(m.peek), 0)
  check("AddAddress delta second frame", v:update(m.peek), 0x77)
  m:u32(0x10, 0x40) -- pointer moves: 0x44 holds 0
  check("AddAddress delta follows the previous pointer", v:update(m.peek), 0x77)
  check("AddAddress delta settles", v:update(m.peek), 0)
end

---------------------------------------------------------------------------
-- Measured, MeasuredIf, percent, Trigger/primed
---------------------------------------------------------------------------

do
  local m = memory()
  m:u8(1, 18)
  local t = run("measured value", "M:0xH0001>=20", m, { { nil, "active" } })
  local v, target, pct = t:measured()
  check("measured value", v, 18)
  check("measured target", target, 20)
  check("measured not percent", pct, false)
  m:u8(1, 25)
  check("measured triggers", t:update(m.peek), "triggered")
  check("measured after trigger keeps the triggering frame's value", (t:measured()), 25)

  local g = assert(ra.trigger("G:0xH0001>=100"))
  g:update(m.peek)
  local gv, gt, gp = g:measured()
  check("percent value", gv, 25)
  check("percent target", gt, 100)
  check("percent flag", gp, true)

  local h = run("measured hits", "M:0xH0000=1.5._R:0xH0002=1", memory(), {
    { function(mm) mm:u8(0, 1) end, "active" }, { nil, "active" }, { nil, "active" },
  })
  check("measured from hits", (h:measured()), 3)
  local mm = memory()
  mm:u8(0, 1)
  h:update(mm.peek)
  mm:u8(2, 1)
  h:update(mm.peek)
  check("measured hits reset by ResetIf", (h:measured()), 0)

  local q = assert(ra.trigger("Q:0xH0000=1_M:0xH0001>=100"))
  local qm = memory()
  qm:u8(1, 40)
  q:update(qm.peek)
  check("MeasuredIf false zeroes", (q:measured()), 0)
  qm:u8(0, 1)
  q:update(qm.peek)
  check("MeasuredIf true measures", (q:measured()), 40)

  local alt = assert(ra.trigger("0xH0005=99SM:0xH0001>=100SM:0xH0002>=100"))
  local am = memory()
  am:u8(1, 30); am:u8(2, 70)
  alt:update(am.peek)
  check("measured takes max over alts", (alt:measured()), 70)

  local unk = assert(ra.trigger("M:0xH0001>=100"))
  check("measured before first frame is unknown: reported 0", (unk:measured()), 0)

  run("primed", "0xH0000=1_T:0xH0001=5", memory(), {
    { nil, "active" },
    { function(x) x:u8(0, 1) end, "primed" },
    { function(x) x:u8(1, 5) end, "triggered" },
  })
  run("primed with alts", "0xH0000=1ST:0xH0001=5S0xH0002=1_T:0xH0001=6", memory(), {
    { nil, "active" },
    { function(x) x:u8(0, 1) end, "primed" },
    { function(x) x:u8(1, 5) end, "triggered" },
  })
  run("measured paused keeps value", "M:0xH0001>=100_P:0xH0000=1", memory(), {
    { function(x) x:u8(1, 10) end, "active",
      function(tt, n) check(n .. " measured", (tt:measured()), 10) end },
    { function(x) x:u8(0, 1); x:u8(1, 50) end, "paused",
      function(tt, n) check(n .. " measured frozen", (tt:measured()), 10) end },
  })
  -- rc_evaluate_trigger: a trigger that is not paused stores the frame's measurement, and when the only group
  -- measuring is a paused alt (another alt runs) that measurement is "none", which converts to 0
  run("measured alt paused, another alt not", "0xH0000=1SM:0xH0001>=5_P:0xH0002=1S0xH0003=1", memory(), {
    { function(x) x:u8(1, 3) end, "active", function(tt, n) check(n .. " measured", (tt:measured()), 3) end },
    { function(x) x:u8(2, 1) end, "active",
      function(tt, n) check(n .. " measured none is 0", select(4, tt:measured()) and tt.measured_value, 0) end },
    { function(x) x:u8(3, 1) end, "active", function(tt, n) check(n .. " still 0", (tt:measured()), 0) end },
    { function(x) x:u8(2, 0) end, "active", function(tt, n) check(n .. " measured again", (tt:measured()), 3) end },
  })
end

---------------------------------------------------------------------------
-- Remember / recall
---------------------------------------------------------------------------

do
  local m = memory()
  m:set(0, 0, 18, 52)
  check("remember and recall", truth("K:0xH0001*2_{recall}=36", m), true)
  check("recall chains", truth("K:0xH0001_K:{recall}*3_{recall}=54", m), true)
  check("remember an AddSource chain", truth("A:0xH0001_K:0xH0002_{recall}=70", m), true)
  check("recall in a modifier", truth("K:0xH0001_A:{recall}_0xH0002=70", m), true)
  check("recall without remember is 0", truth("{recall}=0", m), true)
  check("recall in a value", value("K:0xH0002-0xH0001_M:{recall}*2", m), 68)
  check("remember is per group", truth("K:0xH0001S{recall}=0", m), true)
  -- PauseIf chains are evaluated first: a {recall} there cannot see a
  -- Remember from a non-pause chain, and conditions before the first
  -- Remember see the last Remember of the pause chains
  check("recall in PauseIf ignores non-pause Remember", truth("K:0xH0001_0xH0002=52_P:{recall}=0", m), "paused")
  check("recall before Remember sees pause Remember", truth("{recall}=18_K:0xH0001_P:{recall}=99", m), true)
  local r = assert(ra.value("K:d0xH0001_M:{recall}"))
  check("recall of a delta first frame", r:update(m.peek), 0)
  check("recall of a delta second frame", r:update(m.peek), 18)
end

---------------------------------------------------------------------------
-- alt groups
---------------------------------------------------------------------------

do
  local function set(a, v) return function(mm) mm:u8(a, v) end end
  run("alt groups", "0xH0000=1S0xH0001=1S0xH0002=1", memory(), {
    { set(1, 1), "active" },
    { set(0, 1), "triggered" },
  })
  run("alt group second", "0xH0000=1S0xH0001=1S0xH0002=1", memory(), {
    { set(0, 1), "active" },
    { set(2, 1), "triggered" },
  })
  run("empty core", "S0xH0001=1S0xH0002=1", memory(), {
    { nil, "active" }, { set(2, 1), "triggered" },
  })
  run("paused alt does not pause trigger", "0xH0000=1SP:0xH0001=1_0xH0002=1S0xH0003=1", memory(), {
    { set(1, 1), "active" },
    { set(0, 1), "active" },
    { set(3, 1), "triggered" },
  })
  run("all alts paused", "0xH0000=1SP:0xH0001=1_0xH0002=1", memory(), {
    { set(1, 1), "paused" },
  })
  run("ResetIf in alt resets core", "0xH0000=1.2.S0xH0005=0_R:0xH0001=1", memory(), {
    { set(0, 1), "active" },
    { set(1, 1), "reset" },
    { set(1, 0), "active" },
    { nil, "triggered" },
  })
end

---------------------------------------------------------------------------
-- values
---------------------------------------------------------------------------

do
  local m = memory()
  m:set(0, 0, 0x12, 0x34, 0xAB, 0x56)
  check("value sum", value("A:0xH0003*2_M:0xH0004", m), 171 * 2 + 0x56)
  check("value max", value("M:0xH0001$M:0xH0002", m), 52)
  check("value max is unsigned", value("M:0xH0001-20$M:0xH0000", m), -2)
  check("two Measured in one group is an error", type(value("M:0xH0003*2_M:0xH0004", m)), "string")
  local tally = assert(ra.value("M:0xH0000=1"))
  local tm = memory()
  check("tally 0", tally:update(tm.peek), 0)
  tm:u8(0, 1)
  check("tally 1", tally:update(tm.peek), 1)
  check("tally 2", tally:update(tm.peek), 2)
  local rv = assert(ra.value("M:0xH0000=1_R:0xH0001=1"))
  rv:update(tm.peek); rv:update(tm.peek)
  tm:u8(1, 1)
  check("value ResetIf", rv:update(tm.peek), 0)
  local pv = assert(ra.value("M:0xH0002_P:0xH0000=1"))
  local pm = memory()
  pm:u8(2, 7)
  check("value not paused", pv:update(pm.peek), 7)
  pm:u8(0, 1); pm:u8(2, 9)
  check("value paused keeps last", pv:update(pm.peek), 7)
  pv:reset()
  check("value reset", pv:update(pm.peek), 0)
  check("value with MeasuredIf", value("Q:0xH0000=1_M:0xH0001", m), 0)
  check("value measured comparison counts hits", value("M:0xH0001=18", m), 1)
end

---------------------------------------------------------------------------
-- leaderboards
---------------------------------------------------------------------------

do
  local lb = assert(ra.leaderboard("STA:0xH0000=1::CAN:0xH0001=1::SUB:0xH0002=1::VAL:0xH0003"))
  local m = memory()
  local function step(name, f, want_state, want_value)
    if f then f(m) end
    local s, v = lb:update(m.peek)
    check("lboard " .. name .. " state", s, want_state)
    check("lboard " .. name .. " value", v, want_value)
  end
  step("start true at creation", function() m:u8(0, 1) end, "inactive", 0)
  check("lboard internal state waiting", lb.state, "waiting")
  step("start false", function() m:u8(0, 0) end, "active", 0)
  step("started", function() m:u8(0, 1); m:u8(3, 10) end, "started", 10)
  step("value tracks", function() m:u8(3, 11) end, "started", 11)
  step("canceled", function() m:u8(1, 1) end, "canceled", 0)
  step("waits for start false", function() m:u8(1, 0) end, "inactive", 0)
  step("active again", function() m:u8(0, 0) end, "active", 0)
  step("restart", function() m:u8(0, 1) end, "started", 11)
  step("submit", function() m:u8(2, 1); m:u8(3, 42) end, "triggered", 42)
  step("after submit", nil, "inactive", 0)
  step("released", function() m:u8(0, 0); m:u8(2, 0) end, "active", 0)
  step("start and submit together", function() m:u8(0, 1); m:u8(2, 1) end, "triggered", 42)
  step("cancel wins over start", function() m:u8(0, 0); m:u8(2, 0) end, "active", 0)
  step("cancel blocks start", function() m:u8(0, 1); m:u8(1, 1) end, "active", 0)

  local pro = assert(ra.leaderboard("STA:0xH0000=1::CAN:0=1::SUB:0xH0002=1::VAL:0xH0003::PRO:0xH0004"))
  local pm = memory()
  pm:set(3, 5, 6)
  pro:update(pm.peek)
  pm:u8(0, 1)
  local s, v = pro:update(pm.peek)
  check("lboard progress state", s, "started")
  check("lboard progress value", v, 6)
  pm:u8(2, 1)
  s, v = pro:update(pm.peek)
  check("lboard progress submit state", s, "triggered")
  check("lboard submit uses VAL", v, 5)

  local hits = assert(ra.leaderboard("STA:0xH0000=1.2.::CAN:0=1::SUB:0=1::VAL:M:0xH0000=1"))
  local hm = memory()
  hits:update(hm.peek)
  hm:u8(0, 1)
  check("lboard start with hits 1", (hits:update(hm.peek)), "active")
  check("lboard start with hits 2", (hits:update(hm.peek)), "started")

  local neg = assert(ra.leaderboard("STA:1=1::CAN:0=1::SUB:0=1::VAL:0xH0000*-1"))
  local nm = memory()
  nm:u8(0, 5)
  check("lboard waits on always-true start", (neg:update(nm.peek)), "inactive")
  neg:reset()
  check("lboard reset", neg.state, "waiting")
  neg:set_active(false)
  check("lboard inactive", (neg:update(nm.peek)), "inactive")

  local lower = ra.leaderboard("sta:0xH0000=1::can:0=1::sub:0=1::val:0xH0000")
  check_true("lboard field names ignore case", lower ~= nil)
end

do
  -- rcheevos test_lboard.c: steps are { memory changes, state, value (optional) }
  local function lb_seq(name, def, active, steps)
    local m = memory(5)
    m:set(0, 0x00, 0x12, 0x34, 0xAB, 0x56)
    local lb, err = ra.leaderboard(def)
    if not lb then
      check("rc lboard " .. name .. " parses", err, nil)
      return
    end
    if active then lb.state = "active" end
    for i, st in ipairs(steps) do
      if st.force then lb.state = "active" end
      for a, v in pairs(st[1]) do m:u8(a, v) end
      local state, v = lb:update(m.peek)
      local label = string.format("rc lboard %s step %d", name, i)
      check(label .. " state", state, st[2])
      if st[3] then check(label .. " value", v, st[3]) end
    end
  end
  lb_seq("simple", "STA:0xH00=1::CAN:0xH00=2::SUB:0xH00=3::VAL:0xH02", false, {
    { { [0] = 3 }, "active", 0 }, { { [0] = 2 }, "active", 0 }, { { [0] = 1 }, "started", 0x34 },
    { {}, "started", 0x34 }, { { [0] = 2 }, "canceled", 0 }, { { [0] = 3 }, "active", 0 },
    { { [0] = 1 }, "started", 0x34 }, { { [0] = 3 }, "triggered", 0x34 },
  })
  lb_seq("start and cancel same frame", "STA:0xH00=0::CAN:0xH01=18::SUB:0xH00=3::VAL:0xH02", true, {
    { {}, "active" }, { { [1] = 0x13 }, "started" }, { { [1] = 0x12 }, "canceled" }, { { [1] = 0x13 }, "inactive" },
    { { [0] = 1 }, "active" }, { { [0] = 0 }, "started" },
  })
  lb_seq("start and submit same frame", "STA:0xH00=0::CAN:0xH01=10::SUB:0xH01=18::VAL:0xH02", true, {
    { {}, "triggered", 0x34 }, { { [1] = 0 }, "inactive" }, { { [0] = 1 }, "active" }, { { [0] = 0 }, "started" },
  })
  lb_seq("start and conditions", "STA:0xH00=0_0xH01=0::CAN:0xH01=10::SUB:0xH01=18::VAL:0xH02", true, {
    { {}, "active" }, { { [0] = 1, [1] = 0 }, "active" }, { { [0] = 0 }, "started" },
  })
  lb_seq("start or conditions", "STA:S0xH00=1S0xH01=1::CAN:0xH01=10::SUB:0xH01=18::VAL:0xH02", true, {
    { {}, "active" }, { { [1] = 1 }, "started" }, { { [1] = 0 }, "active", force = true },
    { { [0] = 1 }, "started" },
  })
  lb_seq("start resets value", "STA:0xH01=0::CAN:0xH01=10::SUB:0xH01=18::VAL:M:0xH02!=d0xH02", true, {
    { {}, "active", 0 }, { { [1] = 0 }, "started", 0 }, { { [2] = 0x35 }, "started", 1 },
    { { [2] = 0x36 }, "started", 2 }, { { [1] = 10 }, "canceled", 0 }, { {}, "active", 0 },
    { { [1] = 0 }, "started", 0 }, { { [2] = 0x37 }, "started", 1 },
  })
  lb_seq("cancel or conditions", "STA:0xH00=0::CAN:S0xH01=12S0xH02=12::SUB:0xH00=3::VAL:0xH02", true, {
    { {}, "started" }, { { [2] = 12 }, "canceled" }, { { [2] = 0 }, "started", force = true },
    { { [1] = 12 }, "canceled" },
  })
  lb_seq("submit and conditions", "STA:0xH00=0::CAN:0xH01=10::SUB:0xH01=18_0xH03=18::VAL:0xH02", true, {
    { {}, "started" }, { { [1] = 0, [3] = 18 }, "started" }, { { [1] = 18 }, "triggered" },
  })
  lb_seq("progress", "STA:0xH00=0::CAN:0xH00=2::SUB:0xH00=3::PRO:0xH04::VAL:0xH02", true, {
    { {}, "started", 0x56 }, { { [0] = 3 }, "triggered", 0x34 },
  })
  lb_seq("value from hitcount", "STA:0xH00=1::CAN:0xH00=2::SUB:0xH00=3::VAL:M:0xH02!=d0xH02", true, {
    { {}, "active", 0 }, { { [2] = 3 }, "active", 0 }, { { [0] = 1 }, "started", 0 }, { { [2] = 11 }, "started", 1 },
    { {}, "started", 1 }, { { [2] = 12 }, "started", 2 }, { { [0] = 2 }, "canceled", 0 },
    { { [2] = 13 }, "active", 0 }, { { [0] = 1 }, "started", 0 }, { { [2] = 11 }, "started", 1 },
  })
  lb_seq("value from addhits", "STA:0xH00=0::CAN:0xH00=2::SUB:0xH00=3::VAL:C:0xH03=1_M:0xH02=1", true, {
    { {}, "started", 0 }, { { [2] = 1 }, "started", 1 }, { { [3] = 1 }, "started", 3 }, { { [2] = 12 }, "started", 4 },
    { { [0] = 2 }, "canceled", 0 }, { {}, "active", 0 }, { { [0] = 0 }, "started", 1 },
  })
end

---------------------------------------------------------------------------
-- rich presence
---------------------------------------------------------------------------

do
  local script = table.concat({
    "// a comment line",
    "Lookup:Level",
    "0=Title",
    "1-3=World 1",
    "4,6=Even",
    "0x10=Hex",
    "*=Unknown",
    "",
    "Format:Points",
    "FormatType=SCORE",
    "",
    "Format:Time",
    "FormatType=FRAMES",
    "",
    "Display:",
    "?0xH0000=1?Paused in @Level(0xH0001)",
    "?0xH0000=2.2.?Twice",
    "@Level(0xH0001) score @Points(0xH0002) \\@home // trailing comment",
  }, "\n")
  local rp, err = ra.richpresence(script)
  check("rp parses", err, nil)
  local m = memory()
  m:u8(1, 2); m:u8(2, 52)
  check("rp default display", rp:update(m.peek), "World 1 score 000052 @home")
  m:u8(1, 5)
  check("rp lookup default", rp:update(m.peek), "Unknown score 000052 @home")
  m:u8(1, 16)
  check("rp lookup hex", rp:update(m.peek), "Hex score 000052 @home")
  m:u8(1, 6)
  check("rp lookup list", rp:update(m.peek), "Even score 000052 @home")
  m:u8(1, 0)
  check("rp lookup zero", rp:update(m.peek), "Title score 000052 @home")
  m:u8(0, 1); m:u8(1, 3)
  check("rp conditional display", rp:update(m.peek), "Paused in World 1")
  m:u8(0, 2)
  check("rp conditional with hits 1", rp:update(m.peek), "World 1 score 000052 @home")
  check("rp conditional with hits 2", rp:update(m.peek), "Twice")
  m:u8(0, 0)
  check("rp hit condition stays true", rp:update(m.peek), "Twice")
  rp:reset()
  check("rp reset", rp:update(m.peek), "World 1 score 000052 @home")

  local fm = memory()
  fm:u16(0, 3600); fm:f32(0x10, 1.5); fm:set(0x20, 72, 105, 0, 65)
  fm:u16(0x30, 0x263A); fm:u16(0x32, 0)
  local function rp1(display, mem)
    local r, e = ra.richpresence("Display:\n" .. display)
    if not r then return "error: " .. e end
    return r:update((mem or fm).peek)
  end
  check("rp Number", rp1("@Number(0x 0000)"), "3,600")
  check("rp Unsigned", rp1("@Unsigned(0xX0000)"), "3,600")
  check("rp Unformatted", rp1("@Unformatted(0x 0000)"), "3600")
  check("rp Score", rp1("@Score(0x 0000)"), "003600")
  check("rp Seconds", rp1("@Seconds(0x 0000)"), "1h00:00")
  check("rp Centiseconds", rp1("@Centiseconds(0x 0000)"), "0:36.00")
  check("rp Minutes", rp1("@Minutes(0x 0000)"), "60h00")
  check("rp SecondsAsMinutes", rp1("@SecondsAsMinutes(0x 0000)"), "1h00")
  check("rp Float1", rp1("@Float1(fF0010)"), "1.5")
  check("rp Float3", rp1("@Float3(fF0010)"), "1.500")
  check("rp Fixed2", rp1("@Fixed2(0x 0000)"), "36.00")
  check("rp ASCIIChar", rp1("@ASCIIChar(0xH0020)@ASCIIChar(0xH0021)@ASCIIChar(0xH0022)@ASCIIChar(0xH0023)!"), "Hi!")
  check("rp UnicodeChar", rp1("@UnicodeChar(0x 0030)@UnicodeChar(0x 0032)."), "\226\152\186.")
  check("rp macro with value expression", rp1("@Number(0xH0000*2_0xH0001)"), "46")
  check("rp macro with M: value", rp1("@Number(A:0xH0000_M:0xH0001)"), "30")
  check("rp unknown macro", rp1("@Nope(0xH0000)x"), "[Unknown macro]Nope(0xH0000)x")
  check("rp unterminated macro", rp1("a @Number(0xH0000"), "a @Number(0xH0000")
  check("rp escaped backslash", rp1("a\\\\b"), "a\\b")
  check("rp Format TIME", rp1("@T(0x 0000)"), "[Unknown macro]T(0x 0000)")
  local tf = ra.richpresence("Format:T\nFormatType=FRAMES\n\nDisplay:\n@T(0x 0000)")
  check("rp FRAMES format", tf:update(fm.peek), "1:00.00")
  local other = ra.richpresence("Format:O\nFormatType=OTHER\n\nDisplay:\n@O(5)")
  check("rp OTHER is score", other:update(fm.peek), "000005")
  local crlf = ra.richpresence("Lookup:L\r\n1=One\r\n\r\nDisplay:\r\n@L(1)\r\n")
  check("rp CRLF lines", crlf:update(fm.peek), "One")
  local comment_in_display = ra.richpresence("Display:\n// note\n?0xH0000=99?No\n// note\nYes")
  check("rp comments between display lines", comment_in_display:update(fm.peek), "Yes")
end

do
  -- rcheevos test_richpresence.c (numbers with rcheevos 12's thousands separators)
  local function rp_seq(name, script, ram, steps)
    local m = memory(#ram)
    m:set(0, table.unpack(ram))
    local rp, err = ra.richpresence(script)
    if not rp then
      check("rc rp " .. name .. " parses", err, nil)
      return
    end
    for i, st in ipairs(steps) do
      for a, v in pairs(st[1]) do m:u8(a, v) end
      check(string.format("rc rp %s step %d", name, i), rp:update(m.peek), st[2])
    end
  end
  local RAM = { 0x00, 0x12, 0x34, 0xAB, 0x56 }
  rp_seq("conditional simple", "Display:\n?0xH0000=0?Zero\n?0xH0000=1?One\nOther", RAM, {
    { {}, "Zero" }, { { [0] = 1 }, "One" }, { { [0] = 2 }, "Other" },
  })
  rp_seq("conditional after default", "Display:\nOther\n?0xH0000=0?Zero\n?0xH0000=1?One", RAM, {
    { {}, "Other" }, { { [0] = 1 }, "Other" },
  })
  rp_seq("conditional common condition", "Display:\n?0xH0000=0_0xH0001=18?First\n?0xH0000=0?Second\nThird", RAM, {
    { {}, "First" }, { { [1] = 1 }, "Second" }, { { [0] = 1 }, "Third" },
  })
  rp_seq("conditional whitespace text", "Display:\n?0xH0000=0?  \n?0xH0000=1?One\nOther", RAM, {
    { {}, "  " }, { { [0] = 1 }, "One" }, { { [0] = 2 }, "Other" },
  })
  rp_seq("macro value", "Format:Points\nFormatType=VALUE\n\nDisplay:\n@Points(0x 0001) Points", RAM, {
    { {}, "13,330 Points" }, { { [1] = 20 }, "13,332 Points" },
  })
  rp_seq("macro nibble", "Format:Points\nFormatType=VALUE\n\nDisplay:\n@Points(0xL0001)@Points(0xH0001) Points", RAM, {
    { {}, "218 Points" }, { { [1] = 20 }, "420 Points" },
  })
  rp_seq("macro bcd", "Format:Points\nFormatType=VALUE\n\nDisplay:\n@Points(b0xH0001) Points", RAM, {
    { {}, "12 Points" }, { { [1] = 20 }, "14 Points" },
  })
  rp_seq("macro bitcount", "Format:Bits\nFormatType=VALUE\n\nDisplay:\n@Bits(0xK0001) Bits", RAM, {
    { {}, "2 Bits" }, { { [1] = 0x76 }, "5 Bits" },
  })
  rp_seq("conditional indirect", "Display:\n?I:0xH0000_0xH0002=h01?True\nFalse\n", RAM, {
    { {}, "False" }, { { [0] = 1 }, "False" }, { { [3] = 1 }, "True" },
  })
  rp_seq("conditional measured", "Display:\n?M:0xH0000=0?Zero\n?0xH0000=1?One\nOther", RAM, {
    { {}, "Zero" }, { { [0] = 1 }, "One" }, { { [0] = 2 }, "Other" },
  })
  rp_seq("macro adjusted negative", "Format:Points\nFormatType=VALUE\n\nDisplay:\n@Points(0x 0001_V-10000) Points", RAM, {
    { {}, "3,330 Points" }, { { [2] = 7 }, "-8,190 Points" },
  })
  rp_seq("macro formula", "Format:Points\nFormatType=VALUE\n\nDisplay:\n@Points(0xH0001*100_0xH0002) Points", RAM, {
    { {}, "1,852 Points" }, { { [1] = 32 }, "3,252 Points" },
  })
  rp_seq("macro hits", "Format:Hits\nFormatType=VALUE\n\nDisplay:\n@Hits(M:0xH01=1) Hits", RAM, {
    { {}, "0 Hits" }, { { [1] = 1 }, "1 Hits" }, { {}, "2 Hits" }, { {}, "3 Hits" },
  })
  rp_seq("macro indirect", "Format:Value\nFormatType=VALUE\n\nDisplay:\nPointing at @Value(I:0xH00_M:0xH01)", RAM, {
    { {}, "Pointing at 18" }, { { [1] = 99 }, "Pointing at 99" }, { { [0] = 1 }, "Pointing at 52" },
  })
  rp_seq("macro divide by zero", "Format:Value\nFormatType=VALUE\n\nDisplay:\nResult is @Value(0xH02/0xH00)", RAM, {
    { {}, "Result is 0" }, { { [0] = 1 }, "Result is 52" }, { { [0] = 2 }, "Result is 26" },
  })
  rp_seq("macro divide by self", "Format:Value\nFormatType=VALUE\n\nDisplay:\nResult is @Value(0xH02/0xH02)", RAM, {
    { {}, "Result is 1" }, { { [2] = 255 }, "Result is 1" }, { { [2] = 0 }, "Result is 0" },
  })
  rp_seq("macro hundreds", "Format:Value\nFormatType=HUNDREDS\n\nDisplay:\nResult is @Value(0xH00)", RAM, {
    { {}, "Result is 0" }, { { [0] = 18 }, "Result is 1,800" }, { { [0] = 255 }, "Result is 25,500" },
  })
  rp_seq("macro frames", "Format:Frames\nFormatType=FRAMES\n\nDisplay:\n@Frames(0x 0001)", RAM, {
    { {}, "3:42.16" }, { { [1] = 20 }, "3:42.20" },
  })
  local L = "Lookup:Location\n0=Zero\n1=One\n\nDisplay:\nAt @Location(0xH0000)"
  rp_seq("lookup simple", L, RAM, { { {}, "At Zero" }, { { [0] = 1 }, "At One" }, { { [0] = 2 }, "At " } })
  rp_seq("lookup inline comment", "Lookup:Location\n// Zero\n0=Zero\n// One\n1=One\n//2=Two\n\nDisplay:\nAt @Location(0xH0000)",
    RAM, { { {}, "At Zero" }, { { [0] = 1 }, "At One" }, { { [0] = 2 }, "At " } })
  rp_seq("lookup hex keys", "Lookup:Location\n0x00=Zero\n0x01=One\n\nDisplay:\nAt @Location(0xH0000)", RAM, {
    { {}, "At Zero" }, { { [0] = 1 }, "At One" }, { { [0] = 2 }, "At " },
  })
  rp_seq("lookup after display", "Display:\nAt @Location(0xH0000)\n\nLookup:Location\n0=Zero\n1=One", RAM, {
    { {}, "At Zero" }, { { [0] = 1 }, "At One" },
  })
  rp_seq("lookup formula", "Lookup:Location\n0=Zero\n1=One\n\nDisplay:\nAt @Location(0xH0000*0.5)", RAM, {
    { {}, "At Zero" }, { { [0] = 1 }, "At Zero" }, { { [0] = 2 }, "At One" },
  })
  rp_seq("lookup indirect", "Lookup:Location\n0=Zero\n1=One\n\nDisplay:\nAt @Location(I:0xH0000=0_M:0xH0001)",
    { 0x00, 0x00, 0x01, 0x00, 0x56 }, { { {}, "At Zero" }, { { [0] = 1 }, "At One" }, { { [0] = 2 }, "At Zero" } })
  rp_seq("lookup repeated", "Lookup:Location\n0=Zero\n1=One\n\nDisplay:\nAt @Location(0xH0000), Near @Location(0xH0000)",
    RAM, { { {}, "At Zero, Near Zero" }, { { [0] = 2 }, "At , Near " } })
  rp_seq("lookup and value",
    "Lookup:Location\n0=Zero\n1=One\n\nFormat:Location2\nFormatType=VALUE\n\nDisplay:\nAt @Location(0xH0000), Near @Location2(0xH0001)",
    RAM, { { {}, "At Zero, Near 18" }, { { [1] = 1 }, "At Zero, Near 1" }, { { [0] = 1 }, "At One, Near 1" } })
  rp_seq("lookup negative key", "Lookup:Diff\n0=Zero\n1=One\n-1=Negative One\n\nDisplay:\nDiff=@Diff(B:0xH0000_M:0xH0001)",
    { 0, 0, 0, 0, 0 }, {
      { {}, "Diff=Zero" }, { { [1] = 1 }, "Diff=One" }, { { [0] = 1 }, "Diff=Zero" },
      { { [1] = 0 }, "Diff=Negative One" },
    })
  rp_seq("lookup whitespace", "Lookup:Location\n0= Zero \n1= One \n\nDisplay:\nAt '@Location(0xH0000)' ", RAM, {
    { {}, "At ' Zero ' " }, { { [0] = 1 }, "At ' One ' " }, { { [0] = 2 }, "At '' " },
  })
  rp_seq("lookup csv", "Lookup:OddOrEven\n0,2,4=Even\n1,3,5=Odd\n\nDisplay:\nFirst:@OddOrEven(0xH0000), Second:@OddOrEven(0xH0001)",
    { 0x00, 0x04, 0x34, 0xAB, 0x56 }, {
      { {}, "First:Even, Second:Even" }, { { [0] = 1 }, "First:Odd, Second:Even" },
      { { [0] = 2, [1] = 3 }, "First:Even, Second:Odd" },
    })
  rp_seq("lookup range", "Lookup:Place\n0-2=First\n5,3-4=Second\n\nDisplay:\nFirst:@Place(0xH0000), Second:@Place(0xH0001)",
    { 0x00, 0x04, 0x34, 0xAB, 0x56 }, {
      { {}, "First:First, Second:Second" }, { { [0] = 5, [1] = 2 }, "First:Second, Second:First" },
    })
  parse_error("richpresence", "Display:\n?0xH0000=0?Zero", "Missing display string")
  parse_error("richpresence", "Display:\n?BANANA?Zero\nDefault", "Invalid memory operand")
end

---------------------------------------------------------------------------
-- ra.format
---------------------------------------------------------------------------

do
  check("format VALUE", ra.format(12345, "VALUE"), "12,345")
  check("format VALUE negative", ra.format(-1234567, "VALUE"), "-1,234,567")
  check("format VALUE u32 is signed", ra.format(0xFFFFFFFF, "VALUE"), "-1")
  check("format SCORE", ra.format(12345, "SCORE"), "012345")
  check("format POINTS", ra.format(7, "POINTS"), "000007")
  check("format FRAMES", ra.format(3600, "FRAMES"), "1:00.00")
  check("format TIME", ra.format(90, "TIME"), "0:01.50")
  check("format SECS", ra.format(3661, "SECS"), "1h01:01")
  check("format SECS short", ra.format(125, "SECS"), "2:05")
  check("format TIMESECS", ra.format(59, "TIMESECS"), "0:59")
  check("format MILLISECS", ra.format(12345, "MILLISECS"), "2:03.45")
  check("format MINUTES", ra.format(125, "MINUTES"), "2h05")
  check("format SECS_AS_MINS", ra.format(7500, "SECS_AS_MINS"), "2h05")
  check("format FLOAT2", ra.format(1.5, "FLOAT2"), "1.50")
  check("format FLOAT1 commas", ra.format(12345.25, "FLOAT1"), "12,345.2")
  check("format FIXED1", ra.format(-15, "FIXED1"), "-1.5")
  check("format FIXED2", ra.format(12345, "FIXED2"), "123.45")
  check("format FIXED3", ra.format(5, "FIXED3"), "0.005")
  check("format TENS", ra.format(5, "TENS"), "50")
  check("format HUNDREDS zero", ra.format(0, "HUNDREDS"), "0")
  check("format THOUSANDS", ra.format(1234, "THOUSANDS"), "1,234,000")
  check("format UNSIGNED", ra.format(0xFFFFFFFF, "UNSIGNED"), "4,294,967,295")
  check("format unknown is VALUE", ra.format(1000, "BOGUS"), "1,000")
end

---------------------------------------------------------------------------
-- parse errors
---------------------------------------------------------------------------

do
  parse_error("trigger", "0xH0001", "Invalid operator")
  parse_error("trigger", "0xZ0001=1", "Invalid memory operand")
  parse_error("trigger", "X:0xH0001=1", "Invalid condition type")
  parse_error("trigger", "0xH0001=1.3", "Invalid required hits")
  parse_error("trigger", "0xH0001=1(3", "Invalid required hits")
  parse_error("trigger", "0xH0001!1", "Invalid operator")
  parse_error("trigger", "0xH0001~1", "Invalid operator")
  parse_error("trigger", "fZ0001=1", "Invalid floating-point operand")
  parse_error("trigger", "0xH0001=f1.", "Invalid floating-point operand")
  parse_error("trigger", "H0x12=1", "Invalid constant operand")
  parse_error("trigger", "0x0x12=1", "Invalid memory operand")
  parse_error("trigger", "ABCD=1", "Invalid memory operand")
  parse_error("trigger", "M:0xH0001=1_M:0xH0002=1", "Multiple measured targets")
  parse_error("trigger", "M:0xH0001=10SM:0xH0002=20", "Multiple measured targets")
  parse_error("trigger", "M:0xH0001=0xH0002", "Invalid measured target")
  parse_error("trigger", "K:0xH0001=1", "Invalid operator")
  parse_error("trigger", "{foo}=1", "Unknown variable name")
  parse_error("trigger", "{}=1", "Invalid variable name")
  parse_error("trigger", "0xH0001=1_", "Invalid memory operand")
  parse_error("trigger", "0xH0001=1_0xH0002=", "Invalid memory operand")
  parse_error("trigger", "0xH0001=1_0xZ02=1", "at position 11")
  parse_error("value", "A:0xH0001", "Missing measured flag")
  parse_error("value", "M:0xH0001SM:0xH0002", "Invalid flag in value expression")
  parse_error("value", "A:0xH0001_0xH0002=1_M:0xH0003", "Invalid flag in value expression")
  parse_error("value", "T:0xH0001=1_M:0xH0003", "Invalid flag in value expression")
  parse_error("value", "0xH0001*", "Invalid memory operand")
  parse_error("leaderboard", "STA:0xH0000=1::CAN:0=1::SUB:0=1", "Missing value expression")
  parse_error("leaderboard", "CAN:0=1::SUB:0=1::VAL:0xH0001", "Missing start condition")
  parse_error("leaderboard", "STA:0=1::SUB:0=1::VAL:0xH0001", "Missing cancel condition")
  parse_error("leaderboard", "STA:0=1::CAN:0=1::VAL:0xH0001", "Missing submit condition")
  parse_error("leaderboard", "STA:0=1::STA:0=1::CAN:0=1::SUB:0=1::VAL:0xH0001", "Duplicated start condition")
  parse_error("leaderboard", "STA:0=1::CAN:0=1::SUB:0=1::VAL:0xH0001::XYZ:1", "Invalid field in leaderboard")
  parse_error("leaderboard", "STA:0=1:CAN:0=1::SUB:0=1::VAL:0xH0001", "Invalid field in leaderboard")
  parse_error("leaderboard", "STA:0xH01::CAN:0=1::SUB:0=1::VAL:0xH0001", "Invalid operator")
  parse_error("richpresence", "", "Missing display string")
  parse_error("richpresence", "Lookup:L\n1=One\n", "Missing display string")
  parse_error("richpresence", "Display:\n?0xH0000?x\ny", "Invalid operator")
  parse_error("richpresence", "Lookup:L\nabc=1\n\nDisplay:\nx", "Invalid constant operand")
  parse_error("richpresence", "Lookup:L\n1=A\n1=B\n\nDisplay:\nx", "Duplicated lookup value")
  parse_error("richpresence", "Display:\n@Number", "Missing value expression")
  parse_error("richpresence", "Display:\n@Number(0xZ1)", "Invalid memory operand")
  parse_error("richpresence", "Display:\n?0xH0000=1?x\n@Number(0xZ1)", "line 3")
  check_true("rp lines after the default display are ignored", ra.richpresence("Display:\nx\n@Number(0xZ1)") ~= nil)
  local t, err = ra.trigger(42)
  check("non-string trigger", t, nil)
  check_true("non-string trigger message", type(err) == "string")
  check_true("legacy AddSource comparison accepted", ra.trigger("A:0xH0001=1_0xH0002=2") ~= nil)
  check_true("lower case flags accepted", ra.trigger("p:0xH0001=1_0xH0002=2") ~= nil)
  check_true("lower case alt separator", ra.trigger("0xH0001=1s0xH0002=2") ~= nil)
end

---------------------------------------------------------------------------
-- scenarios ported from rcheevos' test suite (test_trigger.c, test_condset.c):
-- each step sets memory, evaluates once as rc_test_trigger does (the trigger
-- is forced active first) and checks the result, hit counts and the raw
-- measured value.  hits: a flat list for the core group's conditions in
-- order, or { group, index, count } triples.
---------------------------------------------------------------------------

-- Runs each scenario twice: with exact hit counts (checked), and compiled
-- the default way (results and measured values must be identical).
local function rc_case(name, def, ram, steps, exact)
  if exact == nil then rc_case(name, def, ram, steps, false) end
  exact = exact ~= false
  local m = memory(#ram)
  m:set(0, table.unpack(ram))
  local t, err = ra.trigger(def, { exact_hits = exact })
  if not t then
    check(name .. " parses", err, nil)
    return
  end
  for i, st in ipairs(steps) do
    for a, v in pairs(st[1]) do m:u8(a, v) end
    t.state = "active"
    local label = string.format("rc %s%s step %d", name, exact and "" or " (default mode)", i)
    check(label .. " result", t:update(m.peek) == "triggered", st[2])
    local hits = exact and st[3]
    if hits then
      for j, h in ipairs(hits) do
        if type(h) == "table" then
          check(string.format("%s hits(%d,%d)", label, h[1], h[2]), t:group_hits(h[1], h[2]), h[3])
        else
          check(string.format("%s hits(0,%d)", label, j - 1), t:group_hits(0, j - 1), h)
        end
      end
    end
    if st[4] then check(label .. " measured", t.measured_value, st[4]) end
  end
end

do
  local RAM = { 0x00, 0x12, 0x34, 0xAB, 0x56 }
  local function g3(a, b, c) return { { 0, 0, a }, { 1, 0, b }, { 2, 0, c } } end
  local function a2(a, b) return { { 1, 0, a }, { 2, 0, b } } end
  rc_case("alt groups", "0xH0001=16S0xH0002=52S0xL0004=6", RAM, {
    { {}, false, g3(0, 1, 1) }, { { [1] = 16 }, true, g3(1, 2, 2) }, { { [4] = 0 }, true, g3(2, 3, 2) },
    { { [2] = 0 }, false, g3(3, 3, 2) }, { { [4] = 6 }, true, g3(4, 3, 3) },
  })
  rc_case("empty core", "S0xH0002=2S0xL0004=4", RAM, {
    { {}, false, a2(0, 0) }, { { [2] = 2 }, true, a2(1, 0) }, { { [4] = 4 }, true, a2(2, 1) },
    { { [2] = 0 }, true, a2(2, 2) },
  })
  rc_case("resetif in alt group", "0xH0001=18(1)_R:0xH0000=1S0xH0002=52(1)S0xL0004=6(1)_R:0xH0000=2", RAM, {
    { {}, true, g3(1, 1, 1) }, { { [0] = 1 }, false, g3(0, 0, 0) }, { { [0] = 0 }, true, g3(1, 1, 1) },
    { { [0] = 2 }, false, g3(0, 0, 0) },
  })
  rc_case("pauseif in alt group", "0xH0001=18_P:0xH0000=1S0xH0002=52S0xL0004=6_P:0xH0000=2", RAM, {
    { {}, true, g3(1, 1, 1) }, { { [0] = 1 }, false, g3(1, 2, 2) }, { { [0] = 0 }, true, g3(2, 3, 3) },
    { { [0] = 2 }, true, g3(3, 4, 3) },
  })
  rc_case("pauseif resetif in alt group", "0xH0000=0.1._0xH0003=2SP:0xH0001=18_R:0xH0002=52", RAM, {
    { {}, false, { 1 } }, { { [0] = 1 }, false, { 1 } }, { { [1] = 16 }, false, { 0 } },
    { { [0] = 0, [1] = 18 }, false, { 1 } }, { { [3] = 2 }, false, { 1 } }, { { [1] = 16 }, false, { 0 } },
    { { [2] = 30 }, true, { 1 } },
  })
  local function ph(a, b, c, d) return { { 0, 0, a }, { 0, 1, b }, { 0, 2, c }, { 1, 0, d } } end
  rc_case("pauseif hitcount with reset", "0xH0001=18_P:0xH0002=52.1._R:0xH0003=1SR:0xH0003=2", RAM, {
    { {}, false, ph(0, 1, 0, 0) }, { { [2] = 0 }, false, ph(0, 1, 0, 0) }, { { [3] = 1 }, false, ph(0, 1, 0, 0) },
    { { [3] = 2 }, false, ph(0, 0, 0, 0) }, { { [3] = 3 }, true, ph(1, 0, 0, 0) },
  })
  rc_case("measured", "M:0xH0002=52(3)", RAM, {
    { {}, false, { 1 }, 1 }, { {}, false, { 2 }, 2 }, { {}, true, { 3 }, 3 }, { {}, true, { 3 }, 3 },
  })
  rc_case("measured comparison", "M:0xH0002>=80", RAM, {
    { {}, false, { 0 }, 0x34 }, { { [2] = 79 }, false, { 0 }, 79 }, { { [2] = 80 }, true, { 1 }, 80 },
    { { [2] = 255 }, true, { 2 }, 255 },
  })
  rc_case("measured addhits", "C:0xH0001=10_M:0xH0002=10(5)", RAM, {
    { {}, false, { 0, 0 }, 0 }, { { [2] = 10 }, false, { 0, 1 }, 1 }, { { [1] = 10 }, false, { 1, 2 }, 3 },
    { { [2] = 0 }, false, { 2, 2 }, 4 }, { { [1] = 0 }, false, { 2, 2 }, 4 }, { { [1] = 10 }, true, { 3, 2 }, 5 },
  })
  rc_case("measured multiple", "SM:0xH0002=52(3)SM:0xH0003=17(3)", RAM, {
    { {}, false, a2(1, 0), 1 }, { { [2] = 9, [3] = 17 }, false, a2(1, 1), 1 }, { {}, false, a2(1, 2), 2 },
    { { [2] = 52, [3] = 8 }, false, a2(2, 2), 2 }, { {}, true, a2(3, 2), 3 }, { { [3] = 17 }, true, a2(3, 3), 3 },
    { {}, true, a2(3, 3), 3 },
  })
  rc_case("measured multiple with hitcount in core", "0xH0001=18(7)SM:0xH0002=52(3)SM:0xH0003=17(3)", RAM, {
    { {}, false, g3(1, 1, 0), 1 }, { { [2] = 9, [3] = 17 }, false, g3(2, 1, 1), 1 },
  })
  rc_case("measured while paused", "M:0xH0002=52(3)_P:0xH0001=1", RAM, {
    { {}, false, nil, 1 }, { {}, false, nil, 2 }, { { [1] = 1 }, false, nil, 2 }, { { [1] = 2 }, true, nil, 3 },
  })
  rc_case("measured while paused multiple", "SM:0xH0002=52(6)_P:0xM0001=1SM:0xH0000=0(6)_P:0xN0001=1",
    { 0x00, 0x00, 0x34, 0xAB, 0x56 }, {
      { {}, false, a2(1, 1), 1 }, { { [1] = 1 }, false, a2(1, 2), 2 }, { {}, false, a2(1, 3), 3 },
      { { [1] = 3 }, false, a2(1, 3), 3 }, { { [1] = 2 }, false, a2(2, 3), 2 }, { { [1] = 3 }, false, a2(2, 3), 2 },
      { { [1] = 0 }, false, a2(3, 4), 4 },
    })
  rc_case("measured reset hitcount", "M:0xH0002=52(3)_P:0xH0001=1_R:0xH0003=1", RAM, {
    { {}, false, nil, 1 }, { {}, false, nil, 2 }, { { [1] = 1 }, false, nil, 2 }, { { [3] = 1 }, false, nil, 2 },
    { { [1] = 2 }, false, nil, 0 }, { { [3] = 0 }, false, nil, 1 }, { { [3] = 1 }, false, nil, 0 },
  })
  rc_case("measured reset comparison", "M:0xH0002>=10_P:0xH0001=1_R:0xH0003=1", { 0x00, 0x12, 0x02, 0xAB, 0x56 }, {
    { {}, false, nil, 2 }, { { [2] = 3 }, false, nil, 3 }, { { [1] = 1, [2] = 4 }, false, nil, 3 },
    { { [3] = 1 }, false, nil, 3 }, { { [1] = 2 }, false, nil, 4 }, { { [3] = 0, [2] = 5 }, false, nil, 5 },
    { { [3] = 1 }, false, nil, 5 },
  })
  rc_case("measured if", "M:0xH0002=52(3)_Q:0xH0000=1", RAM, {
    { {}, false, { 1 }, 0 }, { { [0] = 1 }, false, { 2 }, 2 }, { { [0] = 0 }, false, { 3 }, 0 },
    { { [0] = 1 }, true, { 3 }, 3 },
  })
  rc_case("measured if comparison", "M:0xH0002>=80_Q:0xH0000=1", RAM, {
    { {}, false, { 0 }, 0 }, { { [0] = 1 }, false, { 0 }, 0x34 }, { { [2] = 79 }, false, { 0 }, 79 },
    { { [0] = 0, [2] = 80 }, false, { 1 }, 0 }, { { [0] = 1 }, true, { 2 }, 80 },
  })
  rc_case("hitcount target", "0xH0001=20(2)_0xH0002=52", RAM, {
    { {}, false, { 0, 1 } }, { { [1] = 20 }, false, { 1, 2 } }, { {}, true, { 2, 3 } }, { {}, true, { 2, 4 } },
    { { [1] = 18 }, true, { 2, 5 } },
  })
  rc_case("pauseif", "0xH0001=18_P:0xH0002=52_P:0xL0x0004=6", RAM, {
    { {}, false, { 0, 1, 0 } }, { { [2] = 0 }, false, { 0, 0, 1 } }, { { [4] = 0 }, true, { 1, 0, 0 } },
  })
  rc_case("pauseif hitcount one", "0xH0001=18_P:0xH0002=52.1.", RAM, {
    { {}, false, { 0, 1 } }, { { [2] = 0 }, false, { 0, 1 } },
  })
  rc_case("pauseif hitcount two", "0xH0001=18_P:0xH0002=52.2.", RAM, {
    { {}, true, { 1, 1 } }, { {}, false, { 1, 2 } }, { { [2] = 0 }, false, { 1, 2 } },
  })
  rc_case("pauseif resetnextif", "0xH0002=0_0xH0001=18_Z:0xH0003=1_N:0xH0000=0_P:0xH0002=25.1.", RAM, {
    { {}, false, { 0, 1, 0, 1, 0 } }, { { [2] = 25 }, false, { 0, 1, 0, 2, 1 } },
    { { [2] = 10 }, false, { 0, 1, 0, 3, 1 } }, { { [3] = 1 }, false, { 0, 2, 1, 0, 0 } },
    { { [2] = 0 }, true, { 1, 3, 2, 0, 0 } },
  })
  rc_case("pauseif does not increment hits", "0xH0001=18(2)_0xH0002=52_P:0xL0004=4", RAM, {
    { {}, false, { 1, 1, 0 } }, { { [4] = 0x54 }, false, { 1, 1, 1 } }, { { [4] = 0x56 }, true, { 2, 2, 0 } },
    { { [4] = 0x54 }, false, { 2, 2, 1 } }, { { [4] = 0x56 }, true, { 2, 3, 0 } },
  })
  rc_case("pauseif delta updated", "P:0xH0001=1_d0xH0002=60", { 0x00, 0x00, 0x34, 0xAB, 0x56 }, {
    { {}, false, { 0, 0 } }, { { [1] = 1, [2] = 44 }, false, { 1, 0 } }, { { [2] = 60 }, false, { 2, 0 } },
    { { [1] = 0, [2] = 97 }, true, { 0, 1 } },
  })
  local function pi(a, b) return { { 0, 0, a }, { 0, 2, b } } end
  rc_case("pauseif indirect delta updated", "P:0xH0001=1_I:0xH0000_d0xH0002=60", { 0x00, 0x00, 0x34, 0x3C, 0x56 }, {
    { {}, false, pi(0, 0) }, { { [1] = 1, [2] = 44 }, false, pi(1, 0) }, { { [0] = 1 }, false, pi(2, 0) },
    { { [1] = 0, [3] = 97 }, true, pi(0, 1) },
  })
  rc_case("resetnextif chain", "Z:0xL0004=4_Z:0xH0001=1_0xU0003=10(3)_0xH0002=52.1.", RAM, {
    { {}, false, { 0, 0, 1, 1 } }, { { [1] = 1 }, false, { 0, 1, 0, 1 } }, { { [4] = 4 }, false, { 1, 0, 1, 1 } },
    { { [1] = 2 }, false, { 2, 0, 2, 1 } }, { { [4] = 5 }, true, { 2, 0, 3, 1 } },
  })
  rc_case("resetnextif chain andnext", "N:0xH0000=0_Z:0xH0001=1_N:0xH0000=1_Z:0xH0001=1_0xH0002=1.5.",
    { 0x00, 0x00, 0x01 }, {
      { {}, false, { 1, 0, 0, 0, 1 } }, { { [0] = 1, [1] = 1 }, false, { 1, 0, 1, 1, 0 } },
      { { [1] = 0 }, false, { 1, 0, 2, 1, 1 } }, { { [0] = 0, [1] = 1 }, false, { 2, 1, 0, 0, 2 } },
    })
  rc_case("resetnextif chain with hits", "Z:0xL0004=4_Z:0xH0001=1(2)_0xU0003=10(8)_0xH0002=52.1.", RAM, {
    { {}, false, { 0, 0, 1, 1 } }, { { [1] = 1 }, false, { 0, 1, 2, 1 } }, { { [4] = 4 }, false, { 1, 0, 3, 1 } },
    { { [1] = 2 }, false, { 2, 0, 4, 1 } }, { { [4] = 5 }, false, { 2, 0, 5, 1 } },
    { { [1] = 1 }, false, { 2, 1, 6, 1 } }, { {}, false, { 2, 2, 0, 1 } }, { { [1] = 2 }, false, { 2, 2, 0, 1 } },
    { { [4] = 4 }, false, { 3, 0, 1, 1 } },
  })
  rc_case("resetnextif pause lock", "Z:0xH0002=1_P:0xH0001=1(1)", RAM, {
    { {}, true, { 0, 0 } }, { { [2] = 1 }, true, { 1, 0 } }, { { [1] = 1 }, true, { 2, 0 } },
    { { [2] = 2 }, false, { 2, 1 } }, { { [2] = 1 }, true, { 3, 0 } }, { { [2] = 2 }, false, { 3, 1 } },
    { { [1] = 2 }, false, { 3, 1 } }, { { [2] = 1 }, true, { 4, 0 } },
  })
  rc_case("addsource", "A:0xH0001=0_0xH0002=22", RAM, {
    { {}, false, { 0, 0 } }, { { [2] = 4 }, true, { 0, 1 } }, { { [1] = 0 }, false, { 0, 1 } },
    { { [2] = 22 }, true, { 0, 2 } },
  })
  rc_case("addsource overflow", "A:0xH0001=0_0xH0002=22", RAM, {
    { { [2] = 0xF0 }, false }, { { [1] = 0x32 }, false },
  })
  for _, def in ipairs({ "B:0xH0002=0_0xH0001=14", "B:0xH0002=0xH0000_0xH0001=14" }) do
    rc_case("subsource " .. def, def, RAM, {
      { {}, false, { 0, 0 } }, { { [2] = 4 }, true, { 0, 1 } }, { { [1] = 0 }, false, { 0, 1 } },
      { { [2] = 14 }, false, { 0, 1 } }, { { [1] = 28 }, true, { 0, 2 } },
    })
  end
  rc_case("subsource overflow", "B:0xH0002=0_0xH0001=14", RAM, {
    { { [2] = 8 }, false }, { { [1] = 0xFA }, false },
  })
  rc_case("addsource subsource", "A:0xH0001=0_B:0xL0002=0_0xL0004=14", RAM, {
    { {}, false, { 0, 0, 0 } }, { { [1] = 12 }, true, { 0, 0, 1 } }, { { [1] = 0 }, false, { 0, 0, 1 } },
    { { [4] = 0x12 }, false, { 0, 0, 1 } }, { { [2] = 1, [4] = 15 }, true, { 0, 0, 2 } },
  })
  rc_case("addsource multiply", "A:0xH0001*3_0xH0002=22", { 0x00, 0x06, 0x34, 0xAB, 0x56 }, {
    { {}, false, { 0, 0 } }, { { [2] = 4 }, true, { 0, 1 } },
  })
end

do
  -- rcheevos test_value.c; ram 00 12 34 AB 56 then the float pi
  local m = memory(9)
  m:set(0, 0x00, 0x12, 0x34, 0xAB, 0x56, 0xDB, 0x0F, 0x49, 0x40)
  local cases_v = {
    { "V6", 6 }, { "V6*2", 12 }, { "V6*0.5", 3 }, { "V-6", -6 }, { "V-6*2", -12 },
    { "0xH0001_0xH0002", 0x12 + 0x34 },
    { "0xH0001*100_0xH0002*0.5_0xL0003", 0x12 * 100 + 0x34 // 2 + 0x0B },
    { "0xH0001$0xH0002", 0x34 }, { "0xH0001_0xH0004*3$0xH0002*0xL0003", 0x34 * 0x0B },
    { "0xH001_V-20", 0x12 - 20 }, { "0xH0001_H10", 0x12 + 0x10 },
    { "0xh0000*-1_99_0xh0001*-100_5900", 4199 }, { "v5900_0xh0000*-1.0_0xh0001*-100.0", 4100 },
    { "v5900_0xh0000*v-1_0xh0001*v-100", 4100 },
    { "0xH01*4", 0x12 * 4 }, { "0xH01*0.5", 0x12 // 2 }, { "0xH01/2", 0x12 // 2 }, { "0xH01*0xH02", 0x12 * 0x34 },
    { "0xH01*0xT02", 0 }, { "0xH01*~0xT02", 0x12 }, { "0xH01*~0xH02", 0x12 * (0x34 ~ 0xFF) },
    { "B0xH01", 12 }, { "B0x00001", 3412 }, { "B0xH03", 111 },
    { "M:0xH0002", 0x34 }, { "A:0xH0001_M:0xH0002", 0x12 + 0x34 }, { "B:0xH0001_M:0xH0002", 0x34 - 0x12 },
    { "C:0xH0000=0_M:0xH0002=52", 2 }, { "C:0xH0000=0_D:0xH0001=18_M:0xH0002=52", 1 },
    { "N:0xH0000=0_M:0xH0002=52", 1 }, { "O:0xH0000=0_M:0xH0002=0", 1 }, { "I:0xH0000_M:0xH0002", 0x34 },
    { "M:0xH0002*2", 0x34 * 2 }, { "M:0xH0002/2", 0x34 // 2 }, { "M:0xH0002%2", 0x34 % 2 },
    { "M:0xH0001%3", 0x12 % 3 }, { "A:0xH0001*2_A:0xH0002*2_M:0", 0x12 * 2 + 0x34 * 2 },
    { "A:0xH0001%3_A:0xH0002%4_M:0", 0x12 % 3 + 0x34 % 4 }, { "A:0xH0001*2_M:0xH0002*2", 0x12 * 2 + 0x34 * 2 },
    { "A:0xH0001/2_M:0xH0002/2", 0x12 // 2 + 0x34 // 2 }, { "A:0xH0001%3_M:0xH0002%4", 0x12 % 3 + 0x34 % 4 },
    { "A:0xH0001&15_M:0xH0002&15", (0x12 & 15) + (0x34 & 15) },
    { "M:fF0005", 3 }, { "A:fF0005*10_M:0", 31 }, { "A:fF0005*f11.2_M:f6.9", 42 },
    { "A:fF0005*f5.555555555555555555555555555555555555555555555556_M:f6.9", 24 },
    { "M:0xH0002!=d0xH0002", 1 },
    { "A:0xH0001/2_M:0", 9 }, { "A:0xH0001/5_M:0", 3 }, { "A:0xH0002/0xH0001_M:0", 2 },
    { "A:0xH0001/0xH0002_M:0", 0 }, { "A:0xH0001/0xH0001_M:0", 1 }, { "A:0xH0001/0xH0000_M:0", 0 },
    { "A:0xH0000/0xH0000_M:0", 0 }, { "A:0xH0000/0xH0001_M:0", 0 },
    { "A:0xH0001%3_M:0", 0 }, { "A:0xH0001%5_M:0", 3 }, { "A:0xH0001%7_M:0", 4 }, { "A:0xH0002%0xH0001_M:0", 16 },
    { "A:0xH0001%0xH0002_M:0", 18 }, { "A:0xH0001%0xH0001_M:0", 0 }, { "A:0xH0001%0xH0000_M:0", 0 },
    { "A:0xH0000%0xH0000_M:0", 0 }, { "A:0xH0000%0xH0001_M:0", 0 }, { "A:f5.5%f2.0_M:0", 1 },
    { "A:f123.7%f5.65_M:0", 5 }, { "A:0xH01%f7.5_A:0xH02%f5.5_M:0", 5 },
    { "0xH03/2_0xH03/2", 0xAA }, { "0xH03/f2.0_0xH03/f2.0", 0xAB }, { "0xH03*0.5_0xH03*0.5", 0xAB },
    { "A:0xH03/2_A:0xH03/2_M:0", 0xAA }, { "A:0xH03/f2.0_A:0xH03/f2.0_M:0", 0xAB },
    { "Q:0xH0001!=0_M:0xH0002", 0x34 }, { "Q:0xH0001=0_M:0xH0002", 0 }, { "Q:0xH0001!=0_M:1", 1 },
    { "0xX0001*0xH0004", 0x1D837E0C },
  }
  for _, c in ipairs(cases_v) do check("rc value " .. c[1], value(c[1], m), c[2]) end
  parse_error("value", "M:0xH0002=6SM:0xH0003=6", "Invalid flag in value expression")
  parse_error("value", "SM:0xH0002=6SM:0xH0003=6", "Invalid memory operand")
  parse_error("value", "T:0xH0002=6", "Invalid flag in value expression")
  parse_error("value", "A:0xH0002_0xH0003>10.99.", "Invalid flag in value expression")
  parse_error("value", "A:0xH0002_A:0xH0003", "Missing measured flag")

  local function seq(name, def, steps)
    local vm = memory(5)
    vm:set(0, 0x00, 0x12, 0x34, 0xAB, 0x56)
    local v = assert(ra.value(def))
    for i, st in ipairs(steps) do
      st[1](vm)
      check(string.format("rc value %s step %d", name, i), v:update(vm.peek), st[2])
    end
  end
  local function nop() end
  local function inc2(x) x.b[2] = x.b[2] + 1 end
  seq("with pause", "P:0xH0003=hAB_M:0xH0002!=d0xH0002", {
    { nop, 0 }, { inc2, 0 }, { function(x) x.b[3] = 0 end, 0 }, { inc2, 1 }, { function(x) x.b[3] = 0xAB end, 1 },
    { inc2, 1 }, { function(x) x.b[3] = 0 end, 1 }, { inc2, 2 },
  })
  seq("with reset", "R:0xH0003=hAB_M:0xH0002!=d0xH0002", {
    { nop, 0 }, { inc2, 0 }, { function(x) x.b[3] = 0 end, 0 }, { inc2, 1 }, { function(x) x.b[3] = 0xAB end, 0 },
    { inc2, 0 }, { function(x) x.b[3] = 0 end, 0 }, { inc2, 1 },
  })
end

---------------------------------------------------------------------------
-- differential check: random triggers compiled the default (optimised) way
-- must behave exactly like the same triggers with full hit bookkeeping
---------------------------------------------------------------------------

do
  local seed = 12345
  local function rnd(n) -- small deterministic LCG, independent of math.random
    seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
    return seed % n
  end
  local FLAGS = { "", "", "", "", "P:", "R:", "Z:", "C:", "D:", "N:", "O:", "T:", "A:", "B:", "K:", "I:" }
  local OPS = { "=", "!=", "<", "<=", ">", ">=" }
  local function operand()
    local r = rnd(10)
    if r < 5 then return string.format("0xH%04X", rnd(8)) end
    if r < 7 then return string.format("d0xH%04X", rnd(8)) end
    if r == 7 then return string.format("p0xL%04X", rnd(8)) end
    if r == 8 then return "{recall}" end
    return tostring(rnd(4))
  end
  local function condition()
    local flag = FLAGS[rnd(#FLAGS) + 1]
    if flag == "A:" or flag == "B:" or flag == "K:" or flag == "I:" then
      if flag == "I:" then return "I:0xH0007" end
      return flag .. operand() .. (rnd(2) == 0 and "*2" or "")
    end
    local hits = rnd(4) == 0 and string.format(".%d.", rnd(4) + 1) or ""
    return flag .. operand() .. OPS[rnd(#OPS) + 1] .. operand() .. hits
  end
  local function group()
    local parts = {}
    for i = 1, rnd(5) + 1 do parts[i] = condition() end
    return table.concat(parts, "_")
  end
  local mismatches, compared = 0, 0
  for n = 1, 150 do
    local def = group()
    for _ = 1, rnd(3) do def = def .. "S" .. group() end
    if rnd(3) == 0 then def = def .. "_M:0xH0001>=" .. (rnd(5) + 1) end
    local exact = ra.trigger(def, { exact_hits = true })
    local fast = ra.trigger(def)
    if (exact == nil) ~= (fast == nil) then
      mismatches = mismatches + 1
    elseif exact then
      local m = memory(16)
      for f = 1, 40 do
        for _ = 1, 2 do m:u8(rnd(8), rnd(4)) end
        local a, b = exact:update(m.peek), fast:update(m.peek)
        local av, at = exact:measured()
        local bv, bt = fast:measured()
        compared = compared + 1
        if a ~= b or av ~= bv or at ~= bt or exact.state ~= fast.state then
          mismatches = mismatches + 1
          print(string.format("  differential #%d frame %d %q: exact %s/%s/%s, default %s/%s/%s",
            n, f, def, a, exact.state, av, b, fast.state, bv))
          break
        end
      end
    end
  end
  check(string.format("default compilation matches exact bookkeeping (%d frames compared)", compared), mismatches, 0)
  if os.getenv("ACH_VERBOSE") then print("differential frames compared", compared) end
end

---------------------------------------------------------------------------
-- typed-value corner cases (rcheevos value.c: rc_typed_value_negate negates
-- a signed 32-bit integer, so 0x80000000 stays INT_MIN; the float it then
-- converts to is -2^31, not +2^31)
---------------------------------------------------------------------------

do
  local m = memory(16)
  m:u32(0, 0x80000000)
  m:f32(4, 100.75)
  -- -2^31 + 100.75 = -2147483547.25, the nearest single is -2147483520
  check("SubSource of INT_MIN into a float", value("B:0xX0000_M:f100.75", m), -2147483520)
  check("float minus INT_MIN", value("A:f100.75-0xX0000_M:8", m), -2147483520)
  check("float accumulator minus INT_MIN", value("A:fF0004_B:0xX0000_M:0", m), -2147483520)
  check("SubSource INT_MIN then float leaf", value("B:0xX0000_M:fF0004", m), -2147483520)
  m:u32(0, 0x80000001)
  check("SubSource near INT_MIN (+2147483647 as a float is 2^31)", value("B:0xX0000_M:f100.75", m), -2147483648)
end

---------------------------------------------------------------------------
-- a {recall} before a pause chain's Remember (rcheevos resolves it to that
-- Remember after parsing) reads a combined value created after its own:
-- rcheevos updates combined values in creation order, so it sees the
-- Remember's value of the previous frame
---------------------------------------------------------------------------

do
  local m = memory(16)
  local v = assert(ra.value("M:{recall}*4_K:0xH0001*2_P:0xH0002=1"))
  local got = {}
  for _, x in ipairs({ 5, 7, 7, 1 }) do
    m:u8(1, x)
    got[#got + 1] = v:update(m.peek)
  end
  check("forward recall: the Remember's value one frame late", table.concat(got, " "), "0 40 56 56")
  local t = assert(ra.trigger("A:{recall}_0xH0003=10_K:0xH0001*2_P:0xH0002=1"))
  got = {}
  for _, x in ipairs({ 5, 7, 7 }) do
    m:u8(1, x)
    got[#got + 1] = t:update(m.peek)
  end
  check("forward recall in a trigger: 10 is last frame's 5 * 2", table.concat(got, " "), "active triggered inactive")
  -- the pointer of an AddAddress read is resolved the same way (rcheevos fixes up every
  -- modified memref a later condition reads, pointer reads included)
  local p = memory(16)
  p:u8(12, 5); p:u8(5, 0x2A); p:u8(0, 0x11)
  check("a pointer from a pause chain's Remember", value("I:{recall}_M:0xH0000_K:0xH000c_P:0xH000d=1", p), 0x2A)
end

---------------------------------------------------------------------------
-- a combined float value changes when its 32 bits change (rcheevos keeps the
-- bits): NaN stays NaN (decoded NaNs keep only their sign), 0.0 and -0.0
-- differ; the prior of "A:pX_M:pY" (the prior of the sum) shows it
---------------------------------------------------------------------------

do
  local m = memory(16)
  local function frames(def, f4, seq)
    local v = assert(ra.value(def))
    local out = {}
    m:u32(4, f4)
    for _, bits in ipairs(seq) do
      m:u32(0, bits)
      out[#out + 1] = v:update(m.peek)
    end
    return table.concat(out, " ")
  end
  -- 5.0, NaN, NaN with another payload, NaN, 2.0: the prior stays 5 while NaN lasts
  check("float prior through NaN", frames("A:pfF0000_M:pfF0004", 0, { 0x40A00000, 0x7FC00000, 0x7FC00001, 0x7FC00000,
    0x40000000 }), "0 5 5 5 0")
  -- with -0.0 added: 3.0, 0.0, -0.0 (a change: the prior becomes 0.0), 0.0
  check("float prior through -0.0", frames("A:pfF0000_M:pfF0004", 0x80000000, { 0x40400000, 0, 0x80000000, 0 }),
    "0 3 0 0")
end

---------------------------------------------------------------------------
-- the menu's Achievements page (retrolua.achievements.page): descriptions,
-- and a broken entry marked as one, never listed as earnable
---------------------------------------------------------------------------

do
  local page = require("retrolua.achievements.page")
  local json = require("retrolua.json")
  local handle = assert(io.open(harness.root .. "/examples/achievements/demo.json", "r"))
  local data = assert(json.decode(handle:read("a")))
  handle:close()
  local items = page.items(data, { [1] = true }, { [4] = "2/5" }, false)
  check("page: header counts only earnable entries", items[1].label,
    "1 of 4 unlocked, 1 of 16 points, 1 cannot be earned (broken)")
  local by_title = {}
  for _, item in ipairs(items) do
    local title = item.label:match("^%[.%] (.*)$")
    if title then by_title[title] = item end
  end
  check("page: earned", by_title["First press"].label, "[x] First press")
  check("page: description of an earned one", by_title["First press"].detail, "Press A once")
  check("page: to earn, with progress", by_title["Unofficial"].value, "2/5  0 pts")
  check("page: description shown beside the choice", by_title["Patience"].detail, "Hold B for 60 frames in a row")
  check("page: descriptions are not drawn as errors", by_title["Patience"].detail_color ~= "#ff6060", true)
  local broken = by_title["Broken"]
  check("page: the broken entry is marked", broken.label, "[!] Broken")
  check("page: the broken entry is red", broken.color, "#ff6060")
  check_true("page: the broken entry says why: " .. tostring(broken.detail),
    broken.detail:find("^cannot be evaluated: Invalid") ~= nil and broken.detail:find("A definition rcheevos rejects") ~= nil)
  local odd = page.items({ Achievements = { 5, { ID = "x", Title = "No id" }, { ID = 9, Title = "Line\nbreak",
    Description = "two\nlines", MemAddr = "0xH0001=1" } } }, {}, {}, true)
  check("page: malformed entries counted as broken", odd[1].label,
    "0 of 1 unlocked, 0 of 0 points, 2 cannot be earned (broken) (hardcore)")
  check("page: not an object", odd[2].label, "[!] #1")
  check("page: no integer id", odd[3].detail, "no integer ID")
  check("page: titles and descriptions on one line", odd[4].label .. "|" .. odd[4].detail, "[ ] Line break|two lines")
  check("page: not a set", page.items(42)[1].label, "the set cannot be read")
end

---------------------------------------------------------------------------
-- no allocation per frame
---------------------------------------------------------------------------

do
  local m = memory(0x10000)
  local defs = {
    "0xH0010=1_0xH0011>d0xH0011_P:0xH0012=1_R:0xH0013=1_0x 0014=500.10.",
    "A:0xH0020*2_B:0xH0021_0xH0022=5_I:0xX0030_0xH0004>=3SfF0040>f1.5S0xK0050=3",
    "M:0xH0060>=100_Q:0xH0061=1_T:0xH0062=1_K:0xH0063*2_{recall}=4",
  }
  local ts = {}
  for i, d in ipairs(defs) do ts[i] = assert(ra.trigger(d)) end
  for _ = 1, 10 do for _, t in ipairs(ts) do t:update(m.peek) end end
  collectgarbage("collect")
  collectgarbage("stop")
  local before = collectgarbage("count")
  for f = 1, 200 do
    m:u8(0x11, f & 0xFF)
    for _, t in ipairs(ts) do t:update(m.peek) end
  end
  local grown = collectgarbage("count") - before
  collectgarbage("restart")
  check_true(string.format("no allocation while evaluating (grew %.2f KB)", grown), grown < 1)
end

harness.finish()
