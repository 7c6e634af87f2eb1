import Foundation
import XCTest

/// The `retrolua` Python package (python/) with pytest against the built binary:
/// Tests/python/test_package.py (the binary door's numpy views, batched steps, hostile binary
/// requests, launched emulators' lifetime, a fresh venv install); stable-retro integrations
/// (test_integration.py); the client's edges (test_client_edges.py); the examples (test_examples.py);
/// stable-baselines3 in build/venv-sb3 (test_sb3.py, and the examples again under gymnasium 0.29).
final class PythonPackageTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    func testThePythonPackage() throws {
        let result = try Fixtures.cli(
            [], environment: ["RETROLUA": Fixtures.binary], executable: Fixtures.python,
            arguments: [
                "-m", "pytest", "-q", "-p", "no:cacheprovider", Fixtures.root + "/Tests/python/test_package.py",
            ], timeout: 300)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("passed"), result.stdout)
    }

    /// Tests/python/test_ray.py: retrolua.ray's job map, Ray-actor vector env, the Ray farm example and
    /// `retrolua batch --ray` on a local 2-CPU Ray cluster (Ray from scripts/setup).
    func testTheRayFarm() throws {
        let result = try Fixtures.cli(
            [], environment: ["RETROLUA": Fixtures.binary, "RETROLUA_PYTHON": Fixtures.python],
            executable: Fixtures.python,
            arguments: ["-m", "pytest", "-q", "-p", "no:cacheprovider", Fixtures.root + "/Tests/python/test_ray.py"],
            timeout: 300)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("7 passed"), result.stdout)
    }

    /// Tests/python/test_integration.py: stable-retro game integrations against stable-retro's own engine.
    func testStableRetroIntegrationsAgainstStableRetro() throws {
        try pytest(Fixtures.python, ["test_integration.py"])
    }

    /// Tests/python/test_client_edges.py, test_structure.py (no import circle in the package, no private
    /// reach between its modules) and test_code_sizes.py (scripts/lint's size rules): a client truncating its
    /// shared memory, a scenario whose main chunk fails, a core that hangs (call timeouts, a parent killed
    /// meanwhile), Ctrl-C mid-step, and hostile integration folders (FIFO, gzip bomb, deep JSON, paths
    /// outside, oversized scripts); test_wire_layouts.py: the wire's layouts agree in Python, Swift and C.
    func testTheClientsEdges() throws {
        try pytest(
            Fixtures.python,
            ["test_client_edges.py", "test_structure.py", "test_code_sizes.py", "test_wire_layouts.py"])
    }

    func testTheExamples() throws {
        try pytest(Fixtures.python, ["test_examples.py", "test_docs.py"])
    }

    func testStableBaselines3AndTheExamplesOnGymnasium029() throws {
        guard FileManager.default.isExecutableFile(atPath: Fixtures.pythonSB3) else {
            throw XCTSkip("\(Fixtures.pythonSB3) is missing: run scripts/setup (it makes the stable-baselines3 venv)")
        }
        try pytest(Fixtures.pythonSB3, ["test_sb3.py", "test_examples.py"])
    }

    /// Tests/python/test_ppo_example.py: the PyTorch PPO example (examples/python/ppo.py) with a tiny budget
    /// on pixels and RAM, in build/venv-sb3 (the venv with torch and matplotlib).
    func testThePyTorchPPOExample() throws {
        guard FileManager.default.isExecutableFile(atPath: Fixtures.pythonSB3) else {
            throw XCTSkip("\(Fixtures.pythonSB3) is missing: run scripts/setup (it makes the venv with torch)")
        }
        try pytest(Fixtures.pythonSB3, ["test_ppo_example.py"])
    }

    /// Tests/python/test_puffer.py: retrolua.puffer's native PufferLib env passes PufferLib 2.0.2's checks, equals
    /// the pool step for step and runs under pufferlib.vector's native and Multiprocessing backends.
    func testThePufferLibEnvironment() throws {
        let python = Fixtures.root + "/build/venv-puffer/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw XCTSkip("\(python) is missing: run scripts/setup (it makes the PufferLib venv)")
        }
        try pytest(python, ["test_puffer.py"])
    }

    /// Runs Tests/python/FILES with `python -m pytest` against the built binary; fails on any failure.
    /// Tests/python/test_mcp.py: `retrolua mcp` driven by the MCP SDK's own client over stdio.
    func testTheMCPServer() throws { try pytest(Fixtures.python, ["test_mcp.py"]) }

    /// Tests/python/test_mcp_attach.py: `retrolua mcp --attach` drives a running headless or windowed game.
    func testTheMCPServerAttachedToARunningGame() throws { try pytest(Fixtures.python, ["test_mcp_attach.py"]) }

    /// Tests/python/test_mcp_play.py: the tools for play (wait_until, search, snapshots, reporter, Lua tools,
    /// notepad, session movie, grid and capture) and every one of them refusing bad arguments.
    func testTheMCPToolsForPlay() throws { try pytest(Fixtures.python, ["test_mcp_play.py"]) }

    /// Tests/python/test_mcp_http.py: `run --mcp` serves Streamable HTTP to the holder of its token, on loopback only.
    func testARunningGameServesMCPOverHTTP() throws { try pytest(Fixtures.python, ["test_mcp_http.py"]) }

    /// Tests/python/test_preprocessing.py: the emulator's frame skip, max-pool, grayscale, resize, frame
    /// stack, no-op starts and sticky actions equal a numpy reference on the same frames.
    func testPreprocessingWhereTheFramesAre() throws { try pytest(Fixtures.python, ["test_preprocessing.py"]) }

    /// Tests/python/test_batch.py: many emulators behind one batch door — the vector env and the pool
    /// (same seed, same batches in any order; the batch equals screenshots and reads; a core crashing
    /// mid-step; kill -9 of the trainer; hostile batch requests).
    func testManyEmulatorsBehindTheBatchDoor() throws { try pytest(Fixtures.python, ["test_batch.py"]) }

    /// Tests/python/test_batch_native.py: the trainer's per-batch work in C (libRetroluaBatch.so, built beside
    /// the binary) equals the Python path step for step on every observation kind and preprocessing; infos as
    /// arrays and as dicts agree; the C reader of info() objects agrees with json and leaves the rest to it.
    func testTheNativeBatchPathEqualsThePythonOne() throws {
        try pytest(Fixtures.python, ["test_batch_native.py"])
    }

    /// Tests/python/test_netplay.py: rollback netplay between two headless runs — seeded random input
    /// through a relay with delay, jitter and loss ends on the same state; a forced desync is reported;
    /// the handshake refuses other content, core and options; hostile peers and hosts; kill -9 of a joiner;
    /// test_netplay_guard.py: no amplification (spoofed hellos and need floods); test_netplay_room.py: two players
    /// meet in a room of `retrolua netplay-relay`; strangers, forged, reflected and replayed packets are dropped;
    /// test_netplay_spectate.py: spectators from the start and mid-game, every side's movie, a hostile spectator.
    func testNetplayOverARelay() throws {
        try pytest(
            Fixtures.python,
            ["test_netplay.py", "test_netplay_guard.py", "test_netplay_room.py", "test_netplay_spectate.py"])
    }

    private func pytest(_ python: String, _ files: [String]) throws {
        let result = try Fixtures.cli(
            [], environment: ["RETROLUA": Fixtures.binary], executable: python,
            arguments: ["-m", "pytest", "-q", "-p", "no:cacheprovider"]
                + files.map { Fixtures.root + "/Tests/python/" + $0 },
            timeout: 300)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("passed"), result.stdout)
    }
}
