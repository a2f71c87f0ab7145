import Foundation
import LatchkeyAPI

/// The operators' webhook endpoints: the one `LATCHKEY_WEBHOOK_URL` names, and those added through
/// `POST /admin/webhooks` or `latchkey webhooks add`. Each gets every event it subscribes to,
/// signed with its own secret (sealed at rest); deliveries are outbox rows, retried with back-off,
/// listed and replayed here.
public struct WebhookEndpoints: Sendable {
    let store: any WebhookStore
    let box: SecretBox
    let time: any TimeSource
    let random: any RandomSource

    /// The id of the endpoint from the environment: the same on every instance, so each start
    /// writes the same row.
    public static let environmentID = UUID(text: "00000000-0000-4000-8000-00000000e1e1")!

    public init(store: any WebhookStore, serverSecret: [UInt8], time: any TimeSource, random: any RandomSource) {
        self.store = store
        self.box = SecretBox(serverSecret: serverSecret, purpose: "latchkey webhook secret v1")
        self.time = time
        self.random = random
    }

    /// An endpoint with its secret in the clear: what `add` answers once, and the sender signs with.
    public struct Added: Sendable {
        public var endpoint: WebhookEndpointRecord
        public var secret: String
    }

    /// Adds an endpoint for `events` (all when empty), signed with `secret` (`v1,whsec_…`) or a
    /// new one, answered once: it is stored sealed.
    public func add(url: String, secret: String?, events: [String]) async throws -> Added {
        let added = try make(id: random.uuid(), url: url, secret: secret, events: events, source: .api)
        try await store.saveWebhookEndpoint(added.endpoint)
        return added
    }

    /// Writes the endpoint `LATCHKEY_WEBHOOK_URL` names. Without one nothing changes: an instance
    /// (or a CLI command) started without the variable does not take the endpoint away from the
    /// instances that have it; `latchkey webhooks remove` does.
    public func configureFromEnvironment(url: String?, secret: String?, events: [String]) async throws {
        guard let url else { return }
        guard let secret else { throw AuthError.validation("LATCHKEY_WEBHOOK_SECRET is required with LATCHKEY_WEBHOOK_URL") }
        try await store.saveWebhookEndpoint(
            make(id: Self.environmentID, url: url, secret: secret, events: events, source: .environment).endpoint)
    }

    func make(id: UUID, url: String, secret: String?, events: [String], source: WebhookEndpointRecord.Source) throws -> Added {
        if let problem = EndpointURL.problem(url) { throw AuthError.unprocessable("url: \(problem)") }
        var types: [WebhookEventType] = []
        for name in events {
            guard let type = WebhookEventType(rawValue: name) else {
                let known = WebhookEventType.allCases.map(\.rawValue).joined(separator: ", ")
                throw AuthError.validation("events: '\(name.prefix(64))' is not one of \(known)")
            }
            if !types.contains(type) { types.append(type) }
        }
        let text = secret ?? "v1,whsec_" + Data(random.bytes(32)).base64EncodedString()
        guard WebhookSecret(text) != nil else { throw AuthError.unprocessable("secret must be of the form v1,whsec_<base64>") }
        let sealed = try box.seal(Array(text.utf8), context: id.lowercasedString)
        return Added(
            endpoint: WebhookEndpointRecord(id: id, url: url, sealedSecret: sealed, events: types, source: source, createdAt: time.now()),
            secret: text)
    }

    public func endpoint(id: UUID) async throws -> WebhookEndpointRecord? {
        try await store.webhookEndpoint(id: id)
    }

    public func list() async throws -> [WebhookEndpointRecord] {
        try await store.webhookEndpoints()
    }

    /// Removes an endpoint; its pending deliveries are given up. The environment's comes back at
    /// the next start while `LATCHKEY_WEBHOOK_URL` names it.
    public func remove(id raw: String) async throws {
        guard let id = UUID(text: raw), try await store.deleteWebhookEndpoint(id: id) else {
            throw AuthError(.notFound, "Webhook endpoint not found")
        }
    }

    public func deliveries(endpointID raw: String?, state: WebhookDelivery.State?, limit: Int) async throws -> [WebhookDelivery] {
        var endpointID: UUID?
        if let raw {
            guard let id = UUID(text: raw) else { throw AuthError(.notFound, "Webhook endpoint not found") }
            endpointID = id
        }
        return try await store.webhookDeliveries(endpointID: endpointID, state: state, limit: min(max(limit, 1), 1000))
    }

    /// Queues finished deliveries again (same `webhook-id`, so a receiver that took one drops the
    /// repeat); answers those queued: a pending one, or one of a removed endpoint, is not.
    public func replay(ids raw: [String]) async throws -> [UUID] {
        let ids = raw.compactMap(UUID.init(text:))
        return try await store.replayWebhookDeliveries(ids: ids, now: time.now())
    }

    /// Queues every failed delivery (of one endpoint, or of all) again.
    public func replayFailed(endpointID raw: String?) async throws -> [UUID] {
        let failed = try await deliveries(endpointID: raw, state: .failed, limit: 1000)
        return try await store.replayWebhookDeliveries(ids: failed.map(\.id), now: time.now())
    }

    /// The secret an endpoint signs with.
    public func secret(of endpoint: WebhookEndpointRecord) throws -> WebhookSecret {
        let bytes = try box.open(endpoint.sealedSecret, context: endpoint.id.lowercasedString)
        guard let secret = WebhookSecret(String(decoding: bytes, as: UTF8.self)) else {
            throw AuthError(.unexpectedFailure, "The webhook endpoint's secret cannot be read")
        }
        return secret
    }
}
