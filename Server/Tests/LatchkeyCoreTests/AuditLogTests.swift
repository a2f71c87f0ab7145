import Foundation
import LatchkeyAPI
import Testing

@testable import LatchkeyCore

/// Reading the audit log through its use case, over the in-memory store.
@Suite struct AuditLogTests {
    @Test func pagesFiltersAndRefusals() async throws {
        let store = InMemoryStore()
        let ada = UUID()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        try await store.appendAudit(
            (0..<5).map { index in
                AuditEvent(
                    action: index.isMultiple(of: 2) ? .login : .logout, actorID: ada, actorName: "ada@example.com",
                    userID: index < 3 ? ada : nil, ip: nil, userAgent: nil, createdAt: start.addingTimeInterval(Double(index)))
            })
        let log = AuditLog(store: store)
        let first = try await log.page(1, perPage: 2, userID: nil, actions: [])
        #expect(first.total == 5 && first.entries.count == 2)
        #expect(first.entries.first?.createdAt == start.addingTimeInterval(4))
        let third = try await log.page(3, perPage: 2, userID: "", actions: ["", "login", ""])
        #expect(third.total == 3 && third.entries.map(\.createdAt) == [])
        let adas = try await log.page(1, perPage: 10, userID: ada.uuidString.uppercased(), actions: ["logout"])
        #expect(adas.total == 1)
        await #expect(throws: AuthError.validation("user_id must be a UUID")) {
            try await log.page(1, perPage: 10, userID: "nope", actions: [])
        }
        do {
            _ = try await log.page(1, perPage: 10, userID: nil, actions: ["login", "teleport"])
            Issue.record("an unknown action was accepted")
        } catch let error as AuthError {
            #expect(error.message.hasPrefix("Unknown audit action \"teleport\""))
        }
    }
}
