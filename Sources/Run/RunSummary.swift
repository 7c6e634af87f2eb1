import Foundation

/// The lines a run ends with: the summary for people, or one line of JSON for programs.
enum RunSummary {
    static func print(_ outcome: RunOutcome, to console: RunConsole) {
        let core = outcome.core, report = outcome.report
        console.print("core     \(core.name) (\(core.library) \(core.version))")
        if let content = outcome.content {
            console.print("content  \(content.fileName)  crc32 \(content.crc32)  sha1 \(content.sha1)")
        }
        console.print(
            String(
                format: "frames   %d in %.3f s: %.0f fps, %.1fx real time (core runs at %.4f fps); %d lag frames",
                report.frames, report.seconds, report.framesPerSecond, report.framesPerSecond / core.fps, core.fps,
                report.lagFrames))
        if let frame = report.lastFrame, let hash = report.frameHash {
            console.print("frame    \(frame.width)x\(frame.height) \(frame.format)  hash \(hash)")
        } else {
            console.print("frame    none (the core presented no frame)")
        }
    }

    /// What the summary says as one JSON object (`retrolua batch`, bots' harnesses).
    static func printJSON(_ outcome: RunOutcome, to console: RunConsole) {
        let core = outcome.core, report = outcome.report
        var object: [String: Any] = [
            "core": core.name, "core_library": core.library, "core_version": core.version,
            "frames": report.frames, "seconds": report.seconds, "fps": report.framesPerSecond,
            "lag_frames": report.lagFrames, "exit_code": Int(outcome.status), "results": outcome.results,
        ]
        if let content = outcome.content {
            object["content"] = content.fileName
            object["content_sha1"] = content.sha1
        }
        if let frame = report.lastFrame, let hash = report.frameHash {
            object["frame"] = ["width": frame.width, "height": frame.height, "hash": hash]
        }
        if let movie = outcome.movie { object["movie"] = movie }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            console.problem("--json: a result could not be written as JSON")
            return
        }
        console.print(String(decoding: data, as: UTF8.self))
    }
}
