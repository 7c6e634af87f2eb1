-- RAM watch, input display and a small bot for the NES demo ROM (examples/roms/nes), written the way
-- BizHawk scripts are: mainmemory/memory domains, gui.draw*, event.on*, joypad tables with BizHawk names.
-- Each fact the test checks is printed as "result key=value".
local RAM_X, RAM_Y, RAM_PRESSES, RAM_B = 0x03, 0x04, 0x05, 0x06

local function report(key, value)
  console.writeline("result " .. key .. "=" .. tostring(value))
end

memory.usememorydomain("RAM")
gui.defaultForeground("White")
gui.use_surface("emucore")

local starts, ends, polls, loads = 0, 0, 0, 0
local presses_seen, last_press = 0, nil
event.onframestart(function() starts = starts + 1 end, "starts")
event.onframeend(function() ends = ends + 1 end, "ends")
event.oninputpoll(function() polls = polls + 1 end)
event.onloadstate(function() loads = loads + 1 end)
event.onmemorywrite(function(addr, val)
  presses_seen = presses_seen + 1
  last_press = val
end, RAM_PRESSES, "presses", "RAM")
local temporary = event.onframeend(function() end)
report("guid", type(temporary) == "string" and #temporary == 36)
report("unregister_id", event.unregisterbyid(temporary))
report("unregister_again", event.unregisterbyid(temporary))

report("system", emu.getsystemid())
report("main", mainmemory.getname())
local domains = memory.getmemorydomainlist()
report("domain0", domains[0])
report("current", memory.getcurrentmemorydomain())
report("ram_size", memory.getcurrentmemorydomainsize())
report("display", emu.getdisplaytype())
report("romname", gameinfo.getromname())
report("hashlen", #gameinfo.getromhash())
report("movie", movie.mode())
report("movie_loaded", movie.isloaded())
report("buffer", client.bufferwidth() .. "x" .. client.bufferheight())
report("bits", bit.band(0xF0F0, 0xFF00) .. "," .. bit.rshift(0x80, 4) .. "," .. bit.lshift(1, 31))
report("hex", bizstring.hex(0xBEEF) .. "," .. bizstring.pad_start("7", 3, "0"))
userdata.set("phase", "start")

local state, saved_x
local t = 0  -- frames run by this loop (loading a state rewinds emu.framecount, as in BizHawk)
gui.addmessage("BizHawk-style HUD loaded")
while true do
  local f = t
  local x, y = mainmemory.read_u8(RAM_X), mainmemory.read_u8(RAM_Y)

  if f < 100 then
    joypad.set({ A = f % 4 < 2, Right = true }, 1)   -- a new A press every 4 frames
  elseif f == 100 then
    userdata.set("phase", "saved")
    state = memorysavestate.savecorestate()
    saved_x = x
    joypad.set({ ["P1 Left"] = true })
  elseif f < 130 then
    joypad.set({ ["P1 Left"] = true })
  elseif f == 130 then
    report("moved_left", x < saved_x)
    userdata.set("phase", "moved")
    memorysavestate.loadcorestate(state)
    memorysavestate.removestate(state)
    report("restored_x", mainmemory.read_u8(RAM_X) == saved_x)
    report("userdata_after_load", userdata.get("phase"))
  elseif f == 140 then
    mainmemory.write_u8(RAM_X, 50)
    memory.write_u8(RAM_Y, 60, "RAM")
    memory.writefloat(0x700, 1.5, false)
  elseif f == 141 then
    report("written_x", mainmemory.read_u8(RAM_X))
    report("written_y_bus", memory.read_u8(RAM_Y, "System Bus"))
    report("float", memory.readfloat(0x700, false))
  elseif f >= 150 and f < 170 then
    joypad.set({ B = true }, 1)
    if f == 165 then
      report("b_flag", mainmemory.read_u8(RAM_B))
      report("b_pad", joypad.get(1).B)
      report("b_all", joypad.get()["P1 B"])
    end
  elseif f == 200 then
    report("saveslot", savestate.saveslot(3))
    report("loadslot", savestate.loadslot(3))
  elseif f == 290 then
    local range = mainmemory.readbyterange(RAM_X, 2)
    report("range", range[0] == x and range[1] == y)
    report("counter_lead", emu.framecount() - mainmemory.read_u16_le(0))
    report("rewound", emu.framecount() < t)
    report("presses", mainmemory.read_u8(RAM_PRESSES))
    report("presses_seen", presses_seen)
    report("last_press", last_press)
    report("callbacks", starts .. "," .. ends .. "," .. polls)
    report("loads", loads)
    report("lag", emu.lagcount() .. "," .. tostring(emu.islagged()))
    report("keys", type(input.get()) .. "," .. type(input.getmouse().X))
    report("unregister_name", event.unregisterbyname("presses"))
    report("version", client.getversion())
  end

  gui.drawBox(8, 8, 40, 24, "Red", "Blue")
  gui.drawRectangle(50, 30, 20, 10, 0xFF00FF00, 0xFF00FF00)
  gui.drawLine(0, 200, 255, 200, "#00FFFF")
  gui.drawPixel(250, 5, 0xFFFF00FF)
  gui.drawEllipse(150, 40, 20, 20, "White", "Orange")
  gui.drawPolygon({ { 200, 60 }, { 230, 60 }, { 215, 90 } }, 0, 0, "Lime", "Lime")
  gui.text(100, 100, "X " .. x, "yellow")
  gui.pixelText(100, 120, bizstring.hex(y), "white", "black")
  gui.drawText(100, 140, "A:" .. mainmemory.read_u8(RAM_PRESSES), 0xFFFF8000, nil, 12, "Arial")
  emu.frameadvance()
  t = t + 1
end
