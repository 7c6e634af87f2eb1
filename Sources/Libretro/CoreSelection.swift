import Foundation
import Support

/// The core picked for a content file, why, and which others could have taken it.
public struct CoreChoice: Sendable, Equatable {
    public let core: InstalledCore
    /// Other usable cores that take the same file, best first.
    public let alternatives: [String]
    /// The rule that decided (`the only core that takes .nes`, `preferred for .nes in …/cores.cfg`).
    public let rule: String
    /// What the choice was made for: `game.nes`, or `game.zip (member game.nes)`.
    public let subject: String

    /// One line for stderr: which core, by which rule, and what else could take the file.
    public var note: String {
        let others =
            alternatives.isEmpty ? "" : "; also takes it: \(alternatives.joined(separator: ", ")) (pick with --core)"
        return "core \(core.name) chosen for \(subject): \(rule)\(others)"
    }
}

/// How a core is chosen for content when `--core` is not given (docs/guides/cores-and-content.md, "Choosing a core"):
///
/// 1. Which extension counts: a plain file's own; an `.m3u` playlist's first disc's; for a `.zip`, the
///    first member (in archive order) whose extension a core that does not take archives accepts — a zip
///    holding such a member goes to that member's cores, never to an arcade core. `.bin` and `.rom`
///    members count only when the zip holds one such file (romsets hold many chip dumps); a zip with no
///    counting member is an arcade romset and goes to the cores that take `.zip` themselves.
/// 2. Among the cores taking that extension, the first by: a preference in `cores.cfg`
///    (`$XDG_CONFIG_HOME/retrolua/cores.cfg`, lines `nes = fceumm`), then a core whose `.info`
///    `database` names the system the file's header shows (iNES, Sega, Game Boy, GBA; small headerless
///    `.bin` is Atari 2600), then system-wide (Debian) cores before the user's and bundled ones, then the
///    built-in defaults (`preferredCores`), then by name.
extension CoreLocator {
    /// Known-good defaults per system, ranked after the user's preference and the header's system.
    public static let preferredCores = [
        "nestopia", "gambatte", "mgba", "snes9x", "genesis_plus_gx", "mednafen_pce_fast", "stella", "fbneo",
    ]

    /// Members that are never a game: a zip holding only these has no content.
    static let documentExtensions: Set<String> = [
        "txt", "nfo", "diz", "pdf", "htm", "html", "jpg", "jpeg", "png", "gif", "doc", "url", "xml", "dat", "ini",
    ]

    /// Extensions arcade romsets use for chip dumps too.
    static let chipExtensions: Set<String> = ["bin", "rom"]

    public func choose(for content: Content) throws(RetroError) -> CoreChoice {
        let usable = installed().filter { $0.problem == nil }
        let consoles = usable.filter { !$0.extensions.contains(where: ContentArchive.archiveExtensions.contains) }
        var subject = content.fileName
        var ext = content.candidateExtensions.first ?? ""
        var chosenMember: String?
        if content.isArchive {
            let members = content.archiveMembers
            let counted = members.filter { member in
                let memberExt = ContentArchive.extensionOf(member)
                guard consoles.contains(where: { $0.extensions.contains(memberExt) }) else { return false }
                return !Self.chipExtensions.contains(memberExt)
                    || members.filter { ContentArchive.extensionOf($0) == memberExt }.count == 1
            }
            if let member = counted.first {
                ext = ContentArchive.extensionOf(member)
                chosenMember = member
                subject = "\(FilePath.fileName(of: content.path)) (member \(member))"
            } else if members.allSatisfy({ Self.documentExtensions.contains(ContentArchive.extensionOf($0)) }) {
                let looked = Set(consoles.flatMap(\.extensions)).sorted().map { "." + $0 }.joined(separator: " ")
                let inside =
                    members.isEmpty
                    ? "it holds no usable file" : "it holds \(members.prefix(8).joined(separator: ", "))"
                throw .contentUnreadable(
                    path: content.path,
                    reason: "no member with an extension an installed core takes (looked for \(looked)); \(inside)")
            } else {
                ext = "zip"
                subject = "\(FilePath.fileName(of: content.path)) (an arcade romset: no member a console core takes)"
            }
        } else if content.playlist != nil {
            subject = "\(FilePath.fileName(of: content.path)) (first disc \(content.fileName))"
        }
        let pool = ext == "zip" ? usable : consoles
        let candidates = pool.filter { $0.extensions.contains(ext) }
        guard !candidates.isEmpty else {
            throw .noCoreForContent(path: content.path, installed: installed().map(\.name))
        }
        let system = candidates.count > 1 ? ContentSystem.guess(content, member: chosenMember, ext: ext) : nil
        let ranked = candidates.map { ($0, rank($0, ext: ext, system: system)) }.sorted { $0.1 < $1.1 }
        let winner = ranked[0]
        let rule: String
        if ranked.count == 1 {
            rule = "the only core that takes .\(ext)"
        } else {
            let second = ranked[1].1
            rule =
                winner.1.preference < second.preference
                ? "preferred for .\(ext) in \(preferencesPath)"
                : winner.1.systemMatch < second.systemMatch
                    ? "its .info database lists \(system ?? "the system")"
                    : winner.1.systemFolder < second.systemFolder
                        ? "a system-wide core, ranked before user and bundled ones"
                        : winner.1.builtIn < second.builtIn ? "the built-in default for .\(ext)" : "first by name"
        }
        return CoreChoice(core: winner.0, alternatives: ranked.dropFirst().map(\.0.name), rule: rule, subject: subject)
    }

    struct Rank: Comparable {
        var preference: Int
        var systemMatch: Int
        var systemFolder: Int
        var builtIn: Int
        var name: String
        static func < (a: Rank, b: Rank) -> Bool {
            (a.preference, a.systemMatch, a.systemFolder, a.builtIn, a.name)
                < (b.preference, b.systemMatch, b.systemFolder, b.builtIn, b.name)
        }
    }

    private func rank(_ core: InstalledCore, ext: String, system: String?) -> Rank {
        let databases = CoreLocator.infoFields(for: core.path, name: core.name)?["database"] ?? ""
        return Rank(
            preference: preferences[ext] == core.name ? 0 : 1,
            systemMatch: system.map { databases.split(separator: "|").contains(Substring($0)) } == true ? 0 : 1,
            systemFolder: core.path.hasPrefix("/usr/") ? 0 : 1,
            builtIn: CoreLocator.preferredCores.firstIndex(of: core.name) ?? CoreLocator.preferredCores.count,
            name: core.name)
    }

    /// `ext = core` lines from `cores.cfg`; `#` starts a comment.
    static func readPreferences(_ path: String) -> [String: String] {
        guard let bytes = try? BoundedFile.read(path, limit: 64 << 10) else { return [:] }
        let pairs = CoreOptions.parse(String(decoding: bytes, as: UTF8.self))
        return Dictionary(
            pairs.map { ($0.0.lowercased().trimmingPrefix("."), $0.1) }, uniquingKeysWith: { _, last in last })
    }
}

extension String {
    fileprivate func trimmingPrefix(_ prefix: String) -> String {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self
    }
}

/// The system a ROM's header shows, in the `.info` files' `database` words; nil when it shows none.
enum ContentSystem {
    static func guess(_ content: Content, member: String?, ext: String) -> String? {
        guard content.playlist == nil, !content.isArchive || member != nil else { return nil }
        let (head, size) = member.map { content.head(0x8000, member: $0) } ?? (content.head(0x8000), content.size)
        func matches(_ offset: Int, _ bytes: [UInt8]) -> Bool {
            head.count >= offset + bytes.count && Array(head[offset..<offset + bytes.count]) == bytes
        }
        if matches(0, Array("NES\u{1A}".utf8)) { return "Nintendo - Nintendo Entertainment System" }
        if matches(0x100, Array("SEGA".utf8)) { return "Sega - Mega Drive - Genesis" }
        for offset in [0x7FF0, 0x3FF0, 0x1FF0] where matches(offset, Array("TMR SEGA".utf8)) {
            return "Sega - Master System - Mark III"
        }
        if matches(0x104, [0xCE, 0xED, 0x66, 0x66]) {
            return head.count > 0x143 && head[0x143] & 0x80 != 0 ? "Nintendo - Game Boy Color" : "Nintendo - Game Boy"
        }
        if matches(4, [0x24, 0xFF, 0xAE, 0x51]) { return "Nintendo - Game Boy Advance" }
        if ["bin", "a26"].contains(ext), size <= 64 << 10 { return "Atari - 2600" }
        return nil
    }
}
