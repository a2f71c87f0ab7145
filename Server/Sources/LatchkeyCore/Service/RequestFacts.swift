import Foundation
import Synchronization

/// What a request learns about itself as it runs, for its log line: the user it turned out to be
/// for. Bound per request (``current``) by the HTTP layer; the authenticator fills it in.
public final class RequestFacts: Sendable {
    private let user = Mutex<UUID?>(nil)

    public init() {}

    /// The request's, while it runs.
    @TaskLocal public static var current: RequestFacts?

    /// The user the request's token named, once it was verified.
    public var userID: UUID? {
        get { user.withLock { $0 } }
        set { user.withLock { $0 = newValue } }
    }
}
