import Foundation
import LatchkeyCore

extension SQLAuthStore {
    static let tokenColumns =
        "id, user_id, kind, relates_to, code_hash, link_hash, attempts, redirect_to, created_at, expires_at, consumed_at, code_challenge, code_challenge_method"

    static func insert(_ token: OneTimeTokenRecord, _ db: any SQLExecutor) async throws {
        try await db.query(
            "INSERT INTO one_time_tokens (\(tokenColumns)) VALUES (\(placeholders(13)))",
            [
                SQLValue(token.id), SQLValue(token.userID), .text(token.kind.rawValue), .text(token.relatesTo),
                .text(token.codeHash), .text(token.linkHash), SQLValue(token.attempts), SQLValue(token.redirectTo),
                SQLValue(token.createdAt), SQLValue(token.expiresAt), SQLValue(token.consumedAt),
                SQLValue(token.challenge?.challenge), SQLValue(token.challenge?.method.rawValue),
            ])
    }

    static func token(from row: SQLRow) -> OneTimeTokenRecord? {
        guard let id = row.uuid("id"), let userID = row.uuid("user_id"),
            let kind = row.string("kind").flatMap(OneTimeTokenKind.init(rawValue:)), let created = row.date("created_at"),
            let expires = row.date("expires_at")
        else { return nil }
        var challenge: PKCEChallenge?
        if let value = row.string("code_challenge"),
            let method = row.string("code_challenge_method").flatMap(PKCEChallenge.Method.init(rawValue:))
        {
            challenge = PKCEChallenge(challenge: value, method: method)
        }
        return OneTimeTokenRecord(
            id: id, userID: userID, kind: kind, relatesTo: row.string("relates_to") ?? "",
            codeHash: row.string("code_hash") ?? "", linkHash: row.string("link_hash") ?? "",
            attempts: Int(row.int("attempts") ?? 0), redirectTo: row.string("redirect_to"), challenge: challenge,
            createdAt: created, expiresAt: expires, consumedAt: row.date("consumed_at"))
    }

    public func replaceOneTimeTokens(
        _ tokens: [OneTimeTokenRecord], user: UserRecord, outbox: [OutboxRecord], audit: [AuditEvent]
    ) async throws {
        try await translating {
            try await database.transaction { db in
                // Only the newest code of a kind is valid: the older ones go.
                for token in tokens {
                    try await db.query(
                        "DELETE FROM one_time_tokens WHERE user_id = ? AND kind = ? AND consumed_at IS NULL",
                        [SQLValue(token.userID), .text(token.kind.rawValue)])
                }
                for token in tokens { try await Self.insert(token, db) }
                try await Self.update(user, db)
                try await insertOutbox(outbox, db)
                try await Self.insert(audit, db)
            }
        }
    }

    public func discardOneTimeToken(id: UUID) async throws {
        try await database.transaction { db in
            try await db.query("DELETE FROM one_time_tokens WHERE id = ? AND consumed_at IS NULL", [SQLValue(id)])
        }
    }

    public func redeem(_ rules: CodeRedemption, limits: [RateLimitCounter]) async throws -> RedemptionOutcome {
        try await translating {
            try await retryingConflicts { try await redeemOnce(rules, limits: limits) }
        }
    }

    private func redeemOnce(_ rules: CodeRedemption, limits: [RateLimitCounter]) async throws -> RedemptionOutcome {
        // On PostgreSQL, `READ COMMITTED` with the code's row locked: attempts on one code queue
        // on it and each sees the last one's count (the cap holds against concurrent guesses), a
        // second redemption finds it consumed, and the user's `version` precondition refuses
        // to write over a change made meanwhile (a ban), failing the redemption as a conflict
        // that reads and decides again.
        let lock = database.lockClause(.update)
        return try await limitedTransaction(limits, .locking) { db in
            let (token, user) = try await Self.selected(rules.selector, lock: lock, db)
            switch rules.decide(token: token, user: user) {
            case .refuse(let outcome):
                return outcome
            case .prepare(let notice):
                return .needsNotice(notice)
            case .mismatch(let remaining, let audit):
                guard let token else { return .notFound }
                try await db.query("UPDATE one_time_tokens SET attempts = attempts + 1 WHERE id = ?", [SQLValue(token.id)])
                try await Self.insert(audit, db)
                return .mismatch(attemptsRemaining: remaining)
            case .reject(let error, let audit):
                try await Self.insert(audit, db)
                return .rejected(error)
            case .redeem(let redemption):
                guard let token else { return .notFound }
                return try await self.apply(redemption, spending: token, now: rules.now, db)
            }
        }
    }

    /// The outstanding token `selector` names, its row locked with `lock`, and its user.
    static func selected(_ selector: OneTimeTokenSelector, lock: String, _ db: any SQLExecutor) async throws -> (
        OneTimeTokenRecord?, UserRecord?
    ) {
        switch selector {
        case .newestForEmail(let email, let kinds):
            // The user first, by its address: a code typed with an address needs no second read
            // of it. An address no user has looks for the tokens of an id no token has.
            let user = try await db.query("SELECT \(Self.userColumns) FROM users WHERE email = ?", [.text(email)]).first.flatMap(Self.user)
            let token = try await newestTokens(userID: user?.id ?? UUID(), kinds: kinds, lock: lock, db).first.flatMap(Self.token)
            return (token, user)
        case .newest(let userID, let kinds):
            let token = try await newestTokens(userID: userID, kinds: kinds, lock: lock, db).first.flatMap(Self.token)
            return (token, try await Self.userRow(id: token?.userID, db))
        case .linkHash(let hash, _):
            let token = try await db.query(
                "SELECT \(Self.tokenColumns) FROM one_time_tokens WHERE link_hash = ? AND consumed_at IS NULL\(lock)", [.text(hash)]
            ).first.flatMap(Self.token)
            return (token, try await Self.userRow(id: token?.userID, db))
        }
    }

    /// The user `id` names, `nil` without an id.
    static func userRow(id: UUID?, _ db: any SQLExecutor) async throws -> UserRecord? {
        guard let id else { return nil }
        return try await db.query("SELECT \(Self.userColumns) FROM users WHERE id = ?", [SQLValue(id)]).first.flatMap(Self.user)
    }

    /// Spends `token` (counting the attempt) and stores what redeeming it completes.
    func apply(_ redemption: TokenRedemption, spending token: OneTimeTokenRecord, now: Date, _ db: any SQLExecutor)
        async throws -> RedemptionOutcome
    {
        let spent = try await db.query(
            "UPDATE one_time_tokens SET attempts = attempts + 1, consumed_at = ? WHERE id = ? AND consumed_at IS NULL RETURNING id",
            [SQLValue(now), SQLValue(token.id)])
        guard !spent.isEmpty else { return .notFound }
        // Redeeming voids every other outstanding code of the user, but those it preserves.
        let kept = redemption.preserving.map { SQLValue.text($0.rawValue) }
        try await db.query(
            "DELETE FROM one_time_tokens WHERE user_id = ? AND consumed_at IS NULL"
                + (kept.isEmpty ? "" : " AND kind NOT IN (\(Self.placeholders(kept.count)))"),
            [SQLValue(token.userID)] + kept)
        try await Self.update(redemption.user, db)
        if let email = redemption.identityEmail {
            try await Self.upsertIdentity(userID: redemption.user.id, provider: "email", value: email, now: now, db)
        }
        if let phone = redemption.identityPhone {
            try await Self.upsertIdentity(userID: redemption.user.id, provider: "phone", value: phone, now: now, db)
        }
        if let session = redemption.session { try await Self.insert(session, db) }
        if let flow = redemption.flowState { try await Self.insert(flow, db) }
        try await insertOutbox(redemption.outbox, db)
        try await Self.insert(redemption.audit, db)
        var stored = redemption
        if let session = redemption.session { stored.account = try await Self.account(redemption.user, session: session, db) }
        return .redeemed(stored)
    }

    /// The newest live token of one of `kinds` for the user.
    /// The user's newest outstanding code of one of `kinds`, its row locked with `lock`.
    static func newestTokens(userID: UUID, kinds: [OneTimeTokenKind], lock: String, _ db: any SQLExecutor) async throws
        -> [SQLRow]
    {
        try await db.query(
            """
            SELECT \(Self.tokenColumns) FROM one_time_tokens
            WHERE user_id = ? AND consumed_at IS NULL AND kind IN (\(Self.placeholders(kinds.count)))
            ORDER BY created_at DESC LIMIT 1\(lock)
            """, [SQLValue(userID)] + kinds.map { .text($0.rawValue) })
    }

    static func insert(_ flow: FlowStateRecord, _ db: any SQLExecutor) async throws {
        try await db.query(
            """
            INSERT INTO flow_states (id, auth_code_hash, user_id, code_challenge, code_challenge_method, authentication_method, created_at, expires_at, consumed_at, session_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                SQLValue(flow.id), .text(flow.authCodeHash), SQLValue(flow.userID), .text(flow.challenge.challenge),
                .text(flow.challenge.method.rawValue), .text(flow.authenticationMethod), SQLValue(flow.createdAt),
                SQLValue(flow.expiresAt), SQLValue(flow.consumedAt), flow.sessionID.map(SQLValue.init) ?? .null,
            ])
    }

    public func consumeFlowState(authCodeHash: String, now: Date, accepting: @escaping @Sendable (FlowStateRecord) -> Bool)
        async throws -> FlowConsumption?
    {
        try await database.transaction { db in
            guard
                let row = try await db.query(
                    """
                    SELECT id, user_id, code_challenge, code_challenge_method, authentication_method, created_at, expires_at, session_id
                    FROM flow_states WHERE auth_code_hash = ? AND consumed_at IS NULL
                    """, [.text(authCodeHash)]
                ).first,
                let id = row.uuid("id"), let userID = row.uuid("user_id"),
                let method = row.string("code_challenge_method").flatMap(PKCEChallenge.Method.init(rawValue:)),
                let created = row.date("created_at"), let expires = row.date("expires_at")
            else { return nil }
            var flow = FlowStateRecord(
                id: id, authCodeHash: authCodeHash, userID: userID,
                challenge: PKCEChallenge(challenge: row.string("code_challenge") ?? "", method: method),
                authenticationMethod: row.string("authentication_method") ?? "otp", createdAt: created, expiresAt: expires,
                consumedAt: nil, sessionID: row.uuid("session_id"))
            guard accepting(flow) else { return .refused(flow) }
            // Spent only if still unspent as read: of racing requests, one.
            let spent = try await db.query(
                "UPDATE flow_states SET consumed_at = ? WHERE id = ? AND consumed_at IS NULL RETURNING id", [SQLValue(now), SQLValue(id)])
            guard !spent.isEmpty else { return nil }
            flow.consumedAt = now
            let user = try await db.query("SELECT \(Self.userColumns) FROM users WHERE id = ?", [SQLValue(userID)]).first
                .flatMap(Self.user)
            var session: SessionRecord?
            if let sessionID = flow.sessionID {
                session = try await db.query("SELECT \(Self.sessionColumns) FROM sessions WHERE id = ?", [SQLValue(sessionID)]).first
                    .flatMap(Self.session)
            }
            return .spent(ConsumedFlow(flow: flow, user: user, session: session))
        }
    }

    public func createFlowState(_ flow: FlowStateRecord) async throws {
        try await database.transaction { db in try await Self.insert(flow, db) }
    }
}
