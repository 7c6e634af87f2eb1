import CZlib
import Libretro

/// What a movie's verification hashes cover: the game's system RAM when the core exposes it, else every
/// RAM-like block it exposes (save RAM, video RAM, the memory map's writable blocks), else the picture.
/// Recorded in the movie's header (`verify-covers`), so a replay hashes the same things.
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
        case .systemRAM: return core.systemRAM()
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
        case .frame: return "the picture (the core exposes no memory)"
        }
    }

    /// CRC-32 of what `cover` covers after this frame.
    func hash(_ cover: VerificationCover) -> UInt32 {
        var crc: uLong = 0
        if cover == .frame {
            guard let frame = session.core.lastFrameBuffer else { return 0 }
            let row = frame.width * session.core.pixelFormat.bytesPerPixel
            for line in 0..<frame.height {
                let start = (frame.data + line * frame.pitch).assumingMemoryBound(to: Bytef.self)
                crc = CZlib.crc32(crc, start, uInt(row))
            }
            return UInt32(truncatingIfNeeded: crc)
        }
        for block in blocks(cover) {
            crc = CZlib.crc32(crc, block.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(block.count))
        }
        return UInt32(truncatingIfNeeded: crc)
    }
}
