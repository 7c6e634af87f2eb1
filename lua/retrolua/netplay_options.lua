-- Which core options a netplay session's two sides must share: those that change emulation. Options
-- that only change what is shown or heard (palettes, overscan masks, aspect, video filters, crosshairs,
-- volumes) do not desync a session, so they do not refuse a join. Where the core sorts its options into
-- categories (core options v2), its "video" and "audio" ones are taken as output only; everywhere, keys
-- with the words of `OUTPUT_ONLY` are too, and keys with the words of `DECIDING` never are (a sprite
-- limit or an overclock changes the game even where a core files it under video). Documented in
-- docs/guides/netplay.md.

local options = {}

-- Lua patterns: an option whose key matches one changes only the picture or the sound.
options.OUTPUT_ONLY = {
  "palette", "colorization", "overscan", "aspect", "ntsc", "blargg", "crosshair", "color_correction",
  "interframe_blending", "frame_blending", "lcd_ghosting", "show_advanced", "audio_vol", "sgb_borders",
}

-- Lua patterns: an option whose key matches one changes emulation, whatever its category.
options.DECIDING = { "sprite", "overclock", "region", "model", "timing", "cpu", "bios" }

options.OUTPUT_CATEGORIES = { video = true, audio = true }

local function matches(key, patterns)
  for _, pattern in ipairs(patterns) do
    if key:find(pattern) then return true end
  end
  return false
end

--- Whether `option` (an `emu.options()` entry, or a key) changes only the output: it need not match
--- between the two sides.
function options.output_only(option)
  local key = type(option) == "table" and option.key or option
  local category = type(option) == "table" and option.category or nil
  if matches(key, options.DECIDING) then return false end
  return matches(key, options.OUTPUT_ONLY) or options.OUTPUT_CATEGORIES[(category or ""):lower()] == true
end

--- "key=value" lines of every core option that changes emulation, sorted: what both sides must share.
function options.text()
  local lines = {}
  for _, option in ipairs(emu.options()) do
    if not options.output_only(option) then lines[#lines + 1] = option.key .. "=" .. tostring(option.value) end
  end
  table.sort(lines)
  return table.concat(lines, "\n")
end

--- FNV-1a: a digest of an options text, to compare them without sending them all.
function options.digest(text)
  local hash = 2166136261
  for i = 1, #text do hash = ((hash ~ text:byte(i)) * 16777619) & 0xffffffff end
  return hash
end

--- An options text as a map (lines that are not "key=value" are skipped: a text cut short).
function options.parse(text)
  local map = {}
  for line in text:gmatch("[^\n]+") do
    local key, value = line:match("^([^=]+)=(.*)$")
    if key then map[key] = value end
  end
  return map
end

--- Differences between two options texts, named and sorted ("key (host: a, joiner: b)").
function options.differences(host_text, joiner_text)
  local host, joiner, out = options.parse(host_text), options.parse(joiner_text), {}
  for key, value in pairs(host) do
    if joiner[key] ~= value then
      out[#out + 1] = key .. " (host: " .. value .. ", joiner: " .. tostring(joiner[key] or "none") .. ")"
    end
  end
  for key, value in pairs(joiner) do
    if host[key] == nil then out[#out + 1] = key .. " (host: none, joiner: " .. value .. ")" end
  end
  table.sort(out)
  return out
end

--- Sets this side's options to the host's where they differ (for the running session: nothing is
--- saved). Returns the "key=value" settings made, or nil and why one could not be.
function options.adopt(host_text)
  local mine, made = options.parse(options.text()), {}
  local keys = {}
  for key in pairs(options.parse(host_text)) do keys[#keys + 1] = key end
  table.sort(keys)
  local host = options.parse(host_text)
  for _, key in ipairs(keys) do
    if mine[key] ~= nil and mine[key] ~= host[key] then
      local value, problem = emu.option(key, host[key])
      if not value then return nil, problem end
      made[#made + 1] = key .. "=" .. host[key]
    end
  end
  return made
end

return options
