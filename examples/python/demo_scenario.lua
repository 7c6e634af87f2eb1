-- A scenario for the NES demo (examples/roms/nes): reward for moving right, done at x = 200.
-- The control socket calls reward() and done() after every frame (see python/retrolua/env.py).
-- luacheck: globals reward done
local last_x

local function x() return memory.read_u8(0x03) end

-- A state load (the environment's reset) moves the player back: measure from there.
event.on("state_loaded", function() last_x = x() end)

function reward()
  local now = x()
  local gained = last_x and now - last_x or 0
  last_x = now
  return gained
end

function done()
  return x() >= 200
end
