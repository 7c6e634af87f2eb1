-- Default RAM tools, part of Retrolua's replaceable Lua frontend: a RAM search, a RAM watch list with a
-- graph of each value, and a memory viewer/editor, in one panel on the OSD. f12 opens and closes it;
-- while it is open it takes the keyboard (the game and the other hotkeys get nothing: input.capture)
-- and the game is paused (resumed on closing, unless it was paused before; `pause = false` keeps it
-- running). tab goes to the next page. Values frozen by a RAM cheat are marked with a * (search
-- results, watches, memory rows). Under --speak the page, the chosen line and prompts are spoken.
--
-- Search: values of 8, 16 or 32 bits (s), signed or not (n), little or big endian (b), shown and typed
-- in hex or decimal (x), in any memory domain (o); r starts over. Close the panel, play, open it and
-- narrow: v changed, u unchanged, i increased, d decreased since the last step, e equal to N, c changed
-- by N (-N for a decrease). up/down pick a result: f freezes it (a RAM cheat, saved with the game's
-- cheats), w adds it to the watch list.
-- Watch: BizHawk-style (address, domain, size, format, label), saved per game in the data folder
-- (ramwatch/GAME-SHA1.wch) and drawn, with a graph of the last frames, while the panel is closed.
-- up/down pick, a adds an address, l labels, t format, s size, b byte order, g graph, f freeze, delete removes,
-- p opens a .wch file from a typed path (BizHawk's included: its domain names are mapped to ours).
-- Memory: hex rows of a domain; arrows and pageup/pagedown move, j jumps to an address, o changes the
-- domain, hex digits write the byte under the cursor (two digits a byte), w watches it.
-- Every key can be rebound in ~/.config/retrolua/ramtools.lua, e.g.
-- `return { panel_key = "f12", keys = { freeze = "z" }, graph_frames = 240, overlay = false }`; the legend
-- shows the keys in effect.

local ui = require("retrolua.ui")
local ramwatch = require("retrolua.ramwatch")
local settings = require("retrolua.tools").ramtools()
local keys = settings.keys

local domains = memory.domains()
local names = {}
local default_domain
for _, domain in ipairs(domains) do
  names[#names + 1] = domain.name
  if domain.default then default_domain = domain.name end
end
default_domain = default_domain or names[1]

local rom = emu.info().rom
local game = rom and rom.name and (rom.name .. (rom.sha1 and ("-" .. rom.sha1:sub(1, 8)) or ""))
local watch_file = game and ("ramwatch/" .. game .. ".wch")

local watches = ramwatch.new(settings.graph_frames)
if watch_file then
  local text = emu.load_data(watch_file)
  if text then
    for _, problem in ipairs(watches:load(text)) do console.warn("ramtools: " .. watch_file .. ": " .. problem .. "\n") end
  end
end

local function save_watches()
  if not watch_file then return end
  local ok, problem = emu.save_data(watch_file, watches:text())
  if not ok then emu.message("RAM watch: " .. problem) end
end

local function next_in(list, current)
  for index, item in ipairs(list) do
    if item == current then return list[index % #list + 1] end
  end
  return list[1]
end

local function big_endian_of(name)
  local domain = ramwatch.domain(name)
  return domain and domain.big_endian or false
end

-- The search's settings; a change starts a new search.
local search = { size = 1, signed = false, hex = true, domain = default_domain, selected = 1,
                 big_endian = big_endian_of(default_domain), started = false }

-- The results last read for the panel (see cached_results); `stale()` makes the next draw read them again
-- (after an edit, a freeze, a page change: the game may be paused, so the frame count does not tell).
local cache = { results = {}, limit = -1, frame = -1, count = -1 }
local function stale() cache.limit = -1 end

-- The addresses held by an enabled RAM cheat ("set"): frozen[domain][address] = true for each byte.
local function frozen_bytes()
  local frozen = {}
  for _, cheat in ipairs(cheats.list()) do
    if cheat.enabled and cheat.address and (cheat.type == nil or cheat.type == "set") then
      local domain = cheat.domain or default_domain
      frozen[domain] = frozen[domain] or {}
      for offset = 0, math.max(1, (cheat.size or 8) // 8) - 1 do frozen[domain][cheat.address + offset] = true end
    end
  end
  return frozen
end

local function is_frozen(frozen, domain, address)
  return frozen[domain] ~= nil and frozen[domain][address] == true
end

local function describe()
  return string.format("%d-bit %s %s %s", search.size * 8, search.signed and "signed" or "unsigned",
                       search.big_endian and "BE" or "LE", search.domain or "-")
end

local function protected(what, ...)
  local ok, result, problem = pcall(...)
  if not ok then emu.message(what .. ": " .. tostring(result)) return nil end
  if result == nil and problem then emu.message(what .. ": " .. problem) end
  return result
end

local function start_search()
  if not search.domain then return emu.message("RAM search: the core exposes no memory") end
  local count = protected("RAM search", cheats.search_start, { domain = search.domain, size = search.size * 8,
                                                             big_endian = search.big_endian, signed = search.signed })
  cache.limit = -1
  if count then
    search.started, search.selected = true, 1
    emu.message(string.format("new search: %d addresses (%s)", count, describe()))
  end
end

local function step(comparison, value)
  if not search.started then start_search() end
  cache.limit = -1
  local left = protected("RAM search", cheats.search, comparison, value)
  if left then
    search.selected = 1
    emu.message(string.format("%s%s: %d left", comparison, value and (" " .. value) or "", left))
  end
end

local function signed_of(value, bits)
  if value >= 1 << (bits - 1) then return value - (1 << bits) end
  return value
end

local function shown_value(value)
  if search.hex then return string.format("%0" .. (search.size * 2) .. "X", value) end
  return tostring(search.signed and signed_of(value, search.size * 8) or value)
end

local function selected_result()
  local results = cheats.search_results(search.selected)
  return results[search.selected]
end

local function freeze(address, domain, size, value, big_endian)
  local id = protected("freeze", cheats.add_ram, { address = address, value = value, size = size * 8, domain = domain,
                                                   big_endian = big_endian,
                                                   description = string.format("freeze %s 0x%X", domain, address) })
  stale()
  if id then emu.message(string.format("froze %s 0x%X at %d", domain, address, value)) end
end

local function add_watch(spec)
  local watch, problem = watches:add(spec)
  if not watch then return emu.message("RAM watch: " .. problem) end
  save_watches()
  emu.message(string.format("watching %s 0x%X", watch.domain, watch.address))
end

-- The page being typed into (a number, an address, a label), if any.
local entry

local function ask(prompt, kind, signed, done, text)
  entry = ui.entry(prompt, kind, signed, text)
  entry.done = done
end

local search_keys = {
  [keys.restart] = start_search,
  [keys.changed] = function() step("changed") end,
  [keys.unchanged] = function() step("unchanged") end,
  [keys.increased] = function() step("increased") end,
  [keys.decreased] = function() step("decreased") end,
  [keys.equal] = function()
    ask("equal to", search.hex and "hex" or "decimal", search.signed, function(typed)
      local value = ui.number(typed)
      if value then step("equal", value) end
    end)
  end,
  [keys.changed_by] = function()
    ask("changed by", search.hex and "hex" or "decimal", true, function(typed)
      local value = ui.number(typed)
      if value then step(value < 0 and "decreased_by" or "increased_by", math.abs(value)) end
    end)
  end,
  [keys.size] = function() search.size = next_in(ramwatch.SIZES, search.size); start_search() end,
  [keys.signed] = function() search.signed = not search.signed; start_search() end,
  [keys.endian] = function() search.big_endian = not search.big_endian; start_search() end,
  [keys.hex] = function() search.hex = not search.hex end,
  [keys.domain] = function()
    search.domain = next_in(names, search.domain)
    search.big_endian = big_endian_of(search.domain)
    start_search()
  end,
  [keys.up] = function() search.selected = math.max(1, search.selected - 1) end,
  [keys.down] = function() search.selected = math.min(math.max(1, cheats.search_count()), search.selected + 1) end,
  [keys.freeze] = function()
    local result = selected_result()
    if not result then return emu.message("no result to freeze") end
    freeze(result.address, result.domain, search.size, result.value, search.big_endian)
  end,
  [keys.watch] = function()
    local result = selected_result()
    if not result then return emu.message("no result to watch") end
    add_watch({ address = result.address, domain = result.domain, size = search.size, big_endian = search.big_endian,
                format = search.hex and "hex" or (search.signed and "signed" or "unsigned") })
  end,
}

local PAGES = { "search", "watch", "memory" }
local page = "search"
local open = false
local handlers = {}

local function legend(pairs_list)
  local parts = {}
  for _, pair in ipairs(pairs_list) do parts[#parts + 1] = pair[1] .. " " .. pair[2] end
  return table.concat(parts, "  ")
end

local function header()
  local parts = {}
  for _, name in ipairs(PAGES) do parts[#parts + 1] = name == page and ("[" .. name .. "]") or name end
  return "RAM " .. table.concat(parts, " ") .. "  " .. keys.page .. " page  " .. settings.panel_key .. " close"
end

-- The memory page (lua/retrolua/memory_view.lua), sharing the panel's settings, prompts and watch list.
local viewer = require("retrolua.memory_view").new({
  settings = settings, domains = names, domain = default_domain, ask = ask, add_watch = add_watch,
  protected = protected, next_in = next_in, legend = legend, header = header, stale = function() stale() end,
  frozen_bytes = frozen_bytes,
})

local function watch_frozen(frozen, watch) return is_frozen(frozen, watch.domain, watch.address) end

-- The watch page (lua/retrolua/watch_page.lua), on the panel's watch list, prompts and memory page.
local watch_list = require("retrolua.watch_page").new({
  settings = settings, watches = watches, save = save_watches, saved = watch_file ~= nil, ask = ask,
  add_watch = add_watch, freeze = freeze, next_in = next_in, legend = legend, header = header,
  frozen_bytes = frozen_bytes, watch_frozen = watch_frozen, domain = function() return viewer.domain() end,
})

-- Results read at most every few frames (each read snapshots the domain: a whole bus is 64 KB or more),
-- and again after every step.
local function cached_results(limit)
  local frame = emu.framecount()
  if limit ~= cache.limit or cache.count ~= cheats.search_count() or math.abs(frame - cache.frame) >= 10 then
    cache.results, cache.limit, cache.frame, cache.count = cheats.search_results(limit), limit, frame, cheats.search_count()
  end
  return cache.results
end

local function search_lines()
  local lines = { header(), describe() .. (search.hex and " hex" or " dec"),
                  string.format("%d candidates", search.started and cheats.search_count() or 0) }
  local first = math.max(1, search.selected - settings.shown + 1)
  local results = cached_results(first + settings.shown - 1)
  local frozen = frozen_bytes()
  for index = first, math.min(#results, first + settings.shown - 1) do
    local result = results[index]
    local chosen = index == search.selected
    local mark = is_frozen(frozen, result.domain, result.address) and "*" or " "
    lines[#lines + 1] = { text = string.format("%s%04X%s%s (%s)", chosen and ">" or " ", result.address, mark,
                                               shown_value(result.value), shown_value(result.previous)),
                          color = chosen and "yellow" or "white" }
  end
  lines[#lines + 1] = legend({ { keys.changed, "chg" }, { keys.unchanged, "same" }, { keys.increased, "up" },
                               { keys.decreased, "down" }, { keys.equal, "=N" }, { keys.changed_by, "+-N" } })
  lines[#lines + 1] = legend({ { keys.restart, "new" }, { keys.freeze, "freeze" }, { keys.watch, "watch" },
                               { keys.size, "size" }, { keys.signed, "sign" } })
  lines[#lines + 1] = legend({ { keys.endian, "endian" }, { keys.hex, "hex/dec" }, { keys.domain, "domain" } })
  return lines
end

-- While the panel is closed: each watch's value and graph, top right.
local function draw_overlay(scale)
  local width, height = gui.surface_size("hud")
  local graph_width, graph_height = 64 * scale, 16 * scale
  local x = width - graph_width - 40 * scale
  local y = 26 * scale
  local frozen = frozen_bytes()
  for _, watch in ipairs(watches.items) do
    if y >= height then break end  -- the rest would be off the screen
    local text = string.format("%s %s%s", watch.label ~= "" and watch.label or string.format("%04X", watch.address),
                               watch_frozen(frozen, watch) and "*" or "",
                               ramwatch.format(ramwatch.value(watch), watch.size, watch.format))
    ui.text(x, y, text, scale, "white", "#00000080")
    y = y + ui.line_height(scale)
    if watch.graph then
      watches:draw_graph(watch, x, y, graph_width, graph_height, scale)
      y = y + graph_height + 2 * scale
    end
  end
end

local function draw()
  local scale = ui.scale(settings.scale)
  if not open then return draw_overlay(scale) end
  local lines = page == "search" and search_lines() or page == "watch" and watch_list.lines() or viewer.lines(scale)
  if entry then lines[#lines + 1] = { text = ui.entry_line(entry), color = "cyan" } end
  local top = 26 * scale
  local _, height = ui.panel(-4 * scale, top, lines, scale)
  local watch = page == "watch" and watch_list.current()
  if watch then
    local width = gui.surface_size("hud")
    watches:draw_graph(watch, width - 140 * scale, top + height + 4 * scale, 100 * scale, 32 * scale, scale)
  end
end

-- The handlers run only when needed: a closed panel with no watches costs nothing per frame.
local function refresh_handlers()
  local drawing = open or (settings.overlay and #watches.items > 0)
  if drawing and not handlers.draw then handlers.draw = event.on("draw", draw) end
  if not drawing and handlers.draw then event.off(handlers.draw); handlers.draw = nil end
  local sampling = #watches.items > 0
  if sampling and not handlers.sample then handlers.sample = event.on("frame_end", function() watches:sample() end) end
  if not sampling and handlers.sample then event.off(handlers.sample); handlers.sample = nil end
end

-- Under --speak: the page and its chosen line.
local function speak_page()
  local what
  if page == "search" then
    local result = selected_result()
    what = string.format("RAM search, %d candidates", search.started and cheats.search_count() or 0)
    if result then
      what = what .. string.format(", address %X, value %s%s", result.address, shown_value(result.value),
                                   is_frozen(frozen_bytes(), result.domain, result.address) and ", frozen" or "")
    end
  elseif page == "watch" then
    local watch = watch_list.current()
    what = string.format("RAM watch, %d watches", #watches.items)
    if watch then
      what = what .. string.format(", %s address %X, value %s%s", watch.label, watch.address,
                                   ramwatch.format(ramwatch.value(watch), watch.size, watch.format),
                                   watch_frozen(frozen_bytes(), watch) and ", frozen" or "")
    end
  else
    what = "memory, " .. viewer.describe()
  end
  ui.speak(what)
end

local resume_on_close = false  -- the panel paused the game (settings.pause), so closing it resumes

local function set_open(on)
  if on then
    local ok, why = input.capture(true)
    if not ok then return emu.message("RAM tools: " .. tostring(why)) end
    if not search.started then start_search() end
    -- Paused while it has the keyboard: typing a value must not cost the game anything.
    resume_on_close = settings.pause and not open and not emu.paused()
    if resume_on_close then emu.pause() end
    stale()
    ui.speak_again()
  else
    input.capture(false)
    if resume_on_close and emu.paused() then emu.unpause() end
    resume_on_close = false
    entry = nil
  end
  open = on
  if on then speak_page() end
end

local PAGE_KEYS = { search = search_keys, watch = watch_list.keys, memory = viewer.keys }

event.on("key_down", function(key, is_repeat, mods)
  if key == settings.panel_key then
    if not is_repeat then set_open(not open) end
  elseif open and entry then
    local outcome = ui.type(entry, key, mods)
    if outcome then
      local typed = entry
      entry = nil
      if outcome == "done" then typed.done(typed) end
      ui.speak_again()
      speak_page()
    end
  elseif open and key == keys.close then
    set_open(false)
  elseif open and key == keys.page then
    page = next_in(PAGES, page)
    stale()
    speak_page()
  elseif open then
    local action = PAGE_KEYS[page][key]
    local moves = key == keys.up or key == keys.down or key == keys.left or key == keys.right
    if action and (not is_repeat or moves or key == keys.page_up or key == keys.page_down) then
      action()
      if moves or key == keys.page_up or key == keys.page_down then speak_page() end
    elseif page == "memory" and not is_repeat then
      if viewer.type(key) then speak_page() end
    end
  end
  refresh_handlers()
end)

refresh_handlers()
