import Foundation
import Libretro

/// The movie's operations with their rules: none starts or loads a branch inside the input poll, none
/// plays in hardcore mode; each sends the movie's events on when it returns.
extension Emulator {
    public func recordMovie(to path: String, options: MovieEngine.RecordOptions) throws(Refusal) {
        try refuseDuringInputPoll()
        try movieOperation { () throws(MovieError) in try movie.record(to: path, options: options) }
    }

    /// Plays the movie file at `path` from its start; returns warnings (other core version, options set).
    @discardableResult
    public func playMovie(at path: String, options: MovieEngine.PlayOptions) throws(Refusal) -> [String] {
        try refuseDuringInputPoll()
        if hardcore { throw .hardcore("movie playback is") }
        let played: Movie
        do { played = try MovieText.read(path: path) } catch { throw Refusal(.movie, error.description) }
        return try playMovie(played, path: path, options: options)
    }

    /// Plays a movie already read (or converted); returns warnings.
    @discardableResult
    public func playMovie(_ played: Movie, path: String?, options: MovieEngine.PlayOptions) throws(Refusal) -> [String]
    {
        try refuseDuringInputPoll()
        if hardcore { throw .hardcore("movie playback is") }
        var warnings: [String] = []
        try movieOperation { () throws(MovieError) in warnings = try movie.play(played, path: path, options: options) }
        return warnings
    }

    public func stopMovie() throws(Refusal) {
        try movieOperation { () throws(MovieError) in try movie.stop() }
    }

    /// Saves the movie (to `path` or its own file); returns the backup of the file it replaced, if one was made.
    @discardableResult
    public func saveMovie(to path: String?) throws(Refusal) -> String? {
        var backup: String?
        try movieOperation { () throws(MovieError) in backup = try movie.save(to: path) }
        return backup
    }

    public func setMovieReadOnly(_ on: Bool) {
        movie.setReadOnly(on)
        flushMovieEvents()
    }

    public func setMovieInput(_ frame: Int, _ input: InputState, flags: MovieFrameFlags) throws(Refusal) {
        try movieOperation { () throws(MovieError) in try movie.setInput(frame, input, flags: flags) }
    }

    public func saveBranch(_ name: String) throws(Refusal) {
        try refuseDuringInputPoll()
        try movieOperation { () throws(MovieError) in try movie.saveBranch(name) }
    }

    /// Loads a branch: its state, and its input replaces the movie's. A state load: refused in hardcore.
    public func loadBranch(_ name: String) throws(Refusal) {
        try refuseDuringInputPoll()
        if hardcore { throw .hardcore("state loads are") }
        try movieOperation { () throws(MovieError) in try movie.loadBranch(name) }
    }

    public func deleteBranch(_ name: String) throws(Refusal) {
        try movieOperation { () throws(MovieError) in try movie.deleteBranch(name) }
    }

    private func movieOperation(_ body: () throws(MovieError) -> Void) throws(Refusal) {
        defer { flushMovieEvents() }
        do { try body() } catch { throw Refusal(.movie, error.description) }
    }
}
