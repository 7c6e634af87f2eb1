import Foundation
import Libretro
import Support

/// Savestates: containers with the counters, the scripts' data and, during a movie, its input; slots,
/// files and raw bytes; and the rules for loading them (hardcore, the movie's timeline, the core and
/// content they were made with).
extension Emulator {
    /// What a state made now needs: the core's state size and the trailer after it.
    public struct StateLayout {
        let coreSize: Int
        let trailer: [UInt8]
        let headerSize: Int
        /// The whole container's size in bytes.
        public var length: Int { headerSize + coreSize + trailer.count }
    }

    /// `~/.local/share/retrolua/states/GAME/slotN.state`.
    public func slotPath(_ slot: Int) -> String {
        session.paths.states + "/" + (session.content?.baseName ?? session.coreName) + "/slot\(slot).state"
    }

    public static let slots = 0...999

    /// The layout of a state made now; refused inside the input poll or when the core cannot save.
    public func stateLayout() throws(Refusal) -> StateLayout {
        try refuseDuringInputPoll()
        let size: Int
        do { size = try session.core.stateSize() } catch { throw .failed(error) }
        let block = movie.stateBlock()
        return StateLayout(
            coreSize: size, trailer: StateContainer.trailer(scriptData, movieBlock: block),
            headerSize: statePrefix.count + StateContainer.countersSize)
    }

    /// Writes a container of `layout` (exactly `layout.length` bytes) at `container`.
    public func writeState(_ layout: StateLayout, into container: UnsafeMutableRawPointer) throws(Refusal) {
        let size = layout.coreSize, header = layout.headerSize
        do {
            try session.core.serialize(into: UnsafeMutableRawBufferPointer(start: container + header, count: size))
        } catch {
            throw .failed(error)
        }
        statePrefix.withUnsafeBytes { container.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        StateContainer.writeCounters(
            frame: session.frameCount, lag: session.lagCount, stateSize: size,
            to: container + statePrefix.count)
        layout.trailer.withUnsafeBytes {
            (container + header + size).copyMemory(from: $0.baseAddress!, byteCount: $0.count)
        }
    }

    /// A complete container of the current state.
    public func encodeState() throws(Refusal) -> [UInt8] {
        let layout = try stateLayout()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: layout.length, alignment: 16)
        defer { buffer.deallocate() }
        try writeState(layout, into: buffer.baseAddress!)
        return Array(buffer)
    }

    /// Saves the current state to a slot or file, durably; emits `stateSaved`.
    public func saveState(to target: StateTarget) throws(Refusal) {
        let path = try self.path(of: target)
        do { try DurableFile.write(try encodeState(), to: path) } catch let refusal as Refusal { throw refusal } catch {
            throw .failed(error)
        }
        emit(.stateSaved(target))
    }

    /// The largest savestate file read (cores' states are kilobytes to tens of megabytes).
    public static let maxStateFileSize = 256 << 20

    /// Loads a slot or file; emits `stateLoaded`. The game is untouched when it is refused.
    public func loadState(from target: StateTarget) throws(Refusal) {
        let path = try self.path(of: target)
        try refuseStateLoads()
        let data: [UInt8]
        do { data = try BoundedFile.read(path, limit: Self.maxStateFileSize) } catch {
            throw Refusal(.failed, error.kind == .missing ? "\(path): no such savestate" : "\(path): \(error.reason)")
        }
        let problem = data.withUnsafeBytes { raw -> Refusal? in
            do throws(Refusal) { try restore(raw, trusted: false, quiet: false) } catch { return error }
            return nil
        }
        if let problem { throw Refusal(problem.kind, "\(path): \(problem.reason)") }
        emit(.stateLoaded(target))
    }

    /// Loads a container (or bare core state) held in memory: `trusted` when this process made it,
    /// `quiet` for run-ahead's undo (no movie rules, no event, queued sound kept).
    public func loadState(_ bytes: UnsafeRawBufferPointer, trusted: Bool, quiet: Bool = false) throws(Refusal) {
        try refuseStateLoads()
        try restore(bytes, trusted: trusted, quiet: quiet)
        if !quiet { emit(.stateLoaded(nil)) }
    }

    /// `loadState` of bytes held in an array (the control socket's, tests').
    public func loadState(_ bytes: [UInt8], trusted: Bool, quiet: Bool = false) throws(Refusal) {
        let problem = bytes.withUnsafeBytes { raw -> Refusal? in
            do throws(Refusal) { try loadState(raw, trusted: trusted, quiet: quiet) } catch { return error }
            return nil
        }
        if let problem { throw problem }
    }

    /// What every state load from a door must pass first.
    private func refuseStateLoads() throws(Refusal) {
        try refuseDuringInputPoll()
        if hardcore { throw .hardcore("state loads are") }
    }

    private func path(of target: StateTarget) throws(Refusal) -> String {
        switch target {
        case .slot(let slot):
            guard Emulator.slots.contains(slot) else { throw Refusal(.outOfRange, "slot must be 0…999, got \(slot)") }
            return slotPath(slot)
        case .file(let path):
            return path
        }
    }

    /// `restore` of bytes held in an array.
    func restore(_ bytes: [UInt8], trusted: Bool, checkMovie: Bool) throws(Refusal) {
        let problem = bytes.withUnsafeBytes { raw -> Refusal? in
            do throws(Refusal) { try restore(raw, trusted: trusted, quiet: false, checkMovie: checkMovie) } catch {
                return error
            }
            return nil
        }
        if let problem { throw problem }
    }

    /// Restores a container (or a bare core state): core, counters, script data; the movie's rules
    /// unless `quiet` or `checkMovie` is false (the movie's own start state and branches).
    func restore(_ bytes: UnsafeRawBufferPointer, trusted: Bool, quiet: Bool, checkMovie: Bool = true) throws(Refusal) {
        let container: StateContainer
        do { container = try StateContainer.decode(bytes) } catch {
            throw Refusal(.failed, "not a savestate: \(error.message)")
        }
        var block: MovieStateBlock?
        let movieRules = checkMovie && !quiet && movie.isActive
        if movieRules {
            if let range = container.movieBlock {
                guard let decoded = MovieStateBlock.decode(UnsafeRawBufferPointer(rebasing: bytes[range])) else {
                    throw Refusal(.movie, "the state's movie input is corrupt")
                }
                block = decoded
            }
            if let problem = movie.checkLoad(block) { throw Refusal(.movie, problem) }
        }
        let core = session.core
        // States this process made carry this session's own prefix; others are checked.
        if !container.isBare && !trusted {
            let coreName = container.coreName(in: bytes), sha1 = container.contentSHA1(in: bytes)
            if coreName != core.systemInfo.libraryName {
                throw Refusal(.failed, "the state was made by \(coreName), not \(core.systemInfo.libraryName)")
            }
            if let ours = session.content?.sha1, !sha1.isEmpty, sha1 != ours {
                throw Refusal(
                    .failed,
                    "the state was made with other content (SHA-1 \(sha1.prefix(12))…, this is \(ours.prefix(12))…)"
                )
            }
        }
        do {
            try core.unserialize(UnsafeRawBufferPointer(rebasing: bytes[container.coreState]), protecting: !trusted)
        } catch {
            throw .failed(error)
        }
        if !container.isBare {
            session.restoreCounters(frame: container.frame, lag: container.lag)
            scriptData = container.scriptData
        }
        if movieRules { movie.didLoad(block) }
        if !quiet { emit(.timeJumped) }
    }
}
