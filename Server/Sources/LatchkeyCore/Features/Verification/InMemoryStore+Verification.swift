import Foundation
import Synchronization

extension InMemoryStore: VerificationStore {
    public func redeem(_ rules: CodeRedemption, limits counters: [RateLimitCounter]) async throws -> RedemptionOutcome {
        try state.withLock { state in
            try state.take(counters)
            let (index, user) = state.selected(rules.selector)
            let token = index.map { state.tokens[$0] }
            switch rules.decide(token: token, user: user) {
            case .refuse(let outcome):
                return outcome
            case .prepare(let notice):
                return .needsNotice(notice)
            case .mismatch(let remaining, let events):
                if let index { state.tokens[index].attempts += 1 }
                state.events += events
                return .mismatch(attemptsRemaining: remaining)
            case .reject(let error, let events):
                state.events += events
                return .rejected(error)
            case .redeem(var redemption):
                guard let index, let token else { return .notFound }
                try state.write(redemption.user)
                state.tokens[index].attempts += 1
                state.tokens[index].consumedAt = rules.now
                state.tokens.removeAll { other in
                    other.userID == token.userID && other.consumedAt == nil && !redemption.preserving.contains(other.kind)
                }
                if let session = redemption.session {
                    state.sessions[session.id] = session
                    redemption.account = state.account(redemption.user, session: session)
                }
                if let flow = redemption.flowState { state.flows.append(flow) }
                state.outbox += redemption.outbox
                state.events += redemption.audit
                return .redeemed(redemption)
            }
        }
    }
}

extension InMemoryStore.State {
    /// The index of the outstanding token `selector` names, and its user.
    func selected(_ selector: OneTimeTokenSelector) -> (Int?, UserRecord?) {
        let outstanding = tokens.indices.filter { tokens[$0].consumedAt == nil }
        func newest(of userID: UUID?, _ kinds: [OneTimeTokenKind]) -> Int? {
            outstanding.filter { tokens[$0].userID == userID && kinds.contains(tokens[$0].kind) }.max {
                tokens[$0].createdAt < tokens[$1].createdAt
            }
        }
        switch selector {
        case .newestForEmail(let email, let kinds):
            let user = users.values.first { $0.email == email }
            return (newest(of: user?.id, kinds), user)
        case .newest(let userID, let kinds):
            let index = newest(of: userID, kinds)
            return (index, index.flatMap { users[tokens[$0].userID] })
        case .linkHash(let hash, _):
            let index = outstanding.first { tokens[$0].linkHash == hash }
            return (index, index.flatMap { users[tokens[$0].userID] })
        }
    }
}
