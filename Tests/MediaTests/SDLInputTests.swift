import CSDL2
import Foundation
import XCTest
@testable import Media

/// Host input through SDL without any hardware: keyboard and mouse as synthetic events pushed into
/// SDL's queue, game controllers as SDL virtual joysticks plugged and unplugged mid-run.
final class SDLInputTests: XCTestCase {
    private func push(_ build: (inout SDL_Event) -> Void) {
        var event = SDL_Event()
        build(&event)
        XCTAssertEqual(SDL_PushEvent(&event), 1, String(cString: SDL_GetError()))
    }

    private func key(
        _ type: SDL_EventType, _ code: SDL_KeyCode, _ scancode: SDL_Scancode, repeat again: Bool = false,
        mod: SDL_Keymod = KMOD_NONE
    ) {
        push {
            $0.type = type.rawValue
            $0.key.keysym.sym = SDL_Keycode(code.rawValue)
            $0.key.keysym.scancode = scancode
            $0.key.keysym.mod = UInt16(mod.rawValue)
            $0.key.state = UInt8(type == SDL_KEYDOWN ? SDL_PRESSED : SDL_RELEASED)
            $0.key.repeat = again ? 1 : 0
        }
    }

    func testKeyboardStateAndEvents() {
        let input = SDLInput(mappingsFile: nil)
        _ = input.poll()
        key(SDL_KEYDOWN, SDLK_a, SDL_SCANCODE_A)
        key(SDL_KEYDOWN, SDLK_LEFT, SDL_SCANCODE_LEFT)
        key(SDL_KEYDOWN, SDLK_RETURN, SDL_SCANCODE_RETURN)
        XCTAssertEqual(
            input.poll(),
            [.keyDown("a", repeat: false), .keyDown("left", repeat: false), .keyDown("return", repeat: false)])
        XCTAssertEqual(input.devices.keys, ["a", "left", "return"])

        key(SDL_KEYDOWN, SDLK_a, SDL_SCANCODE_A, repeat: true)
        key(SDL_KEYUP, SDLK_LEFT, SDL_SCANCODE_LEFT)
        XCTAssertEqual(input.poll(), [.keyDown("a", repeat: true), .keyUp("left")])
        XCTAssertEqual(input.devices.keys, ["a", "return"])
        XCTAssertEqual(input.poll(), [], "held keys stay held without new events")
        XCTAssertEqual(input.devices.keys, ["a", "return"])

        // A chord within one frame: by the poll the ctrl is up again, but each event keeps the modifiers SDL
        // gave it (a ctrl's own press has ctrl, its release has not).
        key(SDL_KEYDOWN, SDLK_LCTRL, SDL_SCANCODE_LCTRL, mod: KMOD_LCTRL)
        key(SDL_KEYDOWN, SDLK_n, SDL_SCANCODE_N, mod: KMOD_LCTRL)
        key(SDL_KEYUP, SDLK_n, SDL_SCANCODE_N, mod: SDL_Keymod(KMOD_LCTRL.rawValue | KMOD_RSHIFT.rawValue))
        key(SDL_KEYUP, SDLK_LCTRL, SDL_SCANCODE_LCTRL)
        XCTAssertEqual(
            input.poll(),
            [
                .keyDown("left ctrl", repeat: false, modifiers: .ctrl), .keyDown("n", repeat: false, modifiers: .ctrl),
                .keyUp("n", modifiers: [.ctrl, .shift]), .keyUp("left ctrl"),
            ])
        XCTAssertEqual(input.devices.keys, ["a", "return"], "the chord is not held any more")

        push {
            $0.type = SDL_WINDOWEVENT.rawValue
            $0.window.event = UInt8(SDL_WINDOWEVENT_FOCUS_LOST.rawValue)
        }
        XCTAssertEqual(input.poll(), [.focusLost])
        XCTAssertEqual(input.devices.keys, [], "keys held when focus went cannot stay stuck down")
    }

    func testMouseAndWindowEvents() {
        let input = SDLInput(mappingsFile: nil)
        _ = input.poll()
        push {
            $0.type = SDL_MOUSEMOTION.rawValue; $0.motion.x = 120; $0.motion.y = 80
        }
        push {
            $0.type = SDL_MOUSEBUTTONDOWN.rawValue; $0.button.button = UInt8(SDL_BUTTON_LEFT); $0.button.x = 121;
            $0.button.y = 81
        }
        push {
            $0.type = SDL_MOUSEBUTTONDOWN.rawValue; $0.button.button = UInt8(SDL_BUTTON_RIGHT); $0.button.x = 121;
            $0.button.y = 81
        }
        push {
            $0.type = SDL_MOUSEWHEEL.rawValue; $0.wheel.y = 1
        }
        push {
            $0.type = SDL_MOUSEWHEEL.rawValue; $0.wheel.y = 2
        }
        push {
            $0.type = SDL_WINDOWEVENT.rawValue; $0.window.event = UInt8(SDL_WINDOWEVENT_SIZE_CHANGED.rawValue);
            $0.window.data1 = 640; $0.window.data2 = 480
        }
        // Each press is an event too (a click within one frame is seen though the held buttons never show it).
        XCTAssertEqual(
            input.poll(),
            [.mouseDown("left", x: 121, y: 81), .mouseDown("right", x: 121, y: 81), .windowResized(640, 480)])
        XCTAssertEqual(input.devices.mouse.x, 121)
        XCTAssertEqual(input.devices.mouse.y, 81)
        XCTAssertEqual(input.devices.mouse.buttons, ["left", "right"])
        XCTAssertEqual(input.devices.mouse.wheel, 3)

        push {
            $0.type = SDL_MOUSEBUTTONUP.rawValue; $0.button.button = UInt8(SDL_BUTTON_LEFT); $0.button.x = 121;
            $0.button.y = 81
        }
        XCTAssertEqual(input.poll(), [.mouseUp("left", x: 121, y: 81)])
        XCTAssertEqual(input.devices.mouse.buttons, ["right"])
        XCTAssertEqual(input.devices.mouse.wheel, 0, "the wheel counts one frame's turning")

        // Closing the last window sends a window close and SDL_QUIT: one quit.
        push {
            $0.type = SDL_WINDOWEVENT.rawValue; $0.window.event = UInt8(SDL_WINDOWEVENT_CLOSE.rawValue)
        }
        push { $0.type = SDL_QUIT.rawValue }
        XCTAssertEqual(input.poll(), [.quit])
    }

    func testVirtualGamepadPlugPressAndUnplug() throws {
        let input = SDLInput(mappingsFile: nil)
        _ = input.poll()
        XCTAssertEqual(input.devices.gamepads.count, 0)

        let pad = try VirtualGamepad(name: "Test Pad")
        XCTAssertEqual(input.poll(), [.gamepadAdded("Test Pad")])
        XCTAssertEqual(input.devices.gamepads.map(\.name), ["Test Pad"])
        XCTAssertEqual(input.devices.gamepads.first?.buttons, [])

        XCTAssertTrue(pad.set(button: "a", pressed: true))
        XCTAssertTrue(pad.set(button: "dpup", pressed: true))
        XCTAssertTrue(pad.set(axis: "leftx", value: 20000))
        XCTAssertFalse(pad.set(button: "no such button", pressed: true))
        XCTAssertEqual(input.poll(), [])
        let state = try XCTUnwrap(input.devices.gamepads.first)
        XCTAssertEqual(state.buttons, ["a", "dpup"])
        XCTAssertEqual(state.axes["leftx"], 20000)
        XCTAssertEqual(state.axes["righty"], 0)
        XCTAssertEqual(Set(state.axes.keys), ["leftx", "lefty", "rightx", "righty", "lefttrigger", "righttrigger"])

        pad.set(button: "a", pressed: false)
        _ = input.poll()
        XCTAssertEqual(input.devices.gamepads.first?.buttons, ["dpup"])

        // Pulled out while a button is held: it simply disappears.
        pad.unplug()
        XCTAssertEqual(input.poll(), [.gamepadRemoved("Test Pad")])
        XCTAssertEqual(input.devices.gamepads.count, 0)
        XCTAssertFalse(pad.set(button: "a", pressed: true), "an unplugged pad takes no input")
        pad.unplug()
        XCTAssertEqual(input.poll(), [])
    }

    func testUnplugBetweenPollsAndSeveralPads() throws {
        let input = SDLInput(mappingsFile: nil)
        let first = try VirtualGamepad(name: "Pad One")
        let second = try VirtualGamepad(name: "Pad Two")
        XCTAssertEqual(input.poll(), [.gamepadAdded("Pad One"), .gamepadAdded("Pad Two")])
        second.set(button: "start", pressed: true)
        first.set(button: "b", pressed: true)
        first.unplug()  // before the poll that would have seen its press
        XCTAssertEqual(input.poll(), [.gamepadRemoved("Pad One")])
        XCTAssertEqual(input.devices.gamepads.map(\.name), ["Pad Two"])
        XCTAssertEqual(input.devices.gamepads.first?.buttons, ["start"])
        second.unplug()
        _ = input.poll()
        XCTAssertTrue(input.devices.gamepads.isEmpty)
    }

    func testControllersConnectedAtStartAreOpenedAndAnnounced() throws {
        let bootstrap = SDLInput(mappingsFile: nil)  // starts the joystick subsystem for the virtual pad
        let pad = try VirtualGamepad(name: "Early Pad")
        _ = bootstrap.poll()
        let input = SDLInput(mappingsFile: nil)
        XCTAssertEqual(input.devices.gamepads.map(\.name), ["Early Pad"], "visible before the first poll")
        XCTAssertEqual(input.poll(), [.gamepadAdded("Early Pad")], "announced once")
        pad.unplug()
        XCTAssertEqual(input.poll(), [.gamepadRemoved("Early Pad")])
    }

    func testMappingFileIsReported() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("retrolua-sdlinput-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("gamecontrollerdb.txt")
        let line =
            "03000000aaaa0000bbbb000000000000,Retrolua Test Mapping,a:b0,b:b1,leftx:a0,lefty:a1,platform:Linux,\n"
        try line.write(to: file, atomically: true, encoding: .utf8)
        let input = SDLInput(mappingsFile: file.path)
        XCTAssertEqual(input.notices, ["\(file.path): 1 controller mappings"])
        XCTAssertEqual(SDLInput(mappingsFile: dir.appendingPathComponent("missing.txt").path).notices, [])
    }
}
