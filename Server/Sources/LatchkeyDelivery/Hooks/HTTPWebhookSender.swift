import AsyncHTTPClient
import Foundation
import LatchkeyCore
import NIOCore
import NIOHTTP1

/// Posts webhook deliveries as Standard Webhooks: the event's JSON with `webhook-id` (the
/// delivery's id, the same on every attempt), `webhook-timestamp` and `webhook-signature` under
/// the endpoint's secret. Any 2xx answer delivers it; `410 Gone` gives it up; anything else, or
/// no answer within `timeout`, leaves it to the outbox to try again.
public struct HTTPWebhookSender: WebhookSender {
    let endpoints: WebhookEndpoints
    let client: HTTPClient
    let time: any TimeSource
    let timeout: Duration
    /// Where an endpoint may be: one on an internal address is given up on.
    let policy: OutboundPolicy

    /// - Parameter client: ``OutboundHTTP/makeClient()``'s.
    public init(
        endpoints: WebhookEndpoints, client: HTTPClient, time: any TimeSource, timeout: Duration = .seconds(10),
        policy: OutboundPolicy = OutboundPolicy()
    ) {
        self.policy = policy
        self.endpoints = endpoints
        self.client = client
        self.time = time
        self.timeout = timeout
    }

    public func send(_ delivery: OutboxRecord) async throws {
        guard let id = UUID(text: delivery.recipient), let endpoint = try await endpoints.endpoint(id: id) else {
            throw WebhookFailure(isPermanent: true, reason: "endpoint removed")
        }
        if let problem = await policy.problem(endpoint.url) { throw WebhookFailure(isPermanent: true, reason: problem) }
        let secret = try endpoints.secret(of: endpoint)
        let body = Array(delivery.payload.utf8)
        let messageID = delivery.id.lowercasedString
        let timestamp = Int(time.now().timeIntervalSince1970)
        let request = OutboundHTTP.signedPost(url: endpoint.url, body: body, id: messageID, timestamp: timestamp, secrets: [secret])
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: .nanoseconds(timeout.nanoseconds))
            _ = try? await response.body.collect(upTo: 64 * 1024)
        } catch {
            throw WebhookFailure(isPermanent: false, reason: "\(endpoint.url) could not be reached: \(error)")
        }
        switch response.status.code {
        case 200..<300: return
        case 410: throw WebhookFailure(isPermanent: true, reason: "\(endpoint.url) answered 410 Gone")
        default: throw WebhookFailure(isPermanent: false, reason: "\(endpoint.url) answered \(response.status.code)")
        }
    }
}
