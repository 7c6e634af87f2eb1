import Libretro

/// The TAS editor's edits of the movie: buttons, inserted, deleted and cloned frames, markers; each one
/// undo step, or a group of them between `beginEdit` and `endEdit`. Every edit drops the greenzone after
/// its first changed frame and reports that frame (the `movie_changed` event).
extension MovieEngine {
    /// The most frames one edit may insert (a movie of a day at 60 fps; a bad count must not allocate gigabytes).
    public static let maxInsert = 5_184_000

    /// Opens a group: edits until `endEdit` are one undo step named `name`.
    public func beginEdit(_ name: String) throws(MovieError) {
        guard let movie else { throw MovieError("no movie is active") }
        guard history.group == nil else { throw MovieError("changes are already being gathered (apply them first)") }
        history.group = (movie.log, movie.markers, name)
    }

    public var editing: Bool { history.group != nil }

    /// Closes the group: its edits become one undo step (or are thrown away with `cancel`). Returns the
    /// first changed frame, nil when nothing changed.
    public func endEdit(cancel: Bool = false) -> Int? {
        guard let group = history.group else { return nil }
        history.group = nil
        guard movie != nil else { return nil }
        if cancel {
            let first = MovieEditHistory.difference(group.log, movie!.log)?.0 ?? 0
            movie!.log = group.log
            movie!.markers = group.markers
            edited(from: first / group.log.stride)
            return nil
        }
        return history.record(group.name, before: group.log, after: movie!.log, markers: group.markers, movie!.markers)
    }

    /// Runs `change` on the movie as one edit (its own undo step unless a group is open); returns the first
    /// changed frame, or nil when nothing changed.
    func edit(_ name: String, _ change: (inout Movie) throws(MovieError) -> Void) throws(MovieError) -> Int? {
        guard var changed = movie else { throw MovieError("no movie is active") }
        let before = changed
        try change(&changed)
        let first: Int?
        if history.group != nil {
            first =
                MovieEditHistory.difference(before.log, changed.log).map { $0.0 / before.log.stride }
                ?? (before.markers == changed.markers ? nil : 0)
        } else {
            first = history.record(
                name, before: before.log, after: changed.log, markers: before.markers, changed.markers)
        }
        movie = changed
        if let first { didEdit(from: first, inputChanged: before.log != changed.log) }
        return first
    }

    private func didEdit(from frame: Int, inputChanged: Bool) {
        guard inputChanged, movie != nil else { return }
        if movie!.ramHashes.count > frame { movie!.ramHashes.removeSubrange(frame...) }
        edited(from: frame)
        hasUnsavedChanges = true
        // A recording at a frame before the end would cut the movie there: it plays on to the end instead.
        setModeAt(self.frame)
    }

    /// Sets or clears `buttons` of `port` (0-based) on frames `frames`.
    public func setButtons(
        _ frames: Range<Int>, port: Int, _ buttons: [(RetroPadButton, Bool)]
    ) throws(MovieError) -> Int? {
        try edit("input") { movie throws(MovieError) in
            try Self.check(frames, in: movie, allowEnd: true)
            guard port >= 0, port < movie.log.ports else { throw MovieError("the movie logs \(movie.log.ports) ports") }
            for frame in frames {
                var input = frame < movie.length ? movie.log.input(at: frame) : InputState()
                let flags = frame < movie.length ? movie.log.flags(at: frame) : []
                for (button, on) in buttons { input.set(button, on, port: port) }
                movie.log.set(frame, input: input, flags: flags)
            }
        }
    }

    /// Inserts `count` frames before `frame`: empty ones, or copies of `copies` (repeated as needed).
    public func insertFrames(at frame: Int, count: Int, copies: Range<Int>? = nil) throws(MovieError) -> Int? {
        try edit(copies == nil ? "insert" : "clone") { movie throws(MovieError) in
            try Self.check(frame..<frame, in: movie, allowEnd: true)
            guard count > 0, count <= Self.maxInsert else { throw MovieError("count must be 1…\(Self.maxInsert)") }
            let stride = movie.log.stride
            var records: [UInt8]
            if let copies {
                try Self.check(copies, in: movie, allowEnd: false)
                guard !copies.isEmpty else { throw MovieError("nothing to clone") }
                let source = Array(movie.log.bytes[copies.lowerBound * stride..<copies.upperBound * stride])
                records = []
                records.reserveCapacity(count * stride)
                while records.count < count * stride { records += source.prefix(count * stride - records.count) }
            } else {
                records = [UInt8](repeating: 0, count: count * stride)
            }
            // Lag is an outcome of running, not input: copies start without it.
            for index in Swift.stride(from: 0, to: records.count, by: stride) {
                records[index] &= ~MovieFrameFlags.lag.rawValue
            }
            var bytes = movie.log.bytes
            bytes.insert(contentsOf: records, at: frame * stride)
            movie.log = InputLog(ports: movie.log.ports, analog: movie.log.analog, bytes: bytes) ?? movie.log
            movie.markers = Self.shifted(movie.markers, from: frame, by: count)
        }
    }

    /// Deletes frames `frames` (markers on them go, later ones move up).
    public func deleteFrames(_ frames: Range<Int>) throws(MovieError) -> Int? {
        try edit("delete") { movie throws(MovieError) in
            try Self.check(frames, in: movie, allowEnd: false)
            let stride = movie.log.stride
            var bytes = movie.log.bytes
            bytes.removeSubrange(frames.lowerBound * stride..<frames.upperBound * stride)
            movie.log = InputLog(ports: movie.log.ports, analog: movie.log.analog, bytes: bytes) ?? movie.log
            var markers = movie.markers.filter { !frames.contains($0.key) }
            markers = Self.shifted(markers, from: frames.upperBound, by: -frames.count)
            movie.markers = markers
        }
    }

    /// Releases every button (and drops the commands) of frames `frames`.
    public func clearFrames(_ frames: Range<Int>) throws(MovieError) -> Int? {
        try edit("clear") { movie throws(MovieError) in
            try Self.check(frames, in: movie, allowEnd: false)
            for frame in frames {
                movie.log.set(frame, input: InputState(), flags: movie.log.flags(at: frame).intersection(.lag))
            }
        }
    }

    /// Sets (a note, possibly empty) or removes (nil) the marker of `frame`.
    public func setMarker(_ frame: Int, note: String?) throws(MovieError) -> Int? {
        try edit("marker") { movie throws(MovieError) in
            guard frame >= 0, frame <= movie.length else {
                throw MovieError("frame \(frame) is outside the movie (0…\(movie.length))")
            }
            guard (note?.utf8.count ?? 0) <= 4096 else { throw MovieError("a marker's note is at most 4096 bytes") }
            movie.markers[frame] = note.map(MovieText.oneLine)
        }
    }

    /// Undoes (or redoes) the last edit step; returns its first changed frame, nil when there is none.
    public func undo(redo: Bool = false) -> Int? {
        guard movie != nil, history.group == nil else { return nil }
        let before = movie!.log
        var log = movie!.log, markers = movie!.markers
        let frame = redo ? history.redo(&log, &markers) : history.undo(&log, &markers)
        guard let frame else { return nil }
        movie!.log = log
        movie!.markers = markers
        didEdit(from: frame, inputChanged: before != log)
        hasUnsavedChanges = true
        return frame
    }

    public var canUndo: Bool { history.canUndo }
    public var canRedo: Bool { history.canRedo }

    /// Frames of the movie (`allowEnd`: from its end on too, written one after another, which appends).
    private static func check(_ frames: Range<Int>, in movie: Movie, allowEnd: Bool) throws(MovieError) {
        let fits =
            allowEnd
            ? frames.lowerBound >= 0 && frames.lowerBound <= movie.length
                && frames.upperBound <= movie.length &+ maxInsert
            : frames.lowerBound >= 0 && frames.upperBound <= movie.length
        guard fits else {
            // An empty range is a place between frames (where frames go in).
            if frames.isEmpty {
                throw MovieError("frame \(frames.lowerBound) is outside the movie (0…\(movie.length))")
            }
            throw MovieError(
                "frames \(frames.lowerBound)…\(frames.upperBound &- 1) are outside the movie (\(movie.length) frames)")
        }
    }

    private static func shifted(_ markers: [Int: String], from frame: Int, by delta: Int) -> [Int: String] {
        Dictionary(markers.map { ($0.key >= frame ? $0.key &+ delta : $0.key, $0.value) }) { first, _ in first }
    }
}
