-- The default hotkeys' actions, their default SDL key names and what each does: one list, read by the
-- hotkeys default (which answers the keys) and by the menu (which shows them). The user's
-- ~/.config/retrolua/hotkeys.lua overrides keys (`return { save_state = "ctrl+s", quit = false }`; false unbinds).

local hotkeys = {}

-- In the order the menu lists them.
hotkeys.actions = {
  { "quit", "escape", "quit" },
  { "fullscreen", "f11", "fullscreen on/off" },
  { "pause", "p", "pause/resume" },
  { "frame_advance", "n", "advance one frame (pauses)" },
  { "fast_forward_hold", "tab", "fast-forward while held" },
  { "fast_forward_toggle", "`", "fast-forward on/off" },
  { "slow_motion_hold", "\\", "slow motion while held" },
  { "save_state", "f2", "save the state in the slot" },
  { "load_state", "f4", "load the state of the slot" },
  { "slot_down", "f6", "previous slot" },
  { "slot_up", "f7", "next slot" },
  { "screenshot", "f8", "screenshot" },
  { "reset", "h", "reset" },
  { "movie_readonly", "m", "movie read-only/read-write" },
  { "movie_branch_save", "f9", "save the movie branch of the slot" },
  { "movie_branch_load", "f10", "load the movie branch of the slot" },
  -- The TAS editor (lua/defaults/tastudio.lua) over the current movie.
  { "tastudio", "f3", "TAS editor shown/hidden" },
  -- The in-window Lua console (lua/defaults/console.lua answers it; the hotkeys default has nothing to do).
  { "console", "f5", "Lua console shown/hidden" },
  -- Multi-disc games (cores with disk control): open/close the tray, pick the next or previous disc.
  { "disc_eject", "o", "open/close the disc tray" },
  { "disc_next", "]", "next disc" },
  { "disc_previous", "[", "previous disc" },
}

-- Keys other defaults answer, listed with these: rewind (lua/defaults/rewind.lua, held) and turbo
-- (lua/defaults/input.lua: while its key is held, a button is pressed every other `period` frames).
-- Their defaults live here; the user changes them in rewind.lua's `key` and input.lua's `turbo`.
hotkeys.REWIND = { key = "backspace", granularity = 2, memory_mb = 64 }
hotkeys.TURBO = { { key = "c", pad_button = "lefttrigger_unused", button = "a", period = 2 } }

-- The rewind default's settings in effect.
function hotkeys.rewind_settings()
  return require("retrolua.settings").load("rewind", hotkeys.REWIND)
end

-- The held keys in effect, for the menu: { {label, key}, … } (rewind, then each turbo button).
function hotkeys.held()
  local settings = require("retrolua.settings")
  local list = { { "rewind while held", hotkeys.rewind_settings().key } }
  local info = emu.info()
  local layers = { "input.lua", "input/" .. info.core .. ".lua" }
  if info.rom and info.rom.name then layers[3] = "input/" .. info.core .. "/" .. info.rom.name .. ".lua" end
  -- Only the turbo list of the input settings, quietly: the input default reports their mistakes.
  local input_settings = settings.load_layers("input", { turbo = hotkeys.TURBO }, layers, { quiet = true })
  for _, turbo in ipairs(input_settings.turbo) do
    if type(turbo) == "table" and type(turbo.key) == "string" then
      list[#list + 1] = { "turbo " .. tostring(turbo.button), turbo.key }
    end
  end
  return list
end

hotkeys.defaults = {}
hotkeys.descriptions = {}
for _, action in ipairs(hotkeys.actions) do
  hotkeys.defaults[action[1]] = action[2]
  hotkeys.descriptions[action[1]] = action[3]
end

-- The bindings in effect: the defaults with the user's settings file merged over them.
function hotkeys.load()
  return require("retrolua.settings").load("hotkeys", hotkeys.defaults, { allow_false = true })
end

return hotkeys
