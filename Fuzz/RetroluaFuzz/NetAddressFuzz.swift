@testable import Scripting
import Support

/// Addresses and `--allow-net` grants as scripts and command lines give them: the text split at commas into
/// grants (numeric ones kept, so no input makes the fuzzer wait on DNS), then every piece resolved under bare
/// `--allow-net` and under those grants, binding and not. Whatever passes under bare `--allow-net` must be
/// loopback.
enum NetAddressFuzz {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes.prefix(4096), as: UTF8.self)
        let pieces = text.split(separator: ",", omittingEmptySubsequences: false).prefix(64).map(String.init)
        let grants = pieces.compactMap(NetworkPermission.Grant.init).filter {
            $0.host == "*" || SocketAddress.numeric($0.host, 0) != nil
        }
        let loopback = NetworkPermission(level: .loopback)
        let granted = NetworkPermission(level: .loopback, grants: grants)
        for piece in pieces {
            for binding in [false, true] {
                if case .address(let target)? = try? loopback.resolve(piece, binding: binding),
                    !SocketAddress.isLoopback(target)
                {
                    fatalError("\(piece) passed as loopback")
                }
                guard SocketAddress.numeric(hostPart(piece), 0) != nil || hostPart(piece) == "*" else { continue }
                _ = try? granted.resolve(piece, binding: binding)
            }
        }
    }

    /// The host of `HOST:PORT` as `SocketAddress.split` reads it, or "" (names are not resolved here).
    private static func hostPart(_ address: String) -> String {
        (try? SocketAddress.split(address).host) ?? ""
    }
}
