import Foundation
import Synchronization

@testable import LatchkeyCore

/// An in-memory sign-in store that lands another request's write just before the first session
/// is stored: for tests of decisions that must win over a sign-in already in flight.
final class LandingFirstStore: PasswordSignInStore, AuthCodeExchangeStore {
    let base: InMemoryStore
    let landing: @Sendable (InMemoryStore) -> Void
    private let first = FirstTime()

    init(base: InMemoryStore, landing: @escaping @Sendable (InMemoryStore) -> Void) {
        self.base = base
        self.landing = landing
    }

    func user(id: UUID) async throws -> UserRecord? { try await base.user(id: id) }
    func user(email: String) async throws -> UserRecord? { try await base.user(email: email) }
    func user(phone: String) async throws -> UserRecord? { try await base.user(phone: phone) }
    func appendAudit(_ events: [AuditEvent]) async throws { try await base.appendAudit(events) }
    func consumeFlowState(authCodeHash: String, now: Date, accepting: @escaping @Sendable (FlowStateRecord) -> Bool)
        async throws -> FlowConsumption?
    {
        try await base.consumeFlowState(authCodeHash: authCodeHash, now: now, accepting: accepting)
    }

    func createFlowState(_ flow: FlowStateRecord) async throws { try await base.createFlowState(flow) }

    func createSession(_ session: SessionRecord, user: UserRecord, audit: [AuditEvent]) async throws {
        if first.now() { landing(base) }
        try await base.createSession(session, user: user, audit: audit)
    }
}

/// True the first time it is asked, false after: for test stores that land another request's
/// write once, just before the first write of the request under test.
final class FirstTime: Sendable {
    private let asked = Mutex(false)

    func now() -> Bool {
        asked.withLock { asked in
            defer { asked = true }
            return !asked
        }
    }
}
