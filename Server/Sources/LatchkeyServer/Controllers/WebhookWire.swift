import Foundation
import LatchkeyAPI
import LatchkeyCore

/// A webhook endpoint as `/admin/webhooks` and `latchkey webhooks` show it; `secret` only in the
/// answer that created it.
public struct WebhookEndpointBody: Codable, Sendable {
    public var id: String
    public var url: String
    /// The event types it gets; empty: all.
    public var events: [String]
    /// `env` (`LATCHKEY_WEBHOOK_URL`) or `api`.
    public var source: String
    public var createdAt: Date
    public var secret: String?

    enum CodingKeys: String, CodingKey {
        case id, url, events, source, secret
        case createdAt = "created_at"
    }

    public init(_ endpoint: WebhookEndpointRecord, secret: String? = nil) {
        id = endpoint.id.lowercasedString
        url = endpoint.url
        events = endpoint.events.map(\.rawValue)
        source = endpoint.source.rawValue
        createdAt = endpoint.createdAt
        self.secret = secret
    }
}

/// `POST /admin/webhooks`.
public struct WebhookEndpointRequest: Codable, Sendable {
    public var url: String?
    public var secret: String?
    public var events: [String]?
}

/// One delivery, as `/admin/webhooks/{id}/deliveries` shows it.
public struct WebhookDeliveryBody: Codable, Sendable {
    public var id: String
    public var endpointID: String
    public var type: String
    /// `pending`, `delivered` or `failed`.
    public var state: String
    public var attempts: Int
    public var lastError: String?
    public var createdAt: Date
    public var nextAttemptAt: Date

    enum CodingKeys: String, CodingKey {
        case id, type, state, attempts
        case endpointID = "endpoint_id"
        case lastError = "last_error"
        case createdAt = "created_at"
        case nextAttemptAt = "next_attempt_at"
    }

    public init(_ delivery: WebhookDelivery) {
        id = delivery.id.lowercasedString
        endpointID = delivery.endpointID.lowercasedString
        type = delivery.type
        state = delivery.state.rawValue
        attempts = delivery.attempts
        lastError = delivery.lastError
        createdAt = delivery.createdAt
        nextAttemptAt = delivery.nextAttemptAt
    }
}

/// `POST /admin/webhooks/replay`: deliveries by id, or every failed one (of one endpoint).
public struct WebhookReplayRequest: Codable, Sendable {
    public var ids: [String]?
    public var failed: Bool?
    public var endpointID: String?

    enum CodingKeys: String, CodingKey {
        case ids, failed
        case endpointID = "endpoint_id"
    }
}
