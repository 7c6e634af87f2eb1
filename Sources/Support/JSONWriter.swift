import Foundation

/// JSON text of the values Lua tables become in Swift (`Bool`, `Int`, `Double`, `String`, `[Any]`,
/// `[String: Any]`, `NSNull` as `null`), keys sorted. Written by hand because it runs
/// after every Python step: Foundation's `JSONSerialization` costs about a hundred times more for a
/// small object here, more than the rest of the step's host work.
public enum JSONWriter {
    /// The UTF-8 text, or nil when a value has no JSON form (NaN, infinities, other types) or nests
    /// deeper than `maxDepth`.
    public static func encode(_ value: Any, maxDepth: Int = 64) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        return write(value, into: &out, depth: maxDepth) ? out : nil
    }

    private static func write(_ value: Any, into out: inout [UInt8], depth: Int) -> Bool {
        switch value {
        case let flag as Bool: out += flag ? Array("true".utf8) : Array("false".utf8)
        case let integer as Int: out += Array(String(integer).utf8)
        case let number as Double:
            guard number.isFinite else { return false }
            // Integral doubles print as integers, as JSONSerialization does (Lua 5.4 keeps 3.0 a float).
            if number == number.rounded(), abs(number) < 1e15 {
                out += Array(String(Int(number)).utf8)
            } else {
                out += Array(String(number).utf8)
            }
        case let text as String: writeString(text, into: &out)
        case let list as [Any]:
            guard depth > 0 else { return false }
            out.append(UInt8(ascii: "["))
            for (index, element) in list.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                guard write(element, into: &out, depth: depth - 1) else { return false }
            }
            out.append(UInt8(ascii: "]"))
        case let object as [String: Any]:
            guard depth > 0 else { return false }
            out.append(UInt8(ascii: "{"))
            for (index, key) in object.keys.sorted().enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                guard write(object[key]!, into: &out, depth: depth - 1) else { return false }
            }
            out.append(UInt8(ascii: "}"))
        case is NSNull: out += Array("null".utf8)
        default: return false
        }
        return true
    }

    private static func writeString(_ text: String, into out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), byte]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0..<0x20:
                out += [UInt8(ascii: "\\"), UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
