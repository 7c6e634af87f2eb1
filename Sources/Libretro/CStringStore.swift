import Glibc

/// Owns C strings handed to a core, which may keep the pointers until it is unloaded.
final class CStringStore {
    private var owned: [UnsafeMutablePointer<CChar>] = []

    func keep(_ string: String) -> UnsafePointer<CChar> {
        let copy = strdup(string)!
        owned.append(copy)
        return UnsafePointer(copy)
    }

    deinit {
        for pointer in owned { free(pointer) }
    }
}
