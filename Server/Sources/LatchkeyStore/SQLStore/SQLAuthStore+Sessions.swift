import Foundation
import LatchkeyAPI
import LatchkeyCore

extension SQLAuthStore {
    static let sessionColumns =
        "id, user_id, aal, amr, refresh_counter, refresh_salt, refreshed_at, user_agent, ip, created_at, updated_at, oauth_client_id, scopes, resource"

    static func insert(_ session: SessionRecord, _ db: any SQLExecutor) async throws {
        try await db.query(
            "INSERT INTO sessions (\(sessionColumns)) VALUES (\(placeholders(14)))",
            [
                SQLValue(session.id), SQLValue(session.userID), .text(session.aal), .text(encodeAMR(session.amr)),
                SQLValue(session.refreshCounter), .text(Base64URL.encode(session.refreshSalt)), SQLValue(session.refreshedAt),
                SQLValue(session.userAgent), SQLValue(session.ip), SQLValue(session.createdAt), SQLValue(session.updatedAt),
                SQLValue(session.oauthClientID), SQLValue(session.scopes), SQLValue(session.resource),
            ])
    }

    static func encodeAMR(_ amr: [AuthenticationMethod]) -> String {
        (try? String(decoding: JSONEncoder().encode(amr), as: UTF8.self)) ?? "[]"
    }

    static func session(from row: SQLRow) -> SessionRecord? {
        guard let id = row.uuid("id"), let userID = row.uuid("user_id"), let created = row.date("created_at"),
            let updated = row.date("updated_at"), let salt = row.string("refresh_salt").flatMap({ Base64URL.decode($0) })
        else { return nil }
        let amr = row.string("amr").flatMap(AuthenticationMethod.list(fromJSON:))
        return SessionRecord(
            id: id, userID: userID, aal: row.string("aal") ?? "aal1", amr: amr ?? [],
            refreshCounter: row.int("refresh_counter") ?? 0, refreshSalt: salt, refreshedAt: row.date("refreshed_at"),
            userAgent: row.string("user_agent"), ip: row.string("ip"), createdAt: created, updatedAt: updated,
            oauthClientID: row.uuid("oauth_client_id"), scopes: row.string("scopes"), resource: row.string("resource"))
    }

    public func session(id: UUID) async throws -> SessionRecord? {
        try await database.read { db in
            try await db.query("SELECT \(Self.sessionColumns) FROM sessions WHERE id = ?", [SQLValue(id)]).first
                .flatMap(Self.session)
        }
    }

    public func sessions(userID: UUID) async throws -> [SessionRecord] {
        try await database.read { db in
            try await db.query("SELECT \(Self.sessionColumns) FROM sessions WHERE user_id = ?", [SQLValue(userID)])
                .compactMap(Self.session)
        }
    }

    public func createSession(_ session: SessionRecord, user: UserRecord, audit: [AuditEvent]) async throws {
        try await database.transaction { db in
            try await Self.update(user, db)
            try await Self.insert(session, db)
            try await Self.insert(audit, db)
        }
    }

    /// Applies `write` on its precondition: `false` when it no longer held (nothing written).
    static func apply(_ write: RefreshWrite, _ db: any SQLExecutor) async throws -> Bool {
        switch write {
        case .rotate(let next):
            // Guarded by the counter read, so two rotations can never both win.
            let moved = try await db.query(
                "UPDATE sessions SET refresh_counter = ?, refreshed_at = ?, updated_at = ? WHERE id = ? AND refresh_counter = ? RETURNING id",
                [
                    SQLValue(next.refreshCounter), SQLValue(next.refreshedAt), SQLValue(next.updatedAt), SQLValue(next.id),
                    SQLValue(next.refreshCounter - 1),
                ])
            return !moved.isEmpty
        case .reuse(let current):
            let still = try await db.query(
                "SELECT id FROM sessions WHERE id = ? AND refresh_counter = ?", [SQLValue(current.id), SQLValue(current.refreshCounter)])
            return !still.isEmpty
        case .revoke(let id, let audit):
            try await db.query("DELETE FROM sessions WHERE id = ?", [SQLValue(id)])
            try await Self.insert(audit, db)
            return true
        }
    }

    public func refresh(_ rules: SessionRefresh.Rules, limits: [RateLimitCounter]) async throws -> (
        SessionRefresh.Decision, AccountRecords
    )? {
        // One transaction, the hottest write's one trip. Row locks at READ COMMITTED on
        // PostgreSQL: refreshes of different sessions never conflict (`refreshReads`).
        let database = self.database
        let id = rules.sessionID
        return try await limitedTransaction(limits, .locking) { db in
            let read = try await Self.refreshReads(sessionID: id, database: database, db)
            let decision = rules.decide(session: read.session, user: read.user)
            if let write = rules.write(for: decision, user: read.user) {
                guard try await Self.apply(write, db) else { return nil }
            }
            // The session answer's other reads, in this transaction (or with the first read).
            switch decision {
            case .rotate(let answered), .reuse(let answered):
                if let user = read.user {
                    var account: AccountRecords
                    if let holdings = read.holdings {
                        account = holdings
                    } else {
                        account = try await Self.account(user, session: answered, db)
                    }
                    account.session = answered
                    return (decision, account)
                }
            case .revoke, .reject:
                break
            }
            return (decision, AccountRecords(user: read.user, session: nil, identities: [], factors: []))
        }
    }

    /// What a refresh decides on, locked in the order a ban or a sign-out-everywhere takes them:
    /// the session's user (shared: a ban waits for this rotation, then deletes the rotated
    /// session), then the session (alone: two rotations of one session queue, and the second sees
    /// the first). A store that aggregates reads gets the user's identities and factors with the
    /// user, in one statement where the row-by-row path takes four (`holdings`).
    static func refreshReads(sessionID id: UUID, database: any SQLDatabase, _ db: any SQLExecutor) async throws -> (
        user: UserRecord?, session: SessionRecord?, holdings: AccountRecords?
    ) {
        var user: UserRecord?
        var holdings: AccountRecords?
        if database.aggregatesReads {
            let sql = aggregatedSessionOwnerSQL + database.lockClause(.share)
            guard let row = try await db.query(sql, [SQLValue(id)]).first else { return (nil, nil, nil) }
            holdings = account(aggregated: row, session: nil)
            user = holdings?.user
        } else {
            guard let owner = try await db.query("SELECT user_id FROM sessions WHERE id = ?", [SQLValue(id)]).first?.uuid("user_id")
            else { return (nil, nil, nil) }
            user = try await db.query("SELECT \(userColumns) FROM users WHERE id = ?\(database.lockClause(.share))", [SQLValue(owner)])
                .first.flatMap(Self.user)
        }
        let session = try await db.query(
            "SELECT \(sessionColumns) FROM sessions WHERE id = ?\(database.lockClause(.update))", [SQLValue(id)]
        ).first.flatMap(Self.session)
        return (user, session, holdings)
    }

    public func deleteSession(id: UUID, audit: [AuditEvent]) async throws {
        try await database.transaction { db in
            try await db.query("DELETE FROM sessions WHERE id = ?", [SQLValue(id)])
            try await Self.insert(audit, db)
        }
    }

    public func deleteSessions(userID: UUID, except keeping: UUID?, audit: [AuditEvent]) async throws {
        try await database.transaction { db in
            try await Self.deleteSessions(userID: userID, except: keeping, db)
            try await Self.insert(audit, db)
        }
    }

    /// Every session of the user but `keeping`, and every device key but `keeping`'s device's.
    static func deleteSessions(userID: UUID, except keeping: UUID?, _ db: any SQLExecutor) async throws {
        if let keeping {
            try await db.query("DELETE FROM sessions WHERE user_id = ? AND id <> ?", [SQLValue(userID), SQLValue(keeping)])
        } else {
            try await db.query("DELETE FROM sessions WHERE user_id = ?", [SQLValue(userID)])
        }
        try await deleteDeviceKeys(userID: userID, exceptOfSession: keeping, db)
    }

    /// The user with a session and the user's identities and factors, read in `db`.
    static func account(_ user: UserRecord, session: SessionRecord, _ db: any SQLExecutor) async throws -> AccountRecords {
        AccountRecords(
            user: user, session: session, identities: try await identities(userID: user.id, db),
            factors: try await factors(userID: user.id, db))
    }
}
