/// Text from a stranger (a game's reply, a peer's message) made safe to print on a terminal: control
/// characters cannot set the title, clear the screen, move the cursor or hide what follows. Each is shown
/// as Lua writes it in a string — `\27` for ESC, `\13` for a carriage return, `\u{9B}` for a C1 control or
/// a direction override — so what the game sent stays readable; newlines and tabs stay as they are.
public enum TerminalText {
    public static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }  // the usual case: no copy
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            if !isControl(scalar) {
                out.unicodeScalars.append(scalar)
            } else if scalar.value < 128 {
                out += "\\\(scalar.value)"
            } else {
                out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            }
        }
        return out
    }

    /// C0 controls but newline and tab, DEL, C1 controls (a terminal reads U+009B as ESC [), and the
    /// bidirectional overrides and isolates that reorder what is shown.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 9, 10: return false
        case 0..<32, 127..<160, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
