-- Default cheats, part of Retrolua's replaceable Lua frontend: each game's cheats live in
-- ~/.config/retrolua/cheats/GAME.cht (RetroArch's format), loaded at start and saved at exit when
-- they changed; and a RAM search panel on the OSD to find new ones.
--
-- RAM search: f12 opens the panel and starts a search (8-bit, default memory domain). Then play and
-- narrow it down: v changed (varied), u unchanged, i increased, d decreased since the last step; r restarts;
-- f freezes the first result at its current value (a new RAM cheat, saved with the game's cheats).
-- Settings in ~/.config/retrolua/cheats.lua, e.g. `return { panel_key = "f12", shown = 8 }`.

local settings = require("retrolua.settings").load("cheats", { panel_key = "f12", shown = 8 })
local paths = emu.paths()

local rom = emu.info().rom
local file = rom and (paths.config .. "/cheats/" .. rom.name .. ".cht")

-- What the list looked like when loaded, to save only real changes.
local function fingerprint()
  local parts = {}
  for _, cheat in ipairs(cheats.list()) do
    parts[#parts + 1] = string.format("%s|%s|%s|%s|%s|%s", cheat.description, tostring(cheat.enabled), cheat.code or "",
                                      cheat.address or "", cheat.value or "", cheat.type or "")
  end
  return table.concat(parts, "\n")
end

local loaded = ""
if file and io.open(file, "r") then
  local count, problem = cheats.load(file)
  if count then emu.message(string.format("%d cheats loaded", count)) else emu.message(problem) end
  loaded = fingerprint()
end

event.on("exit", function()
  if file and fingerprint() ~= loaded then
    local ok, problem = cheats.save(file)
    if not ok then console.warn("cheats: " .. problem .. "\n") end
  end
end)

-- The RAM search panel.
local open, panel = false, nil
local STEPS = { v = "changed", u = "unchanged", i = "increased", d = "decreased" }

local style = { surface = "hud", color = "white", bg = "#000000c0" }
local function draw_panel()
  local width = gui.surface_size("hud")
  local x = width - 130
  gui.text(x, 40, string.format("RAM search: %d", cheats.search_count()), style)
  for i, result in ipairs(cheats.search_results(settings.shown)) do
    gui.text(x, 40 + i * 10, string.format("%04X %3d (%d)", result.address, result.value, result.previous), style)
  end
  gui.text(x, 50 + settings.shown * 10, "v u i d r f  f12", style)
end

event.on("key_down", function(key, is_repeat)
  if is_repeat then return end
  if key == settings.panel_key then
    open = not open
    if open and cheats.search_count() == 0 then cheats.search_start() end
    -- The panel draws only while open: a closed panel costs nothing per frame.
    if open then panel = event.on("draw", draw_panel) elseif panel then event.off(panel) end
    return
  end
  if not open then return end
  if STEPS[key] then
    emu.message(string.format("%s: %d left", STEPS[key], cheats.search(STEPS[key])))
  elseif key == "r" then
    emu.message(string.format("new search: %d addresses", cheats.search_start()))
  elseif key == "f" then
    local first = cheats.search_results(1)[1]
    if not first then return emu.message("no result to freeze") end
    local id, problem = cheats.add_ram({ address = first.address, value = first.value, domain = first.domain,
                                         description = string.format("freeze %s 0x%X", first.domain, first.address) })
    emu.message(id and string.format("froze 0x%X at %d", first.address, first.value) or problem)
  end
end)
