-- Default on-screen display, part of Retrolua's replaceable Lua frontend: messages from
-- emu.message() (and so from the hotkeys) for a few seconds, a PAUSED sign while paused, and optionally
-- the speed in frames per second, the frame and lag counters and player 1's input. While a movie
-- records or plays it shows the movie's mode ("● REC", "▶ PLAY": a symbol as well as a colour), frame,
-- length and rerecords, and the input display. Text grows with the window (gui.text_scale()); long
-- messages wrap at the window's width. While the game runs faster or slower than normal (fast-forward,
-- slow motion) a ">> FAST" / "> SLOW" sign shows at the top (`speed = false` hides it). A script that fails
-- is said in red (its file:line and message, wrapped at the window's width); one that --watch loads again once
-- its file is saved keeps its note until it loads. While a control client (an attached agent) says what it is
-- doing (a request's "activity"), "agent: <text>" stays top right until it says something else or leaves
-- (`agent = false` hides it).
-- Settings in ~/.config/retrolua/osd.lua, e.g.
--   return { fps = true, counters = true, input = true, movie = false, scale = 3, position = "top-left" }
-- scale: 0 = from the window size, else 1–16; position: where messages go ("bottom-left", "bottom-right",
-- "top-left", "top-right"; the counters take the other side's top corner). --stats has the bottom-right
-- corner to itself. Replace it with ~/.config/retrolua/scripts/osd.lua or turn it off with
-- `--no-default osd`.

local ui = require("retrolua.ui")
local settings = require("retrolua.settings").load("osd", {
  fps = false, counters = false, input = false, movie = true, paused = true, speed = true, agent = true,
  message_frames = 180, color = "white", background = "#000000a0", scale = 0, position = "bottom-left",
})

local POSITIONS = { ["bottom-left"] = true, ["bottom-right"] = true, ["top-left"] = true, ["top-right"] = true }
if not POSITIONS[settings.position] then
  emu.message("osd: position must be bottom-left, bottom-right, top-left or top-right, not " .. settings.position)
  settings.position = "bottom-left"
end
if settings.scale ~= 0 and not (math.type(settings.scale) == "integer" and settings.scale >= 1 and settings.scale <= 16) then
  emu.message("osd: scale must be 0 (from the window) or a whole number 1–16, not " .. tostring(settings.scale))
  settings.scale = 0
end

local messages = {}
local fps, last_frames, last_seconds = 0, 0, 0
local BUTTONS = { "up", "down", "left", "right", "b", "a", "y", "x", "l", "r", "select", "start" }
local LABELS = { up = "^", down = "v", left = "<", right = ">", select = "s", start = "S" }

local function show(text, color)
  messages[#messages + 1] = { text = text, left = settings.message_frames, color = color }
  if #messages > 4 then table.remove(messages, 1) end
end
event.on("message", function(text) show(text) end)

-- Failed scripts: file:line and the message (its first line, not the traceback). One that --watch reloads on its
-- next save keeps its note until it loads again; another is a message like the others.
local FAILURE_COLOR = "#ff6060"
local notes = {}
local function drop_note(name)
  for i = #notes, 1, -1 do
    if notes[i].name == name then table.remove(notes, i) end
  end
end
event.on("script_failed", function(name, message, watched)
  local text = name .. " failed: " .. (message:match("[^\n]*") or message)
  if not watched then return show(text, FAILURE_COLOR) end
  drop_note(name)
  notes[#notes + 1] = { name = name, text = text .. " (save the file to reload it)", color = FAILURE_COLOR }
  if #notes > 4 then table.remove(notes, 1) end
end)
event.on("script_loaded", drop_note)

-- What an attached agent is doing: one line, kept until it changes or the agent leaves (not a message).
local AGENT_COLOR = "#ffd080"
local agent_text = nil
event.on("agent", function(text) agent_text = text and ("agent: " .. text) or nil end)

local MOVIE_COLORS = { record = "red", play = "#40ff40", finished = "white" }

event.on("movie_start", function(mode) show(mode == "record" and "movie: recording" or "movie: playing") end)
event.on("movie_end", function()
  if movie.mode() ~= "idle" then show(movie.mode() == "record" and "movie: end reached, recording" or "movie finished") end
end)

-- One layout per draw: the scale, the margin and line height that go with it.
local function layout()
  local width, height = gui.surface_size("hud")
  local scale = ui.osd_scale()
  local style = { surface = "hud", color = settings.color, bg = settings.background, scale = scale }
  return { width = width, height = height, scale = scale, margin = 4 * scale, line = 10 * scale, style = style }
end

local function right_aligned(l, y, text, style)
  gui.text(l.width - gui.text_size(text, l.scale) - l.margin, y, text, style)
end

-- "● REC 1234 (56 rerecords)" / "▶ PLAY 120/300 RO": the movie's state, top right.
local function movie_text()
  local mode = movie.mode()
  if mode == "record" then
    return string.format("\u{25CF} REC %d (%d rerecords)", movie.frame(), movie.rerecords())
  end
  return string.format("%s %d/%d %s", mode == "play" and "\u{25B6} PLAY" or "\u{25A0} END", movie.frame(),
                       movie.length(), movie.readonly() and "RO" or "RW")
end

-- Drawn as soon as the pause starts (the host redraws the hud while paused) and for as long as it lasts, top
-- middle (ui.paused_sign: the menu keeps below it too).
local function draw_paused(sign)
  gui.text(sign.x, sign.y, sign.text, { surface = "hud", color = "yellow", bg = settings.background,
                                        scale = sign.scale })
end

-- ">> FAST" (fast-forward, emu.speed() 0 or above 1) or "> SLOW", top middle below any PAUSED sign.
local function draw_speed(l, sign)
  local speed = emu.speed()
  if speed == 1 then return end
  local text = (speed == 0 or speed > 1) and (speed == 0 and ">> FAST" or string.format(">> FAST x%g", speed))
    or string.format("> SLOW x%g", speed)
  local w = gui.text_size(text, l.scale)
  local y = sign and (sign.y + sign.height + 2 * l.scale) or l.margin
  gui.text((l.width - w) // 2, y, text, { surface = "hud", color = "#80c0ff", bg = settings.background, scale = l.scale })
end

-- Where a corner's top lines begin: below the PAUSED sign when they would reach under it.
local function corner_top(l, sign, left, texts)
  if not sign then return l.margin end
  for _, text in ipairs(texts) do
    local w = gui.text_size(text, l.scale)
    local x0, x1 = left and l.margin or l.width - w - l.margin, left and l.margin + w or l.width - l.margin
    if x0 < sign.x + sign.width and x1 > sign.x then return sign.y + sign.height + 2 * l.scale end
  end
  return l.margin
end

local function status_lines(in_movie)
  local lines = {}
  if settings.fps then
    local stats = emu.stats()
    if stats.seconds - last_seconds >= 0.5 then
      fps = (stats.frames - last_frames) / (stats.seconds - last_seconds)
      last_frames, last_seconds = stats.frames, stats.seconds
    end
    lines[#lines + 1] = string.format("%.1f fps", fps)
  end
  if settings.counters then lines[#lines + 1] = string.format("frame %d  lag %d", emu.framecount(), emu.lagcount()) end
  if settings.input or in_movie then
    local pad, text = joypad.get(1), {}
    for _, button in ipairs(BUTTONS) do text[#text + 1] = pad[button] and (LABELS[button] or button) or "." end
    lines[#lines + 1] = table.concat(text, " ")
  end
  return lines
end

-- Each text wrapped at the window's width (at this scale), kept until the width changes.
local function wrapped(entry, columns)
  if entry.columns ~= columns then entry.lines, entry.columns = ui.wrap(entry.text, columns), columns end
  return entry.lines
end

event.on("draw", function()
  local in_movie = settings.movie and movie.mode() ~= "idle"
  local sign = settings.paused and ui.paused_sign() or nil
  -- Netplay's balancing (2 % slower for a moment) is its own note, not a speed sign.
  local balancing = package.loaded["retrolua.netplay"] and package.loaded["retrolua.netplay"].balancing
  local fast = settings.speed and emu.speed() ~= 1 and not balancing
  local agent_line = settings.agent and agent_text or nil
  if #messages == 0 and #notes == 0
    and not (settings.fps or settings.counters or settings.input or in_movie or sign or fast or agent_line) then
    return
  end
  local l = layout()
  if sign then draw_paused(sign) end
  if fast then draw_speed(l, sign) end
  local position = settings.position
  -- Counters top left (top right when the messages are there); the movie's state top right, below
  -- the counters when they share that corner; messages in their own corner. Each corner's lines begin below
  -- the PAUSED sign when they would reach under it.
  local counters_right = position == "top-left"
  local status = status_lines(in_movie)
  local movie_line = in_movie and movie_text() or nil
  local right_texts = {}
  if counters_right then for _, text in ipairs(status) do right_texts[#right_texts + 1] = text end end
  right_texts[#right_texts + 1] = movie_line
  right_texts[#right_texts + 1] = agent_line
  local y = corner_top(l, sign, not counters_right, status)
  local top_right = corner_top(l, sign, false, right_texts)
  if counters_right then y = top_right end
  for _, text in ipairs(status) do
    if counters_right then right_aligned(l, y, text, l.style) else gui.text(l.margin, y, text, l.style) end
    y = y + l.line
  end
  if counters_right then top_right = y end
  if movie_line then
    right_aligned(l, top_right, movie_line, { surface = "hud", color = MOVIE_COLORS[movie.mode()],
                                               bg = settings.background, scale = l.scale })
    top_right = top_right + l.line
  end
  if agent_line then
    -- Cut to the window's width (at most 200 characters come): one line, whatever the agent says.
    local columns = math.max(1, (l.width - 2 * l.margin) // ui.char_width(l.scale))
    local text = utf8.len(agent_line) and utf8.len(agent_line) > columns
      and agent_line:sub(1, utf8.offset(agent_line, columns + 1) - 1) or agent_line
    right_aligned(l, top_right, text, { surface = "hud", color = AGENT_COLOR, bg = settings.background, scale = l.scale })
    top_right = top_right + l.line
  end
  local right = position:find("right") ~= nil
  -- Failure notes, then messages, each wrapped at the window's width; the lines of all of them stack.
  local columns = (l.width - 2 * l.margin) // ui.char_width(l.scale)
  local count = 0
  for _, list in ipairs({ notes, messages }) do
    for _, entry in ipairs(list) do count = count + #wrapped(entry, columns) end
  end
  local top_left = sign and (sign.y + sign.height + 2 * l.scale) or l.margin
  local top = position == "top-right" and math.max(top_right, top_left) or position == "top-left" and top_left
    or l.height - l.line * count - l.margin
  local my = top
  for _, list in ipairs({ notes, messages }) do
    for _, entry in ipairs(list) do
      local style = entry.color and { surface = "hud", color = entry.color, bg = settings.background, scale = l.scale }
        or l.style
      for _, text in ipairs(entry.lines) do
        if right then right_aligned(l, my, text, style) else gui.text(l.margin, my, text, style) end
        my = my + l.line
      end
    end
  end
  for i = #messages, 1, -1 do
    local message = messages[i]
    message.left = message.left - 1
    if message.left <= 0 then table.remove(messages, i) end
  end
end)
