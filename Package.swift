// swift-tools-version:6.0
import PackageDescription

// Layers: C module maps and shims → Support (files, hashes, rewind history) → Libretro (no SDL, no Lua)
// and Media → Emulation (the emulator and its rules; no Lua, no SDL) → Scripting, Control, Frontend (the doors)
// → Run (assembly) → retrolua CLI.
// `scripts/lint` checks that every target declares what it imports.
let package = Package(
    name: "Retrolua",
    products: [
        .executable(name: "retrolua", targets: ["retrolua"]),
        // The trainer's side of the batch door, loaded by the Python package (python/retrolua/_native.py).
        .library(name: "RetroluaBatch", type: .dynamic, targets: ["RetroluaBatch"]),
    ],
    targets: [
        // System libraries, all from Debian packages (docs/reference/dependencies.md).
        .systemLibrary(name: "CLua", pkgConfig: "lua5.4", providers: [.apt(["liblua5.4-dev"])]),
        // No pkg-config: sdl2's -D_REENTRANT is a flag SwiftPM refuses with a warning (shim.h has <SDL2/SDL.h>).
        .systemLibrary(name: "CSDL2", providers: [.apt(["libsdl2-dev"])]),
        .systemLibrary(name: "CSampleRate", pkgConfig: "samplerate", providers: [.apt(["libsamplerate0-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        .systemLibrary(name: "CZip", pkgConfig: "libzip", providers: [.apt(["libzip-dev"])]),
        .systemLibrary(name: "CLibretro", providers: [.apt(["retroarch-dev"])]),
        // EGL (offscreen contexts, no display) and OpenGL through glvnd, for hardware-rendered cores: headers
        // only; CGLLoader loads the system's libraries when such a core first runs, so the binary links no GL.
        .systemLibrary(name: "CGL", providers: [.apt(["libegl-dev", "libgl-dev", "libegl-mesa0"])]),

        // C glue Swift cannot express: the variadic libretro log callback, SIMD pixel conversion.
        .target(name: "CRetroShim", dependencies: ["CLibretro"]),
        // The EGL and GL functions Media calls, forwarded to the system's libraries loaded at first use.
        .target(name: "CGLLoader"),
        // C glue for Lua: macro wrappers, the raising trampoline, pcall with traceback, limits.
        .target(name: "CLuaShim", dependencies: ["CLua"]),
        // C glue for Debian's libedit (BSD-licensed line editing, libedit-dev): its el_set is variadic.
        .target(name: "CLineEdit", linkerSettings: [.linkedLibrary("edit")]),
        // The trainer's per-batch work (post, wait, replies and infos into arrays): C the Python package loads.
        .target(name: "RetroluaBatch"),

        // What any layer may use and nothing libretro-specific: durable writes, hashes, the rewind history.
        .target(name: "Support", dependencies: ["CZlib", "CCrypto", "CZstd", "CZip"]),
        .target(name: "Libretro", dependencies: ["Support", "CLibretro", "CRetroShim"]),
        .target(
            name: "Media", dependencies: ["Support", "Libretro", "CPNG", "CSDL2", "CSampleRate", "CGL", "CGLLoader"]),
        .target(name: "LuaRuntime", dependencies: ["CLua", "CLuaShim"]),
        // The emulator every door drives: session, frame loop, input layers, states, movies, cheats, rules.
        .target(name: "Emulation", dependencies: ["Support", "Libretro", "CZlib", "CZstd"]),
        // The doors and the run, one target each so their arrows point one way (scripts/lint checks the imports):
        // Scripting (the script host and the Lua bindings) and Control (the socket doors) and Frontend (the loop
        // around the window and devices) each hold the Emulator; Run assembles them and alone sees them all.
        .target(
            name: "Scripting",
            dependencies: ["Emulation", "Support", "Libretro", "Media", "LuaRuntime", "CLua", "CLuaShim"]),
        .target(name: "Control", dependencies: ["Emulation", "Support", "Libretro", "CRetroShim"]),
        .target(
            name: "Frontend",
            dependencies: ["Emulation", "Support", "Libretro", "Media", "LuaRuntime", "CLua", "CLuaShim"]),
        .target(
            name: "Run",
            dependencies: [
                "Scripting", "Control", "Frontend", "Emulation", "Support", "Libretro", "Media", "CLuaShim",
            ]),
        // The console's terminal side (`retrolua attach`, `run --console`): line editing and a client of the
        // control socket's `console` request; it knows no emulator.
        .target(name: "Attach", dependencies: ["Support", "CLineEdit"]),
        .executableTarget(
            name: "retrolua",
            dependencies: [
                "Run", "Scripting", "Control", "Frontend", "Attach", "Emulation", "Support", "Libretro", "Media",
            ]),

        .testTarget(name: "SupportTests", dependencies: ["Support"]),
        .testTarget(name: "LibretroTests", dependencies: ["Libretro", "CLibretro"]),
        .testTarget(name: "MediaTests", dependencies: ["Media", "Libretro", "CSDL2"]),
        // FuzzRegressions: inputs the fuzzers found, read by path at run time.
        .testTarget(
            // CLuaShim: tests shorten the watchdog's deadlines (lh_set_deadlines) to reach them quickly.
            name: "HostTests",
            dependencies: [
                "Run", "Scripting", "Control", "Frontend", "Emulation", "Support", "Libretro", "Media", "CLuaShim",
            ],
            exclude: ["FuzzRegressions"]),
    ],
    swiftLanguageModes: [.v6]
)

// Fuzz targets (Fuzz/, libFuzzer): declared only for scripts/fuzz (RETROLUA_FUZZ=1), so ordinary builds skip them.
if Context.environment["RETROLUA_FUZZ"] == "1" {
    package.targets.append(
        .executableTarget(
            name: "RetroluaFuzz",
            dependencies: ["Emulation", "Run", "Scripting", "Control", "Frontend", "Libretro", "Media", "Support"],
            path: "Fuzz/RetroluaFuzz",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]))
    package.products.append(.executable(name: "RetroluaFuzz", targets: ["RetroluaFuzz"]))
}
