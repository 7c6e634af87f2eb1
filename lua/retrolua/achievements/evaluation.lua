-- retrolua.achievements.evaluation: what triggers, values and leaderboards share:
-- compiling a program under protection, clearing a unit's hit counts and
-- rcheevos' value evaluation.

local compile = require("retrolua.achievements.compile")
local num = require("retrolua.achievements.num")

local tou32, toi32 = num.tou32, num.toi32

local E = {}

-- compile.compile under protection: a definition the parser accepted must
-- never raise out of a constructor (nor should the compiler have bugs, but
-- a script is better served by `nil, message` than by an error)
local function compiled(prog, opts)
  local ok, err = pcall(compile.compile, prog, opts)
  if ok then return true end
  return nil, "cannot compile the definition: " .. tostring(err):sub(1, 200)
end

-- H[0] is the "some condition was true since the last reset" flag of
-- compile.lua's sticky mode; H[1..n] are the conditions' hit counts
local function reset_hits(unit)
  local H = unit.H
  for k = 0, unit.nhits do H[k] = 0 end
end

-- rc_evaluate_value: converts to unsigned, remembers it for paused frames,
-- returns it as a signed 32-bit integer
local function evaluate_value(holder, unit, peek)
  local valid, r = unit.eval(peek)
  if valid then holder.last = tou32(r) end
  return toi32(holder.last)
end

E.compiled, E.reset_hits, E.evaluate_value = compiled, reset_hits, evaluate_value

return E
