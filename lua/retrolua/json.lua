-- A small JSON reader and writer (RFC 8259) for Retrolua's Lua library and the compatibility layers:
-- RetroAchievements game data, configuration, mGBA's storage buckets. Pure Lua 5.4, no host dependency.
--
--   local json = require("retrolua.json")
--   local value, err = json.decode(text)   -- objects → tables, arrays → sequences, null → json.null
--   local text = json.encode(value)        -- tables with only the keys 1…n are arrays
--
-- Integers stay integers; other numbers become floats. Errors name the byte offset.

local json = {}

--- The value JSON `null` decodes to (a unique sentinel, so arrays keep their length).
json.null = setmetatable({}, { __tostring = function() return "null" end })

-- Nesting deeper than this is refused both ways (no deep recursion on hostile input).
local MAX_DEPTH = 200

local ESCAPES = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }

local function fail(position, message)
  error({ json = string.format("json: %s at byte %d", message, position) }, 0)
end

local function skip(text, position)
  return text:find("[^ \t\r\n]", position) or #text + 1
end

local parse_value

local function parse_string(text, position)
  local parts, start = {}, position + 1
  while true do
    local stop = text:find('["\\]', start)
    if not stop then fail(position, "unterminated string") end
    parts[#parts + 1] = text:sub(start, stop - 1)
    if text:sub(stop, stop) == '"' then return table.concat(parts), stop + 1 end
    local kind = text:sub(stop + 1, stop + 1)
    if kind == "u" then
      local hex = text:sub(stop + 2, stop + 5)
      if not hex:match("^%x%x%x%x$") then fail(stop, "bad \\u escape") end
      local code = tonumber(hex, 16)
      start = stop + 6
      if code >= 0xD800 and code <= 0xDBFF and text:sub(start, start + 1) == "\\u" then
        local low = tonumber(text:sub(start + 2, start + 5), 16)
        if low and low >= 0xDC00 and low <= 0xDFFF then
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
          start = start + 6
        end
      end
      parts[#parts + 1] = utf8.char(code)
    elseif ESCAPES[kind] then
      parts[#parts + 1] = ESCAPES[kind]
      start = stop + 2
    else
      fail(stop, "bad escape")
    end
  end
end

local function parse_number(text, position)
  local number = text:match("^-?%d+%.?%d*[eE]?[-+]?%d*", position)
  if not number or number == "-" then fail(position, "bad number") end
  local value = tonumber(number)
  if value == nil then fail(position, "bad number") end
  if not number:find("[.eE]") then value = math.tointeger(value) or value end
  return value, position + #number
end

local LITERALS = { t = { "true", true }, f = { "false", false }, n = { "null", json.null } }

function parse_value(text, position, depth, null)
  if depth > MAX_DEPTH then fail(position, "nesting too deep") end
  position = skip(text, position)
  local first = text:sub(position, position)
  if first == "{" then
    local object = {}
    position = skip(text, position + 1)
    if text:sub(position, position) == "}" then return object, position + 1 end
    while true do
      if text:sub(position, position) ~= '"' then fail(position, "expected a string key") end
      local key
      key, position = parse_string(text, position)
      position = skip(text, position)
      if text:sub(position, position) ~= ":" then fail(position, "expected ':'") end
      object[key], position = parse_value(text, position + 1, depth + 1, null)
      position = skip(text, position)
      local separator = text:sub(position, position)
      if separator == "}" then return object, position + 1 end
      if separator ~= "," then fail(position, "expected ',' or '}'") end
      position = skip(text, position + 1)
    end
  elseif first == "[" then
    local array = {}
    position = skip(text, position + 1)
    if text:sub(position, position) == "]" then return array, position + 1 end
    while true do
      array[#array + 1], position = parse_value(text, position, depth + 1, null)
      position = skip(text, position)
      local separator = text:sub(position, position)
      if separator == "]" then return array, position + 1 end
      if separator ~= "," then fail(position, "expected ',' or ']'") end
      position = position + 1
    end
  elseif first == '"' then
    return parse_string(text, position)
  elseif first == "-" or first:match("%d") then
    return parse_number(text, position)
  elseif LITERALS[first] then
    local word, value = LITERALS[first][1], LITERALS[first][2]
    if text:sub(position, position + #word - 1) ~= word then fail(position, "unexpected '" .. first .. "'") end
    if value == json.null then value = null end
    return value, position + #word
  end
  fail(position, first == "" and "unexpected end of input" or ("unexpected '" .. first .. "'"))
end

--- Decodes JSON text; returns the value, or `nil, message`. `null` decodes to json.null, or with `nil_for_null`
--- to nil (an object's key is then absent; an array's null is skipped).
function json.decode(text, nil_for_null)
  if type(text) ~= "string" then return nil, "json: text expected" end
  local null = json.null
  if nil_for_null then null = nil end
  local ok, value, position = pcall(parse_value, text, 1, 0, null)
  if not ok then
    if type(value) == "table" and value.json then return nil, value.json end
    error(value, 0)
  end
  if skip(text, position) <= #text then return nil, string.format("json: unexpected text at byte %d", skip(text, position)) end
  return value
end

local function encode(value, out, depth)
  local kind = type(value)
  if value == nil or value == json.null then
    out[#out + 1] = "null"
  elseif kind == "boolean" then
    out[#out + 1] = value and "true" or "false"
  elseif kind == "number" then
    -- JSON has no NaN or infinity
    if value ~= value or value == math.huge or value == -math.huge then value = 0 end
    out[#out + 1] = math.type(value) == "integer" and tostring(value) or string.format("%.17g", value)
  elseif kind == "string" then
    out[#out + 1] = '"' .. value:gsub('[%c"\\]', function(c) return string.format("\\u%04x", c:byte()) end) .. '"'
  elseif kind == "table" then
    if depth > MAX_DEPTH then error("json: nesting deeper than " .. MAX_DEPTH, 0) end
    local n = #value
    local array = n > 0 or next(value) == nil
    if array then for k in pairs(value) do array = array and math.type(k) == "integer" and k >= 1 and k <= n end end
    if array then
      out[#out + 1] = "["
      for i = 1, n do
        if i > 1 then out[#out + 1] = "," end
        encode(value[i], out, depth + 1)
      end
      out[#out + 1] = "]"
    else
      out[#out + 1] = "{"
      local first = true
      for k, v in pairs(value) do
        if type(v) ~= "function" and type(v) ~= "userdata" and type(v) ~= "thread" then
          if not first then out[#out + 1] = "," end
          first = false
          encode(tostring(k), out, depth + 1)
          out[#out + 1] = ":"
          encode(v, out, depth + 1)
        end
      end
      out[#out + 1] = "}"
    end
  else
    out[#out + 1] = "null"
  end
end

--- JSON text of `value`: tables with only the keys 1…n (or none) are arrays, other keys become strings; functions,
--- userdata and threads are left out of objects (null elsewhere). Raises an error on nesting deeper than 200.
function json.encode(value)
  local out = {}
  encode(value, out, 0)
  return table.concat(out)
end

return json
