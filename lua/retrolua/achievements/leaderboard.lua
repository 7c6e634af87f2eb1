-- retrolua.achievements.leaderboard: a leaderboard (rc_lboard_t): its start,
-- cancel and submit triggers, its value and optional progress, and the
-- state machine of rc_evaluate_lboard.

local parse = require("retrolua.achievements.parse")
local definitions = require("retrolua.achievements.parse_units")
local shared = require("retrolua.achievements.evaluation")

local compiled, reset_hits, evaluate_value = shared.compiled, shared.reset_hits, shared.evaluate_value

local L = {}

---------------------------------------------------------------------------
-- leaderboards
---------------------------------------------------------------------------

local Leaderboard = {}
Leaderboard.__index = Leaderboard

--- Parses and compiles a leaderboard "STA:...::CAN:...::SUB:...::VAL:..."
-- (optionally "::PRO:..." for a progress value shown while started).
-- @return Leaderboard object, or nil and an error message
function L.new(def)
  local mem = parse.new_mem()
  local parts, err = parse.definition("leaderboard", def, function()
    return definitions.parse_lboard(def, mem)
  end)
  if not parts then return nil, err end
  local units = { parts.start, parts.cancel, parts.submit, parts.value }
  if parts.progress then units[#units + 1] = parts.progress end
  local prog = { mem = mem, units = units }
  local ok, problem = compiled(prog)
  if not ok then return nil, problem end
  return setmetatable({
    definition = def, state = "waiting", prog = prog,
    start = parts.start, cancel = parts.cancel, submit = parts.submit,
    value = parts.value, progress = parts.progress,
    value_state = { last = 0 }, progress_state = { last = 0 },
  }, Leaderboard)
end

-- rc_test_trigger: a sub-trigger of a leaderboard is always active
local function test_trigger(unit, peek)
  local ret, _, _, was_reset = unit.eval(peek)
  if was_reset then
    reset_hits(unit)
    return false
  end
  return ret
end

local function reset_value(unit, holder)
  reset_hits(unit)
  holder.last = 0
end

--- Evaluates the leaderboard for one frame (rc_evaluate_lboard).
-- Returns the frame's state and value.  The state is "started" while an
-- attempt runs, "canceled" / "triggered" (submitted) on the frame that ends
-- it, "active" while waiting for the start condition, and "inactive" while
-- the start condition has not been false since the leaderboard was created
-- or its last attempt ended (and when disabled).
function Leaderboard:update(peek)
  self.prog.refresh(peek)
  local state = self.state
  if state == "inactive" or state == "disabled" then return "inactive", 0 end
  local start_ok = test_trigger(self.start, peek)
  local cancel_ok = test_trigger(self.cancel, peek)
  local submit_ok = test_trigger(self.submit, peek)
  if state == "waiting" or state == "triggered" or state == "canceled" then
    if start_ok then return "inactive", 0 end
    state = "active"
  elseif state == "active" then
    if start_ok and not cancel_ok then
      if submit_ok then
        state = "triggered"
      elseif self.start.core == nil and #self.start.alts == 0 then
        state = "active" -- empty start: in development, ignored
      else
        state = "started"
      end
      if self.progress then reset_value(self.progress, self.progress_state) end
      reset_value(self.value, self.value_state)
    end
  elseif state == "started" then
    if cancel_ok then
      state = "canceled"
    elseif submit_ok then
      state = "triggered"
    end
  end
  self.state = state
  local value = 0
  if state == "started" and self.progress then
    value = evaluate_value(self.progress_state, self.progress, peek)
  elseif state == "started" or state == "triggered" then
    value = evaluate_value(self.value_state, self.value, peek)
  end
  return state, value
end

--- Back to the initial "waiting" state, clearing all hit counts.
function Leaderboard:reset()
  self.state = "waiting"
  reset_hits(self.start)
  reset_hits(self.cancel)
  reset_hits(self.submit)
  if self.progress then reset_value(self.progress, self.progress_state) end
  reset_value(self.value, self.value_state)
end

--- Activates (back to "waiting") or deactivates ("inactive") the leaderboard.
function Leaderboard:set_active(active)
  if active then
    if self.state == "inactive" or self.state == "disabled" then self:reset() end
  else
    self.state = "inactive"
  end
end

--- Disables the leaderboard.
function Leaderboard:disable()
  self.state = "disabled"
end

return L
