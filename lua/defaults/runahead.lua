-- Default run-ahead, part of Retrolua's replaceable Lua frontend: hides N frames of the game's own
-- input lag. After each real frame it saves the state, runs N more frames with the current input
-- (only the last one drawn, none heard), shows that future picture, and puts the state back.
-- Off unless ~/.config/retrolua/runahead.lua returns e.g. `return { frames = 1 }`.
-- Once, at the first frame whose state the core can make, it checks that states restore exactly
-- (retrolua.sync_state, the SyncTest's comparison); where they do not, run-ahead would show frames the
-- game never reaches, and a message names the core and what differed.

local settings = require("retrolua.settings").load("runahead", { frames = 0 })

if settings.frames > 0 then
  local sync = require("retrolua.sync_state")
  local snapshot, checked
  event.on("frame_end", function()
    if not checked then
      local exact, why = sync.restores(settings.frames + 1)
      if exact == nil then return end  -- the core cannot save yet: neither can run-ahead
      checked = true
      if not exact then
        local info = emu.info()
        emu.message(string.format("run-ahead: %s %s does not restore its states exactly (%s): the frames shown " ..
                                  "may be ones the game never reaches", info.core, info.core_version or "", why))
      end
    end
    if snapshot then snapshot:save() else snapshot = savestate.create() end
    for i = 1, settings.frames do
      emu.run_frame({ video = i == settings.frames, audio = false })
    end
    snapshot:load({ quiet = true })
  end)
end
