-- A bot in the style of published BizHawk scripts (written for these tests): it builds a settings form, reads its
-- defaults, probes which controllers are plugged in with joypad.get(n), formats a clock the Lua 5.1 way and
-- presses the button its form chose.
local function result(key, value) console.writeline("result " .. key .. "=" .. tostring(value)) end

local closed = 0
local form = forms.newform(300, 200, "Bot settings", function() closed = closed + 1 end)
local every = forms.textbox(form, 30, 60, 20, "UNSIGNED", 90, 10)
local name = forms.textbox(form, nil, 120, 20, nil, 90, 40)
local turbo = forms.checkbox(form, "Turbo", 10, 70)
local button = forms.dropdown(form, { "B", "A", "Start" }, 10, 100, 80, 20)
forms.label(form, "Press every", 10, 12, 80, 18)
forms.button(form, "Go", function() result("clicked", true) end, 10, 130, 60, 20)
local picture = forms.pictureBox(form, 0, 150, 100, 40)
forms.drawBox(picture, 0, 0, 10, 10, 0xFFFF0000)
forms.setproperty(turbo, "Checked", true)
forms.settext(name, "run 1")
result("every", forms.gettext(every))
result("name", forms.gettext(name))
result("turbo", forms.ischecked(turbo))
result("turbo_property", forms.getproperty(turbo, "Checked"))
result("button", forms.gettext(button))
result("unknown_handle", forms.gettext(12345) == "")
result("openfile", forms.openfile("movie.bk2") == "")

-- BizHawk filters joypad.get(n) by the "Pn " prefix: the NES has two pads here, a third is an empty table
local plugged = {}
for n = 1, 4 do plugged[n] = next(joypad.get(n)) ~= nil end
result("plugged", table.concat({ tostring(plugged[1]), tostring(plugged[2]), tostring(plugged[3]),
  tostring(plugged[4]) }, ","))

-- Lua 5.1 leftovers BizHawk scripts from before 2.9 use: %d of a fractional number truncates
local frames = 3725
local seconds = frames / 60
result("clock", string.format("%02d:%02d", seconds / 60, seconds % 60))
result("unpack", select("#", unpack({ 1, 2, 3 })))
result("getn", table.getn({ 1, 2 }))
result("pow", math.pow(2, 10))

-- names from BizHawk before 2.9
client.invisibleemulation(true)
gui.drawNew("emu")
gui.drawBox(0, 0, 3, 3, "red")
gui.drawFinish()
result("short_hex", pcall(gui.drawBox, 0, 0, 2, 2, "#F00", "#0f0"))
result("luacore", emu.getluacore())
client.invisibleemulation(false)

-- scripts note the settings they change, to put them back when they end
client.speedmode(200)
result("speed_percent", client.getconfig().SpeedPercent)
result("unknown_setting", client.getconfig().NoSuchSetting == nil)
-- and the tables they read: savestate compression (a game-swapping script warns above a level), rewind, movies
local config = client.getconfig()
result("savestates", config.Savestates.CompressionLevelNormal .. "," .. tostring(config.Savestates.MakeBackups))
result("rewind", tostring(config.Rewind.Enabled) .. "," .. config.Rewind.BufferSize)
result("movies", config.Movies.MovieEndAction .. "," .. type(config.PathEntries.Paths) .. "," .. type(config.RecentRoms))
client.speedmode(100)

local press_every = tonumber(forms.gettext(every))
local which = forms.gettext(button)
local presses = 0
while emu.framecount() < 120 do
  if emu.framecount() % press_every == 0 then
    joypad.set({ [which] = true }, 1)
    presses = presses + 1
  end
  emu.frameadvance()
  if joypad.get(1)[which] then result("held_" .. which, true) end
end
result("presses", presses)
-- values as BizHawk reads them: blank leaves the player's input, any other text inverts it (here: presses)
joypad.set({ B = "  ", Select = "invert", Start = "false" }, 1)
emu.frameadvance()
local pad = joypad.get(1)
result("blank_b", pad.B)
result("invert_select", pad.Select)
result("false_start", pad.Start)
forms.destroy(form)
forms.destroyall()
result("closed", closed)
result("after_destroy", forms.gettext(every) == "")
client.pause()
