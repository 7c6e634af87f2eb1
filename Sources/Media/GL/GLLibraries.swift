import CGLLoader

/// The system's GL libraries, loaded when a hardware-rendering core first needs them (CGLLoader): the
/// binary links none, so it starts on machines without them and only such a core is refused there.
enum GLLibraries {
    /// Nil once the OpenGL entry points are loaded, else why not.
    static func loadGL() -> String? {
        load { gl_loader_load_gl($0, $1) }.map {
            "OpenGL is not installed (\($0)); a GL core needs libopengl0 or libgl1"
        }
    }

    /// Nil once EGL and the OpenGL entry points are loaded, else why not.
    static func loadEGL() -> String? {
        if let why = load({ gl_loader_load_egl($0, $1) }) {
            return "EGL is not installed (\(why)); a GL core without a window needs libegl1"
        }
        return loadGL()
    }

    private static func load(_ loader: (UnsafeMutablePointer<CChar>, Int) -> Int32) -> String? {
        var error = [CChar](repeating: 0, count: 256)
        let failed = error.withUnsafeMutableBufferPointer { loader($0.baseAddress!, $0.count) } != 0
        guard failed else { return nil }
        return String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
