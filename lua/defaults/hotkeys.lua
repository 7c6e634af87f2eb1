-- Default hotkeys, part of Retrolua's replaceable Lua frontend.
--
-- Each action is bound to an SDL key name. Override bindings in ~/.config/retrolua/hotkeys.lua, a
-- file returning a table such as `return { save_state = "ctrl+s", quit = false }` (false unbinds), or
-- replace this whole file with ~/.config/retrolua/scripts/hotkeys.lua, or turn it off with
-- `--no-default hotkeys`.

-- The actions and their default keys live in lua/retrolua/hotkeys.lua (the menu lists them from there);
-- false unbinds an action.
local bindings = require("retrolua.hotkeys").load()
local slot_actions = require("retrolua.slot_actions")

local paths = emu.paths()

local SLOW_MOTION = 0.25
local SLOT_SHOWN_FRAMES = 180
local slot = 0
local slot_shown = 0
local fast_forward = false

local function restore_speed()
  emu.speed(fast_forward and 0 or 1)
end

-- Opens the tray if needed and selects the disc `step` away; the tray stays open until disc_eject closes it,
-- so the game sees the swap (as on the console).
local function change_disc(step)
  local tray, problem = disc.state()
  if not tray then return emu.message(problem) end
  if tray.count == 0 then return emu.message("no discs") end
  if not tray.ejected then
    local ok, why = disc.eject()
    if not ok then return emu.message(why) end
  end
  local target = ((tray.index or 1) - 1 + step) % tray.count + 1
  local ok, why = disc.select(target)
  emu.message(ok and string.format("disc %d of %d (tray open)", target, tray.count) or why)
end

local pressed = {
  quit = function() emu.exit(0) end,
  fullscreen = function() gui.fullscreen(not gui.fullscreen()) end,
  pause = function()
    if emu.paused() then emu.unpause(); emu.message("resumed") else emu.pause(); emu.message("paused") end
  end,
  frame_advance = function()
    if not emu.paused() then emu.pause() end
    emu.step()
  end,
  fast_forward_hold = function() emu.speed(0) end,
  fast_forward_toggle = function()
    fast_forward = not fast_forward
    restore_speed()
    emu.message(fast_forward and "fast-forward" or "normal speed")
  end,
  slow_motion_hold = function() emu.speed(SLOW_MOTION) end,
  save_state = function() slot_actions.save(slot) end,
  load_state = function() slot_actions.load(slot) end,
  slot_down = function() slot = (slot + 9) % 10; slot_shown = SLOT_SHOWN_FRAMES end,
  slot_up = function() slot = (slot + 1) % 10; slot_shown = SLOT_SHOWN_FRAMES end,
  screenshot = function()
    local path = string.format("%s/%s-%06d.png", paths.screenshots, emu.info().rom.name or "screenshot", emu.framecount())
    local ok, problem = gui.screenshot(path)
    emu.message(ok and ("screenshot " .. path) or problem)
  end,
  reset = function()
    local ok, problem = emu.reset()
    emu.message(ok and "reset" or problem)
  end,
  -- Movies (retrolua movie record/play): read-only toggle, and one quick branch per slot number.
  movie_readonly = function()
    if movie.mode() == "idle" then return emu.message("no movie") end
    emu.message(movie.readonly(not movie.readonly()) and "movie read-only" or "movie read-write")
  end,
  movie_branch_save = function()
    local ok, problem = movie.branch_save("slot" .. slot)
    emu.message(ok and ("saved branch slot" .. slot .. " at frame " .. movie.frame()) or problem)
  end,
  tastudio = function()
    if movie.mode() == "idle" then
      return emu.message("tastudio: no movie (record or play one, or run with --tastudio MOVIE)")
    end
    tastudio.engage(not tastudio.engaged())
  end,
  disc_eject = function()
    local open, problem = disc.ejected()
    if open == nil then return emu.message(problem) end
    local ok, why
    if open then ok, why = disc.insert() else ok, why = disc.eject() end
    emu.message(ok and (open and ("disc " .. tostring(disc.index() or "none") .. " inserted") or "tray open") or why)
  end,
  disc_next = function() change_disc(1) end,
  disc_previous = function() change_disc(-1) end,
  movie_branch_load = function()
    local ok, problem = movie.branch_load("slot" .. slot)
    emu.message(ok and ("loaded branch slot" .. slot .. " (" .. movie.length() .. " frames)") or problem)
  end,
}

local released = {
  fast_forward_hold = restore_speed,
  slow_motion_hold = restore_speed,
}

-- A binding is a key name, with modifiers if wanted ("ctrl+s"). A binding without a modifier answers only
-- while no ctrl, alt or gui key is held: ctrl+n is another key than n (a tool's shortcut, never a hotkey).
-- Keys held by a tool (input.capture) never reach this script at all.
local MODIFIERS = { "ctrl", "alt", "gui", "shift" }
local wanted = {}  -- action → { key =, ctrl =, alt =, gui =, shift = }
for action, text in pairs(bindings) do
  if text then
    local binding, rest = {}, text
    while true do
      local modifier, tail = rest:match("^(%a+)%+(.+)$")
      if modifier == "ctrl" or modifier == "alt" or modifier == "gui" or modifier == "shift" then
        binding[modifier] = true
        rest = tail
      else
        break
      end
    end
    binding.key = rest
    wanted[action] = binding
  end
end

-- The action bound to `key` pressed with `mods` (the event's own modifiers, as they were when the key went down:
-- a chord typed within one frame has let go of its ctrl before the frame's held keys could be read); any
-- modifiers when `mods` is nil.
local function action_for(key, mods)
  for action, binding in pairs(wanted) do
    if binding.key == key then
      local matches = true
      for _, modifier in ipairs(MODIFIERS) do
        local down = mods and mods[modifier] or false
        -- Shift is free on a plain binding (it is a game button on some maps); the others must be as bound.
        if mods and down ~= (binding[modifier] or false) and (modifier ~= "shift" or binding.shift) then
          matches = false
        end
      end
      if matches then return action end
    end
  end
end

event.on("key_down", function(key, is_repeat, mods)
  local action = action_for(key, mods)
  if action and not is_repeat and pressed[action] then pressed[action]() end
end)

-- The state-slot indicator, top right, for a few seconds after the slot changes, at the OSD's scale.
event.on("draw", function()
  if slot_shown <= 0 then return end
  slot_shown = slot_shown - 1
  local width = gui.surface_size("hud")
  local text = "slot " .. slot
  local scale = require("retrolua.ui").osd_scale()
  gui.text(width - gui.text_size(text, scale) - 4 * scale, 4 * scale, text,
           { surface = "hud", color = "yellow", bg = "#000000a0", scale = scale })
end)

event.on("key_up", function(key)
  local action = action_for(key)  -- a held action ends whatever is held with it
  if action and released[action] then released[action]() end
end)
