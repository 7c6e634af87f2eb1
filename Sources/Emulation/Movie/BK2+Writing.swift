import Foundation
import Libretro

/// Exporting BizHawk `.bk2` movies: the header, the log key and the input log, zipped.
extension BK2 {
    public static func encode(_ movie: Movie) throws(MovieError) -> [UInt8] {
        // A .bk2 starts from power-on or from a BizHawk core's state: a start state of ours would be dropped.
        guard movie.startState == nil || movie.anchorFrame != nil else {
            throw MovieError(
                "cannot export to .bk2: the movie starts from a savestate, which a .bk2 cannot carry (keep it as .rlm)")
        }
        guard !movie.log.analog else {
            throw MovieError(
                "cannot export to .bk2: the movie has analog input, which Retrolua does not export to BizHawk")
        }
        let platform = platform(for: movie)
        let key: LogKey
        if let stored = movie.extra(logKeyExtra) {
            do { key = try parseLogKey(stored) } catch {
                throw MovieError("cannot export to .bk2: the movie's kept LogKey: \(error.description)")
            }
        } else {
            key = try parseLogKey(defaultLogKey(platform: platform, movie: movie))
        }
        try checkCoverage(movie, key)
        let newline = movie.extra(newlineExtra) == "crlf" ? "\r\n" : "\n"

        let log = inputLog(movie, key, newline: newline)
        let headerText = headerFields(movie, platform: platform).map { "\($0.0) \($0.1)\(newline)" }.joined() + newline

        var members: [(name: String, bytes: [UInt8])] = [(headerMember, Array(headerText.utf8))]
        for member in textMembers {
            var text = movie.extra(fileExtraPrefix + member).map(unescape)
            if member == commentsMember, text.map(commentLines) != movie.comments {
                text = movie.comments.isEmpty ? nil : movie.comments.map { $0 + newline }.joined()
            }
            if let text { members.append((member, Array(text.utf8))) }
        }
        members.append((inputMember, log))
        return try zip(members)
    }

    /// Input Log.txt: the LogKey line and one line per frame, ending with the given newline.
    private static func inputLog(_ movie: Movie, _ key: LogKey, newline: String) -> [UInt8] {
        var log = Array("[Input]\(newline)LogKey:\(key.text)\(newline)".utf8)
        log.reserveCapacity(log.count + movie.length * (key.columns.count + key.groups.count + 3) + 16)
        // Each line starts as the all-released template; pressed columns get their letter.
        let bar = UInt8(ascii: "|"), dot = UInt8(ascii: ".")
        var template: [UInt8] = [bar]
        var slots: [(offset: Int, port: Int, bit: UInt16, flag: UInt8, mnemonic: UInt8)] = []
        for group in key.groups {
            for column in group {
                if column.button == nil || column.port < movie.log.ports {
                    slots.append(
                        (
                            template.count, column.port, column.button.map { UInt16(1) << UInt16($0.rawValue) } ?? 0,
                            column.flag.rawValue, column.mnemonic
                        ))
                }
                template.append(dot)
            }
            template.append(bar)
        }
        template += Array(newline.utf8)
        for frame in 0..<movie.length {
            let flags = movie.log.flags(at: frame).rawValue, input = movie.log.input(at: frame)
            let base = log.count
            log += template
            for slot in slots where slot.bit != 0 ? input.buttons[slot.port] & slot.bit != 0 : flags & slot.flag != 0 {
                log[base + slot.offset] = slot.mnemonic
            }
        }
        log += Array("[/Input]\(newline)".utf8)
        return log
    }

    /// The header's fields: BizHawk's leading keys first, then the fields kept from an imported movie.
    private static func headerFields(_ movie: Movie, platform: String) -> [(String, String)] {
        var fields: [(String, String)] = []
        func kept(_ key: String) -> String? { movie.extra("bk2.\(key)") }
        for field in leadingKeys {
            switch field {
            case "MovieVersion": fields.append((field, kept(field) ?? "BizHawk v2.0.0"))
            case "Author": fields.append((field, movie.author))
            case "emuVersion": fields.append((field, kept(field) ?? RetroluaVersion.emulator))
            case "Platform": fields.append((field, platform))
            case "GameName": fields.append((field, movie.contentName))
            case "SHA1":
                // BizHawk hashes ROMs without their header (iNES, copier): the content's identity is that hash.
                let identity = movie.contentIdentity.isEmpty ? nil : movie.contentIdentity.uppercased()
                if let value = kept(field) ?? identity { fields.append((field, value)) }
            case "Core":
                // The core that made the movie, not one of BizHawk's it never ran on.
                if let value = kept(field) ?? (movie.coreLibrary.isEmpty ? nil : movie.coreLibrary) {
                    fields.append((field, value))
                }
            default: fields.append((field, String(movie.rerecords)))
            }
        }
        for extra in movie.extras
        where extra.key.hasPrefix("bk2.") && extra.key != logKeyExtra && extra.key != newlineExtra
            && !extra.key.hasPrefix(fileExtraPrefix) && !leadingKeys.contains(String(extra.key.dropFirst(4)))
        {
            fields.append((String(extra.key.dropFirst(4)), extra.value))
        }
        return fields
    }

    /// Refuses movies whose input the LogKey cannot express (a button or command without a column).
    static func checkCoverage(_ movie: Movie, _ key: LogKey) throws(MovieError) {
        var covered = [UInt16](repeating: 0, count: InputState.maxPorts)
        var commands: MovieFrameFlags = []
        for column in key.columns {
            if let button = column.button {
                covered[column.port] |= UInt16(1) << UInt16(button.rawValue)
            } else {
                commands.formUnion(column.flag)
            }
        }
        for frame in 0..<movie.length {
            let flags = movie.log.flags(at: frame).intersection(.commands)
            if !flags.isSubset(of: commands) {
                let what = flags.subtracting(commands).contains(.power) ? "Power" : "Reset"
                throw MovieError(
                    """
                    cannot export to .bk2: frame \(frame + 1) has a \(what.lowercased()) but the LogKey has no \
                    \(what) column
                    """
                )
            }
            let input = movie.log.input(at: frame)
            for port in 0..<movie.log.ports where input.buttons[port] & ~covered[port] != 0 {
                let button = RetroPadButton.allCases.first {
                    input.isPressed($0, port: port) && covered[port] & UInt16(1) << UInt16($0.rawValue) == 0
                }!
                throw MovieError(
                    """
                    cannot export to .bk2: frame \(frame + 1) presses '\(button.name)' on port \(port + 1), which \
                    the LogKey has no column for
                    """
                )
            }
        }
    }

    /// BizHawk's LogKey for movies not imported from a .bk2: NesHawk's, Gambatte's, or a RetroPad one.
    static func defaultLogKey(platform: String, movie: Movie) -> String {
        let players = 1...movie.log.ports
        switch platform {
        case "NES":
            return "#Reset|Power|"
                + players.map { player in "#" + nesPad.map { "P\(player) \($0)|" }.joined() }.joined()
        case "GB", "GBC": return gameBoyLogKey
        default:
            let names = movie.buttons.map { $0.name.prefix(1).uppercased() + $0.name.dropFirst() }
            return "#Reset|Power|" + players.map { player in "#" + names.map { "P\(player) \($0)|" }.joined() }.joined()
        }
    }

    /// BizHawk's platform id for the movie's system (`NES`, `GB`…), or the system name itself.
    static func platform(for movie: Movie) -> String {
        let system = movie.system.lowercased()
        if let known = platforms.first(where: { $0.system.lowercased() == system }) { return known.platform }
        if FM2.isNESLike(movie) { return "NES" }
        let gameBoy = system.contains("game boy") && !system.contains("advance")
        if gameBoy || (system.isEmpty && gameBoyCores.contains(movie.coreName.lowercased())) {
            return movie.contentName.lowercased().hasSuffix(".gbc") ? "GBC" : "GB"
        }
        return movie.system
    }
}
