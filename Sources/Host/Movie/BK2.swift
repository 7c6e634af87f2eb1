// Placeholder until the BK2 converter lands.
public enum BK2 {
    static func read(path: String) throws(MovieError) -> Movie { throw MovieError("bk2: not yet") }
    static func encode(_ movie: Movie) throws(MovieError) -> [UInt8] { throw MovieError("bk2: not yet") }
}
