import Foundation
import Synchronization

extension InMemoryStore: SessionRefreshStore {
    public func refresh(_ rules: SessionRefresh.Rules, limits counters: [RateLimitCounter]) async throws -> (
        SessionRefresh.Decision, AccountRecords
    )? {
        try state.withLock { state in
            try state.take(counters)
            let session = state.sessions[rules.sessionID]
            let user = session.flatMap { state.users[$0.userID] }
            let decision = rules.decide(session: session, user: user)
            switch rules.write(for: decision, user: user) {
            case .rotate(let next)?:
                guard state.sessions[next.id]?.refreshCounter == next.refreshCounter - 1 else { return nil }
                state.sessions[next.id] = next
            case .reuse(let current)?:
                guard state.sessions[current.id]?.refreshCounter == current.refreshCounter else { return nil }
            case .revoke(let id, let events)?:
                state.sessions[id] = nil
                state.events += events
            case nil:
                break  // a refusal writes nothing but the counters
            }
            switch decision {
            case .rotate(let answered), .reuse(let answered):
                if let user { return (decision, state.account(user, session: answered)) }
            case .revoke, .reject:
                break
            }
            return (decision, AccountRecords(user: user, session: nil, identities: [], factors: []))
        }
    }
}
