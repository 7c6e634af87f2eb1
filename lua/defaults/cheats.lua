-- Default cheats, part of Retrolua's replaceable Lua frontend: each game's cheats live in
-- ~/.config/retrolua/cheats/GAME.cht (RetroArch's format), loaded at start and saved at exit when
-- they changed. New ones come from the RAM search of the ramtools default (f12) or a code typed in the
-- menu (f1: Cheats, "add a cheat code..."), which also turns them on and off.

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
