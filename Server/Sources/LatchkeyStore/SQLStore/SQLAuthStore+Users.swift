import Foundation
import LatchkeyAPI
import LatchkeyCore

extension SQLAuthStore {
    static let userColumns = """
        id, aud, role, email, phone, encrypted_password, email_confirmed_at, phone_confirmed_at, \
        confirmation_sent_at, recovery_sent_at, last_sign_in_at, raw_app_meta_data, raw_user_meta_data, \
        is_anonymous, banned_until, created_at, updated_at, email_change, email_change_sent_at, \
        email_change_confirm_needed, reauthentication_sent_at, phone_change, phone_change_sent_at, invited_at, version
        """

    static func userBinds(_ user: UserRecord) -> [SQLValue] {
        [
            SQLValue(user.id), .text(user.aud), .text(user.role), SQLValue(user.email), SQLValue(user.phone),
            SQLValue(user.passwordHash), SQLValue(user.emailConfirmedAt), SQLValue(user.phoneConfirmedAt),
            SQLValue(user.confirmationSentAt), SQLValue(user.recoverySentAt), SQLValue(user.lastSignInAt),
            .text(encode(user.appMetadata)), .text(encode(user.userMetadata)), SQLValue(user.isAnonymous),
            SQLValue(user.bannedUntil), SQLValue(user.createdAt), SQLValue(user.updatedAt), SQLValue(user.newEmail),
            SQLValue(user.emailChangeSentAt), SQLValue(user.emailChangeConfirmationsNeeded), SQLValue(user.reauthenticationSentAt),
            SQLValue(user.newPhone), SQLValue(user.phoneChangeSentAt), SQLValue(user.invitedAt), .int(user.version),
        ]
    }

    static func user(from row: SQLRow) -> UserRecord? {
        guard let id = row.uuid("id"), let created = row.date("created_at"), let updated = row.date("updated_at") else {
            return nil
        }
        return UserRecord(
            id: id, aud: row.string("aud") ?? "", role: row.string("role") ?? "", email: row.string("email"),
            phone: row.string("phone"), passwordHash: row.string("encrypted_password"),
            emailConfirmedAt: row.date("email_confirmed_at"), phoneConfirmedAt: row.date("phone_confirmed_at"),
            confirmationSentAt: row.date("confirmation_sent_at"), recoverySentAt: row.date("recovery_sent_at"),
            lastSignInAt: row.date("last_sign_in_at"), appMetadata: decodeObject(row.string("raw_app_meta_data")),
            userMetadata: decodeObject(row.string("raw_user_meta_data")), isAnonymous: row.bool("is_anonymous"),
            bannedUntil: row.date("banned_until"), createdAt: created, updatedAt: updated, newEmail: row.string("email_change"),
            emailChangeSentAt: row.date("email_change_sent_at"),
            emailChangeConfirmationsNeeded: Int(row.int("email_change_confirm_needed") ?? 0),
            reauthenticationSentAt: row.date("reauthentication_sent_at"), newPhone: row.string("phone_change"),
            phoneChangeSentAt: row.date("phone_change_sent_at"), invitedAt: row.date("invited_at"), version: row.int("version") ?? 0)
    }

    public func user(id: UUID) async throws -> UserRecord? {
        try await database.read { db in
            try await db.query("SELECT \(Self.userColumns) FROM users WHERE id = ?", [SQLValue(id)]).first.flatMap(Self.user)
        }
    }

    public func user(email: String) async throws -> UserRecord? {
        try await database.read { db in
            try await db.query("SELECT \(Self.userColumns) FROM users WHERE email = ?", [.text(email)]).first.flatMap(Self.user)
        }
    }

    public func users(newEmail: String) async throws -> [UserRecord] {
        try await database.read { db in
            try await db.query(
                "SELECT \(Self.userColumns) FROM users WHERE email_change = ? ORDER BY email_change_sent_at LIMIT 20", [.text(newEmail)]
            ).compactMap(Self.user)
        }
    }

    public func user(phone: String) async throws -> UserRecord? {
        try await database.read { db in
            try await db.query("SELECT \(Self.userColumns) FROM users WHERE phone = ?", [.text(phone)]).first.flatMap(Self.user)
        }
    }

    public func users(newPhone: String) async throws -> [UserRecord] {
        try await database.read { db in
            try await db.query(
                "SELECT \(Self.userColumns) FROM users WHERE phone_change = ? ORDER BY phone_change_sent_at LIMIT 20", [.text(newPhone)]
            ).compactMap(Self.user)
        }
    }

    /// Points the user's identity of `provider` (`email` or `phone`) at `value`, creating the
    /// identity when the user has none: how an added address or number shows on the user.
    static func upsertIdentity(userID: UUID, provider: String, value: String, now: Date, _ db: any SQLExecutor) async throws {
        let key = provider == "phone" ? "phone" : "email"
        let rows = try await db.query(
            "SELECT id, identity_data FROM identities WHERE user_id = ? AND provider = ?", [SQLValue(userID), .text(provider)])
        if rows.isEmpty {
            let data: [String: JSONValue] = [
                "sub": .string(userID.lowercasedString), key: .string(value), "email_verified": .bool(provider == "email"),
                "phone_verified": .bool(provider == "phone"),
            ]
            try await db.query(
                """
                INSERT INTO identities (id, user_id, provider, provider_id, identity_data, email, last_sign_in_at, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    SQLValue(UUID()), SQLValue(userID), .text(provider), .text(userID.lowercasedString), .text(encode(data)),
                    provider == "email" ? .text(value) : .null, .null, SQLValue(now), SQLValue(now),
                ])
            return
        }
        for row in rows {
            var data = decodeObject(row.string("identity_data"))
            data[key] = .string(value)
            try await db.query(
                "UPDATE identities SET email = ?, identity_data = ?, updated_at = ? WHERE id = ?",
                [provider == "email" ? .text(value) : .null, .text(encode(data)), SQLValue(now), .text(row.string("id") ?? "")])
        }
    }

    public func identities(userID: UUID) async throws -> [IdentityRecord] {
        try await database.read { db in try await Self.identities(userID: userID, db) }
    }

    static func identities(userID: UUID, _ db: any SQLExecutor) async throws -> [IdentityRecord] {
        try await db.query("SELECT \(identityColumns) FROM identities WHERE user_id = ? ORDER BY created_at", [SQLValue(userID)])
            .compactMap(Self.identity)
    }

    public func createUser(
        _ user: UserRecord, identity: IdentityRecord, token: OneTimeTokenRecord?, outbox: [OutboxRecord], audit: [AuditEvent],
        limits: [RateLimitCounter]
    ) async throws {
        // Inserts only, decided by unique keys (a taken address fails the insert): `READ
        // COMMITTED` on PostgreSQL, with the counters in the same commit.
        try await translating {
            try await limitedTransaction(limits, .locking) { db in
                try await Self.insert(user, identity: identity, db)
                // A user made with both addresses (the admin API) has an identity for each.
                if let phone = user.phone, identity.provider != "phone" {
                    try await Self.upsertIdentity(userID: user.id, provider: "phone", value: phone, now: user.createdAt, db)
                }
                if let token { try await Self.insert(token, db) }
                try await insertOutbox(outbox, db)
                try await Self.insert(audit, db)
            }
        }
    }

    public func insertUsers(_ users: [(user: UserRecord, identity: IdentityRecord)]) async throws {
        guard !users.isEmpty else { return }
        try await translating {
            try await database.transaction { db in
                for (user, identity) in users { try await Self.insert(user, identity: identity, db) }
            }
        }
    }

    public func createAnonymousUser(_ user: UserRecord, session: SessionRecord, audit: [AuditEvent]) async throws {
        try await translating {
            try await database.lockingTransaction { db in
                try await Self.insert(user, db)
                try await Self.insert(session, db)
                try await Self.insert(audit, db)
            }
        }
    }

    /// A user's row.
    static func insert(_ user: UserRecord, _ db: any SQLExecutor) async throws {
        let binds = Self.userBinds(user)
        try await db.query("INSERT INTO users (\(Self.userColumns)) VALUES (\(Self.placeholders(binds.count)))", binds)
    }

    /// A user's row and its identity's.
    static func insert(_ user: UserRecord, identity: IdentityRecord, _ db: any SQLExecutor) async throws {
        try await insert(user, db)
        try await insert(identity, db)
    }

    public func updateUser(_ user: UserRecord) async throws {
        try await translating {
            try await database.transaction { db in try await Self.update(user, db) }
        }
    }

    public func updateUser(
        _ user: UserRecord, revokingSessionsExcept keeping: UUID?, outbox: [OutboxRecord], audit: [AuditEvent]
    ) async throws {
        try await translating {
            try await database.transaction { db in
                try await Self.update(user, db)
                try await Self.deleteSessions(userID: user.id, except: keeping, db)
                try await db.query("DELETE FROM device_keys WHERE user_id = ?", [SQLValue(user.id)])
                try await insertOutbox(outbox, db)
                try await Self.insert(audit, db)
            }
        }
    }

    /// Writes the caller's copy of the user, provided the row is still at the version the copy
    /// was read at; `StoreError.conflict` when another write came in between (the caller reads
    /// again and decides anew). Every write moves the version on, so while it matches, each
    /// column the caller did not change still holds the value it read: only what the caller
    /// decided changes. A transaction that wrote here serialises with every other that did.
    static func update(_ user: UserRecord, _ db: any SQLExecutor) async throws {
        let assignments = (userColumnNames.dropFirst().dropLast().map { "\($0) = ?" } + ["version = version + 1"])
            .joined(separator: ", ")
        let binds = Array(userBinds(user).dropFirst().dropLast()) + [SQLValue(user.id), .int(user.version)]
        let updated = try await db.query("UPDATE users SET \(assignments) WHERE id = ? AND version = ? RETURNING id", binds)
        guard updated.isEmpty else { return }
        // Only on failure: tell a deleted user from one that changed.
        if try await db.query("SELECT id FROM users WHERE id = ?", [SQLValue(user.id)]).isEmpty {
            throw StoreError.notFound("user \(user.id)")
        }
        throw StoreError.conflict("user \(user.id) changed since it was read at version \(user.version)")
    }

    /// The columns of `userColumns`, in order: the id first, the version last.
    static let userColumnNames = userColumns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }

    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}
