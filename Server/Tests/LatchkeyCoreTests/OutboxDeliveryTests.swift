import Foundation
import LatchkeyAPI
import Synchronization
import Testing

@testable import LatchkeyCore

/// Issue #38: ``OutboxDelivery`` over ``OutboxStore``, run in Core against the in-memory store
/// (before, only the SQL stores and the live server ran it): sent, retried with back-off, given
/// up after the last attempt or at a permanent refusal, webhooks left queued where none is sent.
@Suite struct OutboxDeliveryTests {
    struct Refusal: MailDeliveryFailure { let isPermanent: Bool }

    /// A mailer that fails the addresses it is told to, permanently or not, and records the rest.
    final class Mailer: LatchkeyCore.Mailer, Sendable {
        let sent = Mutex<[String]>([])
        let failing: [String: Bool]
        init(failing: [String: Bool] = [:]) { self.failing = failing }
        func send(_ message: EmailMessage) async throws {
            let to = message.to.first ?? ""
            if let permanent = failing[to] { throw Refusal(isPermanent: permanent) }
            sent.withLock { $0.append(to) }
        }
    }

    static let sealer = OutboxSealer(serverSecret: Array(repeating: 7, count: 32))

    static func mail(_ to: String, at now: Date) throws -> OutboxRecord {
        OutboxRecord(
            recipient: to, payload: try sealer.seal(EmailMessage(to: [to], subject: "Code", text: "123456", html: "")),
            nextAttemptAt: now, createdAt: now)
    }

    @Test func sentRetriedAndGivenUp() async throws {
        let time = ManualTimeSource()
        let store = InMemoryStore()
        let mailer = Mailer(failing: ["busy@example.com": false, "gone@example.com": true])
        let delivery = OutboxDelivery(
            store: store, mailer: mailer, sealer: Self.sealer, time: time, retry: MailRetryPolicy(maxAttempts: 3, baseDelay: 10))
        let now = time.now()
        let records = try ["ada@example.com", "busy@example.com", "gone@example.com"].map { try Self.mail($0, at: now) }
        try await store.enqueueOutbox(records)
        // A webhook event with no sender stays queued.
        try await store.enqueueOutbox([
            OutboxRecord(channel: .webhook, recipient: UUID().uuidString, payload: "{}", nextAttemptAt: now, createdAt: now)
        ])

        #expect(try await delivery.deliverDue() == 3)
        #expect(mailer.sent.withLock { $0 } == ["ada@example.com"])
        let pending = try await store.pendingOutbox(limit: 10)
        #expect(Set(pending.map(\.recipient)).contains("busy@example.com"))
        #expect(!pending.contains { $0.recipient == "ada@example.com" || $0.recipient == "gone@example.com" })
        #expect(store.outbox.first { $0.recipient == "ada@example.com" }?.payload == "")  // a sent email keeps no code
        let busy = try #require(pending.first { $0.recipient == "busy@example.com" })
        #expect(busy.attempts == 1 && busy.nextAttemptAt > now)

        // Not due yet: nothing is tried; once due, retried until the last attempt, then given up.
        #expect(try await delivery.deliverDue() == 0)
        // The queued webhook event is the earliest due.
        #expect(try await delivery.nextDue() == now)
        for _ in 0..<2 {
            let next = try #require(try await store.pendingOutbox(limit: 10).first { $0.channel == .email }?.nextAttemptAt)
            time.advance(by: next.timeIntervalSince(time.now()))
            #expect(try await delivery.deliverDue() == 1)
        }
        #expect(try await store.pendingOutbox(limit: 10).map(\.channel) == [.webhook])
        #expect(store.outbox.first { $0.recipient == "busy@example.com" }?.attempts == 3)
    }
}
