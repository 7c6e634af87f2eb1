-- The RAM tools' watch list page (lua/defaults/ramtools.lua owns the panel): up/down choose a watch; keys add
-- an address (in the memory page's domain), label it, change its format, size and endianness, graph it,
-- freeze its value, open a BizHawk .wch file, remove it. Each change is saved with the list.
--
--   local watch_list = require("retrolua.watch_page").new(tools)   -- see new() for `tools`
--   watch_list.keys[key]()  watch_list.lines()  watch_list.current()

local ui = require("retrolua.ui")
local ramwatch = require("retrolua.ramwatch")

local watch_page = {}

-- A .wch file typed in the prompt, loaded over the list (which stays as it was when nothing can be read).
local function open_file(tools, page, path)
  if path == "" then return end
  local watches = tools.watches
  local handle, problem = io.open(path, "r")
  if not handle then return emu.message("RAM watch: " .. tostring(problem)) end
  local text = handle:read("a")
  handle:close()
  local before = watches.items
  local problems = watches:load(text or "")
  if #watches.items == 0 and #problems > 0 then
    watches.items = before  -- nothing could be read: the list stays as it was
    return emu.message("RAM watch: " .. path .. ": nothing loaded; " .. problems[1])
  end
  page.selected = 1
  tools.save()
  for _, line in ipairs(problems) do console.warn("ramtools: " .. path .. ": " .. line .. "\n") end
  emu.message(string.format("RAM watch: %d watches from %s%s", #watches.items, path,
                            #problems > 0 and string.format(" (%d lines skipped: %s)", #problems, problems[1]) or ""))
end

local function key_actions(tools, page)
  local keys, watches, ask = tools.settings.keys, tools.watches, tools.ask
  local function change_watch(change)
    local watch = page.current()
    if not watch then return end
    change(watch)
    ramwatch.reset(watch)
    tools.save()
  end
  return {
    [keys.up] = function() page.selected = math.max(1, page.selected - 1) end,
    [keys.down] = function() page.selected = math.min(math.max(1, #watches.items), page.selected + 1) end,
    [keys.add] = function()
      ask("add address in " .. tostring(tools.domain()), "hex", false, function(typed)
        local address = ui.number(typed)
        if address then tools.add_watch({ address = address, domain = tools.domain(), size = 1, format = "hex" }) end
      end)
    end,
    [keys.label] = function()
      local watch = page.current()
      if not watch then return end
      ask("label", "text", false, function(typed)
        watch.label = typed.text
        tools.save()
      end, watch.label)
    end,
    [keys.format] = function()
      change_watch(function(watch) watch.format = tools.next_in(ramwatch.FORMATS, watch.format) end)
    end,
    [keys.size] = function()
      change_watch(function(watch)
        local size = tools.next_in(ramwatch.SIZES, watch.size)
        local domain = ramwatch.domain(watch.domain)
        if domain and watch.address + size > domain.size then size = 1 end
        watch.size = size
      end)
    end,
    [keys.endian] = function() change_watch(function(watch) watch.big_endian = not watch.big_endian end) end,
    [keys.graph] = function()
      local watch = page.current()
      if watch then watch.graph = not watch.graph; tools.save() end
    end,
    [keys.freeze] = function()
      local watch = page.current()
      local value = watch and ramwatch.value(watch)
      if value then
        tools.freeze(watch.address, watch.domain, watch.size, value & ((1 << (watch.size * 8)) - 1), watch.big_endian)
      end
    end,
    [keys.open] = function()
      ask("open .wch file", "text", false, function(typed) open_file(tools, page, typed.text) end)
    end,
    [keys.remove] = function()
      if watches:remove(page.selected) then
        page.selected = math.max(1, math.min(page.selected, #watches.items))
        tools.save()
      end
    end,
  }
end

local function watch_line(tools, watch, chosen, frozen)
  local text = string.format("%s%04X %s %s%d%s %s%s %s", chosen and ">" or " ", watch.address, watch.domain,
                             watch.format:sub(1, 1), watch.size * 8, watch.big_endian and "be" or "",
                             tools.watch_frozen(frozen, watch) and "*" or "",
                             ramwatch.format(ramwatch.value(watch), watch.size, watch.format), watch.label)
  return { text = text, color = chosen and "yellow" or "white" }
end

-- `tools`: the panel's `settings` (keys), `watches` (a retrolua.ramwatch list), `save` (writes the list),
-- `saved` (whether it has a file), and its helpers `ask`, `add_watch`, `freeze`, `next_in`, `legend`,
-- `header`, `frozen_bytes`, `watch_frozen(frozen, watch)` and `domain()` (the memory page's domain).
function watch_page.new(tools)
  local keys, watches, legend = tools.settings.keys, tools.watches, tools.legend
  local page = { selected = 1 }

  function page.current() return watches.items[page.selected] end

  page.keys = key_actions(tools, page)

  function page.lines()
    local lines = { tools.header(), string.format("%d watches%s", #watches.items, tools.saved and "" or " (not saved)") }
    local frozen = tools.frozen_bytes()
    for index, watch in ipairs(watches.items) do
      lines[#lines + 1] = watch_line(tools, watch, index == page.selected, frozen)
    end
    lines[#lines + 1] = legend({ { keys.add, "add" }, { keys.label, "label" }, { keys.format, "format" },
                                 { keys.size, "size" }, { keys.endian, "endian" } })
    lines[#lines + 1] = legend({ { keys.graph, "graph" }, { keys.freeze, "freeze" }, { keys.remove, "remove" },
                                 { keys.open, "open .wch" }, { "*", "frozen" } })
    return lines
  end

  return page
end

return watch_page
