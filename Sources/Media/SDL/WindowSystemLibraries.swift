import Glibc

/// SDL loads the window system's client libraries when a window first opens (the binary links none, so it
/// starts on servers without them); where a display is named but its libraries are missing, this says so
/// instead of SDL's bare fallback to an invisible driver.
enum WindowSystemLibraries {
    /// Why the named display's libraries cannot be loaded, or nil when they can (or no display is named).
    static func missing() -> String? {
        if let display = getenv("DISPLAY").map({ String(cString: $0) }),
            let why = firstMissing(["libX11.so.6", "libXext.so.6"])
        {
            return "DISPLAY is \(display) but X11's libraries are not installed (\(why); Debian: apt-get install "
                + "libx11-6 libxext6 libxcursor1 libxi6 libxrandr2 libxss1)"
        }
        if let display = getenv("WAYLAND_DISPLAY").map({ String(cString: $0) }),
            let why = firstMissing(["libwayland-client.so.0", "libwayland-egl.so.1", "libxkbcommon.so.0"])
        {
            return "WAYLAND_DISPLAY is \(display) but Wayland's libraries are not installed (\(why))"
        }
        return nil
    }

    /// dlerror's text for the first library that does not load.
    private static func firstMissing(_ names: [String]) -> String? {
        for name in names {
            guard let library = dlopen(name, RTLD_LAZY | RTLD_LOCAL) else {
                return dlerror().map { String(cString: $0) } ?? "\(name) not found"
            }
            dlclose(library)
        }
        return nil
    }
}
