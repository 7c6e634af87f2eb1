-- The RAM tools' memory viewer/editor page: hex rows of a memory domain with a cursor. Keys move the
-- cursor (arrows, pageup/pagedown), jump to an address, change the domain, watch the byte; two hex
-- digits write the byte under the cursor. Made by lua/defaults/ramtools.lua, which owns the panel.
--
--   local viewer = require("retrolua.memory_view").new(tools)   -- see new() for `tools`
--   viewer.keys[key]()  viewer.type(key)  viewer.lines(scale)  viewer.domain()

local ui = require("retrolua.ui")
local ramwatch = require("retrolua.ramwatch")

local memory_view = {}

-- One row's bytes: " 00 00[00]00": the cursor's brackets take the spaces around it, so every row is as
-- wide; a byte a cheat holds has a * in place of its space (" 00*05 00"), or is {05} under the cursor.
local function hex_cells(bytes, from, base, width, cursor, frozen)
  local cells, bracket = {}, false
  for column = 0, width - 1 do
    local byte = bytes:byte(from + column + 1)
    if not byte then break end
    local text = string.format("%02X", byte)
    if base + column == cursor then
      cells[#cells + 1] = frozen[base + column] and ("{" .. text .. "}") or ("[" .. text .. "]")
      bracket = true
    else
      cells[#cells + 1] = (bracket and "" or (frozen[base + column] and "*" or " ")) .. text
      bracket = false
    end
  end
  return table.concat(cells)
end

-- The rows of `width` bytes shown (scrolled so the cursor's row is among them), appended to `lines`.
local function append_rows(lines, tools, view, total, width)
  local rows = tools.settings.rows
  local cursor_row = view.cursor // width
  if cursor_row < view.top then view.top = cursor_row end
  if cursor_row >= view.top + rows then view.top = cursor_row - rows + 1 end
  local start = view.top * width
  local frozen = tools.frozen_bytes and tools.frozen_bytes()[view.domain] or {}
  local ok, bytes = pcall(memory.read_bytes, start, math.min(total - start, width * rows), view.domain)
  if not ok then
    lines[#lines + 1] = { text = tostring(bytes), color = "#ff6060" }
    return false
  end
  for line = 0, rows - 1 do
    local base = start + line * width
    if base >= total then break end
    lines[#lines + 1] = { text = string.format("%06X%s", base, hex_cells(bytes, line * width, base, width, view.cursor,
                                                                         frozen)),
                          color = line + view.top == cursor_row and "yellow" or "white" }
  end
  return true
end

-- The page's keys: the cursor moves by a byte, a row (`row()` bytes) or a page; jump, domain, watch.
local function key_actions(tools, view, move, row)
  local settings, keys = tools.settings, tools.settings.keys
  return {
    [keys.left] = function() move(-1) end,
    [keys.right] = function() move(1) end,
    [keys.up] = function() move(-row()) end,
    [keys.down] = function() move(row()) end,
    [keys.page_up] = function() move(-row() * settings.rows) end,
    [keys.page_down] = function() move(row() * settings.rows) end,
    [keys.jump] = function()
      tools.ask("jump to", "hex", false, function(typed)
        local address = ui.number(typed)
        if address then move(address - view.cursor) end
      end)
    end,
    [keys.domain] = function()
      view.domain = tools.next_in(tools.domains, view.domain)
      view.cursor, view.top, view.nibble = 0, 0, nil
    end,
    [keys.watch] = function() tools.add_watch({ address = view.cursor, domain = view.domain, size = 1, format = "hex" }) end,
  }
end

-- `tools`: the panel's `settings` (keys, rows, scale), `domains` (names), `domain` (the first shown),
-- and its helpers `ask`, `add_watch`, `protected`, `next_in`, `legend`, `header`, `stale` (a byte was
-- written: other pages read again), `frozen_bytes` (frozen[domain][address] for bytes a cheat holds:
-- marked "*05", or "{05}" under the cursor).
function memory_view.new(tools)
  local settings, keys = tools.settings, tools.settings.keys
  local view = { domain = tools.domain, cursor = 0, top = 0, nibble = nil }

  local function size()
    local domain = ramwatch.domain(view.domain)
    return domain and domain.size or 0
  end

  -- 16 bytes a row when the window is wide enough for them, else 8.
  local function per_row(scale)
    local width = gui.surface_size("hud")
    return width >= 60 * ui.char_width(scale) and 16 or 8
  end

  local function move(delta)
    if size() == 0 then return end
    view.cursor = math.max(0, math.min(size() - 1, view.cursor + delta))
    view.nibble = nil
  end

  local viewer = { keys = key_actions(tools, view, move, function() return per_row(ui.scale(settings.scale)) end) }

  function viewer.domain() return view.domain end

  -- The cursor's place and byte, for speech: "system_ram address 10, value AB".
  function viewer.describe()
    local ok, byte = pcall(memory.read_u8, view.cursor, view.domain)
    return string.format("%s address %X, value %s", tostring(view.domain), view.cursor,
                         ok and string.format("%02X", byte) or "unreadable")
  end

  -- A hex digit: the high nibble waits for the low one, then the byte is written and the cursor moves on.
  function viewer.type(key)
    local digit = #key == 1 and tonumber(key, 16)
    if not digit or size() == 0 then return false end
    if not view.nibble then
      view.nibble = digit
      return true
    end
    local value = view.nibble * 16 + digit
    view.nibble = nil
    local ok = tools.protected("memory", memory.write_u8, view.cursor, value, view.domain)
    if tools.stale then tools.stale() end
    if ok ~= nil or memory.read_u8(view.cursor, view.domain) == value then move(1) end
    return true
  end

  function viewer.lines(scale)
    local lines = { tools.header(), string.format("%s  cursor %04X%s", tostring(view.domain), view.cursor,
                                                  view.nibble and string.format("  %X_", view.nibble) or "") }
    local total = size()
    if total == 0 then
      lines[#lines + 1] = "no memory"
      return lines
    end
    if not append_rows(lines, tools, view, total, per_row(scale)) then return lines end
    lines[#lines + 1] = tools.legend({ { keys.jump, "jump" }, { keys.domain, "domain" }, { keys.watch, "watch" },
                                       { "0-f", "write" }, { "*", "frozen" } })
    return lines
  end

  return viewer
end

return memory_view
