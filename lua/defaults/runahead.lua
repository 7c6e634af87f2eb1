-- Default run-ahead, part of Retrolua's replaceable Lua frontend: hides N frames of the game's own
-- input lag. After each real frame it saves the state, runs N more frames with the current input
-- (only the last one drawn, none heard), shows that future picture, and puts the state back.
-- Off unless ~/.config/retrolua/runahead.lua returns e.g. `return { frames = 1 }`.

local settings = require("retrolua.settings").load("runahead", { frames = 0 })

if settings.frames > 0 then
  local snapshot
  event.on("frame_end", function()
    if snapshot then snapshot:save() else snapshot = savestate.create() end
    for i = 1, settings.frames do
      emu.run_frame({ video = i == settings.frames, audio = false })
    end
    snapshot:load({ quiet = true })
  end)
end
