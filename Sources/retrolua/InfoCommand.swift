import Foundation
import Libretro

/// `retrolua info ROM`: the core Retrolua would pick for a ROM, why, and the ROM's hashes.
enum InfoCommand {
    static let spec = CommandSpec(
        name: "info", summary: "show the core Retrolua would pick for ROM, and the ROM's hashes",
        usage: ["info ROM [--core NAME|PATH]"],
        description: """
            Shows the core Retrolua picks for ROM (or the one given), why, the others that could take it, its
            systems, and the ROM's size, CRC32 and SHA-1.
            """,
        groups: [OptionGroup([Option("core", "NAME|PATH", "the core to describe instead of the one chosen")])])

    static func main(_ raw: [String]) {
        let args: Arguments
        do { args = try Arguments(raw, spec: spec) } catch { usageFail("info: \(error)", command: "info") }
        if args.flag("help") { print(spec.helpText); exit(0) }
        guard args.positionals.count == 1, let path = args.positionals.first else {
            usageFail("info: expected one ROM", command: "info")
        }
        do {
            let content = try Content(path: BundledName.resolveOrFail(path, "content", command: "info"))
            let locator = CoreLocator()
            let core: InstalledCore
            var choice: CoreChoice?
            if let spec = args.value("core") {
                let corePath = try locator.resolve(spec)
                let name = (corePath as NSString).lastPathComponent.replacingOccurrences(of: "_libretro.so", with: "")
                core = locator.describe(path: corePath, name: name)
            } else {
                choice = try locator.choose(for: content)
                core = choice!.core
            }
            try content.prepare(extensions: core.extensions, needFullpath: false, core: core.name)
            if !core.extensions.isEmpty && !core.extensions.contains(content.fileExtension) {
                throw RetroError.wrongSystem(path: content.path, core: core.name, extensions: core.extensions)
            }
            print("content  \(content.path)")
            if let member = content.member { print("member   \(member)") }
            if let playlist = content.playlist { print("discs    \(playlist.entries.count)") }
            print("size     \(content.size) bytes")
            print("crc32    \(content.crc32)")
            print("sha1     \(content.sha1)")
            print("core     \(core.name) (\(core.displayName)) at \(core.path)")
            print("system   \(core.systems.isEmpty ? "-" : core.systems.joined(separator: ", "))")
            if let choice {
                print("chosen   \(choice.rule)")
                print("others   \(choice.alternatives.isEmpty ? "-" : choice.alternatives.joined(separator: ", "))")
            }
        } catch let error as RetroError {
            fail(error.description)
        } catch {
            fail("\(error)")
        }
    }
}
