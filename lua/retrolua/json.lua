-- A small JSON reader (RFC 8259) for Retrolua's Lua library: RetroAchievements game data and other
-- configuration. Pure Lua 5.4, no host dependency.
--
--   local json = require("retrolua.json")
--   local value, err = json.decode(text)   -- objects → tables, arrays → sequences, null → json.null
--
-- Integers stay integers; other numbers become floats. Errors name the byte offset.

local json = {}

--- The value JSON `null` decodes to (a unique sentinel, so arrays keep their length).
json.null = setmetatable({}, { __tostring = function() return "null" end })

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

function parse_value(text, position, depth)
  if depth > 200 then fail(position, "nesting too deep") end
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
      object[key], position = parse_value(text, position + 1, depth + 1)
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
      array[#array + 1], position = parse_value(text, position, depth + 1)
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
    return value, position + #word
  end
  fail(position, first == "" and "unexpected end of input" or ("unexpected '" .. first .. "'"))
end

--- Decodes JSON text; returns the value, or `nil, message`.
function json.decode(text)
  if type(text) ~= "string" then return nil, "json: text expected" end
  local ok, value, position = pcall(parse_value, text, 1, 0)
  if not ok then
    if type(value) == "table" and value.json then return nil, value.json end
    error(value, 0)
  end
  if skip(text, position) <= #text then return nil, string.format("json: unexpected text at byte %d", skip(text, position)) end
  return value
end

return json
