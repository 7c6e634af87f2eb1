-- retrolua.achievements: a pure-Lua RetroAchievements engine with rcheevos
-- semantics: achievement triggers, values, leaderboards and rich presence.
--
-- It needs nothing from the host: everything is evaluated against a
-- `peek(address, size)` function (size 1, 2 or 4; the result is the
-- little-endian composite of that many bytes, 0 outside memory), such as
-- the one retrolua.ra_memory builds.  All other sizes (24-bit, big-endian,
-- bits, nibbles, bit count, float, double32, MBF32) are derived from it.
--
--   local ra = require("retrolua.achievements")
--
--   local t, err = ra.trigger("0xH0005=5_0xH0003>=d0xH0003.10.")
--   t:update(peek)     --> "waiting" | "active" | "paused" | "primed" | "reset"
--                      --  | "triggered" | "inactive"        (see Trigger:update)
--   t.state            --> persistent state: "waiting", "active", "paused",
--                      --  "primed", "triggered", "inactive", "disabled"
--   t:measured()       --> value (0 while unknown), target, as_percent, known
--   t:reset()          -- clear hit counts, back to "waiting"
--   t:set_active(bool) -- "inactive" keeps tracking memory without evaluating
--   t:disable()
--   t:hits(n), t:group_hits(group, index)   -- hit counts (see exact_hits)
--   ra.trigger(def, { exact_hits = true })  -- keep every hit count
--
--   local v = ra.value("A:0xH0003*2_M:0xH0004")   -- or legacy "0xH0003*2_0xH0004"
--   v:update(peek)     --> signed 32-bit integer;  v:reset()
--
--   local lb = ra.leaderboard("STA:...::CAN:...::SUB:...::VAL:...[::PRO:...]")
--   lb:update(peek)    --> state, value   ("inactive", "active", "started",
--                      --  "canceled", "triggered"; lb.state is persistent and
--                      --  also "waiting" / "disabled")
--   lb:reset(), lb:set_active(bool), lb:disable()
--
--   local rp = ra.richpresence(script)
--   rp:update(peek)    --> display string;  rp:reset()
--
--   ra.format(value, "SCORE")   --> "000123" (rcheevos value formats)
--
-- Call update once per emulated frame: deltas ("d"), priors ("p") and hit
-- counts are per call.  Constructors return nil and a message naming the
-- problem and its position wherever rcheevos would reject the definition
-- (like rcheevos, text after a complete definition is ignored).
--
-- Definitions are compiled once into Lua functions (achievements/compile.lua
-- generates source specialised for each definition and loads it); a frame's
-- evaluation neither parses nor allocates (rich presence allocates its
-- output string).  Hit counts that can never influence a result (conditions
-- without a hit target, when nothing could observe them) are not kept unless
-- `exact_hits` is requested; every observable behaviour is the same.
--
-- Modules (achievements/): parse, parse_base and parse_operands (grammar, memory nodes), parse_units
-- (whole definitions), compile, compile_expr and compile_sets (code generation), evaluation (what the
-- objects share), leaderboard, num (32-bit/float arithmetic), format (value formats), richpresence
-- (scripts) and richpresence_lookup.

local parse = require("retrolua.achievements.parse")
local definitions = require("retrolua.achievements.parse_units")
local compile = require("retrolua.achievements.compile")
local shared = require("retrolua.achievements.evaluation")
local leaderboard = require("retrolua.achievements.leaderboard")
local fmt = require("retrolua.achievements.format")
local richpresence = require("retrolua.achievements.richpresence")


local ra = {}

-- rcheevos' RC_MEASURED_UNKNOWN: t.measured_value before the first frame
-- that measured anything (t:measured() reports it as nil)
local MEASURED_UNKNOWN = 0xFFFFFFFF
ra.MEASURED_UNKNOWN = MEASURED_UNKNOWN

local compiled, reset_hits, evaluate_value = shared.compiled, shared.reset_hits, shared.evaluate_value

---------------------------------------------------------------------------
-- triggers
---------------------------------------------------------------------------

local Trigger = {}
Trigger.__index = Trigger

-- groups (core = 1, alts = 2...) with the hit slots of their Measured conditions
-- that count hits, to recognise a hit-count measurement in a paused group
local function measured_hit_groups(unit)
  local groups = {}
  local g = 0
  for _, set in ipairs(compile.unit_sets(unit)) do
    g = g + 1
    local slots = {}
    for _, cond in ipairs(set.conds) do
      if cond.flag == "M" and cond.req ~= 0 then slots[#slots + 1] = cond.hit end
    end
    if #slots > 0 then groups[#groups + 1] = { g = g, slots = slots } end
  end
  if #groups > 0 then unit.measured_hits = true end
  return groups
end

--- Parses and compiles an achievement trigger.
-- @param def string, e.g. "0xH0005=5_0xH0003>=d0xH0003.10."
-- @param opts optional table; `exact_hits = true` keeps the hit count of
--   every condition like rcheevos (see Trigger:hits) at some speed cost
-- @return Trigger object, or nil and an error message
function ra.trigger(def, opts)
  if type(def) ~= "string" then return nil, "trigger definition must be a string" end
  if opts ~= nil and type(opts) ~= "table" then return nil, "trigger options must be a table" end
  local mem = parse.new_mem()
  local unit, err = parse.definition("trigger", def, function()
    return (definitions.parse_trigger(definitions.new_state(def, mem, false), 1))
  end)
  if not unit then return nil, err end
  unit.exact_hits = opts ~= nil and opts.exact_hits == true
  local mh_groups = measured_hit_groups(unit)
  local prog = { mem = mem, units = { unit } }
  local ok, problem = compiled(prog, { embed = unit, step = true })
  if not ok then return nil, problem end
  return setmetatable({
    definition = def,
    state = "waiting",
    has_hits = false,
    target = unit.measured_target,
    as_percent = unit.as_percent,
    measured_value = unit.measured_target ~= 0 and MEASURED_UNKNOWN or 0,
    unit = unit,
    prog = prog,
    mh_groups = mh_groups,
    -- the compiled Trigger:update (compile.lua generates rc_evaluate_trigger
    -- specialised for this definition); stored on the object so that
    -- t:update(peek) is a single call
    update = unit.step,
  }, Trigger)
end

--- Evaluates the trigger for one frame (rc_evaluate_trigger).
-- Returns "waiting" (true on its first evaluations: it must be false once
-- before it can fire), "active", "paused", "primed" (everything but the
-- Trigger-flagged conditions is true), "reset" (hit counts were just
-- cleared), "triggered" (this frame), or "inactive" (triggered earlier,
-- disabled, or deactivated with set_active(false)).  `t.state` keeps the
-- persistent state.  (Each object carries the compiled version of this
-- method; this definition only documents and forwards to it.)
function Trigger:update(peek)
  return self.unit.step(self, peek)
end

-- rc_condset_is_measured_from_hitcount over the paused groups (called by
-- the compiled update when a ResetIf fires while paused)
function Trigger:paused_measured_from_hits()
  local H, GP, mv = self.unit.H, self.unit.GP, self.measured_value
  for _, grp in ipairs(self.mh_groups) do
    if GP[grp.g] then
      for _, k in ipairs(grp.slots) do
        if H[k] == mv then return true end
      end
    end
  end
  return false
end

--- Progress of a Measured trigger: value, target, as_percent, known, as rcheevos
-- keeps them in rc_trigger_t (measured_value, measured_target,
-- measured_as_percent) and reports them (rc_runtime_get_achievement_measured).
-- While the value is unknown — from creation or reset (state "waiting")
-- until a frame that is not paused — the value is 0, as rcheevos reports it,
-- and `known` is false (`t.measured_value` is then ra.MEASURED_UNKNOWN).
-- Otherwise it is the value of the last frame that was not paused (0 when
-- the groups measuring it were paused but another alt was not, as rcheevos
-- converts its missing value), not capped at the target (6
-- of 5 is a valid report), and kept once triggered (the triggering frame's
-- value) or deactivated.  A trigger without a Measured condition reports
-- 0, 0.  With as_percent, show value * 100 // target (rcheevos' own
-- progress text caps the value at the target first).
function Trigger:measured()
  local v = self.measured_value
  if v == MEASURED_UNKNOWN then return 0, self.target, self.as_percent, false end
  return v, self.target, self.as_percent, true
end

--- Clears all hit counts and returns to "waiting" (rc_reset_trigger).
function Trigger:reset()
  reset_hits(self.unit)
  self.state = "waiting"
  if self.target ~= 0 then self.measured_value = MEASURED_UNKNOWN end
  self.has_hits = false
end

--- Activates (reset to "waiting") or deactivates ("inactive": memory is
-- still tracked, nothing is evaluated) the trigger.
function Trigger:set_active(active)
  if active then
    if self.state == "inactive" or self.state == "disabled" or self.state == "triggered" then self:reset() end
  else
    self.state = "inactive"
  end
end

--- Disables the trigger: it is no longer evaluated nor tracked.
function Trigger:disable()
  self.state = "disabled"
end

--- Current hit count of the n-th condition (definition order, groups in
-- order; 1-based).  Counts that cannot influence the trigger are not kept
-- unless the trigger was created with `exact_hits`: the hit count of a
-- condition without a hit target (other than AddHits/SubHits) reads 0 when
-- the trigger has no ResetNextIf.
function Trigger:hits(n)
  return self.unit.H[n]
end

--- Hit count of condition `index` (0-based) of group `group` (0 = core,
-- 1.. = alts), as rcheevos' tests address them.
function Trigger:group_hits(group, index)
  local set = group == 0 and self.unit.core or self.unit.alts[group]
  local cond = set and set.conds[index + 1]
  return cond and self.unit.H[cond.hit]
end

---------------------------------------------------------------------------
-- values
---------------------------------------------------------------------------

local Value = {}
Value.__index = Value

--- Parses and compiles a value expression: "M:"-style condition groups
-- joined by '$' (maximum), or the legacy "0xH1234*2_0xH2345$..." format.
-- @return Value object, or nil and an error message
function ra.value(def)
  local mem = parse.new_mem()
  local unit, err = parse.definition("value", def, function()
    return (definitions.parse_value(definitions.new_state(def, mem, true), 1))
  end)
  if not unit then return nil, err end
  local prog = { mem = mem, units = { unit } }
  local ok, problem = compiled(prog, { embed = unit })
  if not ok then return nil, problem end
  return setmetatable({ definition = def, unit = unit, prog = prog, last = 0 }, Value)
end

--- Evaluates the value for one frame; returns a signed 32-bit integer.
-- When every group is paused the previous value is returned.
function Value:update(peek)
  return evaluate_value(self, self.unit, peek)
end

--- Clears hit counts and the remembered value.
function Value:reset()
  reset_hits(self.unit)
  self.last = 0
end

--- Parses and compiles a leaderboard "STA:...::CAN:...::SUB:...::VAL:..."
-- (optionally "::PRO:..." for a progress value shown while started); see
-- achievements/leaderboard.lua for its update.
-- @return Leaderboard object, or nil and an error message
ra.leaderboard = leaderboard.new

---------------------------------------------------------------------------
-- rich presence and formatting
---------------------------------------------------------------------------

--- Parses and compiles a rich presence script (Lookup:, Format:, Display:).
-- @return object with :update(peek) --> string and :reset(), or nil, message
function ra.richpresence(script)
  return richpresence.new(script)
end

--- Formats a value like rcheevos does for leaderboards and rich presence.
-- @param value number (integer: unsigned 32-bit or signed; float: single)
-- @param format_type "VALUE", "SCORE", "FRAMES", "SECS", "MILLISECS",
--   "MINUTES", "SECS_AS_MINS", "FLOAT1".."FLOAT6", "FIXED1".."FIXED3",
--   "TENS", "HUNDREDS", "THOUSANDS", "UNSIGNED", ... (unknown: VALUE)
function ra.format(value, format_type)
  if type(value) ~= "number" then
    error("ra.format: bad argument #1 'value' (number expected, got " .. type(value) .. ")", 2)
  end
  if math.type(value) == "integer" then value = value & 0xFFFFFFFF end
  return fmt.format_value(value, fmt.parse_format(format_type))
end

return ra
