-- retrolua.achievements.richpresence: rich presence scripts (rcheevos
-- richpresence.c semantics).
--
--   Lookup:Name            followed by "value=label" lines ("1=One",
--                          "2-5,8=Few", "0x10=Hex", "*=default"); ends at
--                          an empty line
--   Format:Name            followed by "FormatType=SCORE" (or VALUE, FRAMES,
--                          SECS, MILLISECS, MINUTES, SECS_AS_MINS, TIME,
--                          TIMESECS, POINTS, OTHER, FLOAT1-6, FIXED1-3, TENS,
--                          HUNDREDS, THOUSANDS, UNSIGNED)
--   Display:               followed by "?trigger?text" lines (first whose
--                          trigger is true wins) and one default text line
--
-- Display text may contain @Name(value) macros: a Lookup, a Format or a
-- built-in (Number, Unsigned, Score, Centiseconds, Seconds, Minutes,
-- SecondsAsMinutes, Float1-6, Fixed1-3, ASCIIChar, UnicodeChar,
-- Unformatted).  "//" starts a comment; "\" escapes the next character.

local parse = require("retrolua.achievements.parse")
local units = require("retrolua.achievements.parse_units")
local lookups = require("retrolua.achievements.richpresence_lookup")
local compile = require("retrolua.achievements.compile")
local fmt = require("retrolua.achievements.format")
local num = require("retrolua.achievements.num")

local sub, find, format, concat = string.sub, string.find, string.format, table.concat
local fail = parse.fail
local parse_line, parse_lookup, lookup_label = lookups.parse_line, lookups.parse, lookups.label

local RP = {}

local BUILTIN = {
  Number = "VALUE", Score = "SCORE", Centiseconds = "CENTISECS", Seconds = "SECONDS", Minutes = "MINUTES",
  SecondsAsMinutes = "SECONDS_AS_MINUTES", ASCIIChar = "ASCIICHAR", UnicodeChar = "UNICODECHAR",
  Float1 = "FLOAT1", Float2 = "FLOAT2", Float3 = "FLOAT3", Float4 = "FLOAT4", Float5 = "FLOAT5", Float6 = "FLOAT6",
  Fixed1 = "FIXED1", Fixed2 = "FIXED2", Fixed3 = "FIXED3", Unsigned = "UNSIGNED", Unformatted = "UNFORMATTED",
}

local function unescape(text)
  if not find(text, "\\", 1, true) then return text end
  local out, i, n = {}, 1, #text
  while i <= n do
    local c = sub(text, i, i)
    if c == "\\" then
      i = i + 1
      c = sub(text, i, i) -- the escaped character is kept as is
    end
    out[#out + 1] = c
    i = i + 1
  end
  return concat(out)
end

-- splits one display line into parts
local function parse_display(state, s, b, e)
  if e < b then fail(b, "Missing display string") end
  local parts = {}
  local i = b
  while i <= e do
    local at = i
    while at <= e do
      if sub(s, at, at) == "@" and (at == b or sub(s, at - 1, at - 1) ~= "\\") then break end
      at = at + 1
    end
    if at > i then
      parts[#parts + 1] = { kind = "text", text = unescape(sub(s, i, at - 1)) }
    end
    if at > e then break end
    -- macro
    local open = find(s, "(", at + 1, true)
    if not open or open > e then fail(at, "Missing value expression") end
    local name = sub(s, at + 1, open - 1)
    local close = find(s, ")", open + 1, true)
    if not close or close > e then
      parts[#parts + 1] = { kind = "text", text = sub(s, at, e) }
      break
    end
    local lookup = state.lookups[name]
    local display = lookup and lookup.format or BUILTIN[name]
    if not display then
      parts[#parts + 1] = { kind = "text", text = "[Unknown macro]" .. sub(s, at + 1, close) }
    else
      local params = sub(s, open + 1, close - 1)
      local unit = state.values[params]
      if not unit then
        local ps = units.new_state(params, state.mem, true)
        local ok, u = pcall(units.parse_value, ps, 1)
        if not ok then
          if type(u) == "table" and u.pos then fail(open + u.pos, u.msg) end
          error(u, 0)
        end
        unit = u
        unit.last = 0
        state.values[params] = unit
        state.units[#state.units + 1] = unit
      end
      parts[#parts + 1] = { kind = display == "LOOKUP" and "lookup" or "value", format = display,
        lookup = lookup, unit = unit }
    end
    i = close + 1
  end
  return parts
end

-- rich presence scripts hold whole lookup tables: a larger bound than a trigger's
RP.MAX_LENGTH = 4 * 1024 * 1024

local function parse_script(script)
  parse.check_length(script, RP.MAX_LENGTH)
  if script == "" then fail(1, "Missing display string") end
  local state = { lookups = {}, values = {}, units = {}, mem = parse.new_mem() }
  local displays = {}
  local display_at
  local s = script
  local i = 1
  -- first pass: lookups, formats, and where the display section starts
  while i <= #s do
    local b, e, nexti = parse_line(s, i)
    local line = sub(s, b, e)
    if line:sub(1, 7) == "Lookup:" then
      local lookup = { name = line:sub(8), format = "LOOKUP", items = {}, default = "" }
      state.lookups[lookup.name] = state.lookups[lookup.name] or lookup
      nexti = parse_lookup(s, lookup, nexti)
    elseif line:sub(1, 7) == "Format:" then
      local name = line:sub(8)
      local tb, te, after = parse_line(s, nexti)
      if name ~= "Unformatted" then
        local tline = sub(s, tb, te)
        local f = "VALUE"
        if tline:sub(1, 11) == "FormatType=" then f = fmt.parse_format(tline:sub(12)) end
        state.lookups[name] = state.lookups[name] or { name = name, format = f }
      end
      nexti = after
    elseif line:sub(1, 8) == "Display:" then
      display_at = nexti
      repeat
        local lb, le, after = parse_line(s, nexti)
        local dline = sub(s, lb, le)
        nexti = after
      until not (dline:sub(1, 1) == "?" or dline:sub(1, 2) == "//") or nexti > #s
    end
    i = nexti
  end
  if not display_at then fail(#s + 1, "Missing display string") end

  -- second pass: conditional display lines, then the default line
  i = display_at
  while true do
    local b, e, nexti = parse_line(s, i)
    if sub(s, b, b) == "?" then
      local q = find(s, "?", b + 1, true)
      if q and q <= e then
        local ps = units.new_state(s, state.mem, false)
        local unit, stop = units.parse_trigger(ps, b + 1)
        if stop ~= q then fail(stop, "Invalid operator") end
        local parts = parse_display(state, s, q + 1, e)
        state.units[#state.units + 1] = unit
        displays[#displays + 1] = { unit = unit, parts = parts, hits = unit.has_required_hits }
      end
    elseif sub(s, b, b + 1) ~= "//" or i > #s then
      displays[#displays + 1] = { parts = parse_display(state, s, b, e) }
      break
    end
    i = nexti
  end
  return state, displays
end

local function line_of(s, pos)
  local line = 1
  for _ in sub(s, 1, pos - 1):gmatch("\n") do line = line + 1 end
  return line
end

local Rich = {}
Rich.__index = Rich

--- Parses a rich presence script; returns an object or nil, message.
function RP.new(script)
  if type(script) ~= "string" then return nil, "rich presence script must be a string" end
  local ok, state, displays = pcall(parse_script, script)
  if not ok then
    if type(state) == "table" and state.pos then
      return nil, format("%s at line %d (position %d)", state.msg, line_of(script, state.pos), state.pos)
    end
    error(state, 0)
  end
  local prog = { mem = state.mem, units = state.units }
  local compiled, problem = pcall(compile.compile, prog)
  if not compiled then return nil, "cannot compile the script: " .. tostring(problem):sub(1, 200) end
  return setmetatable({ prog = prog, state = state, displays = displays }, Rich)
end

local function test_trigger(unit, peek)
  local ret, _, _, was_reset = unit.eval(peek)
  if was_reset then
    local H = unit.H
    for k = 0, unit.nhits do H[k] = 0 end
    return false
  end
  return ret
end

local char = string.char

local function utf8_char(v)
  if v < 0x80 then return char(v) end
  if v < 0x800 then return char(0xC0 | (v >> 6), 0x80 | (v & 0x3F)) end
  return char(0xE0 | (v >> 12), 0x80 | ((v >> 6) & 0x3F), 0x80 | (v & 0x3F))
end

local function render(parts)
  local out = {}
  local n = #parts
  local i = 1
  while i <= n do
    local part = parts[i]
    if part.kind == "text" then
      out[#out + 1] = part.text
    elseif part.kind == "lookup" then
      out[#out + 1] = lookup_label(part.lookup, num.tou32(part.unit.last))
    elseif part.format == "ASCIICHAR" or part.format == "UNICODECHAR" then
      local kind = part.format
      while true do
        local v = num.tou32(parts[i].unit.last)
        if v == 0 then
          while i < n and parts[i + 1].format == kind do i = i + 1 end
          break
        end
        if kind == "ASCIICHAR" then
          if v < 32 or v >= 127 then v = 63 end
          out[#out + 1] = char(v)
        else
          if v < 32 or v > 65535 or (v >= 0xD800 and v < 0xE000) then v = 0xFFFD end
          out[#out + 1] = utf8_char(v)
        end
        if i >= n or parts[i + 1].format ~= kind then break end
        i = i + 1
      end
    else
      out[#out + 1] = fmt.format_value(part.unit.last, part.format)
    end
    i = i + 1
  end
  return concat(out)
end

--- Advances one frame and returns the display string.
function Rich:update(peek)
  local prog = self.prog
  prog.refresh(peek)
  -- helper values are evaluated every frame; a paused value keeps its last result
  for _, unit in ipairs(prog.units) do
    if unit.kind == "value" then
      local valid, r = unit.eval(peek)
      if valid then unit.last = r end
    end
  end
  -- conditions with hit counts are evaluated every frame
  for _, d in ipairs(self.displays) do
    if d.unit and d.hits then d.triggered = test_trigger(d.unit, peek) end
  end
  local displays = self.displays
  for idx = 1, #displays do
    local d = displays[idx]
    if not d.unit then return render(d.parts) end
    if not d.hits then d.triggered = test_trigger(d.unit, peek) end
    if d.triggered then return render(d.parts) end
  end
  return ""
end

--- Clears the hit counts of the display conditions and the helper values.
function Rich:reset()
  for _, unit in ipairs(self.prog.units) do
    for k = 0, unit.nhits do unit.H[k] = 0 end
    if unit.kind == "value" then unit.last = 0 end
  end
end

return RP
