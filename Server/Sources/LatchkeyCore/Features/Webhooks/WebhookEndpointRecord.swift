import Foundation

/// Where events are posted: an endpoint from `LATCHKEY_WEBHOOK_URL` (``Source/environment``) or
/// one an operator added (`POST /admin/webhooks`, `latchkey webhooks add`).
public struct WebhookEndpointRecord: Sendable, Equatable {
    public enum Source: String, Sendable {
        case environment = "env"
        case api
    }

    public var id: UUID
    public var url: String
    /// The signing secret (`v1,whsec_…`), sealed under the server secret.
    public var sealedSecret: String
    /// The event types it receives; empty: all of them.
    public var events: [WebhookEventType]
    public var source: Source
    public var createdAt: Date

    public init(
        id: UUID, url: String, sealedSecret: String, events: [WebhookEventType], source: Source, createdAt: Date
    ) {
        self.id = id
        self.url = url
        self.sealedSecret = sealedSecret
        self.events = events
        self.source = source
        self.createdAt = createdAt
    }

    /// Whether it receives events of `type`.
    public func receives(_ type: WebhookEventType) -> Bool { events.isEmpty || events.contains(type) }
}

/// One event queued for one endpoint, as operators see it (`latchkey webhooks list`).
public struct WebhookDelivery: Sendable, Equatable {
    public enum State: String, Sendable {
        case pending, delivered, failed
    }

    /// Also the `webhook-id` header: the same for every attempt, so a receiver can drop repeats.
    public var id: UUID
    public var endpointID: UUID
    public var type: String
    public var state: State
    public var attempts: Int
    public var lastError: String?
    public var createdAt: Date
    public var nextAttemptAt: Date

    public init(
        id: UUID, endpointID: UUID, type: String, state: State, attempts: Int, lastError: String?, createdAt: Date,
        nextAttemptAt: Date
    ) {
        self.id = id
        self.endpointID = endpointID
        self.type = type
        self.state = state
        self.attempts = attempts
        self.lastError = lastError
        self.createdAt = createdAt
        self.nextAttemptAt = nextAttemptAt
    }
}
