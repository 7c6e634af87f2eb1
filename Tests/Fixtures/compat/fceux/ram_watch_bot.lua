-- A RAM watch, input bot and overlay for Retrolua's demo ROM, written the way FCEUX scripts are:
-- globals, FCEU.*/emu.*, 0xRRGGBBAA colours and colour names, corner boxes, bit.*, Lua 5.1 idioms.
-- It checks what it reads, writes and presses, and prints one summary line for the test.

PLAYER_X = 0x0003
PLAYER_Y = 0x0004
A_PRESSES = 0x0005
B_HELD = 0x0006
SCRATCH = 0x0400

checks = 0
failures = 0
function check(what, ok, detail)
  checks = checks + 1
  if not ok then
    failures = failures + 1
    print("FAIL " .. what .. " " .. tostring(detail))
  end
end

before, after, drawn = 0, 0, 0
emu.registerbefore(function() before = before + 1 end)
emu.registerafter(function() after = after + 1 end)
gui.register(function()
  drawn = drawn + 1
  gui.drawbox(200, 200, 220, 215, "P16", "white")
end)

a_writes = {}
memory.registerwrite(A_PRESSES, function(address, size, value)
  table.insert(a_writes, value)
end)

loaded_data = nil
savestate.registersave(function(slot) return "hello", 42 end)
savestate.registerload(function(slot, word, number) loaded_data = word .. number end)

while emu.framecount() < 10 do FCEU.frameadvance() end

-- Reading and pressing: right moves the player 1 px a frame, each new A press counts.
local x0 = memory.readbyte(PLAYER_X)
check("start x", x0 == 120, x0)
for i = 1, 20 do
  joypad.set(1, {right = true})
  emu.frameadvance()
end
check("moved right", memory.readbyte(PLAYER_X) == x0 + 20, memory.readbyte(PLAYER_X))
local pad = joypad.get(1)
check("joypad.get right", pad.right == true and pad.A == false and pad.left == false, tostring(pad.right))
local down = joypad.getdown(1)
check("getdown", down.right == true and down.A == nil, tostring(down.A))
local up = joypad.getup(1)
check("getup", up.right == nil and up.A == false, tostring(up.right))

for i = 1, 10 do
  joypad.set(1, {A = math.mod(i, 2) == 1})
  emu.frameadvance()
end
check("A presses", memory.readbyte(A_PRESSES) == 5, memory.readbyte(A_PRESSES))
check("registerwrite values", table.getn(a_writes) == 5 and a_writes[5] == 5, table.getn(a_writes))

joypad.write(1, {B = "invert"})
emu.frameadvance()
check("B inverted on", memory.readbyte(B_HELD) == 1, memory.readbyte(B_HELD))
check("joypad.read B", joypad.read(1).B == true)
joypad.set(1, {B = false, A = nil})
emu.frameadvance()
check("B off", memory.readbyte(B_HELD) == 0, memory.readbyte(B_HELD))

-- Words, signed bytes, mirrors and ranges.
local counter = memory.readword(0x0000)
check("readword", counter == memory.readbyte(0) + memory.readbyte(1) * 256, counter)
check("readword two addresses", memory.readword(0x0003, 0x0004) == memory.readbyte(3) + 256 * memory.readbyte(4))
memory.writebyte(SCRATCH, 200)
memory.writebyte(SCRATCH + 1, 0xFF)
check("writebyte", memory.readbyte(SCRATCH) == 200)
check("readbytesigned", memory.readbytesigned(SCRATCH) == -56, memory.readbytesigned(SCRATCH))
check("mirror", memory.readbyte(SCRATCH + 0x0800) == 200)
check("readwordsigned", memory.readwordsigned(SCRATCH) == -56, memory.readwordsigned(SCRATCH))
check("readbyterange", memory.readbyterange(SCRATCH, 2) == string.char(200, 255))
memory.writebyte(PLAYER_X, 50)
emu.frameadvance()
check("write moved the player", memory.readbyte(PLAYER_X) == 50, memory.readbyte(PLAYER_X))

-- Savestates: an anonymous object, a numbered one, and the data registersave attaches.
local state = savestate.create()
savestate.save(state)
local saved_x = memory.readbyte(PLAYER_X)
for i = 1, 5 do
  joypad.set(1, {right = true})
  emu.frameadvance()
end
check("moved before load", memory.readbyte(PLAYER_X) == saved_x + 5)
savestate.load(state)
check("state restored", memory.readbyte(PLAYER_X) == saved_x, memory.readbyte(PLAYER_X))
check("registerload data", loaded_data == "hello42", loaded_data)
local slot = savestate.object(2)
savestate.save(slot)
memory.writebyte(PLAYER_X, 7)
savestate.load(slot)
check("slot restored", memory.readbyte(PLAYER_X) == saved_x, memory.readbyte(PLAYER_X))

-- bit and FCEUX's bit globals.
check("band", bit.band(0xF0, 0x3C) == 0x30)
check("bor", bit.bor(1, 2, 4) == 7)
check("bxor", bit.bxor(0xFF, 0x0F) == 0xF0)
check("lshift", bit.lshift(1, 4) == 16)
check("rshift", bit.rshift(-1, 28) == 15)
check("arshift", bit.arshift(-16, 2) == -4)
check("bnot", bit.bnot(0) == -1)
check("tobit", bit.tobit(0xFFFFFFFF) == -1)
check("tohex", bit.tohex(255, 4) == "00ff" and bit.tohex(255, -2) == "FF", bit.tohex(255, 4))
check("AND", AND(0xFF, 0x0F) == 15)
check("OR", OR(1, 2, 4) == 7)
check("XOR", XOR(3, 1) == 2)
check("BIT", BIT(0, 3) == 9)
check("SHIFT", SHIFT(16, 2) == 4 and SHIFT(1, -3) == 8)

-- Lua 5.1 leftovers.
local a, b = unpack({1, 2})
check("unpack", a == 1 and b == 2)
check("maxn", table.maxn({1, 2, [7] = 3}) == 7)
check("pow", math.pow(2, 10) == 1024)
check("loadstring", loadstring("return 1 + 1")() == 2)
check("format %d of a float", string.format("%d/%d", 7 / 2, 3.0) == "3/3", string.format("%d/%d", 7 / 2, 3.0))
check("sub with a float", string.sub("retrolua", 1, 6 / 2) == "ret")

-- The emulator and the movie.
local f = emu.framecount()
emu.frameadvance()
check("framecount", emu.framecount() == f + 1)
check("lagcount", emu.lagcount() == 0 and emu.lagged() == false, emu.lagcount())
check("emulating", emu.emulating() == true and emu.paused() == false)
check("callbacks", before == after and before > 40 and drawn > 40, before .. " " .. after .. " " .. drawn)
check("movie", movie.mode() == nil and movie.active() == false and movie.framecount() == emu.framecount())
check("rom", rom.getfilename() == "demo", rom.getfilename())
check("input", type(input.get().xmouse) == "number")
local r, g, bl, al = gui.parsecolor("orange")
check("parsecolor", r == 255 and g == 127 and bl == 0 and al == 255)
emu.speedmode("normal")

-- gd images: a screenshot drawn back over a blacked-out picture restores it.
local shot = gui.gdscreenshot()
check("gdscreenshot", string.len(shot) == 11 + 256 * 240 * 4, string.len(shot))
gui.box(0, 8, 255, 231, "black", "black")
check("blacked out", gui.getpixel(200, 150) == 0)
gui.gdoverlay(0, 0, shot)
local gr, gg, gb = gui.getpixel(200, 150)
local er, eg, eb = emu.getscreenpixel(200, 150)
check("gdoverlay", gr == er and gg == eg and gb == eb, gr .. "," .. gg .. "," .. gb)

-- Drawing: the last frame keeps these for the screenshot.
gui.box(10, 30, 40, 50, 0x00FF00FF, "blue")
gui.text(60, 30, "HP " .. 100, "red")
gui.text(60, 42, 12345)
gui.line(0, 60, 50, 60, "#FFFF00")
gui.pixel(5, 70, {255, 0, 255})
gui.drawrect(100.4, 30.6, 120.7, 50.2, "clear", "white")
gui.opacity(0.5)
gui.box(130, 30, 150, 50, "white", "white")
gui.opacity(1)
local r1, g1, b1 = gui.getpixel(20, 40)
check("box fill", r1 == 0 and g1 == 255 and b1 == 0, r1 .. "," .. g1 .. "," .. b1)
local r2, g2, b2 = gui.getpixel(10, 30)
check("box outline", r2 == 0 and g2 == 0 and b2 == 255, r2 .. "," .. g2 .. "," .. b2)
local r3, g3, b3 = gui.getpixel(25, 60)
check("line", r3 == 255 and g3 == 255 and b3 == 0)
local r4 = gui.getpixel(140, 40)
check("opacity", r4 > 100 and r4 < 250, r4)
local sr, sg, sb, palette = emu.getscreenpixel(20, 40)
check("screen pixel is the game's", sb > 200 and type(palette) == "number", sb)

emu.message(string.format("fceux ram watch: %d checks", checks))
print(string.format("fceux ram watch: %d checks, %d failed", checks, failures))
emu.exit(0)
