-- Default on-screen display, part of Retrolua's replaceable Lua frontend: messages from
-- emu.message() (and so from the hotkeys) for a few seconds, and optionally the speed in frames per
-- second, the frame and lag counters and player 1's input. While a movie records or plays it shows
-- the movie's mode, frame, length and rerecords, and the input display. Settings in
-- ~/.config/retrolua/osd.lua, e.g. `return { fps = true, counters = true, input = true, movie = false }`;
-- replace it with ~/.config/retrolua/scripts/osd.lua or turn it off with `--no-default osd`.

local settings = require("retrolua.settings").load("osd", {
  fps = false, counters = false, input = false, movie = true,
  message_frames = 180, color = "white", background = "#000000a0",
})

local messages = {}
local fps, last_frames, last_seconds = 0, 0, 0
local BUTTONS = { "up", "down", "left", "right", "b", "a", "y", "x", "l", "r", "select", "start" }
local LABELS = { up = "^", down = "v", left = "<", right = ">", select = "s", start = "S" }

local function show(text)
  messages[#messages + 1] = { text = text, left = settings.message_frames }
  if #messages > 4 then table.remove(messages, 1) end
end
event.on("message", show)

local style = { surface = "hud", color = settings.color, bg = settings.background }
local MOVIE_COLORS = { record = "red", play = "#40ff40", finished = "white" }

event.on("movie_start", function(mode) show(mode == "record" and "movie: recording" or "movie: playing") end)
event.on("movie_end", function()
  if movie.mode() ~= "idle" then show(movie.mode() == "record" and "movie: end reached, recording" or "movie finished") end
end)

-- "REC 1234 (56 rerecords)" / "PLAY 120/300 RO": the movie's state, top right.
local function draw_movie(width)
  local mode = movie.mode()
  local text
  if mode == "record" then
    text = string.format("REC %d (%d rerecords)", movie.frame(), movie.rerecords())
  else
    text = string.format("%s %d/%d %s", mode == "play" and "PLAY" or "END", movie.frame(), movie.length(),
                         movie.readonly() and "RO" or "RW")
  end
  gui.text(width - gui.text_size(text) - 4, 14, text, { surface = "hud", color = MOVIE_COLORS[mode], bg = settings.background })
end

event.on("draw", function()
  local in_movie = settings.movie and movie.mode() ~= "idle"
  if #messages == 0 and not (settings.fps or settings.counters or settings.input or in_movie) then return end
  local width, height = gui.surface_size("hud")
  if in_movie then draw_movie(width) end
  local line = 4
  if settings.fps then
    local stats = emu.stats()
    if stats.seconds - last_seconds >= 0.5 then
      fps = (stats.frames - last_frames) / (stats.seconds - last_seconds)
      last_frames, last_seconds = stats.frames, stats.seconds
    end
    gui.text(4, line, string.format("%.1f fps", fps), style)
    line = line + 10
  end
  if settings.counters then
    gui.text(4, line, string.format("frame %d  lag %d", emu.framecount(), emu.lagcount()), style)
    line = line + 10
  end
  if settings.input or in_movie then
    local pad, text = joypad.get(1), {}
    for _, button in ipairs(BUTTONS) do text[#text + 1] = pad[button] and (LABELS[button] or button) or "." end
    gui.text(4, line, table.concat(text, " "), style)
  end
  local y = height - 12 * #messages - 4
  for i = #messages, 1, -1 do
    local message = messages[i]
    gui.text(4, y + (i - 1) * 12, message.text, style)
    message.left = message.left - 1
    if message.left <= 0 then table.remove(messages, i) end
  end
end)
