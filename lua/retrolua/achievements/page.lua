-- retrolua.achievements.page: the lines of the menu's Achievements page (lua/defaults/menu.lua shows
-- them) for a game's set, read the way the achievements default reads it.
--
--   local page = require("retrolua.achievements.page")
--   page.items(data, unlocked, progress, hardcore) --> menu items (pure: testable under a stock lua5.4)
--   page.build(rom_name)                           --> the same from the set's file and the kept progress
--
-- Each achievement is one item: "[x] Title" (earned, green), "[ ] Title" (to earn, white) or
-- "[!] Title" (its definition cannot be evaluated, red: the achievements default skips it, so it can
-- never be earned); the value column shows the last measured progress and the points. The chosen
-- item's `detail` line is its description (grey), or for a broken one what is wrong with it (red).
-- The first item sums up: earned of earnable, points, and how many entries are broken.

local ra = require("retrolua.achievements")

local page = {}

local DESCRIPTION_COLOR = "#c0c0c0"
local BROKEN_COLOR = "#ff6060"

local function text_of(value)
  if type(value) == "string" then return value end
  if math.type(value) == "integer" then return tostring(value) end
  return nil
end

-- one line of text: a set's strings may hold newlines and tabs
local function one_line(text)
  return (text:gsub("[%c]+", " "))
end

--- The page's items for `data` (the set's PatchData object), `unlocked` (id -> true), `progress`
-- (id -> "value/target") and `hardcore` (bool).
function page.items(data, unlocked, progress, hardcore)
  if type(data) == "table" and type(data.PatchData) == "table" then data = data.PatchData end
  if type(data) ~= "table" or type(data.Achievements) ~= "table" then
    return { { label = "the set cannot be read", color = BROKEN_COLOR } }
  end
  unlocked, progress = unlocked or {}, progress or {}
  local items, earned, earnable, points, total, broken = {}, 0, 0, 0, 0, 0
  for index, entry in ipairs(data.Achievements) do
    local item
    if type(entry) ~= "table" then
      broken = broken + 1
      item = { label = "[!] #" .. index, color = BROKEN_COLOR,
               detail = string.format("achievement #%d is not an object", index), detail_color = BROKEN_COLOR }
    else
      local title = one_line(text_of(entry.Title) or "?")
      local description = text_of(entry.Description)
      description = description and description ~= "" and one_line(description) or nil
      local worth = math.type(entry.Points) == "integer" and entry.Points or 0
      local id = math.type(entry.ID) == "integer" and entry.ID or nil
      local problem
      if id == nil then
        problem = "no integer ID"
      elseif not unlocked[id] then
        local _, err = ra.trigger(type(entry.MemAddr) == "string" and entry.MemAddr or "")
        if err then problem = "cannot be evaluated: " .. err end
      end
      if problem then
        broken = broken + 1
        item = { label = "[!] " .. title, value = worth .. " pts", color = BROKEN_COLOR,
                 detail = problem .. (description and (" — " .. description) or ""), detail_color = BROKEN_COLOR }
      else
        earnable, total = earnable + 1, total + worth
        local done = unlocked[id] == true
        if done then earned, points = earned + 1, points + worth end
        item = { label = (done and "[x] " or "[ ] ") .. title,
                 value = (not done and progress[id] and (progress[id] .. "  ") or "") .. worth .. " pts",
                 color = done and "#40ff40" or "white",
                 detail = description, detail_color = DESCRIPTION_COLOR }
      end
    end
    items[#items + 1] = item
  end
  table.insert(items, 1, {
    label = string.format("%d of %d unlocked, %d of %d points%s%s", earned, earnable, points, total,
                          broken > 0 and string.format(", %d cannot be earned (broken)", broken) or "",
                          hardcore and " (hardcore)" or ""),
    color = "yellow" })
  return items
end

--- The page for the loaded game (`rom_name`): its set in the config folder, the unlocked ids and the
-- measured progress the achievements default keeps in the data folder.
function page.build(rom_name)
  if not rom_name then return { { label = "no achievement set for this game" } } end
  local file = emu.paths().config .. "/achievements/" .. rom_name .. ".json"
  local handle = io.open(file, "r")
  if not handle then return { { label = "no achievement set for this game" } } end
  local text = handle:read("a") or ""
  handle:close()
  local data = require("retrolua.json").decode(text)
  local unlocked = {}
  for id in (emu.load_data("achievements/" .. rom_name .. ".txt") or ""):gmatch("(%d+)") do
    unlocked[tonumber(id)] = true
  end
  -- "ID value target" lines: the last measured progress the achievements default wrote
  local progress = {}
  for id, value, target in (emu.load_data("achievements/" .. rom_name .. ".progress") or ""):gmatch("(%d+) (%d+) (%d+)") do
    progress[tonumber(id)] = value .. "/" .. target
  end
  return page.items(data, unlocked, progress, emu.hardcore())
end

return page
