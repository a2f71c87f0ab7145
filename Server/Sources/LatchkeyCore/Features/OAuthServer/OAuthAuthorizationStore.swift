import Foundation

/// What the OAuth server's authorization flow needs from storage: the requests, the users'
/// consents, and the code's one redemption. Every write holds on the precondition of what was read.
public protocol OAuthAuthorizationStore: OAuthClientStore, UserReading {
    /// Stores a new request.
    func insertOAuthAuthorization(_ authorization: OAuthAuthorizationRecord) async throws
    /// The request with this public id.
    func oauthAuthorization(id authorizationID: String) async throws -> OAuthAuthorizationRecord?
    /// Writes `next` while the stored request is still `pending` for `userID` (`nil`: for nobody
    /// yet), with `consent` (inserted, or replacing the user's one for the client) and `audit`;
    /// `false` otherwise, and nothing is written.
    func updateOAuthAuthorization(
        _ next: OAuthAuthorizationRecord, ifPendingFor userID: UUID?, consent: OAuthConsentRecord?, audit: [AuditEvent]
    ) async throws -> Bool
    /// Reads the request whose code hashes to `codeHash` (`nil` when none) and its user, and
    /// applies what `decide` answers, in one transaction, the user's row shared-locked so that a
    /// ban waits and then ends the new session. `nil` when an `issue`'s precondition (still
    /// `approved`) no longer held: nothing was written.
    func redeemOAuthCode(
        codeHash: String, decide: @escaping @Sendable (OAuthAuthorizationRecord?, UserRecord?) -> OAuthCodeRedemption
    ) async throws -> (OAuthCodeRedemption, UserRecord?)?
    /// The user's consent for the client, revoked or not.
    func oauthConsent(userID: UUID, clientID: UUID) async throws -> OAuthConsentRecord?
    /// The user's consents not revoked, newest first, for clients not deleted.
    func oauthConsents(userID: UUID) async throws -> [OAuthConsentRecord]
    /// Revokes the user's consent for the client at `date` and, in the same write, ends the
    /// user's sessions of that client and the requests not yet spent; `false` when there was
    /// no consent to revoke (nothing written).
    func revokeOAuthConsent(userID: UUID, clientID: UUID, at date: Date, audit: [AuditEvent]) async throws -> Bool
}
