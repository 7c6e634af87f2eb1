-- Shared pieces of the on-screen tools (the menu, the RAM tools) on the hud surface: a text scale from
-- the window size, styled lines, typed text from key names, gamepad buttons as presses.
--
--   local ui = require("retrolua.ui")
--   local s = ui.scale(settings.scale)            -- 1 in a small window, more in a big one
--   ui.text(x, y, "hello", s, "white", "#000000c0")
--   local entry = ui.entry("address", "hex")      -- then ui.type(entry, key, mods) from key_down

local ui = {}

-- The text scale: `setting` when it is a positive integer, else from the hud (1 up to 600 pixels).
function ui.scale(setting)
  if math.type(setting) == "integer" and setting > 0 then return math.min(setting, 16) end
  local width, height = gui.surface_size("hud")
  return math.max(1, math.min(16, math.min(width, height) // 300))
end

-- The OSD's text scale (lua/defaults/osd.lua): its settings' `scale` when set (1–16), else from the
-- window (gui.text_scale). Every indicator on the game's picture (messages, the slot, rewind,
-- fast-forward) draws at it, so they grow together.
local osd_settings
local function osd()
  if osd_settings == nil then
    osd_settings = require("retrolua.settings").load("osd", { scale = 0, paused = true }, { quiet = true })
  end
  return osd_settings
end
function ui.osd_scale()
  local setting = osd().scale
  if math.type(setting) == "integer" and setting >= 1 and setting <= 16 then return setting end
  return gui.text_scale("hud")
end

-- The OSD's "|| PAUSED" sign while the game is paused (unless the OSD's `paused = false`): `{text=, scale=,
-- x=, y=, width=, height=}`, top middle of the hud, one size above the OSD's text; nil while not shown. The
-- OSD draws it; what else is drawn at the top (the OSD's other lines, the menu) keeps below it.
function ui.paused_sign()
  if not emu.paused() or osd().paused == false then return nil end
  local osd_scale = ui.osd_scale()
  local scale = osd_scale + 1
  local text = "|| PAUSED"
  local width, height = gui.text_size(text, scale)
  return { text = text, scale = scale, x = (gui.surface_size("hud") - width) // 2, y = 4 * osd_scale,
           width = width, height = height }
end

-- `text` cut into lines of at most `columns` characters, at spaces where it can (a word longer than a
-- line is cut). UTF-8 characters count as one.
function ui.wrap(text, columns)
  columns = math.max(1, columns)
  local lines = {}
  for paragraph in (text .. "\n"):gmatch("([^\n]*)\n") do
    local line = ""
    for word in paragraph:gmatch("%S+") do
      while utf8.len(word) and utf8.len(word) > columns do
        if line ~= "" then lines[#lines + 1] = line; line = "" end
        local cut = utf8.offset(word, columns + 1)
        lines[#lines + 1] = word:sub(1, cut - 1)
        word = word:sub(cut)
      end
      local length = (utf8.len(line) or #line) + (line ~= "" and 1 or 0) + (utf8.len(word) or #word)
      if line ~= "" and length > columns then
        lines[#lines + 1] = line
        line = word
      else
        line = line ~= "" and (line .. " " .. word) or word
      end
    end
    if line ~= "" or #lines == 0 then lines[#lines + 1] = line end
  end
  return lines
end

-- Style tables are kept, so drawing every frame makes no garbage.
local styles = {}
local function style(scale, color, bg)
  local key = scale .. "|" .. color .. "|" .. (bg or "")
  local found = styles[key]
  if not found then
    found = { surface = "hud", color = color, bg = bg, scale = scale }
    styles[key] = found
  end
  return found
end

function ui.text(x, y, text, scale, color, bg)
  return gui.text(x, y, text, style(scale, color or "white", bg))
end

-- Pixels per line and per character at `scale`.
function ui.line_height(scale) return 10 * scale end
function ui.char_width(scale) return 6 * scale end

-- A box of lines: { {text=, color=}, … } or strings; returns its width and height.
function ui.panel(x, y, lines, scale, options)
  options = options or {}
  local width = 0
  for _, line in ipairs(lines) do
    local text = type(line) == "table" and line.text or line
    width = math.max(width, gui.text_size(text, scale))
  end
  width = math.max(width, options.min_width or 0) + 4 * scale
  local height = #lines * ui.line_height(scale) + 2 * scale
  if x < 0 then x = gui.surface_size("hud") + x - width end
  gui.rect(x, y, width, height, { surface = "hud", color = options.border or "#808080", fill = options.fill or "#000000d0" })
  for index, line in ipairs(lines) do
    local text, color, bg = line, "white", nil
    if type(line) == "table" then text, color, bg = line.text, line.color or "white", line.bg end
    ui.text(x + 2 * scale, y + 2 * scale + (index - 1) * ui.line_height(scale), text, scale, color, bg)
  end
  return width, height
end

local SHIFTED = { ["-"] = "_", ["="] = "+", ["/"] = "?", [";"] = ":", ["."] = ">", [","] = "<", ["'"] = "\"",
                  ["1"] = "!", ["2"] = "@", ["3"] = "#", ["4"] = "$", ["5"] = "%", ["6"] = "^", ["7"] = "&",
                  ["8"] = "*", ["9"] = "(", ["0"] = ")", ["["] = "{", ["]"] = "}", ["\\"] = "|", ["`"] = "~" }

-- The character a key types (SDL key names), nil for keys that type none. `mods` is the key event's own
-- (key_down's third argument): the keys held when a frame's events are handled (input.keys()) may already
-- have let go of a shift pressed for one character, or hold the shift of the next one (a fast typist, xdotool).
function ui.char(key, mods)
  if key == "space" then return " " end
  local pad = key:match("^keypad (.)$")
  if pad then return pad end
  if #key ~= 1 then return nil end
  if mods and mods.shift then return SHIFTED[key] or key:upper() end
  return key
end

-- Reads `text` aloud under --speak (emu.speak: a newer text replaces one not yet said, so moving through
-- a list says where it stops); nothing without --speak. The last text said is not repeated.
local last_spoken
function ui.speak(text)
  if text == nil or text == last_spoken or not emu.speak then return end
  last_spoken = text
  emu.speak(text)
end

-- Forgets the last text said, so the same text (a page opened again) is said again.
function ui.speak_again() last_spoken = nil end

-- A line being typed: kind "hex", "decimal" (both may start with "-" when `signed`), or "text". Its
-- prompt is spoken under --speak.
function ui.entry(prompt, kind, signed, text)
  ui.speak_again()
  ui.speak(prompt .. (kind == "hex" and ", hex" or "") .. ((text or "") ~= "" and (": " .. text) or ""))
  return { prompt = prompt, kind = kind, signed = signed, text = text or "" }
end

local LIMITS = { hex = 8, decimal = 11, text = 200 }

-- Feeds a key (with its event's modifiers) to an entry: "done" (return), "cancel" (escape), or nil while typing.
function ui.type(entry, key, mods)
  if key == "return" or key == "keypad enter" then return "done" end
  if key == "escape" then return "cancel" end
  if key == "backspace" then
    entry.text = entry.text:sub(1, -2)
    return nil
  end
  local char = ui.char(key, mods)
  if not char or #entry.text >= LIMITS[entry.kind] then return nil end
  local ok
  if entry.kind == "text" then
    ok = char:match("^[ -~]$") ~= nil
  elseif char == "-" then
    ok = entry.signed and entry.text == ""
  else
    ok = char:match(entry.kind == "hex" and "^%x$" or "^%d$") ~= nil
  end
  if ok then entry.text = entry.text .. char end
  return nil
end

-- The entry's number, or nil when it holds none.
function ui.number(entry)
  local negative = entry.text:sub(1, 1) == "-"
  local digits = negative and entry.text:sub(2) or entry.text
  if digits == "" then return nil end
  local value = math.tointeger(tonumber(digits, entry.kind == "hex" and 16 or 10))
  if not value then return nil end
  return negative and -value or value
end

-- The prompt line of an entry, with a cursor.
function ui.entry_line(entry)
  return string.format("%s%s %s_", entry.prompt, entry.kind == "hex" and " (hex)" or "", entry.text)
end

-- Gamepad buttons newly pressed since the last call (`held` is the caller's table of buttons down).
function ui.pad_presses(held)
  local now = {}
  for _, pad in ipairs(input.gamepads()) do
    for name in pairs(pad.buttons) do now[name] = true end
  end
  local pressed = {}
  for name in pairs(now) do
    if not held[name] then pressed[#pressed + 1] = name end
  end
  for name in pairs(held) do held[name] = nil end
  for name in pairs(now) do held[name] = true end
  table.sort(pressed)
  return pressed
end

return ui
