import CZlib
import Foundation
import Libretro

/// What a movie's verification hashes cover: the game's system RAM when the core exposes it, else every
/// RAM-like block it exposes (save RAM, video RAM, the memory map's writable blocks), else the picture.
/// Recorded in the movie's header (`verify-covers`), so a replay hashes the same things.
///
/// A log whose hashes never change proves nothing (mGBA 0.7 exposes GBA EWRAM as system RAM, and a
/// game that runs from IWRAM never touches it: every frame logs the same CRC, and a tampered movie
/// "verifies"). So a recording also hashes the picture while its log covers memory, and when it is
/// saved with a memory log that never changed (and a picture that did), the log becomes the picture's
/// (`verify-covers frame`), and the recording says so. A played movie whose log never changes is not
/// verified ("cannot verify", naming what it hashed); `movie convert --add-verify` writes a new log by
/// the same rule.
public enum VerificationCover: String, Sendable, CaseIterable {
    case systemRAM = "system-ram"
    case memory
    case frame

    /// The best cover this core offers (system RAM, else RAM-like memory, else the frame).
    static func best(for engine: MovieEngine) -> VerificationCover {
        if !engine.blocks(.systemRAM).isEmpty { return .systemRAM }
        if !engine.blocks(.memory).isEmpty { return .memory }
        return .frame
    }
}

extension MovieEngine {
    /// The host blocks a cover hashes (none for `.frame`: the picture is read at each hash).
    func blocks(_ cover: VerificationCover) -> [UnsafeRawBufferPointer] {
        let core = session.core
        switch cover {
        case .systemRAM:
            // Only what the console has: bytes a core over-reports past it would make every log noise.
            var left = emulator.memory.system?.systemRAMLimit ?? Int.max
            return core.systemRAM().compactMap { block in
                defer { left -= min(block.count, left) }
                return left > 0 ? UnsafeRawBufferPointer(rebasing: block.prefix(left)) : nil
            }
        case .frame: return []
        case .memory:
            var seen = Set<UnsafeRawPointer>()
            var blocks: [UnsafeRawBufferPointer] = []
            func add(_ pointer: UnsafeRawPointer, _ count: Int) {
                if count > 0, seen.insert(pointer).inserted {
                    blocks.append(UnsafeRawBufferPointer(start: pointer, count: count))
                }
            }
            // Not the RTC: it follows the wall clock.
            for id in [MemoryRegionID.saveRAM, .videoRAM] {
                if let region = core.memoryRegion(id) { add(region.pointer, region.size) }
            }
            for table in emulator.memory.buses.values.sorted(by: { $0.map.addressSpace < $1.map.addressSpace }) {
                for entry in table.map.entries where entry.writable {
                    if let base = entry.base { add(base, Int(entry.reach)) }
                }
            }
            return blocks
        }
    }

    /// What the cover hashes, in words (for the header's message and `movie verify`).
    public func describe(_ cover: VerificationCover) -> String {
        switch cover {
        case .systemRAM, .memory:
            let bytes = blocks(cover).reduce(0) { $0 + $1.count }
            return cover == .systemRAM
                ? "system RAM (\(bytes) bytes)" : "the core's RAM-like memory (\(bytes) bytes: no system RAM)"
        case .frame:
            let best = VerificationCover.best(for: self)
            return best == .frame
                ? "the picture (the core exposes no memory)"
                : "the picture (\(describe(best)) did not change while the movie was recorded)"
        }
    }

    /// The hash a recording logs for frame `index`; while the log covers memory, the picture's hash is
    /// kept beside it for `fallBackToThePicture`. A log that is not appended frame after frame (a state
    /// loaded while recording rewrote it) keeps no picture log: its earlier pictures may be another
    /// timeline's.
    func loggedHash(_ index: Int) -> UInt32 {
        let logged = ramHash()
        guard cover != .frame, var log = pictureLog else { return logged }
        pictureLog = nil  // changed in place, not copied each frame
        if log.count == index {
            log.append(hash(.frame))
            pictureLog = log
        }
        return logged
    }

    /// When a recording is saved: a memory log that never changed (over two frames or more) is
    /// replaced by the picture's log, if the picture changed; the recording goes on hashing the picture.
    func fallBackToThePicture(_ movie: inout Movie) {
        guard verifyWhileRecording, cover != .frame, let log = pictureLog, movie.ramHashes.count >= 2,
            log.count == movie.ramHashes.count, !Self.changes(movie.ramHashes), Self.changes(log)
        else { return }
        let what = describe(cover)
        movie.ramHashes = log
        movie.verifyCovers = .frame
        cover = .frame
        pictureLog = nil
        emulator.show(
            message: """
                movie: \(what) never changed in the recording's \(log.count) frames, so the verification log \
                hashes the picture instead
                """, from: "movie")
    }

    /// Why a played movie's log cannot verify anything: its hashes never change.
    func constantLogProblem(_ movie: Movie) -> String? {
        guard movie.ramHashes.count >= 2, !Self.changes(movie.ramHashes) else { return nil }
        let hint =
            cover == .frame
            ? "" : " (a new log hashes the picture: retrolua movie convert IN OUT --rom ROM --add-verify)"
        return """
            the movie's verification log hashes \(describe(cover)), which never changed in its \
            \(movie.ramHashes.count) frames (every frame logged CRC-32 \(String(format: "%08x", movie.ramHashes[0]))): \
            it cannot tell a tampered movie\(hint)
            """
    }

    /// Whether a log's hashes ever differ.
    static func changes(_ hashes: [UInt32]) -> Bool {
        guard let first = hashes.first else { return false }
        return hashes.contains { $0 != first }
    }

    /// A log written by a replay (`movie convert --add-verify`): the cover's hashes, or the picture's
    /// when those never changed and the picture did (as a recording falls back).
    public func logToKeep(hashes: [UInt32], pictures: [UInt32]) -> [UInt32] {
        guard cover != .frame, hashes.count >= 2, pictures.count == hashes.count, !Self.changes(hashes),
            Self.changes(pictures)
        else { return hashes }
        cover = .frame
        return pictures
    }

    /// This frame's hash of the cover and of the picture (a replay that writes a log).
    public func logHashes() -> (cover: UInt32, picture: UInt32) {
        (ramHash(), cover == .frame ? ramHash() : hash(.frame))
    }

    /// CRC-32 of what `cover` covers after this frame.
    func hash(_ cover: VerificationCover) -> UInt32 {
        var crc: uLong = 0
        if cover == .frame {
            guard let frame = session.core.lastFrame else { return 0 }
            for line in 0..<frame.height {
                let start = (frame.data + line * frame.pitch).assumingMemoryBound(to: Bytef.self)
                crc = CZlib.crc32(crc, start, uInt(frame.rowBytes))
            }
            return UInt32(truncatingIfNeeded: crc)
        }
        for block in blocks(cover) {
            crc = CZlib.crc32(crc, block.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(block.count))
        }
        return UInt32(truncatingIfNeeded: crc)
    }
}
