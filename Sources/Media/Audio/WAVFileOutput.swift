import Foundation
import Glibc
import Libretro
import Support

/// Records the audio stream as a 16-bit stereo PCM WAV file.
///
/// Durable the project's way (see `DurableFile`): samples go to `DurableFile.temporaryPath(for: path)`; `close()` writes
/// the real sizes into the RIFF header, fsyncs, renames into place and fsyncs the folder, so `path`
/// is either the old file or a complete recording, never half of one. A write error (disk full) is
/// remembered, later samples are dropped, and `close()` reports it and removes the temporary file.
///
/// It consumes everything at once (`isRealTime` is false): a pipeline feeding only a WAV file
/// converts at the nominal ratio, so a headless recording is the same on every run.
public final class WAVFileOutput: AudioOutput {
    public let path: String
    public let sampleRate: Int
    /// Stereo frames written so far.
    public private(set) var framesWritten = 0
    private let temporaryPath: String
    private var file: UnsafeMutablePointer<FILE>?
    private var failure: String?

    /// A WAV data chunk's size is 32 bits; the header adds 36 bytes to it.
    private static let maxDataBytes = Int(UInt32.max) - 36

    public init(path: String, sampleRate: Int) throws(RetroError) {
        self.path = path
        self.sampleRate = sampleRate
        temporaryPath = DurableFile.temporaryPath(for: path)
        do { try DurableFile.prepare(path) } catch { throw RetroError(error) }
        guard let file = fopen(temporaryPath, "wbe") else {
            throw .fileWrite(path: path, reason: String(cString: strerror(errno)))
        }
        self.file = file
        // Placeholder sizes, fixed up by close().
        writeHeader(dataBytes: 0)
        if failure != nil { throw .fileWrite(path: path, reason: failure!) }
    }

    /// A recording never closed explicitly is still finished (errors then go unreported).
    deinit {
        try? close()
    }

    public var queuedFrames: Int { 0 }
    public var isRealTime: Bool { false }
    public func setPlaying(_ playing: Bool) {}
    public func clear() {}

    public func queue(_ samples: UnsafeBufferPointer<Int16>) {
        guard let file, failure == nil, let base = samples.baseAddress else { return }
        let frames = samples.count / 2
        guard (framesWritten + frames) * 4 <= Self.maxDataBytes else {
            failure = "recording longer than a WAV file can hold (4 GiB)"
            return
        }
        // WAV is little-endian, like every platform this runs on.
        let written = fwrite(base, 4, frames, file)
        framesWritten += written
        if written != frames { failure = String(cString: strerror(errno)) }
    }

    /// Finishes the file: header sizes, fsync, rename into place, fsync the folder. Idempotent.
    public func close() throws(RetroError) {
        guard let file else { return }
        self.file = nil
        if failure == nil {
            if fseek(file, 0, SEEK_SET) != 0 { failure = String(cString: strerror(errno)) }
        }
        if failure == nil { writeHeader(dataBytes: framesWritten * 4, to: file) }
        if failure == nil && fflush(file) != 0 { failure = String(cString: strerror(errno)) }
        if failure == nil && fsync(fileno(file)) != 0 { failure = String(cString: strerror(errno)) }
        if fclose(file) != 0 && failure == nil { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporaryPath)
            throw .fileWrite(path: path, reason: failure)
        }
        do { try DurableFile.commit(temporaryPath, to: path) } catch { throw RetroError(error) }
    }

    private func writeHeader(dataBytes: Int) {
        guard let file else { return }
        writeHeader(dataBytes: dataBytes, to: file)
    }

    /// The canonical 44-byte header: RIFF/WAVE, a 16-byte PCM `fmt ` chunk, then `data`.
    private func writeHeader(dataBytes: Int, to file: UnsafeMutablePointer<FILE>) {
        var header = [UInt8]()
        header.reserveCapacity(44)
        func u32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { header += $0 } }
        func u16(_ value: Int) { withUnsafeBytes(of: UInt16(value).littleEndian) { header += $0 } }
        header += Array("RIFF".utf8); u32(36 + dataBytes)
        header += Array("WAVE".utf8)
        header += Array("fmt ".utf8); u32(16)
        u16(1)  // PCM
        u16(2)  // channels
        u32(sampleRate)
        u32(sampleRate * 4)  // bytes per second
        u16(4)  // bytes per frame
        u16(16)  // bits per sample
        header += Array("data".utf8); u32(dataBytes)
        if fwrite(header, 1, header.count, file) != header.count {
            failure = String(cString: strerror(errno))
        }
    }
}
