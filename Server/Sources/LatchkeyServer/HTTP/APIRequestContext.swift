import Foundation
import Hummingbird
import LatchkeyCore
import Logging
import NIOCore

/// Per-request state: the peer's address, and the client it stands for.
public struct APIRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The socket's peer, as text.
    public let peerAddress: String
    /// The caller as rate limits and the audit log see it: resolved once per request by
    /// `AuditContextMiddleware` (``ClientResolver``); the bare peer until then.
    public internal(set) var client: ClientInfo
    /// The request's id: the caller's `X-Request-Id` when it is a sane one, else the server's
    /// own (`RequestLogMiddleware`); in every log line of the request, echoed in the answer and
    /// in a server error's `error_id`.
    public internal(set) var requestID: String
    /// The signed-in caller, once ``BearerAuthentication`` has read the bearer token (routes for a
    /// signed-in user get it as ``AuthenticatedContext/principal``, not optional).
    public internal(set) var principal: Principal?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.peerAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
        self.client = ClientInfo(ip: peerAddress)
        self.requestID = source.logger[metadataKey: "hb.request.id"]?.description ?? UUID().lowercasedString
    }

    /// Bodies over 1 MB are refused, as GoTrue does.
    public var maxUploadSize: Int { 1 << 20 }
}
