-- Found by scripts/fuzz lua-api: emu.save_data with a 70,000-byte name took seconds (the temporary name was
-- shortened a character at a time, recounting each time) and hit the hard deadline; paths with thousands of
-- trailing slashes did the same. Both are one pass now; the long name is refused by the file system.
local ok, message = emu.save_data(string.rep("x", 70000), "abc")
console.log("long", ok, message ~= nil)
console.log("slashes", (pcall(emu.save_data, "a" .. string.rep("/", 70000), "abc")))
