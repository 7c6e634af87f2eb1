-- Default in-window Lua console, part of Retrolua's replaceable Lua frontend. f5 (the `console` hotkey)
-- shows and hides it over the top of the picture; while it is shown it takes the keyboard
-- (input.capture: nothing reaches the game or the other hotkeys) and escape hides it.
--
-- A line typed runs in the run's console evaluator (console.evaluate: one Lua state for the run, the
-- default security profile, its globals kept from line to line): an expression shows its value (`1+1`
-- shows 2), print and console.* output and errors show below it, and `emu.frameadvance()` advances one
-- frame. A chunk that needs more lines (`for i = 1, 3 do`) shows the ">>" prompt until it is complete.
--
-- Keys: left/right/home/end move in the line, backspace/delete erase, up/down walk the history (kept in
-- the data folder, console/history.txt, for the next runs), tab completes a name (several matches: their
-- common start, and the list below), page up/down scroll back, ctrl+c drops the line and a chunk being
-- gathered, ctrl+u clears the line, ctrl+k erases to its end, ctrl+a / ctrl+e go to its start / end,
-- ctrl+l clears the scrollback. Under --speak each answer is read aloud.
--
-- Its key is the hotkeys' `console` (~/.config/retrolua/hotkeys.lua: `return { console = "f5" }`). Settings
-- in ~/.config/retrolua/console.lua, e.g. `return { scale = 2, height = 60, pause = true }`: scale 0 follows
-- the OSD's scale (else 1–16), height is the share of the window in percent (20–100), pause pauses the
-- game while the console is shown, history the lines kept. Replace it with
-- ~/.config/retrolua/scripts/console.lua or turn it off with `--no-default console`.

local ui = require("retrolua.ui")
local console_model = require("retrolua.console_model")

local settings = require("retrolua.settings").load("console", {
  scale = 0, height = 50, pause = false, history = 500, scrollback = 1000,
})
if settings.scale ~= 0 and not (math.type(settings.scale) == "integer" and settings.scale >= 1 and settings.scale <= 16) then
  console.warn("console settings: scale must be 0 (the OSD's) or a whole number 1–16, not " .. tostring(settings.scale))
  settings.scale = 0
end
if not (math.type(settings.height) == "integer" and settings.height >= 20 and settings.height <= 100) then
  console.warn("console settings: height must be a whole number 20–100 (percent), not " .. tostring(settings.height))
  settings.height = 50
end
if not (math.type(settings.history) == "integer" and settings.history >= 0) then settings.history = 500 end
if not (math.type(settings.scrollback) == "integer" and settings.scrollback >= 10) then settings.scrollback = 1000 end

local HISTORY = "console/history.txt"

local model = console_model.new({
  history = console_model.parse_history(emu.load_data(HISTORY), settings.history),
  history_size = settings.history, scrollback = settings.scrollback,
})

-- The key that shows and hides it: the hotkeys' `console` binding, with its modifiers ("ctrl+f5").
local MODIFIERS = { "ctrl", "alt", "gui", "shift" }
local toggle
do
  local text = require("retrolua.hotkeys").load().console
  if text then
    toggle = {}
    while true do
      local modifier, rest = text:match("^(%a+)%+(.+)$")
      if modifier ~= "ctrl" and modifier ~= "alt" and modifier ~= "gui" and modifier ~= "shift" then break end
      toggle[modifier] = true
      text = rest
    end
    toggle.key = text
  end
end

-- The modifiers are the key event's own (held as the key went down), as for every default: see ui.char.
local function is_toggle(key, mods)
  if not toggle or key ~= toggle.key then return false end
  for _, modifier in ipairs(MODIFIERS) do
    -- Shift is free on a binding without it (as for the hotkeys).
    if mods[modifier] ~= (toggle[modifier] or false) and (modifier ~= "shift" or toggle.shift) then return false end
  end
  return true
end

local open = false
local greeted = false
local resume_on_close = false
local draw_handler
local draw

local function say(lines)
  if #lines == 0 then return end
  ui.speak_again()
  ui.speak(table.concat(lines, "\n"))
end

local saving_failed = false
local function save_history()
  local ok, problem = emu.save_data(HISTORY, console_model.history_text(model.history))
  if not ok and not saving_failed then
    saving_failed = true
    console.warn("console: the history is not kept: " .. tostring(problem))
  end
end

local send

local function on_reply(reply)
  say(model:reply(reply))
  send(model:next_chunk())
end

function send(chunk)
  if not chunk then return end
  local evaluate = console.evaluate
  if type(evaluate) ~= "function" then
    return on_reply({ status = "error", error = "console: this build has no console evaluator (console.evaluate)" })
  end
  local ok, sent, why = pcall(evaluate, chunk, on_reply)
  if not ok or not sent then on_reply({ status = "error", error = tostring(ok and why or sent) }) end
end

local function complete()
  local complete_with = console.complete
  if type(complete_with) ~= "function" then return end
  local text, ticket = model:completion()
  local ok, sent = pcall(complete_with, text, function(matches)
    local outcome = model:complete(matches, ticket)
    if outcome == "several" then
      say({ #matches .. " matches" })
    elseif outcome == "one" then
      say({ model.line })
    end
  end)
  if not ok or not sent then model:print("console: completion failed: " .. tostring(sent), "error") end
end

local function set_open(on)
  if on == open then return end
  if on then
    local ok, why = input.capture(true)
    if not ok then return emu.message("console: " .. tostring(why)) end
    draw_handler = draw_handler or event.on("draw", draw)
    resume_on_close = settings.pause and not emu.paused()
    if resume_on_close then emu.pause() end
    if not greeted then
      greeted = true
      model:print("Lua console: an expression shows its value; escape closes.\n"
                  .. "tab completes, up/down: history, page up/down: scroll.", "info")
    end
    ui.speak_again()
    ui.speak("Lua console")
  else
    input.capture(false)
    if resume_on_close and emu.paused() then emu.unpause() end
    resume_on_close = false
    if draw_handler then event.off(draw_handler) end
    draw_handler = nil
    ui.speak_again()
    ui.speak("console closed")
  end
  open = on
end

-- The layout of one draw: scale, sizes, rows and columns.
local function layout()
  local scale = settings.scale > 0 and settings.scale or ui.osd_scale()
  local width, height = gui.surface_size("hud")
  local line, char = ui.line_height(scale), ui.char_width(scale)
  local rows = math.max(2, (height * settings.height // 100 - 4 * scale) // line)
  local columns = math.max(10, (width - 4 * scale) // char)
  return { scale = scale, width = width, line = line, char = char, rows = rows, columns = columns,
           visible = rows - 1 }
end

local last_layout

local ACTIONS = {
  left = function() model:left() end,
  right = function() model:right() end,
  home = function() model:home() end,
  ["end"] = function() model:finish() end,
  backspace = function() model:backspace() end,
  delete = function() model:delete() end,
  up = function() model:history_up() end,
  down = function() model:history_down() end,
  pageup = function() if last_layout then model:page(1, last_layout.columns, last_layout.visible) end end,
  pagedown = function() if last_layout then model:page(-1, last_layout.columns, last_layout.visible) end end,
  tab = complete,
  escape = function() set_open(false) end,
}

local function enter()
  local line = model.line
  if model:remember(line) then save_history() end
  -- While a chunk is out, the line waits in the model's queue (echoed when it is sent).
  send(model:enter())
end
ACTIONS["return"] = enter
ACTIONS["keypad enter"] = enter

local CTRL = {
  c = function() model:cancel() end,
  u = function() model:clear_line() end,
  k = function() model:kill_to_end() end,
  a = function() model:home() end,
  e = function() model:finish() end,
  l = function() model:clear() end,
}

event.on("key_down", function(key, is_repeat, mods)
  if is_toggle(key, mods) then
    if not is_repeat then set_open(not open) end
    return
  end
  if not open then return end
  if mods.ctrl then
    if CTRL[key] then CTRL[key]() end
    return
  end
  if ACTIONS[key] then return ACTIONS[key]() end
  if mods.alt or mods.gui then return end
  local char = ui.char(key, mods)
  if char then model:insert(char) end
end)

local COLORS = { echo = "#a0c8ff", value = "white", out = "#d8d8d8", err = "#ffb060", error = "#ff6060",
                 info = "#a0a0a0" }

function draw()
  local l = layout()
  last_layout = l
  local height = l.rows * l.line + 4 * l.scale
  gui.rect(0, 0, l.width, height, { surface = "hud", color = "#606060", fill = "#000000d8" })
  local x, y = 2 * l.scale, 2 * l.scale
  local rows = model:rows(l.columns)
  local first, last = model:view(l.columns, l.visible)
  for index = first, last do
    local row = rows[index]
    ui.text(x, y + (index - first) * l.line, row.text, l.scale, COLORS[row.kind] or "white")
  end
  if model.scroll > 0 then
    local text = string.format("[%d more below: page down]", model.scroll)
    ui.text(l.width - gui.text_size(text, l.scale) - 2 * l.scale, y, text, l.scale, "yellow", "#000000c0")
  end
  -- The input line, scrolled sideways to keep the cursor in view.
  local prompt = model:prompt()
  local room = math.max(1, l.columns - #prompt)
  local offset = math.max(0, model.cursor - room + 1)
  local input_y = y + l.visible * l.line
  local cursor_x = x + (#prompt + model.cursor - offset) * l.char
  gui.rect(cursor_x, input_y - l.scale, l.char, l.line - l.scale, { surface = "hud", color = "#3070c0", fill = "#3070c0" })
  ui.text(x, input_y, prompt .. model.line:sub(offset + 1, offset + room), l.scale, "white")
end

-- Unloaded (scripts.unload, the menu's Default scripts page) or the run ends while shown: the keyboard goes
-- back (the host would release it too) and so does the pause the console made.
event.on("exit", function()
  if open then set_open(false) end
end)
