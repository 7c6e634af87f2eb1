-- Console prelude, run after the security prelude with no arguments: print and console.* are Lua as they need tostring (metamethods).
local write, tostring, select, concat = console.write, tostring, select, table.concat
local function join(...)
  local parts = {}
  for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
  return concat(parts, "\t")
end
function print(...) write(join(...)) end
console.log = print
function console.warn(...) write("warning: " .. join(...), "err") end
function console.error(...) write("error: " .. join(...), "err") end

-- The wording of an error a script can act on. The host calls the function this chunk returns with a failed
-- script's message (and its path) and reports what it returns instead, if anything: a nil called or indexed by a
-- name another emulator's API has names the layer that would run the script, and a misspelled name names the
-- close ones that exist. Nothing changes for a script that tests a name first (`if memory.foo then`): only the
-- text of an error that already happened is reworded.
local pairs, type, pcall, require, open = pairs, type, pcall, require, io.open
local byte, sub, find, match, lower, format = string.byte, string.sub, string.find, string.match, string.lower,
  string.format
local sort, min = table.sort, math.min

-- Edits (insert, delete, replace, swap two neighbours) from a to b, or limit + 1 when more than limit.
local function distance(a, b, limit)
  if a == b then return 0 end
  if lower(a) == lower(b) then return 0.5 end
  local la, lb = #a, #b
  if la - lb > limit or lb - la > limit then return limit + 1 end
  local before, previous, current = {}, {}, {}
  for j = 0, lb do previous[j] = j end
  for i = 1, la do
    current[0] = i
    local best = i
    for j = 1, lb do
      local cost = byte(a, i) == byte(b, j) and 0 or 1
      local d = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
      if i > 1 and j > 1 and byte(a, i) == byte(b, j - 1) and byte(a, i - 1) == byte(b, j) then
        d = min(d, before[j - 2] + 1)
      end
      current[j] = d
      if d < best then best = d end
    end
    if best > limit then return limit + 1 end
    before, previous, current = previous, current, before
  end
  return previous[lb]
end

-- The string keys of `t` closest to `name` (at most three, equally close), and how close.
local function close_names(t, name)
  local limit = #name >= 5 and 2 or 1
  local found = {}
  local ok = pcall(function()
    for key in pairs(t) do
      if type(key) == "string" and key ~= name then
        local d = distance(key, name, limit)
        if d <= limit then found[#found + 1] = { key, d } end
      end
    end
  end)
  if not ok then return {} end
  sort(found, function(x, y) return x[2] < y[2] or (x[2] == y[2] and x[1] < y[1]) end)
  local names = {}
  for i = 1, min(3, #found) do
    if found[i][2] == found[1][2] then names[i] = found[i][1] end
  end
  return names, found[1] and found[1][2]
end

-- The global a dotted name stands for (nil when it is not one).
local function global(path)
  local value = _G
  for part in path:gmatch("[^.]+") do
    if type(value) ~= "table" then return nil end
    local ok, next_value = pcall(function() return value[part] end)
    if not ok then return nil end
    value = next_value
  end
  return value
end

-- Line `number` of the file a message's chunk name stands for (Lua shortens long ones to "...tail").
local function source_line(chunk, number, script_path)
  local file = chunk
  if sub(chunk, 1, 3) == "..." then
    local tail = sub(chunk, 4)
    file = nil
    if type(script_path) == "string" then
      if sub(script_path, -#tail) == tail then
        file = script_path
      else
        local folder, base = match(script_path, "^(.*)/[^/]*$"), match(tail, "([^/]*)$")
        if folder and base and sub(folder .. "/" .. base, -#tail) == tail then file = folder .. "/" .. base end
      end
    end
  end
  if not file or not find(file, "%.lua$") then return nil end
  local handle = open(file, "r")
  if not handle then return nil end
  local head = handle:read(1 << 20) or ""  -- a script's first MiB is plenty; never more
  handle:close()
  local n = 1
  for line in head:gmatch("([^\n]*)\n?") do
    if n == number then return line end
    n = n + 1
    if n > number then break end
  end
  return nil
end

local labels = { fceux = "FCEUX", bizhawk = "BizHawk", mesen = "Mesen", mgba = "mGBA" }

-- "memory.readbyte is FCEUX's name: …" when `full` is a name of a layer this script does not run under.
local function layer_hint(full)
  local ok, compat = pcall(require, "compat.common")
  if not ok or type(compat) ~= "table" or type(compat.marks) ~= "table" then return nil end
  local layer = compat.marks.layer_of(full)
  local running = "Retrolua"  -- or the layer this script runs under (the one that recorded its table)
  for name in pairs(type(compat.support) == "table" and compat.support or {}) do running = labels[name] or name end
  if not layer or running == (labels[layer] or layer) then return nil end
  return format("%s is %s's name, not %s's: run the script with --compat %s (or --compat auto)", full,
    labels[layer] or layer, running, layer)
end

local function did_you_mean(full, names, prefix)
  if #names == 0 then return nil end
  local shown = {}
  for i, name in ipairs(names) do shown[i] = prefix .. name end
  return format("%s does not exist; did you mean %s?", full, table.concat(shown, " or "))
end

-- The new wording for a nil called or indexed as kind (field, method, global) `name` on line `text`, or nil.
local function reword(kind, name, text)
  if kind == "global" then
    return layer_hint(name) or did_you_mean(name, close_names(_G, name), "")
  end
  local separator = kind == "method" and ":" or "."
  local owner
  if text then
    local escaped = name:gsub("%p", "%%%0")
    for candidate in text:gmatch("([%a_][%w_%.]*)%s*%" .. separator .. "%s*" .. escaped .. "%f[^%w_]") do
      owner = candidate
      if type(global(candidate)) == "table" then break end
    end
  end
  if owner then
    local full = owner .. separator .. name
    local hint = layer_hint(full)
    if hint then return hint end
    local t = global(owner)
    if type(t) == "table" and kind ~= "method" then return did_you_mean(full, close_names(t, name), owner .. ".") end
    if t ~= nil or kind == "method" then return nil end
  end
  if kind == "method" then return nil end
  -- the table is a local: the API modules' close names
  local names, best = {}, math.huge
  for module, t in pairs(_G) do
    if type(module) == "string" and type(t) == "table" and t ~= _G then
      local found, d = close_names(t, name)
      if d and d < best then names, best = {}, d end
      if d == best then
        for _, close in ipairs(found) do names[#names + 1] = module .. "." .. close end
      end
    end
  end
  sort(names)
  if #names == 0 or #names > 3 then return nil end
  return did_you_mean(owner and owner .. "." .. name or name, names, "")
end

return function(message, script_path)
  if type(message) ~= "string" then return nil end
  local first, rest = match(message, "^([^\n]*)(.*)$")
  local chunk, line, what, kind, name = match(first, "^(.-):(%d+): attempt to (%a+) a nil value %((%a+) '([^']+)'%)$")
  if not chunk or (what ~= "call" and what ~= "index") then return nil end
  if kind ~= "field" and kind ~= "method" and kind ~= "global" then return nil end
  if what == "index" and kind == "method" then return nil end
  local text = source_line(chunk, tonumber(line), script_path)
  local ok, reworded = pcall(reword, kind, name, text)
  if not ok or type(reworded) ~= "string" then return nil end
  return chunk .. ":" .. line .. ": " .. reworded .. rest
end
