import CLibretro
import CRetroShim
import Foundation
import Support

/// The disc tray a core offers through SET_DISK_CONTROL_INTERFACE (or its _EXT form, which adds
/// paths and labels): what the frontend knows besides the core's callbacks, and the memory handed
/// to it, kept until the core goes (libretro.h: `replace_image_index` takes what `retro_load_game` does).
final class DiskControl {
    var callbacks: retro_disk_control_ext_callback
    let extended: Bool
    /// Paths and labels the frontend gave, by index, for cores that cannot tell them.
    var paths: [Int: String] = [:]
    var labels: [Int: String] = [:]
    private var kept: [UnsafeMutableRawPointer] = []

    init(_ callbacks: retro_disk_control_ext_callback, extended: Bool) {
        self.callbacks = callbacks
        self.extended = extended
    }

    func keep(_ bytes: [UInt8]) -> UnsafeRawPointer? {
        guard !bytes.isEmpty, let copy = malloc(bytes.count) else { return nil }
        bytes.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        kept.append(copy)
        return UnsafeRawPointer(copy)
    }

    deinit { for pointer in kept { free(pointer) } }
}

/// What the tray holds now. Indexes are 0-based here (the Lua door adds one).
public struct DiscTray: Sendable, Equatable {
    public let count: Int
    /// The inserted image, nil when none is (the core reports an index past the last).
    public let index: Int?
    public let ejected: Bool
}

extension Core {
    func acceptDiskControl(_ data: UnsafeMutableRawPointer?, extended: Bool) -> Bool {
        guard let data else { return false }
        let size =
            extended
            ? MemoryLayout<retro_disk_control_ext_callback>.size : MemoryLayout<retro_disk_control_callback>.size
        guard rs_is_readable(data, size) != 0 else { return false }
        let callbacks: retro_disk_control_ext_callback
        if extended {
            callbacks = data.load(as: retro_disk_control_ext_callback.self)
        } else {
            // The basic interface's seven, in the same order; the extended three stay absent.
            let basic = data.load(as: retro_disk_control_callback.self)
            callbacks = retro_disk_control_ext_callback(
                set_eject_state: basic.set_eject_state, get_eject_state: basic.get_eject_state,
                get_image_index: basic.get_image_index, set_image_index: basic.set_image_index,
                get_num_images: basic.get_num_images, replace_image_index: basic.replace_image_index,
                add_image_index: basic.add_image_index, set_initial_image: nil, get_image_path: nil,
                get_image_label: nil)
        }
        // The five a tray needs; a core that gives fewer has no usable disk control.
        guard callbacks.set_eject_state != nil, callbacks.get_eject_state != nil, callbacks.get_image_index != nil,
            callbacks.set_image_index != nil, callbacks.get_num_images != nil
        else { return false }
        let known = diskControl
        diskControl = DiskControl(callbacks, extended: extended)
        if let known {
            diskControl?.paths = known.paths
            diskControl?.labels = known.labels
        }
        return true
    }

    /// True when the core gave a disc tray.
    public var hasDiskControl: Bool { diskControl != nil }

    public func discTray() -> DiscTray? {
        guard let callbacks = diskControl?.callbacks else { return nil }
        let count = Int(callbacks.get_num_images?() ?? 0)
        let index = Int(callbacks.get_image_index?() ?? 0)
        return DiscTray(
            count: count, index: index < count ? index : nil, ejected: callbacks.get_eject_state?() ?? false)
    }

    /// Opens or closes the tray; false when the core refused.
    public func setDiscEjected(_ ejected: Bool) -> Bool {
        diskControl?.callbacks.set_eject_state?(ejected) ?? false
    }

    /// Selects an image (the tray must be open, libretro.h says); false when the core refused.
    public func setDiscIndex(_ index: Int) -> Bool {
        guard let value = UInt32(exactly: index) else { return false }
        return diskControl?.callbacks.set_image_index?(value) ?? false
    }

    /// Appends an image (`add_image_index` then `replace_image_index`, with the tray open); false when
    /// the core cannot add images or refused this one.
    public func addDisc(path: String, label: String? = nil) -> Bool {
        guard let control = diskControl, let add = control.callbacks.add_image_index,
            let replace = control.callbacks.replace_image_index, let tray = discTray()
        else { return false }
        let bytes = systemInfo.needFullpath ? [] : ((try? BoundedFile.read(path, limit: Content.maxLoadedSize)) ?? [])
        if !systemInfo.needFullpath && bytes.isEmpty { return false }
        if !tray.ejected { _ = setDiscEjected(true) }
        defer { if !tray.ejected { _ = setDiscEjected(false) } }
        guard add() else { return false }
        var game = retro_game_info(
            path: strings.keep(path), data: control.keep(bytes), size: bytes.count, meta: nil)
        guard replace(UInt32(truncatingIfNeeded: tray.count), &game) else { return false }
        control.paths[tray.count] = path
        if let label { control.labels[tray.count] = label }
        return true
    }

    /// The image's path: the core's answer (the _EXT interface), else the one the frontend gave.
    public func discPath(_ index: Int) -> String? {
        guard let control = diskControl else { return nil }
        if let get = control.callbacks.get_image_path, let value = UInt32(exactly: index),
            let text = Self.askString({ get(value, $0, $1) })
        {
            return text
        }
        return control.paths[index]
    }

    /// The image's label: the core's (the _EXT interface), else the playlist's, else its file name.
    public func discLabel(_ index: Int) -> String? {
        guard let control = diskControl else { return nil }
        if let get = control.callbacks.get_image_label, let value = UInt32(exactly: index),
            let text = Self.askString({ get(value, $0, $1) })
        {
            return text
        }
        return control.labels[index] ?? discPath(index).map { FilePath.fileName(of: $0) }
    }

    /// Adds a playlist's other discs after its first was loaded.
    func insertExtraDiscs(_ content: Content) {
        diskControl?.paths[0] = content.corePath
        if let label = content.playlist?.entries.first?.label { diskControl?.labels[0] = label }
        guard !content.extraDiscs.isEmpty else { return }
        guard hasDiskControl else {
            log(.warn, "\(content.path): core has no disk control; only its first disc is loaded")
            return
        }
        for disc in content.extraDiscs where !addDisc(path: disc.path, label: disc.label) {
            log(.warn, "\(content.path): the core did not take \(disc.path) as a further disc")
        }
    }

    /// A string a core writes into a buffer we give (NUL-terminated within it, else refused).
    private static func askString(_ body: (UnsafeMutablePointer<CChar>, Int) -> Bool) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let ok = buffer.withUnsafeMutableBufferPointer { body($0.baseAddress!, $0.count - 1) }
        guard ok, buffer[0] != 0 else { return nil }
        buffer[buffer.count - 1] = 0
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
