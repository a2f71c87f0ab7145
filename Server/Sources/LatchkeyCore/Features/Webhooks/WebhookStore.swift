import Foundation

/// What webhooks keep: the endpoints, and their deliveries (outbox rows on the `webhook`
/// channel, queued by the store with the audit events they announce).
public protocol WebhookStore: Sendable {
    func webhookEndpoints() async throws -> [WebhookEndpointRecord]
    func webhookEndpoint(id: UUID) async throws -> WebhookEndpointRecord?
    /// Adds `endpoint`, or replaces the one with its id.
    func saveWebhookEndpoint(_ endpoint: WebhookEndpointRecord) async throws
    /// Removes the endpoint and gives up its pending deliveries; `false` when there was none.
    func deleteWebhookEndpoint(id: UUID) async throws -> Bool
    /// The newest deliveries, of one endpoint or of all, optionally in one state.
    func webhookDeliveries(endpointID: UUID?, state: WebhookDelivery.State?, limit: Int) async throws -> [WebhookDelivery]
    /// Queues delivered or failed deliveries again, due at `now`; answers the ids queued.
    func replayWebhookDeliveries(ids: [UUID], now: Date) async throws -> [UUID]
}
