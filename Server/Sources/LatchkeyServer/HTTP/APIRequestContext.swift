import Hummingbird
import Logging
import NIOCore

/// Per-request state: the peer's address, for rate limits.
public struct APIRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The socket's peer, as text.
    public let peerAddress: String

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.peerAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    /// Bodies over 1 MB are refused, as GoTrue does.
    public var maxUploadSize: Int { 1 << 20 }
}
