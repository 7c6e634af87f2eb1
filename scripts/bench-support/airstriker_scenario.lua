-- The benchmark's Airstriker scenario, the same rules as stable-retro's Airstriker-Genesis
-- (scenario.json): reward = score gained, done = game over with no lives left; info() = its
-- variables. genesis_plus_gx keeps 68000 RAM as little-endian 16-bit words.
-- luacheck: globals reward done info
local last_score

local function word(address) return memory.read_u16_le(address) end
local function score() return word(0x24E) * 65536 + word(0x250) end

event.on("state_loaded", function() last_score = score() end)

function reward()
  local now = score()
  local gained = last_score and now - last_score or 0
  last_score = now
  return gained
end

function done()
  return word(0x266) == 1 and word(0x25A) == 0
end

function info()
  return { gameover = word(0x266), lives = word(0x25A), score = score() }
end
