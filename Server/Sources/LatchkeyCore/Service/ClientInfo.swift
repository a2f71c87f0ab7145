/// Who is calling, as far as the server can tell: the client IP used for rate limits (the
/// socket's peer unless a trusted proxy header is configured) and the user agent.
public struct ClientInfo: Sendable, Equatable {
    public var ip: String
    public var userAgent: String?

    public init(ip: String, userAgent: String? = nil) {
        self.ip = ip
        self.userAgent = userAgent
    }
}
