-- Savestate search toy: steer the NES demo's player to a target by trying every d-pad direction
-- from a saved state, one frame ahead, and keeping the one that gets closest (greedy search with
-- savestate branching). Prints the path it found and ends the run with exit code 0 on success.
--
--   retrolua run --script examples/bots/savestate_search.lua

local TARGET_X, TARGET_Y = 150, 90
local MAX_FRAMES = 200
local MOVES = {
  { name = "right", buttons = { right = true } }, { name = "left", buttons = { left = true } },
  { name = "down", buttons = { down = true } }, { name = "up", buttons = { up = true } },
  { name = "down-right", buttons = { down = true, right = true } },
  { name = "up-right", buttons = { up = true, right = true } },
  { name = "down-left", buttons = { down = true, left = true } },
  { name = "up-left", buttons = { up = true, left = true } },
}

local function distance()
  return math.abs(memory.read_u8(0x03) - TARGET_X) + math.abs(memory.read_u8(0x04) - TARGET_Y)
end

for _ = 1, 5 do emu.frameadvance() end  -- let the game initialise

local path, tried = {}, 0
while distance() > 0 and #path < MAX_FRAMES do
  local start = savestate.create()
  local best, best_distance
  for _, move in ipairs(MOVES) do
    start:load()
    joypad.set(1, move.buttons)
    emu.frameadvance()
    tried = tried + 1
    local d = distance()
    if not best_distance or d < best_distance then best, best_distance = move, d end
  end
  start:load()
  joypad.set(1, best.buttons)
  emu.frameadvance()
  path[#path + 1] = best.name
end

if distance() == 0 then
  print(string.format("reached (%d, %d) in %d frames after trying %d branches", TARGET_X, TARGET_Y, #path, tried))
  print("first moves: " .. table.concat(path, " ", 1, math.min(5, #path)))
  emu.exit(0)
else
  print("gave up after " .. #path .. " frames")
  emu.exit(1)
end
