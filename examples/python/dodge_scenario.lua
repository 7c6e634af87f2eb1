-- A scenario for Dodge (examples/roms/dodge, RAM layout in its README): +1 per coin, -1 per life lost;
-- done when the game is over or won; info() names the variables an environment's `info` carries.
-- The control socket calls reward() and done() after every frame, info() once at the end of a step.
-- luacheck: globals reward done info
local last_score, last_lives

local function score() return memory.read_u16_le(0x09) end
local function lives() return memory.read_u8(0x08) end

-- A state load (the environment's reset) starts the count again from there.
event.on("state_loaded", function() last_score, last_lives = score(), lives() end)

function reward()
  local s, l = score(), lives()
  -- Only losses count: the game sets its lives from 0 when it starts.
  local gained = (last_score and s - last_score or 0) - (last_lives and math.max(0, last_lives - l) or 0)
  last_score, last_lives = s, l
  return gained
end

function done()
  return memory.read_u8(0x05) ~= 0
end

function info()
  return { score = score(), lives = lives() }
end
