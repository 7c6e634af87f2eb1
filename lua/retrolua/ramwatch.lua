-- RAM watch lists (BizHawk-style): each watch is an address in a memory domain with a size, a display
-- format, a byte order and a label, plus the history of its value over the last frames for a graph.
-- Lists are saved as text in BizHawk's .wch columns (address, size b/w/d, type u/s/h, big-endian 0/1,
-- domain, label), with a 7th column for the graph. BizHawk's own files load too: its domain names
-- ("RAM", "WRAM", "System Bus", …, per system, from the file's SystemID line or the running game) are
-- mapped to ours (retrolua.bizhawk_domains), its other display types (binary, fixed point, float) show
-- as hex, and its separator lines are skipped.
--
--   local ramwatch = require("retrolua.ramwatch")
--   local list = ramwatch.new(120)                          -- 120 frames of history per watch
--   list:add({ address = 0x86, domain = "system_ram", size = 1, format = "unsigned", label = "x" })
--   list:sample()                                           -- once a frame (frame_end)
--   emu.save_data("ramwatch/GAME.wch", list:text())

local ramwatch = {}

ramwatch.MAX = 64
local SIZE_LETTERS = { [1] = "b", [2] = "w", [4] = "d" }
local LETTER_SIZES = { b = 1, w = 2, d = 4 }
local FORMAT_LETTERS = { unsigned = "u", signed = "s", hex = "h" }
local LETTER_FORMATS = { u = "unsigned", s = "signed", h = "hex",
                         -- BizHawk's binary, fixed-point (12.4, 20.12, 16.16) and float: shown as hex here
                         b = "hex", ["1"] = "hex", ["2"] = "hex", ["3"] = "hex", f = "hex" }
ramwatch.FORMATS = { "hex", "unsigned", "signed" }
ramwatch.SIZES = { 1, 2, 4 }

-- The memory function reading `size` bytes in the watch's byte order, signed for the signed format.
local function reader(size, format, big)
  local sign = format == "signed" and "s" or "u"
  if size == 1 then return memory["read_" .. sign .. "8"] end
  return memory[string.format("read_%s%d_%s", sign, size * 8, big and "be" or "le")]
end

-- A value as text in a format: hex with two digits a byte, or decimal.
function ramwatch.format(value, size, format)
  if value == nil then return "?" end
  if format == "hex" then return string.format("%0" .. (size * 2) .. "X", value & ((1 << (size * 8)) - 1)) end
  return tostring(value)
end

-- The domain table of memory.domains() named `name`.
function ramwatch.domain(name)
  for _, domain in ipairs(memory.domains()) do
    if domain.name == name then return domain end
  end
end

local List = {}
List.__index = List

function ramwatch.new(frames)
  return setmetatable({ frames = math.max(2, frames), items = {} }, List)
end

-- Adds a watch: {address=, domain=, size= (1, 2, 4), format=, big_endian=, label=, graph=}; returns it,
-- or nil and why (unknown domain, address outside it, a full list).
function List:add(spec)
  if #self.items >= ramwatch.MAX then return nil, "the watch list is full (" .. ramwatch.MAX .. ")" end
  local size = spec.size or 1
  if not SIZE_LETTERS[size] then return nil, "size must be 1, 2 or 4 bytes" end
  local format = spec.format or "hex"
  if not FORMAT_LETTERS[format] then return nil, "unknown format '" .. tostring(format) .. "'" end
  local domain = ramwatch.domain(spec.domain)
  if not domain then return nil, "no memory domain '" .. tostring(spec.domain) .. "'" end
  local address = spec.address
  if math.type(address) ~= "integer" or address < 0 or address + size > domain.size then
    return nil, string.format("address %s is outside %s (0x%X bytes)", tostring(address), domain.name, domain.size)
  end
  local watch = { address = address, domain = domain.name, size = size, format = format,
                  big_endian = spec.big_endian and true or false, label = spec.label or "",
                  graph = spec.graph ~= false, history = {}, first = 1, count = 0 }
  self.items[#self.items + 1] = watch
  return watch
end

function List:remove(index)
  return table.remove(self.items, index)
end

-- The watch's value now (nil if it cannot be read).
function ramwatch.value(watch)
  local ok, value = pcall(reader(watch.size, watch.format, watch.big_endian), watch.address, watch.domain)
  if ok then return value end
end

-- Forgets a watch's history (after its size, format or byte order changed).
function ramwatch.reset(watch)
  watch.history, watch.first, watch.count = {}, 1, 0
end

-- Appends every watch's value now to its history (a ring of `frames` values).
function List:sample()
  local frames = self.frames
  for _, watch in ipairs(self.items) do
    local value = ramwatch.value(watch)
    if value then
      if watch.count < frames then
        watch.count = watch.count + 1
        watch.history[watch.count] = value
      else
        watch.history[watch.first] = value
        watch.first = watch.first % frames + 1
      end
    end
  end
end

-- The i-th value of a watch's history, oldest first.
function List:history(watch, i)
  if watch.count < self.frames then return watch.history[i] end
  return watch.history[(watch.first + i - 2) % self.frames + 1]
end

-- Draws a graph of a watch's history on the hud: its values, oldest at the left, scaled between their
-- minimum and maximum (written beside it), in one gui.polyline.
local points = {}
function List:draw_graph(watch, x, y, width, height, scale)
  gui.rect(x, y, width, height, { surface = "hud", color = "#606060", fill = "#000000b0" })
  local count = watch.count
  if count == 0 then return end
  local low, high = math.huge, -math.huge
  for i = 1, count do
    local value = self:history(watch, i)
    if value < low then low = value end
    if value > high then high = value end
  end
  local span = math.max(1, high - low)
  for i = #points, 1, -1 do points[i] = nil end
  local frames = self.frames
  for i = 1, count do
    local value = self:history(watch, i)
    points[#points + 1] = x + 1 + (frames - count + i - 1) * (width - 3) // (frames - 1)
    points[#points + 1] = y + height - 2 - (value - low) * (height - 3) // span
  end
  gui.polyline(points, { surface = "hud", color = "#40ff40" })
  local label = { surface = "hud", color = "#a0a0a0", scale = scale }
  gui.text(x + width + scale, y, ramwatch.format(high, watch.size, watch.format), label)
  gui.text(x + width + scale, y + height - 8 * scale, ramwatch.format(low, watch.size, watch.format), label)
end

-- The list as .wch text.
function List:text()
  local lines = { "# Retrolua RAM watch: address, size (b/w/d), type (u/s/h), big-endian, domain, label, graph" }
  for _, watch in ipairs(self.items) do
    lines[#lines + 1] = string.format("%04X\t%s\t%s\t%d\t%s\t%s\t%s", watch.address, SIZE_LETTERS[watch.size],
                                      FORMAT_LETTERS[watch.format], watch.big_endian and 1 or 0, watch.domain,
                                      (watch.label:gsub("[\t\n]", " ")), watch.graph and "graph" or "")
  end
  return table.concat(lines, "\n") .. "\n"
end

-- Reads .wch text into the list (replacing it); returns the problems met, one per skipped line.
function List:load(text)
  self.items = {}
  local problems = {}
  local number = 0
  local system = text:match("^SystemID%s+([^\r\n]+)") or text:match("\nSystemID%s+([^\r\n]+)")
  system = system and system:gsub("%s+$", "")
  local bizhawk = require("retrolua.bizhawk_domains")
  for line in text:gmatch("[^\n]*") do
    number = number + 1
    line = line:gsub("\r$", "")
    if line ~= "" and not line:match("^#") and not line:match("^Domain") and not line:match("^SystemID") then
      local fields = {}
      for field in (line .. "\t"):gmatch("([^\t]*)\t") do fields[#fields + 1] = field end
      local address = #fields[1] <= 8 and math.tointeger(tonumber(fields[1], 16)) or nil
      local spec = { address = address, size = LETTER_SIZES[fields[2] or ""], format = LETTER_FORMATS[fields[3] or ""],
                     big_endian = fields[4] == "1", domain = fields[5], label = fields[6] or "",
                     graph = fields[7] == nil or fields[7] == "graph" }
      -- BizHawk's names for its domains (ours are taken as they are).
      if address and spec.domain and not ramwatch.domain(spec.domain) then
        local ours, at = bizhawk.resolve(spec.domain, address, system)
        if ours then spec.domain, spec.address = ours, at end
      end
      local added, problem
      if fields[2] == "S" then  -- luacheck: ignore 542
        -- a BizHawk separator line: nothing to watch
      elseif not address then
        problem = "the address must be hex"
      elseif not spec.size or not spec.format then
        problem = "the size must be b, w or d and the type u, s, h, b, 1, 2, 3 or f"
      else
        added, problem = self:add(spec)
      end
      if not added and problem then problems[#problems + 1] = string.format("line %d: %s", number, problem) end
    end
  end
  return problems
end

return ramwatch
