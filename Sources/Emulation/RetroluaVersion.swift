/// Retrolua's version: `retrolua --version`, movie headers and the emulator fields of exported movies.
public enum RetroluaVersion {
    public static let number = "0.1.0"
    /// How movies and exports name the program that wrote them.
    public static let emulator = "Retrolua \(number)"
}
