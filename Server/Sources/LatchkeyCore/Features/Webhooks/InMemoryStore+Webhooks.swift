import Foundation
import LatchkeyAPI
import Synchronization

extension InMemoryStore: WebhookStore {
    public func webhookEndpoints() async throws -> [WebhookEndpointRecord] {
        state.withLock { $0.webhookEndpoints.sorted { ($0.createdAt, $0.id.uuidString) < ($1.createdAt, $1.id.uuidString) } }
    }

    public func webhookEndpoint(id: UUID) async throws -> WebhookEndpointRecord? {
        state.withLock { $0.webhookEndpoints.first { $0.id == id } }
    }

    public func saveWebhookEndpoint(_ endpoint: WebhookEndpointRecord) async throws {
        state.withLock { state in
            guard let index = state.webhookEndpoints.firstIndex(where: { $0.id == endpoint.id }) else {
                state.webhookEndpoints.append(endpoint)
                return
            }
            // As the SQL store's upsert: the address, secret and events change; the source and creation stay.
            state.webhookEndpoints[index].url = endpoint.url
            state.webhookEndpoints[index].sealedSecret = endpoint.sealedSecret
            state.webhookEndpoints[index].events = endpoint.events
        }
    }

    public func deleteWebhookEndpoint(id: UUID) async throws -> Bool {
        state.withLock { state in
            guard let index = state.webhookEndpoints.firstIndex(where: { $0.id == id }) else { return false }
            state.webhookEndpoints.remove(at: index)
            for (position, record) in state.outbox.enumerated()
            where record.channel == .webhook && UUID(text: record.recipient) == id && !state.outboxFinished.contains(record.id) {
                state.outbox[position].lastError = "endpoint removed"
                state.outboxLeases[record.id] = nil
                state.outboxFinished.insert(record.id)
                state.outboxFailed.insert(record.id)
            }
            return true
        }
    }

    public func webhookDeliveries(endpointID: UUID?, state wanted: WebhookDelivery.State?, limit: Int) async throws -> [WebhookDelivery] {
        state.withLock { state in
            state.outbox.compactMap { record -> WebhookDelivery? in
                guard record.channel == .webhook, let endpoint = UUID(text: record.recipient) else { return nil }
                let status: WebhookDelivery.State =
                    state.outboxFailed.contains(record.id) ? .failed : state.outboxFinished.contains(record.id) ? .delivered : .pending
                guard endpointID.map({ $0 == endpoint }) ?? true, wanted.map({ $0 == status }) ?? true else { return nil }
                return WebhookDelivery(
                    id: record.id, endpointID: endpoint, type: JSONText.decodeObject(record.payload)?["type"]?.stringValue ?? "",
                    state: status, attempts: record.attempts, lastError: record.lastError, createdAt: record.createdAt,
                    nextAttemptAt: record.nextAttemptAt)
            }
            .sorted { ($0.createdAt, $1.id.uuidString) > ($1.createdAt, $0.id.uuidString) }
            .prefix(max(0, limit)).map { $0 }
        }
    }

    public func replayWebhookDeliveries(ids: [UUID], now: Date) async throws -> [UUID] {
        state.withLock { state in
            ids.filter { id in
                guard let index = state.outbox.firstIndex(where: { $0.id == id }), state.outboxFinished.contains(id) else { return false }
                let record = state.outbox[index]
                guard record.channel == .webhook, !record.payload.isEmpty,
                    state.webhookEndpoints.contains(where: { $0.id == UUID(text: record.recipient) })
                else { return false }
                state.outbox[index].attempts = 0
                state.outbox[index].nextAttemptAt = now
                state.outbox[index].lastError = nil
                state.outboxFinished.remove(id)
                state.outboxFailed.remove(id)
                state.outboxLeases[id] = nil
                return true
            }
        }
    }
}

extension InMemoryStore.State {
    /// One `webhook` outbox row per endpoint that subscribes, for each of `recorded` that
    /// announces something (``WebhookEventType``), due when the event happened.
    mutating func queueWebhooks(announcing recorded: ArraySlice<AuditEvent>) {
        guard !webhookEndpoints.isEmpty else { return }
        for event in recorded {
            guard let type = WebhookEventType(event.action) else { continue }
            let payload = type.payload(announcing: event)
            for endpoint in webhookEndpoints where endpoint.events.isEmpty || endpoint.events.contains(type) {
                outbox.append(
                    OutboxRecord(
                        id: UUID(), channel: .webhook, recipient: endpoint.id.lowercasedString, payload: payload,
                        nextAttemptAt: event.createdAt, createdAt: event.createdAt))
            }
        }
    }
}
