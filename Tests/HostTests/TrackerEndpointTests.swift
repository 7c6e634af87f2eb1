import Foundation
import XCTest

/// The tools beside the emulator, driven by real clients on loopback (Tests/python/test_trackers.py): a UAT
/// tracker with PyPI's `websockets` syncing a pack script's variables (lua/retrolua/uat.lua) and hostile
/// WebSocket peers (wrong keys, unmasked, oversized and slow-drip frames, garbage, a peer that never reads);
/// a BizHawk-connector-protocol client driving a connector-shaped script of our own on NES, GB and GBA
/// (Tests/Fixtures/connectors/connector_bizhawk.lua). Tests/lua/websocket_test.lua checks the framing, SHA-1
/// and base64 under stock lua5.4.
final class TrackerEndpointTests: XCTestCase {
    override func setUpWithError() throws { try Fixtures.requireROMs() }

    func testATrackerSyncsAPacksVariablesOverUAT() throws {
        try pytest("test_a_tracker_syncs or without_the_network_permission")
    }

    func testHostileWebSocketPeersAreRefusedAndTheTrackerIsStillServed() throws { try pytest("hostile") }

    func testABizHawkClientDrivesAConnectorOnNESGBAndGBA() throws { try pytest("bizhawk_client") }

    func testTheWebSocketFramingUnderStockLua() throws {
        let result = try Fixtures.cli(
            [], executable: "/usr/bin/lua5.4", arguments: [Fixtures.root + "/Tests/lua/websocket_test.lua"])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("websocket: all passed"), result.stdout + result.stderr)
    }

    private func pytest(_ selection: String) throws {
        try Fixtures.assertPytestPasses("test_trackers.py", selecting: selection, summary: "passed")
    }
}
