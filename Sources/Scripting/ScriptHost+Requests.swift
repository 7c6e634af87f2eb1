import Foundation
import Media

/// A script file the host has loaded: enough to load it again (`scripts.load`, the menu's on/off).
struct KnownScript {
    let path: String
    let compat: String?
    let frontendDefault: Bool
    /// `failures.count` when it was last loaded: later failures under its name are its errors.
    var failuresBefore = 0

    init(path: String, compat: String?, frontendDefault: Bool) {
        self.path = URL(fileURLWithPath: path).standardizedFileURL.path
        self.compat = compat
        self.frontendDefault = frontendDefault
    }

    var name: String { (path as NSString).lastPathComponent }
}

/// What a script asked the host to do with another script (or itself), done between frames.
enum ScriptRequest {
    case load(KnownScript)
    case unload(path: String)
    case reload(path: String)
}

/// One line of `scripts.list()`.
struct ScriptStatus {
    let name: String
    let path: String
    let loaded: Bool
    let isDefault: Bool
    let error: String?
    /// "refused" (it asked for the network without permission: the menu offers the grant), "granted" (by
    /// the menu, for its content as loaded), or nil.
    let network: String?
}

/// Input capture (`input.capture`) and scripts loading and unloading scripts (`scripts.*`).
extension ScriptHost {
    /// The script holding the input, while it is loaded and has not failed (a failed owner frees it).
    var capturingScript: Script? {
        guard let owner = inputOwner, !owner.failed, scripts.contains(where: { $0 === owner }) else { return nil }
        return owner
    }

    /// The devices as `script` sees them: nothing held while another script holds the input.
    func devices(for script: Script) -> HostDevices {
        if let owner = capturingScript, owner !== script { return HostDevices() }
        return screen.devices
    }

    /// Takes or releases the input for `script`; returns the other script that holds it, if one does.
    func capture(_ on: Bool, by script: Script) -> Script? {
        if let owner = capturingScript, owner !== script { return owner }
        inputOwner = on ? script : nil
        return nil
    }

    func remember(_ known: KnownScript) {
        var known = known
        known.failuresBefore = failures.count
        if let index = knownScripts.firstIndex(where: { $0.path == known.path }) {
            knownScripts[index] = known
        } else {
            knownScripts.append(known)
        }
    }

    func loadedScript(at path: String) -> Script? { scripts.first { $0.path == path && !$0.failed } }

    var scriptStatuses: [ScriptStatus] {
        knownScripts.map { known in
            let loaded = loadedScript(at: known.path) != nil
            let error = failures.dropFirst(known.failuresBefore).last { $0.script == known.name }?.message
            let network =
                networkRefused.contains(known.path)
                ? "refused" : loadedScript(at: known.path)?.hasMenuNetworkGrant == true ? "granted" : nil
            return ScriptStatus(
                name: known.name, path: known.path, loaded: loaded, isDefault: known.frontendDefault, error: error,
                network: network)
        }
    }

    /// The request for loading `path`: a default frontend script keeps its standing, any other file is
    /// an ordinary script (the caller's file roots were checked by the binding) run through the layer its
    /// names point to (`--compat auto`): a connector written for BizHawk or mGBA, loaded from the menu, runs.
    func loadRequest(_ path: String) -> KnownScript {
        let standard = URL(fileURLWithPath: path).standardizedFileURL.path
        if let known = knownScripts.first(where: { $0.path == standard }) { return known }
        let isDefault = defaultScripts.contains { URL(fileURLWithPath: $0.path).standardizedFileURL.path == standard }
        return KnownScript(path: standard, compat: isDefault ? nil : "auto", frontendDefault: isDefault)
    }

    func carryOutScriptRequests() {
        let requests = scriptRequests
        scriptRequests = []
        for request in requests {
            switch request {
            case .load(let known):
                if loadedScript(at: known.path) == nil { start(known) }
            case .unload(let path):
                if let script = loadedScript(at: path) { stop(script) }
            case .reload(let path):
                guard let known = knownScripts.first(where: { $0.path == path }) else { continue }
                if let script = loadedScript(at: path) { stop(script) }
                reap()
                start(known)
            }
        }
        reap()
    }

    private func start(_ known: KnownScript) {
        do {
            try load(scriptAt: known.path, compat: known.compat, frontendDefault: known.frontendDefault)
            show(message: "loaded \(known.name)", from: "retrolua")
        } catch {
            report(failure: error)
        }
    }

    /// Unloads a script as at the end of a run: its `exit` callbacks first (the cheats default saves then).
    private func stop(_ script: Script) {
        if script.hasCallbacks(for: .exit) { script.dispatch(.exit) }
        script.detach()
        show(message: "unloaded \(script.name)", from: "retrolua")
    }
}
