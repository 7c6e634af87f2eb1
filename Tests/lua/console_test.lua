-- Tests for the in-window Lua console without a host (stock lua5.4): lua/retrolua/console_model.lua's line
-- editing, history, scrollback and completion splice, then lua/defaults/console.lua driven by key events
-- against stubbed emu, event, input, gui and console modules (a small evaluator stands in for the host's).
--   lua5.4 Tests/lua/console_test.lua
-- Prints one line per failing case, exits 1 on failure, "ok N cases" otherwise.

local harness = dofile(((arg and arg[0] or ""):match("^(.*)[/\\]") or ".") .. "/harness.lua")
local root, check = harness.root, harness.check

local console_model = require("retrolua.console_model")

-- Line editing: insert at the cursor, move, erase on either side.
do
  local m = console_model.new()
  m:insert("pint(1)")
  m:home(); m:right(); m:insert("r")
  check("insert in the middle", m.line, "print(1)")
  check("cursor after it", m.cursor, 2)
  m:finish(); m:left(); m:backspace()
  check("backspace before the cursor", m.line, "print()")
  m:insert("42"); m:home(); m:delete()
  check("delete under the cursor", m.line, "rint(42)")
  m:left(); m:backspace(); m:delete()
  check("erasing at the start", m.line, "int(42)")
  m:right(); m:right(); m:kill_to_end()
  check("ctrl+k", m.line, "in")
  m:finish(); m:right(); m:right()
  check("right stops at the end", m.cursor, 2)
end

-- History: up walks back, down forward and back to the line being typed; blanks and repeats are not kept.
do
  local m = console_model.new({ history_size = 3 })
  for _, line in ipairs({ "a = 1", "   ", "b = 2", "b = 2", "c = 3", "d = 4" }) do m:remember(line) end
  check("history keeps the last 3", table.concat(m.history, "|"), "b = 2|c = 3|d = 4")
  m:insert("dra")
  m:history_up()
  check("up: the newest", m.line, "d = 4")
  check("cursor at its end", m.cursor, 5)
  m:history_up(); m:history_up(); m:history_up()
  check("up stops at the oldest", m.line, "b = 2")
  m:history_down()
  check("down: newer", m.line, "c = 3")
  m:history_down(); m:history_down()
  check("down past the newest: the draft", m.line, "dra")
  m:history_down()
  check("down again: still the draft", m.line, "dra")
  local text = console_model.history_text(m.history)
  check("history file text", text, "b = 2\nc = 3\nd = 4\n")
  check("history file read back", table.concat(console_model.parse_history(text, 2), "|"), "c = 3|d = 4")
  check("no history file", #console_model.parse_history(nil, 5), 0)
end

-- Evaluation: the chunk gathers lines while the evaluator says incomplete; lines typed meanwhile wait.
do
  local m = console_model.new()
  m:insert("1+1")
  check("enter sends the line", m:enter(), "1+1")
  check("busy until the reply", m.busy, true)
  m:insert("x = 5")
  check("a line entered while busy waits", m:enter(), nil)
  local said = m:reply({ status = "done", values = { "2" }, output = {} })
  check("the value is said", said[1], "2")
  check("the echo then the value", m.lines[1].text .. "|" .. m.lines[2].text, "> 1+1|2")
  check("the waiting line goes next", m:next_chunk(), "x = 5")
  said = m:reply({ status = "done", values = {}, output = {} })
  check("a statement says nothing", #said, 0)
  m:insert("for i = 1, 2 do")
  check("first line", m:enter(), "for i = 1, 2 do")
  m:reply({ status = "incomplete" })
  check("continuation prompt", m:prompt(), ">> ")
  m:insert("print(i)")
  check("the whole chunk so far", m:enter(), "for i = 1, 2 do\nprint(i)")
  m:reply({ status = "incomplete" })
  m:insert("end")
  check("the whole chunk", m:enter(), "for i = 1, 2 do\nprint(i)\nend")
  said = m:reply({ status = "done", values = {}, output = { { text = "1", stream = "out" }, { text = "2\n", stream = "out" } } })
  check("output said", table.concat(said, ","), "1,2")
  check("prompt back", m:prompt(), "> ")
  m:insert("nil + 1")
  m:enter()
  said = m:reply({ status = "error", error = "console:1: attempt to perform arithmetic on a nil value",
                   output = { { text = "warned", stream = "err" } } })
  check("error after output", table.concat(said, "|"), "warned|console:1: attempt to perform arithmetic on a nil value")
  check("error line kind", m.lines[#m.lines].kind, "error")
  check("stderr line kind", m.lines[#m.lines - 1].kind, "err")
  m:insert("1, 'a'")
  m:enter()
  m:reply({ status = "done", values = { "1", "a" } })
  check("several values, tab-separated and expanded", m.lines[#m.lines].text, "1       a")
  check("an empty line is only echoed", m:enter(), nil)
  check("echoed", m.lines[#m.lines].text, "> ")
  m:insert("if x then"); m:enter(); m:reply({ status = "incomplete" })
  m:insert("y")
  check("ctrl+c drops", m:cancel(), true)
  check("chunk dropped", m:prompt(), "> ")
  check("line dropped", m.line, "")
  m:reply("nonsense")
  check("a bad reply is an error line", m.lines[#m.lines].kind, "error")
end

-- Scrollback: wrapping, paging, a cut for huge lines, a bounded length.
do
  local m = console_model.new({ scrollback = 5 })
  for index = 1, 8 do m:print("line " .. index) end
  check("bounded scrollback", #m.lines, 5)
  check("oldest kept", m.lines[1].text, "line 4")
  m:print("abcdefghijkl")
  local rows = m:rows(6)
  check("wrapped rows", #rows, 4 + 2)
  check("wrap cut", rows[#rows].text, "ghijkl")
  check("wrapped narrower", #m:rows(5), 4 * 2 + 3)
  local first, last = m:view(6, 3)
  check("view at the bottom", first .. "-" .. last, "4-6")
  m:page(1, 6, 3)
  first, last = m:view(6, 3)
  check("page up by a page less one", first .. "-" .. last, "2-4")
  local shown = m:rows(6)[2].text
  m:print("new")  -- also drops the oldest line: the same rows, an index less
  first, last = m:view(6, 3)
  check("scrolled back, new output keeps the view", m:rows(6)[first].text .. "|" .. last - first, shown .. "|2")
  m:page(10, 6, 3)
  first = m:view(6, 3)
  check("page up stops at the top", first, 1)
  m:page(-10, 6, 3)
  check("page down stops at the bottom", m.scroll, 0)
  m:print(string.rep("x", 10000))
  check("a huge line is cut", #m.lines[#m.lines].text < 4100, true)
  check("and says so", m.lines[#m.lines].text:find("more characters", 1, true) ~= nil, true)
  m:print("a\tbc\td\u{2026}")
  check("tabs and ellipsis", m.lines[#m.lines].text, "a       bc      d...")
  check("wide characters count as one", #console_model.wrap("\u{25CF}\u{25CF}\u{25CF}", 2), 2)
  check("bad UTF-8 wraps by bytes", #console_model.wrap("\xff\xfe\xfd", 2), 2)
  check("an empty line is a row", #console_model.wrap("", 4), 1)
  m:clear()
  check("clear", #m:rows(5), 0)
end

-- A runaway answer: a million lines of output keep the scrollback bounded, quickly (one trim per many lines).
do
  local m = console_model.new({ scrollback = 100 })
  m:rows(40)  -- a cache to keep up to date, as while shown
  local output = {}
  for index = 1, 200000 do output[index] = { text = tostring(index), stream = "out" } end
  m:insert("loop"); m:enter()
  local said = m:reply({ status = "error", error = "stopped", output = output })
  check("bounded after a flood", #m.lines, 100)
  check("the last line is the error", m.lines[#m.lines].text, "stopped")
  check("the line before it the last output", m.lines[#m.lines - 1].text, "200000")
  check("speech is bounded, the error said", #said <= 9 and said[#said] == "stopped", true)
  local flood = m:print(string.rep("x\n", 100000))
  check("one print of many lines", flood, 100001)
  check("bounded after it", #m.lines, 100)
end

-- Completion: one match replaces the name before the cursor, several their common start, and are listed.
do
  local m = console_model.new()
  m:insert("x = emu.fr + 1")
  for _ = 1, 4 do m:left() end
  local text, ticket = m:completion()
  check("completion text ends at the cursor", text, "x = emu.fr")
  check("several", m:complete({ "emu.frameadvance", "emu.framecount" }, ticket), "several")
  check("common start", m.line, "x = emu.frame + 1")
  check("cursor after it", m.cursor, #"x = emu.frame")
  check("candidates listed", m.lines[#m.lines].text, "emu.frameadvance  emu.framecount")
  text, ticket = m:completion()
  check("completion text after the first", text, "x = emu.frame")
  check("one", m:complete({ "emu.framecount" }, ticket), "one")
  check("spliced", m.line, "x = emu.framecount + 1")
  m:insert("(")
  check("a stale answer is dropped", m:complete({ "emu.frameadvance" }, ticket), "stale")
  check("line untouched", m.line, "x = emu.framecount( + 1")
  ticket = select(2, m:completion())
  check("nothing found", m:complete({}, ticket), "none")
  check("not a list", m:complete("junk", nil), "none")
  local big = {}
  for index = 1, 100 do big[index] = string.format("zz%03d", index) end
  m:clear_line(); m:insert("zz")
  m:complete(big, nil)
  check("many candidates are cut", m.lines[#m.lines].text:find("(40 more)", 1, true) ~= nil, true)
  check("common start of many", m.line, "zz")
end

-- The default script, driven by key events as the host sends them.
local handlers, next_id = {}, 0
local data, spoken, warnings, captured, paused = {}, {}, {}, false, false
local queued = {}
local drawn = {}
rawset(_G, "event", {
  on = function(name, fn)
    next_id = next_id + 1
    handlers[next_id] = { name = name, fn = fn }
    return next_id
  end,
  off = function(id) local had = handlers[id] ~= nil; handlers[id] = nil; return had end,
})
-- Key events carry the modifiers held as each key went down or up, as the host's do (SDL counts a
-- modifier's own press, not its release).
local modifiers = {}
local function mods_after(name, key)
  local modifier = key and key:match("^left (%a+)$") or key and key:match("^right (%a+)$")
  if modifier then modifiers[key] = name == "key_down" or nil end
  local mods = {}
  for _, each in ipairs({ "ctrl", "shift", "alt", "gui" }) do
    mods[each] = modifiers["left " .. each] or modifiers["right " .. each] or false
  end
  return mods
end
local function dispatch(name, ...)
  local ids = {}
  for id, handler in pairs(handlers) do if handler.name == name then ids[#ids + 1] = id end end
  table.sort(ids)
  for _, id in ipairs(ids) do if handlers[id] then handlers[id].fn(...) end end
end
local function fire(name, ...)
  if name == "key_down" then
    local key, is_repeat = ...
    return dispatch(name, key, is_repeat, mods_after(name, key))
  elseif name == "key_up" then
    local key = ...
    return dispatch(name, key, mods_after(name, key))
  end
  return dispatch(name, ...)
end
rawset(_G, "emu", {
  paths = function() return { config = "/nonexistent/retrolua-console-test" } end,
  load_data = function(name) return data[name] end,
  save_data = function(name, text) data[name] = text; return true end,
  speak = function(text) spoken[#spoken + 1] = text; return true end,
  message = function(text) warnings[#warnings + 1] = "message: " .. text end,
  paused = function() return paused end,
  pause = function() paused = true end,
  unpause = function() paused = false end,
})
rawset(_G, "input", { capture = function(on) captured = on; return true end })
rawset(_G, "gui", {
  surface_size = function() return 640, 480 end,
  text_scale = function() return 2 end,
  text = function(_, _, text) drawn[#drawn + 1] = text; return #text * 12, 16 end,
  text_size = function(text, scale) return #text * 6 * (scale or 1), 8 * (scale or 1) end,
  rect = function() end,
})
-- The stand-in evaluator: one environment kept between chunks, an expression's values shown with tostring.
local env = setmetatable({}, { __index = _G })
local function evaluate(chunk)
  local fn = load("return " .. chunk, "=console", "t", env)
  local problem
  if not fn then fn, problem = load(chunk, "=console", "t", env) end
  if not fn then
    if problem:find("<eof>$") then return { status = "incomplete" } end
    return { status = "error", error = problem }
  end
  local results = table.pack(pcall(fn))
  if not results[1] then return { status = "error", error = tostring(results[2]) } end
  local values = {}
  for index = 2, results.n do values[#values + 1] = tostring(results[index]) end
  return { status = "done", values = values, output = {} }
end
rawset(_G, "console", {
  warn = function(text) warnings[#warnings + 1] = text end,
  evaluate = function(chunk, reply) queued[#queued + 1] = function() reply(evaluate(chunk)) end; return true end,
  complete = function(text, reply)
    local word = text:match("[%w_%.:]*$")
    local names = {}
    for _, name in ipairs({ "emu.frameadvance", "emu.framecount", "emu.pause" }) do
      if name:sub(1, #word) == word then names[#names + 1] = name end
    end
    queued[#queued + 1] = function() reply(names) end
    return true
  end,
})
-- Between frames the host answers what was queued.
local function between_frames()
  while #queued > 0 do table.remove(queued, 1)() end
end

local UNSHIFTED = { ["+"] = "=", ["*"] = "8", ["("] = "9", [")"] = "0", ["\""] = "'", [":"] = ";", ["_"] = "-",
                    ["<"] = ",", [">"] = ".", ["!"] = "1", ["{"] = "[", ["}"] = "]", ["~"] = "`" }
local function key(name, is_repeat)
  fire("key_down", name, is_repeat or false)
  fire("key_up", name)
end
local function type_text(text)
  for char in text:gmatch(".") do
    local plain = UNSHIFTED[char] or (char:match("%u") and char:lower())
    if char == " " then
      key("space")
    elseif plain then
      fire("key_down", "left shift", false)
      key(plain)
      fire("key_up", "left shift")
    else
      key(char)
    end
  end
end
local function line(text)
  type_text(text)
  key("return")
  between_frames()
end
local function screen()
  drawn = {}
  fire("draw")
  return table.concat(drawn, "\n")
end

data["console/history.txt"] = "old = 1\n"
assert(loadfile(root .. "/lua/defaults/console.lua"))()
check("loads quietly", #warnings, 0)
type_text("a")
check("closed: typing is not the console's", screen(), "")
key("f5")
check("f5 takes the keyboard", captured, true)
check("not paused by default", paused, false)
check("spoken on opening", spoken[#spoken], "Lua console")
line("1+1")
check("the value shows", screen():find("> 1+1\n2\n", 1, true) ~= nil, true)
check("and is said", spoken[#spoken], "2")
line("x = 5")
line("x*2")
check("state kept between lines", spoken[#spoken], "10")
line("for i = 1, 3 do")
check("continuation prompt shown", screen():find(">> $") ~= nil, true)
line("x = x + i")
line("end")
line("x")
check("a chunk over three lines", spoken[#spoken], "11")
line("nil + 1")
check("the error shows", screen():find("attempt to perform arithmetic", 1, true) ~= nil, true)
check("history saved", data["console/history.txt"], "old = 1\n1+1\nx = 5\nx*2\nfor i = 1, 3 do\nx = x + i\nend\nx\nnil + 1\n")
key("up"); key("up")
check("up recalls", screen():match("[^\n]*$"), "> x")
key("down"); key("down")
check("down returns to the empty line", screen():match("[^\n]*$"), "> ")
type_text("y = emu.fr")
key("tab")
between_frames()
check("tab: the common start", screen():match("[^\n]*$"), "> y = emu.frame")
check("tab: the candidates", screen():find("emu.frameadvance  emu.framecount", 1, true) ~= nil, true)
type_text("c")
key("tab")
between_frames()
check("tab: the one match", screen():match("[^\n]*$"), "> y = emu.framecount")
key("home"); key("delete"); key("end"); key("backspace")
check("home, delete, end, backspace", screen():match("[^\n]*$"), ">  = emu.framecoun")
fire("key_down", "left ctrl", false); key("u"); fire("key_up", "left ctrl")
check("ctrl+u clears the line", screen():match("[^\n]*$"), "> ")
key("f5", true)
check("a repeated f5 does not close", captured, true)
key("escape")
check("escape closes", captured, false)
check("closed: nothing drawn", screen(), "")
key("f5")
check("open again: the scrollback kept", screen():find("> nil + 1", 1, true) ~= nil, true)
fire("key_down", "left ctrl", false); key("l"); fire("key_up", "left ctrl")
check("ctrl+l clears the scrollback", screen(), "> ")
key("f5")
check("f5 closes", captured, false)

-- Unloaded while shown: the keyboard is given back.
key("f5")
check("shown before the unload", captured, true)
fire("exit")
check("unloading releases the keyboard", captured, false)

-- A build without the evaluator: the line says so instead of failing.
rawset(console, "evaluate", nil)
key("f5")
line("1")
check("no evaluator: said", screen():find("no console evaluator", 1, true) ~= nil, true)
key("escape")

-- Settings: pause while shown (resumed on closing), a fixed scale; a bad height is reported.
do
  local folder = os.tmpname()
  os.remove(folder)
  assert(os.execute("mkdir -p '" .. folder .. "'"))
  local handle = assert(io.open(folder .. "/console.lua", "w"))
  handle:write("return { pause = true, scale = 3, height = 5 }")
  handle:close()
  for id in pairs(handlers) do handlers[id] = nil end
  rawset(emu, "paths", function() return { config = folder } end)
  warnings = {}
  assert(loadfile(root .. "/lua/defaults/console.lua"))()
  check("a bad height is reported", #warnings == 1 and warnings[1]:find("height must be", 1, true) ~= nil, true)
  paused = false
  key("f5")
  check("pause = true pauses", paused, true)
  local sizes = {}
  rawset(gui, "text", function(_, _, _, style) sizes[#sizes + 1] = style.scale; return 0, 0 end)
  fire("draw")
  check("scale = 3", sizes[1], 3)
  key("escape")
  check("closing resumes", paused, false)
  os.remove(folder .. "/console.lua")
  os.remove(folder)
end

-- History from an earlier run is there on the first up.
check("the earlier run's history", data["console/history.txt"]:sub(1, 8), "old = 1\n")

harness.finish()
