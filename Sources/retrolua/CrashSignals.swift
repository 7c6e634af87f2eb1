import Foundation

/// A crash (a core's bad memory access, a trap) ends the run with one line on stderr and the signal's
/// own status, without Swift's backtracer: that helper process inherits the run's stdout and stderr,
/// and when a core's threads cannot be suspended (melonDS's could not) it stayed blocked for good,
/// holding the output open, so whatever read it (a shell pipe, the Python package, a batch parent)
/// never saw the run end. `SWIFT_BACKTRACE` in the environment (`enable=yes`) keeps Swift's handlers
/// and its backtrace instead — where the backtracer is installed; the line says what works here.
enum CrashSignals {
    static let signals = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT]

    /// The line's advice, made before any crash: the handler may only write.
    nonisolated(unsafe) private static var advice: UnsafeMutableBufferPointer<UInt8> = .init(start: nil, count: 0)

    static func install() {
        guard (ProcessInfo.processInfo.environment["SWIFT_BACKTRACE"] ?? "").isEmpty else { return }
        let text = Array(adviceText(backtracer: Backtracer.reachable()).utf8)
        advice = .allocate(capacity: text.count)
        _ = advice.initialize(from: text)
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in CrashSignals.crashed(number) }
            // The default action is back on entry: the raise below ends the process with the signal.
            action.sa_flags = Int32(bitPattern: SA_RESETHAND) | SA_NODEFER
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, nil)
        }
    }

    /// Swift's backtracer where this binary's runtime finds it (a source build: the toolchain's); else gdb,
    /// which any machine can install (the wheel and the `.deb` carry no backtracer).
    static func adviceText(backtracer: Bool) -> String {
        backtracer
            ? "; run it again with SWIFT_BACKTRACE=enable=yes for a backtrace\n"
            : "; for a backtrace, run the same command under gdb: gdb -batch -ex run -ex bt --args retrolua ARGUMENTS\n"
    }

    /// In the signal handler: only async-signal-safe calls (write, raise), no allocation.
    private static func crashed(_ number: Int32) {
        let text: StaticString
        switch number {
        case SIGSEGV: text = "retrolua: crashed: SIGSEGV (a bad memory access"
        case SIGBUS: text = "retrolua: crashed: SIGBUS (a bad memory access"
        case SIGILL: text = "retrolua: crashed: SIGILL (an illegal instruction or a failed check"
        case SIGFPE: text = "retrolua: crashed: SIGFPE (an arithmetic fault"
        case SIGTRAP: text = "retrolua: crashed: SIGTRAP (a failed check"
        default: text = "retrolua: crashed: SIGABRT (an abort"
        }
        let tail: StaticString = " in the core or in Retrolua)"
        text.withUTF8Buffer { _ = write(2, $0.baseAddress, $0.count) }
        tail.withUTF8Buffer { _ = write(2, $0.baseAddress, $0.count) }
        if let start = advice.baseAddress { _ = write(2, start, advice.count) }
        raise(number)
    }
}

/// Where Swift's runtime looks for `swift-backtrace` (swiftlang/swift docs/Backtracing.rst): under
/// `$SWIFT_ROOT`, else the folder above `lib/swift/linux/libswiftCore.so` when the runtime is a shared
/// library, else the folder above the binary's own when the runtime is linked in (the wheel, the `.deb`).
enum Backtracer {
    static func reachable() -> Bool {
        guard let root = swiftRoot() else { return false }
        let folders = [
            "libexec/swift/linux", "libexec/swift/linux/x86_64", "libexec/swift", "libexec/swift/x86_64", "bin",
            "bin/x86_64", "",
        ]
        return folders.contains { access(root + "/" + $0 + "/swift-backtrace", X_OK) == 0 }
    }

    private static func swiftRoot() -> String? {
        if let root = ProcessInfo.processInfo.environment["SWIFT_ROOT"], !root.isEmpty { return root }
        // /proc files report no size, so they are read to their end rather than by it.
        let maps = (try? FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps")).readToEnd()) ?? nil
        let lines = String(decoding: maps ?? Data(), as: UTF8.self).split(separator: "\n")
        if let line = lines.first(where: { $0.hasSuffix("/libswiftCore.so") }), let slash = line.firstIndex(of: "/") {
            // …/usr/lib/swift/linux/libswiftCore.so → …/usr
            return up(String(line[slash...]), 4)
        }
        guard let binary = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            return nil
        }
        return up(binary, 2)  // …/bin/retrolua → …
    }

    private static func up(_ path: String, _ levels: Int) -> String {
        var parts = path.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(min(levels, max(parts.count - 1, 0)))
        return parts.joined(separator: "/")
    }
}
