-- The console's helpers, run in the console's state after the security prelude: how a typed chunk compiles,
-- how its values are shown, and what Tab completes. The host keeps the table this chunk returns (it is not a
-- global, so the console's own names stay the person's).
local load, type, tostring, pairs, next = load, type, tostring, pairs, next
local getmetatable, rawget, math_type = getmetatable, rawget, math.type
local format, concat, sort = string.format, table.concat, table.sort

local repl = {}

-- Limits on what one value shows: nesting, entries a table, and characters in all.
local MAX_DEPTH, MAX_ENTRIES, MAX_CHARS = 3, 30, 4000

-- A line that is one `local` declaration becomes an assignment to console globals, so `local x = 5` then `x`
-- works (each line is a chunk of its own; its locals would end with it). A longer chunk keeps its locals
-- (`local t = {} for …` stays local to the chunk); attributes (<const>, <close>) stay local too.
local function globalize(chunk)
  local head, name, rest = chunk:match("^(%s*)local%s+function%s+([%a_][%w_]*)(.*)$")
  if head then return head .. "function " .. name .. rest end
  local names, values = chunk:match("^%s*local%s+([%a_][%w_]*[%s,%w_]*)(.*)$")
  if not names or names:find("<") then return chunk end
  names = names:gsub("[%s,]+$", "")
  if values:find("^%s*$") then
    local list = {}
    for each in names:gmatch("[%a_][%w_]*") do list[#list + 1] = each end
    return concat(list, ", ") .. " = nil"
  end
  local expressions = values:match("^%s*=(.*)$")
  if expressions and load("return " .. expressions, "=console", "t") then return names .. " =" .. expressions end
  return chunk
end

-- A chunk as a function: an expression first (`1+1` shows 2, as the standalone lua does), else statements.
-- nil, "incomplete" when more lines would finish it; nil, message for a syntax error.
function repl.compile(chunk)
  local fn = load("return " .. chunk, "=console", "t")
  if fn then return fn end
  local err
  fn, err = load(globalize(chunk), "=console", "t")
  if fn then return fn end
  if err:find("<eof>$") then return nil, "incomplete" end
  return nil, err
end

local last

-- The body the host runs as a coroutine (emu.frameadvance() yields it): it keeps what `fn` returned.
function repl.wrap(fn)
  return function() last = table.pack(fn()) end
end

local show

local function key_text(key)
  if type(key) == "string" and key:find("^[%a_][%w_]*$") then return key end
  return "[" .. show(key, MAX_DEPTH, {}, true) .. "]"
end

local function sorted_keys(t, count)
  local keys = {}
  for key in pairs(t) do
    if not (math_type(key) == "integer" and key >= 1 and key <= count) then keys[#keys + 1] = key end
  end
  sort(keys, function(a, b)
    local ta, tb = type(a), type(b)
    if ta ~= tb then return ta < tb end
    if ta == "number" or ta == "string" then return a < b end
    return tostring(a) < tostring(b)
  end)
  return keys
end

-- A value as the console shows it: tables opened to MAX_DEPTH, MAX_ENTRIES entries each, strings quoted
-- inside tables; a table with __tostring shows that.
function show(value, depth, seen, quoted)
  local kind = type(value)
  if kind == "string" then
    -- Long strings are cut before they are quoted: what the console shows is bounded anyway.
    local cut = #value > MAX_CHARS and value:sub(1, MAX_CHARS) or value
    if quoted then cut = format("%q", cut):gsub("\\\n", "\\n") end
    return #value > MAX_CHARS and cut .. "…" or cut
  end
  if kind ~= "table" then return tostring(value) end
  local meta = getmetatable(value)
  if type(meta) == "table" and rawget(meta, "__tostring") then return tostring(value) end
  if seen[value] then return "<cycle>" end
  if depth >= MAX_DEPTH then return next(value) == nil and "{}" or "{…}" end
  seen[value] = true
  local parts, count = {}, #value
  for index = 1, count do
    if #parts >= MAX_ENTRIES then break end
    parts[#parts + 1] = show(rawget(value, index), depth + 1, seen, true)
  end
  for _, key in pairs(sorted_keys(value, count)) do
    if #parts >= MAX_ENTRIES then break end
    parts[#parts + 1] = key_text(key) .. " = " .. show(rawget(value, key), depth + 1, seen, true)
  end
  local total = 0
  for _ in pairs(value) do total = total + 1 end
  if total > #parts then parts[#parts + 1] = format("… (%d more)", total - #parts) end
  seen[value] = nil
  return "{" .. concat(parts, ", ") .. "}"
end

-- What the last chunk returned, as values (`{n=, ...}`): the host turns them into JSON (the `json` option).
function repl.values()
  return last or { n = 0 }
end

-- What the last chunk returned, each value shown as a string (none: an empty list).
function repl.results()
  local values, shown = last or { n = 0 }, {}
  last = nil
  local total = 0
  for index = 1, values.n do
    local text = show(values[index], 0, {}, false)
    if total + #text > MAX_CHARS then text = text:sub(1, math.max(0, MAX_CHARS - total)) .. "…" end
    total = total + #text
    shown[index] = text
  end
  return shown
end

local KEYWORDS = { "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
                   "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while" }

-- The names a table offers: its own string keys, then those its metatable's __index table adds.
local function names_of(value, into, prefix, methods_only)
  local seen_tables = 0
  while value ~= nil and seen_tables < 4 do
    seen_tables = seen_tables + 1
    if type(value) == "table" then
      for key, member in next, value do
        if type(key) == "string" and key:find("^[%a_][%w_]*$") and key:sub(1, #prefix) == prefix
          and (not methods_only or type(member) == "function") then
          into[key] = true
        end
      end
    end
    local meta = getmetatable(value)
    value = type(meta) == "table" and rawget(meta, "__index") or nil
    if type(value) ~= "table" then break end
  end
end

-- Completions of the dotted name that ends `text` (`x = emu.fr` → {"emu.frameadvance", "emu.framecount"}):
-- fields are looked up raw, so completing never runs a script's __index.
function repl.complete(text)
  local path = text:match("([%a_][%w_]*[%w_%.:]*)$") or ""
  -- After `f().` or `("x"):` the object is an expression, which completing must not run: nothing to offer.
  if text:sub(1, #text - #path):find("[%.:]$") then return {} end
  local base, separator, partial = path:match("^(.*)([%.:])([%w_]*)$")
  local found = {}
  if base then
    local value = _G
    for part in base:gmatch("[^%.:]+") do
      if type(value) ~= "table" then
        local meta = getmetatable(value)
        value = type(meta) == "table" and rawget(meta, "__index") or nil
        if type(value) ~= "table" then return {} end
      end
      value = rawget(value, part)
    end
    if value == nil then return {} end
    if type(value) ~= "table" then
      local meta = getmetatable(value)
      value = type(meta) == "table" and rawget(meta, "__index") or nil
    end
    names_of(value, found, partial, separator == ":")
  else
    partial = path
    names_of(_G, found, partial, false)
    for _, word in pairs(KEYWORDS) do
      if word:sub(1, #partial) == partial then found[word] = true end
    end
  end
  local list = {}
  for name in pairs(found) do list[#list + 1] = (base and (base .. separator) or "") .. name end
  sort(list)
  if #list > 200 then
    for index = #list, 201, -1 do list[index] = nil end
  end
  return list
end

return repl
