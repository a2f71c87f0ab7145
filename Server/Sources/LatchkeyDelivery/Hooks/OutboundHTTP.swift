import AsyncHTTPClient
import LatchkeyCore
import NIOCore
import NIOHTTP1

/// The HTTP client every outbound call is made with: hooks, webhooks, and providers' documents,
/// keys and token endpoints.
public enum OutboundHTTP {
    /// A client that follows no redirect (a `3xx` is answered as it came, and callers take only
    /// a `2xx`): a URL accepted by its rule (HTTPS, loopback only where configured so) cannot send
    /// Latchkey on to an internal address through a `302`. A connection that cannot be made fails
    /// at once (the caller tries again after its own pause), where the shared client would keep
    /// trying until the call's time is up. Shut it down with the server.
    public static func makeClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(5)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    /// A Standard Webhooks `POST` of `body` to `url`: `webhook-id`, `webhook-timestamp`, and one
    /// signature per secret in `webhook-signature`.
    public static func signedPost(url: String, body: [UInt8], id: String, timestamp: Int, secrets: [WebhookSecret]) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Accept-Encoding", value: "identity")
        request.headers.add(name: "User-Agent", value: "Latchkey")
        request.headers.add(name: "webhook-id", value: id)
        request.headers.add(name: "webhook-timestamp", value: String(timestamp))
        request.headers.add(name: "webhook-signature", value: WebhookSecret.header(secrets, id: id, timestamp: timestamp, body: body))
        request.body = .bytes(ByteBuffer(bytes: body))
        return request
    }
}
