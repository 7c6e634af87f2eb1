// swift-tools-version:6.0
import PackageDescription

// Layers: C module maps and shims → Libretro (no SDL, no Lua) → Media → Emulation (no Lua) → Host → retrolua CLI.
let package = Package(
    name: "Retrolua",
    products: [
        .executable(name: "retrolua", targets: ["retrolua"]),
    ],
    targets: [
        // System libraries, all from Debian packages (see README "Dependencies").
        .systemLibrary(name: "CLua", pkgConfig: "lua5.4", providers: [.apt(["liblua5.4-dev"])]),
        .systemLibrary(name: "CSDL2", pkgConfig: "sdl2", providers: [.apt(["libsdl2-dev"])]),
        .systemLibrary(name: "CSampleRate", pkgConfig: "samplerate", providers: [.apt(["libsamplerate0-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        .systemLibrary(name: "CZip", pkgConfig: "libzip", providers: [.apt(["libzip-dev"])]),
        .systemLibrary(name: "CLibretro", providers: [.apt(["retroarch-dev"])]),

        // C glue Swift cannot express: the variadic libretro log callback.
        .target(name: "CRetroShim", dependencies: ["CLibretro"]),
        // C glue for Lua: macro wrappers, the raising trampoline, pcall with traceback, limits.
        .target(name: "CLuaShim", dependencies: ["CLua"]),

        .target(name: "Libretro", dependencies: ["CLibretro", "CRetroShim", "CZlib", "CCrypto", "CZstd"]),
        .target(name: "Media", dependencies: ["Libretro", "CPNG", "CSDL2", "CSampleRate"]),
        .target(name: "LuaRuntime", dependencies: ["CLua", "CLuaShim"]),
        // The emulator every door drives: session, frame loop, input layers, states, movies, cheats, rules.
        .target(name: "Emulation", dependencies: ["Libretro", "Media", "CZlib", "CZip", "CZstd"]),
        .target(name: "Host", dependencies: ["Emulation", "Libretro", "Media", "LuaRuntime", "CLua", "CLuaShim", "CSDL2", "CZlib"]),
        .executableTarget(name: "retrolua", dependencies: ["Host", "Emulation", "Libretro", "Media"]),

        .testTarget(name: "LibretroTests", dependencies: ["Libretro", "Media"]),
        .testTarget(name: "HostTests", dependencies: ["Host", "Emulation", "Libretro", "Media"]),
        .testTarget(name: "MediaTests", dependencies: ["Media"]),
    ],
    swiftLanguageModes: [.v6]
)
