/// Failures a store reports that the domain handles.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Code: String, Sendable {
        case duplicate
        case notFound
        case unavailable
        case conflict
    }

    let code: Code
    /// What went wrong, for logs only.
    public let detail: String

    /// A unique constraint was violated (for example, an email already in use).
    public static func duplicate(_ detail: String) -> StoreError { StoreError(code: .duplicate, detail: detail) }
    /// A row the operation needs does not exist.
    public static func notFound(_ detail: String) -> StoreError { StoreError(code: .notFound, detail: detail) }
    /// The database could not be reached or answered with an error.
    public static func unavailable(_ detail: String) -> StoreError { StoreError(code: .unavailable, detail: detail) }

    /// The row changed since the caller read it; the write was not made.
    public static func conflict(_ detail: String) -> StoreError { StoreError(code: .conflict, detail: detail) }

    public var isDuplicate: Bool { code == .duplicate }
    public var isConflict: Bool { code == .conflict }
    public var isNotFound: Bool { code == .notFound }

    public var description: String { "store \(code.rawValue): \(detail)" }
}
