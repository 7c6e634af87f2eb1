import Emulation
import Foundation
import Glibc

extension BatchCommand {
    /// `batch --ray ADDRESS`: the batch goes to the Python package's Ray farm (`python -m retrolua.ray
    /// batch`), which runs each job on a Ray worker as a one-line batch of this same binary, so every
    /// job rule stays here. This process becomes the interpreter: signals and exit status are the farm's.
    static func runOnRay(_ address: String, path: String, args: Arguments) -> Never {
        let binary = HostPaths.executablePath()
        let environment = ProcessInfo.processInfo.environment
        let python =
            environment["RETROLUA_PYTHON"].flatMap { $0.isEmpty ? nil : $0 } ?? HostPaths.treeFile(
                "build/venv/bin/python")
            ?? "python3"
        var command = [python, "-m", "retrolua.ray", "batch", path, "--address", address, "--binary", binary]
        for option in ["jobs", "timeout", "cpus"] {
            if let value = args.value(option) { command += ["--" + option, value] }
        }
        // The tree's package (the one that matches this binary) comes before an installed one.
        if let marker = HostPaths.treeFile("python/retrolua/__init__.py") {
            let folder = URL(fileURLWithPath: marker).deletingLastPathComponent().deletingLastPathComponent().path
            setenv("PYTHONPATH", environment["PYTHONPATH"].map { folder + ":" + $0 } ?? folder, 1)
        }
        setenv("RETROLUA", binary, 1)
        var pointers = command.map { strdup($0) }
        pointers.append(nil)
        execvp(python, &pointers)
        fail("batch --ray: cannot start \(python): \(String(cString: strerror(errno)))")
    }
}
