import Foundation
import Synchronization

extension InMemoryStore: SessionRefreshStore {
    public func refreshState(sessionID: UUID) async throws -> AccountRecords {
        state.withLock { state in
            guard let session = state.sessions[sessionID], let user = state.users[session.userID] else {
                return AccountRecords(user: nil, session: state.sessions[sessionID], identities: [], factors: [])
            }
            return state.account(user, session: session)
        }
    }

    public func applyRefresh(_ write: RefreshWrite, limits counters: [RateLimitCounter]) async throws -> Bool {
        try state.withLock { state in
            try state.take(counters)
            switch write {
            case .rotate(let next):
                guard state.sessions[next.id]?.refreshCounter == next.refreshCounter - 1 else { return false }
                state.sessions[next.id] = next
                return true
            case .reuse(let current):
                return state.sessions[current.id]?.refreshCounter == current.refreshCounter
            case .revoke(let id, let events):
                state.sessions[id] = nil
                state.events += events
                return true
            case .countersOnly:
                return true
            }
        }
    }
}
