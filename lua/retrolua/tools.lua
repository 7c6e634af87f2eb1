-- The settings of the on-screen tools (the menu and the RAM tools) with their defaults, in one place:
-- each tool reads its own, and the menu also shows the RAM tools' key in effect. The user's
-- ~/.config/retrolua/menu.lua and ramtools.lua are merged over these (see retrolua.settings).

local tools = {}

local load = require("retrolua.settings").load

function tools.menu()
  return load("menu", {
    key = "f1", scale = 0, thumbnails = true, pause = true, first_run_hint = true,
    keys = { up = "up", down = "down", left = "left", right = "right", select = "return", alternate = "x",
             back = "backspace", close = "escape" },
    -- SDL GameController button names (by position).
    pad = { open = "guide", up = "dpup", down = "dpdown", left = "dpleft", right = "dpright", select = "a",
            alternate = "x", back = "b", close = "start" },
  })
end

function tools.ramtools()
  return load("ramtools", {
    panel_key = "f12", shown = 8, graph_frames = 120, overlay = true, scale = 0, rows = 12, pause = true,
    keys = {
      page = "tab", close = "escape", up = "up", down = "down", left = "left", right = "right",
      page_up = "pageup", page_down = "pagedown",
      restart = "r", changed = "v", unchanged = "u", increased = "i", decreased = "d", equal = "e", changed_by = "c",
      size = "s", signed = "n", endian = "b", hex = "x", domain = "o", freeze = "f", watch = "w",
      add = "a", label = "l", format = "t", graph = "g", remove = "delete", jump = "j", open = "p",
    },
  })
end

return tools
