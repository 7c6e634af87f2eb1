import Foundation
import Glibc
import XCTest

@testable import Control
@testable import Run

/// A batch lane under hostile requests, written straight into its shared memory: a request length out of
/// 32…1024, or a header whose payload length disagrees with the lane's length, is refused with a length
/// error in the lane's reply (never decoded: it was once "unknown command 0", or a WRITE claiming 5,000
/// bytes in a 132-byte lane was served), and the next good request on that lane still works.
/// (Tests/python/test_batch.py drives the same refusals through a launched emulator's serve loop.)
final class BatchLaneAbuseTests: XCTestCase {
    typealias Wire = ControlBinaryProtocol
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    /// A request header (`command, flags, payload length, count`, then `a, b`) and its payload.
    private func request(
        _ command: UInt32, flags: UInt32 = 0, declares: UInt32, count: UInt32 = 0, payload: [UInt8]
    )
        -> [UInt8]
    {
        var bytes: [UInt8] = []
        func put<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        for word in [command, flags, declares, count] { put(word) }
        put(UInt64(0))
        put(UInt64(0))
        return bytes + payload
    }

    func testLaneRequestsWhoseLengthIsOutOfRangeOrDisagreesWithTheHeaderAreRefusedAndTheLaneServesOn() throws {
        let harness = try ScriptHarness()
        defer { harness.close() }
        let control = ControlSession(
            emulator: harness.host.emulator, scripts: RunControlScripts(harness.host), allowEval: false)
        let door = try ControlBinaryDoor(session: control)
        // A one-lane region laid out as python/retrolua/_batch.py lays it out: header page, control block, areas.
        let controlAt = ControlBatchLane.headerSize
        let screenAt = controlAt + ControlBatchLane.controlSize
        let ramAt = screenAt + ((door.screen.capacity + 63) & ~63)
        let region = try ControlSharedRegion(size: ramAt + ((door.ram.capacity + 63) & ~63))
        var join: [UInt8] = []
        for offset in [controlAt, screenAt, ramAt, 0] {
            withUnsafeBytes(of: UInt64(offset).littleEndian) { join += $0 }
        }
        let lane = try ControlBatchLane(
            descriptor: dup(region.fd), payload: join[...], screenCapacity: door.screen.capacity,
            ramCapacity: door.ram.capacity)
        let block = region.base + controlAt
        func word(_ at: Int) -> UnsafeMutablePointer<UInt32> { (block + at).assumingMemoryBound(to: UInt32.self) }

        /// Posts `bytes` with the lane length `length` and answers it as the serve loop does; the reply's
        /// status and message, after checking that the request was marked answered.
        func post(_ bytes: [UInt8], length: UInt32) throws -> (status: UInt32, message: String) {
            bytes.withUnsafeBytes {
                (block + ControlBatchLane.requestOffset).copyMemory(from: $0.baseAddress!, byteCount: $0.count)
            }
            word(12).pointee = length
            word(0).pointee &+= 1
            switch try XCTUnwrap(lane.takeRequest(), "a request waits") {
            case .failure(let refusal): lane.finish(Wire.error(refusal.description))
            case .success(let taken):
                switch door.start(taken[...]) {
                case .reply(let reply): lane.finish(reply)
                case .continuing(let work):
                    while true {
                        if let reply = work() {
                            lane.finish(reply)
                            break
                        }
                    }
                }
            }
            XCTAssertEqual(word(4).pointee, word(0).pointee, "the request is answered")
            XCTAssertNil(lane.takeRequest(), "nothing else waits")
            let reply = block + ControlBatchLane.replyOffset
            let size = Int(reply.load(fromByteOffset: 4, as: UInt32.self))
            let text = UnsafeRawBufferPointer(start: reply + Wire.replySize, count: size)
            return (reply.load(as: UInt32.self), String(decoding: text, as: UTF8.self))
        }

        let step = request(Wire.Command.step.rawValue, flags: 1 << 8, declares: 2, count: 1, payload: [0, 0])
        let write = request(Wire.Command.write.rawValue, declares: 5000, payload: [UInt8](repeating: 0xAB, count: 100))
        let lengthOf = "binary batch: lane 0's request length is"
        let cases: [(bytes: [UInt8], length: UInt32, message: String)] = [
            (
                write, 132,
                "binary batch: lane 0's request header says 5000 payload bytes, but the lane's length (132) leaves 100"
            ),
            (step, 1025, "\(lengthOf) 1025 bytes; it must be 32…1024 (a 32-byte header and its payload)"),
            (step, 5000, "\(lengthOf) 5000 bytes; it must be 32…1024"),
            (step, 0, "\(lengthOf) 0 bytes; it must be 32…1024"),
            (step, 31, "\(lengthOf) 31 bytes; it must be 32…1024"),
            (step, UInt32.max, "\(lengthOf) 4294967295 bytes; it must be 32…1024"),
            (step, 32, "header says 2 payload bytes, but the lane's length (32) leaves 0"),
            (step, 1024, "header says 2 payload bytes, but the lane's length (1024) leaves 992"),
            (
                request(Wire.Command.step.rawValue, flags: 1 << 8, declares: UInt32.max, count: 1, payload: [0, 0]), 34,
                "header says 4294967295 payload bytes, but the lane's length (34) leaves 2"
            ),
            ([UInt8](repeating: 0, count: 40), 40, "header says 0 payload bytes, but the lane's length (40) leaves 8"),
        ]
        let memory = harness.host.emulator.memory
        let ram = try memory.domain(named: "system_ram")
        for (bytes, length, message) in cases {
            let frame = harness.host.emulator.session.frameCount
            let before = try memory.read(ram, address: 0, count: 2048)
            let refused = try post(bytes, length: length)
            XCTAssertEqual(refused.status, 1, message)
            XCTAssertTrue(refused.message.contains(message), refused.message)
            XCTAssertEqual(harness.host.emulator.session.frameCount, frame, "nothing ran: \(message)")
            XCTAssertEqual(try memory.read(ram, address: 0, count: 2048), before, "nothing was written: \(message)")
            let served = try post(step, length: UInt32(step.count))  // the next good request on the lane
            XCTAssertEqual(served.status, 0, served.message)
            XCTAssertEqual(harness.host.emulator.session.frameCount, frame + 1, "the good step ran: \(message)")
        }
    }
}
