-- Found by scripts/fuzz lua-api: memory.hash with an address near math.mininteger trapped (size - address).
local ok, message = pcall(memory.hash, nil, math.mininteger)
console.log("hash", ok, message)
