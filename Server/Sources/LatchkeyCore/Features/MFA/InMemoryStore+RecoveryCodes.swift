import Foundation
import Synchronization

extension InMemoryStore: RecoveryCodeStore {
    public func recoveryCodeState(userID: UUID, sessionID: UUID) async throws -> RecoveryCodeState {
        state.withLock { state in
            RecoveryCodeState(
                codes: state.recoveryCodes.filter { $0.userID == userID },
                session: state.sessions[sessionID].flatMap { $0.userID == userID ? $0 : nil })
        }
    }

    public func replaceRecoveryCodes(userID: UUID, with codes: [RecoveryCodeRecord], audit events: [AuditEvent]) async throws {
        state.withLock { state in
            state.recoveryCodes.removeAll { $0.userID == userID }
            state.recoveryCodes += codes
            state.events += events
        }
    }

    public func spendRecoveryCode(_ spend: RecoveryCodeSpend) async throws -> Bool {
        state.withLock { state in
            guard let index = state.recoveryCodes.firstIndex(where: { $0.id == spend.codeID && $0.userID == spend.userID }),
                state.recoveryCodes[index].usedAt == nil
            else { return false }
            guard state.raise(spend.seenSession, to: spend.session, userID: spend.userID) else { return false }
            state.recoveryCodes[index].usedAt = spend.usedAt
            state.outbox += spend.outbox
            state.events += spend.audit
            return true
        }
    }
}
