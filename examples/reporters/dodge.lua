-- The Dodge demo's reporter (examples/roms/dodge, RAM layout in its README): what an agent needs to play,
-- read from memory each time `retrolua mcp`'s get_game_state asks. A reporter defines state(), returning a
-- table; the MCP server returns it as JSON. Positions are the top-left corner of 8×8 sprites, in pixels.
-- luacheck: globals state

local STATES = { [0] = "playing", [1] = "game over", [2] = "won" }

local function hazards()
  local falling = {}
  for slot = 0, 5 do
    -- A slot whose wait count is 0 is falling (and can hit); the others are waiting to appear.
    if memory.read_u8(0x40 + slot) == 0 then
      falling[#falling + 1] = { x = memory.read_u8(0x20 + slot), y = memory.read_u8(0x28 + slot),
                                speed = memory.read_u8(0x38 + slot) / 16 }
    end
  end
  return falling
end

function state()
  return {
    state = STATES[memory.read_u8(0x05)] or "unknown",
    player = { x = memory.read_u8(0x06), y = memory.read_u8(0x07) },
    lives = memory.read_u8(0x08),
    score = memory.read_u16_le(0x09),
    level = memory.read_u8(0x0B),
    invulnerable_frames = memory.read_u8(0x0C),
    coin = { x = memory.read_u8(0x0D), y = memory.read_u8(0x0E) },
    hazards = hazards(),
    goal = "collect 50 coins; falling blocks take a life",
  }
end
