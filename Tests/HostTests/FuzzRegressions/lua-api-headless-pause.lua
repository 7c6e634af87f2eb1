-- Found by scripts/fuzz lua-api: emu.pause() in a headless run waited forever for a frame advance.
emu.pause()
for _ = 1, 3 do emu.frameadvance() end
console.log("frames", emu.framecount())
