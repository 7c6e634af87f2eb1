-- retrolua.achievements.format: value formatting as rcheevos does it for rich
-- presence macros and leaderboard values (rc_parse_format and
-- rc_format_typed_value).

local num = require("retrolua.achievements.num")

local format, mtype = string.format, math.type
local tou32, toi32, tof = num.tou32, num.toi32, num.tof

local F = {}

local FORMAT_NAMES = {
  FRAMES = "FRAMES", TIME = "FRAMES", TIMESECS = "SECONDS", SECS = "SECONDS", SECS_AS_MINS = "SECONDS_AS_MINUTES",
  MILLISECS = "CENTISECS", MINUTES = "MINUTES", SCORE = "SCORE", POINTS = "SCORE", OTHER = "SCORE",
  VALUE = "VALUE", UNSIGNED = "UNSIGNED", TENS = "TENS", HUNDREDS = "HUNDREDS", THOUSANDS = "THOUSANDS",
  FLOAT1 = "FLOAT1", FLOAT2 = "FLOAT2", FLOAT3 = "FLOAT3", FLOAT4 = "FLOAT4", FLOAT5 = "FLOAT5", FLOAT6 = "FLOAT6",
  FIXED1 = "FIXED1", FIXED2 = "FIXED2", FIXED3 = "FIXED3",
}

--- Maps a FormatType name ("SCORE", "FRAMES", "FLOAT2", ...) to a format
-- code; unknown names format as VALUE, like rcheevos.
function F.parse_format(name)
  return FORMAT_NAMES[name] or "VALUE"
end

-- (int)value: floats truncate toward zero; out of range gives INT_MIN (x86)
local function to_signed(v)
  if mtype(v) == "float" then
    if v ~= v or v >= 2147483648.0 or v < -2147483648.0 then return -2147483648 end
    return (v >= 0) and math.floor(v) or math.ceil(v)
  end
  return toi32(v)
end
F.to_signed = to_signed

local function seconds(s)
  local minutes = s // 60
  s = s - minutes * 60
  if minutes < 60 then return format("%d:%02d", minutes, s) end
  local hours = minutes // 60
  minutes = minutes - hours * 60
  return format("%dh%02d:%02d", hours, minutes, s)
end

local function centiseconds(cs)
  local s = cs // 100
  return seconds(s) .. format(".%02d", cs - s * 100)
end

local function minutes(m)
  local hours = m // 60
  return format("%dh%02d", hours, m - hours * 60)
end

-- rc_format_insert_commas: group the leading run of digits by thousands
local function commas(text)
  local sign, digits, rest = text:match("^(%-?)(%d*)(.*)$")
  if #digits <= 3 then return text end
  local head = #digits % 3
  local out = { digits:sub(1, head) }
  for i = head + 1, #digits, 3 do out[#out + 1] = digits:sub(i, i + 2) end
  if out[1] == "" then table.remove(out, 1) end
  return sign .. table.concat(out, ",") .. rest
end
F.commas = commas

local function fixed(v, fmt, factor)
  if v >= 0 then return format(fmt, v // factor, v % factor) end
  local q = -((-v) // factor) -- C division truncates toward zero
  return format(fmt, q, (-v) % factor)
end

local function padded(v, suffix)
  if v == 0 then return "0" end
  return format("%d", v) .. suffix
end

--- Formats a typed value (integer = unsigned 32-bit, float = single) with a
-- format code from parse_format or one of the rich presence built-ins.
function F.format_value(v, fmt)
  local text
  if fmt == "FRAMES" then
    text = centiseconds(((tou32(v) * 10) & 0xFFFFFFFF) // 6)
  elseif fmt == "CENTISECS" then
    text = centiseconds(tou32(v))
  elseif fmt == "SECONDS" then
    text = seconds(tou32(v))
  elseif fmt == "SECONDS_AS_MINUTES" then
    text = minutes(tou32(v) // 60)
  elseif fmt == "MINUTES" then
    text = minutes(tou32(v))
  elseif fmt == "SCORE" then
    return format("%06d", to_signed(v))
  elseif fmt == "UNFORMATTED" then
    return format("%d", tou32(v))
  elseif fmt == "UNSIGNED" then
    text = format("%d", tou32(v))
  elseif fmt == "TENS" then
    text = padded(to_signed(v), "0")
  elseif fmt == "HUNDREDS" then
    text = padded(to_signed(v), "00")
  elseif fmt == "THOUSANDS" then
    text = padded(to_signed(v), "000")
  elseif fmt == "FIXED1" then
    text = fixed(to_signed(v), "%d.%d", 10)
  elseif fmt == "FIXED2" then
    text = fixed(to_signed(v), "%d.%02d", 100)
  elseif fmt == "FIXED3" then
    text = fixed(to_signed(v), "%d.%03d", 1000)
  else
    local digits = fmt and fmt:match("^FLOAT(%d)$")
    if digits then
      text = format("%." .. digits .. "f", tof(v))
    else
      text = format("%d", to_signed(v))
    end
  end
  return commas(text)
end

return F
