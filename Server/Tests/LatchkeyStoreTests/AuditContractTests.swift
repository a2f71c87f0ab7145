import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyStore
import Testing

/// Audit events are written in the transaction of the change they record: both or neither.
@Suite struct AuditContractTests {
    static func event(_ action: AuditAction, user: UUID?, at date: Date = Date(), id: UUID = UUID()) -> AuditEvent {
        AuditEvent(
            id: id, action: action, actorID: user, actorName: "someone", userID: user, ip: "192.0.2.1", userAgent: "tests",
            details: ["method": "password"], createdAt: date)
    }

    @Test func anEventThatCannotBeWrittenUndoesTheChangeItRecords() async throws {
        try await StoreContractTests.eachStore { store async throws in
            let (user, identity) = StoreContractTests.user("atomic@example.com")
            try await store.createUser(user, identity: identity, token: nil, outbox: [])
            let taken = UUID()
            try await store.appendAudit([Self.event(.login, user: user.id, id: taken)])
            // The session's audit event collides with a stored one: the session must not be stored either.
            let session = SessionRecord(
                id: UUID(), userID: user.id, amr: [AuthenticationMethod(method: "password", timestamp: 0)], refreshSalt: [1, 2, 3],
                createdAt: Date(), updatedAt: Date())
            await #expect(throws: (any Error).self) {
                try await store.createSession(session, user: user, audit: [Self.event(.login, user: user.id, id: taken)])
            }
            #expect(try await store.session(id: session.id) == nil)
            // And the other way: a change that fails leaves no event behind.
            let (other, otherIdentity) = StoreContractTests.user("atomic@example.com")
            await #expect(throws: StoreError.self) {
                try await store.createUser(
                    other, identity: otherIdentity, token: nil, outbox: [], audit: [Self.event(.userSignedUp, user: other.id)])
            }
            #expect(try await store.auditEvents(AuditQuery(userID: other.id)).total == 0)
            try await store.createSession(session, user: user, audit: [Self.event(.login, user: user.id)])
            #expect(try await store.auditEvents(AuditQuery(userID: user.id, actions: [.login])).total == 2)
        }
    }

    @Test func eventsAreReadNewestFirstFilteredAndPaged() async throws {
        try await StoreContractTests.eachStore { store async throws in
            let alice = UUID()
            let bob = UUID()
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            try await store.appendAudit([
                Self.event(.userSignedUp, user: alice, at: start), Self.event(.codeSent, user: alice, at: start),
                Self.event(.login, user: alice, at: start.addingTimeInterval(1)),
                Self.event(.login, user: bob, at: start.addingTimeInterval(2)),
                Self.event(.loginFailed, user: nil, at: start.addingTimeInterval(3)),
            ])
            let all = try await store.auditEvents(AuditQuery())
            #expect(all.total == 5)
            // Newest first; one transaction's events at one instant in reverse order of writing.
            #expect(all.events.map(\.action) == [.loginFailed, .login, .login, .codeSent, .userSignedUp])
            #expect(all.events.last?.details["method"] == "password" && all.events.last?.ip == "192.0.2.1")
            let aliceLogins = try await store.auditEvents(AuditQuery(userID: alice, actions: [.login, .codeSent]))
            #expect(aliceLogins.total == 2 && aliceLogins.events.map(\.action) == [.login, .codeSent])
            let page = try await store.auditEvents(AuditQuery(offset: 1, limit: 2))
            #expect(page.total == 5 && page.events.map(\.action) == [.login, .login])
            let recent = try await store.auditEvents(AuditQuery(since: start.addingTimeInterval(2)))
            #expect(recent.total == 2)
            // Retention: what was written before a time goes, the rest stays.
            #expect(try await store.deleteAuditEvents(before: start.addingTimeInterval(2)) == 3)
            #expect(try await store.auditEvents(AuditQuery()).events.map(\.action) == [.loginFailed, .login])
        }
    }
}
