-- Thumbnails of the save slots for the default menu (lua/defaults/menu.lua): the picture when the slot was
-- saved, a quarter of its size, kept in the data folder (thumbnails/GAME/slotN.rgba) so they outlive the run.
--
--   local thumbnails = require("retrolua.slot_thumbnails").new(game)   -- game: a name for the folder, or nil
--   thumbnails.make(slot)   -- after a save to `slot`
--   thumbnails.get(slot)    -- an image (gui.new_image), or nil

local slot_thumbnails = {}

local THUMB_STEP = 4

function slot_thumbnails.new(game)
  local images = {}
  local function file_name(slot) return game and string.format("thumbnails/%s/slot%d.rgba", game, slot) end

  local function make(slot)
    local pixels, width, height = gui.frame("rgba")
    if not pixels then return end
    local w, h = width // THUMB_STEP, height // THUMB_STEP
    local rows = {}
    for y = 0, h - 1 do
      local row = {}
      local base = y * THUMB_STEP * width * 4
      for x = 0, w - 1 do
        local at = base + x * THUMB_STEP * 4 + 1
        row[#row + 1] = pixels:sub(at, at + 3)
      end
      rows[#rows + 1] = table.concat(row)
    end
    local data = table.concat(rows)
    images[slot] = gui.new_image(w, h, data) or false
    local name = file_name(slot)
    if name then emu.save_data(name, string.format("%d %d\n", w, h) .. data) end
  end

  local function get(slot)
    if images[slot] == nil then
      images[slot] = false
      local saved = file_name(slot) and emu.load_data(file_name(slot))
      local w, h, offset = (saved or ""):match("^(%d+) (%d+)\n()")
      w, h = math.tointeger(tonumber(w)), math.tointeger(tonumber(h))
      if w and h and w <= 1024 and h <= 1024 and #saved - offset + 1 == w * h * 4 then
        images[slot] = gui.new_image(w, h, saved:sub(offset)) or false
      end
    end
    return images[slot] or nil
  end

  return { make = make, get = get }
end

return slot_thumbnails
