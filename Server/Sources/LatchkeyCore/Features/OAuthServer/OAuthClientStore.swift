import Foundation

/// What the OAuth server's clients need from storage. A deleted client is kept (GoTrue's soft
/// delete) but no read returns it.
public protocol OAuthClientStore: AuditWriting {
    /// Every client not deleted, newest first.
    func oauthClients() async throws -> [OAuthClientRecord]
    /// The client, unless there is none or it was deleted.
    func oauthClient(id: UUID) async throws -> OAuthClientRecord?
    /// Stores the client and records `audit` with it.
    func insertOAuthClient(_ client: OAuthClientRecord, audit: [AuditEvent]) async throws
    /// Writes `client` (and records `audit`) while the stored one, not deleted, was last updated
    /// at `seen`: `false` otherwise (another change came first, or it was deleted), and nothing
    /// is written.
    func updateOAuthClient(_ client: OAuthClientRecord, ifUpdatedAt seen: Date, audit: [AuditEvent]) async throws -> Bool
    /// Marks the client deleted at `date` and records `audit`; `false` when there is none, or it
    /// was deleted already (nothing is written).
    func deleteOAuthClient(id: UUID, at date: Date, audit: [AuditEvent]) async throws -> Bool
}
