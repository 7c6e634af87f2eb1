-- Settings files for Retrolua's Lua frontend (and any script): ~/.config/retrolua/NAME.lua returns a
-- table that is merged over the script's defaults; mistakes in it are reported, and the defaults apply.
--
--   local settings = require("retrolua.settings").load("osd", { fps = false, color = "white" })
--   local remaps = require("retrolua.settings").load_layers("input", defaults,
--                                                           { "input.lua", "input/" .. core .. ".lua" })
--
-- Merging, over a copy of the defaults, key by key, later files winning:
-- * a key the defaults do not have is reported and ignored (a typo would otherwise do nothing),
--   except inside the tables named in options.open: maps whose keys are free (input's keyboard map);
-- * a value must have its default's type, else it is reported and the default kept; with
--   options.allow_false, false may stand for a string (it unbinds a key);
-- * a table merges into a table default key by key, but a list default (turbo = { ... }) is replaced
--   whole by the file's list, whose items must have the type of the default's first item.
-- A missing file is normal: the defaults, no message. A file that cannot be read, does not compile,
-- raises an error or returns something other than a table is reported (path and line) and skipped.
-- Reports go to stderr through console.warn: `[osd.lua] warning: osd settings: …/osd.lua:3: …`.
-- A user script in the default profile may not read the config folder: no settings file is read then.
-- options.quiet: no reports and unknown keys ignored (for reading a part of another script's settings,
-- whose owner reports its mistakes).
--
-- What the frontend remembers by itself (a hint shown once) is kept apart from the person's files:
-- settings.remember(name, key, value) writes it durably to the data folder (remembered/NAME.lua) and
-- settings.load merges it under ~/.config/retrolua/NAME.lua (the person's file wins).

local settings = {}

local ENOENT = 2  -- io.open's error code for "no such file"
-- The chunk name while a file runs: Lua cuts long ones to 60 bytes, so messages get the full path back.
local CHUNK = "settings"

local quiet = false
local function report(label, text)
  if not quiet then console.warn(label .. " settings: " .. text) end
end

local function copy(value)
  if type(value) ~= "table" then return value end
  local result = {}
  for key, item in pairs(value) do result[key] = copy(item) end
  return result
end

local function is_list(value)
  return type(value) == "table" and value[1] ~= nil
end

local function known_keys(defaults)
  local names = {}
  for key in pairs(defaults) do names[#names + 1] = tostring(key) end
  table.sort(names)
  return table.concat(names, ", ")
end

-- `message` from the settings file at `path`, starting with the whole path.
local function located(message, path)
  message = tostring(message)
  if message:sub(1, #CHUNK + 1) == CHUNK .. ":" then return path .. message:sub(#CHUNK + 1) end
  return path .. ": " .. message
end

-- The table `path` returns; nil when it is missing (silently) or wrong (reported).
local function read(label, path)
  local handle, problem, code = io.open(path, "r")
  if not handle then
    -- No code: the sandbox refused (its folders exclude the config folder), as documented above.
    if code ~= ENOENT and code ~= nil then report(label, problem) end
    return nil
  end
  local text, failure = handle:read("a")
  handle:close()
  if not text then return report(label, path .. ": " .. tostring(failure)) end
  -- The script's own globals, as loadfile gave settings files before (they may call emu.info()).
  local chunk, syntax = load(text, "=" .. CHUNK, "t", _ENV)
  if not chunk then return report(label, located(syntax, path)) end
  local ok, result = pcall(chunk)
  if not ok then return report(label, located(result, path)) end
  if type(result) ~= "table" then
    local got = result == nil and "nothing" or ("a " .. type(result))
    return report(label, string.format("%s: returns %s; a settings file returns a table, e.g. `return { key = value }`",
                                       path, got))
  end
  return result
end

local merge

-- Puts the file's `value` for `name` into `into[key]` when it fits `default`.
local function take(into, key, value, default, context, name)
  if type(default) == "table" and type(value) == "table" and not is_list(default) then
    merge(into[key], value, default, context, name)
  elseif is_list(default) and type(value) == "table" then
    for index, item in ipairs(value) do
      if type(item) ~= type(default[1]) then
        return report(context.label, string.format("%s: '%s' item %d should be a %s, got a %s (the default is kept)",
                                                   context.path, name, index, type(default[1]), type(item)))
      end
    end
    into[key] = copy(value)
  elseif type(value) == type(default) or (value == false and type(default) == "string" and context.options.allow_false) then
    into[key] = copy(value)
  else
    local expected = type(default) .. ((type(default) == "string" and context.options.allow_false) and " or false" or "")
    report(context.label, string.format("%s: '%s' should be a %s, got a %s (the default is kept)", context.path, name,
                                        expected, type(value)))
  end
end

-- Merges `from` (a file's table, at `prefix`) into `into`, checking it against `defaults`.
function merge(into, from, defaults, context, prefix)
  local open = prefix and context.options.open and context.options.open[prefix]
  for key, value in pairs(from) do
    local name = prefix and (prefix .. "." .. tostring(key)) or tostring(key)
    local default = defaults[key]
    if default ~= nil then
      take(into, key, value, default, context, name)
    elseif context.options.quiet then  -- luacheck: ignore 542
      -- another script's setting: its owner reports it
    elseif open then
      into[key] = copy(value)
    else
      report(context.label, string.format("%s: unknown setting '%s' (ignored; known: %s)", context.path, name,
                                          known_keys(defaults)))
    end
  end
end

--- The defaults with each file of `files` (paths under emu.paths().config) merged over them in order.
--- `options.open`: names of tables ("keyboard", or "a.b" when nested) that take keys the defaults lack;
--- `options.allow_false`: false is accepted in place of a string.
function settings.load_layers(name, defaults, files, options)
  options = options or {}
  local result = copy(defaults)
  local config = emu.paths().config
  quiet = options.quiet == true
  for _, file in ipairs(files) do
    local path = config .. "/" .. file
    local from = read(name, path)
    if from then merge(result, from, defaults, { label = name, path = path, options = options }) end
  end
  quiet = false
  return result
end

local REMEMBERED = "remembered/%s.lua"

-- What the frontend remembered for `name` (see settings.remember): a table of plain values.
local function remembered(name)
  local text = emu.load_data(string.format(REMEMBERED, name))
  if not text then return {} end
  local chunk = load(text, "=remembered", "t", {})
  local ok, values = pcall(chunk or error)
  return ok and type(values) == "table" and values or {}
end

local function literal(value)
  if type(value) == "string" then return string.format("%q", value) end
  return tostring(value)
end

--- Remembers `key` = `value` (a string, number or boolean) for the settings named `name`, durably in the
--- data folder; returns true, or nil and why.
function settings.remember(name, key, value)
  local values = remembered(name)
  values[key] = value
  local keys = {}
  for known in pairs(values) do
    if type(known) == "string" and known:match("^[%a_][%w_]*$") then keys[#keys + 1] = known end
  end
  table.sort(keys)
  local lines = { "-- Remembered by Retrolua's frontend; ~/.config/retrolua/" .. name .. ".lua wins over it.", "return {" }
  for _, known in ipairs(keys) do lines[#lines + 1] = string.format("  %s = %s,", known, literal(values[known])) end
  lines[#lines + 1] = "}"
  return emu.save_data(string.format(REMEMBERED, name), table.concat(lines, "\n") .. "\n")
end

--- The defaults, what the frontend remembered (settings.remember), then ~/.config/retrolua/NAME.lua,
--- merged in that order (see load_layers for `options`).
function settings.load(name, defaults, options)
  local base = defaults
  local kept = remembered(name)
  if next(kept) then
    base = copy(defaults)
    for key, value in pairs(kept) do
      if base[key] ~= nil and type(base[key]) == type(value) then base[key] = value end
    end
  end
  return settings.load_layers(name, base, { name .. ".lua" }, options)
end

return settings
