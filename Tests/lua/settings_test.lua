-- Tests for lua/retrolua/settings.lua's merge rules (pure Lua, stock lua5.4, emu and console stubbed):
--   lua5.4 Tests/lua/settings_test.lua
-- Prints one line per failing case, exits 1 on failure, "ok N cases" otherwise.

local harness = dofile(((arg and arg[0] or ""):match("^(.*)[/\\]") or ".") .. "/harness.lua")

-- Settings files go beside os.tmpname()'s files, each under a name of its own.
local folder = os.tmpname()
os.remove(folder)
local prefix = folder:match("[^/]+$")
folder = folder:match("^(.*)/") or "."
local warnings = {}
-- The data folder (emu.save_data / emu.load_data) is a table here.
local data = {}
rawset(_G, "emu", { paths = function() return { config = folder } end,
                    load_data = function(name) return data[name] end,
                    save_data = function(name, text) data[name] = text; return true end })
rawset(_G, "console", { warn = function(text) warnings[#warnings + 1] = text end })

local settings = require("retrolua.settings")

local check = harness.check
local written = {}

-- Writes a settings file named prefix .. suffix .. ".lua"; returns the name load() takes.
local function file(suffix, source)
  local name = prefix .. suffix
  local handle = assert(io.open(folder .. "/" .. name .. ".lua", "w"))
  handle:write(source)
  handle:close()
  written[#written + 1] = folder .. "/" .. name .. ".lua"
  return name
end

-- Loads with warnings cleared; returns the result and every warning joined by newlines.
local function load(name, defaults, options)
  warnings = {}
  local result = settings.load(name, defaults, options)
  return result, table.concat(warnings, "\n")
end

local function has(text, part) return text:find(part, 1, true) ~= nil end

-- A missing file: the defaults (a copy), no message.
local defaults = { speed = 1, pad = { a = "x" } }
local result, said = load(prefix .. "-missing", defaults)
check("missing: defaults", result.speed, 1)
check("missing: silent", said, "")
check("missing: a copy", result.pad ~= defaults.pad, true)

-- Nested maps merge key by key; unknown keys are named with their path; only open tables take new keys.
result, said = load(file("-nested", "return { pad = { b = 'y', a = 'z' }, view = { extra = 1, zoom = 3 } }"),
                    { pad = { a = "x" }, view = { zoom = 2 } }, { open = { pad = true } })
check("open map: new key", result.pad.b, "y")
check("open map: known key", result.pad.a, "z")
check("closed map: known key", result.view.zoom, 3)
check("closed map: new key ignored", result.view.extra, nil)
check("closed map: reported", has(said, "unknown setting 'view.extra' (ignored; known: zoom)"), true)

-- "a.b" opens a nested table.
result = load(file("-deep", "return { outer = { inner = { new = true } } }"), { outer = { inner = {} } },
              { open = { ["outer.inner"] = true } })
check("nested open", result.outer.inner.new, true)

-- Wrong types keep the default; false stands for a string only with allow_false.
result, said = load(file("-types", "return { key = false, size = 'big' }"), { key = "k", size = 1 })
check("false without allow_false", result.key, "k")
check("wrong type kept", result.size, 1)
check("wrong type reported", has(said, "'size' should be a number, got a string (the default is kept)"), true)
result = load(file("-false", "return { key = false }"), { key = "k" }, { allow_false = true })
check("false with allow_false", result.key, false)

-- Lists are replaced whole (an empty list empties them); items must match the default's first item.
result = load(file("-list", "return { ports = { 3 }, turbo = {} }"), { ports = { 1, 2 }, turbo = { { key = "c" } } })
check("list replaced", #result.ports == 1 and result.ports[1] == 3, true)
check("empty list", #result.turbo, 0)
result, said = load(file("-items", "return { ports = { 1, 'two' } }"), { ports = { 1, 2 } })
check("bad item: default kept", result.ports[2], 2)
check("bad item: reported", has(said, "'ports' item 2 should be a number, got a string"), true)

-- Layers: later files win; a later layer may bind what an earlier one unbound.
warnings = {}
result = settings.load_layers("layers", { key = "k" }, { file("-one", "return { key = false }") .. ".lua",
                                                         file("-two", "return { key = 'j' }") .. ".lua",
                                                         prefix .. "-absent.lua" }, { allow_false = true })
check("layers: last wins", result.key, "j")
check("layers: silent", #warnings, 0)

-- Errors carry the whole path, however long, and the line when there is one.
local long = string.rep("x", 80)
local _, syntax = load(file(long, "return {\n  a = = 1 }"), { a = 1 })
check("syntax: whole path and line", has(syntax, folder .. "/" .. prefix .. long .. ".lua:2: unexpected symbol near '='"), true)
local _, raised = load(file("-raise", "error('no line', 0)"), {})
check("error without a position", has(raised, prefix .. "-raise.lua: no line"), true)
local _, none = load(file("-none", "local x = 1"), {})
check("nothing returned", has(none, "returns nothing; a settings file returns a table"), true)

-- What the frontend remembers (settings.remember) is merged under the person's file.
local hint_defaults = { first_run_hint = true, key = "f1", scale = 0 }
check("nothing remembered", load(file("-remember", "return {}"), hint_defaults).first_run_hint, true)
check("remember", settings.remember(prefix .. "-remember", "first_run_hint", false), true)
check("remembered file", data["remembered/" .. prefix .. "-remember.lua"] ~= nil, true)
check("remembered applies", load(file("-remember", "return {}"), hint_defaults).first_run_hint, false)
check("remembered keeps the others", load(file("-remember", "return {}"), hint_defaults).key, "f1")
settings.remember(prefix .. "-remember", "key", "f2")
check("a second value kept with the first", load(file("-remember", "return {}"), hint_defaults).first_run_hint, false)
check("the person's file wins", load(file("-remember", "return { key = 'f5' }"), hint_defaults).key, "f5")
check("the defaults are not changed", hint_defaults.first_run_hint, true)
-- A damaged or hostile remembered file is ignored: no globals, no error.
data["remembered/" .. prefix .. "-remember.lua"] = "os.exit(3)"
check("hostile remembered file ignored", load(file("-remember", "return {}"), hint_defaults).first_run_hint, true)
data["remembered/" .. prefix .. "-remember.lua"] = "return {"
check("broken remembered file ignored", load(file("-remember", "return {}"), hint_defaults).key, "f1")
-- A quiet load reports nothing and ignores keys it was not asked for (another script's settings).
local before = #warnings
local picked = settings.load_layers("quiet", { turbo = { 1 } }, { prefix .. "-quiet.lua" }, { quiet = true })
check("quiet load takes its key", picked.turbo[1], 1)
file("-quiet", "return { turbo = { 2 }, keyboard = { a = 'x' }, bogus = true }")
picked = settings.load_layers("quiet", { turbo = { 1 } }, { prefix .. "-quiet.lua" }, { quiet = true })
check("quiet load reads the file", picked.turbo[1], 2)
check("quiet load says nothing", #warnings, before)

for _, path in ipairs(written) do os.remove(path) end
harness.finish()
