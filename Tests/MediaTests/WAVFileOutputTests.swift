import Foundation
import XCTest
@testable import Media

final class WAVFileOutputTests: XCTestCase {
    private var folder: String!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "retrolua-wav-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func u32(_ data: [UInt8], _ at: Int) -> Int {
        Int(data[at]) | Int(data[at + 1]) << 8 | Int(data[at + 2]) << 16 | Int(data[at + 3]) << 24
    }

    private func u16(_ data: [UInt8], _ at: Int) -> Int { Int(data[at]) | Int(data[at + 1]) << 8 }

    func testHeaderAndSamples() throws {
        let path = folder + "/sub/out.wav"
        let wav = try WAVFileOutput(path: path, sampleRate: 44100)
        let samples = stereoSine(frequency: 440, rate: 44100, frames: 1000)
        for start in stride(from: 0, to: 1000, by: 250) {
            samples.withUnsafeBufferPointer {
                wav.queue(UnsafeBufferPointer(rebasing: $0[start * 2..<(start + 250) * 2]))
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "nothing in place before close")
        XCTAssertTrue(FileManager.default.fileExists(atPath: path + ".tmp\(getpid())"))
        try wav.close()
        try wav.close()  // Idempotent.
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + ".tmp\(getpid())"))

        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        XCTAssertEqual(data.count, 44 + 4000)
        XCTAssertEqual(String(decoding: data[0..<4], as: UTF8.self), "RIFF")
        XCTAssertEqual(u32(data, 4), 36 + 4000)
        XCTAssertEqual(String(decoding: data[8..<16], as: UTF8.self), "WAVEfmt ")
        XCTAssertEqual(u32(data, 16), 16)
        XCTAssertEqual(u16(data, 20), 1, "PCM")
        XCTAssertEqual(u16(data, 22), 2, "stereo")
        XCTAssertEqual(u32(data, 24), 44100)
        XCTAssertEqual(u32(data, 28), 44100 * 4)
        XCTAssertEqual(u16(data, 32), 4)
        XCTAssertEqual(u16(data, 34), 16)
        XCTAssertEqual(String(decoding: data[36..<40], as: UTF8.self), "data")
        XCTAssertEqual(u32(data, 40), 4000)
        let body = data[44...].withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        XCTAssertEqual(body, samples)
    }

    func testEmptyAndDeinitFinish() throws {
        let path = folder + "/empty.wav"
        do { _ = try WAVFileOutput(path: path, sampleRate: 48000) }  // Released without close().
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        XCTAssertEqual(data.count, 44)
        XCTAssertEqual(u32(data, 4), 36)
        XCTAssertEqual(u32(data, 40), 0)
    }

    func testUnwritablePlaceThrows() {
        let blocker = folder + "/file"
        _ = FileManager.default.createFile(atPath: blocker, contents: Data())
        XCTAssertThrowsError(try WAVFileOutput(path: blocker + "/out.wav", sampleRate: 48000)) {
            XCTAssertTrue("\($0)".contains("out.wav"), "\($0)")
        }
    }
}
