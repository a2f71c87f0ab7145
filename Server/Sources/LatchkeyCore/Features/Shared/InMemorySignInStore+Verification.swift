import Foundation
import Synchronization

extension InMemorySignInStore {
    /// Adds an outstanding one-time token, as sending a code would (the user's older ones of its
    /// kind stay: tests place them as they need).
    public func add(_ token: OneTimeTokenRecord) { state.withLock { $0.tokens.append(token) } }
    /// The user's tokens as stored now, spent ones included, oldest first.
    public func tokens(userID: UUID) -> [OneTimeTokenRecord] { state.withLock { $0.tokens.filter { $0.userID == userID } } }
    /// The messages queued so far, oldest first.
    public var outbox: [OutboxRecord] { state.withLock { $0.outbox } }
    /// The flow states stored so far (links opened in a browser).
    public var flowStates: [FlowStateRecord] { state.withLock { $0.flows } }

    public func users(newEmail: String) async throws -> [UserRecord] {
        state.withLock { state in
            state.users.values.filter { $0.newEmail == newEmail }.sorted {
                ($0.emailChangeSentAt ?? .distantPast) < ($1.emailChangeSentAt ?? .distantPast)
            }
        }
    }

    public func users(newPhone: String) async throws -> [UserRecord] {
        state.withLock { state in
            state.users.values.filter { $0.newPhone == newPhone }.sorted {
                ($0.phoneChangeSentAt ?? .distantPast) < ($1.phoneChangeSentAt ?? .distantPast)
            }
        }
    }

    public func redeem(_ rules: CodeRedemption, limits counters: [RateLimitCounter]) async throws -> RedemptionOutcome {
        let counts = try await limits.incrementRateLimits(counters)
        if let index = counts.indices.first(where: { counts[$0] > counters[$0].limit }) { throw RateLimitExceeded(index: index) }
        let (outcome, events) = try state.withLock { state -> (RedemptionOutcome, [AuditEvent]) in
            let (index, user) = state.selected(rules.selector)
            let token = index.map { state.tokens[$0] }
            switch try rules.decide(token: token, user: user) {
            case .refuse(let outcome):
                return (outcome, [])
            case .mismatch(let remaining, let events):
                if let index { state.tokens[index].attempts += 1 }
                return (.mismatch(attemptsRemaining: remaining), events)
            case .reject(let error, let events):
                return (.rejected(error), events)
            case .redeem(var redemption):
                guard let index, let token else { return (.notFound, []) }
                try state.write(redemption.user)
                state.tokens[index].attempts += 1
                state.tokens[index].consumedAt = rules.now
                state.tokens.removeAll { other in
                    other.userID == token.userID && other.consumedAt == nil && !redemption.preserving.contains(other.kind)
                }
                if let session = redemption.session {
                    state.sessions[session.id] = session
                    redemption.account = AccountRecords(user: redemption.user, session: session, identities: [], factors: [])
                }
                if let flow = redemption.flowState { state.flows.append(flow) }
                state.outbox += redemption.outbox
                return (.redeemed(redemption), redemption.audit)
            }
        }
        try await audit.appendAudit(events)
        return outcome
    }
}

extension InMemorySignInStore.State {
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
