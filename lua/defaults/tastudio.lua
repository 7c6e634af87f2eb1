-- Default TAS editor, part of Retrolua's replaceable Lua frontend: a piano roll of the current movie
-- (frames × buttons per port) in a panel beside the game picture (the window widens: gui.side_panel),
-- over the `tastudio` module (docs/guides/tas.md, "The TAS editor"). Hidden until the movie is engaged
-- (the hotkeys' `tastudio` key, default f3, or `retrolua run --tastudio MOVIE`).
-- Focus: while shown with focus the editor holds the keyboard (input.capture): every key reaches it and
-- nothing else — not the game, not the other hotkeys; the game's input is the movie's (past its end in
-- read-write mode, empty frames are recorded). It answers the hotkeys' pause, frame-advance and f3 keys
-- itself. `escape` hands the keyboard back to the game (to play into the recording); a click in the panel
-- takes it again. ctrl+s saves the movie to its own file (the previous file is kept as FILE.bak);
-- ctrl+shift+s saves a branch. At exit the editor's changes are saved the same way.
-- Mouse: click a button cell to toggle it, drag to paint; click frame numbers to select (drag: a range),
-- right-click one to seek there; the wheel scrolls. Keys in `keys` below. Editing a frame before the
-- current one returns to the current frame (auto-restore) through the greenzone.
-- Settings in ~/.config/retrolua/tastudio.lua, e.g. `return { rows = 30, auto_restore = false }`;
-- replace it with ~/.config/retrolua/scripts/tastudio.lua or turn it off with `--no-default tastudio`.

local settings = require("retrolua.settings").load("tastudio", {
  auto_restore = true,   -- after editing a past frame, seek back to where you were
  pause_at_end = true,   -- with the keyboard in the editor, the game pauses where the movie ends
  follow = true,         -- keep the current frame in view while the movie runs
  branches = true,       -- the branch panel
  rows = 0,              -- rows shown (0: as many as fit)
  scale = 0,             -- font scale (0: the OSD's, from the window: gui.text_scale)
  buttons = "",          -- columns, e.g. "up down left right select start b a" ("": the system's)
  keys = {
    insert = "insert", delete = "delete", clone = "ctrl+d", clear = "ctrl+e",
    copy = "ctrl+c", paste = "ctrl+v", cut = "ctrl+x", undo = "ctrl+z", redo = "ctrl+y",
    marker = "ctrl+m", note = "ctrl+n", seek = "ctrl+g", previous_marker = "ctrl+,", next_marker = "ctrl+.",
    scroll_up = "page up", scroll_down = "page down", first = "home", last = "end",
    follow = "ctrl+f", branches = "ctrl+b", save = "ctrl+s", branch_save = "ctrl+shift+s", select_all = "ctrl+a",
    pause = "space", leave = "escape",
  },
})

local NES = { "up", "down", "left", "right", "select", "start", "b", "a" }
local PAD = { "up", "down", "left", "right", "select", "start", "y", "b", "x", "a", "l", "r" }
local LETTERS = { up = "U", down = "D", left = "L", right = "R", select = "s", start = "S",
                  y = "Y", b = "B", x = "X", a = "A", l = "l", r = "r", l2 = "<", r2 = ">", l3 = "[", r3 = "]" }
local BITS = joypad.BUTTONS  -- each button's bit in a mask, as the host numbers them
-- Colours as 0xAARRGGBB numbers: a string would be parsed on every call, and the roll makes hundreds.
local COLORS = {
  panel = 0xFF101018, header = 0xFF303048, text = 0xFFFFFFFF, dim = 0xFFA0A0A0,
  green = 0xFF183818, lag = 0xFF481818, plain = 0xFF1C1C24, current = 0xFF2850A8, selected = 0xFF585890,
  held = 0xFFE0E060, marker = 0xFFFFFF00, note = 0xFFF0D060,
}

local buttons = {}
do
  local chosen = settings.buttons
  if chosen == "" then
    local info = emu.info()
    local system, rom = (info.system or ""):lower(), ((info.rom or {}).name or ""):lower()
    local nes = system:find("entertainment system", 1, true) or system:find("famicom", 1, true)
      or rom:find("%.nes$") or rom:find("%.fds$")
    buttons = nes and NES or PAD
  else
    for name in chosen:gmatch("%S+") do
      if BITS[name] then buttons[#buttons + 1] = name else console.warn("tastudio: unknown button " .. name) end
    end
    if #buttons == 0 then buttons = PAD end
  end
end

local row_strings  -- defined with the drawing code

local editor = {
  top = 0, ports = 1, selection_anchor = nil, clipboard = nil, follow = settings.follow,
  drag = nil, note_entry = nil, branches = settings.branches, layout = nil,
  shown = false,  -- tastudio.engaged() as last seen
  focus = false,  -- the editor holds the keyboard (input.capture)
  panel = 0,      -- the side panel's width asked of the window
}
editor.rect_style = { surface = "hud", fill = 0, color = 0 }
editor.panel_style = { surface = "hud", color = COLORS.panel, fill = COLORS.panel }
do
  local letters = {}
  for i, button in ipairs(buttons) do letters[i] = " " .. LETTERS[button] end
  editor.all_letters = table.concat(letters)
end

-- "ctrl+d" → { key = "d", ctrl = true }
local bindings = {}
local function bind(action, text)
  local binding, rest = { action = action }, text
  while true do
    local modifier, tail = rest:match("^(%a+)%+(.+)$")
    if modifier == "ctrl" or modifier == "shift" then binding[modifier] = true; rest = tail else break end
  end
  binding.key = rest
  bindings[#bindings + 1] = binding
end
for action, text in pairs(settings.keys) do
  if text then bind(action, text) end
end
-- While the editor holds the keyboard the hotkeys default hears nothing: the editor answers the user's
-- pause, frame-advance and editor keys itself (after its own bindings, which win).
do
  local hotkeys = require("retrolua.hotkeys").load()
  for action, hotkey in pairs({ pause = "pause", frame_advance = "frame_advance", hide = "tastudio" }) do
    if hotkeys[hotkey] then bind(action, hotkeys[hotkey]) end
  end
end

local function layout()
  local width, height = gui.surface_size("hud")
  -- The OSD's scale as the editor opens (or the window's height changes): kept while the panel widens the
  -- window, so the panel's own width never feeds back into it.
  local scale = settings.scale
  if scale <= 0 then
    if editor.scale_height ~= height then editor.scale, editor.scale_height = gui.text_scale("hud"), height end
    scale = editor.scale
  end
  local char, line = 6 * scale, 8 * scale + 2
  local ports = math.max(1, math.min(2, editor.ports))
  local cell = char * 2  -- a space and the button's letter
  local frame_width = char * 7 + 6
  local roll = frame_width + ports * (#buttons * cell + 4)
  local note_width = char * 14
  local branch_width = editor.branches and math.max(char * 18, editor.thumb and editor.thumb:width() + 4 or 0) or 0
  local total = roll + note_width + branch_width
  -- Beside the picture: the window keeps `total` pixels at its right for the panel, which begins where the
  -- hud's width (the game's side) ends.
  if editor.panel ~= total then
    editor.panel = total
    gui.side_panel(total)
    width = gui.surface_size("hud")
  end
  local x0 = width
  width = width + total
  local rows = (height - line * 2 - 4) // line
  if settings.rows > 0 then rows = math.min(rows, settings.rows) end
  return { width = width, height = height, scale = scale, char = char, line = line, cell = cell,
           frame_width = frame_width, ports = ports, x0 = x0, roll = roll, note_x = x0 + roll,
           branch_x = x0 + roll + note_width, top_y = line * 2 + 2, rows = math.max(1, rows), total = total }
end

-- One options table per colour, background and scale, made once (the roll draws hundreds of texts a frame).
local styles = {}
local function text(x, y, s, color, bg, scale)
  local key = color * 64 + (bg and 32 or 0) + scale
  local style = bg and nil or styles[key]
  if not style then
    style = { surface = "hud", color = color, bg = bg, scale = scale }
    if not bg then styles[key] = style end
  end
  gui.text(x, y, s, style)
end

-- Keeps `frame` on screen.
local function scroll_to(frame, l)
  if frame < editor.top then editor.top = frame
  elseif frame >= editor.top + l.rows then editor.top = frame - l.rows + 1 end
  if editor.top < 0 then editor.top = 0 end
end

local function selected_range()
  local frames = tastudio.selection()
  if #frames == 0 then local f = tastudio.frame(); return f, f end
  return frames[1], frames[#frames]
end

local function select_range(a, b)
  if a > b then a, b = b, a end
  local frames = {}
  for f = a, b do frames[#frames + 1] = f end
  tastudio.set_selection(frames)
end

-- After an edit of `first`: a frame already run changed, so return to the current frame through the greenzone.
local function restore(first, here)
  if settings.auto_restore and first and first ~= false and first < here then
    local ok, problem = tastudio.seek(math.min(here, tastudio.length()))
    if not ok then emu.message("tastudio: " .. tostring(problem)) end
  end
end

local function edit(fn)
  local here = tastudio.frame()
  local first, problem = fn()
  if first == nil and problem then emu.message("tastudio: " .. problem) end
  restore(first, here)
  return first
end

-- The branch list is read from disk: once a second is enough.
local branch_list, branch_read = nil, -1000
local function branches()
  local now = emu.framecount()
  if math.abs(now - branch_read) >= 60 then branch_list, branch_read = movie.branches(), now end
  return branch_list
end

local actions = {}
function actions.insert() local a, b = selected_range(); edit(function() return tastudio.insert(a, b - a + 1) end) end
-- Deletes or clears the selected frames that exist (a selection may run past the movie's end).
local function edit_existing(operation)
  local a, b = selected_range()
  if a >= tastudio.length() then return end
  edit(function() return operation(a, math.min(b, tastudio.length() - 1) - a + 1) end)
end
function actions.delete() edit_existing(tastudio.delete) end
function actions.clone() local a, b = selected_range(); edit(function() return tastudio.clone(a, b - a + 1) end) end
function actions.clear() edit_existing(tastudio.clear) end
function actions.copy()
  local a, b = selected_range()
  local rows = {}
  for f = a, b do
    local row = {}
    for port = 1, editor.ports do row[port] = tastudio.get_mask(f, port) or 0 end
    rows[#rows + 1] = row
  end
  editor.clipboard = rows
  emu.message(string.format("tastudio: copied %d frames", #rows))
end
function actions.cut() actions.copy(); actions.clear() end
function actions.paste()
  local rows = editor.clipboard
  if not rows then return emu.message("tastudio: nothing copied") end
  local a = selected_range()
  edit(function()
    tastudio.begin("paste")
    for i, row in ipairs(rows) do
      for port, mask in ipairs(row) do tastudio.set_input(a + i - 1, port, mask) end
    end
    return tastudio.apply()
  end)
end
function actions.undo() local here = tastudio.frame(); restore(tastudio.undo(), here) end
function actions.redo() local here = tastudio.frame(); restore(tastudio.redo(), here) end
function actions.marker()
  local a = selected_range()
  if tastudio.marker(a) then tastudio.remove_marker(a) else tastudio.set_marker(a, "") end
end
function actions.note()
  local a = selected_range()
  editor.note_entry = { frame = a, text = tastudio.marker(a) or "" }
end
function actions.seek()
  local ok, problem = tastudio.seek(math.min(selected_range(), tastudio.length()))
  if not ok then emu.message("tastudio: " .. tostring(problem)) end
end
local function seek_marker(step)
  local here, target = tastudio.frame(), nil
  for _, marker in ipairs(tastudio.markers()) do
    if step < 0 and marker.frame < here then target = marker.frame end
    if step > 0 and marker.frame > here and not target then target = marker.frame end
  end
  if target then tastudio.seek(math.min(target, tastudio.length())) end
end
function actions.previous_marker() seek_marker(-1) end
function actions.next_marker() seek_marker(1) end
function actions.scroll_up() local l = editor.layout or layout(); editor.top = math.max(0, editor.top - l.rows); editor.follow = false end
function actions.scroll_down() local l = editor.layout or layout(); editor.top = editor.top + l.rows; editor.follow = false end
function actions.first() editor.top = 0; editor.follow = false end
function actions.last() local l = editor.layout or layout(); editor.top = math.max(0, tastudio.length() - l.rows + 1) end
function actions.follow()
  editor.follow = not editor.follow
  emu.message(editor.follow and "tastudio: following the current frame" or "tastudio: scrolling freely")
end
function actions.branches() editor.branches = not editor.branches end
function actions.select_all() select_range(0, math.max(0, tastudio.length() - 1)) end
function actions.save()
  local path, backup = tastudio.save()
  if not path then return emu.message("tastudio: not saved: " .. tostring(backup)) end
  emu.message("tastudio: saved " .. path .. (backup and (" (the previous file is " .. backup .. ")") or ""))
end
function actions.pause()
  if emu.paused() then emu.unpause() else emu.pause() end
end
function actions.frame_advance()
  if not emu.paused() then emu.pause() end
  emu.step()
end
-- Focus: the editor holds the keyboard, or the game (and the hotkeys) have it.
local function take_keys()
  if editor.focus then return true end
  local ok, why = input.capture(true)
  if not ok then
    emu.message("tastudio: " .. tostring(why))
    return false
  end
  editor.focus = true
  return true
end
local function give_keys()
  if editor.focus then input.capture(false) end
  editor.focus, editor.note_entry = false, nil
end
function actions.leave()
  give_keys()
  emu.message("tastudio: the keyboard plays the game (click the piano roll to edit again)")
end

-- Follows tastudio.engaged(): shown, the editor takes the keyboard and its panel; hidden, it gives both back.
local function sync()
  local engaged = tastudio.engaged()
  if engaged == editor.shown then return engaged end
  editor.shown = engaged
  if engaged then
    take_keys()
  else
    give_keys()
    editor.drag, editor.scale_height = nil, nil
    if editor.panel ~= 0 then gui.side_panel(0) end
    editor.panel = 0
  end
  return engaged
end
function actions.hide() tastudio.engage(false); sync() end

function actions.branch_save()
  local name = string.format("frame%d", tastudio.frame())
  local ok, problem = movie.branch_save(name)
  branch_read = -1000
  emu.message(ok and ("tastudio: branch " .. name) or ("tastudio: " .. tostring(problem)))
end

local function typed(key, mods)
  local entry = editor.note_entry
  if key == "escape" then
    editor.note_entry = nil
  elseif key == "return" then
    tastudio.set_marker(entry.frame, entry.text)
    editor.note_entry = nil
  elseif key == "backspace" then
    entry.text = entry.text:sub(1, -2)
  elseif key == "space" then
    entry.text = entry.text .. " "
  elseif #key == 1 and #entry.text < 60 then
    entry.text = entry.text .. (mods.shift and key:upper() or key)
  end
end

-- Keys that act again while held down.
local REPEATS = { scroll_up = true, scroll_down = true, undo = true, redo = true, frame_advance = true }

-- The modifiers are the event's own (held as the key went down): a chord typed within one frame (xdotool, a
-- remote desktop) has let go of its ctrl by the time the frame's held keys could be read.
event.on("key_down", function(key, is_repeat, mods)
  -- Keys reach the editor only while it holds the keyboard; it never reads them otherwise, nor the key that
  -- opened it (f3 heard by the hotkeys first).
  local had_focus = editor.focus
  if not sync() or not editor.focus or not had_focus then return end
  if editor.note_entry then return typed(key, mods) end
  local ctrl, shift = mods.ctrl, mods.shift
  local digit = tonumber(key)
  if digit and not ctrl and digit >= 1 and digit <= #buttons then
    if is_repeat then return end
    local a, b = selected_range()
    local port = shift and 2 or 1
    if port > editor.ports then return end
    edit(function()
      tastudio.begin("toggle " .. buttons[digit])
      for f = a, b do tastudio.set_button(f, port, buttons[digit], not tastudio.get_button(f, port, buttons[digit])) end
      return tastudio.apply()
    end)
    return
  end
  for _, binding in ipairs(bindings) do
    if binding.key == key and (binding.ctrl or false) == ctrl and (binding.shift or false) == shift then
      if is_repeat and not REPEATS[binding.action] then return end
      return actions[binding.action]()
    end
  end
end)

-- Which cell the mouse is over: frame, and port + button (nil over the frame numbers).
local function hit(l, x, y)
  if x < l.x0 or x >= l.x0 + l.roll or y < l.top_y then return nil end
  local row = (y - l.top_y) // l.line
  if row >= l.rows then return nil end
  local frame = editor.top + row
  local dx = x - l.x0 - l.frame_width
  if dx < 0 then return frame end
  local port_width = #buttons * l.cell + 4
  local port = dx // port_width + 1
  local column = (dx % port_width) // l.cell + 1
  if port > l.ports or column > #buttons then return frame end
  return frame, port, buttons[column]
end

local function branch_hit(l, x, y)
  if not editor.branches or x < l.branch_x or y < l.top_y then return nil end
  return (y - l.top_y) // l.line + 1
end

-- A drag goes on over the cell at (x, y): a paint sets it, a selection reaches it.
local function drag_to(l, x, y)
  local drag = editor.drag
  local frame, port, button = hit(l, x, y)
  if drag.select and frame then
    select_range(editor.selection_anchor, frame)
  elseif drag.button and frame and port == drag.port and button == drag.button and not drag.frames[frame] then
    drag.frames[frame] = true
    tastudio.set_button(frame, drag.port, drag.button, drag.value)
  end
end

local function end_drag()
  local drag = editor.drag
  editor.drag = nil
  if drag and drag.button then restore(tastudio.apply(), drag.here) end
end

-- Presses and releases come as events, in order: a click within one frame (a fast tap, xdotool) is a press
-- and a release, though the held buttons never show it. Where they land is read against the last drawn layout.
event.on("mouse_down", function(button, x, y)
  local l = editor.layout
  if not sync() or not l then return end
  if (button == "left" or button == "right") and x >= l.x0 and not editor.focus then take_keys() end
  if button == "right" then
    local frame, port = hit(l, x, y)
    if frame and not port then tastudio.seek(math.min(frame, tastudio.length())) end
    return
  end
  if button ~= "left" then return end
  end_drag()
  local frame, port, cell = hit(l, x, y)
  local branch = branch_hit(l, x, y)
  if frame and port then
    local value = not tastudio.get_button(frame, port, cell)
    editor.drag = { port = port, button = cell, value = value, frames = {}, here = tastudio.frame() }
    tastudio.begin("paint " .. cell)
    drag_to(l, x, y)
  elseif frame then
    editor.selection_anchor = frame
    editor.drag = { select = true }
    select_range(frame, frame)
  elseif branch then
    local list = branches() or {}
    if list[branch] then
      local ok, problem = movie.branch_load(list[branch].name)
      branch_read = -1000
      emu.message(ok and ("tastudio: loaded branch " .. list[branch].name) or ("tastudio: " .. tostring(problem)))
    end
  end
end)

event.on("mouse_up", function(button, x, y)
  if button ~= "left" or not editor.drag then return end
  if editor.layout then drag_to(editor.layout, x, y) end
  end_drag()
end)

-- The held button between a press and its release: a drag over the roll; the wheel scrolls.
local function mouse(l)
  local m = input.mouse()
  if m.wheel and m.wheel ~= 0 and m.x >= l.x0 then
    editor.top = math.max(0, editor.top - m.wheel * 3)
    editor.follow = false
  end
  if editor.drag and m.left then
    drag_to(l, m.x, m.y)
  elseif editor.drag then
    end_drag()  -- released unseen (the window lost the focus meanwhile)
  end
end

-- One row's buttons as two strings drawn over each other: dots where released, letters where held
-- (two text calls a row, whatever the number of buttons).
local row_cache = {}
row_strings = function(mask)
  local cached = row_cache[mask]
  if cached then return cached[1], cached[2] end
  local dots, letters = {}, {}
  for i, button in ipairs(buttons) do
    local on = mask & (1 << BITS[button]) ~= 0
    dots[i] = on and "  " or " ."
    letters[i] = on and (" " .. LETTERS[button]) or "  "
  end
  cached = { table.concat(dots), table.concat(letters) }
  row_cache[mask] = cached
  return cached[1], cached[2]
end

local function draw_branches(l, y)
  local list = branches()
  text(l.branch_x, y, "branches", COLORS.dim, COLORS.header, l.scale)
  if not list then return end
  for index, branch in ipairs(list) do
    local row = l.top_y + (index - 1) * l.line
    if row + l.line > l.height then break end
    text(l.branch_x + 2, row, string.format("%-9s %6d", branch.name:sub(1, 9), branch.frame), COLORS.text, nil, l.scale)
  end
  -- The newest branch's thumbnail under the list, when it fits.
  local last = list[#list]
  local thumb_y = l.top_y + (#list + 1) * l.line
  if not (last and last.thumbnail) then return end
  if editor.thumb_path ~= last.thumbnail then
    editor.thumb_path, editor.thumb = last.thumbnail, gui.load_image(last.thumbnail)
  end
  local image = editor.thumb
  -- Shown only where it fits whole (thumbnails are the game's full picture).
  if image and l.branch_x + 2 + image:width() <= l.width and thumb_y + image:height() <= l.height then
    gui.image(l.branch_x + 2, thumb_y, image, { surface = "hud" })
  end
end

local function draw()
  if not sync() then return end
  local info = movie.info()
  editor.ports = math.max(1, math.min(2, (info and info.ports) or 2))
  local l = layout()
  editor.layout = l
  mouse(l)
  local here, length = tastudio.frame(), tastudio.length()
  if editor.follow and not editor.drag then scroll_to(here, l) end
  gui.rect(l.x0, 0, l.total, l.height, editor.panel_style)
  local title = string.format("TAStudio %s %d/%d%s%s", tastudio.mode(), here, length,
                              movie.readonly() and " RO" or " RW", editor.focus and "" or "  (keys: game)")
  text(l.x0 + 2, 1, title, COLORS.text, COLORS.header, l.scale)
  -- Column headers.
  local y = l.line + 1
  text(l.x0 + 2, y, "frame", COLORS.dim, nil, l.scale)
  for port = 1, l.ports do
    local px = l.x0 + l.frame_width + (port - 1) * (#buttons * l.cell + 4)
    text(px, y, editor.all_letters, COLORS.dim, nil, l.scale)
  end
  text(l.note_x + 2, y, "markers", COLORS.dim, nil, l.scale)
  if editor.branches then draw_branches(l, y) end
  local selected = {}
  for _, f in ipairs(tastudio.selection()) do selected[f] = true end
  local markers = {}
  for _, marker in ipairs(tastudio.markers()) do markers[marker.frame] = marker.note end
  local last_green = tastudio.greenzone_info().last or -1
  local rect_style = editor.rect_style
  for row = 0, l.rows - 1 do
    local frame = editor.top + row
    local ry = l.top_y + row * l.line
    if frame > length then break end
    local lag = tastudio.islag(frame)
    local bg = frame == here and COLORS.current or selected[frame] and COLORS.selected
      or lag and COLORS.lag or frame <= last_green and COLORS.green or COLORS.plain
    rect_style.fill, rect_style.color = bg, bg
    gui.rect(l.x0, ry, l.roll, l.line - 1, rect_style)
    text(l.x0 + 2, ry + 1, string.format("%7d", frame), markers[frame] and COLORS.marker or COLORS.text, nil, l.scale)
    for port = 1, l.ports do
      local mask = tastudio.get_mask(frame, port) or 0
      local px = l.x0 + l.frame_width + (port - 1) * (#buttons * l.cell + 4)
      local dots, letters = row_strings(mask)
      text(px, ry + 1, dots, COLORS.dim, nil, l.scale)
      if mask ~= 0 then text(px, ry + 1, letters, COLORS.held, nil, l.scale) end
    end
    local note = markers[frame]
    if editor.note_entry and editor.note_entry.frame == frame then note = editor.note_entry.text .. "_" end
    if note then text(l.note_x + 2, ry + 1, note:sub(1, 14), COLORS.note, nil, l.scale) end
  end
end

-- Also while paused in a window: the host runs the draw callbacks again (the editor answers the mouse).
event.on("draw", draw)

-- As TAStudio does: the movie does not run on past its end unseen (frame advance still adds frames one by one,
-- and with the keyboard given to the game, play goes on into the recording).
event.on("movie_end", function()
  if settings.pause_at_end and editor.shown and editor.focus and tastudio.mode() ~= "idle" and not emu.paused() then
    emu.pause()
    emu.message("tastudio: paused at the movie's end")
  end
end)
