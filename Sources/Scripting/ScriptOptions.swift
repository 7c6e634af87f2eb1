import Emulation

/// How scripts run: security profile, limits, reloading.
public struct ScriptOptions: Sendable {
    /// Everything: process spawning, native modules, bytecode, the whole debug library, every file.
    public var trust = false
    /// Every file the user may open (`--allow-files`); otherwise a script reads its own folder and the
    /// lua/ folder and reads and writes `dataFolder` (lua/host/prelude.lua, Script.fileAccessProblem).
    public var allowFiles = false
    /// Loopback TCP and UDP (`--allow-net`, the `net` module); Retrolua's own defaults (netplay) reach
    /// everything. `netGrants` (`--allow-net=HOST[:PORT],…`) adds the addresses they name
    /// (`NetworkPermission`).
    public var allowNet = false
    public var netGrants: [NetworkPermission.Grant] = []
    /// `--netplay`: the session the netplay default starts (its request, read with `net.netplay()`).
    public var netplay: NetplayRequest?
    /// A failing script ends the run (exit status 1) instead of being unloaded.
    public var strict = false
    /// Reload a script when its file changes.
    public var watch = false
    /// Per-script memory cap in bytes.
    public var memoryLimit = 256 << 20
    /// VM instructions a script may run before returning to the emulator (about a second of Lua).
    public var instructionBudget = 200_000_000
    /// Where sandboxed scripts may also read and write.
    public var dataFolder: String
    /// The project's `lua/` folder, for `require("retrolua.…")`.
    public var luaFolder: String?

    public init(dataFolder: String, luaFolder: String? = HostPaths.luaFolder()) {
        self.dataFolder = dataFolder
        self.luaFolder = luaFolder
    }
}
