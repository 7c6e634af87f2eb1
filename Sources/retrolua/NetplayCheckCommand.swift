import Foundation
import Libretro
import Run
import Scripting

/// `retrolua netplay-check ROM --core X`: the SyncTest — a headless run of the netplay default in its
/// check mode (lua/retrolua/netplay_check.lua), which rolls back every frame and compares the replay.
enum NetplayCheckCommand {
    static let spec = CommandSpec(
        name: "netplay-check", summary: "check a core replays deterministically enough for netplay (SyncTest)",
        usage: [
            "netplay-check ROM [--core NAME|PATH] [--frames N] [--rollback N] [--buttons LIST] [--option KEY=VALUE]"
        ],
        description: """
            Runs ROM headless on random input held on ports 1 and 2 (only buttons each pad has, never two
            opposite directions) and, after every frame, loads the state of N frames ago and replays them
            unseen, as netplay's rollback does; then checks the replay reached what the first run did: every
            memory domain and the savestate's bytes. Prints one line: deterministic; time-dependent state
            (memory identical, but the core's savestates change with no frame run, so only memory was
            compared); deterministic in memory (memory identical, but some replays reached other state
            bytes: state outside memory a load does not restore); or NOT deterministic, with the first frame
            whose replay differed, what differed and the buttons held. Exit status 0 for the first three, 1
            when the core failed or could not be checked, 2 for a bad command line.
            """,
        groups: [
            OptionGroup([
                Option("core", "NAME|PATH", "the core to check (default: chosen from the ROM's extension)"),
                Option("frames", "N", "frames to run (default 600)"),
                Option("rollback", "N", "frames rolled back and replayed after each frame, 1…60 (default 8)"),
                Option(
                    "buttons", "LIST",
                    "the buttons the random input presses, comma-separated RetroPad names (default: all but select "
                        + "and start)"),
                Option("option", "KEY=VALUE", "set a core option (repeatable)"),
                Option(
                    "json", nil,
                    "also print the run's JSON line, with results.netplay_check: deterministic, time-dependent, "
                        + "memory (deterministic in memory), desync or failed"),
            ])
        ])

    static func main(_ raw: [String]) {
        let args: Arguments
        do { args = try Arguments(raw, spec: spec) } catch {
            usageFail("netplay-check: \(error)", command: "netplay-check")
        }
        if args.flag("help") { print(spec.helpText); exit(0) }
        guard args.positionals.count == 1 else {
            usageFail("netplay-check: expected one ROM", command: "netplay-check")
        }
        let frames: Int, rollback: Int
        do {
            frames = try args.integer("frames") ?? 600
            rollback = try args.integer("rollback") ?? 8
        } catch { usageFail("netplay-check: \(error)", command: "netplay-check") }
        guard (1...1_000_000).contains(frames) else {
            usageFail("netplay-check: --frames must be 1…1000000", command: "netplay-check")
        }
        guard (1...60).contains(rollback) else {
            usageFail("netplay-check: --rollback must be 1…60", command: "netplay-check")
        }
        var buttons: Int?
        if let list = args.value("buttons") {
            var mask = 0
            for name in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                guard let button = RetroPadButton.named(name) else {
                    usageFail("netplay-check: --buttons: no button '\(name)'", command: "netplay-check")
                }
                mask |= 1 << button.rawValue
            }
            buttons = mask
        }
        // The check ends the run itself; the limit leaves room for a core that cannot save at first.
        var run = [args.positionals[0], "--headless", "--frames", String(frames + 64)]
        if let core = args.value("core") { run += ["--core", core] }
        for pair in args.all("option") { run += ["--option", pair] }
        run.append(args.flag("json") ? "--json" : "--quiet")
        var plan: RunPlan
        do throws(CommandLineError) {
            guard let parsed = try RunArguments.parse(run) else { exit(0) }
            plan = parsed
        } catch { fail(error.message.replacingOccurrences(of: "run: ", with: "netplay-check: "), code: error.code) }
        var request = NetplayRequest(mode: .check)
        request.frames = frames
        request.rollback = rollback
        request.buttons = buttons
        plan.scriptOptions.netplay = request
        exit(RunCommand.execute(plan))
    }
}
