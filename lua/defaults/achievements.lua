-- Default achievements, part of Retrolua's replaceable Lua frontend: RetroAchievements sets evaluated
-- locally by retrolua.achievements (rcheevos' trigger semantics in pure Lua).
--
-- Put a game's set — RetroAchievements' game data JSON (the "PatchData" object, or a file holding
-- it): achievements with MemAddr, leaderboards with Mem and Format, RichPresencePatch — at
-- ~/.config/retrolua/achievements/GAME.json. Unlocks show on the OSD and are kept in
-- ~/.local/share/retrolua/data/achievements/GAME.txt. Settings in ~/.config/retrolua/achievements.lua,
-- e.g. `return { hardcore = true, rich_presence = true, unofficial = false }`: hardcore mode refuses
-- state loads, rewind, slow motion, cheats, memory writes and joypad overrides (see emu.hardcore).

local settings = require("retrolua.settings").load("achievements",
                                                   { hardcore = false, rich_presence = false, unofficial = true })
local paths = emu.paths()

local rom = emu.info().rom
local file = rom and (paths.config .. "/achievements/" .. rom.name .. ".json")
local handle = file and io.open(file, "r")
if not handle then return end  -- no set for this game: nothing to do
local text = handle:read("a")
handle:close()

local ra = require("retrolua.achievements")
local json = require("retrolua.json")
local ra_memory = require("retrolua.ra_memory")

local data, problem = json.decode(text)
if not data then return emu.message("achievements: " .. file .. ": " .. problem) end
if type(data) == "table" and type(data.PatchData) == "table" then data = data.PatchData end
-- A set is an object; every field is checked before use, so a malformed file is reported, never a crash.
if type(data) ~= "table" or data[1] ~= nil then
  return emu.message("achievements: " .. file .. ": the top level must be an object (the game's PatchData), not "
                     .. (type(data) == "table" and "an array" or "a " .. type(data)))
end
local function list(name)
  local value = data[name]
  if value == nil then return {} end
  if type(value) ~= "table" then
    emu.message(string.format("achievements: %s: '%s' must be an array, ignored", file, name))
    return {}
  end
  return value
end
local function text_of(value, default)
  if type(value) == "string" then return value end
  if math.type(value) == "integer" then return tostring(value) end
  return default
end

-- RetroAchievements console IDs for the systems libretro info files name.
local CONSOLES = { ["Nintendo Entertainment System"] = 7, ["Game Boy"] = 4, ["Game Boy Color"] = 6,
                   ["Game Boy Advance"] = 5, ["Super Nintendo Entertainment System"] = 3, ["Sega Genesis"] = 1,
                   ["Mega Drive"] = 1 }
local console_id = math.type(data.ConsoleID) == "integer" and data.ConsoleID or CONSOLES[emu.info().system or ""]
-- Snapshots: the core's regions copied once per frame, so hundreds of conditions cost no host calls.
local peek, refresh = ra_memory.peek(console_id, memory, { snapshot = true })
if not peek then return emu.message("achievements: " .. refresh) end

local progress_name = "achievements/" .. rom.name .. ".txt"
local unlocked = {}
local saved = emu.load_data(progress_name)
for id in (saved or ""):gmatch("(%d+)[^\n]*") do unlocked[tonumber(id)] = true end

-- Measured progress (value and target of achievements not yet earned), for the menu to show: written when
-- a count goes up, as RetroArch pops it up.
local measured_name = "achievements/" .. rom.name .. ".progress"
local measured = {}
local function save_measured()
  local lines = {}
  for id, entry in pairs(measured) do lines[#lines + 1] = string.format("%d %d %d", id, entry[1], entry[2]) end
  table.sort(lines)
  local ok, failure = emu.save_data(measured_name, table.concat(lines, "\n") .. "\n")
  if not ok then console.warn("achievements: " .. failure .. "\n") end
end

local function save_progress()
  local lines = {}
  for id in pairs(unlocked) do lines[#lines + 1] = tostring(id) end
  table.sort(lines, function(a, b) return tonumber(a) < tonumber(b) end)
  local ok, failure = emu.save_data(progress_name, table.concat(lines, "\n") .. "\n")
  if not ok then console.warn("achievements: " .. failure .. "\n") end
end

-- Compile everything once; a definition rcheevos would reject is reported and skipped.
local achievements, leaderboards = {}, {}
for index, entry in ipairs(list("Achievements")) do
  local id = type(entry) == "table" and math.type(entry.ID) == "integer" and entry.ID or nil
  if id == nil then
    console.warn(string.format("achievements: %s: achievement #%d skipped: no integer ID\n", file, index))
  else
    local official = entry.Flags == nil or entry.Flags == 3
    local title = text_of(entry.Title, "?")
    if (official or settings.unofficial) and not unlocked[id] then
      local trigger, err = ra.trigger(type(entry.MemAddr) == "string" and entry.MemAddr or "")
      if trigger then
        local points = math.type(entry.Points) == "integer" and entry.Points or 0
        achievements[#achievements + 1] = { id = id, title = title, points = points, trigger = trigger,
                                            official = official }
      else
        console.warn(string.format("achievements: '%s' (%d) skipped: %s\n", title, id, err))
      end
    end
  end
end
for index, entry in ipairs(list("Leaderboards")) do
  local title = type(entry) == "table" and text_of(entry.Title, "?") or "#" .. index
  local board, err = ra.leaderboard(type(entry) == "table" and type(entry.Mem) == "string" and entry.Mem or "")
  if board then
    leaderboards[#leaderboards + 1] = { title = title, format = text_of(entry.Format, "VALUE"), board = board,
                                        state = "inactive" }
  else
    console.warn(string.format("achievements: leaderboard '%s' skipped: %s\n", title, err))
  end
end
local presence
if type(data.RichPresencePatch) == "string" and data.RichPresencePatch ~= "" then
  local script, err = ra.richpresence(data.RichPresencePatch)
  if script then presence = script else console.warn("achievements: rich presence ignored: " .. err .. "\n") end
end
local presence_text = ""

if settings.hardcore then emu.hardcore(true) end
emu.message(string.format("%s: %d achievements to earn, %d leaderboards%s", text_of(data.Title, rom.name), #achievements,
                          #leaderboards, emu.hardcore() and " (hardcore)" or ""))

local function formatted(value, format)
  if ra.format then return ra.format(value, format) end
  return tostring(value)
end

event.on("frame_end", function()
  refresh()
  for i = #achievements, 1, -1 do
    local achievement = achievements[i]
    local state = achievement.trigger:update(peek)
    -- Progress of measured achievements, as RetroArch pops it up: when the count goes up (a value is unknown
    -- until a frame measured it: after a reset or a state load the count starts over).
    local value, target, percent, known = achievement.trigger:measured()
    if known then
      if target > 0 and value > (achievement.progress or 0) and value < target and state ~= "triggered" then
        emu.message(percent and string.format("%s: %d%%", achievement.title, value * 100 // target)
                    or string.format("%s: %d/%d", achievement.title, value, target))
        measured[achievement.id] = { value, target }
        save_measured()
      end
      achievement.progress = value
    end
    if state == "triggered" then
      unlocked[achievement.id] = true
      if measured[achievement.id] then
        measured[achievement.id] = nil
        save_measured()
      end
      table.remove(achievements, i)
      emu.message(string.format("Achievement unlocked: %s (%d points)%s", achievement.title, achievement.points,
                                achievement.official and "" or " [unofficial]"))
      save_progress()
    end
  end
  for _, entry in ipairs(leaderboards) do
    local state, value = entry.board:update(peek)
    entry.value = value
    if state ~= entry.state then
      if state == "started" then
        emu.message("Leaderboard attempt started: " .. entry.title)
      elseif state == "canceled" then
        emu.message("Leaderboard attempt canceled: " .. entry.title)
      elseif state == "triggered" then
        emu.message(string.format("Leaderboard %s: %s", entry.title, formatted(value, entry.format)))
      end
      entry.state = state
    end
  end
  if presence and emu.framecount() % 60 == 0 then presence_text = presence:update(peek) end
end)

-- rcheevos starts triggers over after the game jumps in time.
local function restart()
  for _, achievement in ipairs(achievements) do
    achievement.trigger:reset()
    achievement.progress = nil
  end
end
event.on("state_loaded", restart)
event.on("reset", restart)

-- Trackers: the running value of every leaderboard attempt, top right; rich presence when asked for.
-- Drawn at the OSD's text scale (its `scale` setting, else from the window), so they grow with it.
local ui = require("retrolua.ui")
local function osd_scale()
  if ui.osd_scale then return ui.osd_scale() end
  return gui.text_scale("hud")
end
local tracker_styles = {}  -- one per scale, kept: drawing every frame makes no garbage
event.on("draw", function()
  local width = gui.surface_size("hud")
  local scale = osd_scale()
  local style = tracker_styles[scale]
  if not style then
    style = { surface = "hud", color = "white", bg = "#00000080", scale = scale }
    tracker_styles[scale] = style
  end
  local y = 26 * scale
  for _, entry in ipairs(leaderboards) do
    if entry.state == "started" then
      local value = formatted(entry.value or 0, entry.format)
      gui.text(width - gui.text_size(value, scale) - 4 * scale, y, value, style)
      y = y + 10 * scale
    end
  end
  if settings.rich_presence and presence_text ~= "" then gui.text(4 * scale, 14 * scale, presence_text, style) end
end)
