-- Default rewind, part of Retrolua's replaceable Lua frontend: records the game into a native,
-- compressed history (the rewind module) and walks back through it while the rewind key is held.
-- Settings in ~/.config/retrolua/rewind.lua, e.g. `return { key = "r", granularity = 1, memory_mb = 128 }`.
-- While it rewinds, "<< REWIND" shows at the top of the picture, at the OSD's scale.
-- Every 2nd frame by default: rewinding looks the same, and recording costs half (a savestate per
-- recorded frame is most of the default frontend's cost).

-- The defaults are in lua/retrolua/hotkeys.lua (the menu's hotkeys page lists the key from there).
local settings = require("retrolua.hotkeys").rewind_settings()

local history = rewind.new({ memory_mb = settings.memory_mb })
local held, rewinding = false, false

event.on("key_down", function(key) if key == settings.key then held = true end end)
event.on("key_up", function(key) if key == settings.key then held, rewinding = false, false end end)

-- Everything happens after a frame has run: recording keeps the state that frame produced, and
-- rewinding puts an older one back (the frame that just ran is discarded), so the game's memory is
-- exactly that of the recorded frame; the picture catches up one frame later.
event.on("frame_end", function()
  if not held then
    if emu.framecount() % settings.granularity == 0 then history:push() end
    return
  end
  if not rewinding then
    rewinding = true
    history:step()  -- The newest entry is the frame shown just before rewinding started.
  end
  if not history:step() and rewinding ~= "ended" then
    rewinding = "ended"
    emu.message("rewind: reached the oldest recorded frame")
  end
end)

-- The rewind sign, top middle (below the OSD's PAUSED and speed signs), only while rewinding.
local ui = require("retrolua.ui")
event.on("draw", function()
  if not rewinding then return end
  local scale = ui.osd_scale()
  local text = rewinding == "ended" and "<< REWIND (oldest frame)" or "<< REWIND"
  local width = gui.surface_size("hud")
  local y = 4 * scale + 2 * ui.line_height(scale) + 2 * scale
  gui.text((width - gui.text_size(text, scale)) // 2, y, text,
           { surface = "hud", color = "#ffa040", bg = "#000000a0", scale = scale })
end)
