import Foundation
import LatchkeyCore

extension SQLAuthStore {
    /// The columns `identity(from:)` reads.
    static let identityColumns = "id, user_id, provider, provider_id, identity_data, email, last_sign_in_at, created_at, updated_at"

    static func identity(from row: SQLRow) -> IdentityRecord? {
        guard let id = row.uuid("id"), let userID = row.uuid("user_id"), let created = row.date("created_at"),
            let updated = row.date("updated_at")
        else { return nil }
        return IdentityRecord(
            id: id, userID: userID, provider: row.string("provider") ?? "", providerID: row.string("provider_id") ?? "",
            identityData: decodeObject(row.string("identity_data")), email: row.string("email"),
            lastSignInAt: row.date("last_sign_in_at"), createdAt: created, updatedAt: updated)
    }

    /// An identity's row: ``StoreError/duplicate(_:)`` (through `translating`) when the provider's
    /// subject is taken.
    static func insert(_ identity: IdentityRecord, _ db: any SQLExecutor) async throws {
        try await db.query(
            "INSERT INTO identities (\(identityColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                SQLValue(identity.id), SQLValue(identity.userID), .text(identity.provider), .text(identity.providerID),
                .text(encode(identity.identityData)), SQLValue(identity.email), SQLValue(identity.lastSignInAt),
                SQLValue(identity.createdAt), SQLValue(identity.updatedAt),
            ])
    }

    public func identity(provider: String, providerID: String) async throws -> (identity: IdentityRecord, user: UserRecord)? {
        try await database.read { db in
            guard
                let identity = try await db.query(
                    "SELECT \(Self.identityColumns) FROM identities WHERE provider = ? AND provider_id = ?",
                    [.text(provider), .text(providerID)]
                ).first.flatMap(Self.identity),
                let user = try await db.query("SELECT \(Self.userColumns) FROM users WHERE id = ?", [SQLValue(identity.userID)]).first
                    .flatMap(Self.user)
            else { return nil }
            return (identity, user)
        }
    }

    public func applyExternalSignIn(_ write: ExternalSignInWrite) async throws {
        // Decided by the user's version and the unique keys (provider and subject, address):
        // inserts and a conditional update, so `READ COMMITTED` on PostgreSQL serialises it
        // with every other write of the user.
        try await translating {
            try await database.transaction { db in
                switch write.user {
                case .insert(let user): try await Self.insert(user, db)
                case .update(let user): try await Self.update(user, db)
                }
                if let held = write.held { try await Self.hold(held, db) }
                switch write.identity {
                case .insert(let identity): try await Self.insert(identity, db)
                case .update(let identity):
                    let updated = try await db.query(
                        """
                        UPDATE identities SET identity_data = ?, email = ?, last_sign_in_at = ?, updated_at = ?
                        WHERE id = ? AND user_id = ? RETURNING id
                        """,
                        [
                            .text(Self.encode(identity.identityData)), SQLValue(identity.email), SQLValue(identity.lastSignInAt),
                            SQLValue(identity.updatedAt), SQLValue(identity.id), SQLValue(identity.userID),
                        ])
                    if updated.isEmpty { throw StoreError.conflict("identity \(identity.id) is gone") }
                }
                if let session = write.session { try await Self.insert(session, db) }
                if let flow = write.flow { try await Self.insert(flow, db) }
                try await Self.insert(write.audit, db)
                try await insertOutbox(write.outbox, db)
            }
        }
    }

    /// Holds the session a change is made under: ``StoreError/conflict(_:)`` when it is gone or
    /// no longer at the level read. The row stays locked (PostgreSQL) until the transaction ends,
    /// so a sign-out or a level change waits for this write, or this write sees it.
    static func hold(_ session: SessionRecord, _ db: any SQLExecutor) async throws {
        let held = try await db.query(
            "UPDATE sessions SET updated_at = updated_at WHERE id = ? AND user_id = ? AND aal = ? RETURNING id",
            [SQLValue(session.id), SQLValue(session.userID), .text(session.aal)])
        if held.isEmpty { throw StoreError.conflict("session \(session.id) ended or changed level") }
    }

    public func unlinkIdentity(id: UUID, user: UserRecord, held: SessionRecord?, audit: [AuditEvent], outbox: [OutboxRecord])
        async throws -> Bool
    {
        do {
            try await database.transaction { db in
                // The user's row first: its version serialises this with every other write of the user.
                try await Self.update(user, db)
                if let held { try await Self.hold(held, db) }
                let deleted = try await db.query(
                    "DELETE FROM identities WHERE id = ? AND user_id = ? RETURNING id", [SQLValue(id), SQLValue(user.id)])
                // Not the user's, or its last: the transaction rolls back, nothing written.
                guard !deleted.isEmpty, try await Self.count("identities", userID: user.id, db) > 0 else { throw UnlinkRefused() }
                try await Self.insert(audit, db)
                try await insertOutbox(outbox, db)
            }
            return true
        } catch is UnlinkRefused {
            return false
        }
    }
}

/// Rolls an unlink back.
private struct UnlinkRefused: Error {}
