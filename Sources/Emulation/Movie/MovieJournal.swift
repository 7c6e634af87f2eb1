import Dispatch
import Foundation
import Support
import Glibc
import Libretro

/// A recording's journal beside its target (`MOVIE.rlm.journal`), so a crash, a kill or a power loss
/// costs at most the last second of a recording: the movie's header as a `.rlm` (with its start
/// state), then what happened to it as lines (docs/reference/file-formats.md, "Movie journals"). Appended
/// once a second of emulated time and after every rerecord, fsynced at most once a second of wall time
/// (which only paces the disk, never the emulation); removed once the movie is saved normally.
/// `retrolua movie recover` turns a journal into a movie.
public final class MovieJournal {
    static let magic = "retrolua-movie-journal 1"
    let path: String
    private var fd: Int32
    /// What the journal holds: the log's records, the verification hashes and the rerecord count.
    private var journaledLog: [UInt8]
    private var journaledHashes: Int
    private var journaledRerecords: Int
    private let interval: Int
    private var framesUntilAppend: Int
    private var lastSync = DispatchTime.now().uptimeNanoseconds
    private var unsynced = false
    /// Set once a write failed: the recording goes on in memory, reported once.
    private(set) var failure: String?

    public static func path(for target: String) -> String { target + ".journal" }

    /// Refuses a recording that could not be saved or journaled, before anything runs.
    static func checkTarget(_ target: String) throws(MovieError) {
        // The same test every output of a run passes (regular file or none, a folder that can be written).
        do { try DurableFile.checkWritable(target) } catch {
            throw MovieError("cannot record to \(target): \(error.reason)")
        }
        let folder = FilePath.folder(of: target)
        if !FileManager.default.fileExists(atPath: folder) {
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        let journal = path(for: target)
        if FileManager.default.fileExists(atPath: journal) {
            throw MovieError(
                """
                cannot record to \(target): \(journal) exists (a recording that did not finish); \
                `retrolua movie recover \(journal)` turns it into a movie, or remove it
                """
            )
        }
    }

    /// Creates the journal and writes the movie as it starts, durably.
    init(target: String, movie: Movie, framesPerSecond: Double) throws(MovieError) {
        path = Self.path(for: target)
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw MovieError("cannot record to \(target): cannot create \(path) (\(String(cString: strerror(errno))))")
        }
        journaledLog = movie.log.bytes
        journaledHashes = movie.ramHashes.count
        journaledRerecords = movie.rerecords
        interval = max(1, Int(exactly: framesPerSecond.rounded()) ?? 60)
        framesUntilAppend = interval
        var header = Array((Self.magic + "\n").utf8)
        header += MovieText.encode(movie)
        guard append(header), fsync(fd) == 0 else {
            let reason = failure ?? String(cString: strerror(errno))
            close(fd)
            unlink(path)
            throw MovieError("cannot record to \(target): cannot write \(path) (\(reason))")
        }
        Self.syncFolder(of: path)
    }

    deinit { if fd >= 0 { close(fd) } }

    /// After each recorded frame: the new frames go out once a second of emulated time.
    func frameRecorded(_ movie: Movie) {
        framesUntilAppend &-= 1
        if framesUntilAppend <= 0 { record(movie) }
        if unsynced && DispatchTime.now().uptimeNanoseconds &- lastSync >= 1_000_000_000 { sync() }
    }

    /// Appends what changed since the last append: a truncation where the log now differs (a rerecord,
    /// an edit), the frames from there, the rerecord count, dropped verification hashes.
    func record(_ movie: Movie) {
        framesUntilAppend = interval
        guard fd >= 0, failure == nil else { return }
        let log = movie.log.bytes, stride = movie.log.stride
        let kept = Self.commonFrames(journaledLog, log, stride: stride)
        var out = ""
        if kept * stride < journaledLog.count {
            out += "t \(kept)\n"
            journaledHashes = min(journaledHashes, kept)
        }
        if movie.ramHashes.count < journaledHashes {
            out += "h \(movie.ramHashes.count)\n"
            journaledHashes = movie.ramHashes.count
        }
        if movie.rerecords != journaledRerecords { out += "r \(movie.rerecords)\n" }
        let frames = log.count / stride
        for frame in kept..<max(kept, frames) {
            out += "f \(frame) "
            for byte in log[frame * stride..<(frame + 1) * stride] { out += Self.hex(byte) }
            if frame < movie.ramHashes.count { out += String(format: " %08x", movie.ramHashes[frame]) }
            out += "\n"
        }
        guard !out.isEmpty else { return }
        guard append(Array(out.utf8)) else { return }
        journaledLog = log
        journaledHashes = min(movie.ramHashes.count, frames)
        journaledRerecords = movie.rerecords
        unsynced = true
        if DispatchTime.now().uptimeNanoseconds &- lastSync >= 1_000_000_000 { sync() }
    }

    /// The movie was saved: the journal is no longer needed.
    func remove() {
        if fd >= 0 { close(fd) }
        fd = -1
        unlink(path)
        Self.syncFolder(of: path)
    }

    private func sync() {
        if fsync(fd) != 0 && failure == nil { failure = "\(path): \(String(cString: strerror(errno)))" }
        lastSync = DispatchTime.now().uptimeNanoseconds
        unsynced = false
    }

    private func append(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                failure = "\(path): \(String(cString: strerror(errno)))"
                return false
            }
            offset += written
        }
        return true
    }

    /// Whole frames two logs share from the start (one memcmp when the older is a prefix of the newer).
    static func commonFrames(_ old: [UInt8], _ new: [UInt8], stride: Int) -> Int {
        let shared = min(old.count, new.count)
        if shared == 0 { return 0 }
        let same = old.withUnsafeBytes { a in
            new.withUnsafeBytes { b in memcmp(a.baseAddress!, b.baseAddress!, shared) }
        }
        if same == 0 { return shared / stride }
        var index = 0
        while index < shared && old[index] == new[index] { index += 1 }
        return index / stride
    }

    public static func syncFolder(of path: String) {
        let folder =
            FilePath.folder(of: path)
        let folderFD = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderFD >= 0 {
            fsync(folderFD)
            close(folderFD)
        }
    }

    private static let digits = Array("0123456789abcdef")
    private static func hex(_ byte: UInt8) -> String {
        String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }
}

extension Movie {
    /// The logged buttons plus any button the log presses that they miss (what a saved movie lists).
    func coveredButtons() -> [RetroPadButton] {
        var used: UInt16 = 0
        for index in 0..<length {
            let input = log.input(at: index)
            for port in 0..<log.ports { used |= input.buttons[port] }
        }
        let listed = Set(buttons)
        return RetroPadButton.standardOrder.filter { listed.contains($0) || used & (1 << UInt16($0.rawValue)) != 0 }
    }
}
