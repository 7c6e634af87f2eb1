import Foundation
import XCTest

/// `retrolua batch`: per-job timeouts, stop signals passed on to the jobs, job fields checked.
final class BatchTimeoutTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    private func jobsFile(_ lines: [String], in folder: String) throws -> String {
        let path = folder + "/jobs.jsonl"
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func lines(_ stdout: String) -> [String: [String: Any]] {
        var byName: [String: [String: Any]] = [:]
        for line in stdout.split(separator: "\n") {
            if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let name = object["name"] as? String
            {
                byName[name] = object
            }
        }
        return byName
    }

    private let endless = "\"frames\": 100000000"

    func testATimedOutJobIsStoppedAndReportedAsSuch() throws {
        let folder = Fixtures.temporaryFolder()
        let jobs = try jobsFile(
            [
                "{\"name\": \"quick\", \"rom\": \"\(Fixtures.nesROM)\", \"frames\": 5}",
                "{\"name\": \"slow\", \"rom\": \"\(Fixtures.nesROM)\", \(endless), \"timeout\": 0.5}",
            ], in: folder)
        let result = try Fixtures.cli(["batch", jobs, "--jobs", "2"], home: folder)
        XCTAssertEqual(result.status, 1, result.stderr)
        let byName = lines(result.stdout)
        XCTAssertEqual(byName["quick"]?["ok"] as? Bool, true)
        let slow = try XCTUnwrap(byName["slow"], result.stdout)
        XCTAssertEqual(slow["ok"] as? Bool, false)
        XCTAssertEqual(slow["timed_out"] as? Bool, true)
        XCTAssertTrue((slow["error"] as? String ?? "").hasPrefix("timed out after 0.5 s"), "\(slow)")
        // Stopped with SIGTERM, so the job still ended cleanly and reported its run.
        XCTAssertEqual(slow["status"] as? Int, 143)
        XCTAssertEqual((slow["result"] as? [String: Any])?["exit_code"] as? Int, 143)
    }

    func testTheDefaultTimeoutAppliesToJobsWithoutTheirOwn() throws {
        let folder = Fixtures.temporaryFolder()
        let jobs = try jobsFile(
            [
                "{\"name\": \"own\", \"rom\": \"\(Fixtures.nesROM)\", \"frames\": 5, \"timeout\": 60}",
                "{\"name\": \"default\", \"rom\": \"\(Fixtures.nesROM)\", \(endless)}",
            ], in: folder)
        let result = try Fixtures.cli(["batch", jobs, "--jobs", "2", "--timeout", "0.5"], home: folder)
        let byName = lines(result.stdout)
        XCTAssertEqual(byName["own"]?["ok"] as? Bool, true, result.stdout)
        XCTAssertEqual(byName["default"]?["timed_out"] as? Bool, true, result.stdout)
    }

    private func stopBatch(_ number: Int32, expect status: Int32) throws {
        let folder = Fixtures.temporaryFolder()
        let marker = UUID().uuidString
        let job = "{\"rom\": \"\(Fixtures.nesROM)\", \(endless), \"env\": {\"BATCH_MARK\": \"\(marker)\"}"
        let jobs = try jobsFile(
            ["\(job), \"name\": \"a\"}", "\(job), \"name\": \"b\"}", "\(job), \"name\": \"c\"}"], in: folder)
        let batch = try ChildProcess(["batch", jobs, "--jobs", "2"], home: folder)
        XCTAssertTrue(batch.waitUntil { self.processes(marked: marker).count == 2 }, "two jobs running")
        batch.signal(number)
        let result = batch.finish()
        XCTAssertEqual(result.status, status, result.stderr)
        XCTAssertEqual(processes(marked: marker), [], "no job is left running")
        let byName = lines(result.stdout)
        XCTAssertEqual(byName.count, 2, "the third job never started: \(result.stdout)")
        for (_, line) in byName {
            XCTAssertTrue((line["error"] as? String ?? "").hasPrefix("stopped: batch got signal \(number)"), "\(line)")
        }
        XCTAssertTrue(result.stderr.contains("1 not started"), result.stderr)
    }

    /// Processes whose environment carries the marker (the batch's jobs).
    private func processes(marked marker: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
            return environ.range(of: Data("BATCH_MARK=\(marker)".utf8)) != nil
        }
    }

    func testSIGTERMStopsTheJobsAndBatchExitsWith143() throws { try stopBatch(SIGTERM, expect: 143) }
    func testSIGINTStopsTheJobsAndBatchExitsWith130() throws { try stopBatch(SIGINT, expect: 130) }

    func testJobFieldsOfTheWrongTypeAreRefusedNamingJobAndField() throws {
        let folder = Fixtures.temporaryFolder()
        let jobs = try jobsFile(
            [
                "{\"name\": \"text\", \"rom\": \"\(Fixtures.nesROM)\", \"frames\": \"600\"}",
                "{\"name\": \"fraction\", \"rom\": \"\(Fixtures.nesROM)\", \"frames\": 1.5}",
                "{\"name\": \"negative\", \"rom\": \"\(Fixtures.nesROM)\", \"timeout\": -1}",
                "{\"name\": \"wordy\", \"rom\": \"\(Fixtures.nesROM)\", \"timeout\": \"soon\"}",
            ], in: folder)
        let result = try Fixtures.cli(["batch", jobs], home: folder)
        XCTAssertEqual(result.status, 1)
        let byName = lines(result.stdout)
        XCTAssertEqual(
            byName["text"]?["error"] as? String, "job 'text': 'frames' must be a whole number, got the string \"600\"")
        XCTAssertEqual(
            byName["fraction"]?["error"] as? String, "job 'fraction': 'frames' must be a whole number, got 1.5")
        XCTAssertEqual(
            byName["negative"]?["error"] as? String,
            "job 'negative': 'timeout' must be a number of seconds above 0, got -1")
        XCTAssertEqual(
            byName["wordy"]?["error"] as? String,
            "job 'wordy': 'timeout' must be a number of seconds above 0, got the string \"soon\"")
    }

    func testABadTimeoutOptionIsAUsageError() throws {
        let folder = Fixtures.temporaryFolder()
        let jobs = try jobsFile(["{\"rom\": \"\(Fixtures.nesROM)\", \"frames\": 5}"], in: folder)
        for bad in ["0", "-3", "soon", "inf"] {
            let result = try Fixtures.cli(["batch", jobs, "--timeout", bad], home: folder)
            XCTAssertEqual(result.status, 2, bad)
            XCTAssertTrue(result.stderr.contains("--timeout must be a number of seconds above 0"), result.stderr)
        }
    }
}
