// Placeholder until the FM2 converter lands.
public enum FM2 {
    static func decode(_ bytes: [UInt8], name: String) throws(MovieError) -> Movie { throw MovieError("fm2: not yet") }
    static func encode(_ movie: Movie) throws(MovieError) -> [UInt8] { throw MovieError("fm2: not yet") }
}
