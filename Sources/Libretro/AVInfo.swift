import CLibretro

/// What `retro_get_system_info` says about a core, copied out of C memory.
public struct SystemInfo: Sendable, Equatable {
    public var libraryName: String
    public var libraryVersion: String
    public var validExtensions: [String]
    public var needFullpath: Bool
    public var blockExtract: Bool

    init(_ raw: retro_system_info) {
        libraryName = raw.library_name.map { String(cString: $0) } ?? "unknown"
        libraryVersion = raw.library_version.map { String(cString: $0) } ?? ""
        validExtensions = (raw.valid_extensions.map { String(cString: $0) } ?? "")
            .split(separator: "|").map { $0.lowercased() }
        needFullpath = raw.need_fullpath
        blockExtract = raw.block_extract
    }
}

/// Video geometry and timing, as the core last reported them.
public struct AVInfo: Sendable, Equatable {
    public var baseWidth: Int
    public var baseHeight: Int
    public var maxWidth: Int
    public var maxHeight: Int
    /// Display aspect ratio; derived from the base size when the core gives none.
    public var aspectRatio: Double
    public var fps: Double
    public var sampleRate: Double

    init(_ raw: retro_system_av_info) {
        baseWidth = Int(raw.geometry.base_width)
        baseHeight = Int(raw.geometry.base_height)
        maxWidth = Int(raw.geometry.max_width)
        maxHeight = Int(raw.geometry.max_height)
        aspectRatio = AVInfo.aspect(Double(raw.geometry.aspect_ratio), baseWidth, baseHeight)
        (baseWidth, baseHeight, maxWidth, maxHeight) = (
            AVInfo.side(baseWidth), AVInfo.side(baseHeight), AVInfo.side(maxWidth), AVInfo.side(maxHeight)
        )
        // Timing feeds divisions and integer conversions: a core's nonsense becomes the usual values.
        fps = raw.timing.fps.isFinite && raw.timing.fps >= 1 && raw.timing.fps <= 1000 ? raw.timing.fps : 60
        let rate = raw.timing.sample_rate
        sampleRate = rate.isFinite && rate >= 1000 && rate <= 1_000_000 ? rate : 48000
    }

    mutating func apply(geometry raw: retro_game_geometry) {
        baseWidth = Int(raw.base_width)
        baseHeight = Int(raw.base_height)
        // SET_GEOMETRY may not grow the maximum, but cores that do anyway must not overflow our buffers.
        maxWidth = max(maxWidth, Int(raw.max_width), baseWidth)
        maxHeight = max(maxHeight, Int(raw.max_height), baseHeight)
        aspectRatio = AVInfo.aspect(Double(raw.aspect_ratio), baseWidth, baseHeight)
        (baseWidth, baseHeight, maxWidth, maxHeight) = (
            AVInfo.side(baseWidth), AVInfo.side(baseHeight), AVInfo.side(maxWidth), AVInfo.side(maxHeight)
        )
    }

    /// Sizes past the largest believable frame side are clamped: windows and buffers follow them.
    static func side(_ value: Int) -> Int { min(value, 16384) }

    static func aspect(_ given: Double, _ width: Int, _ height: Int) -> Double {
        if given.isFinite && given > 0.01 && given < 100 { return given }
        return height > 0 ? Double(width) / Double(height) : 4.0 / 3.0
    }
}
