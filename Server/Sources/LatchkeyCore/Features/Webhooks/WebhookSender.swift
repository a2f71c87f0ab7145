/// Posts a queued webhook delivery to its endpoint: the outbox's side effect for the `webhook`
/// channel. `HTTPWebhookSender` is the server's; a failure is retried by the outbox with back-off.
public protocol WebhookSender: Sendable {
    func send(_ delivery: OutboxRecord) async throws
}

/// Why a webhook delivery failed: `isPermanent` when trying again cannot help (the endpoint is
/// gone, or answered 410 Gone).
public struct WebhookFailure: MailDeliveryFailure, CustomStringConvertible {
    public let isPermanent: Bool
    public let reason: String

    public init(isPermanent: Bool, reason: String) {
        self.isPermanent = isPermanent
        self.reason = reason
    }

    public var description: String { "webhook: \(reason)" }
}
