import Foundation
import LatchkeyAPI
import Testing

@testable import LatchkeyCore

/// The operators' webhook endpoints over the in-memory store (issue #38: `WebhookStore` has an
/// in-memory conformance and Core tests, as every slice): the rules of an endpoint, its secret
/// sealed at rest and answered once, the deliveries a recorded event queues, and replays.
@Suite struct WebhookEndpointsTests {
    struct Fixture {
        let store = InMemoryStore()
        let time = ManualTimeSource()
        let endpoints: WebhookEndpoints

        init() {
            endpoints = WebhookEndpoints(
                store: store, serverSecret: Array(repeating: 9, count: 32), time: time, random: SeededRandomSource(seed: 4))
        }

        func record(_ action: AuditAction, user: UUID = UUID()) async throws -> AuditEvent {
            let event = AuditEvent(
                id: UUID(), action: action, actorID: user, actorName: "ada@example.com", userID: user, ip: "192.0.2.7",
                userAgent: "tests", details: [:], createdAt: time.now())
            try await store.appendAudit([event])
            return event
        }
    }

    @Test func anEndpointIsCheckedAndItsSecretSealed() async throws {
        let f = Fixture()
        let added = try await f.endpoints.add(url: "https://hooks.example.com/in", secret: nil, events: ["user.created", "user.created"])
        #expect(added.secret.hasPrefix("v1,whsec_") && added.endpoint.events == [.userCreated])
        let stored = try #require(try await f.store.webhookEndpoint(id: added.endpoint.id))
        #expect(!stored.sealedSecret.contains(String(added.secret.dropFirst(9))))
        #expect(try f.endpoints.secret(of: stored) == WebhookSecret(added.secret))

        let refusals: [(url: String, secret: String?, events: [String])] = [
            ("http://hooks.example.com/in", nil, []),  // not HTTPS
            ("https://hooks.example.com/in", "whsec_abc", []),  // not the v1 form
            ("https://hooks.example.com/in", nil, ["user.exploded"]),
        ]
        for refusal in refusals {
            await #expect(throws: AuthError.self) {
                try await f.endpoints.add(url: refusal.url, secret: refusal.secret, events: refusal.events)
            }
        }
        #expect(try await f.endpoints.list().map(\.id) == [added.endpoint.id])
        await #expect(throws: AuthError(.notFound, "Webhook endpoint not found")) { try await f.endpoints.remove(id: "not-an-id") }
        await #expect(throws: AuthError(.notFound, "Webhook endpoint not found")) { try await f.endpoints.remove(id: UUID().uuidString) }
    }

    @Test func theEnvironmentsEndpointIsWrittenOnceUnderOneID() async throws {
        let f = Fixture()
        try await f.endpoints.configureFromEnvironment(url: nil, secret: nil, events: [])
        #expect(try await f.endpoints.list().isEmpty)
        await #expect(throws: AuthError.self) {
            try await f.endpoints.configureFromEnvironment(url: "https://hooks.example.com/env", secret: nil, events: [])
        }
        let secret = "v1,whsec_" + Data(repeating: 7, count: 32).base64EncodedString()
        try await f.endpoints.configureFromEnvironment(url: "https://hooks.example.com/env", secret: secret, events: [])
        try await f.endpoints.configureFromEnvironment(url: "https://hooks.example.com/moved", secret: secret, events: ["user.deleted"])
        let endpoints = try await f.endpoints.list()
        #expect(endpoints.map(\.id) == [WebhookEndpoints.environmentID] && endpoints.first?.url == "https://hooks.example.com/moved")
        #expect(endpoints.first?.source == .environment && endpoints.first?.events == [.userDeleted])
    }

    @Test func aRecordedEventIsQueuedForEachSubscriberAndReplayedOnceFinished() async throws {
        let f = Fixture()
        let all = try await f.endpoints.add(url: "https://hooks.example.com/all", secret: nil, events: []).endpoint
        let deletions = try await f.endpoints.add(url: "https://hooks.example.com/deleted", secret: nil, events: ["user.deleted"]).endpoint
        let signedIn = try await f.record(.login)
        _ = try await f.record(.loginFailed)  // announces nothing
        _ = try await f.record(.userDeleted)

        let toAll = try await f.endpoints.deliveries(endpointID: all.id.uuidString, state: nil, limit: 10)
        #expect(Set(toAll.map(\.type)) == ["user.signed_in", "user.deleted"])
        #expect(
            try await f.endpoints.deliveries(endpointID: deletions.id.uuidString, state: .pending, limit: 10).map(\.type) == [
                "user.deleted"
            ])
        await #expect(throws: AuthError(.notFound, "Webhook endpoint not found")) {
            try await f.endpoints.deliveries(endpointID: "nope", state: nil, limit: 10)
        }
        let queued = try #require(
            f.store.outbox.first { $0.recipient == all.id.uuidString.lowercased() && $0.payload.contains("signed_in") })
        let body = try #require(JSONText.decodeObject(queued.payload))
        #expect(body["data"]?.objectValue?["event_id"] == .string(signedIn.id.uuidString.lowercased()))
        #expect(body["data"]?.objectValue?["ip"] == "192.0.2.7")

        // A pending delivery is not replayed; a failed one is, with its body, due now.
        #expect(try await f.endpoints.replay(ids: [queued.id.uuidString, "junk"]).isEmpty)
        try await f.store.finishOutbox(id: queued.id, outcome: .failed(attempts: 8, at: f.time.now(), error: "HTTP 500"))
        #expect(try await f.endpoints.deliveries(endpointID: nil, state: .failed, limit: 10).map(\.id) == [queued.id])
        f.time.advance(by: 60)
        #expect(try await f.endpoints.replayFailed(endpointID: nil) == [queued.id])
        let again = try await f.store.claimOutbox(now: f.time.now(), leaseUntil: f.time.now() + 60, limit: 10, channel: .webhook)
        #expect(again.first { $0.id == queued.id }?.payload == queued.payload)

        // Removing an endpoint gives up what it had pending; those are never replayed.
        try await f.endpoints.remove(id: deletions.id.uuidString)
        let givenUp = try await f.endpoints.deliveries(endpointID: deletions.id.uuidString, state: .failed, limit: 10)
        #expect(givenUp.count == 1 && givenUp.first?.lastError == "endpoint removed")
        #expect(try await f.endpoints.replay(ids: givenUp.map(\.id.uuidString)).isEmpty)
    }
}
