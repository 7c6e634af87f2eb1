-- luacheck configuration: Lua 5.4 plus the globals Retrolua gives scripts (see lua/API.md).
std = "lua54"
read_globals = { "emu", "memory", "joypad", "input", "savestate", "rewind", "movie", "tastudio", "cheats", "gui", "event", "console", "disc", "scripts" }
exclude_files = { "lua/types/*.lua", ".build/**" }
max_line_length = 140
-- The host's preludes (lua/host/) set up the globals every script then sees.
files["lua/host/prelude.lua"] = { globals = { "load", "loadfile", "dofile", "debug", "os", "io", "package" } }
files["lua/host/console.lua"] = { globals = { "print", "console" } }
files["lua/host/script_folder.lua"] = { globals = { "loadfile", "dofile", "io", "os" } }
