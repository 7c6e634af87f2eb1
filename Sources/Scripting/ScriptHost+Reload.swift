import CLua
import Foundation

/// The version of a script file that failed (`--watch`): its modification time when it was read (nil: no
/// file then). Any other time is a save, so the script is loaded again.
struct ScriptFileVersion {
    let modified: Date?
}

/// Hot reload (`--watch`) and what the scripts are told of each other's failures and loads.
extension ScriptHost {
    /// Every 15 frames (counted in frames run or paused redraws, not emu.framecount(): a state load moves that
    /// backwards): a running script whose file changed is replaced by the new version; a failed one whose file
    /// was saved since is loaded again.
    func reloadChangedScripts() {
        framesSinceReloadCheck += 1
        guard framesSinceReloadCheck >= 15 else { return }
        framesSinceReloadCheck = 0
        for (index, script) in scripts.enumerated() {
            guard script.isFromFile, let date = Script.modificationDate(script.path), date != script.modified else {
                continue
            }
            do {
                let fresh = try Script(
                    path: script.path, host: self, compat: script.compat, frontendDefault: script.isFrontendDefault)
                script.detach()
                scripts[index] = fresh
                show(message: "reloaded \(fresh.name)", from: "retrolua")
                fresh.resume()
                announceLoaded(fresh)
            } catch {
                // Keep the running version; try again after the next save. Said on screen too (the person
                // editing is looking at the game, not at stderr): the message's first line, where it failed.
                script.markSeen(date)
                report(failure: error, told: false)
                let first = "\(error)".split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init)
                show(message: "reload failed, \(script.name) keeps running: \(first ?? "error")", from: "retrolua")
            }
        }
        for (path, version) in awaitingFix where Script.modificationDate(path) != version.modified {
            awaitingFix[path] = nil
            guard let known = knownScripts.first(where: { $0.path == path }) else { continue }
            do {
                try load(scriptAt: known.path, compat: known.compat, frontendDefault: known.frontendDefault)
                if loadedScript(at: known.path) != nil { show(message: "reloaded \(known.name)", from: "retrolua") }
            } catch {
                report(failure: error)
            }
        }
        reap()
    }

    /// `script_loaded(name)` to the other scripts, once `script` has started (the OSD drops its failure note).
    func announceLoaded(_ script: Script) {
        guard !script.failed else { return }
        dispatch(.scriptLoaded, except: script) { L in
            lua_pushstring(L, script.name); return 1
        }
    }

    /// `script_failed(name, message, watched)` to the scripts still running, unless a script of that name runs
    /// (a reload that did not compile keeps the running version).
    func announce(failure: ScriptError) {
        guard !scripts.contains(where: { $0.name == failure.script && !$0.failed }) else { return }
        let watched = awaitingFix.keys.contains { ($0 as NSString).lastPathComponent == failure.script }
        dispatch(.scriptFailed) { L in
            lua_pushstring(L, failure.script); lua_pushstring(L, failure.message)
            lua_pushboolean(L, watched ? 1 : 0)
            return 3
        }
    }
}
