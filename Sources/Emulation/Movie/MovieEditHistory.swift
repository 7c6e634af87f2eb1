/// The TAS editor's undo history: each step keeps only the frames it changed (the records between the
/// common start and the common end of the log before and after), and the markers before and after.
struct MovieEditHistory {
    struct Step {
        let name: String
        /// First changed record; the old and new records from there (the rest of both logs is equal).
        let start: Int
        let old: [UInt8]
        let new: [UInt8]
        let oldMarkers: [Int: String]
        let newMarkers: [Int: String]
    }

    /// At most this many steps are kept (the oldest are forgotten).
    static let limit = 1000
    private(set) var steps: [Step] = []
    /// Steps before this index are done; those from it on were undone (redo takes them back).
    private(set) var position = 0
    /// The log and markers when `begin` opened a group, and its name.
    var group: (log: InputLog, markers: [Int: String], name: String)?

    var canUndo: Bool { position > 0 }
    var canRedo: Bool { position < steps.count }
    var undoName: String? { canUndo ? steps[position - 1].name : nil }

    /// Records the change from `before` to `after` as a step; returns its first changed frame (nil: none).
    mutating func record(
        _ name: String, before: InputLog, after: InputLog, markers oldMarkers: [Int: String],
        _ newMarkers: [Int: String]
    ) -> Int? {
        guard let (start, old, new) = Self.difference(before, after) else {
            guard oldMarkers != newMarkers else { return nil }
            push(Step(name: name, start: 0, old: [], new: [], oldMarkers: oldMarkers, newMarkers: newMarkers))
            return changedMarker(oldMarkers, newMarkers)
        }
        push(Step(name: name, start: start, old: old, new: new, oldMarkers: oldMarkers, newMarkers: newMarkers))
        return start / before.stride
    }

    private mutating func push(_ step: Step) {
        steps.removeSubrange(position...)
        steps.append(step)
        if steps.count > Self.limit { steps.removeFirst(steps.count - Self.limit) }
        position = steps.count
    }

    /// Undoes the last step on `log` and `markers`; returns its first changed frame (nil: nothing to undo).
    mutating func undo(_ log: inout InputLog, _ markers: inout [Int: String]) -> Int? {
        guard canUndo else { return nil }
        position -= 1
        let step = steps[position]
        return apply(step, replacing: step.new.count, with: step.old, markers: step.oldMarkers, &log, &markers)
    }

    mutating func redo(_ log: inout InputLog, _ markers: inout [Int: String]) -> Int? {
        guard canRedo else { return nil }
        let step = steps[position]
        position += 1
        return apply(step, replacing: step.old.count, with: step.new, markers: step.newMarkers, &log, &markers)
    }

    private func apply(
        _ step: Step, replacing count: Int, with records: [UInt8], markers new: [Int: String],
        _ log: inout InputLog, _ markers: inout [Int: String]
    ) -> Int {
        var bytes = log.bytes
        bytes.replaceSubrange(step.start..<step.start + count, with: records)
        log = InputLog(ports: log.ports, analog: log.analog, bytes: bytes) ?? log
        let frame = step.old.isEmpty && step.new.isEmpty ? changedMarker(markers, new) : step.start / log.stride
        markers = new
        return frame
    }

    private func changedMarker(_ a: [Int: String], _ b: [Int: String]) -> Int {
        Set(a.keys).symmetricDifference(b.keys).union(a.keys.filter { a[$0] != b[$0] }).min() ?? 0
    }

    /// The common prefix and suffix of two logs in whole records, and what lies between in each.
    static func difference(_ a: InputLog, _ b: InputLog) -> (Int, [UInt8], [UInt8])? {
        let stride = a.stride
        let x = a.bytes, y = b.bytes
        let shorter = min(x.count, y.count)
        var prefix = 0
        x.withUnsafeBufferPointer { p in
            y.withUnsafeBufferPointer { q in
                while prefix < shorter && p[prefix] == q[prefix] { prefix += 1 }
            }
        }
        if prefix == x.count && prefix == y.count { return nil }
        prefix -= prefix % stride
        var suffix = 0
        let room = shorter - prefix
        x.withUnsafeBufferPointer { p in
            y.withUnsafeBufferPointer { q in
                while suffix < room && p[x.count - 1 - suffix] == q[y.count - 1 - suffix] { suffix += 1 }
            }
        }
        suffix -= suffix % stride
        return (prefix, Array(x[prefix..<x.count - suffix]), Array(y[prefix..<y.count - suffix]))
    }
}
