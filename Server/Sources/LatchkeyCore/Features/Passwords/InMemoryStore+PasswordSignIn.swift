import Foundation
import Synchronization

extension InMemoryStore: PasswordSignInStore {
    public func createSession(_ session: SessionRecord, user: UserRecord, audit events: [AuditEvent]) async throws {
        try state.withLock { state in
            try state.write(user)
            state.sessions[session.id] = session
            state.events += events
        }
    }
}
