import Foundation
import LatchkeyAPI
import LatchkeyCore

extension SQLAuthStore: OAuthAuthorizationStore {
    static let oauthAuthorizationColumns = """
        id, authorization_id, client_id, user_id, redirect_uri, scope, state, resource, code_challenge, code_challenge_method, \
        nonce, status, code_hash, aal, amr, session_id, created_at, expires_at, approved_at
        """

    static func oauthAuthorization(from row: SQLRow) -> OAuthAuthorizationRecord? {
        guard let id = row.uuid("id"), let authorizationID = row.string("authorization_id"), let clientID = row.uuid("client_id"),
            let redirectURI = row.string("redirect_uri"), let challenge = row.string("code_challenge"),
            let method = row.string("code_challenge_method").flatMap(PKCEChallenge.Method.init(rawValue:)),
            let status = row.string("status").flatMap(OAuthAuthorizationRecord.Status.init(rawValue:)),
            let created = row.date("created_at"),
            let expires = row.date("expires_at")
        else { return nil }
        let amr = row.string("amr").flatMap(AuthenticationMethod.list(fromJSON:))
        return OAuthAuthorizationRecord(
            id: id, authorizationID: authorizationID, clientID: clientID, userID: row.uuid("user_id"), redirectURI: redirectURI,
            scope: row.string("scope") ?? "", state: row.string("state"), resource: row.string("resource"),
            challenge: PKCEChallenge(challenge: challenge, method: method), nonce: row.string("nonce"), status: status,
            codeHash: row.string("code_hash"), aal: row.string("aal"), amr: amr ?? [], sessionID: row.uuid("session_id"),
            createdAt: created, expiresAt: expires, approvedAt: row.date("approved_at"))
    }

    static func oauthConsent(from row: SQLRow) -> OAuthConsentRecord? {
        guard let id = row.uuid("id"), let userID = row.uuid("user_id"), let clientID = row.uuid("client_id"),
            let granted = row.date("granted_at")
        else { return nil }
        return OAuthConsentRecord(
            id: id, userID: userID, clientID: clientID, scopes: row.strings("scopes"), grantedAt: granted, revokedAt: row.date("revoked_at")
        )
    }

    public func insertOAuthAuthorization(_ a: OAuthAuthorizationRecord) async throws {
        try await translating {
            try await database.transaction { db in
                try await db.query(
                    "INSERT INTO oauth_authorizations (\(Self.oauthAuthorizationColumns)) VALUES (\(Self.placeholders(19)))",
                    [
                        SQLValue(a.id), .text(a.authorizationID), SQLValue(a.clientID), SQLValue(a.userID), .text(a.redirectURI),
                        .text(a.scope),
                        SQLValue(a.state), SQLValue(a.resource), .text(a.challenge.challenge), .text(a.challenge.method.rawValue),
                        SQLValue(a.nonce), .text(a.status.rawValue), SQLValue(a.codeHash), SQLValue(a.aal), .text(Self.encodeAMR(a.amr)),
                        SQLValue(a.sessionID), SQLValue(a.createdAt), SQLValue(a.expiresAt), SQLValue(a.approvedAt),
                    ])
            }
        }
    }

    public func oauthAuthorization(id authorizationID: String) async throws -> OAuthAuthorizationRecord? {
        try await database.read { db in
            try await db.query(
                "SELECT \(Self.oauthAuthorizationColumns) FROM oauth_authorizations WHERE authorization_id = ?", [.text(authorizationID)]
            ).first.flatMap(Self.oauthAuthorization)
        }
    }

    public func updateOAuthAuthorization(
        _ next: OAuthAuthorizationRecord, ifPendingFor userID: UUID?, consent: OAuthConsentRecord?, audit: [AuditEvent]
    ) async throws -> Bool {
        try await database.lockingTransaction { db in
            let owner = userID == nil ? "user_id IS NULL" : "user_id = ?"
            let updated = try await !db.query(
                """
                UPDATE oauth_authorizations SET user_id = ?, status = ?, code_hash = ?, aal = ?, amr = ?, approved_at = ? \
                WHERE id = ? AND status = 'pending' AND \(owner) RETURNING id
                """,
                [
                    SQLValue(next.userID), .text(next.status.rawValue), SQLValue(next.codeHash), SQLValue(next.aal),
                    .text(Self.encodeAMR(next.amr)), SQLValue(next.approvedAt), SQLValue(next.id),
                ] + (userID.map { [SQLValue($0)] } ?? [])
            ).isEmpty
            guard updated else { return false }
            if let consent {
                try await db.query(
                    """
                    INSERT INTO oauth_consents (id, user_id, client_id, scopes, granted_at, revoked_at) VALUES (?, ?, ?, ?, ?, NULL) \
                    ON CONFLICT (user_id, client_id) DO UPDATE SET scopes = excluded.scopes, granted_at = excluded.granted_at, \
                    revoked_at = NULL
                    """,
                    [
                        SQLValue(consent.id), SQLValue(consent.userID), SQLValue(consent.clientID), .text(JSONText.encode(consent.scopes)),
                        SQLValue(consent.grantedAt),
                    ])
            }
            try await Self.insert(audit, db)
            return true
        }
    }

    public func redeemOAuthCode(
        codeHash: String, decide: @escaping @Sendable (OAuthAuthorizationRecord?, UserRecord?) -> OAuthCodeRedemption
    ) async throws -> (OAuthCodeRedemption, UserRecord?)? {
        let database = self.database
        return try await database.lockingTransaction { db in
            // The request locked first, then its user shared (as a ban takes them: it waits for
            // this exchange, then ends the session it made).
            let authorization = try await db.query(
                "SELECT \(Self.oauthAuthorizationColumns) FROM oauth_authorizations WHERE code_hash = ?\(database.lockClause(.update))",
                [.text(codeHash)]
            ).first.flatMap(Self.oauthAuthorization)
            var user: UserRecord?
            if let owner = authorization?.userID {
                user = try await db.query(
                    "SELECT \(Self.userColumns) FROM users WHERE id = ?\(database.lockClause(.share))", [SQLValue(owner)]
                ).first.flatMap(Self.user)
            }
            let decision = decide(authorization, user)
            switch decision {
            case .issue(let used, let session, let audit):
                let spent = try await !db.query(
                    "UPDATE oauth_authorizations SET status = 'used', session_id = ? WHERE id = ? AND status = 'approved' RETURNING id",
                    [SQLValue(used.sessionID), SQLValue(used.id)]
                ).isEmpty
                guard spent else { return nil }
                try await Self.insert(session, db)
                try await Self.insert(audit, db)
            case .revoke(let sessionID, let audit, _):
                if let sessionID { try await db.query("DELETE FROM sessions WHERE id = ?", [SQLValue(sessionID)]) }
                try await Self.insert(audit, db)
            case .refuse:
                break
            }
            return (decision, user)
        }
    }

    public func oauthConsent(userID: UUID, clientID: UUID) async throws -> OAuthConsentRecord? {
        try await database.read { db in
            try await db.query(
                "SELECT id, user_id, client_id, scopes, granted_at, revoked_at FROM oauth_consents WHERE user_id = ? AND client_id = ?",
                [SQLValue(userID), SQLValue(clientID)]
            ).first.flatMap(Self.oauthConsent)
        }
    }

    public func oauthConsents(userID: UUID) async throws -> [OAuthConsentRecord] {
        try await database.read { db in
            try await db.query(
                """
                SELECT c.id, c.user_id, c.client_id, c.scopes, c.granted_at, c.revoked_at FROM oauth_consents c \
                JOIN oauth_clients o ON o.id = c.client_id \
                WHERE c.user_id = ? AND c.revoked_at IS NULL AND o.deleted_at IS NULL ORDER BY c.granted_at DESC, c.id DESC
                """,
                [SQLValue(userID)]
            ).compactMap(Self.oauthConsent)
        }
    }

    public func revokeOAuthConsent(userID: UUID, clientID: UUID, at date: Date, audit: [AuditEvent]) async throws -> Bool {
        try await database.lockingTransaction { db in
            let revoked = try await !db.query(
                "UPDATE oauth_consents SET revoked_at = ? WHERE user_id = ? AND client_id = ? AND revoked_at IS NULL RETURNING id",
                [SQLValue(date), SQLValue(userID), SQLValue(clientID)]
            ).isEmpty
            guard revoked else { return false }
            try await Self.endOAuthGrants(clientID: clientID, userID: userID, db)
            try await Self.insert(audit, db)
            return true
        }
    }

    /// Ends a client's sessions and voids its requests not yet spent: of one user, or of all.
    static func endOAuthGrants(clientID: UUID, userID: UUID?, _ db: any SQLExecutor) async throws {
        let ofUser = userID == nil ? "" : " AND user_id = ?"
        let arguments = [SQLValue(clientID)] + (userID.map { [SQLValue($0)] } ?? [])
        try await db.query("DELETE FROM sessions WHERE oauth_client_id = ?\(ofUser)", arguments)
        try await db.query(
            "UPDATE oauth_authorizations SET status = 'denied' WHERE client_id = ?\(ofUser) AND status IN ('pending', 'approved')",
            arguments)
    }
}
