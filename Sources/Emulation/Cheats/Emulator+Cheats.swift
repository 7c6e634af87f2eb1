import Foundation
import Libretro
import Support

/// Cheats with their rule: none may be added, turned on or loaded in hardcore mode (turning one off,
/// removing and listing always work).
extension Emulator {
    public func addCheat(
        _ description: String, _ kind: Cheat.Kind, enabled: Bool = true,
        extras: [(key: String, value: String)] = []
    ) throws(Refusal) -> Int {
        if hardcore { throw .hardcore("cheats are") }
        if let problem = kind.problem { throw Refusal(.outOfRange, problem) }
        return cheats.add(description, kind, enabled: enabled, extras: extras)
    }

    /// Turns a cheat on or off; false when there is no such id.
    public func enableCheat(_ id: Int, _ on: Bool) throws(Refusal) -> Bool {
        if on && hardcore { throw .hardcore("cheats are") }
        return cheats.setEnabled(id, on)
    }

    public func removeCheat(_ id: Int) -> Bool { cheats.remove(id) }

    public func removeAllCheats() { cheats.removeAll() }

    /// Reads a RetroArch `.cht` file into the list (replacing it unless `append`); the number read.
    /// The list is unchanged when the file cannot be used.
    public func loadCheats(from path: String, append: Bool) throws(Refusal) -> Int {
        if hardcore { throw .hardcore("cheats are") }
        let data: [UInt8]
        do { data = try BoundedFile.read(path, limit: CheatFile.maxSize) } catch {
            throw Refusal(.failed, error.kind == .missing ? "\(path): no such cheat file" : "\(path): \(error.reason)")
        }
        let loaded: [Cheat]
        do { loaded = try CheatFile.parse(String(decoding: data, as: UTF8.self), name: path) } catch {
            throw .failed(error)
        }
        if !append { cheats.removeAll() }
        for cheat in loaded { cheats.add(cheat.description, cheat.kind, enabled: cheat.enabled, extras: cheat.extras) }
        return loaded.count
    }

    /// Writes the list as a RetroArch `.cht` file, durably.
    public func saveCheats(to path: String) throws(Refusal) {
        do { try DurableFile.write(Array(CheatFile.encode(cheats.cheats).utf8), to: path) } catch {
            throw .failed(error)
        }
    }
}
