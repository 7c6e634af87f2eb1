-- FCEUX style: a subtitle and input recorder that keeps its files beside itself (relative names), appends a line
-- a frame, then reads its own file back and renames it, as recorder scripts do when they finish a take.
local out = assert(io.open("take.srt", "w"))
for frame = 1, 5 do
  out:write(string.format("%d\nframe %d pad %d\n\n", frame, emu.framecount(), joypad.get(1).A and 1 or 0))
  emu.frameadvance()
end
out:close()
local log = assert(io.open("logs/take.log", "a"))
log:write("take done\n")
log:close()
local count = 0
for line in io.lines("take.srt") do
  if line:find("^frame ") then count = count + 1 end
end
local moved, why = os.rename("take.srt", "take-final.srt")
print("recorder: " .. count .. " subtitles, renamed " .. tostring(moved) .. " " .. tostring(why))
-- A write outside every folder the script may write is still refused: nil and a message, not an error.
local refused, message = os.rename("take-final.srt", "/proc/take.srt")
print("outside: " .. tostring(refused) .. " " .. tostring(message))
local f = io.open("settings.lua", "w")
f:write("return { speed = 3 }")
f:close()
print("settings speed " .. dofile("settings.lua").speed)
-- FCEUX's own file functions write there too: a screenshot and a state file, loaded back.
print("screenshot " .. tostring(gui.savescreenshotas("shots/end.png")))
local state = savestate.create("take.state")
savestate.save(state)
print("state loaded " .. tostring(savestate.load(state)))
