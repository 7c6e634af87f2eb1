-- Tests for lua/retrolua/achievements.lua (pure Lua, stock lua5.4): the measured
-- semantics of rcheevos' rc_trigger_t, and hostile definitions.
--   lua5.4 Tests/lua/achievements_limits_test.lua
-- Prints one line per failing case, exits 1 on failure, "ok N cases" otherwise.

local harness = dofile(((arg and arg[0] or ""):match("^(.*)[/\\]") or ".") .. "/harness.lua")

local ra = require("retrolua.achievements")

local show, check = harness.show, harness.check

-- memory of `size` bytes (0 outside) with a peek like retrolua.ra_memory's
local function memory(size)
  local bytes = {}
  for i = 0, size - 1 do bytes[i] = 0 end
  local m = { b = bytes }
  m.peek = function(addr, n)
    local v = 0
    for i = n - 1, 0, -1 do v = (v << 8) | (bytes[addr + i] or 0) end
    return v
  end
  return m
end

local CONSTRUCTORS = { trigger = ra.trigger, value = ra.value, leaderboard = ra.leaderboard,
  richpresence = ra.richpresence }

-- the constructor must return nil and a message containing `want` (never raise)
local function rejects(label, kind, def, want)
  harness.case()
  local ok, obj, err = pcall(CONSTRUCTORS[kind], def)
  if not ok then
    harness.fail("%s: %s raised %s", label, kind, show(obj))
  elseif obj ~= nil or type(err) ~= "string" or not err:find(want, 1, true) then
    harness.fail("%s: %s gave %s, %s; want nil and a message containing %q", label, kind, show(obj), show(err), want)
  end
end

-- the constructor accepts `def` and three frames of evaluation do not raise; returns the object
local function accepts(label, kind, def, m)
  harness.case()
  local ok, obj, err = pcall(CONSTRUCTORS[kind], def)
  if not ok or not obj then
    harness.fail("%s: %s %s %s", label, kind, ok and "rejected it:" or "raised", show(ok and err or obj))
    return nil
  end
  m = m or memory(16)
  for _ = 1, 3 do
    local fine, problem = pcall(obj.update, obj, m.peek)
    if not fine then
      harness.fail("%s: update raised %s", label, show(problem))
      return nil
    end
  end
  return obj
end

local function rep(item, n, sep) return string.rep(item, n, sep) end

---------------------------------------------------------------------------
-- measured: rc_trigger_t's measured_value / measured_target
---------------------------------------------------------------------------

do
  check("RC_MEASURED_UNKNOWN", ra.MEASURED_UNKNOWN, 0xFFFFFFFF)
  local m = memory(16)
  local t = assert(ra.trigger("M:0xH0001>=5"))
  local v, target, pct, known = t:measured()
  check("new trigger: value unknown, reported 0 as rcheevos reports it", v, 0)
  check("new trigger: not known", known, false)
  check("new trigger: target known", target, 5)
  check("new trigger: not percent", pct, false)
  check("new trigger: raw value is RC_MEASURED_UNKNOWN", t.measured_value, 0xFFFFFFFF)

  m.b[1] = 6 -- true on the first frame: "waiting", hit counts and the value start over
  check("true while waiting", t:update(m.peek), "waiting")
  check("waiting: value unknown (0)", (t:measured()), 0)
  check("waiting: not known", select(4, t:measured()), false)
  check("waiting: state", t.state, "waiting")

  m.b[1] = 3
  check("false: active", t:update(m.peek), "active")
  v, target = t:measured()
  check("active: value", v, 3)
  check("active: known", select(4, t:measured()), true)
  check("active: target", target, 5)

  m.b[1] = 7
  check("over the target: triggered", t:update(m.peek), "triggered")
  v, target = t:measured()
  check("triggered: keeps the frame's value, uncapped", v, 7)
  check("triggered: keeps the target", target, 5)
  m.b[1] = 1
  check("after triggering: inactive", t:update(m.peek), "inactive")
  check("after triggering: still that frame's value", (t:measured()), 7)

  t:reset()
  check("reset: value unknown again (0)", (t:measured()), 0)
  check("reset: not known", select(4, t:measured()), false)
  check("reset: state waiting", t.state, "waiting")

  -- over the target while another condition holds the trigger back: 6 of 5 is reported as such
  local over = assert(ra.trigger("M:0xH0001>=5_0xH0002=1"))
  m.b[1], m.b[2] = 6, 0
  check("over target, held back", over:update(m.peek), "active")
  v, target = over:measured()
  check("over target reported uncapped", v, 6)
  check("over target: target", target, 5)

  -- hit counts: the value is the count, past the frames it was measured on
  local hits = assert(ra.trigger("M:0xH0003=1(3)"))
  m.b[3] = 1
  check("hits frame 1: one hit", hits:update(m.peek), "active")
  m.b[3] = 0
  hits:update(m.peek)
  m.b[3] = 1
  hits:update(m.peek)
  check("hits: two so far", (hits:measured()), 2)
  check("hits: third triggers", hits:update(m.peek), "triggered")
  v, target = hits:measured()
  check("hits: triggered keeps 3", v, 3)
  check("hits: target 3", target, 3)

  -- paused from the first frame: never measured, so still unknown
  local paused = assert(ra.trigger("M:0xH0004>=5_P:0xH0005=1"))
  m.b[4], m.b[5] = 2, 1
  check("paused first frame", paused:update(m.peek), "paused")
  check("paused first frame: value unknown, reported 0", (paused:measured()), 0)
  check("paused first frame: not known", select(4, paused:measured()), false)
  m.b[5] = 0
  paused:update(m.peek)
  check("unpaused: measured", (paused:measured()), 2)

  -- deactivated: the value stays; reactivated: unknown until measured again
  over:set_active(false)
  check("inactive keeps the value", (over:measured()), 6)
  over:set_active(true)
  check("reactivated (from inactive: reset)", (over:measured()), 0)
  check("reactivated: not known", select(4, over:measured()), false)

  -- as a percent
  local g = assert(ra.trigger("G:0xH0006>=200"))
  m.b[6] = 50
  g:update(m.peek)
  v, target, pct = g:measured()
  check("percent: value", v, 50)
  check("percent: target", target, 200)
  check("percent: flag", pct, true)
  check("percent: value * 100 // target", v * 100 // target, 25)
  m.b[6] = 250
  check("percent: triggered", g:update(m.peek), "triggered")
  v, target = g:measured()
  check("percent: over target uncapped (125%)", v * 100 // target, 125)

  -- no Measured condition: 0 of 0 throughout
  local plain = assert(ra.trigger("0xH0007=1"))
  v, target, pct = plain:measured()
  check("not measured: value", v, 0)
  check("not measured: target", target, 0)
  check("not measured: percent flag", pct, false)
end

---------------------------------------------------------------------------
-- hostile definitions: nil and a message, never an error
---------------------------------------------------------------------------

do
  local chain = rep("A:0xH0001", 100000, "_") .. "_0xH0002=1"
  rejects("100000-link AddSource chain", "trigger", chain, "More than 10000 conditions (the limit)")
  rejects("100000-link SubSource chain", "trigger", rep("B:0xH0001", 100000, "_") .. "_0xH0002=1",
    "More than 10000 conditions")
  rejects("100000-link AddAddress chain", "trigger", rep("I:0xX0001", 100000, "_") .. "_0xH0002=1",
    "More than 10000 conditions")
  rejects("100000 Remember links", "trigger", rep("K:{recall}+1", 100000, "_") .. "_{recall}=1",
    "(the limit)")
  rejects("100000 plain conditions", "trigger", rep("0xH0001=1", 100000, "_"), "More than 10000 conditions")
  rejects("20000 empty alt groups", "trigger", "1=1" .. rep("S", 20000), "More than 10000 groups (the limit)")
  rejects("100000-link legacy value", "value", rep("0xH0001", 100000, "_"), "More than 10000 conditions")
  rejects("a value of 20000 maxima", "value", rep("M:0xH0001", 20000, "$"), "More than 10000 groups")
  rejects("a leaderboard with a 100000-link value", "leaderboard",
    "STA:0xH0000=1::CAN:0=1::SUB:0=1::VAL:" .. rep("A:0xH0001", 100000, "_") .. "_M:0xH0002",
    "More than 10000 conditions")
  rejects("definition over 1 MiB", "trigger", "0xH0001=1_" .. rep(" ", 1024 * 1024), "longer than 1048576 bytes")
  rejects("an address over 1 MiB", "trigger", "0xH" .. rep("0", 1024 * 1024) .. "1=1", "(the limit)")
  rejects("rich presence over 4 MiB", "richpresence", "Display:\n" .. rep("x", 4 * 1024 * 1024),
    "longer than 4194304 bytes")
  rejects("rich presence with 20000 display conditions", "richpresence",
    "Display:\n" .. rep("?0xH0001=1?x\n", 20000) .. "default", "More than 10000")
  rejects("not a string", "trigger", 42, "must be a string")
  rejects("a table", "leaderboard", {}, "must be a string")
  rejects("nil", "richpresence", nil, "must be a string")
  harness.case()
  local t, err = ra.trigger("0xH0001=1", "fast")
  if t ~= nil or not tostring(err):find("options must be a table", 1, true) then
    harness.fail("options that are not a table: got %s", show(err))
  end
  local ok, problem = pcall(ra.format, "12", "SCORE")
  check("ra.format of a string raises a named error", not ok and problem:find("ra.format: bad argument #1 'value'",
    1, true) ~= nil, true)

  -- malformed MemAddr strings
  local malformed = {
    { "0x", "Invalid memory operand" }, { "0xH", "Invalid memory operand" }, { "0xHZZ=1", "Invalid memory operand" },
    { "=1", "Invalid memory operand" }, { "A:", "Invalid memory operand" }, { "_", "Invalid memory operand" },
    { "0xH0001=1__0xH0002=1", "Invalid memory operand" }, { "0xH0001=1(", "Invalid required hits" },
    { "0xH0001=1.1", "Invalid required hits" }, { "0xH0001=1.x.", "Invalid required hits" },
    { "dd0xH0001=1", "Invalid memory operand" }, { "0xH0001=fZ", "Invalid floating-point operand" },
    { "I:0xX0000_I:", "Invalid memory operand" }, { "K:", "Invalid memory operand" },
    { "{recall=1", "Invalid variable name" }, { "{recallrecallrecall}=1", "Invalid variable name" },
    { "@=1", "Invalid function operand" }, { "0xH0001=-", "Invalid constant operand" },
    { "0xH0001=v", "Invalid constant operand" }, { "f.=1", "Invalid floating-point operand" },
    { "0xH0001=1S_", "Invalid memory operand" }, { "Q:0xH0001", "Invalid operator" },
    { "0xH0001=1_M:0xH0002=1_M:0xH0003=2", "Multiple measured targets" },
    { "\0", "Invalid memory operand" }, { "0xH0001=1\0", nil },
  }
  for i, c in ipairs(malformed) do
    if c[2] then rejects("malformed #" .. i .. " " .. show(c[1]), "trigger", c[1], c[2])
    else accepts("text after a definition is ignored #" .. i, "trigger", c[1]) end
  end

  -- huge numbers: C's strtoul and (unsigned) casts, like rcheevos
  local huge = accepts("hit count past 64 bits", "trigger", "0xH0001=1.99999999999999999999999.")
  check("hit count past 64 bits saturates to 0xFFFFFFFF", huge and huge.unit.core.conds[1].req, 0xFFFFFFFF)
  local wide = accepts("hit count of 5000000000", "trigger", "0xH0001=1.5000000000.")
  check("hit count of 5000000000 keeps its low 32 bits", wide and wide.unit.core.conds[1].req, 705032704)
  local wrap = accepts("hit count of 2^32", "trigger", "0xH0001=1(4294967296)")
  check("hit count of 2^32 is no hit target", wrap and wrap.unit.core.conds[1].req, 0)
  local max = accepts("hit count of 0xFFFFFFFF never fires", "trigger", "0xH0001=0.4294967295.")
  if max then check("hit count of 0xFFFFFFFF: active", max:update(memory(4).peek), "active") end
  accepts("address past 32 bits", "trigger", "0xH" .. rep("F", 40) .. "=1")
  accepts("constant past 64 bits", "trigger", "0xH0001=" .. rep("9", 40))
  accepts("float constant past 32 bits", "trigger", "fF0000=f" .. rep("9", 30) .. ".5")
  accepts("signed constant past 64 bits", "value", "M:0xH0001*-" .. rep("9", 40))
  accepts("a 200-digit hex constant", "trigger", "0xH0001=h" .. rep("F", 200))

  -- long chains within the limits compile and evaluate exactly
  local m = memory(16)
  m.b[1], m.b[2], m.b[3] = 3, 7, 2
  for _, n in ipairs({ 150, 5000 }) do
    local parts = {}
    local sum = 7
    for i = 1, n do
      parts[i] = (i % 3 == 0) and "B:0xH0003" or "A:0xH0001*2"
      sum = sum + ((i % 3 == 0) and -2 or 6)
    end
    local v = accepts(n .. "-link AddSource/SubSource value", "value", table.concat(parts, "_") .. "_M:0xH0002", m)
    check(n .. "-link chain sums exactly", v and v:update(m.peek), sum)
    local tr = accepts(n .. "-link chain trigger", "trigger", table.concat(parts, "_") .. "_0xH0002=" .. sum, m)
    check(n .. "-link chain trigger compares", tr and tr.state, "waiting")
  end
  local pointers = accepts("3000-link AddAddress chain", "trigger", rep("I:0xH0000", 3000, "_") .. "_0xH0000=0", m)
  check("3000-link AddAddress chain evaluates (true: waiting)", pointers and pointers.state, "waiting")
  accepts("9000 Remember links", "trigger", rep("I:0xX0000_K:{recall}", 4500, "_") .. "_{recall}=1", m)

  -- rich presence
  local lookup = { "Lookup:L" }
  for i = 1, 50000 do lookup[#lookup + 1] = (i * 2) .. "=v" .. i end
  local big = accepts("a 50000-entry lookup", "richpresence",
    table.concat(lookup, "\n") .. "\n\nDisplay:\n@L(0xH0008) @L(0xH0009)\n", m)
  m.b[8], m.b[9] = 2, 200
  check("50000-entry lookup finds by bisection", big and big:update(m.peek), "v1 v100")
  local reversed = accepts("a reversed lookup range", "richpresence", "Lookup:L\n5-2=x\n*=d\n\nDisplay:\n@L(0xH0002)", m)
  check("a reversed range never matches", reversed and reversed:update(m.peek), "d")
  rejects("overlapping lookup ranges", "richpresence", "Lookup:L\n1-5=A\n7=C\n3-9=B\n\nDisplay:\nx", "Duplicated")
  rejects("a bad macro value", "richpresence", "Display:\n@Number(0xZ)", "Invalid memory operand")
  rejects("a bad display condition", "richpresence", "Display:\n?0xH0001?x\ny", "Invalid operator")
  accepts("a 100000-character display line", "richpresence", "Display:\n" .. rep("x\\@", 30000), m)
  rejects("a display line of 100000 macro starts", "richpresence", "Display:\n" .. rep("@", 100000),
    "Missing value expression")
  accepts("a macro without a closing parenthesis", "richpresence", "Display:\n@Number(0xH0001", m)
end

harness.finish()
