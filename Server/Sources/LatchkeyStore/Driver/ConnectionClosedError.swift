/// A statement was not sent because its connection had closed (the pool shut down, or the
/// server went away); the database may answer again on another connection.
public struct ConnectionClosedError: Error, Sendable, CustomStringConvertible {
    public var description: String { "the database connection is closed" }
}
