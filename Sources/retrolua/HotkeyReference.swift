import Emulation
import Control
import Frontend
import Run
import Scripting

/// The default frontend's hotkeys for `retrolua help run`, the man page and the CLI reference, read from
/// the Lua that answers them (`DefaultHotkeys`), so the documentation cannot drift from the keys.
enum HotkeyReference {
    static let title = "hotkeys in a window"
    static let intro = """
        The default frontend's keys, from lua/retrolua/hotkeys.lua and lua/retrolua/tools.lua. Change them in \
        ~/.config/retrolua/hotkeys.lua (`return { save_state = "ctrl+s", quit = false }`; false unbinds); the \
        menu's, the RAM tools', rewind's and turbo's in menu.lua (`key`), ramtools.lua (`panel_key`), rewind.lua \
        (`key`) and input.lua (`turbo`).
        """

    /// The bindings from the lua/ folder the binary uses; empty (with the reason in `problem`) without one.
    static let loaded = DefaultHotkeys.load(luaFolder: HostPaths.luaFolder())
    static var bindings: [DefaultHotkeys.Binding] { (try? loaded.get()) ?? [] }
    static var problem: String? {
        guard case .failure(let error) = loaded else { return nil }
        return "the hotkeys could not be read: \(error.message)"
    }

    /// The section `retrolua help run` ends with.
    static var helpText: String {
        var lines = [title + ":"]
        lines += wrap(intro, indent: "  ")
        if let problem { lines.append("  " + problem) }
        lines.append("")
        for binding in bindings {
            let key = "  " + binding.key
            lines.append(key.padding(toLength: max(key.count + 1, 14), withPad: " ", startingAt: 0) + binding.action)
        }
        return lines.joined(separator: "\n")
    }

    /// `text` in lines of at most `HelpLayout.width` columns, each after `indent`.
    private static func wrap(_ text: String, indent: String) -> [String] {
        var lines: [String] = []
        var current = indent
        for word in text.split(separator: " ") {
            if current != indent && current.count + 1 + word.count > HelpLayout.width {
                lines.append(current)
                current = indent
            }
            current += (current == indent ? "" : " ") + word
        }
        return lines + [current]
    }
}
