import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyStore
import Testing

/// What the webhook contract needs of a store: the endpoints, and the changes and outbox it queues into.
typealias WebhookContractStore = WebhookStore & CodeStore & SignUpStore & AuditWriting & OutboxStore

/// Webhook deliveries are queued in the transaction of the change they announce: both or neither,
/// one per endpoint that subscribes, kept for replays. The in-memory store, SQLite and PostgreSQL.
@Suite struct WebhookStoreContractTests {
    static func endpoint(_ events: [WebhookEventType] = [], id: UUID = UUID()) -> WebhookEndpointRecord {
        WebhookEndpointRecord(
            id: id, url: "https://hooks.example.com/\(id)", sealedSecret: "sealed", events: events, source: .api, createdAt: Date())
    }

    @Test func aCommittedSignInIsQueuedForEachSubscribedEndpoint() async throws {
        try await StoreContractTests.eachStore(memory: InMemoryStore() as any WebhookContractStore) { store in
            let all = Self.endpoint()
            let creations = Self.endpoint([.userCreated])
            try await store.saveWebhookEndpoint(all)
            try await store.saveWebhookEndpoint(creations)
            #expect(Set(try await store.webhookEndpoints().map(\.id)) == [all.id, creations.id])
            #expect(try await store.webhookEndpoint(id: creations.id)?.events == [.userCreated])

            let (user, identity) = StoreContractTests.user("hooked@example.com")
            try await store.createUser(
                user, identity: identity, token: nil, outbox: [], audit: [AuditContractTests.event(.userSignedUp, user: user.id)])
            let session = SessionRecord(
                id: UUID(), userID: user.id, amr: [AuthenticationMethod(method: "password", timestamp: 0)], refreshSalt: [1],
                createdAt: Date(), updatedAt: Date())
            let taken = UUID()
            try await store.createSession(session, user: user, audit: [AuditContractTests.event(.login, user: user.id, id: taken)])
            // A sign-in whose transaction rolls back (its event collides: the SQL stores' key) announces nothing.
            if store is SQLAuthStore {
                let again = SessionRecord(
                    id: UUID(), userID: user.id, amr: session.amr, refreshSalt: [2], createdAt: Date(), updatedAt: Date())
                await #expect(throws: (any Error).self) {
                    try await store.createSession(again, user: user, audit: [AuditContractTests.event(.login, user: user.id, id: taken)])
                }
            }
            // An event no webhook announces queues nothing.
            try await store.appendAudit([AuditContractTests.event(.loginFailed, user: user.id)])

            let toAll = try await store.webhookDeliveries(endpointID: all.id, state: nil, limit: 10)
            #expect(Set(toAll.map(\.type)) == ["user.signed_in", "user.created"] && toAll.count == 2)
            let signedInID = try #require(toAll.first { $0.type == "user.signed_in" }?.id)
            let pendingOne = try #require(toAll.first { $0.type == "user.created" }?.id)
            #expect(try await store.webhookDeliveries(endpointID: creations.id, state: .pending, limit: 10).map(\.type) == ["user.created"])

            // Claimed on the webhook channel only; the body is the Standard Webhooks event.
            let now = Date().addingTimeInterval(1)
            #expect(try await store.claimOutbox(now: now, leaseUntil: now.addingTimeInterval(60), limit: 10).isEmpty)
            let claimed = try await store.claimOutbox(now: now, leaseUntil: now.addingTimeInterval(60), limit: 10, channel: .webhook)
            #expect(claimed.count == 3)
            let signedIn = try #require(claimed.first { $0.id == signedInID })
            let body = try #require(JSONText.decodeObject(signedIn.payload))
            #expect(body["type"] == "user.signed_in" && body["data"]?.objectValue?["event_id"] == .string(taken.uuidString.lowercased()))
            #expect(body["data"]?.objectValue?["user_id"] == .string(user.id.uuidString.lowercased()))

            // Delivered, it keeps its body, and can be replayed; a pending one cannot.
            try await store.finishOutbox(id: signedIn.id, outcome: .sent(at: now))
            #expect(try await store.webhookDeliveries(endpointID: all.id, state: .delivered, limit: 10).map(\.id) == [signedIn.id])
            #expect(try await store.replayWebhookDeliveries(ids: [signedIn.id, pendingOne], now: now) == [signedIn.id])
            let replayed = try await store.claimOutbox(now: now, leaseUntil: now.addingTimeInterval(60), limit: 10, channel: .webhook)
            #expect(replayed.map(\.id) == [signedIn.id] && replayed.first?.payload == signedIn.payload)

            // Removing an endpoint gives up what it still had pending.
            #expect(try await store.deleteWebhookEndpoint(id: creations.id))
            #expect(try await !store.deleteWebhookEndpoint(id: creations.id))
            let given = try await store.webhookDeliveries(endpointID: creations.id, state: .failed, limit: 10)
            #expect(given.count == 1 && given.first?.lastError == "endpoint removed")
            #expect(try await store.replayWebhookDeliveries(ids: given.map(\.id), now: now).isEmpty)
        }
    }
}
