import Foundation

/// libFuzzer's entry points: one binary, several parsers; `RETROLUA_FUZZ_TARGET` picks the one to fuzz
/// (scripts/fuzz sets it). Built only with RETROLUA_FUZZ=1 and `-sanitize=fuzzer` (see scripts/fuzz).
nonisolated(unsafe) private var selected: FuzzTarget?

@_cdecl("LLVMFuzzerInitialize")
public func initialize(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>>
)
    -> CInt
{
    let name = ProcessInfo.processInfo.environment["RETROLUA_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        FileHandle.standardError.write(Data("fuzz: set RETROLUA_FUZZ_TARGET to one of: \(names)\n".utf8))
        exit(2)
    }
    target.prepare()
    selected = target
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
    selected?.run(bytes)
    return 0
}
