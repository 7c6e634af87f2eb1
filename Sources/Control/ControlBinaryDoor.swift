import Emulation
import Foundation
import Glibc
import Libretro
import Support

/// The binary door of one client: its shared region (screen as RGB, RAM, sound, state, each at a
/// fixed offset) and the commands of `ControlBinaryProtocol`, translated to the same `Emulator`
/// operations the JSON commands use. Every number from the peer is range-checked before use.
public final class ControlBinaryDoor {
    typealias Wire = ControlBinaryProtocol
    private unowned let session: ControlSession
    let region: ControlSharedRegion
    /// (offset, capacity) of each area in the region.
    let screen: (offset: Int, capacity: Int)
    let ram: (offset: Int, capacity: Int)
    let audio: (offset: Int, capacity: Int)
    let state: (offset: Int, capacity: Int)
    /// Where a state from the peer is copied before loading, reused (fresh megabytes per load would
    /// cost more in page faults than the core's own unserialize).
    private var privateState = UnsafeMutableRawBufferPointer.allocate(byteCount: 0, alignment: 16)
    private let snapshots = ControlSnapshots()
    /// What `preprocess` set for this connection (nil: steps give raw screens only).
    private(set) var preprocessing: ControlBinaryPreprocessing?
    /// After `batch`: the lane of the batch region this connection's steps are also taken from, whose
    /// screen and RAM areas then replace the door's own (see ControlBatchLane).
    private(set) var lane: ControlBatchLane?
    /// Takes the descriptor the peer passed last (set by the server for the connection).
    var takeDescriptor: () -> Int32 = { -1 }
    /// Where screens (and processed observations) and RAM are written: the region's areas, or the lane's.
    private var screenBase: UnsafeMutableRawPointer
    private var ramBase: UnsafeMutableRawPointer

    init(session: ControlSession) throws(ControlError) {
        self.session = session
        let emulator = session.emulator
        let core = session.emulator.session.core
        let pixels = max(
            (core.avInfo?.maxWidth ?? 0) * (core.avInfo?.maxHeight ?? 0), core.frameWidth * core.frameHeight, 1)
        let largestDomain = emulator.memory.domains.map(\.size).max() ?? 0
        let rate = Int(core.avInfo?.sampleRate ?? 48000)
        let stateLength = (try? emulator.stateLayout().length) ?? 0
        var offset = 0
        func area(_ capacity: Int) -> (offset: Int, capacity: Int) {
            defer { offset += (capacity + 4095) & ~4095 }
            return (offset, capacity)
        }
        screen = area(pixels * 3)
        ram = area(min(max(largestDomain, 4096), ControlFacts.maxRead))
        audio = area(max(rate, 48000) * 2 * 4)  // two seconds of stereo int16
        state = area(max(stateLength * 2, 16 << 20))  // pages never touched cost nothing
        region = try ControlSharedRegion(size: offset)
        screenBase = region.base + screen.offset
        ramBase = region.base + ram.offset
    }

    deinit { privateState.deallocate() }

    /// The handshake's fields (the JSON reply that carries the region's descriptor).
    var handshake: [String: Any] {
        let description = ControlFacts.Description(session.emulator)
        return [
            "version": Wire.version, "size": region.size, "request_size": Wire.requestSize,
            "reply_size": Wire.replySize,
            "screen": [screen.offset, screen.capacity], "ram": [ram.offset, ram.capacity],
            "audio": [audio.offset, audio.capacity], "state": [state.offset, state.capacity],
            "domains": description.domainList, "default_domain": description.defaultDomain ?? -1,
            "buttons": ControlFacts.buttons,
        ]
    }

    /// One request: its reply now, or (a long step) work run a slice at a time between other clients.
    func start(_ message: ArraySlice<UInt8>) -> ControlBinaryOutcome {
        let request = Wire.Request(message)
        do {
            guard let command = Wire.Command(rawValue: request.command) else {
                throw ControlError("binary: unknown command \(request.command) (1…15)")
            }
            if command == .step {
                let step = try ControlBinaryStep(request, door: self, session: session)
                return .continuing { step.runSlice() }
            }
            return .reply(try perform(command, request).encoded())
        } catch {
            return .reply(Wire.error(ControlFacts.error(error).description))
        }
    }

    private func perform(_ command: Wire.Command, _ request: Wire.Request) throws -> Wire.Reply {
        guard
            request.flags == 0 || command == .step || command == .movie
                || (command == .saveState && request.flags == Wire.saveKeep)
        else {
            throw ControlError("binary: flags apply to step, save_state and movie only")
        }
        let emulator = session.emulator
        var reply = Wire.Reply()
        switch command {
        case .step: break  // started in start(_:) as work run a slice at a time, never here
        case .screen: try screen(&reply)
        case .read: try read(request, &reply)
        case .write: try write(request)
        case .saveState: try saveState(request, &reply)
        case .loadState: try loadState(request)
        case .audio: takeAudio(&reply)
        case .snapshot: try snapshot(request, &reply)
        case .restore: try snapshots.restore(emulator, request.a)
        case .forget: reply.done = snapshots.forget(request.a) ? 1 : 0
        case .movie: try movie(request)
        case .reset: try emulator.reset()
        case .quit: session.requestQuit()
        case .preprocess: try preprocess(request, &reply)
        case .batch: try batch(request)
        }
        reply.frame = emulator.frameCount
        reply.lag = emulator.lagCount
        return reply
    }

    // MARK: Commands

    /// The last frame as RGB in the screen area.
    private func screen(_ reply: inout Wire.Reply) throws {
        (reply.width, reply.height) = try writeScreen()
        reply.length = reply.width * reply.height * 3
    }

    /// `count` is the domain, `a` the address, `b` the length: the bytes at the start of the RAM area.
    private func read(_ request: Wire.Request, _ reply: inout Wire.Reply) throws {
        let domain = try self.domain(request.count)
        guard let address = Int(exactly: request.a) else {
            throw ControlError("binary read: the address \(request.a) is out of range")
        }
        guard let length = Int(exactly: request.b), (1...ram.capacity).contains(length) else {
            throw ControlError("binary read: the length must be 1…\(ram.capacity), got \(request.b)")
        }
        try session.emulator.memory.copy(domain, address: address, count: length, into: ramBase)
        reply.length = length
    }

    /// The payload's bytes to domain `count` at address `a`.
    private func write(_ request: Wire.Request) throws {
        let domain = try self.domain(request.count)
        guard let address = Int(exactly: request.a) else {
            throw ControlError("binary write: the address \(request.a) is out of range")
        }
        try session.emulator.write(Array(request.payload), to: domain, address: address)
    }

    /// The state in the state area; with `saveKeep`, also kept as snapshot `a` (its id in `frames`).
    private func saveState(_ request: Wire.Request, _ reply: inout Wire.Reply) throws {
        let emulator = session.emulator
        let layout = try emulator.stateLayout()
        guard layout.length <= state.capacity else {
            throw ControlError("binary: the state (\(layout.length) bytes) exceeds the shared area's \(state.capacity)")
        }
        if request.flags & Wire.saveKeep != 0 {
            let saved = try snapshots.save(emulator, into: request.a)
            snapshots.copy(saved.id, into: region.base + state.offset)
            reply.frames = Int(truncatingIfNeeded: saved.id)
        } else {
            try emulator.writeState(layout, into: region.base + state.offset)
        }
        reply.length = layout.length
    }

    /// Loads the `a` bytes at the start of the state area, from a private copy: the peer could change the
    /// shared bytes while the core reads them.
    private func loadState(_ request: Wire.Request) throws {
        guard let length = Int(exactly: request.a), (1...state.capacity).contains(length) else {
            throw ControlError("binary load_state: the length must be 1…\(state.capacity), got \(request.a)")
        }
        if privateState.count < length {
            privateState.deallocate()
            privateState = .allocate(byteCount: length, alignment: 16)
        }
        let copy = UnsafeMutableRawBufferPointer(rebasing: privateState[0..<length])
        copy.copyMemory(from: UnsafeRawBufferPointer(start: region.base + state.offset, count: length))
        try session.emulator.loadState(UnsafeRawBufferPointer(copy), trusted: false)
    }

    /// The sound not yet taken, as many stereo frames as fit, in the audio area.
    private func takeAudio(_ reply: inout Wire.Reply) {
        let samples = session.takeAudio(upTo: audio.capacity / 2)
        samples.withUnsafeBytes {
            (region.base + audio.offset).copyMemory(from: $0.baseAddress!, byteCount: $0.count)
        }
        reply.frames = samples.count / 2
        reply.length = samples.count * 2
    }

    /// Keeps the state as snapshot `a` (0: a new one): its id and length.
    private func snapshot(_ request: Wire.Request, _ reply: inout Wire.Reply) throws {
        let saved = try snapshots.save(session.emulator, into: request.a)
        (reply.frames, reply.length) = (Int(truncatingIfNeeded: saved.id), saved.length)
    }

    /// This connection's observation processing (frame skip, sticky actions, no-op starts, frame stack).
    private func preprocess(_ request: Wire.Request, _ reply: inout Wire.Reply) throws {
        let options = try ControlBinaryPreprocessing(request.payload, capacity: screen.capacity)
        preprocessing = options
        reply.frames = options.stack
        reply.width = options.size?.width ?? 0
        reply.height = options.size?.height ?? 0
    }

    /// Joins the batch region passed with the request: its lane's screen and RAM areas replace the door's.
    private func batch(_ request: Wire.Request) throws {
        guard session.servesLanes else {
            Glibc.close(takeDescriptor())
            throw ControlError(
                "binary batch: this run plays in a window; batch regions are for headless runs (run --headless --control …)"
            )
        }
        let lane = try ControlBatchLane(
            descriptor: takeDescriptor(), payload: request.payload, screenCapacity: screen.capacity,
            ramCapacity: ram.capacity)
        self.lane = lane
        (screenBase, ramBase) = (lane.screen, lane.ram)
    }

    /// Records from now to the payload's path, or stops (the episodes of an environment's `record`).
    private func movie(_ request: Wire.Request) throws {
        let emulator = session.emulator
        switch request.flags {
        case Wire.movieRecord:
            guard let path = String(validating: request.payload, as: UTF8.self), path.hasPrefix("/"),
                !path.contains("\0")
            else { throw ControlError("binary movie: the payload must be an absolute file path (UTF-8)") }
            // A peer names where to write, not what to create: the folder must be there already.
            let folder = FilePath.folder(of: path)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                throw ControlError("binary movie: the folder \(folder) does not exist")
            }
            var options = MovieEngine.RecordOptions()
            options.start = .now
            try emulator.recordMovie(to: path, options: options)
        case Wire.movieStop: try emulator.stopMovie()
        default: throw ControlError("binary movie: flags are 1 (record from now) or 2 (stop), got \(request.flags)")
        }
    }

    private func domain(_ index: UInt32) throws -> MemoryAccess.Domain {
        let domains = session.emulator.memory.domains
        guard let index = Int(exactly: index), domains.indices.contains(index) else {
            throw ControlError("binary: no memory domain \(index) (the core has \(domains.count))")
        }
        return domains[index]
    }

    /// Answers the request waiting in the batch lane, if one does (run to its end: the lane's trainer
    /// waits for every emulator anyway); whether one did.
    func serveLane() -> Bool {
        guard let lane, let taken = lane.takeRequest() else { return false }
        let message: [UInt8]
        switch taken {
        case .success(let bytes): message = bytes
        case .failure(let refusal):
            lane.finish(Wire.error(refusal.description))
            return true
        }
        switch start(message[...]) {
        case .reply(let reply): lane.finish(reply)
        case .continuing(let work):
            while true {
                if let reply = work() {
                    lane.finish(reply)
                    break
                }
            }
        }
        return true
    }

    /// The core's last frame as RGB rows in the screen area; its width and height.
    func writeScreen() throws(ControlError) -> (Int, Int) {
        guard let frame = session.emulator.lastFrame else {
            throw ControlError("the core has not drawn a frame yet")
        }
        guard frame.width * frame.height * 3 <= screen.capacity else {
            throw ControlError("binary: the frame (\(frame.width)x\(frame.height)) exceeds the shared screen area")
        }
        frame.writeRGB(into: screenBase)  // in the frame's own format (GL: XRGB8888)
        return (frame.width, frame.height)
    }

    /// A processed step's observation in the screen area; its width, height and length.
    func writeObservation(
        _ options: ControlBinaryPreprocessing, pool: Bool, episodeStart: Bool
    ) throws(ControlError)
        -> (Int, Int, Int)
    {
        guard let frame = session.emulator.lastFrame else {
            throw ControlError("the core has not drawn a frame yet")
        }
        return try options.observe(
            frame, pool: pool, episodeStart: episodeStart, into: screenBase, capacity: screen.capacity)
    }

    /// The default domain's bytes (up to the RAM area's size) at the start of the RAM area.
    func writeRAM() throws -> Int {
        let memory = session.emulator.memory
        let domain = try memory.defaultDomain()
        let length = min(domain.size, ram.capacity)
        guard length > 0 else { return 0 }
        try memory.copy(domain, address: 0, count: length, into: ramBase)
        return length
    }
}

/// What a binary request becomes: its reply, or a step that runs a slice per turn.
public enum ControlBinaryOutcome {
    case reply([UInt8])
    case continuing(() -> [UInt8]?)
}
