-- Default on-screen display, part of Retrolua's replaceable Lua frontend: messages from
-- emu.message() (and so from the hotkeys) for a few seconds, a PAUSED sign while paused, and optionally
-- the speed in frames per second, the frame and lag counters and player 1's input. While a movie
-- records or plays it shows the movie's mode ("● REC", "▶ PLAY": a symbol as well as a colour), frame,
-- length and rerecords, and the input display. Text grows with the window (gui.text_scale()); long
-- messages wrap at the window's width. While the game runs faster or slower than normal (fast-forward,
-- slow motion) a ">> FAST" / "> SLOW" sign shows at the top (`speed = false` hides it).
-- Settings in ~/.config/retrolua/osd.lua, e.g.
--   return { fps = true, counters = true, input = true, movie = false, scale = 3, position = "top-left" }
-- scale: 0 = from the window size, else 1–16; position: where messages go ("bottom-left", "bottom-right",
-- "top-left", "top-right"; the counters take the other side's top corner). --stats has the bottom-right
-- corner to itself. Replace it with ~/.config/retrolua/scripts/osd.lua or turn it off with
-- `--no-default osd`.

local ui = require("retrolua.ui")
local settings = require("retrolua.settings").load("osd", {
  fps = false, counters = false, input = false, movie = true, paused = true, speed = true,
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

local function show(text)
  messages[#messages + 1] = { text = text, left = settings.message_frames }
  if #messages > 4 then table.remove(messages, 1) end
end
event.on("message", show)

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
local function draw_movie(l, y)
  local mode = movie.mode()
  local text
  if mode == "record" then
    text = string.format("\u{25CF} REC %d (%d rerecords)", movie.frame(), movie.rerecords())
  else
    text = string.format("%s %d/%d %s", mode == "play" and "\u{25B6} PLAY" or "\u{25A0} END", movie.frame(),
                         movie.length(), movie.readonly() and "RO" or "RW")
  end
  right_aligned(l, y, text, { surface = "hud", color = MOVIE_COLORS[mode], bg = settings.background, scale = l.scale })
end

-- Drawn as soon as the pause starts (the host redraws the hud while paused) and for as long as it lasts.
local function draw_paused(l)
  local scale = l.scale + 1
  local text = "|| PAUSED"
  local w = gui.text_size(text, scale)
  gui.text((l.width - w) // 2, l.margin, text, { surface = "hud", color = "yellow", bg = settings.background,
                                                    scale = scale })
end

-- ">> FAST" (fast-forward, emu.speed() 0 or above 1) or "> SLOW", top middle below any PAUSED sign.
local function draw_speed(l, paused)
  local speed = emu.speed()
  if speed == 1 then return end
  local text = (speed == 0 or speed > 1) and (speed == 0 and ">> FAST" or string.format(">> FAST x%g", speed))
    or string.format("> SLOW x%g", speed)
  local w = gui.text_size(text, l.scale)
  local y = l.margin + (paused and 10 * (l.scale + 1) + l.scale or 0)  -- PAUSED is drawn one size up
  gui.text((l.width - w) // 2, y, text, { surface = "hud", color = "#80c0ff", bg = settings.background, scale = l.scale })
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

event.on("draw", function()
  local in_movie = settings.movie and movie.mode() ~= "idle"
  local paused = settings.paused and emu.paused()
  local fast = settings.speed and emu.speed() ~= 1
  if #messages == 0 and not (settings.fps or settings.counters or settings.input or in_movie or paused or fast) then
    return
  end
  local l = layout()
  if paused then draw_paused(l) end
  if fast then draw_speed(l, paused) end
  local position = settings.position
  -- Counters top left (top right when the messages are there); the movie's state top right, below
  -- the counters when they share that corner; messages in their own corner.
  local counters_right = position == "top-left"
  local y, top_right = l.margin, l.margin
  for _, text in ipairs(status_lines(in_movie)) do
    if counters_right then right_aligned(l, y, text, l.style) else gui.text(l.margin, y, text, l.style) end
    y = y + l.line
  end
  if counters_right then top_right = y end
  if in_movie then
    draw_movie(l, top_right)
    top_right = top_right + l.line
  end
  local right = position:find("right") ~= nil
  -- Each message wrapped at the window's width (at this scale); the lines of all of them stack.
  local columns = (l.width - 2 * l.margin) // ui.char_width(l.scale)
  local count = 0
  for _, message in ipairs(messages) do
    if message.columns ~= columns then message.lines, message.columns = ui.wrap(message.text, columns), columns end
    count = count + #message.lines
  end
  local top = position == "top-right" and top_right or position == "top-left" and l.margin
    or l.height - l.line * count - l.margin
  local my = top
  for _, message in ipairs(messages) do
    for _, text in ipairs(message.lines) do
      if right then right_aligned(l, my, text, l.style) else gui.text(l.margin, my, text, l.style) end
      my = my + l.line
    end
  end
  for i = #messages, 1, -1 do
    local message = messages[i]
    message.left = message.left - 1
    if message.left <= 0 then table.remove(messages, i) end
  end
end)
