import Libretro
import Support

/// One image in the core's disc tray, as `disc.list()` shows it. Indexes are 1-based from here up.
public struct DiscImage: Sendable, Equatable {
    public let index: Int
    public let path: String?
    public let label: String?
}

/// The disc tray (multi-disc games: `.m3u` playlists and the core's disk control). Its rules live here:
/// a core without disk control, a change during the input poll or while a movie plays or records
/// (disc swaps are not part of a movie's input), an index outside the tray, and a disc change with
/// the tray closed (libretro.h: only an open tray takes another disc) are refused.
extension Emulator {
    private var tray: Core { session.core }

    private func requireTray() throws(Refusal) -> DiscTray {
        guard let state = tray.discTray() else {
            throw Refusal(.failed, "core '\(session.coreName)' has no disk control (it takes one disc at a time)")
        }
        return state
    }

    private func refuseDiscChange(_ what: String) throws(Refusal) {
        try refuseDuringInputPoll()
        if movie.mode != .idle {
            throw Refusal(
                .movie, "\(what) not allowed while a movie is \(movie.mode == .play ? "playing" : "recording")")
        }
    }

    /// The tray: image count, the inserted image (1-based; nil when none), and whether it is open.
    public func discState() throws(Refusal) -> DiscTray { try requireTray() }

    /// Every image the tray holds, with the path and label the core (or the playlist) gives.
    public func discImages() throws(Refusal) -> [DiscImage] {
        let state = try requireTray()
        return (0..<state.count).map { DiscImage(index: $0 + 1, path: tray.discPath($0), label: tray.discLabel($0)) }
    }

    /// Opens (`true`) or closes the tray.
    public func setDiscEjected(_ ejected: Bool) throws(Refusal) {
        _ = try requireTray()
        try refuseDiscChange(ejected ? "disc eject" : "disc insert")
        guard tray.setDiscEjected(ejected) else {
            throw Refusal(.failed, "core '\(session.coreName)' refused to \(ejected ? "open" : "close") the tray")
        }
    }

    /// Puts image `index` (1-based) in the open tray.
    public func selectDisc(_ index: Int) throws(Refusal) {
        let state = try requireTray()
        try refuseDiscChange("disc change")
        guard index >= 1, index <= state.count else {
            throw Refusal(.outOfRange, "disc \(index) does not exist (the tray holds \(state.count))")
        }
        guard state.ejected else { throw Refusal(.failed, "the tray is closed: eject first (disc.eject())") }
        guard tray.setDiscIndex(index - 1) else {
            throw Refusal(.failed, "core '\(session.coreName)' refused disc \(index)")
        }
    }

    /// Adds a disc image file at the end of the tray; returns its index.
    public func addDisc(path: String) throws(Refusal) -> Int {
        let state = try requireTray()
        try refuseDiscChange("adding a disc")
        do { _ = try BoundedFile.size(path) } catch { throw Refusal(.failed, "\(path): \(error.reason)") }
        guard tray.addDisc(path: path) else {
            throw Refusal(.failed, "core '\(session.coreName)' did not take \(path) as a disc")
        }
        return state.count + 1
    }
}
