-- Default on-screen menu, part of Retrolua's replaceable Lua frontend. f1 opens and closes it; while it
-- is open it takes the keyboard and gamepads (the game and the other hotkeys get nothing:
-- input.capture). Pages: the hotkeys in effect (rewind and turbo too), core options changed live and
-- kept for the next start (emu.option's save), save slots with thumbnails, cheats on/off and a cheat
-- code typed in, achievements with their progress, the loaded scripts (load, unload, reload, their
-- errors), the default scripts on/off and netplay (host, join, spectate, the delay). Under --speak the
-- page title and the chosen item are spoken.
-- The first run says once which keys open the menu, the RAM tools and the TAS editor (remembered:
-- settings.remember; `first_run_hint = false` in the settings never shows it).
--
-- Keys: up/down choose, left/right change a value, return does it, x the second action (save a slot,
-- reload a script), backspace goes back, escape or f1 closes. Gamepads: the d-pad, a (does it), b (back),
-- x (second action), start (close), SDL's names for positions; the guide button opens it. The text grows with the window.
-- The game is paused while it is open (`pause = false` in the settings keeps it running).
-- Settings in ~/.config/retrolua/menu.lua, e.g. `return { key = "f1", scale = 3, keys = { back = "q" } }`;
-- replace it with ~/.config/retrolua/scripts/menu.lua or turn it off with `--no-default menu`.

local ui = require("retrolua.ui")
local hotkeys = require("retrolua.hotkeys")
local slot_actions = require("retrolua.slot_actions")
local settings = require("retrolua.tools").menu()
local ramtools_key = require("retrolua.tools").ramtools().panel_key

local rom = emu.info().rom
local game = rom and rom.name and (rom.name .. (rom.sha1 and ("-" .. rom.sha1:sub(1, 8)) or ""))

-- Thumbnails of the save slots, kept in the data folder (lua/retrolua/slot_thumbnails.lua).
local thumbnails = require("retrolua.slot_thumbnails").new(game)

event.on("state_saved", function(target)
  if settings.thumbnails and math.type(target) == "integer" and target >= 0 and target <= 9 then thumbnails.make(target) end
end)

-- Achievements: the game's set with each entry's description and what is wrong with a broken one
-- (the page is built by retrolua.achievements.page, beside the engine).
local function achievement_items()
  return require("retrolua.achievements.page").build(rom and rom.name)
end

-- The core's options, each changed live and kept for the next start (lua/retrolua/core_options_page.lua).
local option_items = require("retrolua.core_options_page").items

local function slot_items()
  local items = {}
  for slot = 0, 9 do
    items[#items + 1] = {
      label = "slot " .. slot,
      value = function()
        local info = savestate.slot_info(slot)
        return info and os.date("%Y-%m-%d %H:%M", info.modified) or "empty"
      end,
      image = function() return thumbnails.get(slot) end,
      select = function() slot_actions.load(slot) end,
      alternate = function() slot_actions.save(slot) end,
    }
  end
  return items
end

local entry  -- a line being typed (a script's path, a cheat code): ui.entry with a `done` function

-- A cheat code as typed: "ADDRESS:VALUE" (hex, a RAM cheat in the default domain) or a code the core
-- reads (Game Genie, Pro Action Replay, GameShark: cheats.add_code).
local function add_cheat(code)
  code = code:gsub("^%s+", ""):gsub("%s+$", "")
  if code == "" then return end
  local address, value = code:match("^(%x+)[:=](%x%x?)$")
  local id, problem
  if address and #address <= 8 then
    id, problem = cheats.add_ram({ address = tonumber(address, 16), value = tonumber(value, 16), description = code })
  else
    id, problem = cheats.add_code(code, { description = code })
  end
  emu.message(id and ("cheat added: " .. code) or ("cheat " .. code .. ": " .. tostring(problem)))
end

-- An on/off item: choosing it or pressing left or right flips it.
local function toggle_item(label, value, toggle)
  return { label = label, value = value, select = toggle, left = toggle, right = toggle }
end

local function cheat_items()
  local items = { { label = "add a cheat code...", select = function()
    entry = ui.entry("cheat code (Game Genie, Pro Action Replay, or ADDRESS:VALUE)", "text")
    entry.done = add_cheat
  end } }
  for _, cheat in ipairs(cheats.list()) do
    local function toggle()
      local ok, problem = cheats.enable(cheat.id, not cheat.enabled)
      if ok then cheat.enabled = not cheat.enabled else emu.message(problem or "no such cheat") end
    end
    items[#items + 1] = toggle_item(cheat.description ~= "" and cheat.description or ("cheat " .. cheat.id),
                                    function() return cheat.enabled and "on" or "off" end, toggle)
  end
  if #items == 1 then items[2] = { label = "no cheats yet (type a code above, or find one with the RAM search)" } end
  return items
end

local function script_items()
  local items = { { label = "load a script...", select = function()
    entry = ui.entry("script path", "text")
    entry.done = function(path)
      if path == "" then return end
      local ok, problem = scripts.load(path)
      if not ok then emu.message(problem) end
    end
  end } }
  for _, script in ipairs(scripts.list()) do
    items[#items + 1] = {
      label = script.name, color = script.error and "#ff6060" or "white",
      value = script.loaded and "loaded" or (script.error and "failed" or "unloaded"),
      detail = script.error and script.error:match("[^\n]*"),  -- the message, not its traceback (wrapped whole)
      select = function()
        local ok, problem
        if script.loaded then ok, problem = scripts.unload(script.path) else ok, problem = scripts.reload(script.path) end
        if not ok then emu.message(problem) end
      end,
      alternate = function()
        local ok, problem = scripts.reload(script.path)
        if not ok then emu.message(problem) end
      end,
    }
    if script.network == "refused" then
      -- Asked once per script and content: the grant is remembered and the script restarts with it.
      items[#items + 1] = {
        label = "  allow loopback network", color = "#ffd040",
        detail = script.name .. " asked for the network; this lets it reach this computer only (127.0.0.1)",
        select = function()
          local ok, problem = scripts.grant_network(script.path)
          emu.message(ok and (script.name .. ": loopback network allowed") or problem)
        end,
      }
    end
  end
  return items
end

local function default_items()
  local items = {}
  for _, default in ipairs(scripts.defaults()) do
    local function toggle()
      if default.name == "menu" then return emu.message("the menu stays on (--no-default menu turns it off)") end
      local ok, problem
      if default.loaded then ok, problem = scripts.unload(default.path) else ok, problem = scripts.load(default.path) end
      if not ok then emu.message(problem) end
    end
    items[#items + 1] = toggle_item(default.name, default.loaded and "on" or "off", toggle)
  end
  if #items == 0 then items[1] = { label = "no default scripts in this run" } end
  return items
end

local function hotkey_items()
  local bindings = hotkeys.load()
  local items = { { label = "menu", value = settings.key }, { label = "RAM tools", value = ramtools_key } }
  for _, action in ipairs(hotkeys.actions) do
    local key = bindings[action[1]]
    items[#items + 1] = { label = hotkeys.descriptions[action[1]], value = key or "(unbound)" }
  end
  for _, held in ipairs(hotkeys.held()) do items[#items + 1] = { label = held[1], value = held[2] or "(unbound)" } end
  return items
end

local open = false
local resume_on_close = false  -- the menu paused the game (settings.pause), so closing it resumes
local stack = {}  -- pages: { title=, build=, items=, selected= }
local handlers = {}  -- the draw and gamepad callbacks, registered only while the menu is open
local draw_menu

local function value_text(item)
  local value = item.value
  if type(value) == "function" then value = value() end
  return value and tostring(value) or ""
end

-- Under --speak: the chosen item ("slot 3, empty"), after the page's title when `title`.
local function speak_choice(title)
  local page = stack[#stack]
  if not page then return end
  local item = page.items[page.selected]
  local said = item and item.label:gsub("%.%.%.$", "") or ""
  local value = item and value_text(item) or ""
  if value ~= "" then said = said .. ", " .. value end
  if title then
    ui.speak_again()
    said = page.title .. ". " .. said
  end
  ui.speak(said)
end

local function push(title, build)
  stack[#stack + 1] = { title = title, build = build, items = build(), selected = 1 }
  speak_choice(true)
end

local function set_open(on)
  if on then
    local ok, why = input.capture(true)
    if not ok then return emu.message("menu: " .. tostring(why)) end
    handlers.draw = handlers.draw or event.on("draw", draw_menu)
    -- Paused like other frontends' menus (the host redraws the hud while paused, so the menu stays live).
    resume_on_close = settings.pause and not open and not emu.paused()
    if resume_on_close then emu.pause() end
    if not open then speak_choice(true) end
  else
    input.capture(false)
    if resume_on_close and emu.paused() then emu.unpause() end
    resume_on_close = false
    entry = nil
    if open then ui.speak("menu closed") end
    for name, id in pairs(handlers) do
      event.off(id)
      handlers[name] = nil
    end
  end
  open = on
end

-- The Netplay page (retrolua.menu_netplay): a line typed for an address or a room; a session started closes the menu.
local netplay_page = {
  ask = function(prompt, done)
    entry = ui.entry(prompt, "text")
    entry.done = done
  end,
  close = function() set_open(false) end,
}
local function netplay_items() return require("retrolua.menu_netplay").items(netplay_page) end

local function root_items()
  return {
    { label = "Resume", select = function() set_open(false) end },
    { label = "Hotkeys", select = function() push("Hotkeys", hotkey_items) end },
    { label = "Core options", select = function() push("Core options", option_items) end },
    { label = "Save states", select = function() push("Save states (return loads, x saves)", slot_items) end },
    { label = "Cheats", select = function() push("Cheats", cheat_items) end },
    { label = "Achievements", select = function() push("Achievements", achievement_items) end },
    { label = "Scripts", select = function() push("Scripts (return on/off, x reloads)", script_items) end },
    { label = "Default scripts", select = function() push("Default scripts", default_items) end },
    { label = "Netplay", select = function() push("Netplay", netplay_items) end },
  }
end

local function refresh(page)
  page.items = page.build()
  page.selected = math.max(1, math.min(page.selected, #page.items))
end

local function act(name)
  local page = stack[#stack]
  if name == "close" or name == "open" then return set_open(false) end
  if name == "back" then
    if #stack > 1 then
      stack[#stack] = nil
      speak_choice(true)
    else
      set_open(false)
    end
    return
  end
  if name == "up" then page.selected = (page.selected - 2) % #page.items + 1 return speak_choice() end
  if name == "down" then page.selected = page.selected % #page.items + 1 return speak_choice() end
  local item = page.items[page.selected]
  local action = item and item[name]
  if action then
    local depth = #stack
    action()
    -- Requests to scripts land before the next frame: the page is rebuilt then (see draw).
    if #stack == depth then
      page.dirty = true
      if open and not entry then speak_choice() end
    end
  end
end

local key_actions, pad_actions = {}, {}
for name, key in pairs(settings.keys) do key_actions[key] = name end
for name, button in pairs(settings.pad) do pad_actions[button] = name end

event.on("key_down", function(key, is_repeat, mods)
  if key == settings.key then
    if not is_repeat then
      if not open and #stack == 0 then push("Retrolua", root_items) end
      set_open(not open)
    end
    return
  end
  if not open then return end
  if entry then
    local typed = entry
    local outcome = ui.type(typed, key, mods)
    if outcome then entry = nil end
    if outcome == "done" then
      typed.done(typed.text)
      stack[#stack].dirty = true
    end
    if outcome then speak_choice() end
    return
  end
  local name = key_actions[key]
  local moves = name == "up" or name == "down" or name == "left" or name == "right"
  if name and (not is_repeat or moves) then act(name) end
end)

-- Gamepads: `pad.open` (the guide button) opens the menu, then the d-pad and buttons drive it. pad_held
-- keeps the buttons down at the last look, so a held button acts once.
local pad_held = {}
event.on("frame_start", function()
  for _, button in ipairs(ui.pad_presses(pad_held)) do
    if not open then
      if button == settings.pad.open then
        if #stack == 0 then push("Retrolua", root_items) end
        set_open(true)
      end
    elseif pad_actions[button] then
      act(pad_actions[button])
    end
  end
end)

function draw_menu()
  local page = stack[#stack]
  if page.dirty then
    page.dirty = false
    refresh(page)
  end
  local scale = ui.scale(settings.scale)
  local width, height = gui.surface_size("hud")
  local line = ui.line_height(scale)
  local columns = math.max(10, (width - 16 * scale) // ui.char_width(scale))
  -- Below the OSD's PAUSED sign while the game is paused (the menu pauses it), so neither hides the other.
  local sign = ui.paused_sign()
  local x, y = 4 * scale, sign and (sign.y + sign.height + 2 * scale) or 4 * scale
  local chosen = page.items[page.selected]
  -- The chosen item's detail (a script's error: file:line and message) wrapped whole, under the list.
  local footer
  if entry then
    footer = { { text = ui.entry_line(entry):sub(-columns), color = "cyan" } }
  elseif chosen and chosen.detail then
    footer = {}
    for _, text in ipairs(ui.wrap(chosen.detail, columns)) do
      footer[#footer + 1] = { text = text, color = chosen.detail_color or "#ff6060" }
    end
  end
  -- Lines that fit under y: the title, the items, the footer (a whole error, then fewer items; at least one).
  local fit = (height - y - 4 * scale) // line - 2
  while footer and #footer > math.max(1, fit - 2) do table.remove(footer) end
  local visible = math.max(1, fit - 1 - math.max(1, footer and #footer or 0))
  local first = math.max(1, math.min(page.selected - visible // 2, #page.items - visible + 1))
  local lines = { { text = page.title, color = "cyan" } }
  for index = first, math.min(#page.items, first + visible - 1) do
    local item = page.items[index]
    local selected = index == page.selected
    local value = value_text(item)
    local label = (selected and "> " or "  ") .. item.label
    local room = columns - #value - 1
    if #label > room then label = label:sub(1, math.max(1, room - 1)) .. "~" end
    local text = value ~= "" and (label .. string.rep(" ", room - #label + 1) .. value) or label
    lines[#lines + 1] = { text = text, color = selected and "yellow" or item.color or "white" }
  end
  for _, footer_line in ipairs(footer or {}) do lines[#lines + 1] = footer_line end
  ui.panel(x, y, lines, scale, { min_width = columns * ui.char_width(scale) })
  local image = chosen and chosen.image and chosen.image()
  if image then
    gui.image(width - image:width() - 12 * scale, y + 4 * scale, image, { surface = "hud" })
  end
end

-- The first run says which keys open the tools, once (remembered in the data folder).
-- Said on the first frame, when every default (the OSD) listens.
if settings.first_run_hint then
  local hint
  hint = event.on("frame_end", function()
    event.off(hint)
    local bindings = hotkeys.load()
    emu.message(string.format("keys: %s menu, %s RAM tools%s", settings.key, ramtools_key,
                              bindings.tastudio and (", " .. bindings.tastudio .. " TAS editor") or ""))
    local ok, problem = require("retrolua.settings").remember("menu", "first_run_hint", false)
    if not ok then console.warn("menu: the first-run hint is not remembered: " .. tostring(problem) .. "\n") end
  end)
end
